"""A bound turned around (checks/bounds.py), and the direction of a negated bound (text/numbers.py)."""

from __future__ import annotations

import pytest

from citebound.text.numbers import extract_numbers
from citebound.verify import check_claim
from citebound.verify.checks.bounds import reversed_bounds

LOANS = "Undergraduate students may borrow up to 12 books at a time, for a standard loan period of three weeks."


@pytest.mark.parametrize(
    "claim, source",
    [
        # blind set 20's b20-40 and b20-42 kind: full supported both (P 0.94, 0.67)
        ("Marinate the lamb for at least 3 hours.", "Marinate the lamb for up to 3 hours in the fridge."),
        ("Students can borrow more than 12 books at a time.", LOANS),
        ("The battery lasts more than 10 hours.", "The battery lasts up to 10 hours on a single charge."),
        ("Delivery takes at most 3 days.", "Delivery takes at least 3 days."),
    ],
)  # fmt: skip
def test_a_bound_the_source_states_the_other_way_is_unsupported(claim, source):
    assert reversed_bounds(claim, source)
    v = check_claim(claim, ("S1",), {"S1": source}, checker="full")
    assert (v.label, v.stage) == ("unsupported", "numbers"), v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("Students can borrow up to 12 books.", LOANS),
        ("Students cannot borrow more than 12 books.", LOANS),  # a negated bound from below bounds from above
        ("Students may borrow no more than 12 books.", LOANS),
        # the source states the value both ways: which one the claim means is the other checks' to read
        ("Orders under $50 ship free.", "Orders under $50 pay a $4 fee; orders over $50 ship free."),
        ("The drug reduced pain in more than 60% of patients.",
         "The drug reduced pain in over 60% of patients, with up to 60% reporting side effects."),
        ("The battery lasts more than 10 hours.", "The battery lasts 10 hours on a single charge."),  # no bound there
        # a review's false blocks (2026-12-03): the claim speaks of what lies beyond the bound, of another group,
        # or of a consequence; a particle is no bound
        ("Bags over 23 kg incur an excess baggage charge.",
         "Checked bags may weigh up to 23 kg; heavier bags incur an excess baggage charge."),
        ("Baking it for more than 40 minutes will overcook it.", "Bake for up to 40 minutes; any longer and it will overcook."),
        ("Children over 5 pay £10.", "Admission is free for children under 5; everyone else pays £10."),
        ("Storing the tablets above 25°C can damage them.", "Store the tablets below 25°C, as heat can damage them."),
        ("Staff can carry over 5 days of unused leave.", "Staff may carry up to 5 days of unused leave into the new year."),
        ("Members can borrow up to 12 books.", "Members cannot borrow more than 12 books at a time."),
    ],
)  # fmt: skip
def test_a_bound_the_source_states_the_same_way_or_not_at_all_is_left_alone(claim, source):
    assert reversed_bounds(claim, source) == []


@pytest.mark.parametrize(
    "text, hedge",
    [("no more than 12", "at_most"), ("not more than 12 hours", "at_most"), ("no longer than 20 minutes", "at_most"),
     ("no fewer than 3 people", "at_least"), ("not less than 5", "at_least"), ("more than 12", "at_least")],
)  # fmt: skip
def test_a_negated_bound_has_the_other_direction(text, hedge):
    # "no more than 12" was read as a bound from below
    assert [m.hedge for m in extract_numbers(text)] == [hedge]
