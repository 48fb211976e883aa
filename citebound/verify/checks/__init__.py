"""One check per module: ids (is the cited source there?), numbers (are the claim's numbers in it?),
lexical (are the claim's words in it?), negation (does the evidence negate where the claim does?).
`base` holds the shared result type and the Protocol a semantic (entailment) stage implements."""
