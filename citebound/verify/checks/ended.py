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
"""

from __future__ import annotations

import re

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
