"""The kind check: a claim must not swap a word of its source for another of the same closed kind.

"Server access logs are reviewed by the security team every month" against "... every week", "The north
wing is closed" against "The south wing is closed", "The museum is closed on Tuesdays" against "... on
Mondays": every other word of the claim is in its source, so word overlap scores it high and the
entailment model said P = 0.85 for the first. The words are those of `text.kinds.ONE_OF_A_KIND` (a day
of the week, a part of the week or of the day, a season, a month as a date, a direction, a colour not written
as a name, a period read as how often: "every month", "each week", "weekly"; "a week" or a period after a
number is a duration or a unit, the numbers check's).
It finds a swap when

- the claim's word is not in the best evidence window (in any spelling of it: "daily" is "every day"),
- the window has another word of its kind that the claim does not use, and
- every other content word of the claim is in one clause of the window (a sentence, or part of one between
  semicolons) that has the other word, or (a longer claim, an answer's sentence that says more) the window
  has the other word between the same two content words as the claim's ("close at midnight on 14 March" /
  "close at noon on 14 March") (the claim is that clause's statement with the one word swapped;
  with words the clause lacks, the claim may say something else: "The museum opens on Tuesdays" against
  "The museum is closed on Mondays; it opens on other days").

A negated claim is left to the negation rule. The cascade runs it after the opposite rule; a swap makes
the source `unsupported` (stage `kind`) whatever a model says.
"""

from __future__ import annotations

import re

from citebound.text.kinds import FREQUENCY_ADVERBS, ONE_OF_A_KIND
from citebound.text.stem import STOP_WORDS, alpha_content_stems, stem
from citebound.text.tokenize import tokens
from citebound.verify.checks.negation import states_negation
from citebound.verify.checks.scope import restating_clauses

# a period read as how often: "every month", "each week", "weekly"; not "a week" ("lasts a week", "twelve
# times a year" is monthly: a count before the period is the numbers check's)
_HOW_OFTEN = frozenset({"every", "each"})
# a month only as a date ("in April", "on 3 March", "April 2020"; "protesters march" is a verb)
_DATE_WORDS = frozenset({"in", "on", "of", "since", "until", "till", "by", "from", "during", "through", "early", "mid",
                         "late", "last", "next", "this", "every", "each"})  # fmt: skip


def _counts(toks: list[str], i: int, lenient: bool = False) -> bool:
    """Whether the word at i is read: a period only as how often, a month only as a date. `lenient`: also a
    period after "per" / "a" ("£120 per month" states the claim's "monthly"; it swaps in for none)."""
    kind = ONE_OF_A_KIND[toks[i]][0]
    if kind == "period":
        return toks[i] in FREQUENCY_ADVERBS or (i > 0 and (toks[i - 1] in _HOW_OFTEN or (
            lenient and toks[i - 1] in ("per", "a", "an"))))
    if kind == "month":
        return (i > 0 and (toks[i - 1] in _DATE_WORDS or toks[i - 1].isdigit())) or (
            i + 1 < len(toks) and toks[i + 1].isdigit())
    return True


def _names(text: str) -> set[str]:
    """Words written with a capital inside a sentence ("Meg White", "the Red Cross"): names, not colours."""
    return {m.group(1).lower() for m in re.finditer(r"(?<![.!?]\s)(?<!^)\b([A-Z][a-z]+)", text)}


