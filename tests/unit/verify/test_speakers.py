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
        ("Dr Patel warned that the drug can cause dizziness.", DRUG, "Okafor"),
        ("Lee said the merger would cut jobs.",
         "Analyst Mia Tan said the merger would cut jobs, while Joe Lee said the deal would lift profits.", "Mia Tan"),
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
        # a review's false blocks (2026-12-03): a pronoun is no other speaker, a report of a report is both
        # speakers' words, agreeing needs no words, a topic only the other speaker named
        ("Dr Lena Ortiz said the vaccine was safe for children.",
         "Dr Lena Ortiz said the trial had enrolled 4,000 volunteers. She added that the vaccine was safe for "
         "children. Dr Sam Reid said the results were early."),
        ("Ruiz said Baker had warned that the bank was insolvent.",
         "Ana Ruiz said Tom Baker warned that the bank was insolvent. Tom Baker said nothing."),
        ("Okafor said the drug was effective.", "Dr Patel said the drug was effective. Dr Okafor said so too."),
        ("Ross said the stadium project would create 2,000 jobs.",
         "Pat Hume said the new stadium would cost too much. Nina Ross said the project would create 2,000 jobs."),
        # one speaker only, or none in the claim
        ("Maria said the plan would fail.", "Maria said the plan would fail."),
        ("The plan would fail.", DEBATE),
    ],
)  # fmt: skip
def test_words_said_by_the_claim_s_speaker_are_left_alone(claim, source):
    assert wrong_speakers(claim, source) == []
