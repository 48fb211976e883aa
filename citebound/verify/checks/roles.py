"""The role check: a claim must not give a source's deed to another name the source mentions.

"Alice founded the company in 2010" against "Bob founded the company in 2010; Alice joined in 2012", or
"The company was founded in Berlin" against "The company was founded in Munich and moved to Berlin":
every word of the claim is in its source, so word overlap (and, measured, the entailment model) calls it
supported. This rule reads a name the claim puts in one of two places beside a verb, and the same verb
in the best evidence window:

- **who**: "NAME VERB" or "VERB by NAME" ("Alice founded", "founded by Alice");
- **where**: "VERB in NAME" or "VERB at NAME" ("founded in Berlin"; the name may come a few words after
  the verb: "founded in 1990 in Berlin"; "in the NAME": "hangs in the Louvre"), with a verb in the past
  or the present ("lives in Lyon").

A NAME is a run of capitalised words that are not stop words ("Alice", "New York"; "The" is none). It
finds a conflict when the window states the verb with another name in the same place ("Bob founded",
"founded in Munich"), never with the claim's (or a part of it), and names the claim's name elsewhere;
the window must give the verb one name (or list) only (several are of several subjects), not written
beside the claim's ("Marion Smith": "Marion died" is Smith); for "who", the claim's name must also be in
no clause that states the verb (a sentence, or a part of one between semicolons or before "and"/"but" +
another subject: "Bob founded it with Alice" names her), and no clause may say the verb of a pronoun ("He
died in ...": he may be the claim's name); for "where", a claim that names who did it must find the
window say it of that name ("Smith died in Blackville" is no conflict with "Walls died in Newcastle"). A
name listed with the source's ("in Munich, Germany", "in
Munich, in southern Germany", "Bob and Alice") is in the same place; a place goes on until the clause
moves to another verb ("in Munich and moved to Berlin"). A negated claim is left alone. The cascade runs
it with the negation rule; a conflict makes the source `unsupported` (stage `role`) whatever a model
says.

`swapped_roles`, in the same stage: who did a deed to whom, turned round ("Northwind acquired Acme"
against "In 2019 Acme acquired Northwind"; a passive "was acquired by" read as the deed it names), with
the same verb or one that says the same deed (`_SAME_DEED`: "bought" / "acquired", "defeated" / "beat",
"succeeded" / "replaced"; "took over from" is "replaced", "lost to" is "was beaten by"), a title of one or
two words allowed before a name ("defeated top seed Roza Malik"). Either side may be an article and a noun instead of a
name ("The startup acquired the bank" against "The bank acquired the startup"). `crossed_roles`: a name given the thing the source
gives another name, with the same verb, when the source gives the claim's name another thing ("Maria Lopez
leads the design team" against "Maria Lopez leads the research team, and Tom Becker leads the design team").

`invented_names`, in the same stage: a name the claim gives to an office ("Spokesperson Anna Lee said")
where the source states the office and names no one ("A spokesperson said"); on the claim sets' dev splits
it fires on 7 rows (5 gold unsupported; 2 climate_fever claims crediting a president the evidence does
not name).

`invented_authors`, in the same stage: a name the claim gives as who wrote, made or founded something
("written by Dr. Lee", "designed by Gehry") of which the whole source names no word ("The report was
published by the health ministry"): the entailment model supported that one (P = 0.58); or a name the
source gives another deed ("Clara Weiss played the piano on the recording") while it says the claim's
deed of no one ("composed by Clara Weiss": no "compos..." word in the source; a deed of publishing
may be the author's own and is no other deed). Only after a
verb of making or authorship: a wider version ("by NAME", "according to NAME" after any word) fired on
52 dev claims over whole evidence (3 gold supported: climate_fever claims crediting a study the evidence
does not name) and lowered the all-dev mean by moving the global threshold; this one fires on none.
"""

from __future__ import annotations

import re

from citebound.text.kinds import ONE_OF_A_KIND
from citebound.text.sentences import split_sentences
from citebound.text.stem import IRREGULAR_BASE, STOP_WORDS, stem
from citebound.verify.checks.negation import CLAUSE_NEGATIONS, states_negation

_TOKEN = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*|\d+|[.;:,!?()]")
_CLAUSE_END = frozenset(".;:!?()")
_JOIN = frozenset({"and", "or", ","})
_PLACE_PREPS = frozenset({"in", "at"})
_PLACE_REACH = 5  # tokens after the verb a "where" name may start at ("founded in 1990 in Berlin")


# Past forms that do not end in -ed ("Bob wrote", "born in Salzburg")
_IRREGULAR_PAST = frozenset("""born built wrote written led won made began begun held sold bought gave given took
taken ran found became left met taught brought drew drawn grew grown chose chosen spoke spoken told kept lost
paid sent spent sang sung stood went came did done beat beaten broke broken caught chose fought flew flown
hid hidden knew known laid lit meant rode ridden rang rung saw seen shot shut sold stole stolen swore sworn
threw thrown understood woke woken wore worn""".split()) | frozenset(IRREGULAR_BASE)


_CALENDAR = frozenset({"may"} | {w for w, (kind, _) in ONE_OF_A_KIND.items() if kind in ("month", "day")})


