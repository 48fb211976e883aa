"""Bounds turned around: "at least 2 hours" where the source says "up to 2 hours".

"The chicken should be marinated for at least 2 hours" against "Marinate the chicken for up to 2 hours";
"Students can borrow more than 12 books" against "may borrow up to 12 books": the number is in the source
with the claim's unit, so the numbers check (checks/numbers.py), which reads a bound loosely ("more than 12"
is met by a source's 15), passes it, and the entailment model supported both (P = 0.94, 0.67). A bound has a
direction: "more than / over / at least / no fewer than" from below, "up to / under / at most / no more than"
from above. The claim's bound is turned around when the source states the same value, in the same
measure, only with the other direction, never plainly or with the claim's.

The cascade runs it in the numbers stage; a conflict makes the source `unsupported` whatever a model says.
"""

from __future__ import annotations

import re

from citebound.text.numbers import extract_numbers, value_measure

_DIRECTIONS = {"at_least": "at_most", "at_most": "at_least"}
_NEGATED = re.compile(r"\b(?:not|never|cannot|nobody|none)\b|n't\b|\bno\s+(?!more\b|less\b|fewer\b|later\b|longer\b)",
                      re.IGNORECASE)


def reversed_bounds(claim: str, evidence: str) -> list[str]:
    """Each claim bound the evidence states the other way round, as a readable phrase; [] when none."""
    c_mentions = [m for m in extract_numbers(claim, ambiguous_words=False) if m.hedge in _DIRECTIONS]
    if not c_mentions:
        return []
    e_mentions = extract_numbers(evidence)  # with their hedges: sources are usually read without
    out = []
    for m in c_mentions:
        if _NEGATED.search(claim[max(0, m.start - 60) : m.start].split(",")[-1]):
            continue  # "cannot borrow more than 12 books" is a bound from above
        measure = value_measure(claim, m)[0]
        same = [o for o in e_mentions if m.keys & o.keys and o.kind == m.kind
                and (not measure or value_measure(evidence, o)[0] in (measure, ""))]  # fmt: skip
        if same and all(o.hedge == _DIRECTIONS[m.hedge] for o in same):
            shown = evidence[max(0, same[0].start - 12) : same[0].end].split()
            out.append(f"the source bounds {m.text!r} the other way ({' '.join(shown[-3:])!r})")
    return out

