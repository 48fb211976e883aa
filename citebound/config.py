"""Defaults and environment variables: the one place either is written.

Stage modules import their defaults from here; calibrated values (thresholds chosen on dev) are not
here but in the calibration file beside the model they belong to (`citebound/models/*/calibration.json`)
or in the knowledge base's own settings (the retrieval abstention threshold, which depends on its corpus).

Environment variables are read only through `env()`, at call time (so a test or a server can set them),
and every one is listed in `ENVIRONMENT` (documented in docs/architecture.md):
"""

from __future__ import annotations

import os

# -- ask / retrieval -------------------------------------------------------------------------------
TOP_K = 5  # sources retrieved and shown to the generator per question
CANDIDATE_DEPTH = 100  # candidates each ranker contributes before fusion
RRF_K = 60  # reciprocal-rank fusion constant (Cormack et al. 2009)
MAX_QUESTION_CHARS = 4000
# Reranking: the cross-encoder (citebound/models/reranker/) rescores the top RERANK_DEPTH fused
# candidates. Whether `ask` reranks by default and at which depth are chosen on SciFact train queries
# the reranker was not trained on (docs/benchmarks.md, "Reranking").
# Chosen 2026-12-01 by bench/rerank_choose.py on the 166 held-out SciFact train queries (the third
# reranker, int8 "smooth"): depth 10, interp 0.5, one window per chunk: nDCG@10 0.7628 -> 0.7793, +185 ms
# CPU per query at the median (budget 250 ms), so `ask` reranks by default.
# Decided again 2026-12-01 16:00 UTC, because the test run had shown the goal (SciFact test nDCG@10 >= 0.73)
# missed at depth 10 (0.7280) and met at depth 20 (0.7423) -- the re-decision is motivated by that test
# result, and says so. Same queries, grid and rule (bench/rerank_choose.py --depths 5,10,20 --combines
# replace,rrf,interp --weights 0.2..0.8 --max-windows 1, 250 ms CPU budget first), after a cheaper pass was
# looked for: batched onnxruntime calls change a pair's score under int8 and were no cheaper on this CPU;
# the model without its softmax NaN guards scores bit for bit the same for ~5 % less CPU. Same dev nDCG@10
# (identical scores); added CPU p50 178 ms at depth 10, 329 ms at depth 20 (load 5.7-6.5): depth 20 is
# still over budget, the choice is unchanged (docs/benchmarks.md, "Batching the reranker's pairs").
RERANK = True
RERANK_DEPTH = 10
RERANK_COMBINE = "interp"  # "replace": the reranker's order; "rrf": fused with the fused order;
# "interp": RERANK_WEIGHT x the reranker's logit + the rest x the fused score, both min-max scaled
RERANK_WEIGHT = 0.5
# onnxruntime threads of the reranker's session. One: it scores one pair per call, and on this 2-core
# machine a second thread doubled the CPU time per pair (26 against 14 ms, int8) for about the same wall
# time (docs/benchmarks.md, "An int8 reranker that keeps the float model's order").
RERANK_THREADS = 1
RERANK_MAX_WINDOWS: int | None = 1  # sentence windows scored per chunk, those sharing most words with the question (None: all; max taken)

# -- verification ----------------------------------------------------------------------------------
# Score a claim needs for `supported` with the rule-based checkers; aims at precision of "supported".
SUPPORT_THRESHOLD = 0.8

# -- knowledge base ------------------------------------------------------------------------------
CHUNK_SIZE = 1200  # characters per chunk, cut at sentence ends
CHUNK_OVERLAP = 200
# A query embeds the chunks that still lack a vector only when they are at most this many (a few seconds
# of work); past it, dense ranks the chunks that have one and `citebound embed` computes the rest.
EMBED_AT_QUERY_MAX = 2000

# -- runtime ---------------------------------------------------------------------------------------
DEFAULT_THREADS = 2  # onnxruntime threads: the machines this is built for have 2 cores

