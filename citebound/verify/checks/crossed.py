"""Crossed values: a claim that pairs two values with two things the other way round from its source.

"The Basic plan costs $24 and the Premium $9" against "The Basic plan costs $9 a month and the Premium
plan costs $24 a month": both values are in the source with their unit, in a sentence sharing the claim's
words, so the numbers check (checks/numbers.py), which reads one claim number at a time, finds each of
them; and a model reading the pair sees every word it needs. Each value is a true number on the wrong thing.

A value's owner is read as the words written before it, back to the previous value (or the start of its
sentence): the usual "THING VERB VALUE, and THING (VERB) VALUE" of a price list or a comparison. A value
of the claim is crossed when

- the claim gives another value of the same measure (unit, or the word after the value) to something else,
- a word the claim writes before this value only (among those values) names exactly one of the source's
  values of that measure, and that value is another one, and
- the source's value equal to the claim's stands after a word the claim gives only to the other value.

Left alone, because the owner may stand after its value there: either text saying "respectively",
"versus", "against" or "compared with" ("July was cooler, at 18.1°C versus 19.4°C"), or a value followed by
"for / in / on / at / by / with / from / among" ("$9 for Basic and $24 for Premium").

Two more shapes of a true number on the wrong thing: `misplaced_values` (the source gives the claim's value
to another thing and the claim's thing another value) and `compared_values` (the value is the other side of
a comparison: "14 cm, compared with 9 cm for those given blue light").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from citebound.text.numbers import NumberMention, mention_units, source_numbers, unit_of, value_measure
from citebound.text.sentences import sentence_spans
from citebound.text.stem import STOP_WORDS, stem
from citebound.verify.checks.lexical import claim_numbers
from citebound.verify.checks.numbers import states_value

_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
_JOINS = frozenset({"and", "or", "but", "while", "whereas", "than", "versus", "vs"})
_NEXT_WORD = re.compile(r"(?:\s+|-)([^\W\d_]+)")
# "respectively", or a comparison's "versus" / "against" / "compared with": the owners are not read by order
_RESPECTIVELY = re.compile(r"\b(?:respective(?:ly)?|versus|vs|against|compared\s+(?:with|to))\b", re.IGNORECASE)
# a value whose owner may be written after it ("$9 for Basic"), past an optional unit word
_OWNER_AFTER = re.compile(r"\s*(?:[^\W\d_]+\s+)?(?:for|in|on|at|by|with|from|among)\b", re.IGNORECASE)


def _label(text: str, m: NumberMention) -> bool:
    """A number that names rather than counts: an ordinal ("the second floor"), or a model number after a
    word with a capital ("the Kestrel 7 lasts", "the iPhone 15 costs") and before a word of the sentence (not
    "and Lyon 12.")."""
    if m.kind == "ordinal":
        return True
    before = _WORD.findall(text[max(0, m.start - 30) : m.start])
    after = _NEXT_WORD.match(text, m.end)
    return (m.kind == "number" and not mention_units(m) and bool(before) and not before[-1].islower()
            and text[m.start - 1 : m.start] == " " and after is not None and after.group(0)[:1] == " "
            and after.group(1).casefold() not in _JOINS and unit_of(after.group(1).casefold()) is None)  # fmt: skip


def _owners(text: str, mentions: Sequence[NumberMention]) -> list[tuple[NumberMention, str, frozenset[str]]]:
    """(value, measure, stems of the content words before it back to the previous value or its sentence's
    start) for each value that is not a year. A label's number is a word of its owner ("kestrel 7"); a
    value with no measure after another value in its sentence takes that one's ("Paris had 40 stores and
    Lyon 12")."""
    starts = [a for a, _ in sentence_spans(text)] or [0]
    out: list[tuple[NumberMention, str, frozenset[str]]] = []
    prev_end = 0
    for m in mentions:
        if m.kind == "year" or _label(text, m):
            continue
        sentence = max((a for a in starts if a <= m.start), default=0)
        begin = max(prev_end, sentence)
        written = re.sub(r"([^\W\d_]+) (\d+)\b", r"\1#\2", text[begin : m.start])  # "Kestrel 7" -> one word
        words = frozenset(stem(w.casefold()) for w in re.findall(r"[^\W\d_]+(?:#\d+|'[^\W\d_]+)*", written)
                          if w.casefold() not in STOP_WORDS and unit_of(w.casefold()) is None
                          and len(w) > 1)  # fmt: skip  ("19.4°C": the C is the unit's)
        measure, prev_end = value_measure(text, m)  # the next owner starts past this value's unit or noun
        if not measure and out and out[-1][0].end > sentence:
            measure = out[-1][1]
        out.append((m, measure, words))
    return out


def _shown(word: str, *texts: str) -> str:
    """An owner word as written ("paris", not its stem "pari")."""
    for text in texts:
        for w in _WORD.findall(text):
            if stem(w.casefold()) == word:
                return w.casefold()
    return word.replace("#", " ")


def _ambiguous(text: str, mentions: Sequence[NumberMention]) -> bool:
    return bool(_RESPECTIVELY.search(text)) or any(_OWNER_AFTER.match(text, m.end) for m in mentions)


