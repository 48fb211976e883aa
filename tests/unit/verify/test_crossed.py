"""Two values given to two things the other way round from the source (checks/crossed.py)."""

from __future__ import annotations

import pytest

from citebound.verify import check_claim
from citebound.verify.checks.crossed import crossed_values

PLANS = "The Basic plan costs $9 a month and the Premium plan costs $24 a month."


@pytest.mark.parametrize(
    "claim, source, owner",
    [
        ("The Basic plan costs $24 and the Premium $9.", PLANS, "basic"),
        ("The adult ticket costs 12 euros and the child ticket 20 euros.",
         "An adult ticket costs 20 euros and a child ticket costs 12 euros.", "adult"),
        # a model number belongs to its name, not to what it counts
        ("The Kestrel 5 lasts 9 hours and the Kestrel 7 lasts 12 hours.",
         "The Kestrel 5 lasts 12 hours, while the Kestrel 7 lasts 9 hours.", "kestrel 5"),
        # a value with no noun of its own counts what the value before it counts ("and Lyon 12")
        ("Paris had 12 stores and Lyon 40.", "Paris had 40 stores and Lyon 12.", "paris"),
        # an ordinal names a thing; it is no value
        ("The first floor has 30 rooms and the second floor has 18 rooms.",
         "The first floor has 18 rooms and the second floor has 30 rooms.", "first"),
    ],
)  # fmt: skip
def test_values_crossed_between_two_things_are_found_and_blocked(claim, source, owner):
    found = crossed_values(claim, source)
    assert found and f"to {owner!r}; the source gives it to" in found[0]
    for checker in ("deterministic", "full"):
        v = check_claim(claim, ("S1",), {"S1": source}, checker=checker)
        assert (v.label, v.stage) == ("unsupported", "numbers"), (checker, v.reason)


@pytest.mark.parametrize(
    "claim, source",
    [
        ("The Basic plan costs $9 and the Premium $24.", PLANS),
        ("The Basic plan costs $9 and the Premium $24.", "Premium costs $24 a month. Basic costs $9 a month."),
        # the owner may stand after its value: read nothing into the order then
        ("Sales rose 5% in Asia and 12% in Europe.", "Sales in Europe grew 12% while sales in Asia grew 5%."),
        ("The Basic plan costs $24 and the Premium $9.", "It costs $9 for Basic and $24 for Premium."),
        ("The Basic plan costs $24 and the Premium $9.", "The plans cost $24 and $9 respectively for Basic and Premium."),
        # one value in the claim, or values of different measures
        ("The Premium plan costs $24.", PLANS),
        ("The Kestrel 7 weighs 300 grams and lasts 9 hours.", "The Kestrel 7 lasts 9 hours and weighs 300 grams."),
        ("The Kestrel 5 lasts 12 hours and the Kestrel 7 lasts 9 hours.",
         "The Kestrel 5 lasts 12 hours, while the Kestrel 7 lasts 9 hours."),
    ],
)  # fmt: skip
def test_values_paired_as_the_source_pairs_them_or_not_comparably_are_left_alone(claim, source):
    assert crossed_values(claim, source) == []
