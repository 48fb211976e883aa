"""The scope rule (checks/scope.py): a claim must not say "all" of what its source restricts, or "only" of
what its source shares."""

from __future__ import annotations

import pytest

from citebound.verify.cascade import Cascade
from citebound.verify.checks.scope import scope_conflicts


@pytest.mark.parametrize(
    "claim, source",
    [
        ("All orders ship free.", "Orders over 50 euros ship free."),
        ("Every employee gets a laptop.", "Eligible employees get a laptop."),
        ("All patients received aspirin.", "Patients over 65 received aspirin and a statin."),
        ("Only managers can approve expenses.", "Managers and team leads can approve expenses."),
        ("Only members can book rooms.", "Rooms can be booked by members or guests."),
    ],
)
def test_a_widened_or_narrowed_scope_is_unsupported(claim, source):
    assert scope_conflicts(claim, source)
    v = Cascade().check_pair(claim, source)
    assert (v.label, v.stage) == ("unsupported", "scope"), v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("All orders ship free.", "All orders ship free within Germany."),  # the source says all too
        ("Only managers can approve expenses.", "Only managers can approve expenses."),
        ("Managers can approve expenses.", "Managers and team leads can approve expenses."),  # no "only"
        ("All staff get a bonus.", "Staff get a bonus."),  # no restriction
        ("Any customer can return items.", "Customers can return items within 30 days."),  # restricts items
        ("Not all orders ship free.", "Orders over 50 euros ship free."),  # a negated claim: not this rule's
        ("All orders ship in a box.", "Orders over 50 euros ship free."),  # says something else
    ],
)
def test_no_conflict_where_the_scope_agrees_or_the_claim_says_something_else(claim, source):
    assert scope_conflicts(claim, source) == []