def crossed_values(claim: str, evidence: str) -> list[str]:
    """Each claim value the evidence gives to another thing while giving the claim's thing another value
    of the same measure (module docstring); [] when the texts pair no values."""
    c_mentions = claim_numbers(claim)
    if len(c_mentions) < 2:
        return []
    e_mentions = source_numbers(evidence)
    if len(e_mentions) < 2 or _ambiguous(claim, c_mentions) or _ambiguous(evidence, e_mentions):
        return []
    claimed, stated = _owners(claim, c_mentions), _owners(evidence, e_mentions)
    out = []
    for m, measure, words in claimed:
        rivals = [(o, w) for o, mo, w in claimed if o is not m and mo == measure and not states_value(m, o)]
        if not rivals:
            continue
        same = [(o, w) for o, mo, w in stated if mo == measure]
        theirs = frozenset().union(*(w for _, w in rivals))
        mine = {w for w in words - theirs if sum(w in sw for _, sw in same) == 1}
        holding = [o for o, sw in same if sw & mine]
        if not holding or any(states_value(m, o) for o in holding):
            continue
        rival_only = theirs - words
        given = [sw & rival_only for o, sw in same if states_value(m, o)]
        if given and all(given):
            own, other = _shown(sorted(mine)[0], claim, evidence), _shown(sorted(given[0])[0], claim, evidence)
            out.append(f"the claim gives {m.text!r} to {own!r}; the source gives it to {other!r} and "
                       f"{holding[0].text!r} to {own!r}")
    return out


# where the words after a value stop: the next clause ("and receive ...", ", while ...")
_AFTER_STOP = re.compile(r"[,;:.!?()]|\b(?:and|but|while|whereas|or|then)\b|\d", re.IGNORECASE)
# a comma that goes on about the value: a participle or "which" ("$125 billion, making Harvey the ...")
_GOES_ON = re.compile(r"\s*(?:which\b|[^\W\d_]+ing\b)", re.IGNORECASE)


def _around(text: str, mentions: Sequence[NumberMention]) -> list[tuple[NumberMention, str, frozenset[str]]]:
    """(value, measure, the content stems before it back to the previous value and after it to its clause's
    end) for each value `_owners` reads; none for a value with no words of its own before it, which is the
    previous value's thing ("raised its rate from 4.25% to 4.5%, citing inflation": the rate's)."""
    out = []
    for m, measure, before in _owners(text, mentions):
        _, end = value_measure(text, m)
        stop = _AFTER_STOP.search(text, end)
        while stop and stop.group(0) == "," and _GOES_ON.match(text, stop.end()):  # ", making Harvey the costliest"
            stop = _AFTER_STOP.search(text, stop.end())
        after = text[end : stop.start() if stop else len(text)]
        words = frozenset(stem(w.casefold()) for w in _WORD.findall(after)
                          if w.casefold() not in STOP_WORDS and unit_of(w.casefold()) is None and len(w) > 1)  # fmt: skip
        out.append((m, measure, before | words) if before else (m, measure, frozenset()))
    return out


def misplaced_values(claim: str, evidence: str) -> list[str]:
    """A claim value the evidence states only of something else, while it gives the claim's thing another
    value of the same measure: "New hires serve a 3-month probation period" against "New hires serve a
    probation period of 6 months and receive a performance review after 3 months". The words around each
    value are read (before it back to the previous value, after it to its clause's end): every source value
    equal to the claim's shares none of the claim's words around it, and another value of that measure
    shares three or more (two were too few: "trial period can be lengthened by a further 3 months" against
    "serve 6 months' probation, which may be extended by 3 months"). A source with an owner after its value
    ("$12 for adults and $6 for children") is left alone. The numbers check (checks/numbers.py) finds "3 months" in the claim's sentence and
    lets it pass; a model read the pair as supported (P = 0.98)."""
    c_mentions = claim_numbers(claim)
    if not c_mentions or _RESPECTIVELY.search(claim) or _RESPECTIVELY.search(evidence):
        return []
    e_mentions = source_numbers(evidence)
    if len(e_mentions) < 2 or _ambiguous(evidence, e_mentions):
        return []  # "$12 for adults and $6 for children": the owner after its value
    spans = sentence_spans(evidence) or [(0, len(evidence))]

    def sentence(o: NumberMention) -> int:
        return max((k for k, (a, _) in enumerate(spans) if a <= o.start), default=0)

    stated = _around(evidence, e_mentions)
    out = []
    for m, measure, words in _around(claim, c_mentions) if len(c_mentions) == 1 else ():
        if len(words) < 2 or not measure:
            continue
        same = [(o, w) for o, mo, w in stated if mo == measure]
        equal = [(o, w) for o, w in same if states_value(m, o)]
        # another value of the same sentence as an equal one, not another reading of the same digits
        # ("$ 800, 000" is also read "$ 800")
        other = [(o, w) for o, w in same if not states_value(m, o) and len(w & words) >= 3
                 and any(sentence(o) == sentence(e) and (o.end <= e.start or e.end <= o.start) for e, _ in equal)]
        if equal and other and not any(w & words for _, w in equal) and all(w for _, w in equal):
            theirs = _shown(sorted(equal[0][1])[0], evidence)
            mine = _shown(sorted(other[0][1] & words)[-1], claim, evidence)
            out.append(f"the source gives {m.text!r} to {theirs!r} and {other[0][0].text!r} to {mine!r}")
    return out


