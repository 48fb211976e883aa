"""The exception rule (checks/exceptions.py): a claim must not state of a thing what its source states of
everything except it; and a denial of everything except a thing affirms it."""

from __future__ import annotations

import pytest

from citebound.verify.cascade import Cascade
from citebound.verify.checks.exceptions import (
    denied_by_exception,
    affirmed_by_exception,
    exception_conflicts,
    excepted_words,
    restated_by_exception,
)


@pytest.mark.parametrize(
    "claim, source",
    [
        ("The warranty covers water damage.", "The warranty covers everything except water damage."),
        ("Sale items can be refunded.", "All items can be refunded, excluding sale items."),
        ("Bob went home early.", "Everyone except Bob went home early."),
        ("The plan includes phone support.", "The plan includes all support channels other than phone support."),
        ("The drug lowers blood sugar in children.", "The drug lowers blood sugar in adults but not children."),
    ],
)
def test_the_excepted_thing_is_not_supported(claim, source):
    assert exception_conflicts(claim, source)
    v = Cascade().check_pair(claim, source)
    assert v.label == "unsupported" and v.stage in ("exception", "negation"), v.reason  # "but not" is a negation too


@pytest.mark.parametrize(
    "claim, source",
    [
        ("The warranty covers fire damage.", "The warranty covers everything except water damage."),  # not excepted
        ("The warranty does not cover water damage.", "The warranty covers everything except water damage."),
        ("The museum is closed on Mondays.", "The museum is open every day except Mondays."),  # another statement
        ("Pets are allowed in the lobby.", "Pets are not allowed anywhere except the lobby."),  # a denial's exception
        ("All staff except interns get a bonus.", "All staff except interns get a bonus."),  # the claim's own
        ("Water damage is common.", "The warranty covers everything except water damage."),  # says something else
    ],
)
def test_no_conflict_where_the_claim_agrees_or_says_something_else(claim, source):
    assert exception_conflicts(claim, source) == []


def test_a_denial_with_an_exception_affirms_the_excepted_thing():
    source = "Pets are not allowed anywhere except the lobby."
    assert affirmed_by_exception("Pets are allowed in the lobby.", source)
    assert not affirmed_by_exception("Pets are allowed in the garden.", source)
    assert not affirmed_by_exception("Pets are allowed in the lobby.", "Pets are allowed anywhere except the lobby.")
    v = Cascade().check_pair("Pets are allowed in the lobby.", source)
    assert v.stage != "negation", v.reason  # no longer read as "allowed" against "not allowed"
    assert excepted_words("The museum is open every day except Mondays, and closes at six.") == {"monday"}


@pytest.mark.parametrize(
    "claim, source, restated",
    [
        # 2026-12-01: `deterministic` said partial (0.50): "closed" is not in the source
        ("The museum is closed on Mondays.", "The museum is open every day except Mondays.", True),
        ("Smoking is prohibited in the lobby.", "Smoking is permitted everywhere except the lobby.", True),
        ("The museum is closed on Tuesdays.", "The museum is open every day except Mondays.", False),  # not excepted
        ("The shop is closed on Mondays.", "The museum is open every day except Mondays.", False),  # another subject
        ("The museum is open on Mondays.", "The museum is open every day except Mondays.", False),  # no opposite
        ("The museum is not closed on Mondays.", "The museum is open every day except Mondays.", False),  # negated
    ],
)  # fmt: skip
def test_the_opposite_of_a_statement_said_of_its_exception_restates_it(claim, source, restated):
    assert (restated_by_exception(claim, source) is not None) == restated
    v = Cascade().check_pair(claim, source)
    assert (v.label == "supported") == restated, v.reason


@pytest.mark.parametrize(
    "claim, source, restated",
    [
        # blind set 20's b20-39 kind: the negation rule blocked the exception restated as a denial
        ("Year 10 pupils don't have to wear a blazer on trips.",
         "All pupils must wear a blazer on trips, except Year 10 pupils, who may wear a jumper.", True),
        ("Staff in the Leeds office do not get a bonus.", "All staff get a bonus in December, except those in the Leeds office.", True),
        ("Year 9 pupils don't have to wear a blazer on trips.",
         "All pupils must wear a blazer on trips, except Year 10 pupils, who may wear a jumper.", False),
        ("Year 10 pupils wear a blazer on trips.",
         "All pupils must wear a blazer on trips, except Year 10 pupils, who may wear a jumper.", False),  # not negated
        # a prohibition is no exception from a rule (a review's false support, 2026-12-03)
        ("Year 10 pupils must not wear a blazer on trips.",
         "All pupils must wear a blazer on trips, except Year 10 pupils, who may wear a jumper.", False),
    ],
)  # fmt: skip
def test_a_denial_of_the_excepted_thing_restates_the_exception(claim, source, restated):
    assert denied_by_exception(claim, source) is restated
    if restated:
        v = Cascade().check_pair(claim, source)
        assert v.stage != "negation", v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("A valid ticket is required to board the ferry.", "No passenger may board the ferry without a valid ticket."),
        ("You need a permit to park here.", "You cannot park here without a permit."),
    ],
)
def test_a_denial_of_doing_without_is_a_requirement(claim, source):
    # b20-13: "No passenger may board ... without" was read as a denial of boarding
    v = Cascade().check_pair(claim, source)
    assert v.stage != "negation", v.reason


def test_a_denial_of_doing_without_counts_only_when_it_is_the_source_s_one_denial():
    # "but no licence is needed for the lake": the lake is denied a requirement (a review's false support)
    v = Cascade().check_pair("A licence is required to fish in the lake.",
                             "No one may fish in the river without a licence, but no licence is needed for the lake.")
    assert v.label != "supported", v.reason
