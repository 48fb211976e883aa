"""Where one warm `ask` spends its time: wall time per phase (perf_counter), and optionally a cProfile.

Each phase is timed by wrapping the function that does it (inclusive times; a phase inside another, e.g.
the query embedding inside retrieval, is counted in both):

  retrieve            the whole `Retriever.retrieve` (the rows below are parts of it)
    query_embedding   `Retriever.embed_queries`
    bm25              `Bm25Index.search`
    dense             `VectorIndex.search` (HNSW or exact) + `VectorIndex.score_of` (fused hits without a dense score)
    fusion            `rrf`
    chunk_fetch       `KnowledgeBase.get_chunks`
  generate            the extractive backend's `generate` (the rows below are parts of it)
    sentence_split    `segments` (citebound.text.structure) over every source
    sentence_scoring  `ExtractiveBackend.score` (candidates, their embeddings and lexical overlap)
    sentence_embed    the sentence embedder's ONNX calls (`Embedder.embed`) made by the backend
    answerability     `sentence_answerability` (the cross-encoder)
  verify              `verify_answer`
  audit               `AuditLog.write` (only with --audit)

On the 100k-chunk KB of bench/scale_bench.py (its queries: SciFact test + SQuAD 2.0 test, mixed), and on
the bundled sample handbook (25 distinct questions written for it, `SAMPLE_QUESTIONS`):

    .venv/bin/python bench/ask_profile.py --kb /tmp/citebound-scale/kb --data ../shared/data -n 30
    .venv/bin/python bench/ask_profile.py --sample -n 24 --cprofile /tmp/ask.prof

One untimed `ask` first (models load); then `-n` questions, each timed. Prints one JSON object: p50 and
mean per phase, and the end-to-end p50/p95 in wall time (`ask`) and in this process's CPU time
(`ask_cpu`: what the machine's other jobs do not add, though a busy sibling core still slows it).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

# Distinct questions on the bundled handbook (written for this profile; three it does not answer), so that
# no answer comes from a cache of an earlier question.
SAMPLE_QUESTIONS = (
    "How long does it take to process a refund?", "How much does express delivery cost?",
    "Can I pay with a gift voucher from another shop?", "When do orders leave the warehouse?",
    "How long does standard delivery take in the European Union?", "Is shipping free?",
    "Which countries outside the EU do you ship to?", "Who pays customs duties?",
    "When is customer support available?", "How fast are emails answered?", "Is there phone support?",
    "Can I cancel an order?", "How long is the warranty on electronics?",
    "What does the warranty not cover?", "How do I make a warranty claim?",
    "How long is the warranty on the Lumen kettle?", "When is a tracking link sent?",
    "What happens if my parcel has not moved for a week?", "Do you ship to Australia?",
    "Do you offer gift wrapping?", "Can I return a used item?", "What is the return period?",
    "How is a refund paid?", "Do you have a shop in Berlin?", "Who pays for return shipping?",
)
TIMES: dict[str, list[float]] = defaultdict(list)
_CURRENT: dict[str, float] = defaultdict(float)


def wrap(owner, attr: str, phase: str) -> None:
    """Replace `owner.attr` with a copy that adds its wall time to `phase` for the current question."""
    inner = getattr(owner, attr)

    def timed(*a, **kw):
        t = time.perf_counter()
        try:
            return inner(*a, **kw)
        finally:
            _CURRENT[phase] += time.perf_counter() - t

    setattr(owner, attr, timed)


def instrument() -> None:
    from citebound import pipeline
    from citebound.audit import AuditLog
    from citebound.generation import answerability
    from citebound.generation.backends import extractive
    from citebound.kb import KnowledgeBase
    from citebound.kb.bm25_index import Bm25Index
    from citebound.models.embedder import Embedder
    from citebound.retrieval import hybrid
    from citebound.retrieval.vectors import VectorIndex

    wrap(hybrid.Retriever, "retrieve", "retrieve")
    wrap(hybrid.Retriever, "embed_queries", "query_embedding")
    wrap(Bm25Index, "search", "bm25")
    wrap(VectorIndex, "search", "dense")
    wrap(VectorIndex, "score_of", "dense")
    wrap(hybrid, "rrf", "fusion")
    wrap(KnowledgeBase, "get_chunks", "chunk_fetch")
    wrap(extractive.ExtractiveBackend, "generate", "generate")
    wrap(extractive, "segments", "sentence_split")
    wrap(extractive.ExtractiveBackend, "score", "sentence_scoring")
    wrap(answerability, "sentence_answerability", "answerability")
    wrap(pipeline, "verify_answer", "verify")
    wrap(AuditLog, "write", "audit")
    # the backend's sentence embeddings: Embedder.embed called from inside `generate`
    embed = Embedder.embed

    def embed_timed(self, texts, *a, **kw):
        t = time.perf_counter()
        try:
            return embed(self, texts, *a, **kw)
        finally:
            if _CURRENT.get("_in_generate"):
                _CURRENT["sentence_embed"] += time.perf_counter() - t

    Embedder.embed = embed_timed
    generate = extractive.ExtractiveBackend.generate

    def generate_flagged(self, request):
        _CURRENT["_in_generate"] = 1.0
        try:
            return generate(self, request)
        finally:
            _CURRENT["_in_generate"] = 0.0

    extractive.ExtractiveBackend.generate = generate_flagged


def summary(values: list[float]) -> dict:
    ms = [v * 1000 for v in values]
    q = statistics.quantiles(ms, n=20) if len(ms) > 1 else ms * 19
    return {"p50_ms": round(statistics.median(ms), 2), "mean_ms": round(statistics.fmean(ms), 2),
            "p95_ms": round(q[18], 2)}


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kb", type=Path, help="a KB folder (e.g. the 100k-chunk KB of scale_bench.py)")
    p.add_argument("--data", type=Path, help="the shared data folder (scale_bench.py's queries)")
    p.add_argument("--sample", action="store_true", help="the bundled sample handbook and SAMPLE_QUESTIONS")
    p.add_argument("-n", type=int, default=30, help="questions timed")
    p.add_argument("--mode", default="hybrid")
    p.add_argument("--audit", action="store_true", help="write each request to the audit log (a temp copy)")
    p.add_argument("--cprofile", type=Path, help="write a cProfile of the timed questions here")
    p.add_argument("--option", "-o", action="append", default=[], help="extractive option key=value")
    args = p.parse_args()

    from citebound import ask
    from citebound.generation import get_backend
    from citebound.kb import KnowledgeBase
    from citebound.retrieval import Retriever

    if args.sample:
        from citebound.samples import handbook_path

        tmp = Path(tempfile.mkdtemp(prefix="ask-profile-"))
        kb = KnowledgeBase.open(tmp / "kb", create=True)
        kb.ingest([handbook_path()], progress=False)
        questions = list(SAMPLE_QUESTIONS)
    else:
        from scale_bench import load_queries

        kb = KnowledgeBase.open(args.kb)
        questions = load_queries(args.data, 300)
    questions = questions[: args.n + 1]
    options = dict(o.split("=", 1) for o in args.option)
    backend = get_backend("extractive", **options)  # one instance, as a server keeps it
    retriever = Retriever(kb, mode=args.mode, progress=False, embed_at_query=0)
    audit = True if args.audit else None
    ask(questions[0], kb, retriever=retriever, backend=backend, audit=audit)  # untimed: models load
    instrument()
    profiler = cProfile.Profile() if args.cprofile else None
    totals, cpu = [], []
    for q in questions[1:]:
        _CURRENT.clear()
        if profiler:
            profiler.enable()
        t, c = time.perf_counter(), time.process_time()
        ask(q, kb, retriever=retriever, backend=backend, audit=audit)
        totals.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        if profiler:
            profiler.disable()
        for phase, seconds in _CURRENT.items():
            if not phase.startswith("_"):
                TIMES[phase].append(seconds)
    for values in TIMES.values():  # a phase that did not run for a question took 0 there
        values += [0.0] * (len(totals) - len(values))
    if profiler:
        profiler.dump_stats(str(args.cprofile))
    import os

    print(json.dumps({"questions": len(totals), "load_average": [round(x, 2) for x in os.getloadavg()],
                      "ask": summary(totals), "ask_cpu": summary(cpu),
                      "phases": {k: summary(v) for k, v in sorted(TIMES.items())}}, indent=1))


if __name__ == "__main__":
    main()