def _is_name(tok: str) -> bool:
    """A capitalised word that is no stop word, acronym or month ("Alice", "Munich"; not "The", "DNA", "G",
    "January")."""
    low = tok.casefold()
    return (len(tok) > 1 and tok[:1].isupper() and tok[1:].islower() and low not in STOP_WORDS
            and low not in CLAUSE_NEGATIONS and low not in _CALENDAR)  # fmt: skip


def _is_verb(tok: str) -> bool:
    """A lower-case content word: what a name before it does, or what happened in a place after it."""
    return tok[:1].islower() and tok.isalpha() and tok not in STOP_WORDS and tok not in CLAUSE_NEGATIONS


def _is_past(tok: str) -> bool:
    """A verb in the past: the deeds the rule reads ("founded", "wrote"); "Pacific island", "Minor allele"
    are a name and a noun."""
    return _is_verb(tok) and (tok.endswith("ed") or tok in _IRREGULAR_PAST)


def _is_present(tok: str) -> bool:
    """A verb in the present, third person ("hangs", "lives"): where it happens now is read too."""
    return _is_verb(tok) and tok.endswith("s") and not tok.endswith(("ss", "us", "is"))


def _name_before(toks: list[str], i: int) -> list[str]:
    """The names right before position i, joined by "and" / "or" / commas ("Bob and Alice" founded)."""
    return [t for t in toks[_name_start(toks, i) : i] if _is_name(t)][::-1]


def _name_start(toks: list[str], i: int) -> int:
    """Where the names right before position i begin (i itself when none)."""
    j = i - 1
    while j >= 0 and _is_name(toks[j]):
        j -= 1
        if j >= 1 and toks[j] in _JOIN and _is_name(toks[j - 1]):
            j -= 1
    return j + 1


def _names_after(toks: list[str], i: int) -> list[str]:
    """The names from position i on, joined by "and" / "or" / commas ("Munich, Germany")."""
    names, j = [], i
    while j < len(toks) and _is_name(toks[j]):
        names.append(toks[j])
        j += 1
        if j + 1 < len(toks) and toks[j] in _JOIN and _is_name(toks[j + 1]):
            j += 1
    return names


# a title or an initial before a name is no sentence end ("Dr. Smith", "J. Smith")
_ABBREVIATION = re.compile(r"\b(Dr|Mr|Mrs|Ms|Prof|St|Jr|Sr|[A-Z])\.")


def _clauses(text: str) -> list[list[str]]:
    """The text's clauses as tokens: cut at sentence ends and semicolons, before "and" / "but" when a new
    subject follows it ("Bob founded it and Alice joined"; not "Bob and Alice founded"), and at a comma
    before a participle ("Seville won the bid, beating Madrid": Madrid is beaten, not a winner)."""
    out: list[list[str]] = [[]]
    toks = _TOKEN.findall(_ABBREVIATION.sub(r"\1", text))
    for k, tok in enumerate(toks):
        if tok in _CLAUSE_END:
            out.append([])
            continue
        if tok == "," and k + 1 < len(toks) and toks[k + 1].endswith("ing") and _is_verb(toks[k + 1]):
            out.append([])  # ", beating Madrid": a participle's clause, of what it names, not the verb's before
            continue
        if tok.casefold() in ("and", "but", "while", "whereas") and out[-1] and not _is_name(out[-1][-1]) \
                and _states_deed(_after_name(toks, k + 1)):  # fmt: skip
            out.append([])  # "..., while Marcus Yeo became head of operations": another subject's clause
            continue
        out[-1].append(tok)
    return [c for c in out if c]


def _states_deed(tok: str) -> bool:
    """A verb in the past or the present ("became", "leads"): what a new subject does. A noun after a name is
    none ("and Marcus Yeo head of operations": the verb left out, the clause goes on)."""
    return _is_past(tok) or (_is_present(tok) and not tok.endswith("ss"))


def _after_name(toks: list[str], k: int) -> str:
    """The token after the run of name words from k ("Marcus Yeo became": "became"); "" when no name is at k."""
    j = k
    while j < len(toks) and _is_name(toks[j]):
        j += 1
    return toks[j] if k < j < len(toks) else ""


def _roles(clause: list[str]) -> list[tuple[str, str, frozenset[str], str]]:
    """(role, verb stem, the names in it, the verb as written) for each "NAME VERB", "VERB by NAME" (who),
    "NAME was VERB" with no agent (whom: "Lena Brandt was appointed"), "VERB in/at NAME" (where)."""
    out = []
    for i, tok in enumerate(clause):
        past = _is_past(tok)
        if not past and not _is_present(tok):
            continue
        verb = stem(tok)
        if past and (who := _name_before(clause, i)) and (i == len(who) or not _is_name(clause[i - len(who) - 1])):
            out.append(("who", verb, frozenset(who), tok))
        if past and i + 2 < len(clause) and clause[i + 1] == "by" and (agent := _names_after(clause, i + 2)):
            out.append(("who", verb, frozenset(agent), tok))
        elif past and i >= 2 and clause[i - 1].casefold() in ("was", "were") and (whom := _name_before(clause, i - 1)) \
                and ((start := _name_start(clause, i - 1)) == 0 or not _is_name(clause[start - 1])):  # fmt: skip
            # "Lena Brandt was appointed chief financial officer": to whom the deed was done (no agent named)
            out.append(("whom", verb, frozenset(whom), tok))
        for j in range(i + 1, min(len(clause) - 1, i + 1 + _PLACE_REACH)):
            if clause[j] in _PLACE_PREPS and (_is_name(clause[j + 1]) or (
                    clause[j + 1] == "the" and j + 2 < len(clause) and _is_name(clause[j + 2]))):  # fmt: skip
                out.append(("where", verb, frozenset(_places(clause, j)), tok))
                break
            if _is_verb(clause[j]) and j > i + 1:
                break  # another verb's place
    return out


