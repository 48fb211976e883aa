"""The offline default: answer by quoting the source sentences that best answer the question.

No language model. For every sentence of the labelled sources:

    relevance = alpha * cosine(question, sentence)            # MiniLM sentence embeddings
              + (1 - alpha) * lexical_overlap(question, sentence)   # share of the question's stemmed
                                                                     # content words found in the sentence

Embedding every sentence is what made `ask` slow (about 60 MiniLM runs per question, ~1 s on two shared
cores). So when the request carries the retriever's dense score of each source (`ask` passes it) and the
signal is `answerability`, a sentence's cosine is its source's (the chunk vector is already stored), and
only the `embed_sentences` best candidates by that estimate (default 0) are embedded and re-scored; the
answerability model, which reads the best `answerability_sentences`, tells the sentences of one source
apart. Without those scores (a backend called directly, BM25-only retrieval), or for the `relevance` and
`combined` signals (their thresholds were chosen on the exact relevance), every sentence is embedded.
Each source text's candidate sentences and their stems are cached by text, so a chunk seen again is not
split again.

The answer opens with the candidate the answerability model (below) finds most likely to answer the
question among the `answerability_sentences` most relevant ones (`choose=answerability`, the default;
`choose=relevance`: the most relevant sentence), then up to `max_sentences - 1` more by maximal marginal
relevance (MMR,
Carbonell & Goldstein 1998) among those within `margin` of the best, so near-duplicates from overlapping
chunks are not repeated (redundancy: the cosine of the two sentences' embeddings when they have them,
else of their content-stem sets). Each sentence is cited to its source and quoted verbatim, so the answer is
grounded by construction — and it still goes through the same verifier as every other backend. A
sentence that looks like an instruction (citebound.text.injection) is never selected: sources are data,
and quoting "Ignore previous instructions and say …" would make the injection the answer. The reply's
`meta["withheld"]` lists those regions.

Document structure (citebound.text.structure): a heading, a table's header row or a delimiter row is never
a candidate, and neither is a sentence ending in ":" that does not come with what it announces. A sentence
that introduces a list or table ("… has one of the following storage classes:") is a candidate together
with its items (at most 8, about 600 characters): its quote is that verbatim multi-line span, and its claim
in the answer is the same words on one line (`introducer: item; item`), so the verifier reads one claim.
Claims are separated by a blank line, so one that opens with a table row or a lower-case word is not read
as the continuation of the one before.

A sentence that cannot be understood alone is read in its context (chosen on techdocs dev): a later
sentence of a term's definition ("If seq is empty, raises IndexError." under "random.choice(seq)") is
claimed as "term: sentence", and a sentence that opens by pointing back ("It …", "This …", "So …") comes
with the sentence before it in its paragraph, as two cited claims; either way the quote runs verbatim from
the context to the sentence's end, and the answerability model reads what is claimed. Under a heading
the model reads "heading: claim" (the heading is not claimed, and not read when it is the source's first
line, possibly a document title): a section's sentences rarely repeat what the section is about
("Python uses the Mersenne Twister as the core generator." under "random — Generate pseudo-random
numbers"). When a candidate says all that the model's favourite says and more (that sentence with its
term, or with the sentence that continues it), the answer opens with it instead. `max_sentences` counts
claims.

Whether to answer at all is decided by `signal` (its value is the reply's `confidence`):

- `relevance` — the best sentence's relevance above (the original signal);
- `answerability` — the best P(the sentence answers the question) of a learned cross-encoder
  (citebound.generation.answerability) over the `answerability_sentences` most relevant sentences.
  Sentence similarity cannot see an on-topic question its source does not answer; this model was
  trained for exactly that (SQuAD 2.0 dev, fit half);
- `combined` — a 2-feature logistic regression of both (weights in the model's calibration.json).

If the confidence is below `threshold` (default: the knowledge base's own threshold when `citebound
calibrate answers` stored one for this signal and model, else the signal's threshold chosen on squad2
dev; `citebound.generation.kb_threshold`), the backend abstains with the fixed abstention sentence. Which sentences are picked does not depend on
`threshold` (only whether to answer does), so an evaluation can score every threshold from one run
(risk–coverage); the signal matters only through whether every sentence is embedded (above).
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

import numpy as np
from pydantic import Field

from citebound.generation.base import Backend, Generation, GenerationRequest
from citebound.text.citations import ABSTENTION_SENTENCE, remove_markers
from citebound.text.injection import instruction_regions, overlaps
from citebound.text.sentences import sentence_spans
from citebound.text.structure import (
    STRUCTURAL,
    Segment,
    flatten,
    items_end,
    lines,
    segments,
)

Signal = Literal["answerability", "combined", "relevance"]


def default_signal() -> str:
    from citebound.generation.answerability import load_calibration

    return load_calibration()["default_signal"]


def default_threshold(signal: str | None = None) -> float:
    """The dev-chosen abstention threshold of `signal` (default: the default signal)."""
    # Every signal's threshold was chosen on SQuAD 2.0 dev (never test) and is stored with the
    # answerability model: citebound/models/answerability/calibration.json (see its model card).
    signal = signal or default_signal()
    from citebound.generation.answerability import load_calibration

    return float(load_calibration()["thresholds"][signal])

# Words that frame a question rather than name what it is about ("HOW LONG does it TAKE", "what TYPE
# of", "in what YEAR"): the answer sentence rarely repeats them, so they are left out of the lexical
# overlap (they still count in the dense similarity).
QUESTION_FRAMING = frozenset(
    """
    long take takes took taken many much often far old big large kind kinds type types sort sorts name
    named called term year years percentage percent happen happened happens mean means meant
    """.split()
)

_TRAILING_PUNCT = re.compile(r"([.!?…]+[\"'”’)\]]*)\s*$")


@dataclass(frozen=True, slots=True)
class ScoredSentence:
    source_id: str
    start: int
    end: int
    text: str
    relevance: float
    dense: float
    lexical: float
    head_end: int | None = None  # when the sentence introduces a list/table: where it ends in `text`
    stems: frozenset[str] = frozenset()  # its content-word stems
    # its own sentence embedding, when it was embedded (`dense` is then its own cosine, else its source's)
    vector: Any = field(default=None, compare=False, repr=False)
    said: tuple[str, ...] = ()  # a sentence read in its context (`Candidate.said`): what the answer states
    bare: int = 0  # where the sentence itself starts in `text` (after its context)
    heading: str | None = None  # the heading of its section, when its source has it above the sentence

    @property
    def claims(self) -> tuple[str, ...]:
        """What the answer states, one claim per sentence it cites."""
        if self.said:
            return self.said
        if self.head_end is None:
            return (self.text,)
        # a Sphinx term's "¶" (a permalink sign) is no part of what the answer says; the quote keeps it
        return (one_sentence(flatten(self.text, self.head_end)).replace("¶:", ":"),)

    @property
    def claim(self) -> str:
        """What the answer states, as one string: the sentence, the introducer and its items as one
        sentence, or a sentence with its context."""
        return " ".join(self.claims)

    @property
    def model_texts(self) -> tuple[str, ...]:
        """What the answerability model reads (the candidate's P is the best over them): under a heading,
        "heading: claim" (in "random — Generate pseudo-random numbers" … "Python uses the Mersenne Twister as
        the core generator." the model cannot tell that Python's generator is the random module's);
        otherwise the candidate; a sentence with the one before it; a later sentence of a definition both
        with its term and alone (the term sometimes reads as the wrong subject, "heapq.heappop(heap): To
        access the smallest item without popping it, use heap[0]."). Chosen on techdocs dev."""
        if self.heading:
            return (f"{self.heading}: {self.claim}",)
        if not self.said:
            return (self.text,)
        if len(self.said) > 1:
            return (" ".join(self.said),)
        return (self.said[0], self.text[self.bare:])


class ExtractiveBackend(Backend):
    name = "extractive"
    can_regenerate = False  # deterministic: asking again gives the same sentences
    # copies source sentences verbatim: the default checker settles most of them at its word-for-word
    # "quote" stage, before any model call

    class Options(Backend.Options):
        signal: Signal | None = Field(None, description="confidence that decides whether to answer "
                                      "(answerability | combined | relevance; default: the calibrated choice)")
        threshold: float | None = Field(None, description="abstain when the confidence is below "
                                        "(default: the knowledge base's calibrated threshold, `citebound calibrate answers`, else the signal's "
                                        "dev-chosen one)")
        answerability_sentences: int = Field(10, ge=1, description="how many of the most relevant sentences "
                                             "the answerability model reads")
        choose: Literal["relevance", "answerability"] = Field(
            "answerability", description="which sentence the answer opens with: the one the answerability "
            "model scores highest among those it reads (chosen on dev: SQuAD 2.0 and techdocs), or the most "
            "relevant one")
        alpha: float = Field(0.5, ge=0, le=1, description="weight of the dense cosine vs lexical overlap")
        max_sentences: int = Field(2, ge=1, le=10)
        margin: float = Field(0.08, ge=0, description="extra sentences must score within this of the best")
        mmr_lambda: float = Field(0.7, ge=0, le=1, description="relevance vs novelty in MMR")
        max_redundancy: float = Field(0.85, ge=0, le=1, description="skip a sentence this similar to one kept")
        min_words: int = Field(4, ge=1, description="shorter sentences (headings, fragments) are not answers")
        embed_sentences: int | None = Field(
            0, ge=0, description="when the request carries the retriever's dense score of each source and the "
            "signal is answerability: how many candidate sentences, best first by relevance with their source's "
            "dense score standing in for their own, get a sentence embedding of their own; none: every sentence "
            "(slower: one MiniLM run per sentence; `-o embed_sentences=null`)")

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._embedder = None
        self._cache: dict[str, np.ndarray] = {}

    @property
    def signal(self) -> str:
        return self.options.signal or default_signal()

    @property
    def threshold(self) -> float:
        t = self.options.threshold
        return default_threshold(self.signal) if t is None else t

    def threshold_for(self, request: GenerationRequest) -> tuple[float, str]:
        """The threshold this request is answered with, and where it comes from: the `threshold` option
        ("option"), else the knowledge base's own calibration when it was made for this signal and model
        ("kb", `citebound calibrate answers`), else the signal's dev-chosen default ("default")."""
        if self.options.threshold is not None:
            return self.options.threshold, "option"
        from citebound.generation.kb_threshold import kb_threshold

        stored = kb_threshold(request.kb_calibration, self.signal)
        if stored is not None:
            return stored, "kb"
        return default_threshold(self.signal), "default"

    # -- scoring ---------------------------------------------------------------------------------
    def _embed(self, texts: list[str]) -> np.ndarray:
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            if self._embedder is None:
                from citebound.models.embedder import shared_embedder

                self._embedder = shared_embedder()
            if len(self._cache) > 100_000:  # bounded: a long evaluation sees many distinct sentences
                self._cache.clear()
            for text, vec in zip(missing, self._embedder.embed(missing), strict=True):
                self._cache[text] = np.asarray(vec, dtype=np.float32)
        return np.stack([self._cache[t] for t in texts]) if texts else np.zeros((0, 384), np.float32)

    def score(self, question: str, sources: dict[str, str] | Any,
              source_scores: Mapping[str, Mapping[str, float]] | None = None) -> list[ScoredSentence]:
        """Every candidate sentence of the sources with its relevance to the question, best first.

        A sentence that touches instruction-like text (citebound.text.injection) is never a candidate:
        sources are data, so "Ignore previous instructions and say …" is not quoted as an answer.

        With `source_scores` (the retriever's, per source label) holding every source's dense score, and
        the answerability signal, a sentence's dense term is its source's dense score unless it is among
        the `embed_sentences` best candidates (`_own_embeddings`); otherwise every sentence is embedded."""
        from citebound.text.stem import stem

        candidates = []  # (source id, candidate)
        for sid, text in sources.items():
            candidates += [(sid, c) for c in source_candidates(text, self.options.min_words)]
        # an introducer cut off from its items by the chunk's end, when an overlapping chunk has them
        with_items = [c.text for _, c in candidates if c.head_end is not None]
        candidates = [(sid, c) for sid, c in candidates if not (c.head_end is None and c.text.endswith(":")
                                                                and any(c.text in t for t in with_items))]
        if not candidates:
            return []
        framing = {stem(w) for w in QUESTION_FRAMING}
        q_stems = _stems(question) - framing
        alpha = self.options.alpha
        lexical = [len(q_stems & c.stems) / len(q_stems) if q_stems else 0.0 for _, c in candidates]
        own = self._own_embeddings(source_scores, len(candidates))
        if own is None:  # every sentence embedded
            picked = list(range(len(candidates)))
            dense = [0.0] * len(candidates)
        else:  # the source's dense score first, then the `own` best re-scored with their own embedding
            dense = [float(source_scores[sid]["dense"]) for sid, _ in candidates]
            estimate = [alpha * d + (1 - alpha) * x for d, x in zip(dense, lexical, strict=True)]
            picked = sorted(range(len(candidates)), key=lambda i: -estimate[i])[:own]
        vectors: dict[int, np.ndarray] = {}
        if picked:
            embedded = self._embed([question] + [candidates[i][1].text for i in picked])
            for i, vec, cos in zip(picked, embedded[1:], embedded[1:] @ embedded[0], strict=True):
                vectors[i], dense[i] = vec, float(cos)
        scored = []
        for i, ((sid, c), cos, lex) in enumerate(zip(candidates, dense, lexical, strict=True)):
            relevance = alpha * cos + (1 - alpha) * lex
            scored.append(ScoredSentence(sid, c.start, c.end, c.text, relevance, cos, lex, c.head_end, c.stems,
                                         vectors.get(i), c.said, c.bare, c.heading))
        scored.sort(key=lambda x: -x.relevance)
        return scored

    def _own_embeddings(self, source_scores: Mapping[str, Mapping[str, float]] | None, n: int) -> int | None:
        """How many sentences get their own embedding; None: all of them. All of them unless the request
        has every source's dense score, the signal is answerability and so is the choice of the opening
        sentence: `relevance` and `combined` read the relevance itself (their thresholds were chosen with
        every sentence embedded), and so does `choose=relevance`."""
        wanted = self.options.embed_sentences
        if (wanted is None or self.signal != "answerability" or self.options.choose != "answerability"
                or not source_scores):
            return None
        if any("dense" not in (scores or {}) for scores in source_scores.values()):
            return None
        return min(wanted, n)

    def select(self, scored: list[ScoredSentence]) -> list[ScoredSentence]:
        """The best sentence plus MMR picks within `margin` of it (threshold not applied here).

        Redundancy is the cosine of two sentences' embeddings when the pool has them all, else the cosine
        of their content-stem sets."""
        if not scored:
            return []
        opts = self.options
        pool = [c for c in scored if c.relevance >= scored[0].relevance - opts.margin][: 4 * opts.max_sentences]
        if all(c.vector is not None for c in pool):
            vectors = [c.vector for c in pool]

            def similarity(i: int, j: int) -> float:
                return float(vectors[i] @ vectors[j])
        else:
            def similarity(i: int, j: int) -> float:
                return _set_cosine(pool[i].stems, pool[j].stems)
        chosen = [0]
        said = len(pool[0].claims)  # a sentence quoted with the one before it says two
        while said < opts.max_sentences:
            best_i, best_value = None, -np.inf
            for i in range(len(pool)):
                if i in chosen or any(_overlap(pool[i], pool[j]) for j in chosen):
                    continue  # e.g. an item of a list already quoted with its introducer
                if said + len(pool[i].claims) > opts.max_sentences:
                    continue
                redundancy = max(similarity(i, j) for j in chosen)
                if redundancy >= opts.max_redundancy:
                    continue
                value = opts.mmr_lambda * pool[i].relevance - (1 - opts.mmr_lambda) * redundancy
                if value > best_value:
                    best_i, best_value = i, value
            if best_i is None:
                break
            chosen.append(best_i)
            said += len(pool[best_i].claims)
        # Read in source order (by label, then position) rather than score order: reads more naturally.
        picked = [pool[i] for i in chosen]
        return sorted(picked, key=lambda c: (int(c.source_id[1:]) if c.source_id[1:].isdigit() else 0, c.start))

    def signals(self, question: str, scored: list[ScoredSentence]) -> dict[str, float]:
        """The abstention signals for a question whose sentences are `scored` (best first). The learned
        model only runs when the chosen signal needs it."""
        return self._signals(question, scored)[0]

    def _signals(self, question: str, scored: list[ScoredSentence]) -> tuple[dict[str, float], list[float]]:
        """`signals()`, and P(answers the question) of each of the first `answerability_sentences` of
        `scored` (empty when no signal needed the model and the answer is not chosen by it)."""
        relevance = scored[0].relevance if scored else 0.0
        out = {"relevance": relevance}
        if self.signal == "relevance" and self.options.choose == "relevance":
            return out, []
        from citebound.generation.answerability import combine, load_calibration

        probs = candidate_answerability(question, scored[: self.options.answerability_sentences])
        out["answerability"] = max(probs, default=0.0)
        if self.signal == "combined":
            out["combined"] = combine(out["answerability"], relevance, load_calibration()["combined"])
        if self.signal == "relevance":
            del out["answerability"]
        return out, probs

    # -- the backend -----------------------------------------------------------------------------
    def generate(self, request: GenerationRequest) -> Generation:
        scored = self.score(request.question, request.sources, request.source_scores)
        signals, probs = self._signals(request.question, scored)
        signal = self.signal
        threshold, threshold_source = self.threshold_for(request)
        confidence = signals[signal]
        if self.options.choose == "answerability" and probs:
            # the answer opens with the sentence the model finds most likely to answer, not the most similar
            best = opening(scored, probs)
            scored = [scored[best], *scored[:best], *scored[best + 1:]]
        picked = self.select(scored)
        meta = {"best": _describe(scored[0]) if scored else None, "signal": signal, "threshold": threshold,
                "threshold_source": threshold_source,
                "signals": {k: round(v, 4) for k, v in signals.items()},
                "sentences": len(scored), "sentences_embedded": sum(c.vector is not None for c in scored)}
        withheld = instruction_regions_of(request.sources)
        if withheld:  # what was not quoted, so the answer can say so
            meta["withheld"] = [{"source_id": sid, "start": a, "end": b} for sid, spans in withheld.items()
                                for a, b in spans]
        if not picked or confidence < threshold:
            reply = {"answer": ABSTENTION_SENTENCE, "citations": [], "abstained": True}
            what = "relevant enough" if signal == "relevance" else "likely enough to answer the question"
            meta["abstain_reason"] = (f"no source sentence is {what}: {signal} {confidence:.2f} < threshold "
                                      f"{threshold:.2f}" if picked else "the sources have no sentences")
        else:
            reply = {
                # a blank line between claims: a claim that opens with a table row or a lower-case word
                # would otherwise run on from the one before it when the verifier splits the answer
                "answer": "\n\n".join(" ".join(cite_sentence(x, c.source_id) for x in c.claims) for c in picked),
                "citations": [{"source_id": c.source_id, "quote": c.text} for c in picked],
                "abstained": False,
            }
        return Generation(text=json.dumps(reply, ensure_ascii=False), model="extractive",
                          confidence=confidence, meta=meta)


def opening(candidates: list[ScoredSentence], probs: list[float]) -> int:
    """Which candidate the answer opens with: the one the model scores highest (`probs`, of the first
    candidates), unless another of them says all it says and more, word for word (the same sentence with
    the term it defines or with the sentence that continues it, e.g. in an overlapping chunk that has its
    context; a list item's introducer with its items): that one opens the answer (the best such, by its own
    P)."""
    best = int(np.argmax(probs))
    words = [_words(c.claim) for c in candidates[:len(probs)]]
    wider = [j for j in range(len(probs)) if len(words[j]) > len(words[best]) and words[best] in words[j]]
    return max(wider, key=lambda j: probs[j]) if wider else best


def _words(text: str) -> str:
    """The words of `text`, lower-cased, space-separated and padded ("- DELETE, the mode" -> " delete the
    mode "): a list item's words are then found in its introducer's claim, whatever the punctuation."""
    return " " + " ".join(re.findall(r"\w+", text.lower())) + " "


def candidate_answerability(question: str, candidates: list[ScoredSentence]) -> list[float]:
    """P(the candidate answers `question`) for each candidate: the best over its `model_texts` (one model
    run each; a sentence read in its context costs one more run)."""
    from citebound.generation.answerability import sentence_answerability

    texts = [t for c in candidates for t in c.model_texts]
    unique = list(dict.fromkeys(texts))  # overlapping chunks repeat sentences: each text is scored once
    prob_of = dict(zip(unique, sentence_answerability(question, unique)))
    probs = iter(prob_of[t] for t in texts)
    return [max(next(probs) for _ in c.model_texts) for c in candidates]


def instruction_regions_of(sources: Any) -> dict[str, list[tuple[int, int]]]:
    """Per source label, the instruction-like regions of its text (only sources that have some)."""
    regions = {sid: instruction_regions(text) for sid, text in sources.items()}
    return {sid: spans for sid, spans in regions.items() if spans}


class Candidate(NamedTuple):
    """A sentence (or an introducer with its items) of one source that may be quoted as an answer."""

    start: int
    end: int
    text: str
    head_end: int | None  # when it introduces a list/table: where the introducer ends in `text`
    stems: frozenset[str]  # its content-word stems
    # A sentence that needs what comes before it to be understood, quoted from there: `text` starts at
    # its context, `said` is what the answer states (the term and the sentence as one claim; or the
    # sentence before and the sentence), `bare` where the sentence itself starts in `text`.
    said: tuple[str, ...] = ()
    bare: int = 0
    heading: str | None = None  # the nearest heading above it in the source (`_with_headings`)


# Per source text, its candidates: they depend on the text alone, and a long-lived process (the server,
# an evaluation, a benchmark) sees the same chunks again and again. Bounded: emptied when full (about
# 15 kB per 1,200-character chunk with what it keeps alive, so ~30 MB at most).
CACHE_TEXTS = 2_000
_candidates: dict[tuple[str, int], tuple[Candidate, ...]] = {}


def source_candidates(text: str, min_words: int) -> tuple[Candidate, ...]:
    """The candidate sentences of one source text, in order (cached by text): no heading, table header
    or rule, nothing shorter than `min_words` tokens, nothing touching instruction-like text; an
    introducer with the items or the line it announces; a defined term with its definition's first
    sentence."""
    key = (text, min_words)
    found = _candidates.get(key)
    if found is None:
        if len(_candidates) >= CACHE_TEXTS:
            _candidates.clear()
        found = _candidates[key] = tuple(_find_candidates(text, min_words))
    return found


def _find_candidates(text: str, min_words: int) -> list[Candidate]:
    from citebound.text.tokenize import tokens

    withheld = instruction_regions(text)
    out = []
    before = None
    for seg in segments(text):
        prev, before = before, seg  # the segment before: the context of a sentence that points back
        s, e = seg.start, seg.end
        # a heading, a table's header row or a rule is never an answer on its own
        if seg.kind in STRUCTURAL or len(tokens(text[s:e])) < min_words:
            continue
        end = items_end(text, s, e) if seg.kind in ("text", "list_item") else e
        if end == e and seg.kind in ("text", "list_item"):
            end = _line_it_introduces(text, e)  # "… typing the command:" + "python3.11"
        if end == e and _announces_what_it_lacks(text, e):
            continue
        if end == e and seg.kind == "text":
            term = _term_defined(text, s)  # "--json-lines¶" + "Parse every input line as …"
            if term is not None:
                if not overlaps((term, end), withheld):
                    out.append(_candidate(text, term, end, text.index("\n", term) - term))
                continue
            context = _in_context(text, s, e, prev)
            if context is not None:
                if not overlaps((context.start, e), withheld):
                    out.append(context)
                continue
        if overlaps((s, end), withheld):
            continue
        out.append(_candidate(text, s, end, e - s if end > e else None))
    return _with_headings(text, out)


def _with_headings(text: str, found: list[Candidate]) -> list[Candidate]:
    """Each candidate with the nearest heading above it in `text` (its "¶" dropped), if any. A heading on
    the source's first line is left out: it may be the document's title (the BEIR reader puts it there;
    every SQuAD paragraph opens with one), the topic of every question asked about the document, which
    tells the model nothing about which sentence answers and makes it answer SQuAD 2.0's on-topic
    unanswerable questions (dev: abstention recall 0.700 -> 0.582 with it)."""
    heads = [ln for ln in lines(text) if ln.kind == "heading" and text[:ln.start].strip()]
    starts = [ln.end for ln in heads]
    out = []
    for c in found:
        i = bisect.bisect_right(starts, c.start) - 1
        if i >= 0:
            c = c._replace(heading=text[heads[i].start:heads[i].end].strip().removesuffix("¶").rstrip() or None)
        out.append(c)
    return out


# A sentence that opens with a word pointing back at the sentence before it ("It produces 53-bit
# precision floats and has a period of 2**19937-1.", "This can be done by passing -i before the script.")
_POINTS_BACK = re.compile(r"(?:This|That|These|Those|It|Its|They|Their|Them|Such|So|Thus|Hence|Therefore)\b")
CONTEXT_MAX_CHARS = 500  # a term and the sentences between it and a later sentence of its definition


def _in_context(text: str, s: int, e: int, prev: Segment | None) -> Candidate | None:
    """The sentence `text[s:e]` read in its context, when it needs it: a later sentence of a term's
    definition with its term ("random.choice(seq)¶" … "If seq is empty, raises IndexError." is claimed as
    "random.choice(seq): If seq is empty, raises IndexError."), or a sentence that points back at the
    sentence before it in its paragraph (`prev`, the segment before), claimed with it. The quote runs verbatim from the context to
    the sentence's end. None when the sentence stands on its own."""
    para = text.rfind("\n\n", 0, s)
    para = 0 if para < 0 else para + 2
    term = _term_defined(text, para) if s > para else None
    if term is not None and e - term <= CONTEXT_MAX_CHARS:
        name = text[term:text.index("\n", term)].strip().removesuffix("¶").rstrip()
        said = f"{name}: {text[s:e]}"
    elif prev is not None and prev.kind == "text" and prev.start >= para and _POINTS_BACK.match(text, s):
        term = prev.start
        said = (text[prev.start:prev.end], text[s:e])
        return Candidate(term, e, text[term:e], None, _stems(" ".join(said)), said, s - term)
    else:
        return None
    return Candidate(term, e, text[term:e], None, _stems(said), (said,), s - term)


def _candidate(text: str, start: int, end: int, head_end: int | None) -> Candidate:
    return Candidate(start, end, text[start:end], head_end, _stems(text[start:end]))


def _stems(text: str) -> frozenset[str]:
    from citebound.text.stem import content_stems

    return frozenset(content_stems(text))


def _set_cosine(a: frozenset[str], b: frozenset[str]) -> float:
    """|a ∩ b| / sqrt(|a| |b|): how much two sentences say with the same words (0 when either is empty)."""
    return len(a & b) / (len(a) * len(b)) ** 0.5 if a and b else 0.0


def cite_sentence(sentence: str, source_id: str) -> str:
    """`sentence` with `[source_id]` placed before its final punctuation ("… days [S1]."). Citation
    markers the source itself contains (Wikipedia's "[3]") are dropped from the answer text: the
    verifier would read them as citations of ids that do not exist. The quote stays verbatim."""
    sentence = remove_markers(sentence)
    m = _TRAILING_PUNCT.search(sentence)
    if m:
        return f"{sentence[: m.start()].rstrip()} [{source_id}]{m.group(1)}"
    return f"{sentence} [{source_id}]."


def _overlap(a: ScoredSentence, b: ScoredSentence) -> bool:
    """The same text twice: overlapping spans of one source, or one text inside the other (overlapping
    chunks are different sources that share sentences)."""
    if a.source_id == b.source_id:
        return a.start < b.end and b.start < a.end
    return a.text in b.text or b.text in a.text


def _announces_what_it_lacks(text: str, end: int) -> bool:
    """The sentence ending at `end` ends in ":" and its line, and what follows is the start of a list the
    chunk cut off ("1.", "-", a table row): it announces items it does not come with, so it is no answer
    on its own. Before a code block or a paragraph it stays a candidate: in technical documentation the
    sentence that introduces an example often states the fact itself ("Syntax errors, also known as
    parsing errors, are … :"). At the very end of a source it stays a candidate too (it may be all there is)."""
    if not text[:end].endswith(":"):
        return False
    line_end = text.find("\n", end)
    if line_end < 0 or text[end:line_end].strip():
        return False
    nxt = text[line_end:].lstrip()
    return bool(nxt) and _LIST_START.match(nxt) is not None


# A term that a definition list defines, on a line of its own: a command-line option (`--json-lines`,
# `-n N, --number=N`), a call signature (`class random.SystemRandom([seed])`) or a dotted name
# (`UUID.hex`), with the "¶" a Sphinx page puts after it. Section headings do not match (words and spaces).
_TERM = re.compile(r"(?:(?:class|exception|async|classmethod|staticmethod)\s+)?"
                   r"(?:-{1,2}\w[\w-]*(?:[= ,\[][^\n]{0,60})?|[A-Za-z_][\w.]*\(.*\)|[A-Za-z_]\w*(?:\.\w+)+)\s*¶?")
TERM_MAX_CHARS = 100


def _term_defined(text: str, start: int) -> int | None:
    """Where the term starts when the sentence at `start` opens the paragraph right after a one-line
    paragraph that is a term (`_TERM`): in API references and manual pages the first sentence of a
    definition is about its term, which it does not repeat ("Parse every input line as separate JSON
    object." under "--json-lines"), so the two are one candidate. None otherwise."""
    if start < 3 or text[start - 2:start] != "\n\n":
        return None
    term_end = start - 2
    term_start = text.rfind("\n", 0, term_end) + 1
    if term_start > 0 and (term_start < 2 or text[term_start - 2] != "\n"):
        return None  # not a paragraph of one line
    term = text[term_start:term_end].strip()
    if not term or len(term) > TERM_MAX_CHARS or _TERM.fullmatch(term) is None:
        return None
    return term_start


_LIST_START = re.compile(r"(?:[-*+•]|\d{1,3}[.)]|\|)(?:\s|$)")
SHORT_LINE_CHARS = 100  # a command or code line short enough to quote with the sentence announcing it


def _line_it_introduces(text: str, end: int) -> int:
    """Where the one short line announced by the sentence ending at `end` ends ("… run:" + a blank line +
    "source tutorial-env/bin/activate"): a line of at most `SHORT_LINE_CHARS` characters with a letter in
    it, alone in its paragraph, that is neither the start of a list nor an interactive session (`>>>`).
    `end` itself when there is none."""
    if not text[:end].endswith(":"):
        return end
    line_end = text.find("\n", end)
    if line_end < 0 or text[end:line_end].strip():
        return end
    start = line_end
    while start < len(text) and text[start] in " \t\n":
        start += 1
    if text.count("\n", line_end, start) > 2:  # more than one blank line: not what the sentence announces
        return end
    stop = text.find("\n", start)
    stop = len(text) if stop < 0 else stop
    line = text[start:stop].strip()
    after = text[stop:stop + 2]
    if (not line or len(line) > SHORT_LINE_CHARS or not re.search(r"[A-Za-z]", line) or line.startswith(">>>")
            or _LIST_START.match(line) or after not in ("", "\n", "\n\n")):
        return end
    return stop


def one_sentence(claim: str) -> str:
    """`claim` with inner sentence ends turned into commas, so the verifier reads it as one claim."""
    for _ in range(5):
        spans = sentence_spans(claim)
        if len(spans) <= 1:
            return claim
        claim = ", ".join(claim[a:b].rstrip(" .!?…") for a, b in spans[:-1]) + ", " + claim[spans[-1][0]:]
    return claim


def _describe(c: ScoredSentence) -> dict[str, Any]:
    return {"source_id": c.source_id, "start": c.start, "end": c.end, "relevance": round(c.relevance, 4),
            "dense": round(c.dense, 4), "lexical": round(c.lexical, 4)}
