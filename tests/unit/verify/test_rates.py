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


# -- a rate per a time unit, however written ("a day", "per day", "daily"): `time_rate_after` ---------------
from citebound.verify.checks.numbers import time_rate_after  # noqa: E402


@pytest.mark.parametrize(
    "text, per",
    [
        ("5 tonnes a day", {"day"}),
        ("5 tonnes daily", {"day"}),
        ("5 tonnes per week", {"week"}),
        ("10 euros an hour", {"hour"}),
        ("10 euros per user per month", {"month"}),
        ("5 million a year later", set()),  # a gap, not a rate
        ("2 days in advance", set()),
        ("12 paintings and 3 drawings", set()),
    ],
)
def test_what_time_unit_a_number_is_per(text, per):
    number = re.search(r"\d+", text)
    assert set(time_rate_after(text, number.end())) == per


@pytest.mark.parametrize(
    "claim, source",
    [
        ("The plant produces 5 tonnes a day.", "The plant produces 5 tonnes a week."),
        ("The plant produces 5 tonnes daily.", "The plant produces 5 tonnes weekly."),
        ("The fee is 10 euros a month.", "The fee is 10 euros a year."),
        ("Take two tablets a day.", "Take two tablets a week."),
        # the source says how often: two tablets twice a day are four
        ("Take two tablets a day.", "Take two tablets twice a day."),
        ("Take 2 tablets daily.", "Take 2 tablets three times daily."),
    ],
)
def test_a_rate_per_another_time_unit_is_unsupported(claim, source):
    v = Cascade().check_pair(claim, source)
    assert (v.label, v.stage) == ("unsupported", "numbers"), v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("The plant produces 5 tonnes a day.", "The plant produces 5 tonnes per day."),
        ("The plant produces 5 tonnes per day.", "The plant produces 5 tonnes a day."),
        ("The fee is 10 euros a month.", "The fee is 10 euros."),  # no rate in the source: not this rule's
        ("The company raised 5 million.", "Two years later the company raised 5 million a year."),
        ("The shop is open 24 hours a day.", "The shop is open 24 hours a day, 7 days a week."),
        ("Take two tablets twice a day.", "Take two tablets twice a day."),
        ("Take 500 mg a day.", "Take 500 mg a day, split into two doses."),
        ("Buses run 6 times a day.", "Buses run 6 times a day."),
    ],
)
def test_the_same_time_rate_or_none_is_not_blocked(claim, source):
    assert Cascade().check_pair(claim, source).stage != "numbers"
