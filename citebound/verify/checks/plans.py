"""The plan check: a claim must not state as a fact what its source only plans or expects.

"The app supports Android" against "The app supports iOS; Android support is planned", or "The feature is
available now" against "The feature will be available next year": every word of the claim that matters is
in its source, so word overlap (and, measured, the entailment model) calls it supported. This rule reads,
in the best evidence window, the parts (a sentence, cut at semicolons, commas and "and" / "but") that
say something is to come, as a predicate: `is planned` (scheduled, proposed, expected), `plans to`,
`expects (sales) to` (forecasts, predicts, projects, anticipates),
`coming soon`, `in (the) future`, `next year` (week, month, quarter, season, release, version), `later
this year`, `next Monday` (a weekday, a month, the weekend) ("scheduled flights" and "upcoming concerts" name
things, they plan nothing). It finds a
conflict when

- the claim says none of those things itself (nor "expect", "plan", "intend", "hope", "predict", ...),
  names no date or time it could be set for ("reopens in May", "on Monday", "in 2026"), and no modal
  ("will", "may", "could", ...);
- every content word of the claim is in the window (the claim's "now", "currently", "already",
  "today" aside: they say it is a fact now, the point of the conflict; a claim of eight content words or
  more, an answer's sentence, may hold one the window lacks: "topped" for "exceed");
- a content word of the claim is stated only in such parts ("Android"), and no other part states all of
  the claim's words.

"Will" alone is no cue: a policy says "Refunds will be processed within 5 days" of what it does now. A
negated claim is left alone (the negation rule reads it). The cascade runs it with the negation rule; a
conflict makes the source `unsupported` (stage `plan`) whatever a model says.
"""

from __future__ import annotations

import re

from citebound.text.stem import STOP_WORDS, stem, verb_stem
from citebound.text.tokenize import is_contracted_negation, tokens
from citebound.verify.checks.negation import CLAUSE_NEGATIONS

# said of what is to come, as a predicate ("is planned", "plans to"; not "scheduled flights", "upcoming concerts")
_PLAN = re.compile(
    r"\b(?:(?:is|are|was|were|be|been|being)\s+(?:planned|scheduled|proposed|expected)|plans?\s+to|planning\s+to|"
    # "expects full-year sales to exceed", "forecasts revenue to rise": what someone expects of a thing
    r"(?:expects?|forecasts?|predicts?|projects?|anticipates?)\s+(?:[^\W\d_]+[\s-]+){1,4}?to\s+[^\W\d_]+|"
    r"coming\s+soon|in\s+(?:the\s+)?future|"
    r"(?:next|later\s+this)\s+(?:year|week|month|quarter|season|spring|summer|autumn|fall|winter|release|version|"
    r"weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|march|april|(?-i:May)|june|"
    r"july|august|september|october|november|december))\b",
    re.IGNORECASE,
)
# a claim that sets itself in time may restate a plan ("The museum reopens in May")
_WHEN = re.compile(
    r"\b(?:january|february|march|april|june|july|august|september|october|november|december|monday|tuesday|"
    r"wednesday|thursday|friday|saturday|sunday|tomorrow|next|soon|later|(?:19|20)\d\d)\b",
    re.IGNORECASE,
)
_MODALS = frozenset({"will", "would", "may", "might", "could", "should", "shall", "must", "can", "ll"})
_LONG_CLAIM = 8  # content words from which a claim may hold one word the window lacks
# a claim that itself speaks of a plan or an expectation ("people expect Cameron to remain") states no fact
_PLANNING = frozenset(stem(w) for w in ("expect", "plan", "intend", "schedule", "propose", "aim", "hope", "forecast",
                                        "predict", "anticipate", "future", "upcoming"))
_NOW = frozenset({"now", "currently", "already", "today", "presently"})
# the window's parts: sentences, cut at semicolons, commas and "and" / "but" ("carries 40,000 vehicles a
# day and is expected to carry more next year": the fact and the plan are two parts)
_CLAUSES = re.compile(r"(?:(?!\s(?:and|but)\s)[^.;!?,])+", re.IGNORECASE)


def _stems(text: str) -> set[str]:
    return {verb_stem(t) for t in tokens(text) if t.isalpha() and t not in STOP_WORDS and t not in _NOW}


def plan_conflicts(claim: str, evidence: str) -> list[str]:
    """Each word the claim states as a fact that the evidence states only as planned or expected, as a
    readable phrase; empty when there is none or the rule cannot tell."""
    if not _PLAN.search(evidence) or _PLAN.search(claim) or _WHEN.search(claim):
        return []
    c_toks = tokens(claim)
    if any(t in _MODALS or t in CLAUSE_NEGATIONS or is_contracted_negation(t) or stem(t) in _PLANNING for t in c_toks):
        return []
    claimed = _stems(claim)
    clauses = [(m.group(0), _stems(m.group(0)), bool(_PLAN.search(m.group(0)))) for m in _CLAUSES.finditer(evidence)]
    # a long claim (an answer's sentence) may put one word of its own ("topped" for "exceed"): it is set aside
    unstated = claimed - set().union(*(words for _, words, _ in clauses))
    if not claimed or len(unstated) > (1 if len(claimed) >= _LONG_CLAIM else 0):
        return []
    claimed -= unstated
    if any(claimed <= words for _, words, planned in clauses if not planned):
        return []  # another clause states it as a fact
    stated = set().union(*(words for _, words, planned in clauses if not planned))
    out = []
    for text, words, planned in clauses:
        only_planned = (claimed & words) - stated if planned else set()
        if only_planned:
            cue = _PLAN.search(text).group(0)  # type: ignore[union-attr]
            named = ", ".join(repr(t) for t in dict.fromkeys(t for t in tokens(claim) if verb_stem(t) in only_planned))
            out.append(f"the source states {named} only as to come ({cue!r}: {' '.join(text.split())!r})")
    return out
