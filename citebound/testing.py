"""A pytest helper for people who test their RAG system in CI: fail a test when an answer says more than its
sources support.

    from citebound.testing import assert_grounded

    def test_refund_answer():
        answer = my_rag("How long do refunds take?")          # with or without [1] markers
        assert_grounded(answer.text, answer.contexts)          # list of strings or {id: text}
        assert_grounded(answer.text, answer.contexts, min_faithfulness=0.8, checker="full")

On failure it raises AssertionError with one line per claim that is not supported, its verdict and the
verifier's reason, e.g.

    answer is not grounded: faithfulness 0.50 < 1.00 (1 of 2 claims supported, checker deterministic)
      - unsupported: 'Refunds take ten days.' — S1 does not state the number 10 ('ten')

An answer with citation markers is verified as written (a claim must be supported by a source it cites;
a citation to a missing source fails); one without markers is checked sentence by sentence against every
source. A valid abstention passes (it states nothing unsupported) unless `allow_abstention=False`; an
empty answer always fails.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from citebound.evaluate.answers import verify_row
from citebound.verify.checkers import DEFAULT_CHECKER


def assert_grounded(
    answer: str,
    sources: Mapping[str, str] | Sequence[str],
    *,
    min_faithfulness: float = 1.0,
    checker: Any = DEFAULT_CHECKER,
    threshold: float | None = None,
    allow_abstention: bool = True,
) -> dict[str, Any]:
    """Raise AssertionError unless at least `min_faithfulness` of the answer's claims are supported by
    `sources`. Returns the verifier's row (label, faithfulness, claims) when it passes."""
    if not 0.0 <= min_faithfulness <= 1.0:
        raise ValueError(f"min_faithfulness must be in [0, 1], got {min_faithfulness}")
    row = verify_row(answer, sources, checker=checker, threshold=threshold)
    if row["label"] == "empty":
        raise AssertionError("answer is empty: nothing to check (an empty answer is never grounded)")
    if row["label"] == "abstained":
        if allow_abstention:
            return row
        raise AssertionError(f"answer is an abstention, and allow_abstention=False: {row['answer']!r}")
    if row["label"] == "no_claims":
        raise AssertionError(f"answer makes no checkable claim: {row['answer']!r}")
    failures = _failures(row)
    if row["faithfulness"] + 1e-9 < min_faithfulness or (min_faithfulness >= 1.0 and failures):
        raise AssertionError(_message(row, min_faithfulness, failures))
    return row


def _failures(row: Mapping[str, Any]) -> list[str]:
    lines = [f"  - {c['label']}: {c['claim']!r} — {c['reason']}" for c in row["claims"] if c["label"] != "supported"]
    for cid in row.get("invalid_citations", ()):
        lines.append(f"  - citation [{cid}] names no source (sources: {', '.join(row['contexts'])})")
    return lines


def _message(row: Mapping[str, Any], min_faithfulness: float, failures: list[str]) -> str:
    checker = row.get("checker", "")
    head = (f"answer is not grounded: faithfulness {row['faithfulness']:.2f} < {min_faithfulness:.2f} "
            f"({row['n_supported']} of {row['n_claims']} claims supported{', checker ' + checker if checker else ''})")
    if row["faithfulness"] + 1e-9 >= min_faithfulness:
        head = f"answer is not grounded: {len(failures)} problem(s) ({row['n_supported']} of {row['n_claims']} claims supported)"
    return "\n".join([head, *failures])


__all__ = ["assert_grounded"]
