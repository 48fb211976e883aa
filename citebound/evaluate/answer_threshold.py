"""`citebound calibrate answers`: a knowledge base's own answer threshold, chosen on labelled questions.

The extractive backend answers when its confidence (the answerability model's best P, by default) is at
least a threshold. The shipped threshold was chosen on SQuAD 2.0 dev; a knowledge base of another kind of
text may need another (`citebound.generation.kb_threshold`). Here every labelled question (`question`,
`answerable`, optionally `answers`) is asked of the knowledge base itself through `ask()` — the same
retrieval, backend, verifier and policy, with the backend's threshold off and no audit log — and the
threshold is chosen on the confidences by an objective:

- `abstention_precision` (default, `target` 0.8): abstain on as many unanswerable questions as possible
  while at least `target` of the questions abstained on are unanswerable
  (`citebound.metrics.threshold_for_abstention_precision`): a threshold that rarely refuses what the
  knowledge base answers; an InputError when no threshold reaches `target` on these questions;
- `balanced_accuracy`: the mean of the answered share of answerable questions and the abstained share of
  unanswerable ones (the project's rule for the shipped thresholds, `THRESHOLD_RULE`).

An abstention that `ask` makes whatever the threshold (nothing retrieved, every claim removed) counts as
confidence -inf. The record (threshold, signal, model file, objective, the figures at the threshold and
at the default) is stored in the KB's settings, where `ask` finds it; the model itself is unchanged. It
is a choice made on these questions: the figures it reports are in-sample, and a fresh set of questions
(other documents of the same collection) tells how it carries over (docs/benchmarks.md).
"""

from __future__ import annotations

import json
import math
import os
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

from citebound.errors import InputError

OBJECTIVES = ("abstention_precision", "balanced_accuracy")
DEFAULT_OBJECTIVE = "abstention_precision"
DEFAULT_TARGET = 0.8


def confidences(rows: Sequence[dict[str, Any]]) -> list[float]:
    """Each row's confidence as the threshold sees it: -inf when `ask` abstained whatever the threshold."""
    return [r["confidence"] if (r.get("confidence") is not None and not r["pipeline_abstained"]) else -math.inf
            for r in rows]


def figures_at(rows: Sequence[dict[str, Any]], threshold: float) -> dict[str, Any]:
    """What the threshold does on labelled rows: abstention precision / recall, the share of answerable
    questions answered, and (when the rows carry gold answers) answered with a gold answer."""
    from citebound.evaluate.qa_eval import contains_answer
    from citebound.metrics import abstention_scores

    conf = confidences(rows)
    abstained = [c < threshold for c in conf]
    answerable = [bool(r["answerable"]) for r in rows]
    abst = abstention_scores(abstained, answerable)
    n_ans = sum(answerable)
    out = {"threshold": round(threshold, 4),
           "abstention_precision": round(abst["precision"], 4), "abstention_recall": round(abst["recall"], 4),
           "abstained": sum(abstained),
           "answered_when_answerable": round(sum(not a for a, y in zip(abstained, answerable) if y) / n_ans, 4)}
    with_gold = [r for r in rows if r["answerable"] and r.get("answers")]
    if with_gold:
        out["answered_with_gold"] = round(sum(c >= threshold and contains_answer(r["answer"], r["answers"])
                                              for c, r in zip(conf, rows) if r["answerable"] and r.get("answers"))
                                          / len(with_gold), 4)
    return out


def pick_answer_threshold(rows: Sequence[dict[str, Any]], objective: str = DEFAULT_OBJECTIVE,
                          target: float = DEFAULT_TARGET) -> dict[str, Any]:
    """The threshold the objective picks on labelled rows (`ask` rows: answerable, confidence,
    pipeline_abstained, answer; answers optional), with the figures there and at the default threshold."""
    from citebound.metrics import pick_threshold, roc_auc, threshold_for_abstention_precision
    from citebound.retrieval.abstain import THRESHOLD_RULE

    if objective not in OBJECTIVES:
        raise InputError(f"unknown objective {objective!r}; use one of {', '.join(OBJECTIVES)}")
    answerable = [bool(r["answerable"]) for r in rows]
    if all(answerable) or not any(answerable):
        raise InputError("calibration needs both answerable and unanswerable questions")
    conf = confidences(rows)
    if objective == "balanced_accuracy":
        threshold = pick_threshold(conf, answerable, **THRESHOLD_RULE).threshold
        stated = "balanced_accuracy"
    else:
        if not 0.0 < target <= 1.0:
            raise InputError("the target abstention precision must be in (0, 1]")
        choice = threshold_for_abstention_precision(conf, answerable, target)
        if choice is None:
            raise InputError(f"no threshold reaches abstention precision {target} on these "
                             f"{len(rows)} questions; lower the target or use --objective balanced_accuracy")
        threshold = choice.threshold
        stated = f"abstention_precision>={target}"
    auc = roc_auc(conf, answerable)
    return {"threshold": round(threshold, 6), "objective": stated, "questions": len(rows),
            "answerable": sum(answerable), "unanswerable": len(rows) - sum(answerable),
            "auroc": None if math.isnan(auc) else round(auc, 4), "at_threshold": figures_at(rows, threshold)}


