"""The one rule that splits a dev set into a *fit* half and a *calibration* half.

Models are trained on the fit half; thresholds, gates and every choice are made on the calibration
half; test splits are never read for either. Training scripts, `training/calibrate.py` and the
benchmarks all import this module (training loads it by path: it needs only the standard library),
because a drifted copy of the rule would leak training rows into calibration.

- claims sets (`claims/<set>/dev.jsonl`): by row, ``sha1(f"{set}:{id}")[0]`` even -> calibration.
- SQuAD 2.0 dev (`qa/squad2/dev`): by paragraph, ``sha1(f"squad2:{context_id}")[0]`` even ->
  calibration, so no paragraph is on both sides.
- techdocs dev (`bench/data/techdocs/dev`, the Python manual): by page, ``sha1(f"techdocs:{page}")[0]``
  even -> held out (heapq, random, secrets, venv: 35 questions), ``is_calibration_paragraph(page,
  "techdocs")``; the answerability model trains on the other five pages' questions.
- SciFact **train** queries for the reranker (`retrieval/scifact/qrels/train.tsv`): by query id,
  ``int(sha1(f"rerank-dev:{id}").hexdigest(), 16) % 5 == 0`` -> held out (about a fifth): the reranker
  is trained on the rest, and its depth and whether `ask` reranks are chosen on these.
"""

from __future__ import annotations

import hashlib


def _even_first_byte(key: str) -> bool:
    return hashlib.sha1(key.encode("utf-8")).digest()[0] % 2 == 0


def is_calibration_row(set_name: str, row_id: str) -> bool:
    """True for the calibration half of a claims set's dev split (never trained on)."""
    return _even_first_byte(f"{set_name}:{row_id}")


def is_calibration_paragraph(context_id: str, dataset: str = "squad2") -> bool:
    """True for the calibration half of a QA dev split, split by paragraph."""
    return _even_first_byte(f"{dataset}:{context_id}")


def is_rerank_dev_query(query_id: str) -> bool:
    """True for the SciFact train queries held out from reranker training (about one in five, by id)."""
    return int(hashlib.sha1(f"rerank-dev:{query_id}".encode("utf-8")).hexdigest(), 16) % 5 == 0
