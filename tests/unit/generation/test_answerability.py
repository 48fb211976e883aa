"""The shipped answerability model (onnxruntime, offline) and the extractive backend's use of it."""

import json
import math
from importlib import resources

import pytest

from citebound.generation import GenerationRequest, get_backend
from citebound.generation.answerability import combine, load_calibration, sentence_answerability

HANDBOOK = resources.files("citebound") / "samples" / "handbook"
REFUND_SENTENCE = "Refunds are processed within five business days after the returned item reaches our warehouse."
SHIPPING_SENTENCE = "Standard delivery within the European Union takes two to four business days."


@pytest.fixture(scope="module")
def sources():
    return {"S1": (HANDBOOK / "refunds.md").read_text(), "S2": (HANDBOOK / "shipping.md").read_text(),
            "S3": (HANDBOOK / "support.txt").read_text()}


def test_model_ships_with_the_package_and_loads_offline(monkeypatch):
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    model = resources.files("citebound") / "models" / "answerability" / "model.onnx"
    assert model.is_file() and model.stat().st_size <= 30_000_000
    calibration = load_calibration()
    assert calibration["default_signal"] in ("answerability", "combined")
    assert 0 < calibration["thresholds"]["answerability"] < 1
    probs = sentence_answerability("How long do refunds take?", [REFUND_SENTENCE])
    assert len(probs) == 1 and 0.0 <= probs[0] <= 1.0


# (question, sentence) pairs and their logits from the file shipped until 2026-12-01 16:10 (sha256 0b3833c3...,
# torch's softmax NaN guards still in it), one pair per call: stripping the guards changed no score
NORMANS = "The Normans gave their name to Normandy, a region in France, in the 10th century."
PINNED = [
    ("How long do refunds take?", REFUND_SENTENCE, 2.821692),
    ("How long do refunds take?", SHIPPING_SENTENCE, -3.643013),
    ("In what country is Normandy located?", NORMANS, 1.767573),
    ("In what country is Brittany located?", NORMANS, -3.64709),
]


def test_the_shipped_file_has_no_softmax_guard_and_scores_as_before():
    model = resources.files("citebound") / "models" / "answerability" / "model.onnx"
    blob = model.read_bytes()
    assert b"MatMulInteger" in blob and b"DynamicQuantizeLinear" in blob  # int8 matrix products
    # torch's NaN guard after each attention softmax is stripped (training/strip_softmax_guard.py): it never
    # fires on citebound's inputs ([CLS] is never masked) and cost ~3-5 % of a pair's CPU
    assert b"IsNaN" not in blob
    for question, sentence, logit in PINNED:
        (p,) = sentence_answerability(question, [sentence])
        assert abs(math.log(p / (1 - p)) - logit) < 1e-5, question  # any requantisation moves them by more


def test_a_threshold_calibrated_with_the_file_before_the_strip_still_applies():
    """A KB's answer threshold names the model file it was calibrated with; the stripped file scores bit for
    bit like the one before it, so a threshold calibrated with that one holds, and no other file's does."""
    from citebound.generation.answerability import SAME_SCORES_AS
    from citebound.generation.kb_threshold import kb_threshold, signal_model_sha256

    installed = signal_model_sha256("answerability")
    before = "0b3833c367ee485dd45832cab7c6c4bba70f4bdce06b35bbc3f516583fc8ea71"
    assert installed != before and before in SAME_SCORES_AS[installed]
    record = {"signal": "answerability", "threshold": 0.42}
    assert kb_threshold({**record, "model_sha256": installed}, "answerability") == 0.42
    assert kb_threshold({**record, "model_sha256": before}, "answerability") == 0.42
    assert kb_threshold({**record, "signal": "combined", "model_sha256": before}, "combined") == 0.42
    assert kb_threshold({**record, "model_sha256": "0" * 64}, "answerability") is None
    assert kb_threshold({**record, "model_sha256": None}, "answerability") is None
    # the relevance signal has no model file: only a record without one is its
    assert kb_threshold({"signal": "relevance", "threshold": 0.6, "model_sha256": before}, "relevance") is None
    assert kb_threshold({"signal": "relevance", "threshold": 0.6, "model_sha256": None}, "relevance") == 0.6


def test_a_sentence_that_answers_scores_above_one_that_does_not():
    refund, shipping = sentence_answerability("How long do refunds take?", [REFUND_SENTENCE, SHIPPING_SENTENCE])
    assert refund > shipping
    # SQuAD 2.0 style: the same sentence answers one question and not its entity-swapped twin
    sentence = "The Normans gave their name to Normandy, a region in France, in the 10th century."
    answered, swapped = sentence_answerability("In what country is Normandy located?", [sentence]), \
        sentence_answerability("In what country is Brittany located?", [sentence])
    assert answered[0] > swapped[0]


def test_backend_answers_with_the_learned_signal_and_records_every_signal(sources):
    backend = get_backend("extractive")
    gen = backend.generate(GenerationRequest("How long do refunds take?", sources))
    reply = json.loads(gen.text)
    assert not reply["abstained"] and "five business days" in reply["answer"]
    assert gen.meta["signal"] == backend.signal and gen.confidence >= backend.threshold
    assert set(gen.meta["signals"]) >= {"relevance", "answerability"}


def test_backend_abstains_on_an_on_topic_question_the_handbook_does_not_answer(sources):
    gen = get_backend("extractive").generate(GenerationRequest("Can I pay with a gift voucher from another shop?", sources))
    reply = json.loads(gen.text)
    assert reply["abstained"] and reply["citations"] == []
    assert "likely enough to answer" in gen.meta["abstain_reason"]


def test_old_relevance_signal_is_still_available(sources):
    backend = get_backend("extractive", signal="relevance")
    gen = backend.generate(GenerationRequest("How much does express delivery cost?", sources))
    assert backend.threshold == pytest.approx(0.6469)
    assert set(gen.meta["signals"]) == {"relevance"}  # the model is not run for the old signal
    assert gen.confidence == pytest.approx(gen.meta["signals"]["relevance"], abs=1e-4)


def test_combined_signal_rises_with_answerability():
    weights = load_calibration()["combined"]
    assert weights["answerability_logit"] > 0  # fitted on dev: a likelier answer means answer more
    low = combine(0.2, 0.5, weights)
    assert 0 < low < combine(0.9, 0.5, weights) < 1


def test_answerability_runs_on_the_shared_runtime_without_the_verifier():
    # citebound.models.cross_encoder is shared by the entailment and answerability models; generation and
    # verify never import each other
    import subprocess
    import sys

    script = ("import sys; from citebound.generation.answerability import sentence_answerability; "
              "sentence_answerability('How long do refunds take?', ['Refunds take five days.']); "
              "print(','.join(m for m in sys.modules if m.startswith('citebound.verify')))")
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_scores_are_the_same_whether_the_pairs_run_on_one_thread_or_several(monkeypatch):
    from citebound.generation.answerability import shared_scorer

    question = "How long do refunds take?"
    sentences = [REFUND_SENTENCE, SHIPPING_SENTENCE, "Refunds are paid to the original payment method.",
                 "Support is available by chat and email.", "Gift cards cannot be returned."]
    by_threads = {}
    for threads in ("1", "2", "3"):
        monkeypatch.setenv("CITEBOUND_THREADS", threads)
        shared_scorer().clear_cache()  # score every pair again
        by_threads[threads] = sentence_answerability(question, sentences)
    assert by_threads["1"] == by_threads["2"] == by_threads["3"]
    assert max(by_threads["2"]) == by_threads["2"][0]  # in the sentences' order: the refund sentence answers
