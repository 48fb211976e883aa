"""The negation check: a claim that says "not" needs evidence that says it too.

Word overlap cannot tell "X causes Y" from "X does not cause Y". When the claim holds a negation
that its best evidence window lacks, the lexical score is multiplied by NEGATION_FACTOR (a penalty,
not a veto: the source may negate with other words) and the reason names the word. Contractions are
read as "not" (`isn't`, `can't`), as is `cannot`.
"""

from __future__ import annotations

from citebound.text.tokenize import tokens

NEGATIONS = frozenset({"not", "no", "never", "none", "nor", "neither", "without", "nobody", "nothing", "nowhere"})
NEGATION_FACTOR = 0.5


def negations(text: str) -> set[str]:
    """The negation words of `text`, contractions normalised to "not"."""
    found = set()
    for tok in tokens(text):
        if tok in NEGATIONS:
            found.add(tok)
        elif tok.endswith("n't") or tok == "cannot":
            found.add("not")
    return found


def missing_negations(claim: str, evidence: str) -> list[str]:
    """Negations the claim states and the evidence does not, sorted."""
    return sorted(negations(claim) - negations(evidence))
