"""Sentence splitting on the hard cases the verifier meets (issue 2, item 3)."""

from __future__ import annotations

import pytest

from citebound.text.sentences import sentence_spans, split_sentences


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Dr. Smith arrived. He left.", ["Dr. Smith arrived.", "He left."]),
        ("Use fruit, e.g. apples. Then rest.", ["Use fruit, e.g. apples.", "Then rest."]),
        ("The U.S. Army grew. It shrank.", ["The U.S. Army grew.", "It shrank."]),
        ("It weighs 4.5 kg. It is blue.", ["It weighs 4.5 kg.", "It is blue."]),
        ("It takes 30 days [1]. Shipping is free [2].", ["It takes 30 days [1].", "Shipping is free [2]."]),
        ("It takes 30 days. [1] Shipping is free. [2]", ["It takes 30 days. [1]", "Shipping is free. [2]"]),
        ('He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
        ("Wait... and then more. Next one.", ["Wait... and then more.", "Next one."]),
        ("Items:\n- apples\n- pears", ["Items:", "- apples", "- pears"]),
        ("First point\n\nSecond point", ["First point", "Second point"]),
    ],
)
def test_splits(text, expected):
    assert split_sentences(text) == expected


def test_spans_are_trimmed_offsets():
    text = "  One here.  Two there.  "
    for start, end in sentence_spans(text):
        assert text[start:end] == text[start:end].strip()


def test_circa_before_a_year_does_not_end_a_sentence():
    from citebound.text.sentences import split_sentences

    assert split_sentences("Merry Company on a Terrace (c. 1616–17), Willem Buytewech. It hangs in The Hague.") == [
        "Merry Company on a Terrace (c. 1616–17), Willem Buytewech.", "It hangs in The Hague."]
    assert split_sentences("He wrote part c. 2019 was a good year.") == ["He wrote part c. 2019 was a good year."]
    assert split_sentences("See appendix c. Then read the rest.") == ["See appendix c.", "Then read the rest."]


from citebound.text.sentences import clause_parts  # noqa: E402


@pytest.mark.parametrize(
    ("sentence", "parts"),
    [
        ("Tests showed raised cholesterol, so a diet is recommended.", ["Tests showed raised cholesterol", "so a diet is recommended."]),
        ("Entry is free; parking costs 5 euros.", ["Entry is free", "parking costs 5 euros."]),
        ("Bob and Alice founded it in 2010.", ["Bob and Alice founded it in 2010."]),  # no comma before the "and"
        ("Apples, pears and plums are sold.", ["Apples, pears and plums are sold."]),  # a list
    ],
)  # fmt: skip
def test_clause_parts_cut_where_a_sentence_joins_statements(sentence, parts):
    assert clause_parts(sentence) == parts