def ask_labelled(kb: str | os.PathLike[str], questions: list[dict[str, Any]], *, k: int = 5,
                 options: dict[str, Any] | None = None, progress: bool = True) -> tuple[list[dict[str, Any]], dict]:
    """Ask each labelled question of the KB with the extractive backend's threshold off (no audit log, no
    retrieval gate, as `eval qa`). Returns (rows as `eval qa` writes them, the backend's described options)."""
    from citebound.evaluate.qa_eval import OFF, AskSpec, _asker, ask_questions
    from citebound.generation.backends.extractive import default_signal
    from citebound.parallel import InProcess, release_state

    opts = dict(options or {})
    if "threshold" in opts:
        raise InputError("the threshold is what is being calibrated: do not set it")
    opts["signal"] = opts.get("signal") or default_signal()
    opts["threshold"] = OFF
    spec = AskSpec(str(kb), "extractive", json.dumps(opts, sort_keys=True), k, None)
    try:
        _, _, gen = _asker(spec, progress)
        rows = InProcess().map(partial(ask_questions, spec), questions, desc="questions", progress=progress)
        described = gen.describe()["options"]
    finally:
        release_state(spec)
    return rows, described


def calibrate_answers(kb: str | os.PathLike[str], questions_file: str | os.PathLike[str], *,
                      objective: str = DEFAULT_OBJECTIVE, target: float = DEFAULT_TARGET, k: int = 5,
                      options: dict[str, Any] | None = None, store: bool = True,
                      rows_out: str | os.PathLike[str] | None = None, progress: bool = True) -> dict[str, Any]:
    """Choose the KB's answer threshold on labelled questions about it and (unless `store` is False) store
    it in the KB's settings, replacing any earlier one. Returns the stored record."""
    from citebound.datasets import load_question_file
    from citebound.evaluate.qa_eval import write_rows
    from citebound.generation.backends.extractive import default_threshold
    from citebound.generation.kb_threshold import SETTING_KEY, signal_model_sha256
    from citebound.kb import KnowledgeBase

    if objective not in OBJECTIVES:  # before any question is asked
        raise InputError(f"unknown objective {objective!r}; use one of {', '.join(OBJECTIVES)}")
    questions = load_question_file(Path(questions_file))
    with KnowledgeBase.open(kb) as opened:  # an error (not a new, empty KB) when the folder is not a KB
        revision = opened.revision
    rows, described = ask_labelled(kb, questions, k=k, options=options, progress=progress)
    if rows_out is not None:
        write_rows(rows, rows_out)
    picked = pick_answer_threshold(rows, objective, target)
    signal = described["signal"]
    record = {
        "backend": "extractive", "signal": signal, "model_sha256": signal_model_sha256(signal),
        **picked, "target": target if objective == "abstention_precision" else None,
        "at_default": figures_at(rows, default_threshold(signal)), "k": k, "kb_revision": revision,
        "questions_file": str(Path(questions_file).resolve()),
        "calibrated_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    if store:
        with KnowledgeBase.open(kb) as opened:
            stored = opened.get_json(SETTING_KEY)
            stored = stored if isinstance(stored, dict) else {}
            stored["extractive"] = record
            opened.set_json(SETTING_KEY, stored)
    return record


def clear_calibration(kb: str | os.PathLike[str]) -> bool:
    """Remove the KB's answer threshold (`ask` then uses the model's default); True if there was one."""
    from citebound.generation.kb_threshold import SETTING_KEY
    from citebound.kb import KnowledgeBase

    with KnowledgeBase.open(kb) as opened:
        stored = opened.get_json(SETTING_KEY)
        had = isinstance(stored, dict) and "extractive" in stored
        if had:
            del stored["extractive"]
            opened.set_json(SETTING_KEY, stored)
    return had