def swapped_kinds(claim: str, window: str) -> list[str]:
    """Each word of the claim the window states as another of its kind, the claim otherwise the window's
    statement, as a readable phrase; empty when there is none or the claim is negated."""
    c_toks = tokens(claim)
    if not any(t in ONE_OF_A_KIND for t in c_toks) or states_negation(c_toks):
        return []
    w_toks = tokens(window)
    named = _names(claim) | _names(window)  # a colour written as a name is the name's
    in_window = {ONE_OF_A_KIND[t] for j, t in enumerate(w_toks) if t in ONE_OF_A_KIND and _counts(w_toks, j, True)}
    if not in_window:
        return []
    claim_kinds = {ONE_OF_A_KIND[t] for j, t in enumerate(c_toks) if t in ONE_OF_A_KIND and _counts(c_toks, j)}
    window_stems = alpha_content_stems(w_toks)
    claimed = alpha_content_stems(c_toks)
    out = []
    for i, tok in enumerate(c_toks):
        if tok not in ONE_OF_A_KIND or not _counts(c_toks, i) or ONE_OF_A_KIND[tok] in in_window:
            continue
        kind = ONE_OF_A_KIND[tok][0]
        if kind == "colour" and tok in named:
            continue
        rest = claimed - {stem(t) for t in c_toks if t in ONE_OF_A_KIND and ONE_OF_A_KIND[t][0] == kind}
        if not rest:
            continue
        def other(toks: list[str], j: int) -> bool:
            t = toks[j]
            return (t in ONE_OF_A_KIND and _counts(toks, j) and ONE_OF_A_KIND[t][0] == kind
                    and ONE_OF_A_KIND[t] not in claim_kinds and not (kind == "colour" and t in named))  # fmt: skip
        found = None
        if rest <= window_stems:
            for clause in restating_clauses(window, rest):  # the statement, with the other word in it
                c_w = tokens(clause)
                found = next((t for j, t in enumerate(c_w) if other(c_w, j)), None)
                if found:
                    break
        if found is None:
            # a longer claim (an answer's sentence says more): the other word where the window has the claim's
            # word's neighbours ("close at midnight on 14 March" / "close at noon on 14 March")
            found = next((t for j, t in enumerate(w_toks) if other(w_toks, j)
                          and _neighbours(w_toks, j) == _neighbours(c_toks, i) != (None, None)), None)  # fmt: skip
        if found:
            out.append(f"the claim says {tok!r} where its evidence says {found!r}")
    return out


def _neighbours(toks: list[str], i: int) -> tuple[str | None, str | None]:
    """The stems of the nearest content words before and after position i (within three tokens each)."""
    def near(span):
        return next((stem(toks[k]) for k in span if toks[k].isalpha() and toks[k] not in STOP_WORDS
                     and toks[k] not in ONE_OF_A_KIND), None)  # fmt: skip
    return near(range(i - 1, max(-1, i - 4), -1)), near(range(i + 1, min(len(toks), i + 4)))


# When a thing happened against its plan, as a phrase: on time, late, early ("completed two months late",
# "arrived late", "ahead of schedule"); "the late king", "late afternoon" are no such phrase
_DONE = (r"(?:arrived|completed|finished|delivered|submitted|paid|started|opened|launched|ended|came|done|was|were|is|"
         r"are|be|been|running|ran)")
_SPAN = (r"(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|several|a\s+few)\s+"
         r"(?:minutes?|hours?|days?|weeks?|months?|years?)")
_TIMELINESS = tuple((re.compile(p, re.IGNORECASE), which) for p, which in (
    (r"\bon\s+(?:time|schedule)\b|\bin\s+time\b|\bpunctually\b|\bas\s+scheduled\b|\bbefore\s+the\s+deadline\b",
     "on time"),
    (rf"\b{_SPAN}\s+late\b|\b{_DONE}\s+late\b(?!\s+in\b)|\bbehind\s+schedule\b|\bdelayed\b|\boverdue\b|"
     r"\blate\s+by\b|\bafter\s+the\s+deadline\b", "late"),
    (rf"\b{_SPAN}\s+early\b|\b{_DONE}\s+early\b(?!\s+in\b)|\bahead\s+of\s+schedule\b", "early"),
))  # fmt: skip
_TIMELINESS_WORDS = frozenset({"time", "schedul", "punctual", "late", "delay", "overdu", "earli", "ahead", "behind",
                               "deadlin", "minut", "hour", "day", "week", "month", "year"})  # fmt: skip


def _timeliness(text: str) -> dict[str, str]:
    """Each of on time / late / early the text says, with the phrase as written."""
    return {which: m.group(0) for pattern, which in _TIMELINESS if (m := pattern.search(text))}


def swapped_timeliness(claim: str, window: str) -> list[str]:
    """The claim says a thing happened on time (late, early) where the window's clause that states the rest
    of it says late (on time, early): "The project was completed on time" against "The project was completed
    two months late". Empty when there is none or the claim is negated."""
    said = _timeliness(claim)
    if len(said) != 1 or states_negation(tokens(claim)):
        return []
    (which, phrase), = said.items()
    rest = alpha_content_stems(tokens(claim)) - _TIMELINESS_WORDS
    if not rest:
        return []
    for clause in restating_clauses(window, rest):
        stated = _timeliness(clause)
        if stated and which not in stated:
            return [f"the claim says {phrase!r} where its evidence says {next(iter(stated.values()))!r}"]
    return []


