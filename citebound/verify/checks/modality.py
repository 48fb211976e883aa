"""The modality check: a claim must not make an obligation of what its source only permits or recommends.

"Employees must complete the training" against "Employees may complete the training": every content
word of the claim is in its source ("must" and "may" are stop words), so word overlap (and, measured, the
entailment model) calls it supported. Modal words are ranked: an obligation (`must`, `shall`, `required`,
`mandatory`, `compulsory`, `obligatory`, `have to` / `has to` / `need to`) above a recommendation (`should`,
`ought`, `recommended`, `advised`, `encouraged`) above a permission or possibility (`may`, `might`, `can`,
`could`, `optional`, `allowed`, `permitted`). A claim conflicts with its best evidence window when

- the claim's strongest modal outranks the strongest the window states (which states at least one), and
- every other content word of the claim is in the window (the claim restates the window's statement),
  and in one clause of it that states a modal itself, and
- neither is negated ("need not", "not required": the negation rule reads those).

A claim that states as fact what its source only hedges is unsupported too ("The drug reduces blood
pressure" against "Early results suggest the drug may reduce blood pressure": every word of the claim is
there, so overlap and the model support it). `stated_hedges`: the claim states no modal and no hedge, and
every clause of the source that restates it (states all its content words) hedges the claim's own words: a
hedge (`may`, `might`, `possibly`, `likely`, `appears to` ...) whose next content word is one of the
claim's ("may reduce"), not a hedge of something else in the clause ("The drug, which may cause nausea,
reduces blood pressure"). `can` and `could` are ability, not hedges. A report ("reports suggest that",
"reportedly") is not read as a hedge: summaries drop the attribution, and the claim sets label such
restatements supported (three of the five dev rows a first version blocked were QAGS sentences of that kind).

A capitalised "May" inside a sentence, or before a number, is the month ("on 3 May"), not a modal. The
evidence may also state an obligation without a modal verb ("Drivers need a valid licence", "are
obligated to"): read there only, so those words can stop a conflict but never make one.

A claim that joins statements in one sentence (an answer's "..., and MFA is mandatory", "..., so Dr Okafor
is recommending a change") is read whole, then part by part (`text.sentences.clause_parts`), each part
against the clauses of the evidence that restate it (up to six parts). The evidence's "recommend(s)" and
"advise(s)" rank as recommendations.

An obligation the source denies ("not required", "need not", "don't have to") conflicts with a claim that
states it ("must"), when the claim restates the source's words. A weaker claim ("may" against "must") is
not a conflict. The cascade runs it with the negation rule; a
conflict makes the source `unsupported` (stage `modality`) whatever a model says.
"""

from __future__ import annotations

import re

from citebound.text.stem import STOP_WORDS, alpha_content_stems, stem
from citebound.text.tokenize import is_contracted_negation, tokens
from citebound.text.sentences import clause_parts, sentence_spans
from citebound.verify.checks.scope import EXCEPTION_WORDS, restating_clauses

_RANK = {
    **dict.fromkeys(("must", "shall", "required", "mandatory", "compulsory", "obligatory", "obliged"), 3),
    **dict.fromkeys(("should", "ought", "recommended", "advised", "encouraged", "expected"), 2),
    **dict.fromkeys(("may", "might", "can", "could", "optional", "allowed", "permitted"), 1),
}
_NEED = frozenset({"have", "has", "need", "needs"})  # "have to", "needs to": an obligation
_MODAL_WORDS = frozenset(_RANK) | _NEED
# Obligations a source may state without a modal verb ("Drivers need a valid licence", "are obligated
# to"): read only in the evidence, where they can only stop a conflict, never make one.
_STATED_OBLIGATION = frozenset({"need", "needs", "obligated", "necessary", "requires", "require"})
# A recommendation a source states with a verb ("We recommend that employees change ..."): read only in the
# evidence (a claim's "The airline advises that passengers can check in" reports, it recommends nothing)
_STATED_RECOMMENDATION = frozenset({"recommend", "recommends", "advise", "advises"})
_NEGATIONS = frozenset("not no never cannot".split())
# an obligation the source denies: "not required", "need not", "don't have to"
_DENIED_OBLIGATION = re.compile(
    r"\b(?:not|never)\s+(?:be\s+)?(?:required|mandatory|compulsory|obligatory)\b|\bneed\s+not\b|"
    r"(?:\bnot\s+|n['’]t\s+)(?:have|need)\s+to\b",
    re.IGNORECASE,
)
_MAY = re.compile(r"\bMay\b")


