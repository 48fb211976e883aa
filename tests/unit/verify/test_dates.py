"""The dates rule (checks/dates.py) on plain sentences: an event given another event's date is a
conflict; the event's own date, an undated event, a noun before a date or a month against a year are not."""

from __future__ import annotations

import pytest

from citebound.verify.checkers import make_checker
from citebound.verify.checks.dates import date_conflicts

MOVED = [
    ("The bridge opened in 1932.", "Construction of the bridge began in 1932 and it opened in 1937."),
    ("The CEO resigned in March.", "The CEO was appointed in March and resigned in June."),
    ("Revenue grew in 2020.", "Revenue grew in 2019 and in 2020 it fell."),
    ("The album was released on May 3.", "The album was recorded in May and released in August."),
    # a planned event, and a day before its month
    ("The library will reopen on 3 March.", "The library closed on 3 March for repairs and will reopen in June."),
    ("The office is expected to move in 2024.", "The office was refurbished in 2024 and is expected to move in 2026."),
    ("The pool is due to open in 2019.", "The pool was built in 2019 and is due to open in May 2021."),
]
LEFT_ALONE = [
    ("The bridge opened in 1937.", "Construction of the bridge began in 1932 and it opened in 1937."),
    ("The bridge opened in 1932.", "In 1937 the bridge opened; work began in 1932."),  # another construction
    ("The bridge opened in 1932.", "The bridge opened in 1937."),  # 1932 absent: the numbers check's
    ("Prices may rise in 2024.", "Prices rose in 2023 and may rise in 2024."),  # "may" the verb
    ("She joined the council in 2017.", "The council in 1994 had nine members; she joined it in 2017."),
    ("The book was published in December 1865.", "A later edition was published in 1938; the first came out in December."),
    ("She was elected to the council in 2017.", "The council was founded in 1994. She was elected in 2017."),
    ("The library will reopen in June.", "The library closed on 3 March for repairs and will reopen in June."),
    ("The library closed on 3 March.", "The library closed on 3 March for repairs and will reopen in June."),
    ("She moved to Paris in 1990.", "She was born in Lyon in 1960 and moved to Paris in 1990."),  # "to" + a name
    # a plan dates no deed: another chain "had planned to open stores by 2030" says nothing of an opening in 2018
    ("The chain opened its first Italian store in 2018.",
     "The chain's first Italian store, in Milan, dates from 2018. A rival had planned to open more stores by 2030."),
]


@pytest.mark.parametrize("claim,source", MOVED)
def test_an_event_given_another_events_date_is_a_conflict(claim, source):
    (reason,) = date_conflicts(claim, source)
    assert reason.startswith("the source dates ")


@pytest.mark.parametrize("claim,source", LEFT_ALONE)
def test_the_events_own_date_or_what_the_rule_cannot_read_is_no_conflict(claim, source):
    assert date_conflicts(claim, source) == []


@pytest.mark.parametrize("checker", ["deterministic", "full"])
def test_the_cascade_blocks_it_where_the_model_would_not(checker):
    # the shipped entailment model gives this claim P = 0.93
    v = make_checker(checker).check_pair("The bridge opened in 1932.",
                                         "Construction of the bridge began in 1932 and it opened in 1937.")  # fmt: skip
    assert (v.label, v.stage) == ("unsupported", "dates")
    assert "'opened' 1937, not 1932" in v.reason
