"""Retrieval: BM25 (tantivy) and dense (MiniLM ONNX) rankings over a KnowledgeBase, fused with RRF, and an
optional cross-encoder reranker of the fused candidates.

    from citebound.retrieval import Retriever
    hits = Retriever(kb, mode="hybrid").retrieve("question", k=5)
    hits = Retriever(kb, reranker=CrossEncoderReranker(depth=20)).retrieve("question", k=5)  # reranked
"""

from __future__ import annotations

from citebound.retrieval.base import Reranker, Retrieves
from citebound.retrieval.fusion import rrf, rrf_score
from citebound.retrieval.hybrid import Candidate, Retriever
from citebound.retrieval.rerank import CrossEncoderReranker, ask_reranker, shared_reranker

__all__ = ["Retriever", "Candidate", "CrossEncoderReranker", "Reranker", "Retrieves", "rrf", "rrf_score",
           "shared_reranker", "ask_reranker"]
