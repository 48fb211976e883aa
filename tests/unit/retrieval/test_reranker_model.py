"""The reranker that ships (citebound/models/reranker/model.onnx): int8, small, run by onnxruntime alone,
and it keeps the float model's scores.

The float logits below were computed on 2026-12-01 with the float ONNX export of run `rerank2`
(`training/export_answerability.py --fp32 ...`, the same checkpoint as the shipped file); the pairs were
written here (no dataset text). Plain dynamic int8 quantisation moved this model's logits by 0.94 on
average and by up to 6 on SciFact train pairs; the shipped export (`quantize="smooth"`) must stay close.
"""

from __future__ import annotations

import math

from citebound.models import RERANKER_DIR
from citebound.models.cross_encoder import OnnxCrossEncoder
from citebound.retrieval import CrossEncoderReranker
from citebound.retrieval.rerank import DEFAULT_MODEL

PAIRS = [
    ("Vitamin C deficiency causes scurvy.", "Scurvy is a disease resulting from a lack of vitamin C (ascorbic acid). "
     "Early symptoms include weakness, feeling tired and sore arms and legs."),
    ("Vitamin C deficiency causes scurvy.", "The Treaty of Westphalia ended the Thirty Years' War in 1648 and reshaped "
     "the political map of Europe."),
    ("Statins lower LDL cholesterol in adults.", "In a randomised trial of 4,444 patients, simvastatin reduced LDL "
     "cholesterol by 35% and lowered coronary mortality."),
    ("Statins lower LDL cholesterol in adults.", "Statins were first isolated from fungi; lovastatin was approved in "
     "1987 after studies in animals."),
    ("Smoking increases the risk of lung cancer.", "Cohort studies of British doctors showed that death rates from lung "
     "carcinoma rose steadily with the number of cigarettes smoked."),
    ("Smoking increases the risk of lung cancer.", "Lung function declines with age in healthy adults, measured as "
     "forced expiratory volume in one second."),
]
FLOAT_LOGITS = [4.205, -4.787, 1.634, -1.765, 3.864, -2.953]


def test_the_shipped_reranker_is_an_int8_onnx_file_of_at_most_30_mb():
    path = RERANKER_DIR / "model.onnx"
    assert DEFAULT_MODEL == path and path.is_file()
    assert path.stat().st_size <= 30_000_000
    blob = path.read_bytes()
    assert b"MatMulInteger" in blob and b"DynamicQuantizeLinear" in blob  # int8 matrix products
    assert (RERANKER_DIR / "README.md").is_file()


def test_it_keeps_the_float_models_logits_and_order():
    encoder = OnnxCrossEncoder(RERANKER_DIR / "model.onnx", threads=1).warm_up()
    logits = [math.log(p / (1 - p)) for p in encoder.score_pairs(PAIRS)]
    assert max(abs(a - b) for a, b in zip(logits, FLOAT_LOGITS)) < 0.6
    for i in range(0, len(PAIRS), 2):  # the abstract that bears on the claim first, as the float model has it
        assert logits[i] > logits[i + 1]


def test_the_default_reranker_runs_it():
    reranker = CrossEncoderReranker().warm_up()
    assert reranker.encoder.model_path == RERANKER_DIR / "model.onnx"
    assert reranker.combine == "interp" and reranker.depth == 10 and reranker.max_windows == 1
    probs = reranker.score(PAIRS[0][0], [PAIRS[1][1], PAIRS[0][1]])
    assert probs[1] > 0.9 > 0.1 > probs[0]
