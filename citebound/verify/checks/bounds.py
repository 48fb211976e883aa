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

Two more readings of bounds (2026-12-03, each reviewed by a helper's faithful and false cases):

- People on the other side of an age bound: "Children over 12 travel free" against "Under-12s travel free" or
  "Children under 12 travel free", when the clause naming the age group holds every word and number of the
  claim, negates nothing and speaks of no other people ("older children pay half" is another clause).
- A denied "more than" restates an upper bound (`denied_beyond_bound`): "Members cannot borrow more than 12 books"
  against "Members may borrow up to 12 books at a time", which the negation check read as "cannot borrow" against
  "borrow". Only when the limit's sentence says no more than the claim but its subject (no "On the free plan,",
  "per region", "usually"), negates nothing, gives no other limit, and no other sentence speaks of the same
  deed or of going past a limit ("Premium members may borrow up to 20"). The model then reads the source's
  "up to 12" as "no more than 12" (`denied_bound_as_in`).
"""

from __future__ import annotations

import re

from citebound.text.numbers import (
    PEOPLE_WORDS,
    blank_spans,
    bound_after,
    extract_numbers,
    names_age_group,
    value_measure,
)
from citebound.text.sentences import sentence_spans
from citebound.text.stem import STOP_WORDS, stem

_DIRECTIONS = {"at_least": "at_most", "at_most": "at_least"}
# a source that says what lies beyond its bound: the claim may speak of that
_BEYOND = re.compile(r"\b(?:else|otherwise|heavier|larger|longer|bigger|greater|higher|beyond|excess|exceed\w*|only|"
                     r"rest|other|others|remaining|more|fewer|less|lighter|smaller|shorter|lower)\b", re.IGNORECASE)
# a bound that names a group: "Children over 5", "orders over $50", "people aged over 65"
_GROUP = re.compile(r"\b(?:children|adults|people|persons|orders|dogs|bags|players|guests|patients|students|pupils|"
                    r"passengers|members|customers|visitors|those|anyone|aged|ages?)\s+(?:\w+\s+)?$", re.IGNORECASE)
_BOUND_WORDS = re.compile(r"(?:\bnot\s+more\s+than|\b(?:a\s+)?maximum\s+of|\b(?:more|less|fewer)\s+than|"
                          r"\b(?:at\s+(?:least|most)|up\s+to|no\s+more\s+than|over|under|above|below|exceeding|"
                          r"longer\s+than))\s*$", re.IGNORECASE)
# the same words anywhere, taken out of a text before its words are compared ("least" of "at least" is no word)
_BOUND_PHRASE = re.compile(r"\b(?:at\s+(?:least|most)|up\s+to|(?:no\s+)?(?:more|less|fewer)\s+than|a\s+(?:minimum|maximum)"
                           r"\s+of|over|under|above|below|exceeding)\b", re.IGNORECASE)
# after the claim's bound, what happens beyond it ("above 25°C can damage them")
_CONSEQUENCE = re.compile(r"\b(?:can|could|may|might|will|would|must|should|causes?|leads?|makes?|needs?|requires?|"
                          r"incurs?|is|are)\b", re.IGNORECASE)
_PARTICLE = re.compile(r"\b(?:carry|carried|carries|hand|handed|take|taken|took|roll|rolled|turn|turned|pass|passed|"
                       r"hold|held|stay|stayed|look|looked|think|thought|left|get|got)\s+(?:over|under)\s*$", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+")
# a clause of a sentence: up to ";", ",", "and", "but", "while", "whereas"
_CLAUSE = re.compile(r"(?:(?!\b(?:and|but|while|whereas)\b)[^;,])+", re.IGNORECASE)
_NEGATED = re.compile(r"\b(?:not|never|cannot|nobody|none|no)\b|n't\b", re.IGNORECASE)


def _word_before(text: str, start: int, skip: frozenset[str] = frozenset()) -> str:
    """The stem of the word before a bounded value's bound ("borrow" in "borrow more than 12"), past any word
    in `skip` ("stay for up to 14")."""
    head = text[max(0, start - 60) : start]
    if b := _BOUND_WORDS.search(head):
        head = head[: b.start()]
    words = [w for w in _WORD.findall(head) if w.casefold() not in skip] if skip else _WORD.findall(head)
    return stem(words[-1].casefold()) if words else ""


def _content(text: str) -> set[str]:
    return {stem(w.casefold()) for w in _WORD.findall(text) if w.casefold() not in STOP_WORDS and len(w) > 1}


def _without_bounds_after(text: str) -> str:
    """`text` with each bound written after its number blanked, offsets kept: "aged 70 or older" holds no "or"
    clause and no word "older"."""
    after = (bound_after(text, n.start, n.end) for n in extract_numbers(text, hedges=False))
    return blank_spans(text, [a.span() for a in after if a])


def _sentence_span(text: str, position: int) -> tuple[int, int]:
    return next(((a, b) for a, b in sentence_spans(text) if a <= position < b), (0, len(text)))


def _sentence_at(text: str, position: int) -> str:
    a, b = _sentence_span(text, position)
    return text[a:b]


# a clause that speaks of people past the bound too: "Under-12s travel free with an adult; others pay"
_OTHER_PEOPLE = re.compile(r"\b(?:else|otherwise|older|younger|elder|other|others|rest|remaining|only|everyone|"
                           r"anyone|beyond|above|below|more|fewer|less)\b", re.IGNORECASE)
# people bounded by age in a source: "Children under 12", "patients aged over 65", "those over 18"
_PEOPLE_BOUND = re.compile(rf"\b(?:{'|'.join(PEOPLE_WORDS)}|aged)\s+(?:[^\W\d_]+\s+)?$", re.IGNORECASE)


def _people_group(text: str, mention) -> bool:
    return names_age_group(text, mention) or bool(_PEOPLE_BOUND.search(text[max(0, mention.start - 40) : mention.start]))


# verbs of going or getting in, one deed where a fare or an entry is spoken of ("go free", "travel free")
_GOING = frozenset(stem(w) for w in "go goes travel travels ride rides get gets enter enters come comes fly flies".split())


def _other_age_group(claim: str, m, evidence: str, same: list, claim_words: set[str]) -> str | None:
    """The source's age group when the claim says what the source says of it, of the people on the bound's other
    side: "Children over 12 travel free" against "Under-12s travel free" or "Children under 12 travel free" (a
    group the source never names)."""
    if not (_people_group(claim, m) or _GROUP.search(claim[max(0, m.start - 40) : m.start])):
        return None  # "Tickets cost over 12 pounds": no group of people
    # the clause that speaks of the age group: "Under-16s pay £5" of "Under-16s pay £5 and older visitors pay £10"
    offset, end = _sentence_span(evidence, same[0].start)
    unbounded = _without_bounds_after(evidence[offset:end])  # "aged 70 or older": no "or" clause
    clause = next((c.group() for c in _CLAUSE.finditer(unbounded)
                   if c.start() <= same[0].start - offset < c.end()), unbounded)  # fmt: skip
    people = {stem(w) for w in PEOPLE_WORDS} | {"age", "ag"}  # "Children aged over 12"
    plain = _BOUND_PHRASE.sub(" ", clause)  # less its own bound
    said = _content(plain)
    if said & _GOING:  # "go free" / "travel free" / "ride free": one deed of getting somewhere or in
        claim_words = claim_words - _GOING
    if not claim_words - people <= said or _NEGATED.search(clause) or _OTHER_PEOPLE.search(plain):
        return None  # "Under-12s may not travel alone", "Under-12s travel free with an adult; others pay"
    numbers = extract_numbers(clause)
    if not all(any(c.keys & n.keys for n in numbers) for c in extract_numbers(claim, ambiguous_words=False)):
        return None  # "Visitors over 16 pay £10" / "Under-16s pay £5 and older visitors pay £10"
    return " ".join(evidence[max(0, same[0].start - 16) : same[0].end].split()[-2:])


def reversed_bounds(claim: str, evidence: str) -> list[str]:
    """Each claim bound the evidence states the other way round, as a readable phrase; [] when none."""
    c_mentions = [m for m in extract_numbers(claim, ambiguous_words=False) if m.hedge in _DIRECTIONS]
    if not c_mentions:
        return []
    if _NEGATED.search(claim):
        return []  # "cannot borrow more than 12 books", "more than 12 is not allowed": a bound from above
    e_mentions = extract_numbers(evidence)  # with their hedges: sources are usually read without
    # "least" of "at least", "older" of "65 or older" are the bound's, not words
    claim_words = _content(_BOUND_PHRASE.sub(" ", _without_bounds_after(claim)))
    out = []
    for m in c_mentions:
        if _PARTICLE.search(claim[max(0, m.start - 20) : m.start]):
            continue  # "carry over 5 days": no bound
        # people of an age: what follows the number is no measure ("Adults under 50 are" / "adults over 50 every")
        ages = [o for o in e_mentions if m.keys & o.keys and o.kind == m.kind and _people_group(evidence, o)]
        if ages and all(o.hedge == _DIRECTIONS[m.hedge] for o in ages) \
                and (group := _other_age_group(claim, m, evidence, ages, claim_words)):  # fmt: skip
            bound = " ".join(claim[max(0, m.start - 12) : m.end].split()[-2:])
            out.append(f"the source says it of {group!r}, the other side of the claim's {bound!r}")
            continue
        measure = value_measure(claim, m)[0]
        same = [o for o in e_mentions if m.keys & o.keys and o.kind == m.kind
                and (not measure or value_measure(evidence, o)[0] in (measure, ""))]  # fmt: skip
        if not same or not all(o.hedge == _DIRECTIONS[m.hedge] for o in same):
            continue
        # the claim is the source's statement with its bound turned: every word of it in the sentence of the
        # source's bound, which negates nothing ("Borrowing more than 12 books incurs a fee" speaks of what lies
        # beyond the limit; "Members cannot borrow more than 12" restates "up to 12")
        sentence = _sentence_at(evidence, same[0].start)
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


# "cannot borrow more than 12", "may not stay longer than", "Teams are not allowed more than 3 timeouts", "No member
# can borrow more than 12": a denial of more than a value, a bound from above
_DENIED_MORE = re.compile(r"\b(?:cannot|can't|can\s+not|may\s+not|must\s+not|mustn't|shall\s+not|should\s+not|shouldn't|"
                          r"do\s+not|don't|(?:is|are)(?:\s+not|n't)\s+(?:allowed|permitted)(?:\s+to)?|"
                          r"no\s+[^\W\d_]+\s+(?:can|may|is\s+allowed\s+to))\s+((?:[^\W\d_]+\s+){0,3}?)"
                          r"(?:more\s+than|over|longer\s+than)\s*$", re.IGNORECASE)
_NEGATION_WORD = re.compile(r"\b(?:not|never|cannot|no|allowed|permitted)\b|\b[^\W\d_]+n't\b", re.IGNORECASE)
_NEGATED_BOUND = re.compile(r"\bno(?:t)?\s+more\s+than\b", re.IGNORECASE)  # a source's own "no more than 12"
_LONGER = re.compile(r"\blonger\s+than\b", re.IGNORECASE)
_MAXIMUM = re.compile(r"\b(?:a\s+)?maximum\s+of\s*$", re.IGNORECASE)
_PREPOSITIONS = frozenset({"for", "in", "of", "to", "at", "on", "by"})


def _restated_upper_bound(claim: str, m, evidence: str, o, claim_words: set[str], source: str) -> bool:
    """Whether evidence mention `o` is the upper bound that the claim's denied "more than" `m` restates: an upper
    bound of the same value and measure after the same word, in a sentence that negates nothing, says nothing of
    what lies beyond, gives no other limit, and holds every word and every other number of the claim."""
    if not (o.hedge == "at_most" or _MAXIMUM.search(evidence, max(0, o.start - 20), o.start)):
        return False  # "at least 12", "12 books"
    if not (m.keys & o.keys and o.kind == m.kind):
        return False
    measure = value_measure(claim, m)[0]
    if measure and value_measure(evidence, o)[0] not in (measure, ""):
        return False  # "3 nights" / "up to 3 weeks"
    if _word_before(claim, m.start, _PREPOSITIONS) != _word_before(evidence, o.start, _PREPOSITIONS):
        return False  # "renew more than 12" / "borrow up to 12"
    start, end = _sentence_span(evidence, o.start)
    sentence = evidence[start:end]
    plain = _BOUND_PHRASE.sub(" ", _NEGATED_BOUND.sub(" ", sentence))
    if _NEGATED.search(plain) or _BEYOND.search(plain) or not claim_words <= _content(plain):
        return False  # "Staff may borrow up to 12", "... and more than 12 with permission", "12 DVDs" / "12 books"
    numbers = extract_numbers(sentence)
    claim_numbers = [c for c in extract_numbers(claim, ambiguous_words=False) if c.start != m.start]
    if any(n.hedge == "at_most" and not n.keys & o.keys and not any(n.keys & c.keys for c in claim_numbers)
           for n in numbers) or any(n.keys & o.keys and n.hedge not in ("at_most", "") for n in numbers):  # fmt: skip
        return False  # "up to 12 books, or up to 20 with a premium card", "and more than 12 with permission"
    if not all(any(c.keys & n.keys and c.hedge == n.hedge for n in numbers) for c in claim_numbers):
        return False  # "Under-16s" / "Over-16s"
    return _says_no_more(claim_words, sentence, o.start - start) \
        and not _other_sentence_bears(source, sentence, _word_before(evidence, o.start, _PREPOSITIONS))


# a limit that is typical or advised, not set: "Queues usually last up to 30 minutes", "are advised to stay up to"
_NOT_A_LIMIT = re.compile(r"\b(?:usually|typically|normally|generally|often|average|most|mostly|advised|recommended|"
                          r"expected|around|about|roughly|could|might|reach)\b", re.IGNORECASE)
_AUXILIARY = frozenset({"may", "can", "must", "should", "will", "shall", "is", "are", "be", "allowed", "permitted",
                        "to", "the", "each", "every", "all", "any", "a", "an"})
# a sentence beside the limit that speaks of going past it: "Premium members may borrow up to 20", "Longer stays
# can be arranged", "Overnight parking is unlimited"
_PAST_LIMIT = re.compile(r"\b(?:unlimited|except\w*|arranged|extended|extension|additional|extra)\b", re.IGNORECASE)


def _without_numbers(text: str) -> str:
    """`text` with each number and the unit or word it counts blanked ("twelve", "23 kilograms" / "23 kg")."""
    return blank_spans(text, [(n.start, value_measure(text, n)[1]) for n in extract_numbers(text, ambiguous_words=False)])


def _says_no_more(claim_words: set[str], sentence: str, at: int) -> bool:
    """Whether the limit's sentence says nothing the claim leaves out but its subject: "Members may borrow up to 12
    books at a time" for "You cannot borrow more than 12 books", not "On the free plan, users can create up to 5
    projects", "Passengers in economy may bring up to 2 bags", "... up to 2 hours without a permit"."""
    if _NOT_A_LIMIT.search(sentence):
        return False
    head = sentence[:at]
    if b := _BOUND_WORDS.search(head):
        head = head[: b.start()]
    words = _WORD.findall(head)
    if "," in head or any(ch.isdigit() for ch in head) or any(w.casefold() in _PREPOSITIONS - {"to", "for"}
                                                           for w in words):  # fmt: skip
        return False  # "On the free plan, users", "Children over 6 can take", "Passengers in economy may bring"
    words = [w for w in words if w.casefold() not in _PREPOSITIONS]
    subject = [w for w in words[:-1] if w.casefold() not in _AUXILIARY]  # the words before the deed
    if len(subject) > 2:
        return False
    plain = _without_numbers(sentence)
    extra = _content(_BOUND_PHRASE.sub(" ", _NEGATED_BOUND.sub(" ", plain))) - claim_words - _content(" ".join(subject))
    return extra <= {"time", "allow", "permit"}  # "at a time", "are allowed to bring"