# A multiple said as a verb ("tripled"), and every way a text may say that multiple ("three times", "200%"):
# "Profits tripled" against "Profits doubled last year" (full supported it, P = 0.87)
_MULTIPLE_VERBS = {"doubled": 2, "doubles": 2, "doubling": 2, "tripled": 3, "triples": 3, "tripling": 3, "trebled": 3,
                   "trebles": 3, "quadrupled": 4, "quadruples": 4, "halved": -2, "halves": -2, "halving": -2}
_TIMES = r"(?:\s*[-x×]|\s*-?\s*(?:fold|times)|\s+factor)"
_PERCENT = r"(?:\s?%|\s*-?\s*(?:per\s?-?cent|pc|pct)\b)"
_SAID_AS = {
    2: rf"doubl\w*|twice|(?:two|2){_TIMES}|factor\s+of\s+(?:two|2)|100{_PERCENT}",
    3: rf"tripl\w*|trebl\w*|thrice|(?:three|3){_TIMES}|factor\s+of\s+(?:three|3)|200{_PERCENT}",
    4: rf"quadrupl\w*|(?:four|4){_TIMES}|factor\s+of\s+(?:four|4)|300{_PERCENT}|doubled\W+(?:\w+\W+){{0,3}}again",
    -2: rf"halv\w*|half|50{_PERCENT}",
}
_FROM_TO = re.compile(r"\bfrom\s+([\d,.]+)\s+to\s+([\d,.]+)", re.IGNORECASE)


def swapped_multiples(claim: str, window: str) -> list[str]:
    """A multiple the claim says with a verb ("tripled") where the window says another one ("doubled") of the
    same statement (every other content word of the claim in the window's clause part) and the claim's multiple
    in no words anywhere ("twice as much ..., and butter prices have tripled", "a factor of three", "200pc",
    "rose from 10 to 30", "doubled, then doubled again"). A negated claim, "more than doubled" and "doubled as"
    are left alone. A review (43 faithful, 26 false cases, 2026-12-03) found the first version blocking 11
    faithful claims (another subject's verb after "as", other ways of writing a multiple); this one blocks none
    of them and 10 false."""
    c_toks = tokens(claim)
    said = [(t, _MULTIPLE_VERBS[t]) for t in c_toks if t in _MULTIPLE_VERBS]
    if len(said) != 1 or states_negation(c_toks):
        return []
    word, value = said[0]
    if re.search(rf"\b(?:more|less)\s+than\s+{word}|{word}\s+(?:as|down|up)\b", claim, re.IGNORECASE):
        return []  # "more than doubled", "doubled as a hospital": no multiple of its own
    if re.search(rf"\b(?:{_SAID_AS[value]})", window, re.IGNORECASE) or _changed_by(window, value):
        return []
    rest = alpha_content_stems(c_toks) - {stem(word)}
    if not rest:
        return []
    for clause in restating_clauses(window, rest):
        for part in _PARTS.split(clause):  # "Membership rose from 200 to 400, and the waiting list tripled"
            p_toks = tokens(part)
            other = next((t for t in p_toks if t in _MULTIPLE_VERBS and _MULTIPLE_VERBS[t] != value), None)
            if other and rest <= alpha_content_stems(p_toks):
                return [f"the claim says {word!r} where its evidence says {other!r}"]
    return []


_PARTS = re.compile(r",|;|\b(?:and|but|while|whereas|as|after|when|since|because|then)\b", re.IGNORECASE)


def _changed_by(text: str, value: int) -> bool:
    """Whether a change "from X to Y" of the text is that multiple ("rose from 10 to 30": tripled)."""
    for m in _FROM_TO.finditer(text):
        try:
            a, b = (float(g.replace(",", "").rstrip(".")) for g in m.groups())
        except ValueError:
            continue
        if a and b and abs(b / a - (value if value > 0 else 1 / -value)) < 0.05 * abs(value):
            return True
    return False
