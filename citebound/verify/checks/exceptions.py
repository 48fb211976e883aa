"""The exception check: a claim must not state of a thing what its source states of everything but it.

"The warranty covers water damage" against "The warranty covers everything except water damage": every
word of the claim is in its source, so word overlap (and, measured, the entailment model) calls it
supported. This rule reads, in each sentence of the best evidence window, an exception (`except`,
`except for`, `excluding`, `other than`, `apart from`, `with the exception of`, `but not`, `save for`)
and the phrase after it up to the next punctuation, and finds a conflict when

- the claim names something only the exception names (a content word in the phrase, not before it), and
- every content word of the claim is in that sentence's clause: what comes before the exception (the
  statement it is excepted from) or the phrase itself; so the claim says the clause's very statement
  of the excepted thing ("closed on Mondays" against "open every day except Mondays" says something
  else, and is left to the other stages), and
- neither the claim nor the clause before the exception is negated, the claim states no exception
  of its own, and no other clause of the window (a sentence, or part of one between semicolons) states
  every content word of the claim without an exception.

Restated (`restated_by_exception`): "The museum is closed on Mondays" against "The museum is open every day
except Mondays" says the clause's statement of the excepted thing with the opposite word, which word
overlap cannot see ("closed" is not in the source); the lexical stage reads it as supported.

The other way round (`affirmed_by_exception`): "not allowed anywhere except the lobby" makes the lobby the
one place it is allowed, so "Pets are allowed in the lobby" is what it says; the negation rule, which
would read "allowed" against "not allowed", skips such a window.

The cascade runs it with the negation rule; a conflict makes the source `unsupported` (stage
`exception`) whatever a model says.
"""

from __future__ import annotations

import re

from citebound.text.sentences import sentence_spans
from citebound.text.stem import STOP_WORDS, stem
from citebound.text.tokenize import tokens
from citebound.verify.checks.negation import CLAUSE_NEGATIONS, states_negation
from citebound.verify.checks.scope import EXCEPTION_WORDS, restating_clauses

_EXCEPT = re.compile(rf"\b(?:{EXCEPTION_WORDS})\b", re.IGNORECASE)
_PHRASE_END = re.compile(r"[,.;:!?()\[\]]|\s(?:and|or)\s+(?:is|are|was|were|can|will|may|must|has|have)\b")
_CLAUSE_START = re.compile(r"[;:]")


_INCLUSION = frozenset(stem(w) for w in ("including", "include", "also", "even", "plus"))


def _stems(text: str) -> set[str]:
    return {stem(t) for t in tokens(text) if t.isalpha() and t not in STOP_WORDS and t not in CLAUSE_NEGATIONS}


def _negated(text: str) -> bool:
    return states_negation(tokens(text))


def _exceptions(evidence: str):
    """(the exception's words, the phrase, the clause before it as text) of each exception in `evidence`."""
    for s_start, s_end in sentence_spans(evidence):
        sentence = evidence[s_start:s_end]
        for m in _EXCEPT.finditer(sentence):
            end = _PHRASE_END.search(sentence, m.end())
            phrase = sentence[m.end() : end.start() if end else len(sentence)]
            starts = [c.end() for c in _CLAUSE_START.finditer(sentence, 0, m.start())]
            yield m.group(0).lower(), phrase, sentence[starts[-1] if starts else 0 : m.start()]


def excepted_words(evidence: str) -> set[str]:
    """The content-word stems the evidence's exceptions name ("except Mondays": {"monday"})."""
    if not _EXCEPT.search(evidence):
        return set()
    return {w for _, phrase, _ in _exceptions(evidence) for w in _stems(phrase)}


