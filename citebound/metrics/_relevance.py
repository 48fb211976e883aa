"""The relevance convention every ranking metric shares (trec_eval's): a judged id with grade > 0 is relevant."""

from __future__ import annotations

from typing import Mapping


def relevant(qrels: Mapping[str, float]) -> set[str]:
    """The ids of `qrels` with a grade above 0."""
    return {doc for doc, grade in qrels.items() if grade > 0}
