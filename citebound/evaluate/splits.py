"""The one rule that splits a dev set into a *fit* half and a *calibration* half.

Models are trained on the fit half; thresholds, gates and every choice are made on the calibration
half; test splits are never read for either. Training scripts, `training/calibrate.py` and the
benchmarks all import this module (training loads it by path: it needs only the standard library),
because a drifted copy of the rule would leak training rows into calibration.

- claims sets (`claims/<set>/dev.jsonl`), two rules (`CLAIM_SPLIT_RULES`):
  - ``"group"`` (models trained from 2026-12-02 on): rows that share a claim or a source are one group
    (connected components; climate_fever links by claim only, because its Wikipedia sentences recur
    under many claims and would make one group of 2,170 of its 3,845 rows), and a whole group goes to one
    side: ``sha1(f"{set}:group:{smallest id of the group}")[0]`` even -> calibration.
    ``calibration_ids(set, rows)``.
  - ``"row"`` (the models trained before): by row, ``sha1(f"{set}:{id}")[0]`` even -> calibration
    (``is_calibration_row``). It put the same document on both sides: every summedits calibration row
    shares its document with a fit row (16 documents in all), 1,800 of 1,950 climate_fever calibration
    rows share their claim with a fit row, 263 of 365 qags rows and 224 of 496 scifact rows their claim
    or source. A model trained on such fit rows has seen the calibration rows' documents, and its
    figures there are not held out (docs/benchmarks.md, "The dev halves shared documents").
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
from collections.abc import Iterable


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


CLAIM_SPLIT_RULES = ("group", "row")
# Sets whose sources recur under many claims: their rows are linked by the claim alone.
LINK_BY_CLAIM_ONLY = frozenset({"climate_fever"})


def model_split_rule(calibration: dict) -> str:
    """The rule a model was trained with, as its calibration.json names it ("split_rule"); files written
    before the key existed: "row"."""
    return calibration.get("split_rule", "row")


def claim_groups(set_name: str, rows: Iterable[tuple[str, str, str]]) -> dict[str, str]:
    """Row id -> the smallest row id of its group: rows (id, claim, source) sharing a claim, or a source
    (unless the set is in LINK_BY_CLAIM_ONLY), are one group, transitively."""
    rows = list(rows)
    parent: dict[tuple[str, str], tuple[str, str]] = {}

    def find(x: tuple[str, str]) -> tuple[str, str]:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for row_id, claim, source in rows:
        links = [("id", row_id), ("claim", " ".join(claim.split()))]
        if set_name not in LINK_BY_CLAIM_ONLY:
            links.append(("source", " ".join(source.split())))
        first = find(links[0])
        for link in links[1:]:
            parent[find(link)] = first
    smallest: dict[tuple[str, str], str] = {}
    for row_id, _, _ in rows:
        root = find(("id", row_id))
        smallest[root] = min(smallest.get(root, row_id), row_id)
    return {row_id: smallest[find(("id", row_id))] for row_id, _, _ in rows}


def calibration_ids(set_name: str, rows: Iterable[tuple[str, str, str]], rule: str = "group") -> set[str]:
    """Ids of the calibration half of one claims set's dev rows (id, claim, source) under `rule`."""
    rows = list(rows)
    if rule == "row":
        return {row_id for row_id, _, _ in rows if is_calibration_row(set_name, row_id)}
    if rule != "group":
        raise ValueError(f"unknown split rule {rule!r}; one of {CLAIM_SPLIT_RULES}")
    groups = claim_groups(set_name, rows)
    return {row_id for row_id, key in groups.items() if _even_first_byte(f"{set_name}:group:{key}")}
