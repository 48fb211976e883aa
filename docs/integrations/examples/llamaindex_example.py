"""Run: .venv/bin/python docs/integrations/examples/llamaindex_example.py   (needs llama-index-core)

The Response below is what any LlamaIndex query engine returns (text + source nodes); here it is built by
hand so the example runs offline, without an LLM or an API key."""

from llama_index.core.base.response.schema import Response
from llama_index.core.query_engine import CustomQueryEngine
from llama_index.core.schema import NodeWithScore, TextNode

from citebound.integrations.llamaindex import (
    CiteboundEvaluator,
    CiteboundResponseFilter,
    VerifiedQueryEngine,
)

nodes = [
    NodeWithScore(node=TextNode(text="Refunds are processed within five business days after the item arrives."),
                  score=0.8),
    NodeWithScore(node=TextNode(text="Express delivery arrives the next business day and costs 12 euros."),
                  score=0.6),
]
response = Response(response="Refunds are processed within five business days [1]. Express delivery is free [2].",
                    source_nodes=nodes)

# 1. Evaluate: a BaseEvaluator, so it works wherever LlamaIndex evaluators do (BatchEvalRunner, ...).
result = CiteboundEvaluator().evaluate_response(query="Refunds and delivery?", response=response)
print(result.score, result.passing)   # 0.5 False
print(result.feedback)

# 2. Filter: the same Response with unsupported sentences removed, verdicts in metadata["citebound"].
filtered = CiteboundResponseFilter()(response)
print(filtered.response)              # Refunds are processed within five business days [1].


# 3. Or wrap a query engine so every answer is filtered.
class MyEngine(CustomQueryEngine):    # stands in for index.as_query_engine(...)
    def custom_query(self, query_str: str) -> Response:
        return Response(response="Express delivery costs 12 euros. It is carbon neutral.", source_nodes=nodes)


engine = VerifiedQueryEngine(MyEngine())
answer = engine.query("How much is express delivery?")
print(answer.response)                # Express delivery costs 12 euros.
print(answer.metadata["citebound"]["removed"][0]["claim"])   # It is carbon neutral.
