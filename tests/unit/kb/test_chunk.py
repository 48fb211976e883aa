from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from citebound.kb.chunk import chunk_id, chunk_spans
from citebound.text.sentences import sentence_spans

TEXT = (
    "Dr. Smith measured 4.5 kg in the U.S. lab. The result was unexpected! Was it an error? "
    "A second run gave the same value.\n\nA new paragraph starts here. It has two sentences."
)


def test_chunks_slice_back_and_cover_every_sentence():
    spans = chunk_spans(TEXT, size=80, overlap=30)
    assert len(spans) > 2
    for s in spans:
        assert 0 <= s.start < s.end <= len(TEXT)
        assert len(TEXT[s.start : s.end]) <= 80 or TEXT[s.start : s.end].count(" ") == 0
    covered = set()
    for s in spans:
        covered.update(range(s.start, s.end))
    for start, end in sentence_spans(TEXT):
        assert set(range(start, end)) <= covered


def test_chunks_start_and_end_on_sentence_boundaries():
    starts = {s for s, _ in sentence_spans(TEXT)}
    ends = {e for _, e in sentence_spans(TEXT)}
    for s in chunk_spans(TEXT, size=120, overlap=40):
        assert s.start in starts and s.end in ends


def test_overlap_repeats_the_last_sentence_when_it_fits():
    spans = chunk_spans(TEXT, size=100, overlap=60)
    first, second = spans[0], spans[1]
    assert second.start < first.end  # the two chunks share at least one sentence


def test_zero_overlap_makes_disjoint_chunks():
    spans = chunk_spans(TEXT, size=100, overlap=0)
    for a, b in zip(spans, spans[1:]):
        assert a.end <= b.start


def test_a_sentence_longer_than_the_size_is_cut_at_spaces():
    text = "word " * 100 + "end."
    spans = chunk_spans(text.strip(), size=50, overlap=10)
    assert all(s.end - s.start <= 50 for s in spans)
    assert "".join(text[s.start : s.end] for s in spans).replace(" ", "") == text.replace(" ", "")


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError):
        chunk_spans(TEXT, size=0)
    with pytest.raises(ValueError):
        chunk_spans(TEXT, size=100, overlap=100)


def test_chunk_id_depends_on_doc_offsets_and_text_only():
    a = chunk_id("doc", 0, 10, "0123456789")
    assert a == chunk_id("doc", 0, 10, "0123456789")
    assert a != chunk_id("doc2", 0, 10, "0123456789")
    assert a != chunk_id("doc", 1, 11, "0123456789")
    assert a != chunk_id("doc", 0, 10, "0123456780")


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.text(alphabet="abc def.\n?!", min_size=0, max_size=40), min_size=0, max_size=20),
    st.integers(20, 200),
    st.integers(0, 19),
)
# found by hypothesis: the overlap kept every unit but the first and the next piece no longer fit,
# so the second chunk (3, 14) ended where the first (0, 14) did
@example(parts=["?\n\n????????", "?? ?????????"], size=20, overlap=11)
def test_chunks_always_slice_back_and_move_forward(parts, size, overlap):
    text = " ".join(parts)
    spans = chunk_spans(text, size=size, overlap=overlap)
    for a, b in zip(spans, spans[1:]):
        assert b.start > a.start and b.end > a.end
    for s in spans:
        assert text[s.start : s.end].strip() == text[s.start : s.end]
        assert s.end > s.start


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(alphabet="abc def.\n?!AB", min_size=1, max_size=30), min_size=1, max_size=8))
def test_the_short_text_shortcut_gives_what_sentence_packing_gives(parts):
    text = " ".join(parts).strip()
    if not text:
        return
    spans = chunk_spans(text, size=max(len(text), 1), overlap=0)
    sentences = sentence_spans(text)
    assert spans == ([type(spans[0])(sentences[0][0], sentences[-1][1])] if sentences else [])