def _places(clause: list[str], j: int) -> list[str]:
    """Every name from position j on until the clause goes on to another verb or event ("in Munich, in
    southern Germany" names both; "in Munich and moved to Berlin", "in Prague, after last year's meeting in
    Vienna" only the first)."""
    names = []
    for k in range(j, len(clause)):
        tok = clause[k]
        if tok.casefold() in _OTHER_EVENT and (tok.casefold() in _ALWAYS_OTHER or (
                k + 1 < len(clause) and (clause[k + 1].casefold() in _OTHER_TIME or clause[k + 1].endswith("ing")))):
            break  # "after last year's meeting in Vienna", "before moving to York"; not "after a day off, in Cork"
        if tok.casefold() in ("and", "but", "then", ",") and k + 1 < len(clause) and _is_verb(clause[k + 1]) \
                and clause[k + 1] not in _PLACE_PREPS:  # fmt: skip
            break
        if _is_name(tok):
            names.append(tok)
    return names


_PRONOUNS = frozenset({"he", "she", "they", "it", "we", "i", "who", "which", "that"})
_ALWAYS_OTHER = frozenset({"unlike", "replacing", "instead", "than", "whereas"})
_OTHER_EVENT = _ALWAYS_OTHER | {"after", "before", "following", "while"}
_OTHER_TIME = frozenset({"last", "previous", "next", "earlier", "its", "their", "his", "her", "the"})


def _pronoun_does(clause: list[str], verb: str) -> bool:
    """Whether the clause says the verb of a pronoun ("He died in Blackville")."""
    return any(stem(t) == verb and k and clause[k - 1].casefold() in _PRONOUNS for k, t in enumerate(clause))


def role_conflicts(claim: str, evidence: str) -> list[str]:
    """Each name the claim puts beside a verb where the evidence puts another, as a readable phrase;
    empty when there is none or the rule cannot relate them."""
    c_toks = _TOKEN.findall(claim)
    if not any(_is_name(t) for t in c_toks[1:]) and not (c_toks and _is_name(c_toks[0])):
        return []
    if states_negation(c_toks):
        return []
    claimed = [r for c in _clauses(claim) for r in _roles(c)]
    low = evidence.lower()
    claimed = [r for r in claimed if r[1][:-1] in low]  # the window may state the verb (a stem less its last letter)
    if not claimed:
        return []
    clauses = _clauses(evidence)
    evidence_names = {t for c in clauses for t in c if _is_name(t)}
    joined = " | ".join(" ".join(c) for c in clauses)  # a name at one clause's end is not one with the next's first
    out = []
    for role, verb, names, written in claimed:
        if not names <= evidence_names:
            continue  # a name the window lacks is the word overlap's to count
        stating = [c for c in clauses if any(stem(t) == verb for t in c if _is_verb(t))]
        said = [ns for c in stating for r, v, ns, _ in _roles(c) if r == role and v == verb]
        if not stating or any(names & ns for ns in said):
            continue  # the window does not state the verb, or states it with (part of) the claim's name
        if role in ("who", "whom") and any(names <= set(c) or _pronoun_does(c, verb) for c in stating):
            continue  # a clause that states the verb names the claim's name too ("Bob founded it with
            # Alice"), or says it of "he" / "she" / "they", who may be the claim's name
        if role == "where" and (subject := {n for r, v, ns, _ in claimed if r == "who" and v == verb for n in ns}) \
                and not any(subject & ns for c in stating for r, v, ns, _ in _roles(c) if r == "who" and v == verb):
            continue  # "Smith died in Blackville" against "Walls died in Newcastle": another one's place
        if len(set(said)) != 1:
            continue  # the verb said of several names: of several subjects, which the rule cannot tell apart
        others = said[0] - names
        if any(f"{a} {b}" in joined for a in others for b in names) or any(
                f"{b} {a}" in joined for a in others for b in names):
            continue  # one name of the claim's ("Marion Smith": "Smith died" / "Marion died")
        if others:
            asked = {"who": "who", "whom": "who was", "where": "where"}[role]
            out.append(f"the source says {_in_order(others, evidence)!r} where the claim says "
                       f"{_in_order(names, claim)!r} ({asked} {written!r})")  # fmt: skip
    return out


_BE = frozenset({"was", "were", "is", "are", "been", "be"})


_ARTICLES = frozenset({"the", "a", "an"})
_POSSESSIVES = frozenset({"its", "their", "his", "her", "our"})
_NOUN_WORDS = 3  # words of a "the NOUN" participant at most ("the small startup")


def _is_noun_word(tok: str) -> bool:
    return (tok.isalpha() and tok.islower() and tok not in STOP_WORDS and tok not in CLAUSE_NEGATIONS
            and tok not in _PARTICLES)


def _is_possessive(tok: str) -> bool:
    return tok[-2:].lower() in ("'s", "’s") and tok[:-2].isalpha() and tok[:-2].islower()