def _months_named(text: str) -> str:
    """`text` with the month "May" ("on 3 May", "in May", "May 31") written "Maymonth", so that it is not
    read as the modal: a capitalised "May" is the month unless it opens a sentence before anything but a
    number ("May I ...", "May 31 ...")."""
    def name(m: re.Match[str]) -> str:
        before = text[: m.start()].rstrip()
        opens = not before or before[-1] in ".!?:;\"“(" or before[-1] == "\n"
        return "Maymonth" if not opens or text[m.end() : m.end() + 2].strip()[:1].isdigit() else "May"

    return _MAY.sub(name, text) if "May" in text else text


def _modals(toks: list[str], evidence: bool = False) -> list[tuple[int, str]]:
    found = [(_RANK[t], t) for t in toks if t in _RANK]
    found += [(3, f"{a} to") for a, b in zip(toks, toks[1:]) if a in _NEED and b == "to"]
    if evidence:
        found += [(3, t) for t in toks if t in _STATED_OBLIGATION]
        found += [(2, t) for t in toks if t in _STATED_RECOMMENDATION]
    return found


def modality_conflicts(claim: str, evidence: str) -> list[str]:
    """The claim's modal where it outranks its evidence's, as a readable phrase; empty otherwise. A claim
    that joins several statements ("Employees are required to change their passwords, and MFA is
    mandatory") is read whole, then part by part (`clause_parts`), each against the clauses of the
    evidence that restate it: a "mandatory" of the other part is not the recommendation's."""
    if found := _modality_conflicts(claim, evidence):
        return found
    parts = clause_parts(claim)
    if not 2 <= len(parts) <= _MAX_PARTS:
        return []
    named = _months_named(evidence)
    for part in parts:
        restating = list(restating_clauses(named, _content(tokens(_months_named(part)))))
        if restating and (found := _modality_conflicts(part, " ".join(c.strip().rstrip(".") + "." for c in restating))):
            return found
    return []


_MAX_PARTS = 6  # an answer's sentence joins a few statements; more is a list, read whole


def _content(toks: list[str]) -> set[str]:
    """The stems of the content words of `toks` but its modals: what a clause must state to restate it."""
    return {stem(t) for t in toks if t.isalpha() and t not in STOP_WORDS and t not in _MODAL_WORDS}


def _modality_conflicts(claim: str, evidence: str) -> list[str]:
    c_toks = tokens(_months_named(claim))
    claimed = _modals(c_toks)
    if not claimed:
        return []  # a claim without a modal: the window need not be read (the cascade asks every claim)
    evidence = _months_named(evidence)
    e_toks = tokens(evidence)
    stated = _modals(e_toks, evidence=True)
    if not stated:
        return []
    # the claim's words but its modals: what a sentence of the evidence must state to restate it
    c_content = _content(c_toks)
    c_negated = any(t in _NEGATIONS or is_contracted_negation(t) for t in c_toks)
    if not c_negated and max(claimed)[0] == 3 and (denied := _denied_obligation(c_content, evidence)):
        # "Applicants must submit a portfolio" against "... may submit a portfolio, but it is not required"
        return [f"the claim says {max(claimed)[1]!r} where the source says {denied!r}"]
    if c_negated or any(t in _NEGATIONS or is_contracted_negation(t) for t in e_toks):
        return []
    (c_rank, c_word), (e_rank, e_word) = max(claimed), max(stated)
    if c_rank <= e_rank:
        return []
    e_content = alpha_content_stems(e_toks)
    if not c_content or not c_content <= e_content or not _restated_with_a_modal(evidence, c_content):
        return []
    return [f"the claim says {c_word!r} where the source says {e_word!r}"]


