"""The knowledge base: versioned documents, sentence-aware chunks with offsets, BM25 index, vectors.

    from citebound.kb import KnowledgeBase
    with KnowledgeBase.open("my-kb", create=True) as kb:
        report = kb.ingest(["docs/"])
"""

from __future__ import annotations

from citebound.kb.store import DocumentInfo, IngestReport, KnowledgeBase

__all__ = ["KnowledgeBase", "IngestReport", "DocumentInfo"]
