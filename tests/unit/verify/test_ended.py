"""The ended-state stage: what a source says held until a time is not stated in the present."""

from __future__ import annotations

import pytest

from citebound.verify.checkers import make_checker
from citebound.verify.checks.ended import ended_states

RIO = "Rio de Janeiro was Brazil's capital until 1960, when Brasília replaced it."


@pytest.mark.parametrize(
    ("claim", "source", "end"),
    [
        ("Rio de Janeiro is Brazil's capital.", RIO, "until 1960"),
        ("Bonn is the seat of government.", "Bonn was the seat of government from 1949 to 1990.", "from 1949 to 1990"),
        ("The Old Mill is a museum.", "The Old Mill was a museum until it closed in 2015; it is now a hotel.", "until it closed"),
        ("The twins are members of the club.", "The twins were members of the club, till they moved away.", "till they moved away"),
        # a post held in the past, "served as" with no article (2026-12-02, the ninth blind set: every checker
        # supported it, P = 0.96)
        ("Gerald Moss is the principal of Westfield Academy.",
         "Gerald Moss served as principal of Westfield Academy from 2008 to 2017. He now chairs the board.", "from 2008 to 2017"),
        ("Ines Roth is the club's treasurer.", "Ines Roth served as the club's treasurer until 2021.", "until 2021"),
    ],
)  # fmt: skip
def test_a_state_that_ended_is_named(claim, source, end):
    found = ended_states(claim, source)
    assert len(found) == 1 and end in found[0], found


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("Rio de Janeiro was Brazil's capital until 1960.", RIO),  # the claim is in the past itself
        ("Rio de Janeiro is no longer Brazil's capital.", RIO),  # negated: the negation rule's business
        ("The Old Mill is a hotel.", "The Old Mill was a museum until it closed in 2015; it is now a hotel."),
        ("Anna is the team captain.", "Anna is the team captain until the end of the season."),  # present in both
        ("Brasília has been Brazil's capital since 1960.", RIO),  # no present copula to put in the past
        ("Gerald Moss is the principal.", "Gerald Moss served as principal for nine years."),  # no end: left to the rest
        ("Ann Lee is the mayor.", "Ann Lee has served as mayor since 2019."),  # served and serves
    ],
)  # fmt: skip
def test_what_did_not_end_or_is_no_copy_is_left_alone(claim, source):
    assert ended_states(claim, source) == []


@pytest.mark.parametrize("name", ["deterministic", "full"])
def test_the_stage_settles_it_whatever_a_model_says(name):
    v = make_checker(name).check_pair("Rio de Janeiro is Brazil's capital.", RIO)
    assert (v.label, v.stage) == ("unsupported", "ended") and "until 1960" in v.reason


def test_a_word_that_matches_is_only_case_insensitively_is_no_copula():
    # "İſ" (dotted capital I, long s) matches "is" under re.IGNORECASE and lower-cases to no copula: it raised
    # KeyError (found by hypothesis in test_checking_any_claim_against_any_source_never_raises, 2026-12-02)
    assert ended_states("Rome İſ the capital of Italy.", "Rome was the capital of Italy until 1870.") == []

