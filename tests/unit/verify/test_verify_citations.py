"""Citation parsing, claims and abstention; property tests on arbitrary Unicode."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from citebound.text.citations import ABSTENTION_SENTENCES
from citebound.verify.citations import (
    cited_ids,
    parse_markers,
    remove_markers,
    resolve_id,
    split_claims,
)


def test_both_styles_and_all_groupings():
    text = "A [1]. B [1][3]. C [1, 3]. D [S1]. E [S1][S3]. F [S1, S2]. G [s4; S5]."
    assert [m.ids for m in parse_markers(text)] == [
        ("1",), ("1",), ("3",), ("1", "3"), ("S1",), ("S1",), ("S3",), ("S1", "S2"), ("S4", "S5"),
    ]  # fmt: skip


def test_brackets_that_are_not_citations_are_ignored():
    assert parse_markers("an array [a, b], a range [1-3] and [S1x]") == []


def test_markers_attach_to_the_sentence_they_close_on_either_side_of_the_stop():
    claims, abstained = split_claims("It takes 30 days [1]. It is free. [2] Done without any source at all here.")
    assert [(c.text, c.cited_ids) for c in claims] == [
        ("It takes 30 days.", ("1",)),
        ("It is free.", ("2",)),
        ("Done without any source at all here.", ()),
    ]
    assert not abstained


def test_marker_only_line_closes_the_previous_claim():
    claims, _ = split_claims("Refunds take five days.\n\n[S1]")
    assert [(c.text, c.cited_ids) for c in claims] == [("Refunds take five days.", ("S1",))]


def test_exact_abstention_sentences_make_an_abstained_answer():
    for sentence in ABSTENTION_SENTENCES:
        claims, abstained = split_claims(sentence)
        assert claims == [] and abstained
    claims, abstained = split_claims("i could not find   this in the knowledge base.")
    assert abstained


def test_an_abstention_inside_a_longer_answer_is_not_a_claim_and_not_an_abstention():
    claims, abstained = split_claims("Refunds take five days [S1]. That does not appear from the material.")
    assert [c.text for c in claims] == ["Refunds take five days."] and not abstained


def test_configured_abstentions_replace_the_defaults():
    claims, abstained = split_claims("No idea.", abstentions=["No idea."])
    assert abstained and not claims
    assert not split_claims("No idea.")[1]


def test_ids_resolve_across_styles():
    assert resolve_id("1", {"S1": "x"}) == "S1"
    assert resolve_id("S1", {"1": "x"}) == "1"
    assert resolve_id("S1", {"S1": "x"}) == "S1"
    assert resolve_id("7", {"1": "x"}) is None


def test_remove_markers_tidies_spacing():
    assert remove_markers("It takes 30 days [1] .") == "It takes 30 days."
    assert remove_markers("Free [S1, S2], fast [3].") == "Free, fast."


marker = st.lists(st.integers(1, 99), min_size=1, max_size=3).map(
    lambda ids: "[" + ", ".join(f"S{i}" for i in ids) + "]"
)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_never_raises_on_arbitrary_unicode(text):
    claims, _ = split_claims(text)
    for m in parse_markers(text):
        assert text[m.start : m.end].startswith("[") and text[m.end - 1] == "]"
    for c in claims:
        assert 0 <= c.start <= c.end <= len(text)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text(alphabet=st.characters(blacklist_characters="[]"), max_size=30), marker),
                min_size=1, max_size=5))
def test_every_inserted_marker_is_found(parts):
    text = " ".join(words + " " + m for words, m in parts)
    expected = [m for _, m in parts]
    assert [text[m.start : m.end] for m in parse_markers(text)] == expected
    ids = tuple(dict.fromkeys(i.strip() for _, m in parts for i in m[1:-1].split(",")))
    assert cited_ids(text) == ids


def test_list_bullets_are_not_part_of_the_claim():
    claims, _ = split_claims("Found:\n1. Refunds take five days [S1]\n2) Shipping is free [S2]\n- Gift cards expire [S3]")
    assert [(c.text, c.cited_ids) for c in claims][-3:] == [
        ("Refunds take five days", ("S1",)),
        ("Shipping is free", ("S2",)),
        ("Gift cards expire", ("S3",)),
    ]


def test_an_index_zero_is_text_not_a_citation():
    """Technical documentation writes `sys.argv[0]` and `heap[0]`; ids count from 1, so `[0]` alone is
    kept as text (the extractive backend quotes it, the verifier reads no citation in it)."""
    from citebound.text.citations import MARKER, remove_markers

    assert remove_markers("The smallest item is heap[0] [S1].") == "The smallest item is heap[0]."
    assert [m.group(1) for m in MARKER.finditer("argv[0] and [1] and [0, 2] and [S0]")] == ["1", "0, 2", "S0"]
