"""Learn the abstention threshold from questions labelled answerable / unanswerable.

Data folder: `corpus.jsonl` (BEIR-style `{_id, title, text}`) and `questions.jsonl` rows with at least
`question` and `answerable` (the layout of `shared/data/qa/squad2/<split>`). The corpus goes into a
cached KB; every question is retrieved with the given mode and k, its evidence score (see
`citebound.retrieval.abstain`) computed, and the threshold maximizing balanced accuracy is stored in
the target KB, per mode (objectives: see `citebound.retrieval.abstain`).
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from citebound.datasets import load_questions, require_corpus
from citebound.errors import InputError
from citebound.metrics import pick_threshold, roc_auc, threshold_for_recall
from citebound.retrieval.abstain import OBJECTIVES, SETTING_KEY, THRESHOLD_RULE, Calibration, strength_feature


def retrieval_strengths(retriever, questions: list[str], k: int, progress: bool = True) -> np.ndarray:
    feature = strength_feature(retriever.mode)
    qvecs = retriever.embed_queries(questions) if retriever.uses_dense else None
    iterator = range(len(questions))
    if progress:
        from tqdm import tqdm

        iterator = tqdm(iterator, desc="calibrating", unit="question", leave=False)
    scores = np.full(len(questions), float("-inf"))
    for i in iterator:
        cands = retriever.rank(questions[i], None, None if qvecs is None else qvecs[i])[:k]
        if cands:
            scores[i] = max(c.scores.get(feature, float("-inf")) for c in cands)
    return scores


def calibrate_retrieval(
    data: str | os.PathLike[str],
    kb_path: str | os.PathLike[str],
    mode: str = "hybrid",
    k: int = 5,
    objective: str = "balanced_accuracy",
    min_answered: float = 0.95,
    progress: bool = True,
) -> Calibration:
    from citebound.kb import KnowledgeBase
    from citebound.kb.cache import cached_kb
    from citebound.retrieval import Retriever

    if objective not in OBJECTIVES:
        raise InputError(f"unknown objective {objective!r}; use one of {', '.join(OBJECTIVES)}")
    if not 0.0 < min_answered <= 1.0:
        raise InputError("min_answered must be in (0, 1]")
    folder = Path(data)
    corpus = require_corpus(folder)
    labelled = [(row["question"], row["answerable"]) for row in load_questions(folder)]
    if not any(a for _, a in labelled) or all(a for _, a in labelled):
        raise InputError(f"{folder}: calibration needs both answerable and unanswerable questions")
    name = f"{folder.resolve().parent.name}-{folder.resolve().name}"
    with cached_kb(corpus, name, progress=progress) as data_kb:
        retriever = Retriever(data_kb, mode=mode, progress=progress)
        scores = retrieval_strengths(retriever, [q for q, _ in labelled], k, progress)
    answerable = np.array([a for _, a in labelled])
    if objective == "balanced_accuracy":
        threshold, bacc, tpr, tnr = pick_threshold(scores, answerable, **THRESHOLD_RULE)
    else:
        threshold, bacc, tpr, tnr = threshold_for_recall(scores, answerable, min_answered)
    cal = Calibration(
        mode=mode,
        feature=strength_feature(mode),
        threshold=threshold,
        objective=objective if objective == "balanced_accuracy" else f"answer_rate>={min_answered}",
        objective_value=round(bacc if objective == "balanced_accuracy" else tpr, 4),
        answerable_kept=round(tpr, 4),
        unanswerable_abstained=round(tnr, 4),
        auc=round(roc_auc(scores, answerable), 4),
        questions=len(labelled),
        data=str(folder),
    )
    with KnowledgeBase.open(kb_path, create=True) as kb:
        stored = kb.get_json(SETTING_KEY) or {}
        stored[mode] = {**cal.to_dict(), "k": k}
        kb.set_json(SETTING_KEY, stored)
    return cal