# "chased the hawk away": the particle ends the thing done to, it is no word of it
_PARTICLES = frozenset({"away", "off", "out", "up", "down", "back", "over", "around", "aside", "apart"})
# "A pair of crows chased ...": the crows did it
_COLLECTIVES = frozenset({"pair", "group", "flock", "herd", "pack", "couple", "team", "crowd", "band", "family",
                          "swarm", "colony", "gang", "number"})  # fmt: skip


def _party_before(clause: list[str], i: int) -> list[str]:
    """Who is right before position i: names ("Acme", "Bob and Alice"; "the city of Marlow": Marlow and the
    city), or an article and a noun ("the bank", "the new bank": read as its last word, the noun)."""
    if names := _name_before(clause, i):
        k = i - len(names) - 1  # "the city of Marlow": Marlow, and the city
        if k >= 2 and clause[k] == "of" and _is_noun_word(clause[k - 1]) and clause[k - 2].casefold() in _ARTICLES:
            return names + [stem(clause[k - 1])]
        if k >= 1 and clause[k] == "of" and _is_name(clause[k - 1]):
            return names + _name_before(clause, k)  # "The Ministry of Trade fined": Trade and Ministry
        return names
    j = i - 1
    while j >= 0 and i - j <= _NOUN_WORDS and (_is_noun_word(clause[j]) or (j < i - 1 and _is_possessive(clause[j]))):
        j -= 1  # "the musical's score": the score
    if j < i - 1 and j >= 0 and clause[j].casefold() in _ARTICLES and (j == 0 or not _is_name(clause[j - 1])):
        return [stem(clause[i - 1])]
    if j == i - 2 and j >= 2 and clause[j] == "of" and clause[j - 1].casefold() in _COLLECTIVES \
            and clause[j - 2].casefold() in _ARTICLES:  # "a pair of crows": crow
        return [stem(clause[i - 1])]
    return []


def _party_after(clause: list[str], i: int) -> list[str]:
    """Who is from position i on: names ("Northwind"), or an article and a noun up to the next word that is
    none ("the startup for 30 million euros": the startup), with the name it gives ("the startup Helix Labs",
    "the city of Marlow": the names and the noun)."""
    if names := _names_after(clause, i):
        return names
    if i + 1 < len(clause) and clause[i].casefold() in _ARTICLES and _is_name(clause[i + 1]):
        names = _names_after(clause, i + 1)  # "beat the Eastfield Bears": the name after its article
        j = i + 1 + len(names)
        if j + 1 < len(clause) and clause[j] == "of" and _is_name(clause[j + 1]):
            names += _names_after(clause, j + 1)  # "by the Ministry of Trade": Ministry and Trade
        return names
    for k in (i + 1, i + 2):  # "defeated top seed Roza Malik": a title of one or two words before the name
        if k < len(clause) and all(_is_noun_word(t) for t in clause[i:k]) and _is_name(clause[k]):
            return _names_after(clause, k)
    if i < len(clause) and (clause[i] in _ARTICLES or clause[i] in _POSSESSIVES):  # "its smaller rival Acme"
        j = i + 1
        while j < len(clause) and j - i <= _NOUN_WORDS and _is_noun_word(clause[j]):
            j += 1
        if j > i + 1:
            noun = [stem(clause[j - 1])]
            if j < len(clause) and _is_name(clause[j]):  # "the startup Helix Labs": the name it gives
                return _names_after(clause, j) + noun
            if j + 1 < len(clause) and clause[j] == "of" and _is_name(clause[j + 1]):  # "the city of Marlow"
                return _names_after(clause, j + 1) + noun
            return noun
    return []


def _deeds(clause: list[str]) -> list[tuple[str, frozenset[str], frozenset[str], str]]:
    """(verb stem, who, whom, the verb as written) for each "NAME VERB NAME" ("Acme acquired Northwind")
    and "NAME was VERB by NAME" ("Northwind was acquired by Acme": Acme did it, to Northwind); a NAME may
    also be an article and a noun ("The bank acquired the startup")."""
    out = []
    for i, tok in enumerate(clause):
        # a deed done, done now ("reimburses"), or one a modal says is to be done ("shall reimburse")
        modal = i >= 2 and clause[i - 1].casefold() in _DEED_MODALS and _is_verb(tok)
        if not (_is_past(tok) or _is_present(tok) or modal):
            continue
        verb = stem(tok)
        # "Orvanta has (now) acquired Pellby": the perfect's "has" (and an adverb) stands between who and the deed
        k = i - 2 if i >= 3 and clause[i - 1].casefold() in _PERFECT_ADVERBS else i - 1
        at = i - 1 if modal else (k if k >= 1 and _is_past(tok) and clause[k].casefold() in _PERFECT else i)
        if at >= 2 and _is_adverb_before_deed(clause[at - 1]):
            at -= 1  # "Quist narrowly defeated Stone": who did it stands before the adverb
        at = _before_aside(clause, at)
        who, whom = _party_before(clause, at) or _reported_subject(clause, i), _party_after(clause, i + 1)
        if who and whom:
            out.append((verb, frozenset(who), frozenset(whom), tok))
        if who and (to := _recipient(clause, i + 1)):
            out.append((verb, frozenset(who), frozenset(to), tok + " ... to"))
        if i >= 2 and clause[i - 1].casefold() in _BE and i + 2 < len(clause) and clause[i + 1] == "by":
            has = i - 3 if i >= 4 and clause[i - 2].casefold() in _PERFECT_ADVERBS else i - 2  # "has recently been"
            perfect = clause[i - 1].casefold() == "been" and clause[has].casefold() in ("has", "had", "have")
            k = has - 1 if perfect else i - 2  # "has been acquired by": the patient is before "has"
            patient, agent = _party_before(clause, k + 1), _party_after(clause, i + 2)
            if patient and agent:
                out.append((verb, frozenset(agent), frozenset(patient), tok))
    return out


