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
  more, an answer's sentence, may hold one the window lacks: "topped" for "exceed"; so may a claim with
  "now": "now flies direct to Lima" against "plans to launch direct flights to Lima");
- a content word of the claim is stated only in such parts ("Android"), and no other part states all of
  the claim's words.

"Will" alone is no cue: a policy says "Refunds will be processed within 5 days" of what it does now. A
negated claim is left alone (the negation rule reads it).

`weighed_as_decided`, in the same stage: a deed the source only weighs ("agreed to consider relocating",
"is discussing whether to close", "proposed a plan to build") stated as decided or done, or a decision word
("approved", "adopted") the source lacks where it has the thing proposed or drafted. The cascade runs it with the negation rule; a
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
    r"(?:intends?|intending|aims?|aiming)\s+to|"
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
# a clause that tells something has begun ("has begun opening for breakfast", "added yoga last month", "since May")
_STARTED = re.compile(r"\b(?:began|begun|begins|started|starts|added|adds|introduced|launched|opened|since|now|"
                      r"(?:has|have)\s+[^\W\d_]+ed)\b", re.IGNORECASE)
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
    # a long claim (an answer's sentence) may put one word of its own ("topped" for "exceed"): it is set aside;
    # so may one that says it is so "now", its verb being the source's plan in other words ("now flies direct
    # to Lima" against "plans to launch direct flights to Lima")
    unstated = claimed - set().union(*(words for _, words, _ in clauses))
    allowed = 1 if len(claimed) >= _LONG_CLAIM or _NOW.intersection(c_toks) else 0
    if not claimed or len(unstated) > allowed or (unstated and len(claimed) - len(unstated) < 2):
        return []
    claimed -= unstated
    if any(claimed <= words for _, words, planned in clauses if not planned):
        return []  # another clause states it as a fact
    if _NOW.intersection(c_toks) and any(_STARTED.search(text) and 2 * len(claimed & words) >= len(claimed)
                                         for text, words, planned in clauses if not planned):  # fmt: skip
        return []  # "has begun opening for breakfast, and plans to serve lunch": the fact now in other words
    stated = set().union(*(words for _, words, planned in clauses if not planned))
    out = []
    for text, words, planned in clauses:
        only_planned = (claimed & words) - stated if planned else set()
        if only_planned:
            cue = _PLAN.search(text).group(0)  # type: ignore[union-attr]
            named = ", ".join(repr(t) for t in dict.fromkeys(t for t in tokens(claim) if verb_stem(t) in only_planned))
            out.append(f"the source states {named} only as to come ({cue!r}: {' '.join(text.split())!r})")
    return out


# What a source says is only being weighed: "agreed to consider relocating", "discussed whether to close",
# "will explore moving", "proposed closing" / "proposed to close" / "a plan to close" (the deed after it)
# The deed is a verb: a gerund right after the verb of weighing ("considering relocating"), or after "to" ("to
# close", "whether to close", "a plan to build"); "is considered safe" (regarded as), "proposed to Maria",
# "looked into reports" weigh no deed.
_WEIGHED = re.compile(
    r"\b(?:consider(?:s|ed|ing)?|discuss(?:es|ed|ing)?|explor(?:e|es|ed|ing)|"
    r"debat(?:e|es|ed|ing)|weigh(?:s|ed|ing)?|look(?:s|ed|ing)?\s+into|review(?:s|ed|ing)?\s+whether|propos(?:e|es|ed|ing))\s+"
    r"(?:(?:(?:whether|if)\s+to|to|the\s+(?:option|idea|possibility)\s+of|(?:a|the)\s+(?:plan|proposal)\s+to)\s+"
    r"((?-i:[a-z]+))|((?-i:[a-z]+ing)))\b",
    re.IGNORECASE,
)
# A source that tells the weighing went on to a decision or a deed ("proposed ..., and the council approved
# it", "discussed closing the school; it was finally shut", "completed the deal") is not read.
_WENT_AHEAD = re.compile(
    r"\b(?:approved|adopted|passed|ratified|endorsed|accepted|finali[sz]ed|signed|agreed|decided|confirmed|completed|"
    r"enacted|implemented|voted|became\s+law|later|then|finally|eventually|subsequently|afterwards|went\s+ahead)\b"
    # "agreed to consider relocating" agrees to weigh
    r"(?!\s+to\s+(?:consider|discuss|explore|debate|weigh|look\s+into|review))",
    re.IGNORECASE,
)
# a claim that itself speaks of weighing states no decision
_WEIGHING = frozenset(stem(w) for w in ("consider", "discuss", "explore", "debate", "weigh", "whether", "propose",
                                        "proposal", "suggest", "review", "plan", "idea", "option", "possibility"))
# a claim that leaves it open ("may close") states no decision; "will close" states one
_OPEN_MODALS = frozenset({"may", "might", "could", "would", "should", "can"})
_DECIDED_NOUNS = frozenset(stem(w) for w in ("plan", "proposal", "idea", "option"))
# decided: what a claim may say of a proposal that the source does not
_DECIDED = frozenset(stem(w) for w in ("approved", "adopted", "passed", "ratified", "endorsed", "accepted",
                                       "finalised", "finalized", "signed", "agreed", "decided", "confirmed"))
_PROPOSED = re.compile(r"\b(?:propos(?:e|es|ed|al)|draft(?:s|ed)?|tabled|put\s+forward)\b", re.IGNORECASE)


def weighed_as_decided(claim: str, evidence: str) -> list[str]:
    """What the claim states as decided or done that the evidence says is only being weighed or proposed
    ("The board decided to relocate the warehouse" against "The board agreed to consider relocating the
    warehouse"; "The council has approved the plan to close the library" against "The council has proposed
    a plan to close the library"), as a readable phrase; empty otherwise. Every content word of the claim
    but the deed's own decision word must be in the evidence; a claim that speaks of weighing or plans
    itself, leaves it open ("may", "could"), or is negated, and a source that tells of a decision or a deed
    after the weighing (`_WENT_AHEAD`), are left alone."""
    c_toks = tokens(claim)
    decided = {verb_stem(t) for t in c_toks if verb_stem(t) in _DECIDED}
    # "approved the plan": the plan is what was decided, no weighing
    weighing = _WEIGHING - _DECIDED_NOUNS if decided else _WEIGHING
    if any(t in _OPEN_MODALS or t in CLAUSE_NEGATIONS or is_contracted_negation(t) or stem(t) in weighing for t in c_toks):
        return []
    claimed = _stems(claim)
    stated = _stems(evidence)
    if not claimed or len(claimed - stated - decided) > (1 if len(claimed) >= _LONG_CLAIM else 0):
        return []
    if _WENT_AHEAD.search(evidence):
        return []
    for m in _WEIGHED.finditer(evidence):
        g = 1 if m.group(1) else 2
        deed = verb_stem(m.group(g).casefold())
        if deed in claimed and deed not in STOP_WORDS and not any(
                verb_stem(w.casefold()) == deed for w in re.findall(r"[^\W\d_]+", evidence[: m.start(g)] + " "
                                                                      + evidence[m.end(g) :])):  # fmt: skip
            return [f"the source says {' '.join(m.group(0).split())!r}: weighed, not decided"]
    if (new := decided - stated) and (proposed := _PROPOSED.search(evidence)):
        return [f"the claim says {sorted(t for t in c_toks if verb_stem(t) in new)[0]!r} where the source says "
                f"{proposed.group(0)!r}"]
    return []
