"""One speaker's words put in another's mouth (checks/speakers.py)."""

from __future__ import annotations

import pytest

from citebound.verify import check_claim
from citebound.verify.checks.speakers import wrong_speakers

DEBATE = "Maria said the plan was sound, but Tom said it would fail."
DRUG = "Dr Patel said the drug was effective. Dr Okafor warned that it can cause dizziness."


@pytest.mark.parametrize(
    "claim, source, speaker",
    [
        # every checker supported it (full 0.92): both names say something, so the role check steps aside
        ("Maria said the plan would fail.", DEBATE, "Tom"),
        ("Dr Patel warned that the new drug can cause dizziness.", DRUG, "Okafor"),
        ("Smith said profits would rise next year.",
         "Profits will rise next year, said Jones. Smith said costs would also rise.", "Jones"),
        ("Ben said the bridge would open in May.",
         "Anna said the bridge would open in May, and Ben said the road would open in June.", "Anna"),
    ],
)  # fmt: skip
def test_words_the_source_gives_another_speaker_are_unsupported(claim, source, speaker):
    found = wrong_speakers(claim, source)
    assert found and repr(speaker) in found[0]
    v = check_claim(claim, ("S1",), {"S1": source}, checker="full")
    assert (v.label, v.stage) == ("unsupported", "role"), v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("Tom said the plan would fail.", DEBATE),  # "it" refers back to the plan Maria spoke of
        ("Maria said the plan was sound.", DEBATE),
        ("Dr Okafor warned that the drug can cause dizziness.", DRUG),
        ("Maria said the plan would fail.", "Tom said the plan would fail. Maria said it would fail too."),
        ("Jones said profits would rise next year.",
         "Profits will rise next year, said Jones. Smith said costs would also rise."),
        ("Smith said costs would rise.", "Profits will rise next year, said Jones. Smith said costs would also rise."),
        # one speaker only, or none in the claim
        ("Maria said the plan would fail.", "Maria said the plan would fail."),
        ("The plan would fail.", DEBATE),
    ],
)  # fmt: skip
def test_words_said_by_the_claim_s_speaker_are_left_alone(claim, source):
    assert wrong_speakers(claim, source) == []