_DEED_MODALS = frozenset({"must", "shall", "will", "should", "may", "can", "would", "could"})


_ASIDE_WORDS = 10


def _before_aside(clause: list[str], at: int) -> int:
    """Where the doer ends when an aside between commas stands between it and its deed ("Kurz, ranked 112th in
    the world, will face Tanaka": Kurz); `at` itself when there is none or no name before the first comma."""
    if at < 3 or clause[at - 1] != ",":
        return at
    for p in range(at - 2, max(0, at - 2 - _ASIDE_WORDS), -1):
        if clause[p] == ",":
            return p if _name_before(clause, p) else at
    return at


def _is_adverb_before_deed(tok: str) -> bool:
    """A lower-case "-ly" word right before a deed ("narrowly", "finally"), not a noun or adjective in "-ly", or
    an adverb of time ("Roussel later led the first winter ascent")."""
    if tok in _TIME_ADVERBS:
        return True
    return tok[:1].islower() and tok.endswith("ly") and len(tok) > 4 and tok.casefold() not in _NOT_ADVERBS


_TIME_ADVERBS = frozenset({"later", "then", "also", "soon", "again", "once", "first", "since", "already"})


_NOT_ADVERBS = frozenset({"family", "italy", "july", "supply", "assembly", "rally", "ally", "belly", "jelly", "reply",
                          "only", "early", "daily", "weekly", "monthly", "yearly", "likely"})


def _recipient(clause: list[str], i: int) -> list[str]:
    """Whom a deed goes to, after its object ("referred the patient to Dr Patel": Patel), within a few words
    and no clause break."""
    for j in range(i, min(len(clause) - 1, i + _OBJECT_WORDS + 1)):
        if clause[j] == "to":
            return _party_after(clause, j + 1)
        if clause[j] in _CLAUSE_END or clause[j] in (",", "and", "but", "by"):
            return []
    return []


_REPORTING = frozenset({"announced", "said", "says", "confirmed", "reported", "stated", "disclosed", "revealed"})
_PRONOUNS = frozenset({"it", "he", "she", "they"})
_PERFECT = frozenset({"had", "has", "have"})
_PERFECT_ADVERBS = frozenset({"now", "since", "also", "just", "finally", "recently", "already", "again", "then"})


def _reported_subject(clause: list[str], i: int) -> list[str]:
    """Who a pronoun before position i stands for in "NAME announced (...) that it had VERB-ed": the name
    that reports its own deed ("Orca Systems announced on Monday that it had acquired Brightline")."""
    k = i - 1
    while k >= 0 and clause[k] in _PERFECT:
        k -= 1
    if k < 1 or clause[k] not in _PRONOUNS or clause[k - 1] != "that":
        return []
    for r in range(k - 2, -1, -1):
        if clause[r] in _REPORTING:
            return _name_before(clause, r)
    return []


def _read_both(claim: str, evidence: str, reader) -> tuple[list, list]:
    """`reader` over the clauses of the claim and of the evidence; nothing for a negated claim (the
    negation rule reads it) or when the claim has nothing to read."""
    if states_negation(_TOKEN.findall(claim)):
        return [], []
    claimed = [d for c in _clauses(claim) for d in reader(c)]
    return (claimed, [d for c in _clauses(evidence) for d in reader(c)]) if claimed else ([], [])


# deeds two do to each other: either way round says the same
_MUTUAL = frozenset(stem(w) for w in ("met married played faced fought drew tied divorced dated partnered debated "
                                       "meet meets marry marries play plays face faces fight fights draw draws tie ties "
                                       "debate debates").split())


# Verbs that say one deed, read as one ("Lopez took over from Reed" is "Lopez replaced Reed"; "Ajax lost to
# Porto" is "Ajax was beaten by Porto"), so a claim that turns the deed round in other words is read too.
_TAKE_OVER = re.compile(r"\b(took|takes|take|taking|taken)\s+over\s+from\b")
_LOST_TO = re.compile(r"\b(?:lost|loses)\s+to\b")
_SAME_DEED = {stem(w): stem(c) for w, c in (("succeeded", "replaced"), ("defeated", "beat"), ("beaten", "beat"), ("bought", "acquired"),
                                             ("purchased", "acquired"), ("overtook", "passed"))}


def _one_deed_words(text: str) -> str:
    """`text` with the phrases of `_TAKE_OVER` / `_LOST_TO` written as the one verb they mean."""
    text = _TAKE_OVER.sub(lambda m: "replaced" if m[1] in ("took", "taken") else "replaces", text)
    return _LOST_TO.sub("was beaten by", text)


def _deed_stem(word: str) -> str:
    """The stem a deed is compared by: `_SAME_DEED` read ("bought" -> the stem of "acquired")."""
    return _SAME_DEED.get(stem(word), stem(word))


def _canonical_deeds(clause: list[str]) -> list[tuple[str, frozenset[str], frozenset[str], str]]:
    return [(_SAME_DEED.get(v, v), w, m, t) for v, w, m, t in _deeds(clause)]


