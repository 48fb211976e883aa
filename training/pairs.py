"""Document-level training pairs for the entailment cross-encoder (issue 10, "What to build" item 2).

Every generator is a plain function returning ``(pairs, counts)`` where a pair is
``(claim, evidence, label, kind)`` with label 1 = supported, 0 = not supported, and ``kind`` names the
generator (and the rule) that made it. Generators are deterministic for a given ``random.Random``
(no iteration over Python sets of strings), so a resumed training run regenerates the same data.
Standard library only. Run this file to print the counts of every generator:

    .venv-train/bin/python training/pairs.py

Sources (never a test split; never the calibration halves):

- ``factcg_pairs``: ../shared/data/nli/factcg_cg2c (FactCG CG2C, MIT repo). ``doc.jsonl`` = multi-hop
  claims against news-style documents (source terms unstated -> research-terms data); ``musique.jsonl``
  = multi-hop claims against MuSiQue Wikipedia paragraphs (CC BY 4.0), all not supported.
- ``squad_claim_pairs``: SQuAD 2.0 **dev** (../shared/data/qa/squad2/dev, CC BY-SA 4.0), answerable
  questions of the *fit* half of paragraphs only (``splits.is_calibration_paragraph`` False): the
  question + gold answer rewritten as a statement (QA2D-style rules) -> supported by its paragraph;
  the same statement with another span of the same paragraph (another question's answer, another
  number, another capitalised name) -> not supported.
- ``hard_negative_pairs``: sentences of the same fit-half SQuAD paragraphs (plus the MuSiQue premises
  of factcg, CC BY 4.0) edited by rule: number changed, entity swapped with another of the same
  document, negation added / removed (incl. contractions "cannot", "isn't", "never"), an antonym, a
  clause dropped from the *evidence*; the sentence against its word-overlap (BM25-like) neighbour
  paragraph of another document. Positives: the sentence itself and the sentence with a trailing
  clause dropped (a weaker claim stays supported), against the paragraph.
- ``multi_sentence_pairs``: two sentences of a paragraph as one claim, supported; the same with one
  sentence edited by a rule above, not supported.
- ``detail_pairs`` (``rule/detail_*``, 2026-12-01): the same source sentences with one invented detail
  added to a true statement -> not supported: the sentence cut after its verb + a prepositional phrase
  of another document ("Refunds are paid" + "in cash"), one phrase replaced by or followed by such a
  phrase, two neighbouring sentences joined by "because" (a cause the document does not state), "by
  NAME" added to an agentless passive (a name from elsewhere in the document); supported, in the same
  shapes: the sentence cut after its own phrase, the two sentences joined by ", and".
- ``kinds_pairs`` (``rule/kinds_*``, 2026-12-01, written after the sixth blind set showed the model missing
  the same kinds in new words; not yet trained on): the same source sentences with a deed turned round
  between two names of the sentence, a plan stated as done or a deed as only planned, a condition dropped,
  a quantifier or modal widened ("some" -> "all", "may" -> "must") -> not supported; the cue-bearing
  sentences copied (or less a non-condition clause) -> supported, so a cue word alone decides nothing.
- ``written_pairs`` (``written/<kind>``, 2026-12-04): short sources and claims written for training by the
  project's own helper agents (training/data/written/, the project's own text, no outside source), each
  told the tricks of the plain-language cases (a negation in a contraction, a true number on the wrong
  attribute, a reversed comparison, an invented cause, a number written two ways...) and asked for about
  as many faithful claims, paraphrased away from the source's words. A fifth of the sources (by a hash of
  the source text, ``is_written_holdout``) is never trained on: it checks a candidate. Not the blind sets:
  those are written by agents that see nothing of this project, and never trained on.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import math
import random
import re
from collections import Counter, defaultdict
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("CITEBOUND_SHARED_DATA", "/work/shared/data"))  # a copy elsewhere (the GPU job)
SQUAD_DEV = DATA / "qa" / "squad2" / "dev"  # dev only: the test split is never read
FACTCG = DATA / "nli" / "factcg_cg2c"

Pair = tuple[str, str, int, str]


def _load_module(name: str, rel: str):
    spec = importlib.util.spec_from_file_location(name, REPO / rel)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


splits = _load_module("cb_splits", "citebound/evaluate/splits.py")
sentence_spans = _load_module("cb_sentences", "citebound/text/sentences.py").sentence_spans


def read_jsonl(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def sentences(text: str) -> list[str]:
    return [text[a:b].strip() for a, b in (sentence_spans(text) or [(0, len(text))]) if text[a:b].strip()]


def _count(pairs: list[Pair]) -> dict[str, dict[str, int]]:
    c: dict[str, dict[str, int]] = {}
    for _, _, y, kind in pairs:
        d = c.setdefault(kind, {"supported": 0, "not": 0})
        d["supported" if y else "not"] += 1
    return dict(sorted(c.items()))


# --------------------------------------------------------------------------------------------- FactCG
def factcg_pairs(rng: random.Random, include_doc: bool = True, include_musique: bool = True):
    """FactCG CG2C document-level synthetic claims: (hypothesis, premise document, label)."""
    pairs: list[Pair] = []
    files = ([("doc", "factcg/doc")] if include_doc else []) + ([("musique", "factcg/musique")] if include_musique else [])
    for fname, kind in files:
        for r in read_jsonl(FACTCG / f"{fname}.jsonl"):
            pairs.append((r["hypothesis"], r["premise"], int(r["label"] == "entailment"), kind))
    rng.shuffle(pairs)
    return pairs, _count(pairs)


# ---------------------------------------------------------------------------------- SQuAD dev (fit)
def squad_fit() -> tuple[dict[str, str], list[dict]]:
    """Paragraphs and answerable questions of the SQuAD 2.0 dev *fit* half (by paragraph)."""
    paras = {r["_id"]: r["text"] for r in read_jsonl(SQUAD_DEV / "corpus.jsonl")
             if not splits.is_calibration_paragraph(r["_id"])}  # fmt: skip
    qs = [q for q in read_jsonl(SQUAD_DEV / "questions.jsonl")
          if q["context_id"] in paras and q.get("answerable") and q.get("answers")]  # fmt: skip
    return paras, qs


_BE = {"is", "was", "are", "were"}
_AUX = {"did", "does", "do"}
_PREP_START = re.compile(r"^(in|on|at|by|during|from|since|after|before|around|about|over|under)\b", re.I)


def qa_to_statement(question: str, answer: str) -> str | None:
    """A question + its answer as a declarative statement, by a few QA2D-style rules for wh-questions.
    Returns None when no rule applies (those questions are skipped rather than written badly)."""
    q = question.strip().rstrip("?").strip()
    q = re.sub(r"\s+", " ", q)
    a = answer.strip().rstrip(".")
    if not q or not a:
        return None
    w = q.split(" ")
    lw = [t.lower() for t in w]
    cap = lambda s: s[0].upper() + s[1:] if s else s  # noqa: E731
    # Who/What/Which (X) is/was Y  ->  A is/was Y
    if lw[0] in ("who", "what", "which") and len(w) >= 3 and lw[1] in _BE:
        return cap(f"{a} {lw[1]} {' '.join(w[2:])}.")
    if lw[0] in ("what", "which") and len(w) >= 4 and lw[2] in _BE:  # What city is the capital -> A is ...
        return cap(f"{a} {lw[2]} {' '.join(w[3:])}.")
    # Who/What + verb (not an auxiliary) ...  ->  A verb ...
    if lw[0] in ("who", "what") and len(w) >= 3 and lw[1] not in _AUX | _BE | {"has", "have", "had", "can", "will", "would", "could", "should", "kind", "type", "year", "is"} \
            and (lw[1].endswith("ed") or lw[1].endswith("s") or lw[1] in ("won", "led", "made", "wrote", "built", "took", "gave", "became", "began", "found", "held", "sent", "ran", "told", "said")):
        return cap(f"{a} {' '.join(w[1:])}.")
    # When/Where was/were X (participle)  ->  X was (participle) in A
    if lw[0] in ("when", "where") and len(w) >= 3 and lw[1] in _BE:
        rest = w[2:]
        prep = "" if _PREP_START.match(a) else ("in " if lw[0] == "where" or re.match(r"^\d{3,4}$", a) else "in " if re.search(r"\d", a) else "at " if lw[0] == "where" else "in ")
        if len(rest) >= 2 and rest[-1].lower().endswith("ed"):
            return cap(f"{' '.join(rest[:-1])} {lw[1]} {rest[-1]} {prep}{a}.")
        return cap(f"{' '.join(rest)} {lw[1]} {prep}{a}.")
    # In what/which X is/was Y located  ->  Y is/was located in A
    if lw[0] == "in" and len(w) >= 5 and lw[1] in ("what", "which") and lw[3] in _BE:
        rest = w[4:]
        if len(rest) >= 2 and rest[-1].lower().endswith("ed"):
            return cap(f"{' '.join(rest[:-1])} {lw[3]} {rest[-1]} in {a}.")
        return cap(f"{' '.join(rest)} {lw[3]} in {a}.")
    # How many/much X did/does/is ... -> "The number of X ... is A" is too fragile; a plain pattern:
    if lw[0] == "how" and len(w) >= 4 and lw[1] in ("many", "much"):
        return cap(f"{' '.join(w)}: {a}.")
    # Generic fallback: the question as a title, the answer after a colon
    if lw[0] in ("what", "which", "who", "when", "where", "whom", "whose"):
        return cap(f"{' '.join(w)}: {a}.")
    return None


_NUM = re.compile(r"\b\d[\d,]*(?:\.\d+)?\b")
_CAPS = re.compile(r"\b[A-Z][a-zA-Z]+(?:\s+(?:of|de|the|von|van)?\s*[A-Z][a-zA-Z]+)*\b")
_STOP_CAPS = {"The", "A", "An", "In", "On", "At", "It", "He", "She", "They", "This", "That", "These", "Those",
              "His", "Her", "Its", "Their", "By", "For", "From", "As", "After", "Before", "During", "When",
              "While", "However", "Although", "But", "And", "Of", "To", "With", "There", "Some", "Many", "Most"}


def _entities(text: str) -> list[str]:
    out, seen = [], set()
    for m in _CAPS.finditer(text):
        e = m.group(0).strip()
        if e in _STOP_CAPS or len(e) < 3 or e in seen:
            continue
        seen.add(e)
        out.append(e)
    return out


def _numbers(text: str) -> list[str]:
    out = []
    for m in _NUM.finditer(text):
        if m.group(0) not in out:
            out.append(m.group(0))
    return out


def _distractor(answer: str, golds: list[str], paragraph: str, other_answers: list[str], rng: random.Random) -> str | None:
    """Another span of the same paragraph of the same kind as the answer (number / name / other
    question's answer), that no gold answer contains and that contains no gold answer."""
    low_golds = [g.lower() for g in golds]

    def ok(c: str) -> bool:
        cl = c.lower()
        return bool(cl) and all(cl not in g and g not in cl for g in low_golds)

    if _NUM.search(answer):
        cands = [n for n in _numbers(paragraph) if ok(n)]
        if cands:
            # keep the answer's wording around the number: "about 90 minutes" -> "about 12 minutes"
            n = _NUM.search(answer).group(0)
            return answer.replace(n, rng.choice(cands), 1)
    cands = [o for o in other_answers if ok(o)]
    if answer[:1].isupper():
        cands = [o for o in cands if o[:1].isupper()] + [e for e in _entities(paragraph) if ok(e)]
    if not cands:
        cands = [e for e in _entities(paragraph) if ok(e)]
    return rng.choice(cands) if cands else None


def squad_claim_pairs(rng: random.Random):
    """SQuAD 2.0 dev fit half: statement(question, gold answer) vs paragraph -> supported; the same
    statement with a distractor span of the same paragraph -> not supported."""
    paras, qs = squad_fit()
    by_para: dict[str, list[dict]] = defaultdict(list)
    for q in qs:
        by_para[q["context_id"]].append(q)
    pairs: list[Pair] = []
    skipped = 0
    for q in qs:
        para = paras[q["context_id"]]
        gold = q["answers"][0]
        pos = qa_to_statement(q["question"], gold)
        if pos is None:
            skipped += 1
            continue
        pairs.append((pos, para, 1, "squad/statement"))
        others = [o["answers"][0] for o in by_para[q["context_id"]] if o["id"] != q["id"]]
        d = _distractor(gold, q["answers"], para, others, rng)
        if d is None:
            continue
        neg = qa_to_statement(q["question"], d)
        if neg and neg != pos:
            pairs.append((neg, para, 0, "squad/distractor"))
    rng.shuffle(pairs)
    counts = _count(pairs)
    counts["_questions_skipped_no_rule"] = {"n": skipped}
    return pairs, counts


# ------------------------------------------------------------------------------ rule-made negatives
_NEG_ADD = [  # (pattern, replacement): first match is negated
    (r"\bcan\b", "cannot"), (r"\bis\b", "isn't"), (r"\bwas\b", "was not"), (r"\bare\b", "are not"),
    (r"\bwere\b", "weren't"), (r"\bwill\b", "will not"), (r"\bhas\b", "has not"), (r"\bhave\b", "have not"),
    (r"\bhad\b", "had never"), (r"\bcould\b", "could not"), (r"\bshould\b", "should not"), (r"\bwould\b", "would not"),
    (r"\bdoes\b", "does not"), (r"\bdid\b", "did not"), (r"\bmust\b", "must not"), (r"\bmay\b", "may not"),
]
_NEG_REMOVE = [
    (r"\bcannot\b", "can"), (r"\bcan't\b", "can"), (r"\bisn't\b", "is"), (r"\baren't\b", "are"),
    (r"\bwasn't\b", "was"), (r"\bweren't\b", "were"), (r"\bdoesn't\b", "does"), (r"\bdon't\b", "do"),
    (r"\bdidn't\b", "did"), (r"\bwon't\b", "will"), (r"\bhasn't\b", "has"), (r"\bhaven't\b", "have"),
    (r"\bcouldn't\b", "could"), (r"\bshouldn't\b", "should"), (r"\bwouldn't\b", "would"),
    (r"\bnot\s+", ""), (r"\bnever\s+", ""), (r"\bno longer\s+", ""),
]
_ANTONYMS = [
    ("increase", "decrease"), ("increased", "decreased"), ("increases", "decreases"), ("rise", "fall"),
    ("rose", "fell"), ("before", "after"), ("first", "last"), ("larger", "smaller"), ("largest", "smallest"),
    ("more", "less"), ("higher", "lower"), ("highest", "lowest"), ("won", "lost"), ("north", "south"),
    ("northern", "southern"), ("east", "west"), ("eastern", "western"), ("early", "late"), ("earlier", "later"),
    ("major", "minor"), ("maximum", "minimum"), ("above", "below"), ("inside", "outside"), ("older", "younger"),
    ("oldest", "youngest"), ("strong", "weak"), ("stronger", "weaker"), ("success", "failure"),
    ("successful", "unsuccessful"), ("accepted", "rejected"), ("allowed", "forbidden"), ("public", "private"),
    ("positive", "negative"), ("long", "short"), ("longer", "shorter"), ("longest", "shortest"), ("many", "few"),
    ("most", "least"), ("best", "worst"), ("better", "worse"), ("open", "closed"), ("opened", "closed"),
    ("start", "end"), ("began", "ended"), ("legal", "illegal"), ("common", "rare"), ("upper", "lower"),
    ("support", "oppose"), ("supported", "opposed"), ("always", "never"), ("same", "different"),
    ("included", "excluded"), ("gained", "lost"), ("win", "lose"), ("wins", "loses"), ("victory", "defeat"),
]
_ANT = {}
for _a, _b in _ANTONYMS:
    _ANT.setdefault(_a, _b)
    _ANT.setdefault(_b, _a)
_ANT_RE = re.compile(r"\b(" + "|".join(sorted(map(re.escape, _ANT), key=len, reverse=True)) + r")\b", re.I)


def _keep_case(src: str, new: str) -> str:
    return new[:1].upper() + new[1:] if src[:1].isupper() else new


def change_number(s: str, rng: random.Random) -> str | None:
    nums = list(_NUM.finditer(s))
    if not nums:
        return None
    m = rng.choice(nums)
    raw = m.group(0)
    try:
        v = float(raw.replace(",", ""))
    except ValueError:
        return None
    if re.fullmatch(r"1[5-9]\d\d|20\d\d", raw):  # a year: move it a little
        new = str(int(v) + rng.choice([-12, -5, -3, -2, -1, 1, 2, 3, 7, 10]))
    elif v == int(v):
        iv = int(v)
        new = str(rng.choice([iv + rng.randint(1, 9), max(0, iv - rng.randint(1, 9)), iv * 2, iv * 10, max(1, iv // 2)]))
        if new == str(iv):
            new = str(iv + 1)
        if "," in raw and len(new) > 3:
            new = f"{int(new):,}"
    else:
        new = f"{v * rng.choice([0.5, 1.5, 2, 0.8]):.{len(raw.split('.')[-1])}f}"
    if new == raw:
        return None
    return s[: m.start()] + new + s[m.end():]


def swap_entity(s: str, doc_entities: list[str], rng: random.Random) -> str | None:
    ents = [e for e in _entities(s) if m_not_first_word(s, e)]
    if not ents:
        return None
    e = rng.choice(ents)
    cands = [d for d in doc_entities if d != e and d not in s and e not in d and d not in e]
    if not cands:
        return None
    return s.replace(e, rng.choice(cands), 1)


def m_not_first_word(s: str, e: str) -> bool:
    return not s.startswith(e) or len(e.split()) > 1


def flip_negation(s: str, rng: random.Random) -> str | None:
    for pat, rep in _NEG_REMOVE:
        if re.search(pat, s, re.I):
            return re.sub(pat, rep, s, count=1, flags=re.I)
    options = [(p, r) for p, r in _NEG_ADD if re.search(p, s)]
    if not options:
        # a past-tense verb: "X founded Y" -> "X never founded Y"
        m = re.search(r"\b([a-z]+ed)\b", s[1:])
        if not m:
            return None
        i = m.start(1) + 1
        return s[:i] + rng.choice(["never ", "did not "]) + (s[i:] if True else "")
    p, r = options[0]
    return re.sub(p, r, s, count=1)


def antonym(s: str, rng: random.Random) -> str | None:
    ms = list(_ANT_RE.finditer(s))
    if not ms:
        return None
    m = rng.choice(ms)
    return s[: m.start()] + _keep_case(m.group(0), _ANT[m.group(0).lower()]) + s[m.end():]


_CLAUSE = re.compile(r",\s+(?:which|who|where|while|although|and|but|after|before|when|as|including)\b[^,.;]*|\s+\([^)]*\)")


def drop_clause(s: str, rng: random.Random) -> tuple[str, str] | None:
    """(sentence without one clause, the clause) or None."""
    ms = [m for m in _CLAUSE.finditer(s) if len(m.group(0).split()) >= 3]
    if not ms:
        return None
    m = rng.choice(ms)
    return s[: m.start()] + s[m.end():], m.group(0)


EDITS = ("number", "entity", "negation", "antonym")


def edit_sentence(s: str, doc_entities: list[str], rng: random.Random, which: str | None = None) -> tuple[str, str] | None:
    """One rule-made unsupported version of s: (edited, rule name)."""
    order = [which] if which else rng.sample(EDITS, len(EDITS))
    for rule in order:
        if rule == "number":
            out = change_number(s, rng)
        elif rule == "entity":
            out = swap_entity(s, doc_entities, rng)
        elif rule == "negation":
            out = flip_negation(s, rng)
        else:
            out = antonym(s, rng)
        if out and out != s:
            return out, rule
    return None


_WORD = re.compile(r"[a-z0-9]+")
_STOP = set("the a an of in on at to and or for by with from as is was are were be been that this it its his her their which who".split())


def _terms(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if w not in _STOP and len(w) > 2]


class Bm25:
    """A tiny BM25 over paragraphs (k1 1.2, b 0.75), for 'a sentence from another document on the same topic'."""

    def __init__(self, docs: list[str]):
        self.tfs = [Counter(_terms(d)) for d in docs]
        self.lens = [sum(t.values()) for t in self.tfs]
        self.avg = sum(self.lens) / max(1, len(self.lens))
        df: Counter = Counter()
        self.post: dict[str, list[int]] = defaultdict(list)
        for i, tf in enumerate(self.tfs):
            for w in tf:
                df[w] += 1
                self.post[w].append(i)
        n = len(docs)
        self.idf = {w: math.log(1 + (n - c + 0.5) / (c + 0.5)) for w, c in df.items()}

    def top(self, query: str, k: int = 5) -> list[int]:
        scores: dict[int, float] = defaultdict(float)
        for w in dict.fromkeys(_terms(query)):
            for i in self.post.get(w, ()):
                tf = self.tfs[i][w]
                scores[i] += self.idf[w] * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * self.lens[i] / self.avg))
        return [i for i, _ in sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))[:k]]


def source_documents() -> list[tuple[str, str]]:
    """(doc key, text) of the documents the rule-made pairs are cut from: SQuAD dev fit-half paragraphs
    (Wikipedia, CC BY-SA 4.0) and the distinct MuSiQue premises of factcg (CC BY 4.0)."""
    paras, _ = squad_fit()
    docs = [(k, paras[k]) for k in sorted(paras)]
    seen = set()
    for r in read_jsonl(FACTCG / "musique.jsonl"):
        p = r["premise"]
        if p not in seen and len(p) >= 200:
            seen.add(p)
            docs.append((f"musique#{len(seen)}", p))
    return docs


def hard_negative_pairs(rng: random.Random, per_doc: int = 6):
    """Rule-made pairs from source sentences against their document (see the module docstring)."""
    docs = source_documents()
    bm25 = Bm25([t for _, t in docs])
    pairs: list[Pair] = []
    for di, (key, text) in enumerate(docs):
        sents = [s for s in sentences(text) if 40 <= len(s) <= 400]
        if not sents:
            continue
        ents = _entities(text)
        for s in rng.sample(sents, min(per_doc, len(sents))):
            r = rng.random()
            if r < 0.30:  # positive: the sentence itself, or a weaker claim with one clause dropped
                dc = drop_clause(s, rng)
                if dc and rng.random() < 0.6:
                    pairs.append((dc[0].strip(), text, 1, "rule/clause_dropped_from_claim"))
                else:
                    pairs.append((s, text, 1, "rule/sentence_copy"))
            elif r < 0.82:
                e = edit_sentence(s, ents, rng)
                if e:
                    pairs.append((e[0], text, 0, f"rule/{e[1]}"))
            elif r < 0.92:  # the sentence against a BM25 neighbour paragraph of another document
                near = [i for i in bm25.top(s, 6) if i != di and docs[i][1] != text and s not in docs[i][1]]
                if near:
                    pairs.append((s, docs[near[0]][1], 0, "rule/bm25_neighbour"))
            else:  # a clause the claim states is dropped from the evidence
                dc = drop_clause(s, rng)
                if dc and dc[1].strip(" ,()") and dc[1].strip(" ,()") not in text.replace(s, ""):
                    pairs.append((s, text.replace(s, dc[0].strip()), 0, "rule/clause_dropped_from_evidence"))
    rng.shuffle(pairs)
    return pairs, _count(pairs)


def multi_sentence_pairs(rng: random.Random, per_doc: int = 2):
    """Two sentences of one document as a claim: both copied -> supported; one edited -> not."""
    pairs: list[Pair] = []
    for key, text in source_documents():
        sents = [s for s in sentences(text) if 30 <= len(s) <= 300]
        if len(sents) < 2:
            continue
        ents = _entities(text)
        for _ in range(per_doc):
            i, j = sorted(rng.sample(range(len(sents)), 2))
            a, b = sents[i], sents[j]
            if rng.random() < 0.5:
                pairs.append((f"{a} {b}", text, 1, "multi/both_supported"))
            else:
                k = rng.randrange(2)
                e = edit_sentence((a, b)[k], ents, rng)
                if e:
                    claim = f"{e[0]} {b}" if k == 0 else f"{a} {e[0]}"
                    pairs.append((claim, text, 0, f"multi/one_{e[1]}"))
    rng.shuffle(pairs)
    return pairs, _count(pairs)


# ------------------------------------------------------------------------ invented details (rule/detail)
_PREPS = ("in", "on", "at", "by", "with", "within", "for", "from", "during", "after", "before", "through",
          "under", "over", "via", "without", "until", "into", "against", "across", "near", "throughout")
_PP_STOP = set(_PREPS) | {"and", "or", "but", "which", "who", "whom", "that", "where", "when", "while", "as", "to",
                          "is", "was", "are", "were", "be", "been", "has", "have", "had", "because", "since", "than",
                          "if", "so", "not", "also"}
_CAUSAL = re.compile(r"\b(because|due to|caused|causes|cause|result|resulted|led to|leads to|therefore|thus|hence|"
                     r"consequently|so that|owing to|thanks to|reason|since|after|following)\b", re.I)
_SUBJ_VERB = re.compile(  # a short subject + its verb at the start of a sentence ("Refunds are paid", "Express delivery arrives")
    r"^(?:The |A |An )?[A-Z][\w'’-]*(?: [\w'’-]+){0,5}? (?:(?:is|are|was|were)(?: (?:also|often|usually|first|later|then|now))?"
    r" [a-z]+(?:ed|en|wn|nt|lt|ght|ung|ade|id|ld)|(?:has|have|had) been [a-z]+(?:ed|en|wn|nt|lt|ght)|[a-z]{3,}(?:ed|es))\b")
_PASSIVE = re.compile(r"\b(?:is|are|was|were) (?:(?:first|later|originally|also) )?[a-z]+(?:ed|en|wn|tten|ght|lt)\b(?! by\b)")
_BAD_START = set(_PREPS) | {"however", "according", "of", "although", "while", "despite", "born", "when", "if", "as",
                            "since", "because", "following", "unlike", "like", "once", "although", "though", "upon"}
_LATER_VERB = re.compile(r"\b(?:is|are|was|were|has|have|had|will|can|could|would|did|does)\b")
_LOWER_FIRST = {"The", "A", "An", "This", "These", "That", "Those", "It", "Its", "Their", "They", "He", "She", "His",
                "Her", "In", "On", "At", "By", "For", "After", "During", "Most", "Many", "Some", "Several", "Each"}


def prepositional_phrases(s: str) -> list[tuple[int, int, str]]:
    """(start, end, preposition) of the short prepositional phrases of s that are not sentence-initial: the
    preposition + up to 6 words, ending at punctuation, the end, or a word that starts another phrase or
    clause (another preposition, a conjunction, a relative pronoun, a form of 'be'). A phrase that runs
    past 6 words without such an end is skipped (its end is unclear)."""
    toks = list(re.finditer(r"\S+", s))
    out = []
    for i, t in enumerate(toks):
        prep = t.group(0).lower()
        if i == 0 or prep not in _PREPS:
            continue
        end, n, closed = None, 0, False
        for u in toks[i + 1 : i + 8]:
            word = u.group(0).rstrip(",.;:)!?\"'")
            if not word or word.lower() in _PP_STOP:
                closed = n > 0
                break
            n += 1
            end = u.start() + len(word)
            if word != u.group(0):  # punctuation after it
                closed = True
                break
            if n == 6:
                break
        if end is None:
            continue
        if not closed and end < len(s.rstrip(" .")):
            continue
        if not _terms(s[t.end() : end]) or re.search(r"[()\[\]\"“”]", s[t.start() : end]) \
                or s[:end].count("(") != s[:end].count(")"):
            continue
        out.append((t.start(), end, prep))
    return out


def detail_pairs(rng: random.Random, per_doc: int = 8, docs: list[tuple[str, str]] | None = None):
    """Claims that keep a true statement and add or replace one detail (issue 10: the model supported
    "Refunds are paid in cash." against "Refunds are paid within five business days of the return.").
    From the same source sentences as ``hard_negative_pairs`` (SQuAD dev fit half, MuSiQue premises), vs
    their document. A "foreign" phrase is a prepositional phrase of another document (preferably with
    the same preposition) whose words are mostly absent from this document.

    not supported:
    - ``rule/detail_short_foreign``: the sentence cut before one of its phrases after the verb + a foreign
      phrase: "Refunds are paid" + "in cash";
    - ``rule/detail_replaced``: the whole sentence with one phrase replaced by a foreign one;
    - ``rule/detail_added``: the sentence up to the end of a phrase + a foreign phrase of another preposition;
    - ``rule/detail_cause``: two neighbouring sentences joined by "because" (a cause the document does not
      state; neither sentence nor the text between them has a causal word);
    - ``rule/detail_agent``: a passive verb without an agent gets "by NAME", a name of the same document
      from another sentence (an invented author / maker).

    supported (the same shapes, so that the shape alone decides nothing):
    - ``rule/detail_short_kept``: the sentence cut after one of its phrases after the verb (a prefix of a
      true sentence: "Refunds are paid within five business days.");
    - ``rule/detail_and``: the same two neighbouring sentences joined by ", and".

    ``docs`` (key, text) replaces ``source_documents()`` (tests).
    """
    docs = source_documents() if docs is None else docs
    doc_sents = [[s for s in sentences(t) if 30 <= len(s) <= 300] for _, t in docs]
    pool: dict[str, list[tuple[str, int]]] = defaultdict(list)  # preposition -> (phrase, doc index)
    for di, sents in enumerate(doc_sents):
        for s in sents:
            for a, b, prep in prepositional_phrases(s):
                pool[prep].append((s[a:b], di))
    preps = sorted(pool)

    def foreign(di: int, prep: str | None, doc_terms: set[str], avoid: set[str] = frozenset()) -> str | None:
        for _ in range(8):
            p = prep if prep in pool and rng.random() < 0.8 else rng.choice(preps)
            if p in avoid:
                continue
            phrase, dj = rng.choice(pool[p])
            if dj == di or phrase.lower() in docs[di][1].lower():
                continue
            terms = _terms(phrase.split(" ", 1)[1]) if " " in phrase else []
            new = [w for w in terms if w not in doc_terms]
            if terms and 2 * len(new) >= len(terms):
                return phrase[0].lower() + phrase[1:]
        return None

    def end(text: str) -> str:
        return text.rstrip(" ,;:") + "."

    pairs: list[Pair] = []
    for di, (key, text) in enumerate(docs):
        sents = doc_sents[di]
        if not sents:
            continue
        doc_terms = set(_terms(text))
        ents = _entities(text)
        for si in rng.sample(range(len(sents)), min(per_doc, len(sents))):
            s = sents[si]
            sv = _SUBJ_VERB.match(s)
            if sv and (s.split(" ", 1)[0].lower().strip(",") in _BAD_START or "(" in sv.group(0)
                       or (" " not in sv.group(0).rsplit(" ", 2)[-2] and _LATER_VERB.search(s[sv.end() :].split(",")[0]))):
                sv = None  # not a subject, or a one-word "verb" that is more likely a plural noun ("two calves ... were")
            pps = prepositional_phrases(s)
            # phrases that follow the verb closely (at most 4 words between, no comma): the short shape
            near_verb = [pp for pp in pps if sv and pp[0] >= sv.end() and "," not in s[sv.end() : pp[0]]
                         and len(s[sv.end() : pp[0]].split()) <= 4]  # fmt: skip
            r = rng.random()
            if r < 0.45:  # the short shape: kept (supported) or a foreign phrase (not)
                if not near_verb:
                    continue
                a, b, prep = near_verb[0]
                if rng.random() < 0.5:
                    pairs.append((end(s[:b]), text, 1, "rule/detail_short_kept"))
                elif f := foreign(di, prep, doc_terms):
                    pairs.append((end(s[:a] + f), text, 0, "rule/detail_short_foreign"))
            elif r < 0.57:
                if pps and (f := foreign(di, (pp := rng.choice(pps))[2], doc_terms)):
                    pairs.append((s[: pp[0]] + f + s[pp[1] :], text, 0, "rule/detail_replaced"))
            elif r < 0.65:
                if pps and (f := foreign(di, None, doc_terms, avoid={p for _, _, p in pps})):
                    pairs.append((end(s[: rng.choice(pps)[1]] + " " + f), text, 0, "rule/detail_added"))
            elif r < 0.92:  # two neighbouring sentences: joined by "because" (not) or ", and" (supported)
                if si + 1 >= len(sents) or len(s) + len(sents[si + 1]) > 330:
                    continue
                t = sents[si + 1]
                i0, i1 = text.find(s), text.find(t)
                if i0 < 0 or i1 < i0 or _CAUSAL.search(text[i0 : i1 + len(t)]):
                    continue
                first = t.split(" ", 1)[0]
                t2 = (t[0].lower() + t[1:]) if first in _LOWER_FIRST else t
                if rng.random() < 0.5:
                    pairs.append((s.rstrip(" .") + " because " + t2, text, 0, "rule/detail_cause"))
                else:
                    pairs.append((s.rstrip(" .") + ", and " + t2, text, 1, "rule/detail_and"))
            else:
                m = _PASSIVE.search(s)
                others = " ".join(x for x in sents if x != s)
                names = [e for e in ents if e not in s and e in others and len(e.split()) >= 2]
                if m and names and s[: m.end()].count("(") == s[: m.end()].count(")"):
                    pairs.append((end(s[: m.end()] + " by " + rng.choice(names)), text, 0, "rule/detail_agent"))
    rng.shuffle(pairs)
    return pairs, _count(pairs)


# ------------------------------------------------------------------- kinds the blind sets keep showing
# The one-line cases written without looking at the rules (bench/data/unseen_cases, sets 2 and 6) are
# missed by the model in the same few kinds, each in wordings no rule was written for: who did a deed to
# whom turned round, a plan stated as done (and the reverse), a condition left out, a part made the whole,
# "may" made "must". These pairs teach the kinds from many real sentences instead of one wording each.
_SYMMETRIC = {"met", "married", "played", "faced", "fought", "drew", "tied", "merged", "partnered",
              "collaborated", "competed", "debated", "negotiated", "shared", "divorced", "allied"}
_PAST_BASE = {
    "acquired": "acquire", "adopted": "adopt", "announced": "announce", "appointed": "appoint",
    "approved": "approve", "banned": "ban", "bought": "buy", "built": "build", "closed": "close",
    "completed": "complete", "constructed": "construct", "created": "create", "defeated": "defeat",
    "designed": "design", "developed": "develop", "discovered": "discover", "elected": "elect",
    "established": "establish", "expanded": "expand", "founded": "found", "hired": "hire",
    "introduced": "introduce", "invaded": "invade", "invented": "invent", "launched": "launch",
    "opened": "open", "produced": "produce", "published": "publish", "purchased": "purchase",
    "recorded": "record", "released": "release", "removed": "remove", "renamed": "rename",
    "replaced": "replace", "signed": "sign", "sold": "sell", "started": "start", "wrote": "write",
    "captured": "capture", "conquered": "conquer", "destroyed": "destroy", "restored": "restore",
}
_BASE_PAST = {b: a for a, b in _PAST_BASE.items()}
_PLAN = ("plans to", "will", "intends to", "is expected to", "is set to", "proposed to")
_PLAN_RE = re.compile(r"\b(plans to|planned to|will|intends to|intended to|is expected to|was expected to|"
                      r"is set to|are expected to|proposed to|hopes to|hoped to) (" + "|".join(sorted(_BASE_PAST)) + r")\b")
_DONE_RE = re.compile(r"\b(" + "|".join(sorted(_PAST_BASE)) + r")\b")
_PASSIVE_DONE_RE = re.compile(r"\b(was|were) (" + "|".join(sorted(_PAST_BASE)) + r")\b")
_SUBJECT_RE = re.compile(r"(?:(?:The|A|An|Its|His|Her|Their) )?(?:[A-Z][\w'.-]*|[a-z]+)(?: [A-Z][\w'.-]*){0,3} |(?:He|She|They|It|We) ")
_CONDITION_RE = re.compile(r",?\s+\b(if|unless|only if|only when|provided that|as long as|on condition that|"
                           r"except when|until)\b[^,.;]{6,}")
_QUANTIFIERS = (
    (r"\bsome\b(?! (?:\d|time|years?\b|point))", "all"), (r"\bmany\b", "all"), (r"\bseveral\b", "all"), (r"\bmost of\b", "all of"),
    (r"\bsometimes\b", "always"), (r"\boften\b", "always"), (r"\busually\b", "always"),
    (r"\brarely\b", "never"), (r"\bmay\b", "must"), (r"\bmight\b", "will"), (r"\bcan\b", "must"),
    (r"\bcould\b", "would"), (r"\bpartly\b", "entirely"), (r"\bpartially\b", "fully"),
)


def swap_roles(s: str, rng: random.Random) -> str | None:
    """'A <verb-ed> B' with two names of the sentence -> 'B <verb-ed> A' (not for deeds two do to each other)."""
    ents = [e for e in _entities(s) if s.count(e) == 1]
    options = []
    for a in ents:
        for b in ents:
            i, j = s.find(a), s.find(b)
            if a == b or j <= i + len(a) or a in b or b in a:
                continue
            between = s[i + len(a) : j]
            words = between.split()
            if not 1 <= len(words) <= 4 or re.search(r"[,;:()]", between) or " and " in between:
                continue
            if not any(w.endswith("ed") or w in _PAST_BASE for w in words) or set(words) & _SYMMETRIC:
                continue
            options.append((i, j, a, b))
    if not options:
        return None
    i, j, a, b = rng.choice(options)
    return s[:i] + b + s[i + len(a) : j] + a + s[j + len(b) :]


def plan_or_done(s: str, rng: random.Random) -> tuple[str, str] | None:
    """(edited, rule): a plan stated as done ('plans to build' -> 'built') or a deed as only planned
    ('built' -> 'plans to build', 'was opened' -> 'will be opened')."""
    if m := _PLAN_RE.search(s):
        return s[: m.start()] + _BASE_PAST[m.group(2)] + s[m.end() :], "plan_as_done"
    if m := _PASSIVE_DONE_RE.search(s):
        return s[: m.start()] + "will be " + m.group(2) + s[m.end() :], "done_as_plan"
    # an active deed right after its subject ('Northwind acquired', 'The council approved'): a participle
    # elsewhere ('an album released in 1983') would make a broken sentence, a label the grammar gives away
    if (m := _DONE_RE.search(s)) and _SUBJECT_RE.fullmatch(s[: m.start()]):
        return s[: m.start()] + rng.choice(_PLAN) + " " + _PAST_BASE[m.group(1)] + s[m.end() :], "done_as_plan"
    return None


def drop_condition(s: str) -> str | None:
    """The sentence without its condition ('..., unless the ticket was bought online'): stated outright."""
    m = _CONDITION_RE.search(s)
    if not m or m.start() < 15:
        return None
    out = (s[: m.start()] + s[m.end() :]).strip()
    return out if len(out.split()) >= 4 else None


def widen_quantifier(s: str, rng: random.Random) -> str | None:
    """A part made the whole or a possibility an obligation ('some' -> 'all', 'may' -> 'must')."""
    # lower case only: "May" is a month, a capital "Some" starts a sentence the claim then starts with "All"
    options = [(m, rep) for pat, rep in _QUANTIFIERS for m in re.finditer(pat, s)]
    if not options:
        return None
    m, rep = rng.choice(options)
    return s[: m.start()] + _keep_case(m.group(0), rep) + s[m.end() :]


def kinds_pairs(rng: random.Random, per_doc: int = 4, docs: list[tuple[str, str]] | None = None):
    """Role swaps, plans as deeds (and back), dropped conditions, widened quantifiers -> not supported;
    the same cue-bearing sentences copied (and with a non-condition clause dropped) -> supported, so a
    cue word alone ('plans to', 'if', 'some') never decides the label."""
    pairs: list[Pair] = []
    for key, text in docs if docs is not None else source_documents():
        sents = [s for s in sentences(text) if 30 <= len(s) <= 400]
        if not sents:
            continue
        for s in rng.sample(sents, min(per_doc, len(sents))):
            made = []
            if out := swap_roles(s, rng):
                made.append((out, "rule/kinds_role_swap"))
            if out := plan_or_done(s, rng):
                made.append((out[0], f"rule/kinds_{out[1]}"))
            if out := drop_condition(s):
                made.append((out, "rule/kinds_condition_dropped"))
            if out := widen_quantifier(s, rng):
                made.append((out, "rule/kinds_quantifier"))
            made = [(c, k) for c, k in made if c != s and c not in text]
            if not made:
                continue
            if rng.random() < 0.35:  # the cue-bearing sentence itself: supported
                dc = drop_clause(s, rng)
                keep = dc and not _CONDITION_RE.search(dc[1]) and rng.random() < 0.4
                pairs.append(((dc[0].strip() if keep else s), text, 1, "rule/kinds_copy"))
            else:
                claim, kind = rng.choice(made)
                pairs.append((claim, text, 0, kind))
    rng.shuffle(pairs)
    return pairs, _count(pairs)


# ------------------------------------------------------------------- strong words, supported too
# Stage 6k's 'kinds' widened "some" -> "all" and "may" -> "must" as its only pairs whose claim says "all" or
# "must", all of them not supported, and the model learned the word instead of the kind: "All orders over
# 50 euros ship free." got P 0.07 against the same sentence in its source. These pairs show the strong words
# (all, every, must, always, never, only, fully) supported where the source says as much, said another way
# where the source says it another way ("are required to pay" -> "must pay"; "Only members vote" ->
# "Members vote"), and not supported where the claim says the opposite ("must" -> "need not", "always" ->
# "never", "every" -> "no"), so the word alone decides nothing.
_STRONG_RE = re.compile(r"\b(all|every|each|must|always|never|only|entirely|fully|none|All|Every|Each|Only)\b")
_OBLIGATION_RE = re.compile(r"\b(?:is|are) (?:required|obliged|obligated) to\b|\b(?:has|have) to\b")
_STRONG_OPPOSITE = (
    (r"\bmust not\b", "may"), (r"\bmust never\b", "may"), (r"\bmust\b", "need not"),
    (r"\balways\b", "never"), (r"\bnever\b", "always"), (r"\bevery\b", "no"), (r"\ball of the\b", "none of the"),
    (r"^All\b", "Not all"), (r"\bentirely\b", "partly"), (r"\bfully\b", "partially"),
)


def strong_restated(s: str) -> tuple[str, str] | None:
    """(claim, rule) that says what s says with a strong word: an obligation as "must", or "only" left out
    (a weaker claim the sentence still supports: "Only members vote" supports "Members vote")."""
    if m := _OBLIGATION_RE.search(s):
        return s[: m.start()] + "must" + s[m.end() :], "strong_must_restated"
    if (m := re.search(r"\b[Oo]nly (?=[a-z])", s)) and not re.search(r"\b(?:not|the|an?) only\b", s, re.I):
        out = s[: m.start()] + s[m.end() :]
        return (out[:1].upper() + out[1:] if m.start() == 0 else out), "strong_only_dropped"
    return None


def strong_opposite(s: str) -> str | None:
    """s with a strong word turned into its opposite ("must" -> "need not", "always" -> "never")."""
    for pat, rep in _STRONG_OPPOSITE:
        if m := re.search(pat, s):
            return s[: m.start()] + rep + s[m.end() :]
    return None


def strong_pairs(rng: random.Random, per_doc: int = 4, docs: list[tuple[str, str]] | None = None):
    """Sentences with a strong word: copied or restated -> supported; that word turned round -> not."""
    pairs: list[Pair] = []
    for key, text in docs if docs is not None else source_documents():
        sents = [s for s in sentences(text) if 30 <= len(s) <= 400 and (_STRONG_RE.search(s) or _OBLIGATION_RE.search(s))]
        for s in rng.sample(sents, min(per_doc, len(sents))):
            r = rng.random()
            restated, opposite = strong_restated(s), strong_opposite(s)
            if r < 0.3 and restated and restated[0] not in text:
                pairs.append((restated[0], text, 1, f"rule/{restated[1]}"))
            elif r < 0.75 and opposite and opposite != s and opposite not in text:
                pairs.append((opposite, text, 0, "rule/strong_opposite"))
            else:
                dc = drop_clause(s, rng) if rng.random() < 0.3 else None
                keep = dc and _STRONG_RE.search(dc[0]) and not _CONDITION_RE.search(dc[1])
                pairs.append(((dc[0].strip() if keep else s), text, 1, "rule/strong_copy"))
    rng.shuffle(pairs)
    return pairs, _count(pairs)


WRITTEN = REPO / "training" / "data" / "written"


def is_written_holdout(source: str) -> bool:
    """A fifth of the written sources, chosen by text (stable whatever the file order), never trained on."""
    return int(hashlib.sha1(source.strip().encode("utf-8")).hexdigest(), 16) % 5 == 0


def written_rows(holdout: bool = False) -> list[dict]:
    """The written pairs of the training part (or, with holdout, the held-out part), in file order."""
    rows = []
    for path in sorted(WRITTEN.glob("*.jsonl")):
        for row in read_jsonl(path):
            if is_written_holdout(row["source"]) == holdout:
                rows.append(row)
    return rows


def written_pairs(rng: random.Random):
    """The written training pairs as they are (fixed data: a draw is a shuffled repeat)."""
    pairs: list[Pair] = [(r["claim"], r["source"], int(r["label"] == "supported"), f"written/{r.get('kind', 'other')}")
                         for r in written_rows()]  # fmt: skip
    rng.shuffle(pairs)
    return pairs, _count(pairs)


GENERATORS = {
    "factcg": factcg_pairs,
    "squad_claims": squad_claim_pairs,
    "hard_negatives": hard_negative_pairs,
    "multi_sentence": multi_sentence_pairs,
    "detail": detail_pairs,
    "kinds": kinds_pairs,
    "strong": strong_pairs,
    "written": written_pairs,
}


def all_generated(seed: int, names: list[str] | None = None) -> tuple[dict[str, list[Pair]], dict]:
    out, counts = {}, {}
    for name in names or list(GENERATORS):
        pairs, c = GENERATORS[name](random.Random(f"{seed}:{name}"))
        out[name], counts[name] = pairs, c
    return out, counts


if __name__ == "__main__":
    gen, counts = all_generated(13)
    for name, pairs in gen.items():
        print(f"{name}: {len(pairs)} pairs")
        for kind, c in counts[name].items():
            print(f"    {kind}: {c}")
        rng = random.Random(0)
        for c, e, y, k in rng.sample(pairs, min(4, len(pairs))):
            print(f"      [{k} y={y}] {c[:200]!r}")
