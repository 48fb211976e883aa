"""Thin adapters that put the verifier where people already are (optional extras; never imported by
`import citebound`):

- `citebound.integrations.llamaindex`: `CiteboundEvaluator` (LlamaIndex's `BaseEvaluator`), and
  `CiteboundResponseFilter` / `VerifiedQueryEngine`, which drop unsupported sentences from a response
  (`pip install 'citebound[llamaindex]'`).
- `citebound.integrations.langchain`: `CiteboundVerifier`, a LangChain runnable
  `{question, answer, documents}` -> the verified answer with per-claim verdicts
  (`pip install 'citebound[langchain]'`).

Both score an answer the way `citebound eval answers` scores a row (`citebound.evaluate.answers`).
"""
