"""A requirement the source sets, denied by the claim (checks/negation.denied_requirement): "A ticket is not
required to board" against "No passenger may board without a ticket" was supported by the model (P 0.81)."""

from __future__ import annotations

import pytest

from citebound.verify import check_claim
from citebound.verify.checks.negation import denied_requirement, missing_negations, polarity_conflicts, restated_requirement

TICKETS = "No passenger may board without a ticket."


@pytest.mark.parametrize(
    "claim, source",
    [
        ("A ticket is not required to board.", TICKETS),
        ("You don't need a ticket to board.", TICKETS),
        ("A permit is not needed to fish.", "Nobody may fish without a permit."),
        ("A helmet is not required to ride.", "Riders must not ride without a helmet."),
        ("ID is not required to vote.", "No one can vote without ID."),
        ("No safety induction is needed to work on site.", "No one may work on site without a safety induction."),
        ("Customers need not provide ID to open an account.", "No customer may open an account without ID."),
        ("A pass is not required to enter the building.", "No one may enter the building without a pass, except staff."),
        # other ways to set or deny it (a review's misses)
        ("A licence is not required to sell alcohol.", "It is forbidden to sell alcohol without a licence."),
        ("A ticket is not needed to enter the stadium.", "Fans are not permitted to enter the stadium without a ticket."),
        ("There is no need for a pass to enter the lab.", "No one may enter the lab without a pass."),
    ],
)  # fmt: skip
def test_a_denied_requirement_contradicts_the_source(claim, source):
    assert denied_requirement(claim, source)
    v = check_claim(claim, ("S1",), {"S1": source}, checker="full")
    assert (v.label, v.stage) == ("unsupported", "negation"), v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("A ticket is required to board.", TICKETS),  # the requirement restated
        ("A ticket is not required to board the ferry.", "No passenger may board the train without a ticket."),
        ("Visitors do not need a permit to enter the park.",
         "Visitors cannot enter the reserve without a permit. The park is open to all."),  # another place
        ("A ticket is not required to enter the museum.",
         "The museum is free. No visitor may enter the exhibition without a ticket."),
        ("A passport is not required to board.", TICKETS),  # another thing
        ("A ticket is not required to park.", TICKETS),  # another deed
        # a review's false blocks (2026-12-03): the claim's words in an exception or another clause, not the denial
        ("Staff do not need a pass to enter the building.", "No one may enter the building without a pass, except staff."),
        ("Guests with an invitation do not need a pass to enter the gala.",
         "No guest may enter the gala without a pass or an invitation."),
        ("Training is not needed to run in the park.",
         "No one may run the machine without training, though anyone may run in the park without training."),
        ("Staff do not need a pass to enter the depot.",
         "Staff may enter the depot without a pass; no visitor may enter the depot without a pass."),
        ("There is no need for a permit to walk in the park.", "It is forbidden to camp in the park without a permit."),
        ("Fans do not need a ticket to enter the fan zone.", "Fans are not permitted to enter the stadium without a ticket."),
    ],
)  # fmt: skip
def test_a_requirement_of_another_deed_place_or_thing_is_left_to_the_other_checks(claim, source):
    assert denied_requirement(claim, source) is None


@pytest.mark.parametrize("claim,source", [
    ("You cannot enter the lab without a badge.", "A badge is required to enter the lab."),
    ("Officers cannot get location history without a warrant.", "Police need a warrant to obtain location history."),
])
def test_a_requirement_restated_as_a_denial_without_it_is_no_contradiction(claim, source):
    # the rule said the other way round: "cannot V without X" against "X is required to V"
    assert restated_requirement(claim, source)
    assert polarity_conflicts(claim, source) == [] and missing_negations(claim, source) == []


@pytest.mark.parametrize("claim,source", [
    ("You cannot enter the lab without a badge.", "A badge is not required to enter the lab."),  # denied there
    ("You cannot enter the lab without a badge.", "A helmet is required to enter the lab."),  # another thing
    ("You cannot enter the lab without a badge.", "Anyone may enter the lab."),
    # an exception in the sentence, or a denial elsewhere in the evidence, may be of this very requirement
    ("Children under five cannot travel without a ticket.", "Tickets are required on all trams, but children under five travel free."),
    ("Teachers cannot leave without signing out.", "Pupils must sign out before leaving. Staff are not required to sign out."),
])
def test_a_denial_without_a_thing_the_source_does_not_require_is_not_excused(claim, source):
    assert not restated_requirement(claim, source)
