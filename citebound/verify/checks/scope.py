"""The scope check: a claim must not widen what its source restricts, or narrow what it shares.

"All orders ship free" against "Orders over 50 euros ship free", or "Only managers can approve expenses"
against "Managers and team leads can approve expenses": every content word of the claim is in its
source, so word overlap (and, measured, the entailment model) calls it supported. This rule reads, in
the claim and its best evidence window:

- **all**: the claim says `all` / `every` / `each` / `any` of a noun, the window names that noun with a
  restriction right after it (`over`, `above`, `under`, `below`, `exceeding`, `more than`, `less than`,
  `at least`, `at most`, `up to`, `from`, `within`: "orders over 50 euros") or right before it (`some`,
  `most`, `certain`, `selected`, `eligible`, `qualifying`, `many`, `few`) or a part of it ("two of the
  five flights", "a third of the members", "nine in ten residents"), and says no universal itself;
- **most**: the claim says `most` (or "the majority") of a noun, the window names at most half of it ("two
  of the five flights", "a third of the members", "40 percent of the staff", "few members", "a minority
  of"), and says no `most` / `majority` / `all` itself;
- **all, restricted**: the claim says `all` / `every` / `each` / `any` of a noun, and the clause of the window
  that states the rest of it goes on with an exception of some of those things (`except`, `other than`,
  `but not` ...: "except those who ...", "except Mondays" of "every day") or a condition (`only if`,
  `unless`, `provided`, `as long as` ...) the claim does not state:
  "Every staff member must complete the training by 30 November" against "All staff must complete the
  training by 30 November, except those who completed it within the past year";
- **only**: the claim says `only` of a noun (or "X alone"), the window names that noun joined to
  another by `and` / `or` / `as well as` ("managers and team leads") that the claim does not name
  itself ("Only cash and cards" restates "cash and cards"), and says no `only` itself;

and every other content word of the claim is in the clause (sentence, or part of one between
semicolons) that names the noun so (the claim restates that statement with its scope changed). A
negated claim is left alone. The cascade runs it with the negation rule; a conflict makes the source
`unsupported` (stage `scope`) whatever a model says.
"""

from __future__ import annotations

import re

from citebound.text.kinds import ONE_OF_A_KIND
from citebound.text.numbers import FRACTION_WORDS, single_number
from citebound.text.sentences import sentence_spans
from citebound.text.stem import STOP_WORDS, alpha_content_stems, stem
from citebound.text.tokenize import tokens
from citebound.verify.checks.negation import states_negation

_UNIVERSAL = frozenset({"all", "every", "each", "any"})
_AFTER = re.compile(r"\s+(?:over|above|under|below|exceeding|more\s+than|less\s+than|fewer\s+than|at\s+least|"
                    r"at\s+most|up\s+to|from|within)\b", re.IGNORECASE)
_BEFORE = frozenset({"some", "most", "certain", "selected", "eligible", "qualifying", "many", "few"})
# a part of the noun named right before it: "two of the five flights", "a third of the members", "nine in ten
# residents", "40 percent of the staff"
_SMALL = ("one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|sixty|seventy|"
          "eighty|ninety|hundred|thousand")
_PART = (r"(?:\d[\d,.]*\s*(?:%|percent|per\s+cent)?|" + _SMALL + r"|half|thirds?|quarters?|fifths?|tenths?|some|most|"
         r"many|few|several|handful|none|majority|minority|percent|per\s+cent)")
_PARTITIVE = re.compile(r"\b(" + _PART + r")\s+(?:of|in|out\s+of)\s+(?:the\s+|its\s+|their\s+|our\s+|these\s+|"
                        r"those\s+)?((?:\d[\d,]*|" + _SMALL + r")\s+)?$", re.IGNORECASE)
