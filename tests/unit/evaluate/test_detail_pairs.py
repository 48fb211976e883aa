"""training/pairs.py `detail_pairs` (rule/detail_*): claims that add an invented detail to a true
statement are labelled not supported, and the same shapes built only from the document are labelled
supported. Run on small hand-written documents (the generator's `docs` argument), no shared data."""

from __future__ import annotations

import random

import pairs  # training/pairs.py (pyproject: pythonpath)
import re


DOCS = [
    ("shop", "Refunds are paid within five business days of the return. Express delivery arrives on the next "
             "business day for an extra fee. Returns are accepted at any of our stores. The store was opened by "
             "Maria Lopez in the old market hall. The warranty was extended for two more years."),
    ("bridge", "The bridge was built by the Romans in the second century. Ships pass through the canal at night. "
               "The tower was restored after the great fire. Visitors climb to the top by a narrow staircase. "
               "The museum was founded with a gift from Anna Berg."),
    ("sales", "Sales fell by eight percent in the third quarter. A new competitor entered the market in the same "
              "quarter. The company was founded in Oslo by Erik Holm. Its products are sold in twelve countries. "
              "The head office moved to Bergen during the winter."),
    ("river", "The river flows into the northern sea near the old port. Salmon swim upstream during the autumn. "
              "The valley was settled by farmers in the ninth century. Boats carry timber along the river."),
]


def generated(seeds: range = range(30)) -> list[tuple[str, str, int, str]]:
    out = []
    for seed in seeds:
        got, _ = pairs.detail_pairs(random.Random(seed), per_doc=5, docs=DOCS)
        out += got
    return out


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().rstrip(".").lower()


def test_prepositional_phrases_of_a_handbook_sentence():
    s = "Refunds are paid within five business days of the return."
    phrases = [(s[a:b], p) for a, b, p in pairs.prepositional_phrases(s)]
    assert ("within five business days of the return", "within") in phrases
    # a sentence-initial phrase is not one of them (cutting before it leaves no statement)
    assert all(a > 0 for a, _, _ in pairs.prepositional_phrases("In 1850 the bridge was built by the Romans."))


def test_every_kind_is_made_with_the_right_label():
    kinds = {(k, y) for _, _, y, k in generated()}
    assert {("rule/detail_short_kept", 1), ("rule/detail_and", 1), ("rule/detail_short_foreign", 0),
            ("rule/detail_replaced", 0), ("rule/detail_added", 0), ("rule/detail_cause", 0)} <= kinds
    assert all(y == (k in ("rule/detail_short_kept", "rule/detail_and")) for k, y in kinds)


def test_supported_claims_are_stated_by_their_document():
    for claim, doc, y, kind in generated():
        if kind == "rule/detail_short_kept":  # a prefix of one of the document's sentences
            assert any(_norm(s).startswith(_norm(claim)) for s in pairs.sentences(doc)), claim
        elif kind == "rule/detail_and":  # two of its sentences, joined by ", and"
            a, b = claim.split(", and ", 1)
            assert _norm(a) in _norm(doc) and _norm(b) in _norm(doc), claim


def test_unsupported_claims_add_what_the_document_does_not_say():
    doc_words = {key: set(pairs._terms(text)) for key, text in DOCS}
    for claim, doc, y, kind in generated():
        if y:
            continue
        assert _norm(claim) not in _norm(doc)
        if kind == "rule/detail_cause":
            assert " because " in claim and "because" not in doc
        elif kind in ("rule/detail_short_foreign", "rule/detail_replaced", "rule/detail_added"):
            key = next(k for k, t in DOCS if t == doc)
            new = set(pairs._terms(claim)) - doc_words[key]
            assert new, claim  # at least one word from another document
            assert any(new & doc_words[k] for k, _ in DOCS if k != key), claim


def test_the_short_shape_keeps_the_sentence_start_and_changes_only_its_phrase():
    made = [(c, d) for c, d, y, k in generated() if k == "rule/detail_short_foreign"]
    assert made
    for claim, doc in made:
        starts = [s for s in pairs.sentences(doc) if _norm(s).split()[:2] == _norm(claim).split()[:2]]
        assert starts, claim


def test_the_generator_is_deterministic_for_a_seed():
    a, _ = pairs.detail_pairs(random.Random(7), per_doc=5, docs=DOCS)
    b, _ = pairs.detail_pairs(random.Random(7), per_doc=5, docs=DOCS)
    assert a == b and a
