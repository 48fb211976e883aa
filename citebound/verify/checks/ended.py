"""The ended-state check: a claim must not state in the present what its source says held only until a time.

"Rio de Janeiro is Brazil's capital" against "Rio de Janeiro was Brazil's capital until 1960, when Brasília
replaced it": every word of the claim is in the source, so word overlap calls it supported and the
entailment model says P = 0.97. What the source says is that it stopped being so. This rule reads the claim
with its present copula put in the past ("is" -> "was", "are" -> "were", "remains" -> "was"; or "served as",
the article after it optional: "is the principal" -> "served as principal"), finds that
word for word in the best evidence window (`find_span`: case, spacing and punctuation aside) and reads what
follows in the same sentence: "until", "till", "up to" or "up until" right after it (a comma before it
allowed) ends the state, as does a "from ... to ..." / "between ... and ..." span of years. A claim in the
past ("was Brazil's capital until 1960"), one that carries its own time ("is the capital since 1960"), or a
negated one is left to the other checks. The cascade runs it with the negation rule; a conflict makes the
source `unsupported` (stage `ended`) whatever a model says.

`moved_away`, in the same stage: a place the claim says someone or something is in now ("She lives in
Leeds") where the source says they moved from it to another ("born in Leeds before moving to York").
"""

from __future__ import annotations

import re

from citebound.text.stem import STOP_WORDS
from citebound.verify.spans import find_span, rest_of_sentence

# the claim's present copula, the first one, as a word ("is", "are", "remains"), not negated after it
_PRESENT = re.compile(r"\b(is|are|remains|remain)\b(?!\s+(?:not|no\s+longer|never)\b)", re.IGNORECASE | re.ASCII)
_PAST = {"is": "was", "are": "were", "remains": "was", "remain": "were"}
# the claim says when itself, or speaks of the past: then the source's end date is no contradiction
_OWN_TIME = re.compile(r"\b(?:since|until|till|still|now|today|currently|was|were|had|formerly|no\s+longer|"
                       r"not|never|\d{4})\b", re.IGNORECASE)
_ARTICLE = re.compile(r"^\s+(?:the|a|an)\s+", re.IGNORECASE)
# right after the claim, in the past: the state ends
_ENDED = re.compile(
    r"\s*,?\s*(?:until|till|up\s+(?:un)?till?|up\s+to\s+(?:\d{4}|the\b))\b|"
    r"\s*,?\s*(?:from|between)\s+(?:[^\W\d_]+\s+)?\d{3,4}\s+(?:to|and|until|till|-|–)\s+(?:[^\W\d_]+\s+)?\d{3,4}",
    re.IGNORECASE,
)


def ended_states(claim: str, window: str) -> list[str]:
    """What the claim leaves out: that `window` states it in the past, up to a time (none when it does not)."""
    text = claim.strip().rstrip(".!?;: ")
    m = _PRESENT.search(text)
    if m is None or len(text.split()) < 3 or _OWN_TIME.search(text[: m.start()] + text[m.end() :]):
        return []
    copula = _PAST.get(m.group(1).lower())
    if copula is None:
        return []  # (re.ASCII keeps "İſ" from matching "is"; hypothesis found it raising KeyError)
    before, rest_of_claim = text[: m.start()], text[m.end() :]
    # a post held in the past may be said with "served as" and no article ("Gerald Moss is the principal"
    # against "Gerald Moss served as principal of Westfield Academy from 2008 to 2017")
    office = _ARTICLE.sub(" ", rest_of_claim, count=1)
    for past in (before + copula + rest_of_claim, before + "served as" + rest_of_claim,
                 before + "served as" + office):  # fmt: skip
        span = find_span(window, past)
        if span is not None and _ENDED.match(after := window[span[1] :]):
            rest = rest_of_sentence(after)
            return [f"the source says it was so {rest[:80]!r}, not that it still {m.group(1).lower()}"]
    return []


# "She lives in Leeds", "The firm is based in Berlin": where someone or something is now
_LIVES_IN = re.compile(r"^\s*(?P<subject>(?:[\w'’-]+\s+){1,6}?)(?:now\s+|currently\s+|still\s+)?"
                       r"(?:lives|live|resides|reside|works|work|is\s+based|are\s+based|is\s+headquartered|"
                       r"are\s+headquartered|is\s+located|are\s+located)\s+(?:in|at)\s+"
                       r"(?P<place>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)")
# "before moving to York", "moved to Munich in 2015", "relocated its headquarters to Lyon"
_MOVED_TO = re.compile(r"\b(?:moved|moving|moves|relocated|relocating|emigrated|emigrating)\s+(?:(?:its|their|his|her)\s+"
                       r"(?:\w+\s+){0,2})?to\s+(?P<place>[A-Z][\w'’-]*(?:\s+[A-Z][\w'’-]*)*)")
_PRONOUN_SUBJECTS = frozenset({"she", "he", "they", "it", "we"})
_SENTENCE = re.compile(r"[^.!?]+(?:[.!?]+|$)")
# the words that may stand between the place left and the move: time and the sentence's own subject
_LINKING = frozenset({"before", "but", "and", "then", "later", "when", "after", "until", "in", "on", "at", "the", "she",
                      "he", "it", "they", "we", "was", "were", "had", "has", "have", "eventually", "finally",
                      "subsequently", "years", "year", "months", "decades", "a", "an", "few", "some", "early", "late",
                      "january", "february", "march", "april", "may", "june", "july", "august", "september",
                      "october", "november", "december", "age", "of", "aged"})


def moved_away(claim: str, window: str) -> list[str]:
    """A place the claim says someone or something is in now, where the source says they moved from it to
    another: "She now lives in Leeds" against "She was born in Leeds before moving to York" (full supported
    it, P = 0.82). The claim's subject must be the sentence's (its words before the place, or a pronoun that
    opens the sentence), the place named before the move, and not again after it anywhere in the window
    ("moved to York and later back to Leeds")."""
    m = _LIVES_IN.match(claim)
    if m is None:
        return []
    place = m.group("place").casefold()
    if re.search(rf"\b(?:lives|live|resides|works|work|is|are|remains|remain|still)\s+(?:[\w'’-]+\s+)?(?:in|at)\s+"
                 rf"{re.escape(place)}\b", window, re.IGNORECASE):
        return []  # the source says it is there now too ("works in London but moved to Surrey")
    subject = [w.casefold() for w in re.findall(r"[\w'’-]+", m.group("subject"))]
    for s in _SENTENCE.finditer(window):
        sentence = s.group(0)
        for move in _MOVED_TO.finditer(sentence):
            to, before = move.group("place").casefold(), sentence[: move.start()].casefold()
            at = [p.end() for p in re.finditer(rf"\b{re.escape(place)}\b", before)]
            if place in to or to in place or not at:
                continue
            between = re.findall(r"[^\W\d_]+", before[at[-1] :])
            if any(w not in _LINKING for w in between):
                continue  # another subject may be the one who moved ("and its rival moved to Munich")
            if re.search(rf"\b{re.escape(place)}\b", window[s.start() + move.end() :].casefold()) or "back" in move.group(0):
                continue
            opener = re.match(r"\s*([\w'’-]+)", sentence)
            if subject[-1] in _PRONOUN_SUBJECTS:
                if not opener or opener.group(1).casefold() != subject[-1]:
                    continue
            elif not all(re.search(rf"\b{re.escape(w)}\b", before) for w in subject if w not in STOP_WORDS):
                continue
            return [f"the source says it moved from {m.group('place')!r} to {move.group('place')!r}"]
    return []
