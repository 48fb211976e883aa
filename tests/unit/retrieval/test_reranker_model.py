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
# The int8 file as shipped on 2026-12-01 (sha256 87fdb881..., before its softmax NaN guards were stripped,
# training/strip_softmax_guard.py), one pair per call: stripping them changed no score.
INT8_LOGITS = [4.175923, -4.829092, 1.133826, -1.897516, 3.816648, -2.817236]


def test_the_shipped_reranker_is_an_int8_onnx_file_of_at_most_30_mb():
    path = RERANKER_DIR / "model.onnx"
    assert DEFAULT_MODEL == path and path.is_file()
    assert path.stat().st_size <= 30_000_000
    blob = path.read_bytes()
    assert b"MatMulInteger" in blob and b"DynamicQuantizeLinear" in blob  # int8 matrix products
    # torch's NaN guard after each attention softmax is stripped (training/strip_softmax_guard.py): it never
    # fires on citebound's inputs and cost ~6 % of a pair's time
    assert b"IsNaN" not in blob
    assert (RERANKER_DIR / "README.md").is_file()


def test_it_keeps_the_float_models_logits_and_order():
    encoder = OnnxCrossEncoder(RERANKER_DIR / "model.onnx", threads=1).warm_up()
    logits = [math.log(p / (1 - p)) for p in encoder.score_pairs(PAIRS)]
    assert max(abs(a - b) for a, b in zip(logits, FLOAT_LOGITS)) < 0.6
    # any requantisation moves them by far more (0.94 on average). Across CPUs the int8 products are exact
    # (session.x64quantprecision), but the float kernels around them are not: on an AVX2 machine without VNNI
    # (2026-12-02) five logits matched to 1e-4 and one moved by 0.026 (0.197 without exact sums)
    assert max(abs(a - b) for a, b in zip(logits, INT8_LOGITS)) < 0.05
    for i in range(0, len(PAIRS), 2):  # the abstract that bears on the claim first, as the float model has it
        assert logits[i] > logits[i + 1]


def test_the_default_reranker_runs_it():
    reranker = CrossEncoderReranker().warm_up()
    assert reranker.encoder.model_path == RERANKER_DIR / "model.onnx"
    assert reranker.combine == "interp" and reranker.depth == 10 and reranker.max_windows == 1
    probs = reranker.score(PAIRS[0][0], [PAIRS[1][1], PAIRS[0][1]])
    assert probs[1] > 0.9 > 0.1 > probs[0]


def _logits(probs):
    return [math.log(p / (1 - p)) for p in probs]


def test_a_pairs_score_does_not_depend_on_its_batch():
    """The reranker scores one pair per onnxruntime call: a pair's score is the same alone, among the others
    and in another order, and through the reranker's own path. Batched calls would break that: the int8
    graph quantises activations with one scale per input tensor, so in a batch a pair's logit moves with
    its batch mates (here by more than 0.1; on held-out SciFact train pairs by up to 1.59 in calls of 4 and
    2.34 with a query's 50 candidates in one call, docs/benchmarks.md, "Batching the reranker's pairs"),
    and batching was no cheaper on this CPU. If a batch-invariant export ships, the last assertion fails:
    batching can then be measured again."""
    alone = [_logits(OnnxCrossEncoder(DEFAULT_MODEL).score_pairs([p]))[0] for p in PAIRS]
    together = _logits(OnnxCrossEncoder(DEFAULT_MODEL).score_pairs(PAIRS))
    backwards = _logits(OnnxCrossEncoder(DEFAULT_MODEL).score_pairs(PAIRS[::-1]))[::-1]
    assert max(abs(a - b) for a, b in zip(alone, together)) < 1e-6
    assert max(abs(a - b) for a, b in zip(alone, backwards)) < 1e-6
    reranker = CrossEncoderReranker().warm_up()
    assert reranker.encoder.batch_size == 1
    question = PAIRS[0][0]
    via_reranker = _logits(reranker.score(question, [PAIRS[1][1], PAIRS[0][1], PAIRS[4][1]]))
    scored_alone = [_logits(OnnxCrossEncoder(DEFAULT_MODEL).score_pairs([(question, t)]))[0]
                    for t in (PAIRS[1][1], PAIRS[0][1], PAIRS[4][1])]
    assert max(abs(a - b) for a, b in zip(via_reranker, scored_alone)) < 1e-6

    batched = _logits(OnnxCrossEncoder(DEFAULT_MODEL, batch_size=len(PAIRS)).score_pairs(PAIRS))
    assert max(abs(a - b) for a, b in zip(alone, batched)) > 0.1