def affirmed_by_exception(claim: str, evidence: str) -> bool:
    """True when the evidence denies something of everything except what the claim names, so that the
    claim's statement is the one the evidence makes: "Pets are allowed in the lobby" against "Pets are
    not allowed anywhere except the lobby". The negation rule must not read that as a contradiction."""
    if not _EXCEPT.search(evidence) or _EXCEPT.search(claim) or _negated(claim):
        return False
    claimed = _stems(claim)
    for _, phrase, before in _exceptions(evidence):
        if not _negated(before):
            continue
        excepted, stated = _stems(phrase), _stems(before)
        if (claimed & excepted) - stated and claimed <= stated | excepted:
            return True
    return False


def denied_by_exception(claim: str, evidence: str) -> bool:
    """True when the evidence states something of everything except what the claim names, and the claim
    denies it of that: "Year 13 students don't have to wear uniform" against "All pupils must wear uniform on
    trips, except Year 13 students" restates the exception (the mirror of `affirmed_by_exception`)."""
    if not _EXCEPT.search(evidence) or _EXCEPT.search(claim) or not _negated(claim) or _PROHIBITS.search(claim):
        return False  # "must not wear": a prohibition, which no exception from a rule states
    claimed = _stems(claim) - _NEGATION_STEMS
    numbers = set(re.findall(r"\d+", claim))
    for _, phrase, before in _exceptions(evidence):
        if _negated(before) or not numbers <= set(re.findall(r"\d+", phrase + " " + before)):
            continue  # "Year 9 pupils" are not the excepted "Year 10 pupils"
        excepted, stated = _stems(phrase), _stems(before)
        if (claimed & excepted) - stated and claimed <= stated | excepted:
            return True
    return False


_PROHIBITS = re.compile(r"\b(?:must\s+not|mustn't|cannot|can't|may\s+not|shall\s+not|is\s+not\s+allowed|are\s+not\s+allowed|"
                        r"never)\b", re.IGNORECASE)
_NEGATION_STEMS = frozenset({"not", "no", "never", "don't", "doesn't", "didn't", "isn't", "aren't", "won't", "cannot",
                             "can't", "need", "needn't", "have", "has", "to"})


def exception_conflicts(claim: str, evidence: str) -> list[str]:
    """Each exception of the evidence that the claim states the excepted thing against, as a readable
    phrase; empty when there is none or the rule cannot relate them."""
    if not _EXCEPT.search(evidence) or _EXCEPT.search(claim) or _negated(claim):
        return []
    # "including" / "also" / "even" say the claim counts the excepted thing in: no word of a statement
    claimed = _stems(claim) - _INCLUSION
    if not claimed or any(not _EXCEPT.search(c) for c in restating_clauses(evidence, claimed)):
        return []  # another clause states it with no exception ("...; interns get a bonus in June")
    out = []
    for word, phrase, before in _exceptions(evidence):
        if _negated(before):
            continue
        excepted, stated = _stems(phrase), _stems(before)
        if (claimed & excepted) - stated and claimed <= stated | excepted:
            out.append(f"the source states it of everything {word} {phrase.strip()!r}")
    return out


def restated_by_exception(claim: str, evidence: str) -> str | None:
    """The exception of the evidence that the claim states with the opposite word, as written: "The museum
    is closed on Mondays" against "The museum is open every day except Mondays" (the claim's one word the
    clause lacks is the opposite of one it states, the rest is the clause's and names the excepted
    thing). Word overlap cannot see that ("closed" is not in the source); the lexical stage reads it as
    supported. None when there is none."""
    if not _EXCEPT.search(evidence) or _EXCEPT.search(claim) or _negated(claim):
        return None
    from citebound.verify.checks.opposites import OPPOSITES  # (opposites imports this module lazily too)

    claimed = _stems(claim)
    for word, phrase, before in _exceptions(evidence):
        if _negated(before):
            continue
        excepted, stated = _stems(phrase), _stems(before)
        flipped = {c for c in claimed - stated - excepted if OPPOSITES.get(c, frozenset()) & stated}
        if len(flipped) == 1 and claimed & excepted and claimed - flipped <= stated | excepted:
            return " ".join(f"{before.strip()} {word} {phrase.strip()}".split())
    return None
