"""Who said it: a claim must not put one speaker's words in another's mouth.

"Maria said the plan would fail" against "Maria said the plan was sound, but Tom said it would fail": every
word of the claim is in its source, and both names say something, so word overlap (0.92) and the entailment
model (P = 0.92) call it supported, and the role check (checks/roles.py) steps aside because the verb is
said of two names. This rule reads each "NAME said (that) ..." (or "..., said NAME") of the source with what
follows it, up to the next speaker, the next clause ("but", ";") or the sentence's end, and the claim's one
"NAME said ...". A claim word is *another speaker's* when it stands in what another name says and neither in
what the claim's speaker says nor anywhere outside what is said. Where the claim's speaker refers back ("it
would fail", "they") the words of what was said before are the referent's, not another speaker's.

Left alone: a claim with no speaker or with several; a speaker the source does not quote (the word overlap
and the other rules decide); a source with one speaker only.
"""

from __future__ import annotations

import re

from citebound.text.stem import STOP_WORDS, stem

_NAME = r"[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?"
_SPEAKER = rf"(?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?{_NAME}(?:\s+{_NAME}){{0,2}}"
_VERBS = (r"said|says|argued|argues|warned|warns|claimed|claims|insisted|insists|added|adds|stated|states|"
          r"believes|believed|thinks|thought|predicted|predicts|told\s+(?:reporters|journalists|the\s+\w+)")
# "Maria said (that) ...", "Tom Becker warned that ..."
_SAYS = re.compile(rf"\b({_SPEAKER})\s+(?:{_VERBS})\b\s*(?:that\s+)?")
# "..., said Tom." / "..., Tom said."
_SAID_AFTER = re.compile(rf",\s*(?:(?:said|says|added)\s+({_SPEAKER})|({_SPEAKER})\s+(?:said|says|added))\s*[.!?]")
# where what a speaker says ends: the next clause or sentence
_END = re.compile(r",?\s+but\b|;|[.!?](?=\s|$)|,\s+while\b|,\s+whereas\b")
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
_PRONOUNS = frozenset({"it", "they", "this", "that", "these", "those", "he", "she", "them", "its", "their"})
_TITLES = frozenset({"dr", "mr", "mrs", "ms", "prof"})


def _stems(text: str) -> set[str]:
    return {stem(w.casefold()) for w in _WORD.findall(text) if w.casefold() not in STOP_WORDS and len(w) > 2}


def _who(name: str) -> frozenset[str]:
    return frozenset(w.casefold() for w in _WORD.findall(name) if w.casefold().rstrip(".") not in _TITLES)


def _sayings(text: str) -> list[tuple[frozenset[str], int, int]]:
    """(speaker's name words, start, end of what the speaker says) for each saying of the text."""
    out = []
    for m in _SAYS.finditer(text):
        if m.start() == 0 or text[m.start() - 1] in " \"'(“":
            stop = _END.search(text, m.end())
            nxt = _SAYS.search(text, m.end())
            end = min(stop.start() if stop else len(text), nxt.start() if nxt else len(text))
            out.append((_who(m.group(1)), m.end(), end))
    for m in _SAID_AFTER.finditer(text):
        begin = max((b.end() for b in _END.finditer(text, 0, m.start())), default=0)
        out.append((_who(m.group(1) or m.group(2)), begin, m.start()))
    return sorted(out, key=lambda s: s[1])


def wrong_speakers(claim: str, evidence: str) -> list[str]:
    """Each claim speaker the evidence gives other words than the claim does, as a readable phrase (module
    docstring); [] when the texts quote no two speakers or the rule cannot relate them."""
    said = _sayings(claim)
    if len(said) != 1:
        return []
    speaker, a, b = said[0]
    words = _stems(claim[a:b])
    quoted = _sayings(evidence)
    if len({s for s, _, _ in quoted}) < 2:
        return []
    own = [(x, y) for s, x, y in quoted if speaker <= s or s <= speaker]
    if not own:
        return []
    own_words = set().union(*(_stems(evidence[x:y]) for x, y in own))
    refers_back = any(w.casefold() in _PRONOUNS for x, y in own for w in _WORD.findall(evidence[x:y]))
    first = min(x for x, _ in own)
    outside, cursor = [], 0
    for _, x, y in quoted:
        outside.append(evidence[cursor:x]) if x > cursor else None
        cursor = max(cursor, y)
    outside_words = _stems(" ".join(outside) + " " + evidence[cursor:])
    for s, x, y in quoted:
        if speaker <= s or s <= speaker or (refers_back and y <= first):
            continue
        theirs = (words & _stems(evidence[x:y])) - own_words - outside_words
        if theirs:
            name = " ".join(w.capitalize() for w in sorted(s, key=evidence.casefold().find))
            word = next(w for w in _WORD.findall(claim[a:b]) if stem(w.casefold()) in theirs).casefold()
            return [f"the source has {name!r} say {word!r}, not the claim's speaker"]
    return []
