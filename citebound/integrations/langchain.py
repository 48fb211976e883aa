"""LangChain: a runnable that verifies an answer against the documents it was generated from.

    from citebound.integrations.langchain import CiteboundVerifier

    verifier = CiteboundVerifier()                       # checker="full" for the entailment model
    out = verifier.invoke({"question": q, "answer": answer_text, "documents": docs})
    out["answer"]         # the answer with unsupported sentences removed (or an abstention)
    out["faithfulness"]   # supported claims / claims
    out["claims"]         # per claim: label, reason, score, the supporting document (S1..Sn) and span

    chain = prompt | llm | ...                           # any chain that ends in {question, answer, documents}
    verified = chain | CiteboundVerifier()

`documents` are LangChain `Document`s (their `page_content`), strings, or a mapping id -> text; a list is
labelled S1..Sn in order, so an answer citing `[1]` cites the first document. An answer with citation
markers is verified as written; one without markers sentence by sentence against every document.
Requires `langchain-core` (`pip install 'citebound[langchain]'`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from langchain_core.runnables import Runnable, RunnableConfig

from citebound.errors import InputError
from citebound.evaluate.answers import supported_text, verify_row
from citebound.verify.checkers import DEFAULT_CHECKER


def _texts(documents: Any) -> Any:
    if isinstance(documents, Mapping):
        return {str(k): getattr(v, "page_content", v) for k, v in documents.items()}
    if isinstance(documents, (str, bytes)) or not hasattr(documents, "__iter__"):
        raise InputError("documents must be a list of Documents or strings, or a mapping id -> text")
    return [getattr(d, "page_content", d) for d in documents]


class CiteboundVerifier(Runnable[dict, dict]):
    """`{question, answer, documents}` -> `{question, answer, original_answer, faithfulness, label, claims,
    removed, ...}`. `drop_unsupported=False` keeps the answer as it was and only reports."""

    def __init__(self, checker: Any = DEFAULT_CHECKER, *, threshold: float | None = None,
                 drop_unsupported: bool = True, answer_key: str = "answer", documents_key: str = "documents",
                 question_key: str = "question") -> None:  # fmt: skip
        from citebound.verify import make_checker

        self.checker = checker if not isinstance(checker, str) else make_checker(checker, threshold=threshold)
        self.drop_unsupported = drop_unsupported
        self.keys = (question_key, answer_key, documents_key)

    def invoke(self, input: dict, config: RunnableConfig | None = None, **kwargs: Any) -> dict:
        return self._call_with_config(self._verify, input, config, run_type="parser")

    def _verify(self, input: dict) -> dict:
        q_key, a_key, d_key = self.keys
        if not isinstance(input, Mapping):
            raise InputError(f"CiteboundVerifier takes a mapping with {a_key!r} and {d_key!r}, got {type(input).__name__}")
        for key in (a_key, d_key):
            if key not in input:
                raise InputError(f"CiteboundVerifier input has no {key!r} key")
        answer = input[a_key]
        answer = getattr(answer, "content", answer)  # an AIMessage straight from a chat model
        row = verify_row(answer, _texts(input[d_key]), checker=self.checker, question=str(input.get(q_key) or ""))
        claims = [{k: c.get(k) for k in ("claim", "label", "reason", "score", "stage", "source_id", "span",
                                         "evidence", "cited_ids", "supporting_contexts")} for c in row["claims"]]
        return {
            "question": input.get(q_key),
            "answer": supported_text(row) if self.drop_unsupported else row["answer"],
            "original_answer": row["answer"],
            "label": row["label"],
            "faithfulness": row["faithfulness"],
            "n_claims": row["n_claims"],
            "n_supported": row["n_supported"],
            "claims": claims,
            "removed": [c for c in claims if c["label"] != "supported"] if self.drop_unsupported else [],
            **{k: row[k] for k in ("citation_precision", "citation_recall", "invalid_citations") if k in row},
        }


__all__ = ["CiteboundVerifier"]
