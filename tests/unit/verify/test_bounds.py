"""A bound turned around (checks/bounds.py), and the direction of a negated bound (text/numbers.py)."""

from __future__ import annotations

import pytest

from citebound.text.numbers import extract_numbers
from citebound.verify import check_claim
from citebound.verify.checks.bounds import denied_beyond_bound, reversed_bounds

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


@pytest.mark.parametrize(
    "claim, source",
    [
        ("Children over 12 travel free.", "Under-12s travel free."),
        ("Over-12s travel free.", "Under-12s travel free."),
        ("People aged under 65 receive a free flu jab.", "Over-65s receive a free flu jab."),
        ("Swimming lessons for children over 12 are held on Saturdays.",
         "Swimming lessons for under-12s are held on Saturdays."),
        # the clause about the age group decides, not what the sentence says of the others
        ("Children over 12 travel free.", "Under-12s travel free; older children pay half."),
        ("Children over 12 travel free on all lines.",
         "Under-12s travel free on all lines, including the more scenic routes."),
        # people bounded by age without a hyphen; what follows the number is no measure
        ("Children over 12 travel free.", "Children under 12 travel free."),
        ("Patients under 65 should take a lower dose.", "Patients over 65 should take a lower dose."),
        ("Adults under 50 are offered bowel screening.", "Bowel screening is offered to adults over 50 every two years."),
        # a bound written after the number
        ("Residents under 70 get a free bus pass.", "Residents aged 70 or older get a free bus pass."),
        ("Guests under 18 can use the hotel gym.", "Guests aged 18 and above can use the hotel gym."),
        ("Children aged 12 and over travel free.", "Children under 12 travel free."),
    ],
)  # fmt: skip
def test_what_the_source_says_of_an_age_group_is_not_said_of_the_other_side(claim, source):
    assert reversed_bounds(claim, source)
    v = check_claim(claim, ("S1",), {"S1": source}, checker="deterministic")
    assert (v.label, v.stage) == ("unsupported", "numbers"), v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("Children under 12 travel free.", "Under-12s travel free."),
        ("Adults over 65 get a discount.", "Over-65s get a discount."),
        ("Children over 12 pay half fare.", "Under-12s travel free; over-12s pay half fare."),  # both groups named
        ("Visitors over 16 pay £10.", "Under-16s pay £5 and older visitors pay £10."),  # the other clause says it
        ("Parents of children over 5 must book.", "Parents of under-5s must book."),  # a group of parents, not ages
        ("Tickets cost over 12 pounds.", "Under-12s travel free."),  # no group of people
        ("People over 65 get a discount.", "People aged over 65 get a discount."),
        ("Children over 12 pay full fare.", "Children under 12 travel free; children over 12 pay full fare."),
    ],
)  # fmt: skip
def test_an_age_group_restated_or_named_on_both_sides_is_left_alone(claim, source):
    assert not any("other side" in r for r in reversed_bounds(claim, source))


@pytest.mark.parametrize(
    "text, hedge",
    [("Under-12s travel free.", "at_most"), ("Over-65s get a discount.", "at_least"),
     ("Residents aged 65 and over", "at_least"), ("aged 70 or older", "at_least"), ("12 or more people", "at_least"),
     ("open to 18+ only", "at_least"), ("children 5 years and under", "at_most"), ("tickets at £5 and older prints", ""),
     ("the 12 and 14 buses", "")],
)  # fmt: skip
def test_an_age_group_is_a_bound(text, hedge):
    # and so is a bound written after the number ("aged 65 and over"); "older" only of an age
    assert [m.hedge for m in extract_numbers(text)][:1] == [hedge]


@pytest.mark.parametrize(
    "claim, source",
    [
        ("You cannot borrow more than 12 books.", "Members may borrow up to 12 books at a time."),
        ("Guests may not stay longer than 14 nights.", "Guests can stay for up to 14 nights."),
        ("Members aren't allowed to borrow more than 12 books.", "Members may borrow up to 12 books."),
        ("No member can borrow more than 12 books.", "Each member can borrow up to 12 books."),
        ("Patients must not drink more than 2 litres of fluid a day.",
         "Patients may drink a maximum of 2 litres of fluid a day."),
        ("You can't borrow more than twelve books.", "Members can borrow up to 12 books."),
        ("Members cannot borrow more than 12 books at a time.",
         "Members may borrow up to 12 books at a time. DVDs cannot be renewed."),  # a denial of something else
    ],
)  # fmt: skip
def test_a_denied_more_than_restates_an_upper_bound(claim, source):
    # the negation check read "cannot borrow" against a plain "borrow" and blocked all of these
    assert denied_beyond_bound(claim, source)
    v = check_claim(claim, ("S1",), {"S1": source}, checker="deterministic")
    assert v.stage != "negation", v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("You cannot borrow more than 10 books.", LOANS),  # another number
        ("You cannot renew more than 12 books.", LOANS),  # another verb
        ("You cannot borrow more than 12 books.", "Members may borrow at least 12 books at a time."),  # a minimum
        ("You cannot borrow more than 12 books.", "Members may borrow 12 books at a time."),  # no bound
        ("You cannot borrow more than 12 DVDs.", LOANS),  # another thing counted
        ("Students cannot borrow more than 12 books.", "Staff may borrow up to 12 books at a time."),  # another group
        ("You cannot borrow more than 12 books a year.", LOANS),  # a period the source does not give
        ("Guests cannot stay for more than 3 nights.", "Guests can stay for up to 3 weeks."),  # another unit
        ("Members cannot borrow more than 12 books.", "Members may borrow up to 12 books, or up to 20 with a premium card."),
        ("Members cannot borrow more than 12 books.",
         "Members may borrow up to 12 books per visit, and more than 12 with the librarian's permission."),
        ("Under-16s cannot play more than 60 minutes per match.", "Over-16s may play up to 60 minutes per match."),
        ("Workers cannot lift more than 25 kg without help.", "Workers may lift up to 25 kg."),
    ],
)  # fmt: skip
def test_a_denied_more_than_of_something_else_is_still_a_denial(claim, source):
    # a review's cases (2026-12-03): the first version let each of these reach the model, which supported them
    assert not denied_beyond_bound(claim, source)
    v = check_claim(claim, ("S1",), {"S1": source}, checker="full")
    assert v.label != "supported", v.reason
