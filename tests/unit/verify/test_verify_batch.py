"""Batch scoring: metrics on worked cases, and the threshold sweep agrees with re-running the cascade."""

from __future__ import annotations

import itertools

import pytest

from citebound.errors import InputError
from citebound.verify.batch import binary_metrics, checker_threshold, labels_at, parse_rows, predict
from citebound.verify.cascade import Cascade

ROWS = parse_rows("\n".join([
    '{"id": "a", "claim": "Refunds take five days.", "evidence": "Refunds take five days.", "label": "supported"}',
    '{"id": "b", "claim": "Refunds take ten days.", "evidence": "Refunds take five days.", "label": "unsupported"}',
    '{"id": "c", "claim": "Shipping is free for members.", "evidence": "Shipping is free.", "label": "supported"}',
    '{"id": "d", "claim": "Gift cards can be returned.", "evidence": "Shipping is free.", "label": "unsupported"}',
    '{"id": "e", "claim": "Members get free shipping.", "evidence": "Shipping costs members nothing.", "label": "supported"}',
]))  # fmt: skip


def test_binary_metrics_worked_example():
    m = binary_metrics(["supported", "supported", "unsupported", "unsupported"],
                       ["supported", "unsupported", "unsupported", "unsupported"])
    assert m["recall_supported"] == 0.5 and m["recall_unsupported"] == 1.0
    assert m["balanced_accuracy"] == 0.75
    assert m["precision_supported"] == 1.0 and m["precision_unsupported"] == pytest.approx(2 / 3)


def test_labels_at_any_threshold_equal_the_cascade_run_at_that_threshold():
    preds, _ = predict(ROWS, Cascade())
    for t in (0.0, 0.3, 0.5, 0.66, 0.8, 1.0):
        rerun, _ = predict(ROWS, Cascade(threshold=t, partial_floor=min(0.5, t)))
        assert labels_at(preds, t) == [p.label for p in rerun]


def test_checker_threshold_is_the_brute_force_optimum():
    preds, _ = predict(ROWS, Cascade())
    t, bacc = checker_threshold(preds)
    gold = [r.label for r in ROWS]
    brute = max(binary_metrics(gold, labels_at(preds, c))["balanced_accuracy"]
                for c in itertools.chain([p.score for p in preds], [1.0]))
    assert bacc == pytest.approx(brute)
    assert binary_metrics(gold, labels_at(preds, t))["balanced_accuracy"] == pytest.approx(bacc)


def test_checker_threshold_needs_labels_and_both_classes():
    preds, _ = predict(ROWS, Cascade())
    with pytest.raises(InputError, match="both labels"):
        checker_threshold([p for p in preds if p.gold == "supported"])
    with pytest.raises(InputError, match="label on every row"):
        checker_threshold([*preds[:2], predict(parse_rows('{"claim": "a", "evidence": "a"}'), Cascade())[0][0]])


@pytest.mark.parametrize(
    "text, message",
    [
        ("{not json", ":1: not valid JSON"),
        ('{"id": 1, "claim": 3, "evidence": "x"}', "must be strings"),
        ('{"id": 1, "claim": "c", "evidence": "x", "label": "maybe"}', "label must be"),
        ("[1, 2]", "expected a JSON object"),
        ("\n\n", "no rows"),
    ],
)
def test_bad_rows_are_input_errors(text, message):
    with pytest.raises(InputError, match=message):
        parse_rows(text)