def swapped_roles(claim: str, evidence: str, source: str | None = None) -> list[str]:
    """Each deed the claim says one name did to another that the evidence says the other did to the first
    ("Northwind acquired Acme" against "Acme acquired Northwind"), with the same verb or one of
    `_SAME_DEED` ("Lopez took over from Reed" against "Reed replaced Lopez"), and never the claim's way
    round (in the whole `source` either, when given: the best window may leave the sentence that says it
    out); empty when there is none or the rule cannot read it."""
    if source is not None and source != evidence and not swapped_roles(claim, source):
        return []
    claim, evidence = _SUFFIX_DOT.sub(r"\1", claim), _SUFFIX_DOT.sub(r"\1", evidence)
    rewritten = _one_deed_words(evidence)
    claimed, stated = _read_both(_one_deed_words(claim), rewritten, _canonical_deeds)
    if not claimed:
        return []
    plain = [d for c in _clauses(evidence) for d in _canonical_deeds(c)] if rewritten != evidence else stated
    said = {_deed_stem(t) for t in _TOKEN.findall(evidence) if t.isalpha()}
    out = []
    for verb, who, whom, written in claimed:
        if verb in _MUTUAL:
            continue  # "Alice married Bob" is "Bob married Alice"
        if _pronoun_party(rewritten, verb):
            continue  # "in 2020 Lopez took over from him": who "him" is, the rule cannot tell
        if _perfect(claim, written) and _perfect(evidence, None, verb) and sum(
                t.isalpha() and _deed_stem(t) == verb for t in _TOKEN.findall(rewritten)) > 1:
            # "Pellby acquired Orvanta in 2005 ... Orvanta has (in turn) acquired Pellby": the deed twice, the
            # claim's in the perfect: the reversed one may be the older
            continue
        # a source that says the claim's deed in its own words too ("lost to Porto in the league but beat them
        # in the final") is read in those words only: a phrase of the other side may be of another occasion
        same = [d for d in (plain if verb in said else stated) if d[0] == verb]
        if any(who & w and whom & m for _, w, m, _ in same):
            continue  # the evidence says it the claim's way round (too)
        if turned := [t for _, w, m, t in same if who & m and whom & w]:
            # the name's words in the claim's order ("Orca Systems"), the nouns as their stems ("tenant");
            # the source's verb ("Reed replaced Lopez" for a claim's "took over from")
            said = [_in_order(names, claim) for names in (whom, who)]
            out.append(f"the source says {said[0]!r} {turned[0]} {said[1]!r}, not the other way round")
    return out


_PARTY_PRONOUNS = frozenset({"he", "she", "they", "him", "her", "them", "it"})
# a company's "Co." / "Ltd." inside a sentence is no sentence end ("Northwind Ltd. bought Acme Corp. in 2019")
_SUFFIX_DOT = re.compile(r"\b(Co|Corp|Ltd|Inc|Bros|Plc|Cos)\.(?=\s+[a-z\d$€£]|\s*[,;:])")


def _perfect(text: str, written: str | None, verb: str | None = None) -> bool:
    """Whether `text` states a deed in the perfect ("has acquired", "have since been replaced"): the verb as
    written (`written`), or any form of the stem `verb` (`_SAME_DEED` read)."""
    toks = [t.casefold() for t in _TOKEN.findall(text)]
    for i, t in enumerate(toks):
        if (written is not None and t == written.split()[0].casefold()) or (
                verb is not None and t.isalpha() and _deed_stem(t) == verb):  # fmt: skip
            if _PERFECT.intersection(toks[max(0, i - 4) : i]):
                return True
    return False


def _pronoun_party(text: str, verb: str) -> bool:
    """Whether `text` says the deed `verb` (a stem, `_SAME_DEED` read) of a pronoun right beside it ("Lopez
    replaced him", "he replaced Lopez", "was beaten by them")."""
    toks = [t.casefold() for t in _TOKEN.findall(text)]
    for i, t in enumerate(toks):
        if t.isalpha() and _deed_stem(t) == verb:
            near = range(max(0, i - 4), min(len(toks), i + 3))  # "He has since been replaced by"
            # "said that it had acquired": the reported subject is read (`_reported_subject`)
            if any(toks[k] in _PARTY_PRONOUNS and (k == 0 or toks[k - 1] != "that") for k in near if k != i):
                return True
    return False


def _in_order(names: frozenset[str], text: str) -> str:
    """A party's words as `text` writes them in order ("Orca Systems"); words it lacks (stems) last. A party
    with a name is shown by its name ("the city of Marlow": 'Marlow', not the stem 'citi')."""
    shown = {n for n in names if n[:1].isupper()} or names
    return " ".join(sorted(shown, key=lambda n: (text.find(n) < 0, text.find(n))))


def _one_name(a: frozenset[str], b: frozenset[str], text: str) -> bool:
    """Whether a word of `a` and a word of `b` stand side by side in `text` ("Marie Curie"): one person."""
    return any(re.search(rf"\b(?:{re.escape(x)}\s+{re.escape(y)}|{re.escape(y)}\s+{re.escape(x)})\b", text)
               for x in a for y in b)  # fmt: skip


def _done_with(who: frozenset[str], text: str) -> bool:
    """Whether `text` names the party as one the deed was done with ("founded the company with Alice")."""
    return any(re.search(rf"\b(?:with|alongside|together\s+with)\s+(?:[^\W\d_]+\s+){{0,3}}{re.escape(x)}\b", text)
               for x in who)  # fmt: skip


