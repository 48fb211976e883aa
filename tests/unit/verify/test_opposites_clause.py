"""The opposite of a claim word in the window's statement about the claim's subject (checks/opposites.py,
`clause_opposites`), where the window states the claim's word only of something else."""

from __future__ import annotations

import pytest

from citebound.verify import check_claim
from citebound.verify.checks.opposites import clause_opposites


@pytest.mark.parametrize(
    "claim, source",
    [
        # blind set 20's kinds: full supported each (P 0.95, 0.97, 0.90)
        ("The security deposit is refundable.",
         "The security deposit is non-refundable; the rest of the fee is refundable if you cancel early."),
        ("Calls to landlines are unlimited.",
         "The plan includes unlimited texts. Calls to landlines are limited to 300 minutes a month."),
        ("Net profit rose in the second half.", "Sales rose in the second half, while net profit fell by a fifth."),
    ],
)  # fmt: skip
def test_the_opposite_said_of_the_claim_s_subject_is_unsupported(claim, source):
    assert clause_opposites(claim, source)
    v = check_claim(claim, ("S1",), {"S1": source}, checker="full")
    assert (v.label, v.stage) == ("unsupported", "opposite"), v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("Net profit rose in the second half.", "Sales fell in the second half, but net profit rose."),
        ("The rest of the fee is refundable.",
         "The security deposit is non-refundable; the rest of the fee is refundable if you cancel early."),
        ("Net profit did not fall.", "Sales rose in the second half, while net profit fell by a fifth."),  # negated
        # the claim says both words itself (a dev row blocked by a first version)
        ("Smith was acquitted of murder but convicted of manslaughter.",
         "A jury acquitted Smith of murder. He was convicted of manslaughter; his brother was acquitted."),
        # a superlative's scope is its own (a dev row)
        ("The infection is most common among people aged 16 to 24.",
         "The infection is least common among older adults; it is most common among people aged 16 to 24."),
        ("Radioiodine treatment of non-toxic goitre reduces thyroid volume.",
         "Radioiodine treatment reduces thyroid volume; non-toxic goitre is common."),
        # a review's false blocks (2026-12-03): the word in another form, another time, a part of the subject,
        # a passive, a statement without the claim's context
        ("Operating profit rose in 2021.", "Operating profit was rising throughout 2021; operating profit fell in 2020."),
        ("Coal imports rose in 2021.", "In 2021 purchases of foreign coal rose 8%. Coal imports fell in 2020."),
        ("Sales in Asia rose.", "Asian sales rose 9%. Sales of phones in Asia fell 2%."),
        ("The share price of the bank rose after the merger.",
         "After the merger, the stock rose 10%. The share price of the bank fell before the merger."),
        ("The trial jury acquitted the defendant of murder.",
         "The defendant was acquitted of murder but convicted of manslaughter by the trial jury."),
        ("Total company sales rose.", "Total company sales climbed 3% even though company sales in Europe fell."),
        ("The public pool is closed on Mondays.", "The public pool is open every day except Mondays; the sauna is closed."),
    ],
)  # fmt: skip
def test_the_claim_s_word_said_of_its_subject_or_no_statement_about_it_is_left_alone(claim, source):
    assert clause_opposites(claim, source) == []
