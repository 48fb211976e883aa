"""The dates check: a date in a claim must be the one its source gives to the same event.

"The bridge opened in 1932" against "Construction of the bridge began in 1932 and it opened in 1937":
1932 is in the source and every word of the claim is too, so the numbers check (value present, in a
sentence about the bridge) and word overlap pass it, and the entailment model says P = 0.93. What is
wrong is which event the date belongs to. This rule reads `EVENT (in|on|during|…) DATE` — a content
word, then at most a few linking words, then a year or a month — in the claim and in its best evidence
window:

- the claim's event is the verb in the past right before its date ("opened in 1932" -> open; "resigned
  in March" -> resign; an "-ed" form or a common irregular one), stemmed; a noun before a date ("the
  council in 2017") names no event and is not read;
- in the evidence, every occurrence of that stem followed by a date in the same way binds the event to
  that date; so does the event of a short complement of its own clause ("opened to the public in 1994",
  in the claim as well), and a range ("ran from 2010 to 2015") binds it to both ends;
- a conflict: the evidence binds the event to other dates of the same kind (years to years, months to
  months) only, never to the claim's, while the
  claim's date is in the evidence (given to something else). An event the evidence does not date but
  names with a kindred verb ("opened" / "founded", "closed" / "ended", "built" / "constructed", "bought" /
  "acquired") is read as that one when the claim's date is given to an event outside the group ("The
  school opened in 1964" against "founded in 1958 and moved to its current building in 1964"). An event
  the evidence never dates, or dates in another construction ("In 1937 the bridge opened"), is left to
  the other checks.
"""

from __future__ import annotations

import re

from citebound.text.stem import STOP_WORDS, stem

MONTH_NAMES = "january february march april may june july august september october november december".split()
MONTHS = {m: i for i, m in enumerate(MONTH_NAMES, 1)}
MONTHS.update({m[:3]: i for m, i in list(MONTHS.items()) if m != "may"})
MONTHS["sept"] = 9
_LINKS = frozenset({"in", "on", "during", "since", "by", "at", "the", "of", "early", "late", "mid", "around",
                    "until", "till", "from", "before", "after", "about", "circa", "c", "year", "month",
                    "spring", "summer", "autumn", "winter"})  # fmt: skip
# An event is a verb in the past: "-ed" forms and the common irregular ones. Nouns before a date
# ("the council in 2017", "the full year 2020", "for the first time since 2011") name no event, and
# reading them as one blocked supported claims on the public sets.
_IRREGULAR_PAST = frozenset({"began", "begun", "became", "built", "bought", "came", "died", "fell", "flew", "found",
                             "gave", "grew", "held", "joined", "knew", "led", "left", "lost", "made", "met", "ran",
                             "rose", "sold", "sent", "set", "shot", "spent", "stood", "struck", "took", "taught",
                             "told", "went", "won", "wrote", "written", "born", "sank", "shut", "split", "quit",
                             "paid", "laid", "hit", "cut", "put", "read", "drew", "drove", "broke", "chose",
                             "froze", "spoke", "stole", "swore", "tore", "wore", "sang"})  # fmt: skip
_TOKEN = re.compile(r"[^\W_]+|[.,;:!?()\[\]\"“”]")
_YEAR = re.compile(r"1[0-9]{3}|20[0-9]{2}")
_GAP = 3  # linking words between an event and its date
_COMPLEMENT = 4  # words of the event's own clause between it and the linking words ("opened to the public in")
_CLAUSE_ENDS = frozenset({".", ",", ";", ":", "!", "?", "(", ")", "and", "but", "or", "while", "whereas", "which",
                          "who", "that", "when", "after", "before", "until", "since"})  # fmt: skip
_RANGE_WORDS = frozenset({"to", "until", "till", "through", "and"})


