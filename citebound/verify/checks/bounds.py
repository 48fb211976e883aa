"""Bounds turned around: "at least 2 hours" where the source says "up to 2 hours".

"The chicken should be marinated for at least 2 hours" against "Marinate the chicken for up to 2 hours";
"Students can borrow more than 12 books" against "may borrow up to 12 books": the number is in the source
with the claim's unit, so the numbers check (checks/numbers.py), which reads a bound loosely ("more than 12"
is met by a source's 15), passes it, and the entailment model supported both (P = 0.94, 0.67). A bound has a
direction: "more than / over / at least / no fewer than" from below, "up to / under / at most / no more than"
from above. The claim's bound is turned around when the source states the same value, in the same
measure, only with the other direction, never plainly or with the claim's, and the claim is the source's
statement with that bound turned: every word of it in the source's sentence, the same word before both bounds
("borrow more than" / "borrow up to"), nothing negated in either. Left alone, because the claim may speak of
what lies beyond the bound: a source sentence that says so ("heavier bags incur a charge", "any longer",
"everyone else"), a bound on a group ("Children over 5 pay"), a consequence after the claim's bound ("above
25°C can damage them"), a particle ("carry over 5 days"). A review (74 faithful, 32 false cases,
2026-12-03) found the first version blocking 43 faithful claims; this one blocks none of them and 13 false.

The cascade runs it in the numbers stage; a conflict makes the source `unsupported` whatever a model says.
"""

from __future__ import annotations

import re

from citebound.text.numbers import extract_numbers, value_measure
from citebound.text.sentences import sentence_spans
from citebound.text.stem import STOP_WORDS, stem

_DIRECTIONS = {"at_least": "at_most", "at_most": "at_least"}
# a source that says what lies beyond its bound: the claim may speak of that
_BEYOND = re.compile(r"\b(?:else|otherwise|heavier|larger|longer|bigger|greater|higher|beyond|excess|exceed\w*|only|"
                     r"rest|other|others|remaining|more|fewer|less|lighter|smaller|shorter|lower)\b", re.IGNORECASE)
# a bound that names a group: "Children over 5", "orders over $50", "people aged over 65"
_GROUP = re.compile(r"\b(?:children|adults|people|persons|orders|dogs|bags|players|guests|patients|students|pupils|"
                    r"passengers|members|customers|visitors|those|anyone|aged|ages?)\s+(?:\w+\s+)?$", re.IGNORECASE)
_BOUND_WORDS = re.compile(r"(?:\b(?:more|less|fewer)\s+than|\b(?:at\s+(?:least|most)|up\s+to|no\s+more\s+than|"
                          r"over|under|above|below|exceeding))\s*$", re.IGNORECASE)
# the same words anywhere, taken out of a text before its words are compared ("least" of "at least" is no word)
_BOUND_PHRASE = re.compile(r"\b(?:at\s+(?:least|most)|up\s+to|(?:no\s+)?(?:more|less|fewer)\s+than|a\s+(?:minimum|maximum)"
                           r"\s+of|over|under|above|below|exceeding)\b", re.IGNORECASE)
# after the claim's bound, what happens beyond it ("above 25°C can damage them")
_CONSEQUENCE = re.compile(r"\b(?:can|could|may|might|will|would|must|should|causes?|leads?|makes?|needs?|requires?|"
                          r"incurs?|is|are)\b", re.IGNORECASE)
_PARTICLE = re.compile(r"\b(?:carry|carried|carries|hand|handed|take|taken|took|roll|rolled|turn|turned|pass|passed|"
                       r"hold|held|stay|stayed|look|looked|think|thought|left|get|got)\s+(?:over|under)\s*$", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+")
_NEGATED = re.compile(r"\b(?:not|never|cannot|nobody|none|no)\b|n't\b", re.IGNORECASE)


def _word_before(text: str, start: int) -> str:
    """The stem of the word before a bounded value's bound ("borrow" in "borrow more than 12")."""
    head = text[max(0, start - 60) : start]
    if b := _BOUND_WORDS.search(head):
        head = head[: b.start()]
    words = _WORD.findall(head)
    return stem(words[-1].casefold()) if words else ""


def _content(text: str) -> set[str]:
    return {stem(w.casefold()) for w in _WORD.findall(text) if w.casefold() not in STOP_WORDS and len(w) > 1}


def reversed_bounds(claim: str, evidence: str) -> list[str]:
    """Each claim bound the evidence states the other way round, as a readable phrase; [] when none."""
    c_mentions = [m for m in extract_numbers(claim, ambiguous_words=False) if m.hedge in _DIRECTIONS]
    if not c_mentions:
        return []
    if _NEGATED.search(claim):
        return []  # "cannot borrow more than 12 books", "more than 12 is not allowed": a bound from above
    e_mentions = extract_numbers(evidence)  # with their hedges: sources are usually read without
    claim_words = _content(_BOUND_PHRASE.sub(" ", claim))  # "least" of "at least" is the bound's, not a word
    out = []
    for m in c_mentions:
        if _PARTICLE.search(claim[max(0, m.start - 20) : m.start]):
            continue  # "carry over 5 days": no bound
        measure = value_measure(claim, m)[0]
        same = [o for o in e_mentions if m.keys & o.keys and o.kind == m.kind
                and (not measure or value_measure(evidence, o)[0] in (measure, ""))]  # fmt: skip
        if not same or not all(o.hedge == _DIRECTIONS[m.hedge] for o in same):
            continue
        # the claim is the source's statement with its bound turned: every word of it in the sentence of the
        # source's bound, which negates nothing ("Borrowing more than 12 books incurs a fee" speaks of what lies
        # beyond the limit; "Members cannot borrow more than 12" restates "up to 12")
        sentence = next((evidence[a:b] for a, b in sentence_spans(evidence) if a <= same[0].start < b), evidence)
        if not claim_words <= _content(_BOUND_PHRASE.sub(" ", sentence)) or _NEGATED.search(sentence) \
                or _BEYOND.search(sentence):  # fmt: skip
            continue  # "heavier bags incur a charge", "any longer and it will overcook", "everyone else pays"
        # ... and bounds what the source's bound bounds: the same word before both ("borrow more than 12" /
        # "borrow up to 12"), not a group the claim names ("Children over 5 pay" / "children under 5 go free")
        mine, theirs = _word_before(claim, m.start), _word_before(evidence, same[0].start)
        if mine and mine == theirs and not _GROUP.search(claim[max(0, m.start - 40) : m.start]) \
                and not _CONSEQUENCE.search(claim, m.end):  # "Storing them above 25°C can damage them"
            shown = evidence[max(0, same[0].start - 12) : same[0].end].split()
            out.append(f"the source bounds {m.text!r} the other way ({' '.join(shown[-3:])!r})")
    return out
