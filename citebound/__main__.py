from citebound.cli import main

main()
