"""The comparison rule (checks/comparison.py) on plain sentences: a comparison turned around is a
conflict, the same comparison restated the other way round is not, and what the rule cannot relate
it leaves alone."""

from __future__ import annotations

import pytest

from citebound.verify.checkers import make_checker
from citebound.verify.checks.comparison import comparison_conflicts, comparisons

TURNED_AROUND = [
    ("The new train is slower than the old one.", "The new train is faster than the old one."),
    ("Trains run more often on Sundays than on weekdays.", "Trains run less often on Sundays than on weekdays."),
    ("Plan A has fewer features than plan B.", "Plan A has more features than plan B."),
    ("Copper conducts heat better than steel.", "Steel conducts heat better than copper."),
    ("Plan A is cheaper than plan B.", "Plan A is more expensive than plan B."),
    ("Delivery takes more than 3 days.", "Delivery takes less than 3 days."),
    ("Lisbon is hotter than Oslo in July.", "Oslo is hotter than Lisbon in July."),  # an -er word not in the table
    # a capital letter names a side (2026-12-01: "A" was read as the article, both checkers supported it)
    ("Line A is longer than line B.", "Line B is longer than line A."),
    ("Vitamin C is cheaper than vitamin D.", "Vitamin D is cheaper than vitamin C."),
    # speed said by an adverb or by the time it takes (2026-12-03: full supported the first, P 0.88)
    ("The drug acts faster than aspirin.", "The drug acts more slowly than aspirin."),
    ("The train is quicker than the bus.", "The train takes longer than the bus."),
    ("Rice cooks faster than pasta.", "Rice takes much longer to cook than pasta."),  # an adverb between (a review)
]
LEFT_ALONE = [
    ("The old train is slower than the new one.", "The new train is faster than the old one."),  # restated
    ("Steel conducts heat worse than copper.", "Copper conducts heat better than steel."),
    ("Plan B has more features than plan A.", "Plan A has fewer features than plan B."),
    ("Plan A is cheaper than plan B.", "Plan A is less expensive than plan B."),
    ("The drug was not better than placebo.", "The drug was better than placebo."),  # negated: not read
    ("Refunds take no more than 5 days.", "Refunds take less than 5 days."),
    ("Prices rose faster than wages.", "Rents rose faster than inflation."),  # unrelated sides
    ("It was more than 3 million years ago.", "CO2 was below 300 ppm less than 20 million years ago."),
    ("Women live longer than men.", "Men live longer than women in this cohort, but women live longer than men overall."),
    ("Users other than admins can read it.", "Admins other than users can read it."),  # "other than" compares nothing
    ("Line B is shorter than line A.", "Line A is longer than line B."),  # restated from the other side
    ("A train is faster than a bus.", "A train is faster than a bus in the city."),  # "A" the article
    ("The train is slower than the bus.", "The train takes longer than the bus."),
    ("The bus is quicker than the train.", "The train takes longer than the bus."),
    ("Delivery takes longer than a week.", "Delivery takes longer than a week in rural areas."),
]


@pytest.mark.parametrize("claim,source", TURNED_AROUND)
def test_a_comparison_turned_around_is_a_conflict(claim, source):
    conflicts = comparison_conflicts(claim, source)
    assert len(conflicts) == 1
    assert conflicts[0].startswith("the source ")


@pytest.mark.parametrize("claim,source", LEFT_ALONE)
def test_a_restatement_or_an_unrelated_comparison_is_no_conflict(claim, source):
    assert comparison_conflicts(claim, source) == []


def test_it_reads_direction_dimension_and_sides():
    (c,) = comparisons("Plan A has fewer features than plan B.")
    assert (c.dimension, c.direction) == ("featur", -1)
    # "plan" is on both sides: it tells the sides nothing; the capital letters name them ("A" is no article)
    assert c.right == {"labelb"} and c.left == {"labela"}
    assert comparisons("No comparison here.") == []


@pytest.mark.parametrize("checker", ["deterministic", "full"])
def test_the_cascade_blocks_it_whatever_the_overlap(checker):
    v = make_checker(checker).check_pair("The new train is slower than the old one.",
                                         "The new train is faster than the old one. It runs hourly.")  # fmt: skip
    assert v.label == "unsupported"
    assert v.stage == "comparison"
    assert "faster than the old one" in v.reason
