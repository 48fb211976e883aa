"""`citebound serve`: a small web app over the same library calls as the CLI (optional extra `server`)."""
