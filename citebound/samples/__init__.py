"""Sample corpora shipped with citebound, and the demo that runs on them."""

from __future__ import annotations

import tempfile
from importlib import resources
from pathlib import Path
from typing import Any

# Two questions the handbook answers and one it does not (the demo must abstain on that one).
DEMO_QUESTIONS = (
    "How long does it take to process a refund?",
    "How much does express delivery cost?",
    "Can I pay with a gift voucher from another shop?",
)


def handbook_path() -> Path:
    return Path(str(resources.files("citebound") / "samples" / "handbook"))


def run_demo(questions: tuple[str, ...] = DEMO_QUESTIONS, *, backend: str = "extractive",
             workdir: str | Path | None = None) -> list[Any]:
    """Build a temporary KB from the bundled handbook and ask `questions`; returns the AskResults.

    The KB and its audit log live in `workdir` (a temporary folder, deleted afterwards, by default).
    """
    from citebound.kb import KnowledgeBase
    from citebound.pipeline import ask
    from citebound.retrieval import Retriever, ask_reranker

    with tempfile.TemporaryDirectory(prefix="citebound-demo-") as tmp:
        folder = Path(workdir) if workdir else Path(tmp)
        with KnowledgeBase.open(folder / "kb", create=True) as kb:
            kb.ingest([handbook_path()], progress=False)
            retriever = Retriever(kb, progress=False, reranker=ask_reranker())
            return [ask(q, kb, backend=backend, retriever=retriever) for q in questions]