# a value written after a comparison word is the other side's: "grew 14 cm, compared with 9 cm for those
# given blue light"
_COMPARED_BEFORE = re.compile(r"\b(?:compared\s+(?:with|to)|as\s+against|against|versus|vs\.?)\s*$", re.IGNORECASE)
# ... and its owner, written after it: "for / among / in / at / of" up to the clause's end
_OWNER_PHRASE = re.compile(r"\s*(?:for|among|in|at|of|with)\s+([^,;:.!?()]+)", re.IGNORECASE)
_TOKEN = re.compile(r"[^\W_]+(?:'[^\W\d_]+)*")
# an owner that is a time ("in 2022", "a year earlier", "the same quarter last year"): a claim may place it in
# its own words ("the year before"), so such a comparison is left to the other stages
_TIME_OWNER = re.compile(r"\b(?:\d{4}|year|years|quarter|month|months|week|weeks|day|days|decade|earlier|before|ago|"
                         r"last|previous|prior|january|february|march|april|june|july|august|september|october|"
                         r"november|december|spring|summer|autumn|winter|start|beginning|end)\b", re.IGNORECASE)


def _content(text: str) -> frozenset[str]:
    return frozenset(stem(w.casefold()) for w in _TOKEN.findall(text)
                     if w.casefold() not in STOP_WORDS and unit_of(w.casefold()) is None)  # fmt: skip


def compared_values(claim: str, evidence: str) -> list[str]:
    """A claim value the evidence gives only to the other side of a comparison: "Plants given red light grew
    9 cm" against "Plants given red light grew 14 cm, compared with 9 cm for those given blue light". The
    source's value after "compared with / against / versus" belongs to the thing its owner phrase names
    ("for those given blue light"); a claim that names none of that owner's own words (those not also
    before the comparison: "blue"), names every word the source writes before the first side's value
    ("Plants given red light grew") and no content word the source's sentence lacks gives the value to the
    first side. Left to the other stages: a claim with two values or that is itself a comparison ("compared
    with", "versus"), an owner that is a time ("in 2022", "a year earlier": a claim may say "the year
    before"), and a source value with no owner phrase or no value of the same measure before it in its
    sentence. A review of 124 faithful and 39 false cases (2026-12-03): the first version blocked 26 faithful
    claims (a change "from $9 million to $12 million", owners in other words: "male respondents" for "men");
    this one blocks none of them and 14 of the false ones."""
    c_mentions = claim_numbers(claim)
    if len(c_mentions) != 1 or _RESPECTIVELY.search(claim):
        return []  # two values: a change "from $9 million to $12 million" or a comparison of the claim's own
    e_mentions = source_numbers(evidence)
    if len(e_mentions) < 2:
        return []
    spans = sentence_spans(evidence) or [(0, len(evidence))]
    claim_words = _content(claim)
    out = []
    for m in c_mentions:
        equal = [o for o in e_mentions if states_value(m, o)]
        if not equal:
            continue
        owned_elsewhere = []
        for o in equal:
            begin = max((a for a, _ in spans if a <= o.start), default=0)
            if not _COMPARED_BEFORE.search(evidence[max(begin, o.start - 30) : o.start]):
                break  # the source states the value plainly somewhere: the numbers check decides
            measure, end = value_measure(evidence, o)
            phrase = _OWNER_PHRASE.match(evidence, end)
            first = [e for e in e_mentions if begin <= e.start and e.end <= o.start
                     and value_measure(evidence, e)[0] == measure and not states_value(m, e)]  # fmt: skip
            if phrase is None or not first:
                break
            owner = _content(phrase.group(1)) - _content(evidence[begin : o.start])
            if not owner or owner & claim_words or _TIME_OWNER.search(phrase.group(1)):
                break
            # the claim must name the first side as the source does: every word before its value that the
            # owner lacks ("Women earned" against "for men": a claim about "male respondents" is the other
            # side in other words)
            side = _content(evidence[begin : first[-1].start]) - _content(phrase.group(1))
            if not side or not side <= claim_words:
                break
            # ... and in the source's words only: a word of its own ("a child's ticket", "the control arm",
            # "non-smokers") may name the other side in other words
            sentence_end = min((b for a, b in spans if b > o.start), default=len(evidence))
            if not {w for w in claim_words if not w[:1].isdigit()} <= _content(evidence[begin:sentence_end]):
                break
            owned_elsewhere.append((o, phrase.group(1).strip(), first[-1]))
        else:
            if owned_elsewhere:
                o, owner, first = owned_elsewhere[0]
                out.append(f"the source gives {o.text!r} to {owner!r} (a comparison), and {first.text!r} to "
                           f"what the claim describes")
    return out