# parts that do not say "most" ("several members" is no majority of them)
_MINORITY = frozenset({"few", "minority", "none", "some", "several", "handful"})
_JOINED = re.compile(r"\s+(?:and|or|as\s+well\s+as)\s+(?:the\s+|a\s+|an\s+)?([^\W\d_]+)", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]+(?:'[^\W\d_]+)?")


def _noun_after(toks: list[str], i: int) -> str | None:
    """The first content word after position `i` (skipping "the", "of", "our"...): the noun quantified."""
    for tok in toks[i + 1 : i + 4]:
        if tok.isalpha() and tok not in STOP_WORDS:
            return tok
    return None


def scope_conflicts(claim: str, evidence: str) -> list[str]:
    """Each widened or narrowed scope, as a readable phrase; empty when none or the rule cannot tell."""
    c_toks = tokens(claim)
    if not (_UNIVERSAL.intersection(c_toks) or "only" in c_toks or "most" in c_toks or "majority" in c_toks):
        return []  # nothing to widen or narrow: the window need not be read (the cascade asks every claim)
    if states_negation(c_toks):
        return []
    w_toks = tokens(evidence)
    claimed = alpha_content_stems(c_toks)
    out = []
    for i, tok in enumerate(c_toks):
        if tok in _UNIVERSAL and (limit := _universal_restricted(claim, c_toks, i, claimed, evidence)):
            out.append(f"the source restricts what it says of {tok} {_noun_after(c_toks, i)}: {limit!r}")
        elif tok in _UNIVERSAL and not _UNIVERSAL & set(w_toks):
            noun = _noun_after(c_toks, i)
            if noun and not _restricted(claim, noun) and any(
                    _restricted(clause, noun) for clause in restating_clauses(evidence, claimed - {stem(noun)})):
                out.append(f"the source says it of some {noun}, not {tok} {noun}")
        elif tok in ("most", "majority") and (i == 0 or not _NOT_A_SHARE.match(c_toks[i - 1]) or tok == "majority") \
                and not {"most", "majority", "all", "every"} & set(w_toks):
            noun = _noun_after(c_toks, i)
            said = claimed - {stem(noun)} if noun else set()
            for clause in restating_clauses(evidence, said) if noun else ():
                # each share of the noun said with the claim's predicate ("Several staff left early, but 45 of
                # the 50 staff stayed late": the second one); none above a half
                shares = [sh for sh, rest in _shares(clause, noun) if said & alpha_content_stems(tokens(rest))]
                share = shares[0] if shares and all(sh[0] <= 0.5 for sh in shares) else None
                if share is not None:
                    out.append(f"the source says it of {share[1]!r} {noun}, not {tok} {noun}")
                    break
        elif tok == "only" and "only" not in w_toks and "alone" not in w_toks:
            noun = _noun_after(c_toks, i)
            for clause in restating_clauses(evidence, claimed - {stem(noun)}) if noun else ():
                other = _joined(clause, noun)
                if other and stem(other.casefold()) not in claimed:  # "Only cash and cards": the claim names both
                    out.append(f"the source says it of {noun} and {other}, not only {noun}")
                    break
    return out


# the words that open an exception (checks/exceptions.py reads the same)
EXCEPTION_WORDS = (r"except(?:\s+for)?|excluding|other\s+than|apart\s+from|with\s+the\s+exception\s+of|but\s+not|"
                   r"save\s+for")
# what takes part of a statement back: an exception (of some of the things the claim says "all" of) or a
# condition (on the whole statement) right after it
_RESTRICTION = re.compile(
    rf"\b(?:(?P<exception>{EXCEPTION_WORDS})|only\s+if|only\s+when|unless|provided(?:\s+that)?|as\s+long\s+as|"
    r"on\s+(?:the\s+)?condition\s+that)\b",
    re.IGNORECASE,
)
# an exception names some of the quantified things by these too ("except those who ...", "other than new hires")
_SOME_OF_THEM = frozenset({"those", "anyone", "anybody", "people", "ones", "who", "whom", "whose"})
_TIME_NOUNS = frozenset({"day", "week", "month", "year", "weekday"})


def _quantified(c_toks: list[str], i: int) -> set[str]:
    """The stems of the noun phrase after the universal at i: "every staff member" -> {staff, member}, "every
    employee receives" -> {employe} (a verb in -s after a singular quantifier ends it), "all students" ->
    {student}."""
    words = [t for t in c_toks[i + 1 : i + 4] if t.isalpha() and t not in STOP_WORDS][:2]
    if not words:
        return set()
    if len(words) == 2 and (c_toks[i] == "all" or words[1].endswith("s")):
        words = words[:1]
    return {stem(w) for w in words}


def _names_some(phrase: str, quantified: set[str]) -> bool:
    """Whether an exception's phrase names some of the quantified things: the noun itself, "those who ...",
    or a day or month of a time noun ("every day except Mondays")."""
    toks = [t for t in tokens(phrase) if t.isalpha()]
    if {stem(t) for t in toks} & quantified or _SOME_OF_THEM.intersection(toks):
        return True
    return bool(quantified & _TIME_NOUNS) and any(ONE_OF_A_KIND.get(t, ("",))[0] in ("day", "month") for t in toks)


def _universal_restricted(claim: str, c_toks: list[str], i: int, claimed: set[str], evidence: str) -> str | None:
    """The exception or condition a clause of `evidence` puts on the very statement the claim makes of all of
    something ("Every staff member must complete the training by 30 November" against "All staff must
    complete the training by 30 November, except those who completed it within the past year"; "Any
    student may retake the exam" against "Students may retake the exam, but only if ..."): the words of the
    claim, but its quantified noun phrase, all stated before the restriction, with the quantified noun; an
    exception set off by a comma takes back part of the statement (", except interns"), one that is not
    must name some of the quantified things ("study mathematics but not Latin" excepts the object); the
    claim states no restriction itself. None when there is none."""
    noun = _noun_after(c_toks, i)
    if noun is None or _RESTRICTION.search(claim) or "only" in c_toks:
        return None
    quantified = _quantified(c_toks, i)
    rest = claimed - quantified
    for clause in restating_clauses(evidence, rest):
        m = _RESTRICTION.search(clause)
        if m is None:
            continue
        stated = alpha_content_stems(tokens(clause[: m.start()]))
        phrase = clause[m.start() :].split(".")[0].strip().rstrip(",;:")
        exception = m.group("exception")
        set_off = bool(exception) and clause[: m.start()].rstrip().endswith(",") and not exception.lower().startswith("but")
        if exception and not set_off and not _names_some(phrase[m.end() - m.start() :], quantified):
            continue  # "study mathematics but not Latin": an exception of the object, not of the quantified
        if rest <= stated and stem(noun) in stated and alpha_content_stems(tokens(phrase)) - claimed:
            return phrase if len(phrase) <= 80 else phrase[:79].rstrip() + "…"
    return None


def restating_clauses(evidence: str, rest: set[str]):
    """The clauses of `evidence` (its sentences, cut at semicolons) that state every word of `rest`: the
    statement the claim restates. A restriction in another clause is of something else ("Students
    receive a laptop; students from abroad also receive a grant")."""
    for start, end in sentence_spans(evidence):
        for clause in evidence[start:end].split(";"):
            if rest <= alpha_content_stems(tokens(clause)):
                yield clause


def _mentions(evidence: str, noun: str):
    """Each place the evidence names `noun` (or a word with its stem): (start, end) of the word."""
    target = stem(noun)
    for m in _WORD.finditer(evidence):
        if stem(m.group(0).casefold()) == target:
            yield m.start(), m.end()


def _restricted(evidence: str, noun: str) -> bool:
    for start, end in _mentions(evidence, noun):
        if _AFTER.match(evidence, end):
            return True
        before = tokens(evidence[max(0, start - 20) : start])
        if before and before[-1] in _BEFORE:
            return True
        if _PARTITIVE.search(evidence, max(0, start - 40), start):
            return True  # "two of the five flights": a part of them
    return False


def _number(word: str) -> float | None:
    found = single_number(word)
    return float(found.value) if found is not None else None


def _shares(evidence: str, noun: str):
    """Each share of `noun` a part named right before it is ("two of the five flights" -> 0.4, "a third of
    the members" -> 0.33, "few members" -> 0), with the words, and the rest of its clause: ((share, words),
    rest)."""
    for start, end in _mentions(evidence, noun):
        rest = _CLAUSE_REST.match(evidence, end).group(0)  # type: ignore[union-attr]
        if (share := _share_before(evidence[max(0, start - 40) : start])) is not None:
            yield share, rest


_CLAUSE_REST = re.compile(r"(?:(?!\s+(?:but|and|while|whereas)\b)[^,;.!?])*")
# "at most 200", "the cafe's most popular dish": no share of a noun
_NOT_A_SHARE = re.compile(r"^(?:the|at|[^\W\d_]+'s)$")


def _share_before(head: str) -> tuple[float, str] | None:
    before = tokens(head)
    if before and before[-1] in _MINORITY - {"none"}:  # "few members", "several members"
        return 0.0, before[-1]
    if before[-2:] in (["couple", "of"], ["dozen", "of"]) or before[-1:] == ["dozen"]:  # "a couple of", "several dozen"
        return 0.0, " ".join(before[-2:])
    m = _PARTITIVE.search(head)
    if m is None:
        return None
    part, whole = m.group(1).casefold(), m.group(2)
    shown = " ".join(m.group(0).split())
    if part in _MINORITY:
        return 0.0, shown
    if part.rstrip("s") in FRACTION_WORDS or part in FRACTION_WORDS:
        k = head[: m.start(1)].split()[-1:]  # "a third", "two thirds"
        n = 1.0 if not k or k[0].casefold() in ("a", "one") else (_number(k[0]) or 1.0)
        return n / FRACTION_WORDS[part], " ".join(k + [shown])
    if "%" in part or "cent" in part:
        value = _number(re.sub(r"[^\d.]", "", part) or "x")
        return (value / 100, shown) if value is not None else None
    p = _number(part)
    q = _number(whole.strip()) if whole else None
    return (p / q, shown) if p is not None and q else None


def _joined(evidence: str, noun: str) -> str | None:
    """Another noun the evidence joins to `noun` ("managers and team leads" -> "team"), if any."""
    for start, end in _mentions(evidence, noun):
        m = _JOINED.match(evidence, end)
        if m and m.group(1).casefold() not in STOP_WORDS:
            return m.group(1)
        before = evidence[max(0, start - 40) : start]
        b = re.search(r"([^\W\d_]+)\s+(?:and|or)\s+(?:the\s+)?$", before, re.IGNORECASE)
        if b and b.group(1).casefold() not in STOP_WORDS:
            return b.group(1)
    return None
