"""The fast regex scans of citebound.text.numbers find exactly what the readable patterns find.

Each slow pattern (it opens with a lookbehind or a word boundary, so the regex engine tries it at
every position) is run through `finditer_at` with a cheap `starts` pattern. These tests hold the
fast scan to the plain `pattern.finditer` on generated text and on real evidence from the dev splits.
"""

from __future__ import annotations

import json
import re
import sys
from itertools import islice
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import citebound.text.numbers as N
from citebound.text.scan import finditer_at

SCANS = {
    "digits": (N._DIGITS, N._DIGITS_STARTS),
    "iso_date": (N._ISO_DATE, N._ISO_DATE_STARTS),
    "time": (N._TIME, N._TIME_STARTS),
    "word_run": (N._WORD_RUN, N._WORD_RUN_STARTS),
}
CLAIMS_DATA = Path(__file__).resolve().parents[4] / "shared" / "data" / "claims"

# Pieces that exercise every branch: separators, currencies, suffixes, clock times, dates, number words
# in any case, the long s and dotted/dotless i (case-insensitive matching treats them as s and i).
PIECES = st.sampled_from(
    [*"0123456789 .,:-/$€£%\n\u00a0\u202f_'’aAnNkKmMbBsStTxXſİıé", "one", "Two", "hundred", "a ", "an ",
     "THOUSAND", "first", "twenty-", " and ", "12:30", "9 pm", "2020-01-02", "4 990", "1.5 million",
     "3rd", "p53", "1990s", "ſeven", "ſix", "bn", "per cent"]  # fmt: skip
)


def matches(found) -> list:
    return [(m.span(), m.groups()) for m in found]


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=30).map("".join))
def test_fast_scans_equal_finditer_on_generated_text(text: str) -> None:
    for pattern, starts in SCANS.values():
        assert matches(finditer_at(pattern, starts, text)) == matches(pattern.finditer(text))


def _dev_texts(per_set: int = 120) -> list[str]:
    texts = []
    for path in sorted(CLAIMS_DATA.glob("*/dev.jsonl")):
        with path.open(encoding="utf-8") as fh:
            for line in islice(fh, per_set):
                row = json.loads(line)
                texts += [row["claim"], row["evidence"]]
    return texts


@pytest.mark.skipif(not CLAIMS_DATA.is_dir(), reason="claims data not on this machine")
def test_fast_scans_equal_finditer_on_dev_evidence() -> None:
    texts = _dev_texts()
    assert len(texts) > 500
    for name, (pattern, starts) in SCANS.items():
        for text in texts:
            assert matches(finditer_at(pattern, starts, text)) == matches(pattern.finditer(text)), name


def test_word_run_starts_list_every_character_that_matches_a_first_letter() -> None:
    # Case-insensitive matching is wider than upper + lower ("ſ" matches "s"): find every such
    # character by brute force, so the candidate class can never miss a run.
    first = re.compile(f"[{''.join(N._FIRST_LETTERS)}]", re.IGNORECASE)
    wide = {chr(c) for c in range(sys.maxunicode + 1) if first.fullmatch(chr(c))}
    assert wide == set(N._RUN_FIRST)


def test_word_run_start_in_long_s_text_is_found() -> None:
    text = "about ſeven hundred people"
    assert [m.group(0) for m in finditer_at(N._WORD_RUN, N._WORD_RUN_STARTS, text)] == ["ſeven hundred"]