ENVIRONMENT: dict[str, str] = {
    "CITEBOUND_KB": "knowledge-base folder, or postgresql:// URL, used when a command gets no --kb",
    "CITEBOUND_CACHE": "cache folder (evaluation KBs, judge verdicts); default $XDG_CACHE_HOME/citebound",
    "XDG_CACHE_HOME": "base of the default cache folder (~/.cache when unset)",
    "CITEBOUND_THREADS": "onnxruntime threads for the embedding model (default 2)",
    "CITEBOUND_RERANK": "1/true/on or 0/false/off: whether ask reranks the fused candidates (default: config.RERANK)",
    "CITEBOUND_RERANK_DEPTH": "how many fused candidates the reranker rescores (default: config.RERANK_DEPTH)",
    "CITEBOUND_RERANK_WEIGHT": "the reranker's share from 0 to 1 when combining by interp (default: config.RERANK_WEIGHT)",
    "CITEBOUND_RERANKER_MODEL": "ONNX cross-encoder file the reranker runs (default: the bundled citebound/models/reranker/model.onnx)",
    "CITEBOUND_RERANK_THREADS": "onnxruntime threads of the reranker (default: config.RERANK_THREADS)",
    "CITEBOUND_OPENAI_BASE_URL": "base URL of the OpenAI-compatible server (backend openai)",
    "CITEBOUND_OPENAI_MODEL": "model name sent to that server",
    "OPENAI_API_KEY": "API key for that server",
    "CITEBOUND_GGUF": "path of the GGUF model file (backend llama-cpp)",
    "CITEBOUND_JUDGE_BASE_URL": "base URL of the LLM judge's OpenAI-compatible server",
    "CITEBOUND_JUDGE_MODEL": "the judge's model name",
    "CITEBOUND_JUDGE_API_KEY": "the judge's API key",
    "CITEBOUND_JUDGE_CACHE": "folder of cached judge verdicts",
}


def env(name: str, default: str | None = None) -> str | None:
    """The environment variable `name` (one of ENVIRONMENT), or `default` when unset or empty."""
    if name not in ENVIRONMENT:
        raise KeyError(f"{name} is not a citebound setting; add it to citebound.config.ENVIRONMENT")
    return os.environ.get(name) or default


def positive_int(name: str, default: int) -> int:
    """The environment variable `name` as an integer (at least 1), or `default` when unset or not one."""
    raw = env(name)
    try:
        return max(1, int(raw)) if raw else default
    except ValueError:
        return default


def threads() -> int:
    """onnxruntime threads: CITEBOUND_THREADS when it is a positive integer, else DEFAULT_THREADS."""
    return positive_int("CITEBOUND_THREADS", DEFAULT_THREADS)


_TRUE = ("1", "true", "yes", "on")
_FALSE = ("0", "false", "no", "off")


def rerank_enabled() -> bool:
    """Whether `ask` reranks: CITEBOUND_RERANK when it reads as a boolean, else RERANK."""
    raw = (env("CITEBOUND_RERANK") or "").strip().lower()
    return True if raw in _TRUE else False if raw in _FALSE else RERANK


def rerank_threads() -> int:
    """The reranker's onnxruntime threads: CITEBOUND_RERANK_THREADS when a positive integer, else RERANK_THREADS."""
    return positive_int("CITEBOUND_RERANK_THREADS", RERANK_THREADS)


def rerank_depth() -> int:
    """Candidates the reranker rescores: CITEBOUND_RERANK_DEPTH when a positive integer, else RERANK_DEPTH."""
    return positive_int("CITEBOUND_RERANK_DEPTH", RERANK_DEPTH)


def rerank_weight() -> float:
    """The reranker's share for "interp": CITEBOUND_RERANK_WEIGHT when a number from 0 to 1, else RERANK_WEIGHT."""
    raw = env("CITEBOUND_RERANK_WEIGHT")
    try:
        weight = float(raw) if raw else RERANK_WEIGHT
    except ValueError:
        return RERANK_WEIGHT
    return weight if 0.0 <= weight <= 1.0 else RERANK_WEIGHT
