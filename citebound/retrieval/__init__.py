"""Retrieval: BM25 (tantivy) and dense (MiniLM ONNX) rankings over a KnowledgeBase, fused with RRF.

    from citebound.retrieval import Retriever
    hits = Retriever(kb, mode="hybrid").retrieve("question", k=5)
"""

from __future__ import annotations

from citebound.retrieval.base import Reranker, Retrieves
from citebound.retrieval.fusion import rrf, rrf_score
from citebound.retrieval.hybrid import Candidate, Retriever

__all__ = ["Retriever", "Candidate", "Reranker", "Retrieves", "rrf", "rrf_score"]
