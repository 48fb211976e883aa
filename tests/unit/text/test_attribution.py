"""An answer sentence's attribution is read apart from its statement (text/attribution.py)."""

from __future__ import annotations

import pytest

from citebound.text.attribution import without_attribution
from citebound.verify.cascade import Cascade


@pytest.mark.parametrize(
    "claim, statement",
    [
        ("According to the policy, staff in any role may work remotely.", "Staff in any role may work remotely."),
        ("Based on the handbook, staff in any role may work remotely.", "Staff in any role may work remotely."),
        ("As per the contract, rent is due monthly.", "Rent is due monthly."),
        ("The report says spring rainfall was above average.", "Spring rainfall was above average."),
        ("The hotel's terms say loyalty members get a late check-out.", "Loyalty members get a late check-out."),
        ("The leaflet warns that this medicine causes drowsiness.", "This medicine causes drowsiness."),
        ("The release notes say that dark mode is now supported.", "Dark mode is now supported."),
        ("Rainfall was above average, the report says.", "Rainfall was above average."),
        ("Officials said the bridge will stay closed.", "The bridge will stay closed."),
    ],
)  # fmt: skip
def test_an_attribution_is_taken_off_the_statement(claim, statement):
    assert without_attribution(claim) == statement


@pytest.mark.parametrize(
    "claim",
    ["The bus runs every 20 minutes.", "Maria said she would come.", "The company said it will cut 200 jobs.",
     "The shop shows films on Fridays.", "The judge ruled that the contract was void."],
)  # fmt: skip
def test_a_subject_that_names_no_source_or_a_pronoun_after_it_is_kept(claim):
    assert without_attribution(claim) == claim


def test_the_rules_read_the_statement_without_its_attribution():
    # 2026-12-03, blind set 18: "According to the policy, ..." hid an exception from the rule (full 0.90)
    v = Cascade().check_pair("According to the policy, staff in any role may work remotely up to two days per week.",
                             "Remote work is permitted up to two days per week, except for staff in customer-facing roles.")
    assert (v.label, v.stage) == ("unsupported", "exception") and "read without its attribution" in v.reason
    v = Cascade().check_pair("The report says spring rainfall was above the long-term average.",
                             "Rainfall this spring was 142 mm, below the long-term average of 165 mm.")
    assert (v.label, v.stage) == ("unsupported", "opposite")
    v = Cascade().check_pair("The report says spring rainfall was below the long-term average.",
                             "Rainfall this spring was 142 mm, below the long-term average of 165 mm.")
    assert v.label != "unsupported" or v.stage in ("lexical", "semantic"), v.reason