def _all_names(party: frozenset[str]) -> bool:
    return bool(party) and all(w[:1].isupper() for w in party)


def other_doers(claim: str, evidence: str) -> list[str]:
    """Each deed the claim gives to one party that the evidence gives, with the same verb and the same thing
    done to, only to others ("Priya Nair composed the score" against "The score was composed by Daniel
    Ortiz, and Priya Nair wrote the lyrics"); doers are names on both sides (a noun may be a synonym:
    "police", "officers"). Empty when the evidence also says it the claim's way, names the claim's party
    among the doers ("by Daniel Ortiz and Priya Nair"), the verb is mutual, or the rule cannot read it."""
    claimed, stated = _read_both(claim, evidence, _deeds)
    out = []
    for verb, who, whom, written in claimed:
        if not _all_names(who):
            continue  # a doer named by a noun may be another's synonym ("police", "officers")
        if verb in _MUTUAL and _named_with_deed(who, verb, evidence):
            continue  # "Alice married Bob" against "Bob married Alice", "... and Bob married her": the party is there
        same = [(w, m) for v, w, m, _ in stated if v == verb and whom & m]
        if not same or any(who & w for w, _ in same) or not all(_all_names(w) for w, _ in same) \
                or any(_one_name(who, w, evidence) for w, _ in same) or _done_with(who, evidence):
            continue
        doers = " and ".join(_in_order(w, evidence) for w, _ in same)
        out.append(f"the source says {doers!r} {written} it, not {_in_order(who, claim)!r}")
    return out


def _named_with_deed(who: frozenset[str], verb: str, evidence: str) -> bool:
    """Whether a name of `who` stands in a sentence of the evidence that says the deed `verb` (a stem)."""
    for sentence in split_sentences(evidence):
        toks = _TOKEN.findall(sentence)
        if any(t.isalpha() and _deed_stem(t) == verb for t in toks) and who & set(toks):
            return True
    return False


_DETERMINERS = frozenset({"the", "a", "an", "its", "their", "his", "her", "our"})
_OBJECT_ENDS = frozenset({",", "and", "or", "but", "in", "at", "on", "for", "with", "from", "to", "by", "of", "since",
                          "until", "after", "before", "while", "which", "who", "that", "as"}) | _CLAUSE_END  # fmt: skip
_OBJECT_WORDS = 4


def _what_names_do(clause: list[str]) -> list[tuple[str, frozenset[str], frozenset[str], str, str]]:
    """(verb stem, who, the stems of what, the verb as written, who as written) for each "NAME VERB (the) THING" whose
    thing is lower-case words ("Maria Lopez leads the research team"; a verb in the past or in "-s")."""
    out = []
    for i, tok in enumerate(clause):
        if not (_is_past(tok) or (_is_verb(tok) and tok.endswith("s") and not tok.endswith("ss"))):
            continue
        who = _name_before(clause, i)
        if not who:
            continue
        j = i + 1 + (i + 1 < len(clause) and clause[i + 1].casefold() in _DETERMINERS)
        thing = []
        while j < len(clause) and len(thing) < _OBJECT_WORDS and clause[j].casefold() not in _OBJECT_ENDS:
            thing.append(clause[j])
            j += 1
        stems = frozenset(stem(w) for w in thing if w.isalpha() and w.islower() and w not in STOP_WORDS)
        if stems and len(stems) == len(thing):
            out.append((stem(tok), frozenset(who), stems, tok, " ".join(reversed(who))))
    return out


def crossed_roles(claim: str, evidence: str) -> list[str]:
    """Each "NAME VERB THING" of the claim where the evidence gives the name another thing of the verb
    and the thing to another name ("Maria Lopez leads the design team" against "Maria Lopez leads the
    research team, and Tom Becker leads the design team"), and never says it the claim's way."""
    claimed, stated = _read_both(claim, evidence, _what_names_do)
    out = []
    for verb, who, thing, written, who_written in claimed:
        same = [(w, t, shown) for v, w, t, _, shown in stated if v == verb]
        if any(who & w and thing <= t for w, t, _ in same):
            continue  # said the claim's way
        own = [t for w, t, _ in same if who & w]
        given = [shown for w, t, shown in same if thing <= t and not who & w]
        if own and given:
            out.append(f"the source says {given[0]!r} {written} that, and gives {who_written!r} something else")
    return out


# "written by Dr. Lee": a verb of making or authorship, then who did it
_AUTHORED = re.compile(
    r"\b(?:written|authored|composed|painted|designed|directed|invented|discovered|drafted|edited|produced|"
    r"sculpted|illustrated|translated|founded|built|developed|created)\s+by\s+"
    r"((?:(?:Dr|Mr|Mrs|Ms|Prof)\.?\s+)?[A-Z][a-z]+(?:\s+[A-Z][a-z]+){0,3})")
_TITLES = frozenset({"Dr", "Mr", "Mrs", "Ms", "Prof"})  # not names


