"""LlamaIndex: an evaluator that scores a response against its source nodes, and a response filter that drops
the sentences its source nodes do not support.

    from citebound.integrations.llamaindex import CiteboundEvaluator, CiteboundResponseFilter, VerifiedQueryEngine

    response = query_engine.query("How long do refunds take?")
    result = CiteboundEvaluator().evaluate_response(query="How long do refunds take?", response=response)
    result.score, result.passing, result.feedback      # faithfulness, all claims supported?, the unsupported ones

    filtered = CiteboundResponseFilter()(response)      # same Response type, unsupported sentences removed,
    filtered.metadata["citebound"]                      # with the per-claim verdicts in its metadata
    engine = VerifiedQueryEngine(query_engine)          # or wrap the engine: every answer filtered

Source nodes are labelled S1..Sn in order, so a CitationQueryEngine answer citing `[1]` cites the first
source node. An answer with markers is verified as written; one without markers sentence by sentence
against every source node. No LLM is called: the checks are citebound's (by default `full`: the rules,
then the bundled entailment model; `checker="deterministic"` for the rules alone). Requires `llama-index-core`
(`pip install 'citebound[llamaindex]'`).
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, Optional

from llama_index.core.base.base_query_engine import BaseQueryEngine
from llama_index.core.base.response.schema import Response
from llama_index.core.evaluation.base import BaseEvaluator, EvaluationResult
from llama_index.core.prompts.mixin import PromptDictType, PromptMixinType
from llama_index.core.schema import QueryBundle

from citebound.evaluate.answers import supported_text, verify_row
from citebound.verify.checkers import DEFAULT_CHECKER


def _checker(checker: Any, threshold: float | None) -> Any:
    from citebound.verify import make_checker

    return make_checker(checker, threshold=threshold) if isinstance(checker, str) else checker


def _feedback(row: dict[str, Any]) -> str:
    if row["label"] in ("abstained", "empty", "no_claims"):
        return {"abstained": "the response is an abstention: it states nothing the sources do not support",
                "empty": "the response is empty", "no_claims": "the response makes no checkable claim"}[row["label"]]
    lines = [f"{row['n_supported']} of {row['n_claims']} claims supported by the source nodes"]
    lines += [f"- {c['label']}: {c['claim']!r}: {c['reason']}" for c in row["claims"] if c["label"] != "supported"]
    return "\n".join(lines)


class CiteboundEvaluator(BaseEvaluator):
    """Faithfulness of a response to its contexts (source nodes), by citebound's verifier.

    `score` = supported claims / claims (1.0 for an abstention, which states nothing unsupported);
    `passing` = score >= `min_faithfulness` (an empty response never passes); `feedback` lists each
    claim that is not supported with the verifier's reason. An empty response is reported as
    `invalid_result` with its reason."""

    def __init__(self, checker: Any = DEFAULT_CHECKER, *, threshold: float | None = None,
                 min_faithfulness: float = 1.0) -> None:  # fmt: skip
        self._checker = _checker(checker, threshold)
        self._min = min_faithfulness

    def _get_prompts(self) -> PromptDictType:
        return {}

    def _update_prompts(self, prompts: PromptDictType) -> None:
        return None

    def _get_prompt_modules(self) -> PromptMixinType:
        return {}

    def verify(self, response: str | None, contexts: Sequence[str] | None, query: str | None = None) -> dict[str, Any]:
        """The verifier's row for a response: label, faithfulness, per-claim verdicts."""
        return verify_row(response or "", list(contexts or []), checker=self._checker, question=query or "")

    async def aevaluate(self, query: Optional[str] = None, response: Optional[str] = None,
                        contexts: Optional[Sequence[str]] = None, **kwargs: Any) -> EvaluationResult:  # fmt: skip
        if not contexts or not any(c.strip() for c in contexts):
            return EvaluationResult(query=query, response=response, contexts=contexts, passing=False, score=0.0,
                                    invalid_result=True, invalid_reason="no contexts to check the response against")
        row = self.verify(response, contexts, query)
        empty = row["label"] == "empty"
        return EvaluationResult(
            query=query, response=response, contexts=contexts, score=row["faithfulness"],
            passing=not empty and row["faithfulness"] >= self._min, feedback=_feedback(row),
            invalid_result=empty, invalid_reason="the response is empty" if empty else None,
        )  # fmt: skip


class CiteboundResponseFilter:
    """`filter(response)` -> a copy of a LlamaIndex `Response` whose text keeps only the claims its source
    nodes support (an abstention sentence when none is left); the verdicts are in
    `metadata["citebound"]` (label, faithfulness, claims, removed)."""

    def __init__(self, checker: Any = DEFAULT_CHECKER, *, threshold: float | None = None,
                 abstention: str | None = None) -> None:  # fmt: skip
        self._checker = _checker(checker, threshold)
        self._abstention = abstention

    def __call__(self, response: Response) -> Response:
        return self.filter(response)

    def filter(self, response: Response) -> Response:
        contexts = [n.node.get_content() for n in response.source_nodes]
        if not any(c.strip() for c in contexts):  # nothing to support any claim: not shown as if grounded
            from citebound.text.citations import ABSTENTION_SENTENCE

            verdicts = {"label": "no_sources", "faithfulness": 0.0, "original_response": response.response,
                        "claims": [], "removed": []}
            text = ABSTENTION_SENTENCE if self._abstention is None else self._abstention
            return replace(response, response=text, metadata={**(response.metadata or {}), "citebound": verdicts})
        row = verify_row(response.response or "", contexts, checker=self._checker)
        text = supported_text(row, self._abstention) if row["claims"] else row["answer"]
        verdicts = {"label": row["label"], "faithfulness": row["faithfulness"], "original_response": response.response,
                    "claims": [{k: c.get(k) for k in ("claim", "label", "reason", "score", "source_id", "span",
                                                      "supporting_contexts")} for c in row["claims"]]}
        verdicts["removed"] = [c for c in verdicts["claims"] if c["label"] != "supported"]
        return replace(response, response=text, metadata={**(response.metadata or {}), "citebound": verdicts})


class VerifiedQueryEngine(BaseQueryEngine):
    """Wraps any query engine: every `Response` it returns goes through `CiteboundResponseFilter`."""

    def __init__(self, query_engine: BaseQueryEngine, response_filter: CiteboundResponseFilter | None = None) -> None:
        super().__init__(callback_manager=query_engine.callback_manager)
        self._engine = query_engine
        self._filter = response_filter or CiteboundResponseFilter()

    def _get_prompt_modules(self) -> PromptMixinType:
        return {"query_engine": self._engine}

    def _query(self, query_bundle: QueryBundle) -> Response:
        return self._filter(self._as_response(self._engine.query(query_bundle)))

    async def _aquery(self, query_bundle: QueryBundle) -> Response:
        result = await self._engine.aquery(query_bundle)
        if not isinstance(result, Response) and inspect.iscoroutinefunction(getattr(result, "get_response", None)):
            result = await result.get_response()  # an async streaming response, once complete
        return self._filter(self._as_response(result))

    @staticmethod
    def _as_response(result: Any) -> Response:
        if isinstance(result, Response):
            return result
        if hasattr(result, "get_response"):  # a streaming response: verified once complete
            return result.get_response()
        raise TypeError(f"VerifiedQueryEngine cannot verify a {type(result).__name__}")


__all__ = ["CiteboundEvaluator", "CiteboundResponseFilter", "VerifiedQueryEngine"]
