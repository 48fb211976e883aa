"""The cause check (checks/causes.py): a claim must not give a cause its source never states."""

from __future__ import annotations

import pytest

from citebound.verify.cascade import Cascade
from citebound.verify.checks.causes import invented_causes


@pytest.mark.parametrize(
    "claim, source",
    [
        ("The factory closed because of falling demand.", "The factory closed in 2015. Demand had been falling for years."),
        ("The match was cancelled due to rain.", "The match was cancelled. It rained all afternoon."),
        ("The bridge was closed because of cracks.", "Engineers found cracks in the bridge. The bridge was closed in May."),
        ("Sales fell as a result of the new tax.", "A new tax came into force in March. Sales fell in the second quarter."),
        # a purpose (blind set 16: full 0.63 for "... over the next year to reduce costs")
        ("The firm will cut 200 jobs to reduce costs.", "The firm said it will cut 200 jobs over the next year."),
        ("The council closed two libraries in order to save money.", "The council closed two libraries last year."),
    ],
)
def test_a_cause_the_source_never_states_is_unsupported(claim, source):
    assert invented_causes(claim, source)
    v = Cascade().check_pair(claim, source)
    assert (v.label, v.stage) == ("unsupported", "cause"), v.reason
    assert "states no cause" in v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("The match was cancelled due to rain.", "The match was cancelled because of heavy rain."),
        ("The match was cancelled due to rain.", "Heavy rain forced the organisers to cancel the match."),
        ("Flights were delayed because of fog.", "Fog delayed flights at the airport."),  # the verb states it
        ("The bridge was closed because of cracks.", "The bridge was closed after engineers found cracks."),
        ("The shop closed.", "The shop closed in May."),  # no cause claimed
        ("The delay was not because of the weather.", "The flight was delayed. The weather was fine."),
        # a purpose the source gives, in its words or in a sentence with the deed; a "to" of no purpose
        ("The firm will cut 200 jobs to reduce costs.", "The firm will cut 200 jobs in a bid to reduce costs."),
        ("The firm will cut 200 jobs to reduce costs.", "To reduce costs, the firm will cut 200 jobs."),
        ("Staff must log in to see their shifts.", "Staff must log in to see their shifts."),
    ],
)
def test_a_cause_the_source_may_state_is_left_to_the_other_checks(claim, source):
    assert invented_causes(claim, source) == []