# The people a source may name only by their office ("A spokesperson said ..."): a claim that gives the
# office a name ("Spokesperson Anna Lee said") invents who it was.
_OFFICES = (r"spokes(?:person|man|woman)|CEO|chief\s+executive|manager|director|president|chair(?:man|woman|person)?|"
            r"minister|mayor|governor|officer|professor|researcher|scientist|lawyer|attorney|doctor|nurse|engineer|"
            r"founder|principal|teacher|headteacher|head\s+teacher|headmaster|headmistress|dean|chancellor|coach|"
            r"analyst|secretary|commissioner|inspector|detective|judge|senator|economist|official|owner|landlord|"
            r"consultant|editor|reporter|captain|referee|pilot|curator|superintendent|sheriff|ambassador")
# a name: capitalised words, any letters after the first ("José", "McDermott", "DeSantis", "O'Neill")
_NAME_WORD = r"[A-Z][^\W\d_]+(?:[-'][^\W\d_]+)?"
_PERSON = rf"((?:(?:Dr|Prof|Mr|Mrs|Ms)\.?\s+)?{_NAME_WORD}(?:\s+{_NAME_WORD}){{0,2}})"
# before ", the OFFICE" two words at least ("Dana Kim, the director"): one is often a sentence adverb
# ("Meanwhile, the spokesperson said")
_PERSON_BEFORE = rf"((?:(?:Dr|Prof|Mr|Mrs|Ms)\.?\s+{_NAME_WORD}|{_NAME_WORD}(?:\s+{_NAME_WORD}){{1,2}}))"
_NAMED_OFFICE = re.compile(rf"\b((?i:{_OFFICES}))\s*,?\s+{_PERSON}"  # "Spokesperson Anna Lee", "CEO, Dana Kim"
                           rf"|{_PERSON_BEFORE}\s*,\s*(?:the|a|an|our|its|their)?\s*(?:[\w']+\s+){{0,2}}"
                           rf"((?i:{_OFFICES}))\b")
# one office, two names for it: the source may write the other
_SAME_OFFICE = {"ceo": "chief executive", "chief executive": "ceo", "headteacher": "head teacher",
                "head teacher": "headteacher"}


def _name_words(person: str) -> list[str]:
    """The words of a name that name someone: not a title, a stop word or a month."""
    return [w for w in re.findall(r"[^\W\d_]+", person) if w not in _TITLES and len(w) > 1
            and w.casefold() not in STOP_WORDS and w.casefold() not in _CALENDAR]  # fmt: skip


def invented_names(claim: str, source: str) -> list[str]:
    """Each name the claim gives to an office the source states without naming anyone it calls so: the
    whole source has the office's word and no word of the name ("Spokesperson Anna Lee said" against "A
    spokesperson said"). A negated claim is left alone."""
    if states_negation(_TOKEN.findall(claim)):
        return []
    folded = source.casefold()
    out = []
    for m in _NAMED_OFFICE.finditer(claim):
        office, person = re.sub(r"\s+", " ", (m.group(1) or m.group(4)).casefold()), m.group(2) or m.group(3)
        names = _name_words(person)
        offices = (office, _SAME_OFFICE.get(office, office))
        stated = any(re.search(r"\b" + re.escape(o if " " in o else o[:5]), folded) for o in offices)
        if names and stated and not any(re.search(rf"\b{re.escape(n.casefold())}\b", folded) for n in names):
            out.append(f"the claim names the {office} {' '.join(names)!r}; the source names no one so")
    return out


def invented_authors(claim: str, source: str) -> list[str]:
    """Each name the claim gives as who wrote, made or founded something ("written by Dr. Lee",
    "designed by Gehry") of which the whole source names no word: an invented author. A name is
    capitalised words (no acronyms); a negated claim is left alone."""
    if " by " not in claim:
        return []
    if states_negation(_TOKEN.findall(claim)):
        return []
    out = []
    for m in _AUTHORED.finditer(claim):
        names = [w for w in re.findall(r"[A-Z][a-z]+", m.group(1)) if w not in _TITLES and _is_name(w)]
        if names and not any(re.search(rf"\b{re.escape(n)}\b", source) for n in names):
            out.append(f"the claim says it was {m.group(0)!r}; the source never names {' '.join(names)!r}")
        elif names and (deed := _other_deed(m.group(0).split()[0], names, source)):
            out.append(f"the claim says it was {m.group(0)!r}; the source says only that {deed!r}")
    return out


# the roots a source says authorship with, per verb of the claim ("composed": "composer", "composition")
_AUTHOR_ROOTS = {"written": ("writ", "wrot", "author"), "built": ("buil",), "founded": ("found",),
                 "edited": ("edit",)}  # fmt: skip
_PUBLISHING = frozenset(stem(w) for w in "published released issued wrote authored co-wrote co-authored".split())


def _other_deed(verb: str, names: list[str], source: str) -> str | None:
    """"NAME VERB ..." where the source gives the claim's author another deed ("Clara Weiss played the
    piano on the recording") and says the claim's deed of no one (no word with the verb's root: "composed",
    "composer", "composition"); None otherwise (a deed of publishing may be the author's own)."""
    roots = _AUTHOR_ROOTS.get(verb, (verb[: max(5, len(verb) - 3)],))
    low = source.casefold()
    if any(re.search(rf"\b{re.escape(r)}", low) for r in roots):
        return None
    for clause in _clauses(source):
        for i, tok in enumerate(clause):
            if _is_past(tok) and stem(tok) not in _PUBLISHING and set(_name_before(clause, i)) & set(names):
                return " ".join(clause[max(0, i - len(_name_before(clause, i))) : i + 4])
    return None
