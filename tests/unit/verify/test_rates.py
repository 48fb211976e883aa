"""A rate is per what its source says (checks/numbers.py `rate_after`): "10 euros per month" is not
stated by "10 euros per user per month"."""

from __future__ import annotations

import re

import pytest

from citebound.verify.cascade import Cascade
from citebound.verify.checks.numbers import rate_after


@pytest.mark.parametrize(
    "text, per",
    [
        ("10 euros per user per month", {"user", "month"}),
        ("€10 per month", {"month"}),
        ("5 mg/kg/day", {"kg", "day"}),
        ("60 km/h", {"hour"}),
        ("30 % per year in Europe", {"year"}),
        ("12 paintings and 3 drawings", set()),
        ("10 euros a month", set()),  # no "per": not read as a rate (left to the other checks)
        ("10 euros per user a month", {"user", "month"}),  # beside a "per", "a month" is one too
        ("10 euros a month per user", {"user", "month"}),
    ],
)
def test_what_a_number_is_per(text, per):
    number = re.search(r"\d+", text)
    assert set(rate_after(text, number.end())) == per


def test_a_rate_per_something_else_is_unsupported_and_named():
    v = Cascade().check_pair("The plan costs 10 euros per month.", "The plan costs 10 euros per user per month.")
    assert (v.label, v.stage) == ("unsupported", "numbers") and "not per 'month'" in v.reason
    same = Cascade().check_pair("The plan costs 10 euros per user per month.", "Each plan costs 10 euros per user per month.")
    assert same.stage != "numbers", same.reason
    no_rate = Cascade().check_pair("The plan costs 10 euros per month.", "The plan costs 10 euros, billed monthly.")
    assert no_rate.stage != "numbers", no_rate.reason  # the source gives no rate: not this rule's to judge
