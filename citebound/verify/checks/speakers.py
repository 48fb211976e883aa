"""Who said it: a claim must not put one speaker's words in another's mouth.

"Maria said the plan would fail" against "Maria said the plan was sound, but Tom said it would fail": every
word of the claim is in its source, and both names say something, so word overlap (0.92) and the entailment
model (P = 0.92) call it supported, and the role check (checks/roles.py) steps aside because the verb is
said of two names. This rule reads each "NAME said (that) ..." (or "..., said NAME") of the best evidence window with what
follows it, up to the next speaker, the next clause ("but", ";") or the sentence's end, and the claim's one
"NAME said ...". The claim's statement is *another speaker's* when every content word of it is that
speaker's, or said outside any saying, or (where that speaker refers back: "it would fail") said before
them, and one at least is that speaker's and not the claim speaker's.

Left alone, because who said what cannot be read: a claim with no speaker or several; a source whose speaker
is a pronoun or no one by name ("She added", "Officials said"); a saying inside another's ("Ruiz said Baker
warned ..."); a claim speaker the source does not quote, or quotes agreeing without the words ("said so
too"); a source with one speaker only. A review (90 faithful, 37 false cases, 2026-12-03) found the first
version blocking 23 faithful claims (pronouns as speakers, reports of reports, a topic only the other
speaker named); this one blocks none of them and 15 of the false ones.
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
# what a saying ends with when the next speaker's saying follows it as a clause of its own
_JOINED = re.compile(r"(?:[,;]|\bbut|\band|\bwhile|\bwhereas)\s*$", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)*")
_PRONOUNS = frozenset({"it", "they", "this", "that", "these", "those", "he", "she", "them", "its", "their", "so", "same"})
_TITLES = frozenset({"dr", "mr", "mrs", "ms", "prof", "professor", "senator", "president", "minister", "prime", "coach",
                     "captain", "analyst", "governor", "mayor", "judge", "lawyer", "campaigner", "rival", "chief",
                     "chancellor", "secretary", "general", "inspector", "sergeant", "officer", "spokesperson"})
# capitalised words that open a sentence and speak, but name no one
_NO_ONE = frozenset({"she", "he", "it", "they", "we", "i", "you", "officials", "critics", "police", "experts",
                     "analysts", "residents", "others", "some", "many", "both", "all", "one", "the", "this", "that",
                     "but", "and", "then", "later", "also"})


def _stems(text: str) -> set[str]:
    return {stem(w.casefold()) for w in _WORD.findall(text) if w.casefold() not in STOP_WORDS and len(w) > 2}


def _who(name: str) -> frozenset[str]:
    return frozenset(w.casefold() for w in _WORD.findall(name) if w.casefold().rstrip(".") not in _TITLES)


def _sayings(text: str) -> list[tuple[frozenset[str], int, int]] | None:
    """(speaker's name words, start, end of what the speaker says) for each saying of the text, in order;
    None when a saying stands inside what another says ("Ruiz said Baker warned that ...": a report of a
    report, whose words are both speakers')."""
    out = []
    for m in _SAYS.finditer(text):
        if m.start() == 0 or text[m.start() - 1] in " \"'(“":
            stop = _END.search(text, m.end())
            nxt = _SAYS.search(text, m.end())
            end = min(stop.start() if stop else len(text), nxt.start() if nxt else len(text))
            out.append((_who(m.group(1)), m.start(), m.end(), end))
    for m in _SAID_AFTER.finditer(text):
        begin = max((b.end() for b in _END.finditer(text, 0, m.start())), default=0)
        out.append((_who(m.group(1) or m.group(2)), begin, begin, m.start()))
    out.sort(key=lambda s: s[1])
    if any(not who or who & _NO_ONE for who, _, _, _ in out):
        return None  # "She added", "Officials said": who it is is the reader's to work out
    for (_, _, a, end), (_, start, _, _) in zip(out, out[1:]):
        if start < end or (start == end and not _JOINED.search(text[a:end])):
            return None
    return [(who, a, b) for who, _, a, b in out]


def wrong_speakers(claim: str, evidence: str) -> list[str]:
    """Each claim speaker the evidence gives other words than the claim does, as a readable phrase (module
    docstring); [] when no sentence of the evidence quotes the claim's speaker and another, or the rule cannot
    relate them."""
    said = _sayings(claim)
    if not said or len(said) != 1:
        return []
    speaker, a, b = said[0]
    words = _stems(claim[a:b])
    if len(words) < 2:
        return []
    found = _conflict(speaker, words, claim[a:b], evidence)
    return [found] if found else []


def _conflict(speaker: frozenset[str], words: set[str], statement: str, sentence: str) -> str | None:
    """The other speaker of one sentence who says what the claim gives its speaker: every claim word is theirs,
    the referent's or said outside any saying, and one at least is theirs and not the claim speaker's."""
    quoted = _sayings(sentence)
    if not quoted or len({s for s, _, _ in quoted}) < 2:
        return None
    own = [(x, y) for s, x, y in quoted if speaker <= s or s <= speaker]
    if not own:
        return None
    own_words = set().union(*(_stems(sentence[x:y]) for x, y in own))
    if len(own_words) < 2:
        return None  # "Dr Okafor said so too": agreeing without the words
    outside, cursor = [], 0
    for _, x, y in quoted:
        outside.append(sentence[cursor:x])
        cursor = max(cursor, y)
    outside_words = _stems(" ".join(outside) + " " + sentence[cursor:])
    for s, x, y in quoted:
        if speaker <= s or s <= speaker:
            continue
        theirs = _stems(sentence[x:y])
        refers_back = any(w.casefold() in _PRONOUNS for w in _WORD.findall(sentence[x:y]))
        earlier = set().union(*(_stems(sentence[p:q]) for _, p, q in quoted if q <= x)) if refers_back else set()
        if not words <= theirs | outside_words | earlier:
            continue
        if foreign := (words & theirs) - own_words - outside_words:
            word = next(w for w in _WORD.findall(statement) if stem(w.casefold()) in foreign).casefold()
            name = " ".join(w.capitalize() for w in sorted(s, key=sentence.casefold().find))
            return f"the source has {name!r} say {word!r}, not the claim's speaker"
    return None