# Words that hedge what follows them: the source says it may be so, not that it is.
_HEDGES = frozenset("may might possibly perhaps probably likely unlikely potentially presumably allegedly".split())
# a clause that only suggests: its "could" is a possibility ("suggests that coffee could reduce"), not an ability
_TENTATIVE = frozenset("suggest suggests suggested indicate indicates indicated hypothesise hypothesize "
                       "hypothesised hypothesized speculate speculated hint hints hinted".split())
_SEEM = frozenset({"appear", "appears", "appeared", "seem", "seems", "seemed"})  # "appears to", "seems to"


def _hedge_words(toks: list[str]) -> list[int]:
    """Positions of the hedges in `toks` ("appears" / "seems" only before "to")."""
    return [k for k, t in enumerate(toks) if t in _HEDGES or (t in _SEEM and toks[k + 1 : k + 2] == ["to"])]


# A claim's report of a finding ("The study shows that", "The company confirmed"): what it reports is read
# on its own too, as the source's own report ("The authors suggest that ...") is left in its clause.
_REPORTED = re.compile(
    r"^[\w\s'.-]{0,50}?\b(shows?|showed|shown|found|finds|confirms?|confirmed|proves?|proved|proven|"
    r"demonstrates?|demonstrated|establishes|established|says?|said|states?|stated|reports?|reported|"
    r"announced|announces|concluded|concludes)\s+(?:that\s+)?", re.IGNORECASE)
# verbs of a report that says it is so, against the source's that only say it may be ("suggests")
_PROVING = frozenset("show shows showed shown prove proves proved proven confirm confirms confirmed demonstrate "
                     "demonstrates demonstrated establish establishes established".split())
# and of one that found it: a clause that says either states it ("found that ..., which suggests ...")
_FOUND = frozenset({"found", "finds", "find", "observed", "observes"})


def _tentative_reports(verb: str, finding: str, evidence: str) -> list[str]:
    """The source's tentative verb when the claim reports as shown ("The study shows that coffee reduces
    ...") what every restating clause of the source only suggests ("The study suggests that coffee
    reduces ..."); empty otherwise."""
    if verb not in _PROVING:
        return []
    f_toks = tokens(finding)
    if _modals(f_toks) or _hedge_words(f_toks) or any(t in _NEGATIONS for t in f_toks):
        return []
    f_content = alpha_content_stems(f_toks)
    if len(f_content) < 2:
        return []
    first = None
    for clause in restating_clauses(evidence, f_content):
        toks = tokens(clause)
        said = [t for t in toks if t in _TENTATIVE or t in _SEEM]
        # a clause states, shows or found it ("found that ..., which suggests naps may help"); "appears to
        # show" only suggests
        if not said or any((t in _PROVING or t in _FOUND) and not set(toks[max(0, k - 2) : k]) & (_SEEM | _HEDGES)
                           for k, t in enumerate(toks)):  # fmt: skip
            return []
        first = first or said[0]
    return [f"the claim reports as shown what the source only hedges ({first!r})"] if first else []


def stated_hedges(claim: str, evidence: str) -> list[str]:
    """The source's hedge where the claim states as fact what every restating clause of the source only
    hedges; empty otherwise. A claim that joins statements is read whole, then part by part
    (`clause_parts`: "..., so Dr Okafor is recommending a change in diet" against "Dr Okafor may
    recommend a change in diet"); a claim that reports a finding ("The study shows that coffee reduces
    ...") is read without its report too."""
    if found := _stated_hedges(claim, evidence):
        return found
    if (m := _REPORTED.match(claim)) and (found := _stated_hedges(claim[m.end() :], evidence)):
        return found
    if m and (found := _tentative_reports(m.group(1).casefold(), claim[m.end() :], evidence)):
        return found
    parts = clause_parts(claim)
    c_toks = tokens(_months_named(claim))
    if not 2 <= len(parts) <= _MAX_PARTS or _modals(c_toks) or _hedge_words(c_toks):
        return []  # a claim that hedges one part ("..., and they will probably rise again") keeps the source's hedge
    for part in parts:
        if found := _stated_hedges(part, evidence):
            return found
    return []


