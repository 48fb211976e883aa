"""The kind stage (checks/kinds.py): one word of a closed kind swapped for another of its kind is a
contradiction; the same word in another spelling, a word the claim adds, or a unit after a number is not."""

from __future__ import annotations

import pytest

from citebound.verify.cascade import Cascade
from citebound.verify.checks.kinds import swapped_kinds, swapped_timeliness


@pytest.mark.parametrize(
    "claim, source, said",
    [
        # 2026-12-02, the tenth blind set: every checker supported it (full 0.86, P = 0.85)
        ("Server access logs are reviewed by the security team every month and archived after 90 days.",
         "Server access logs are reviewed by the security team every week and archived after 90 days.", "'month'"),
        ("The north wing is closed for repairs.", "The south wing is closed for repairs until June.", "'north'"),
        ("The museum is closed on Tuesdays.", "The museum is closed on Mondays.", "'tuesdays'"),
        ("The report is published monthly.", "The report is published quarterly.", "'monthly'"),
        ("Press the red button to reset the device.", "Press the blue button to reset the device.", "'red'"),
        ("The festival takes place in summer.", "The festival takes place in winter, when the lake freezes.", "'summer'"),
        # a longer claim: the other word between the claim's word's neighbours (the twelfth blind set, full 0.63)
        ("Applications open on 3 February and close at midnight on 14 March, with decisions due by the end of May.",
         "Applications open on 3 February and close at noon on 14 March. Decisions will be announced by the end of May.",
         "'midnight'"),
    ],
)  # fmt: skip
def test_a_word_swapped_for_another_of_its_kind_is_unsupported(claim, source, said):
    assert swapped_kinds(claim, source)
    v = Cascade().check_pair(claim, source)
    if said == "'midnight'":  # a time of day: the numbers rule, which runs first, finds it (midnight is 0:00)
        assert (v.label, v.stage) == ("unsupported", "numbers") and "the time 0:00 ('midnight')" in v.reason, v.reason
        return
    assert (v.label, v.stage) == ("unsupported", "kind") and f"the claim says {said}" in v.reason, v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("Logs are reviewed weekly.", "Logs are reviewed every week."),  # one period, two spellings
        ("The warranty lasts one year.", "The warranty lasts 12 months."),  # a unit after a number: not read here
        ("The museum is closed on Mondays.", "The museum is closed on Mondays and Tuesdays."),
        ("The museum opens on Tuesdays.", "The museum is closed on Mondays; it opens on other days."),  # other words
        ("The museum is not closed on Tuesdays.", "The museum is closed on Mondays."),  # negated: another rule's
        ("The shop is open on Saturdays.", "The shop is open on weekends."),  # a day is no other part of the week
        ("The report is published every month.", "The report is published every month and reviewed every year."),
        # how often said with a count, a month that is a verb, a colour that is a name (a review of 2026-12-02 found
        # each blocked)
        ("The magazine is published monthly.", "The magazine is published twelve times a year."),
        ("The museum opens daily.", "The museum is open seven days a week."),
        ("The festival lasts a week.", "The festival lasts seven days and is held every year."),
        ("Protesters march to the capitol.", "In April, protesters marched to the capitol."),
        ("Meg White played the drums.", "Meg played the drums and Jack played a red guitar."),
        # the ninth blind set's n43, blocked after the review's narrowing: "per month" states "monthly"
        ("Interns receive a monthly travel allowance of £120.",
         "Interns are not eligible for the annual bonus, but they do receive a travel allowance of £120 per month."),
    ],
)  # fmt: skip
def test_the_same_word_another_spelling_or_other_words_are_no_swap(claim, source):
    assert swapped_kinds(claim, source) == []


@pytest.mark.parametrize(
    "claim, source, said",
    [
        # a probe of 2026-12-02 (thirteenth session): full supported it, 0.82
        ("The project was completed on time.", "The project was completed two months late.", "'on time'"),
        ("The train arrived late.", "The 8:15 train arrived on time despite the snow.", "'arrived late'"),
        ("The bridge opened ahead of schedule.", "The bridge opened on schedule in May.", "'ahead of schedule'"),
    ],
)  # fmt: skip
def test_on_time_late_or_early_swapped_is_unsupported(claim, source, said):
    assert swapped_timeliness(claim, source)
    v = Cascade().check_pair(claim, source)
    assert (v.label, v.stage) == ("unsupported", "kind") and f"the claim says {said}" in v.reason, v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("The project was completed on time.", "The project was completed on time and under budget."),
        ("The late king founded the abbey.", "The king founded the abbey in 1120; he died late in life."),  # no such phrase
        ("The project was not completed on time.", "The project was completed two months late."),  # negated
        ("The report was delayed.", "The report was delayed by two weeks."),
        ("The bridge was completed early in 1932.", "The bridge was completed in February 1932, three months behind schedule."),
    ],
)  # fmt: skip
def test_the_same_timeliness_or_none_is_no_swap(claim, source):
    assert swapped_timeliness(claim, source) == []