def _other_sentence_bears(evidence: str, sentence: str, deed: str) -> bool:
    """Whether another sentence of the evidence speaks of the same deed or of going past a limit."""
    for a, b in sentence_spans(evidence):
        other = evidence[a:b]
        if other.strip() == sentence.strip():
            continue
        if _PAST_LIMIT.search(other) or _BEYOND.search(other) or (deed and deed in _content(other)):
            return True
    return False


def _denied_beyond(claim: str, evidence: str, source: str | None = None) -> list:
    """The evidence's upper bounds that the claim's one denial restates: "Students cannot borrow more than 12
    books" restates "Students may borrow up to 12 books" (`_restated_upper_bound`). `source`, when the evidence
    is a window of it, is read for another sentence that speaks of going past the limit."""
    if len(_NEGATED.findall(claim)) != 1:
        return []
    # its words, less the denial, the bound and its numbers with their units ("twelve", "23 kilograms" / "23 kg")
    plain = _without_numbers(claim)
    claim_words = _content(_NEGATION_WORD.sub(" ", _BOUND_PHRASE.sub(" ", _LONGER.sub(" ", plain))))
    found = []
    for m in extract_numbers(claim, ambiguous_words=False):
        if _DENIED_MORE.search(claim[max(0, m.start - 80) : m.start]):
            found += [o for o in extract_numbers(evidence)
                      if _restated_upper_bound(claim, m, evidence, o, claim_words, source or evidence)]
    return found


def denied_beyond_bound(claim: str, evidence: str, source: str | None = None) -> bool:
    """Whether the claim's one denial is of more than the evidence's upper bound (`_denied_beyond`): the negation
    check would otherwise read "cannot borrow" against a plain "borrow"."""
    return bool(_denied_beyond(claim, evidence, source))


_UPPER_BOUND = re.compile(r"\b(?:up\s+to|at\s+most|a\s+maximum\s+of|not\s+more\s+than|under)\s*$", re.IGNORECASE)


def denied_bound_as_in(claim: str, text: str, source: str | None = None) -> str:
    """`text` with an upper bound the claim denies going beyond written "no more than" ("may borrow up to 12"
    for "cannot borrow more than 12"): what the entailment model reads (P 0.08 for the two ways, 0.83 after)."""
    out, last = [], 0
    for o in sorted(_denied_beyond(claim, text, source), key=lambda o: o.start):
        if (b := _UPPER_BOUND.search(text, max(last, o.start - 24), o.start)) is not None:
            out += [text[last : b.start()], "no more than "]
            last = o.start
    return "".join(out) + text[last:]
