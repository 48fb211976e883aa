"""The numbers check: every number the claim states must be stated by the cited source.

Runs before the word overlap because a wrong number is the commonest and most harmful unsupported
edit ("ten business days" against "five business days" overlaps 4 of 5 words). Equal amounts in any
form match (see citebound.text.numbers). A hedged claim number matches more loosely: "about N" accepts
a source value within 10 %, "more than N" a value in [N, 10 N], "less than N" a value in [N / 10, N].
"""

from __future__ import annotations

from collections.abc import Sequence

from citebound.text.numbers import NumberMention, canonical

APPROX_TOLERANCE = 0.10


def _hedged_match(mention: NumberMention, source_values: Sequence[float]) -> bool:
    for v in mention.values:
        for s in source_values:
            if mention.hedge == "approx" and abs(s - v) <= APPROX_TOLERANCE * abs(v):
                return True
            if mention.hedge == "at_least" and v <= s <= 10 * v:
                return True
            if mention.hedge == "at_most" and v / 10 <= s <= v:
                return True
    return False


def missing_numbers(
    claim_numbers: Sequence[NumberMention], source_keys: frozenset[str], source_values: Sequence[float]
) -> list[NumberMention]:
    """The claim's number mentions that the source does not state, in claim order."""
    missing = []
    for mention in claim_numbers:
        if mention.keys & source_keys:
            continue
        if mention.hedge and _hedged_match(mention, source_values):
            continue
        missing.append(mention)
    return missing


def describe(mention: NumberMention) -> str:
    """How a missing number is named in a reason: its normalised value, and the words if different."""
    value = canonical(mention.value)
    return value if mention.text.replace(",", "").replace(" ", "") == value else f"{value} ({mention.text!r})"