def _date(toks: list[str], i: int) -> str | None:
    """The date token toks[i] names ("1932", "month:3"), or None. "may" is a month only after a linking
    word or before a number ("in May", "May 2020"), never as the modal verb."""
    tok = toks[i]
    if _YEAR.fullmatch(tok):
        return tok
    if tok in MONTHS:
        if tok == "may" and not ((i and toks[i - 1] in _LINKS) or (i + 1 < len(toks) and toks[i + 1].isdigit())):
            return None
        return f"month:{MONTHS[tok]}"
    return None


# A verb after a modal or a plan ("will reopen on 3 March", "is due to open in May") names an event too:
# "The library will reopen on 3 March" against "closed on 3 March for repairs and will reopen in June".
# "to" alone is not enough ("moved to Paris in 1990": Paris is no event).
_MODALS = frozenset({"will", "would", "shall", "should", "must", "can", "could", "might"})
_PLAN_BEFORE_TO = frozenset({"plans", "planned", "plan", "expected", "due", "set", "scheduled", "intends", "intended",
                             "going", "hopes", "hoped", "aims", "aimed", "is", "are", "was", "were"})  # fmt: skip


def _may_be_event(tok: str) -> bool:
    """A word, not a stop word, linking word or month: what an event's verb can be."""
    return tok[:1].isalpha() and tok not in STOP_WORDS and tok not in _LINKS and tok not in MONTHS


def _event(tok: str) -> bool:
    return _may_be_event(tok) and (tok in _IRREGULAR_PAST or (len(tok) > 4 and tok.endswith("ed")))


def _event_at(toks: list[str], k: int) -> bool:
    """toks[k] is an event: a verb in the past, or a bare verb after a modal or a plan's "to"."""
    tok = toks[k]
    if _event(tok):
        return True
    if k == 0 or len(tok) < 3 or not _may_be_event(tok):
        return False
    prev = toks[k - 1]
    return prev in _MODALS or (prev == "to" and k >= 2 and toks[k - 2] in _PLAN_BEFORE_TO)


def _event_before(toks: list[str], i: int) -> int | None:
    """The index of the event that dates toks[i]: right before it past linking words ("opened in"), or
    past a short complement of its own clause ("opened to the public in", "sold the company in")."""
    if toks[i] in MONTHS and i and toks[i - 1].isdigit() and len(toks[i - 1]) <= 2:
        i -= 1  # a day before its month ("closed on 3 March")
    j = i - 1
    while j >= 0 and i - j <= _GAP + 1 and toks[j] in _LINKS:
        j -= 1
    if j < 0 or i - j > _GAP + 1:
        return None
    if _event_at(toks, j):
        return j
    k, skipped = j, 0
    while k >= 0 and skipped < _COMPLEMENT and toks[k] not in _CLAUSE_ENDS and _date(toks, k) is None \
            and not toks[k].isdigit() and not _event_at(toks, k):  # fmt: skip
        k -= 1
        skipped += 1
    return k if k >= 0 and _event_at(toks, k) else None


def _year_after_month(toks: list[str], i: int) -> int | None:
    """The index of the year a month at i is written with ("January 2021", "January 5, 2021"), else None."""
    k = i + 1
    if k < len(toks) and toks[k].isdigit() and len(toks[k]) <= 2:
        k += 1 + (k + 1 < len(toks) and toks[k + 1] == ",")
    return k if k < len(toks) and _YEAR.fullmatch(toks[k]) else None


def _bindings(toks: list[str]) -> list[tuple[str, str, int]]:
    """(event stem, date, index of the date) for every `EVENT (complement) link* DATE` in the tokens; a
    range ("from 2010 to 2015", "2010-2015") binds the event to both ends."""
    out = []
    for i in range(len(toks)):
        date = _date(toks, i)
        if date is None:
            continue
        j = _event_before(toks, i)
        if j is None:
            continue
        # a planned event is another event than the one done: "had planned to open stores by 2030" dates
        # no opening that happened, so plans are compared with plans and deeds with deeds
        event = stem(toks[j]) + ("" if _event(toks[j]) else _PLANNED)
        out.append((event, date, i))
        if date.startswith("month:") and (y := _year_after_month(toks, i)) is not None:
            out.append((event, toks[y], y))  # "came into force in January 2021": 2021 too
        k = i + 2 if i + 2 < len(toks) and toks[i + 1] in _RANGE_WORDS else i + 1
        end = _date(toks, k) if k < len(toks) else None
        if end is not None and end.startswith("month:") == date.startswith("month:"):
            out.append((event, end, k))
    return out