def _stated_hedges(claim: str, evidence: str) -> list[str]:
    c_toks = tokens(_months_named(claim))
    if not c_toks or _modals(c_toks) or _hedge_words(c_toks):
        return []  # the claim hedges or states a modal itself (the modality ranks above read those)
    if any(t in _NEGATIONS or is_contracted_negation(t) for t in c_toks):
        return []  # a negated claim is the negation rule's
    c_content = alpha_content_stems(c_toks)
    if len(c_content) < 2:
        return []
    # a future the claim states ("will open") is hedged by the source's "could open" of the same verb
    futures = {_next_content(c_toks, k) for k, t in enumerate(c_toks) if t == "will"} - {None}
    first = None
    for clause in restating_clauses(_months_named(evidence), c_content):
        toks = tokens(clause)
        found = [toks[k] for k in _hedge_words(toks) if _next_content(toks, k) in c_content]
        found += [t for k, t in enumerate(toks) if t in ("could", "would") and (
            _next_content(toks, k) in futures  # "will open" / "could open", "would open"
            or (t == "could" and _next_content(toks, k) in c_content and any(w in _TENTATIVE for w in toks[:k])))
            and not _also_plain(toks, k)]  # fmt: skip
        if not found:
            return []  # a clause states it plainly
        first = first or found[0]
    return [f"the claim states as fact what the source only hedges ({first!r})"] if first else []


def _also_plain(toks: list[str], k: int) -> bool:
    """Whether the clause also states the verb after the "could" at k without it ("The old ferry could
    carry 200 cars, but the new ferry will carry 400")."""
    verb = _next_content(toks, k)
    hedged = sum(_next_content(toks, j) == verb for j, t in enumerate(toks) if t in ("could", "would") or t in _HEDGES)
    return sum(t.isalpha() and stem(t) == verb for t in toks) > hedged


def _next_content(toks: list[str], k: int) -> str | None:
    """The stem of the first content word after position k ("may significantly reduce" -> "reduc")."""
    for t in toks[k + 1 : k + 6]:
        if t.isalpha() and t not in STOP_WORDS and t not in _MODAL_WORDS and not t.endswith("ly") and t != "that":
            return stem(t)
    return None


def _denied_obligation(c_content: set[str], evidence: str) -> str | None:
    """The words of a sentence that restates the claim (states every stem of `c_content`, its content
    words but its modals) and denies an obligation ("not required") while stating none plainly ("Guests
    must show ID, but they do not have to print their ticket" restates "must show ID"), else None."""
    if not c_content:
        return None
    for start, end in sentence_spans(evidence):
        sentence = evidence[start:end]
        denied = _DENIED_OBLIGATION.search(sentence)
        if denied is None:
            continue
        toks = tokens(sentence)
        if not c_content <= alpha_content_stems(toks):
            continue
        plain = [t for k, t in enumerate(toks) if _RANK.get(t) == 3 or (t in _NEED and toks[k + 1 : k + 2] == ["to"])]
        if all(any(n in _NEGATIONS or is_contracted_negation(n) for n in toks[max(0, k - 2) : k])
               for k, t in enumerate(toks) if t in plain):  # fmt: skip
            return " ".join(denied.group(0).split())
    return None


def _restated_with_a_modal(evidence: str, c_content: set[str]) -> bool:
    """Whether a clause of the evidence (a sentence, or part of one between semicolons) that states every
    content word of the claim states a modal itself: a "may" of another statement is not the restated
    one's ("Tenants pay rent by the 5th; late payments may incur a fee")."""
    return any(_modals(tokens(clause), evidence=True) for clause in restating_clauses(evidence, c_content))


