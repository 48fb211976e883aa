"""The order stage (checks/order.py): two events told in the other order than the source's are a
contradiction; the same order said another way ("A before B" / "B after A") is not."""

from __future__ import annotations

import pytest

from citebound.verify.cascade import Cascade
from citebound.verify.checks.order import reversed_orders

BOARD = "The board first approved the revised budget and then voted to postpone the hiring until October."
HALL = "After the fire of 1888 destroyed the original wooden town hall, the stone building that stands today was completed in 1893."


@pytest.mark.parametrize(
    "claim, source",
    [
        # 2026-12-02, the tenth blind set: every checker supported both (full 0.97, 0.86)
        ("The board voted to postpone the hiring until October and then approved the revised budget.", BOARD),
        ("The original wooden town hall was destroyed in a fire after the stone building that stands today had been completed.", HALL),
        ("The patients were given the drug before their blood pressure was measured.",
         "Blood pressure was measured, then the patients were given the drug."),
        ("The tunnel was closed for repairs, followed by the reopening of the old bridge.",
         "After the old bridge reopened, the tunnel was closed for repairs."),
    ],
)  # fmt: skip
def test_two_events_in_the_other_order_are_unsupported(claim, source):
    assert reversed_orders(claim, source)
    v = Cascade().check_pair(claim, source)
    assert (v.label, v.stage) == ("unsupported", "order"), v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("The board approved the revised budget before it voted to postpone the hiring.", BOARD),
        ("The stone building was completed after the fire destroyed the original wooden town hall.", HALL),
        ("The board approved the revised budget and then voted to postpone the hiring.", BOARD),
        ("Logs are archived after 90 days.", "Logs are reviewed weekly and archived after 90 days."),
        ("The board did not vote to postpone the hiring before it approved the budget.", BOARD),  # negated
        ("Prices rose until then.", "Prices then fell."),  # "until then" is a time
        # "before" of a place (a review of 2026-12-02 found both blocked)
        ("Senator Jones testified before the committee after the report was released.",
         "After the report was released, Senator Jones testified before the committee."),
        ("The minister appeared before parliament after the scandal broke.",
         "After the scandal broke, the minister appeared before parliament."),
    ],
)  # fmt: skip
def test_the_same_order_said_another_way_is_no_conflict(claim, source):
    assert reversed_orders(claim, source) == []
