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
        # all of something, against the very statement with an exception or a condition after it (2026-12-02, the
        # ninth blind set: both supported by every checker, P = 0.89 and 0.97)
        ("Every staff member must complete fire safety training by 30 November.",
         "All staff must complete fire safety training by 30 November, except those who completed it within the past 12 months."),
        ("Any student may retake the final exam once.",
         "Students may retake the final exam once, but only if they attended at least 80% of the lectures."),
        ("The museum is open every day.", "The museum is open every day except Mondays."),
        ("All tenants may keep a cat.", "All tenants may keep a cat as long as the landlord agrees in writing."),
        # a condition after a comma: raised AttributeError (the exception group is empty), 2026-12-02
        ("All tenants may keep a cat.", "All tenants may keep a cat, as long as the landlord agrees in writing."),
        ("All employees get a bonus.", "All employees get a bonus, except interns."),
        # "most" of what the source says "several" or "some" of
        ("Most members voted for the new rules.", "Several members voted for the new rules at the meeting."),
        ("Most staff work from home.", "Some staff work from home."),
        ("Most residents support the plan.", "A handful of residents support the plan."),
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
        ("Every staff member except new hires must complete the training.",
         "All staff must complete the training, except new hires."),  # the claim states the exception
        ("All staff must complete the training.",
         "All staff must complete the training. Contractors are exempt, except those on site."),  # another clause's
        ("Every student may retake the exam only if they attended.",
         "Students may retake the exam, but only if they attended the lectures."),  # the claim's own "only if"
        # a restriction of something else than the quantified things (a review of 2026-12-02 found each blocked)
        ("Every employee receives health insurance.",
         "All employees receive health insurance, but only managers receive a company car."),
        ("Every student studies mathematics.", "All students study mathematics but not Latin."),
        ("Every member must follow the code of conduct.",
         "All members must follow the code of conduct and are subject to an annual review."),
        # "several" of others beside "most" of the claim's
        ("Most patients recovered within a week.",
         "Several patients had side effects, but most patients recovered within a week."),
        # a share said with another predicate, or above a half; "at most" and "the cafe's most popular" share
        # nothing (a review of 2026-12-03)
        ("Most staff stayed late.", "Several staff left early, but 45 of the 50 staff stayed late."),
        ("Most pupils went on the trip.", "Several of the 30 pupils were ill, but the other 27 pupils went on the trip."),
        ("The hall holds at most 200 people.", "The hall holds no more than 200 people, and several people were turned away."),
        ("Pizza is the cafe's most popular dish.", "Pizza is the cafe's best-selling dish, ahead of several popular pasta dishes."),
    ],
)
def test_no_conflict_where_the_scope_agrees_or_the_claim_says_something_else(claim, source):
    assert scope_conflicts(claim, source) == []