# A permission a source denies: "does not permit guests under 16 in the weights area", "is not allowed",
# "are prohibited from", "banned"
_DENIED_PERMISSION = re.compile(
    r"\b(?:(?:not|never|n['’]t)\s+(?:be\s+)?(?:permit(?:s|ted)?|allow(?:s|ed)?)|must\s+not\s+be\s+"
    r"(?:taken|brought|carried|used)|(?-i:prohibit(?:s|ed)?|forbid(?:s|den)?|"
    r"banned|barred))\b",  # lower case: "Barred owls", "the Forbidden City" are names
    re.IGNORECASE,
)
# a claim that restates the ban ("Drivers can be banned"), and the words that narrow who or when: the clause
# must state those too ("Guests over 16 may" is not denied by "does not permit guests under 16")
# "can be banned" restates a ban; "may be taken onto trams" is a permission to take, bring or use a thing
_PASSIVE_PERMISSION = re.compile(r"\b(?:may|can|could)\s+be\s+(?!(?:taken|brought|carried|used)\b)[^\W\d_]+(?:ed|en)\b",
                                 re.IGNORECASE)
_NARROWING = frozenset({"over", "under", "above", "below", "with", "without", "before", "after", "during", "until",
                        "from"})
_BANNING = frozenset({"ban", "bans", "bar", "bars", "prohibit", "prohibits", "forbid", "forbids"})  # "may ban members"
_BUT = re.compile(r"\s+but\s+", re.IGNORECASE)
_EXCEPTED = re.compile(rf"\b(?:{EXCEPTION_WORDS}|unless|only)\b", re.IGNORECASE)
_PERMISSIONS = frozenset({"may", "can", "allowed", "permitted"})
_PERMISSION_WORDS = frozenset({"permit", "permits", "permitted", "allow", "allows", "allowed", "prohibit", "prohibits",
                               "prohibited", "forbid", "forbids", "forbidden", "banned", "barred", "use", "uses",
                               # what is permitted with a thing: "take bikes onto trams" is "bring bikes onto trams"
                               "used", "take", "taken", "bring", "brought", "carry", "carried"})


def denied_permissions(claim: str, evidence: str) -> list[str]:
    """A permission the claim states ("Guests under 16 may use the weights area") that a sentence of the
    evidence denies ("The club does not permit guests under 16 in the weights area"), the clause (cut at
    "but" too) stating every content word of the claim ("use" and the words of permitting aside) and each
    of its narrowing words ("under", "with", "at" ...): the source's words, as a readable phrase; empty
    otherwise. A negated claim is the negation rule's; a claim that restates a ban ("can be banned") is left
    alone."""
    c_toks = tokens(_months_named(claim))
    if not _PERMISSIONS.intersection(c_toks) or any(t in _NEGATIONS or is_contracted_negation(t) for t in c_toks) \
            or _PASSIVE_PERMISSION.search(claim) or _DENIED_PERMISSION.search(claim) or _BANNING.intersection(c_toks):
        return []
    content = _content([t for t in c_toks if t not in _PERMISSION_WORDS])
    narrowing = _NARROWING.intersection(c_toks)
    if len(content) < 2:
        return []
    # "Flash is prohibited, but visitors may take photos", "banned in lessons but students may use phones"
    parts = [p for a, b in sentence_spans(evidence) for c in clause_parts(evidence[a:b]) for p in _BUT.split(c)]
    for part in parts:
        denied = _DENIED_PERMISSION.search(part)
        if denied is None or _EXCEPTED.search(part, denied.end()):
            continue  # "not allowed anywhere except the lobby": allowed there
        p_toks = tokens(part)
        if content <= alpha_content_stems(p_toks) and narrowing <= set(p_toks):
            return [f"the claim says {sorted(_PERMISSIONS.intersection(c_toks))[0]!r} where the source says "
                    f"{' '.join(denied.group(0).split())!r}"]
    return []