def _describe(date: str) -> str:
    if date.startswith("month:"):
        return MONTH_NAMES[int(date[6:]) - 1].capitalize()
    return date


# Events that name one another ("opened" / "founded"): when the evidence dates none of the claim's own
# words, one of its group dated otherwise, and the claim's date given to an event outside the group
# ("The school opened in 1964" against "founded in 1958 and moved to its current building in 1964"), the
# claim dates its event with another's date.
_KINDRED = [frozenset(stem(w) for w in group.split()) for group in (
    "open opened found founded establish established start started launch launched begin began begun create "
    "created form formed inaugurate inaugurated introduce introduced",
    "close closed end ended finish finished complete completed shut cease ceased dissolve dissolved stop stopped "
    "conclude concluded",
    "build built construct constructed erect erected",
    "buy bought acquire acquired purchase purchased",
)]


_PLANNED = "@planned"  # the key suffix of an event only planned or expected ("will reopen", "is due to open")


def _kindred(event: str) -> frozenset[str]:
    base, planned = event.removesuffix(_PLANNED), event.endswith(_PLANNED)
    group = next((g for g in _KINDRED if base in g), frozenset())
    return frozenset(k + _PLANNED for k in group) if planned else group


def date_conflicts(claim: str, evidence: str) -> list[str]:
    """Each `event date` of the claim that the evidence dates otherwise, as a readable phrase; empty
    when they agree or the rule cannot tell."""
    c_toks = [t.casefold() for t in _TOKEN.findall(claim)]
    claimed = _bindings(c_toks)
    if not claimed:
        return []
    e_toks = [t.casefold() for t in _TOKEN.findall(evidence)]
    e_dates = {d for i in range(len(e_toks)) if (d := _date(e_toks, i)) is not None}
    bound: dict[str, set[str]] = {}
    for event, date, _ in _bindings(e_toks):
        bound.setdefault(event, set()).add(date)
    out = []
    for event, date, i in claimed:
        # a month is compared with months, a year with years ("published in December 1865" says nothing
        # against "published in 1938" of another edition)
        given = {d for d in bound.get(event, ()) if d.startswith("month:") == date.startswith("month:")}
        kin = _kindred(event)
        if not bound.get(event) and kin and not any(date in bound.get(k, ()) for k in kin) \
                and any(date in dates for e, dates in bound.items() if e not in kin):  # fmt: skip
            given = {d for k in kin for d in bound.get(k, ()) if d.startswith("month:") == date.startswith("month:")}
            said = sorted(k.removesuffix(_PLANNED) for k in kin if bound.get(k))
            if given and date not in given and date in e_dates:
                word = c_toks[next(k for k in range(i - 1, -1, -1) if _event_at(c_toks, k))]
                out.append(f"the source dates {said[0]!r} (of a kind with {word!r}) "
                           f"{' or '.join(sorted(_describe(d) for d in given))}, not {_describe(date)} (which it gives "
                           f"to something else)")  # fmt: skip
                continue
        if given and date not in given and date in e_dates:
            word = c_toks[i - 1] if c_toks[i - 1] not in _LINKS and not c_toks[i - 1].isdigit() else c_toks[next(
                k for k in range(i - 1, -1, -1) if _event_at(c_toks, k))]  # fmt: skip
            others = " or ".join(sorted(_describe(d) for d in given))
            out.append(f"the source dates {word!r} {others}, not {_describe(date)} (which it gives to something else)")
    return out
