"""A knowledge base's own answer threshold: the backend's abstention threshold calibrated on labelled
questions about that knowledge base (`citebound calibrate answers`), stored in the KB's settings.

The extractive backend's default threshold was chosen on SQuAD 2.0 dev (Wikipedia paragraphs): on another
kind of text the model may rank questions well and still sit on the other side of that threshold (on the
Python manual it abstained on too many answerable questions). A user who labels some questions about
their own documents (answerable or not) can have the threshold chosen for those documents. The model is
not changed; only where its confidence is cut.

Stored under the KB setting `SETTING_KEY` as `{backend name: record}`; a record holds the `signal` it was
calibrated for, the `threshold`, the SHA-256 of the model file that produced the confidences
(`model_sha256`), and how it was chosen (objective, questions, figures at the threshold). The pipeline
passes the record to the backend with each request (`GenerationRequest.kb_calibration`); a backend whose
own `threshold` option is unset uses it when it was calibrated for the same signal and model file, and
otherwise its model's default. What was applied is in the reply's meta (`threshold`, `threshold_source`:
"option", "kb" or "default") and in `AskResult.backend["threshold"]`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

SETTING_KEY = "answer_threshold"
SOURCES = ("option", "kb", "default")


def signal_model_sha256(signal: str) -> str | None:
    """The SHA-256 of the model file whose output the confidence `signal` is (None for `relevance`,
    which is the embedder's cosine and word overlap, no learned classifier)."""
    if signal not in ("answerability", "combined"):
        return None
    from citebound.generation.answerability import MODEL_FILE
    from citebound.models.gate import file_sha256

    return file_sha256(MODEL_FILE) if MODEL_FILE.is_file() else None


def kb_threshold(record: Mapping[str, Any] | None, signal: str) -> float | None:
    """The stored threshold when `record` was calibrated for `signal` and the installed model file (or an
    earlier file it scores bit for bit like, `answerability.SAME_SCORES_AS`); None otherwise (no record,
    another signal, or another model: its confidences are not comparable)."""
    if not record or record.get("signal") != signal:
        return None
    try:
        threshold = float(record["threshold"])
    except (KeyError, TypeError, ValueError):
        return None
    installed = signal_model_sha256(signal)
    if record.get("model_sha256") != installed:
        from citebound.generation.answerability import SAME_SCORES_AS

        if installed is None or record.get("model_sha256") not in SAME_SCORES_AS.get(installed, ()):
            return None
    return threshold
