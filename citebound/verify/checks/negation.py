"""The negation checks: a claim and its evidence must not disagree about "not".

Word overlap cannot tell "X causes Y" from "X does not cause Y": every word of a claim that negates
its source is in the source. Two rules:

- **Polarity conflict (a hard rule, `polarity_conflicts`).** A content word that one text negates and
  the other states plainly: "Gift cards cannot be returned" against "Gift cards can be returned"
  (`return` negated in the source, plain in the claim), "Electronics do not carry a warranty" against
  "Electronics carry a twelve month warranty". A negation cue (`not`, `n't` — `isn't`, `can't`,
  `won't`, `doesn't` —, `cannot`, `never`, `no`, `no longer`, `nor`, `neither`, `impossible`, `unable`,
  `non-` before an adjective, not a noun: "non-members"; "not yet" negates what follows it; "no
  NOUN may VERB" negates the verb, as "NOUN may not VERB" does, and leaves the noun neither; so does
  "no NOUN are VERBed" against a text that says "NOUN are not VERBed")
  negates the first content word after it, within its clause (adverbs in -ly between are included:
  "not significantly reduce" negates `reduce`; through a word such as `possible` or `able` it reaches
  the verb after its "to": "not possible to return" negates `possible` and `return`, "not permitted
  indoors" only `permitted`, and what is not permitted ("Smoking is not permitted") is neither stated
  nor negated; what the negated word takes, to the clause's end, is read as neither
  negated nor stated: "did not reach significance" does not state "significance"; "nowhere near on track"
  negates `track`; quotation marks do not end the scope: `not "a primary contributor"`). Partial
  negations ("not only", "not always", "not necessarily", "not solely", "not entirely"), comparisons
  ("no more than", "not later than", "or not"), a degree ("do not sink as readily") and "can't wait to"
  are not read as negations. Some words are read as neither negated nor stated plainly, so the other
  text's negation of them is no conflict: what a weak negation reaches ("little change", "minimal
  contribution", "lacks power", "failed to show", "without supervision") and the complement of a
  negated verb of saying or believing ("he would not agree that CO2 is a primary contributor": not a
  statement that it is). A word both negated and plain in the same text is not a conflict. A clause of the
  evidence that denies with a word of its own ("Garden waste collections are suspended", "It will remain
  closed on Sundays": `_DENIAL_WORDS`) states none of its words against a claim that negates them. What a negated
  verb of showing leaves unshown ("has not been shown to be safe", "was not proven to reduce pain": the
  first content word after its "to (be)") is neither stated nor negated, yet a claim that states it
  plainly ("The treatment is safe"), with no hedge ("may", "might", "likely"), states what its source says
  is not known: a conflict too. The
  cascade's `negation` stage applies it to the claim and its best evidence window: a conflict makes
  the source check `unsupported` whatever a model says, with the word named in the reason.
- **Missing negation (a penalty, `missing_negations`).** When the claim holds a negation word and its
  best evidence window holds none, the lexical score is multiplied by NEGATION_FACTOR (not a veto: the
  source may negate with other words, "Refunds are not available" against "Refunds are unavailable").
  A weak negation in the window ("little change", "lacks") spares the penalty.

The misreadings fixed on 2026-12-01 were found on the claim sets' dev splits (docs/benchmarks.md,
"Negation and spaced numbers"): on them the stage fired on 18 gold-supported and 152 unsupported dev
claims before, 13 and 146 after, and each of the 6 unsupported ones it no longer blocks had been blocked
for a misreading ("lacks power" against "not powerful"), not for a contradiction.

- **A denied requirement (`denied_requirement`, 2026-12-03).** "A ticket is not required to board" against "No
  passenger may board without a ticket" (the model: P 0.81): a conflict when the claim's one denial is of the
  requirement and every word of the claim is in the source's denial itself, not in an exception or another
  clause of its sentence ("Staff do not need a pass" / "No one may enter without a pass, except staff").
- **A denied "more than"** is no conflict with the source's upper bound ("cannot borrow more than 12" / "may
  borrow up to 12"): checks/bounds.denied_beyond_bound.
"""

from __future__ import annotations

import re

from citebound.text.sentences import split_sentences
from citebound.text.stem import STOP_WORDS, verb_stem
from citebound.text.tokenize import clause_tokens, is_contracted_negation, tokens
from citebound.verify.checks.bounds import denied_beyond_bound

NEGATIONS = frozenset({"not", "no", "never", "none", "nor", "neither", "without", "nobody", "nothing", "nowhere"})
# The words that make a clause negative, as written (contractions such as "isn't" are `is_contracted_negation`'s):
# the one list the rules that leave a negated claim alone read (exceptions, scope, roles, plans)
CLAUSE_NEGATIONS = NEGATIONS | {"cannot"}
NEGATION_FACTOR = 0.5

# Cues of the hard rule (a narrower set: "without", "nothing" and "none" too often negate nothing a
# claim restates, as in "free of charge" / "without charge").
_CUES = frozenset({"not", "no", "never", "nor", "neither", "cannot", "impossible", "unable", "nowhere",
                   "non"})  # "non-refundable": tokens "non", "refundable"
# "not possible to return", "not able to cancel": the negation reaches through these to the next word
_CARRIERS = frozenset({"possible", "able", "allowed", "permitted", "likely", "necessary", "required", "going",
                       "meant", "supposed", "willing", "enough", "sure", "certain", "intended", "designed",
                       "expected", "planned", "available", "eligible", "free"})  # fmt: skip
_PARTIAL = frozenset({"only", "always", "necessarily", "just", "merely", "all", "every", "quite", "exactly",
                      "least", "matter", "even", "yet", "solely", "entirely", "completely", "fully", "totally",
                      "wholly", "exclusively", "simply", "purely", "mainly", "primarily"})  # fmt: skip
_COMPARATIVES = frozenset({"more", "less", "fewer", "later", "earlier", "sooner", "greater", "longer",
                           "shorter", "higher", "lower", "better", "worse", "larger", "smaller", "bigger",
                           "older", "younger"})  # fmt: skip
_BEFORE_NOT_A_CUE = frozenset({"or", "whether", "if"})
_CLAUSE_BREAKS = frozenset({"but", "however", "although", "though", "while", "whereas", "which", "who", "whom",
                            "whose", "because", "since", "unless", "except", "instead", "rather", "yet", "and",
                            "so", "if", "when", "where", "than", "then"})  # fmt: skip
# Words that deny or weaken what follows without a cue ("little change", "minimal contribution", "lacks
# power", "failed to show"): what they reach is read as neither negated nor stated plainly, so "have not
# changed" is not contradicted by "little change".
_WEAK_CUES = frozenset({"little", "minimal", "hardly", "barely", "scarcely", "rarely", "seldom", "lack", "lacks",
                        "lacked", "lacking", "fail", "fails", "failed", "failing", "without", "absence"})  # fmt: skip
# A negated verb of saying or believing denies its complement, it does not state it: in "he would not agree
# that CO2 is a primary contributor" neither "primary" nor "contributor" is stated plainly.
_COMPLEMENT_VERBS = frozenset({"agree", "believe", "think", "say", "said", "claim", "accept", "know", "show",
                               "find", "found", "suggest", "mean", "indicate", "prove", "expect", "see", "seem",
                               "appear", "clear", "true", "confirm", "demonstrate", "support", "imply", "consider",
                               "feel", "argue", "assume", "guarantee", "evidence", "sign", "reason"})  # fmt: skip
_FAIL = frozenset({"fail", "fails", "failed", "failing"})
_IF = frozenset({"if", "unless", "when", "whenever", "whether", "should", "once"})


def _conditional(toks: list[str], i: int) -> bool:
    """Whether toks[i] is inside a conditional clause ("If the Parliament fails to nominate ...": nothing
    is denied)."""
    for j in range(i - 1, -1, -1):
        if toks[j] in _IF:
            return True
        if toks[j] in _CLAUSE_BREAKS or not _in_clause(toks[j]):
            return False
    return False
# "do not sink as readily", "does not work as well": a degree, not a denial of the verb
_DEGREES = frozenset({"much", "well", "many", "often", "fast", "far", "long", "high", "low", "hard", "good",
                      "strong", "quick", "large", "big", "great", "little", "few", "easy"})  # fmt: skip
_QUOTES = frozenset({'"', "“", "”"})
# "non-" negates an adjective ("non-refundable", "non-toxic", "non-binding"), not a noun it makes a
# group of ("non-members" are people, "non-EU citizens" are citizens)
_ADJECTIVE_ENDINGS = ("able", "ible", "al", "ive", "ic", "ent", "ant", "ous", "ful", "ary", "ory", "ing", "ed")
_SCOPE = 8  # tokens a cue reaches
_HAS_CUE = re.compile(r"\b(?:not|no|never|nor|neither|cannot|impossible|unable|nowhere|non|fail(?:s|ed|ing)?\s+to)\b"
                      r"|n['’]t\b",
                      re.IGNORECASE)


# "No employee may work ...": a modal right after the noun phrase a "no" opens
_MODALS = frozenset({"may", "can", "must", "shall", "should", "will", "could", "might", "would"})


def _modal_after_noun(toks: list[str], j: int) -> int | None:
    """Where the verb after "no NOUN(S) MODAL" starts (the noun phrase one to three words, no clause
    break), else None."""
    for k in range(j + 1, min(len(toks), j + 4)):
        if toks[k] in _MODALS:
            return k + 1 if all(t[:1].isalpha() and t not in _CLAUSE_BREAKS for t in toks[j:k]) else None
        if not toks[k][:1].isalpha():
            return None
    return None


def _is_cue(tok: str) -> bool:
    return tok in _CUES or is_contracted_negation(tok)


def states_negation(toks) -> bool:
    """Whether any of these tokens is a clause negation ("not", "never", "cannot", "isn't", ...): the rules that
    read a claim's roles, scope or exceptions leave a negated one to this module."""
    return any(t.casefold() in CLAUSE_NEGATIONS or is_contracted_negation(t.casefold()) for t in toks)


def negations(text: str) -> set[str]:
    """The negation words of `text`, contractions normalised to "not"."""
    found = set()
    for tok in tokens(text):
        if tok in NEGATIONS:
            found.add(tok)
        elif is_contracted_negation(tok):
            found.add("not")
    return found


def missing_negations(claim: str, evidence: str, source: str | None = None) -> list[str]:
    """Negations the claim states when the evidence states none, sorted ("not" and "never" both negate:
    "not stored" restates "never stored"; "suspended", "closed" ... deny without a cue). None when the claim's
    denial is of more than the evidence's upper bound ("cannot borrow more than 12" / "may borrow up to 12";
    `source`: the whole text the evidence is a window of)."""
    claimed = negations(claim)
    if not claimed or negations(evidence) or any(t in _WEAK_CUES or t in _DENIAL_WORDS for t in tokens(evidence)):
        return []
    if restated_requirement(claim, evidence):
        return []
    return [] if denied_beyond_bound(claim, evidence, source) else sorted(claimed)


def restated_requirement(claim: str, evidence: str) -> bool:
    """The claim's one denial is "cannot V without X" and a sentence of the evidence sets X as needed, with no
    denial of its own ("Police need a warrant to obtain it", "A badge is required to enter"): the same rule
    said the other way round, so the claim's "cannot" contradicts nothing (the later stages judge the rest)."""
    m = _WITHOUT_DEED.search(claim)
    if m is None or len(_HAS_CUE.findall(claim)) != 1 or _HAS_CUE.search(evidence):
        return False  # a denial anywhere in the evidence may be of this requirement ("Staff are not required to")
    thing = verb_stem(m.group(2).casefold())
    return any(_REQUIRED.search(sentence) and not _SETS_APART.search(sentence) and thing in _stems(sentence)
               for sentence in split_sentences(evidence))


# words that set someone apart from a rule ("except staff"): _EXCEPTED (with clause punctuation) and _SETS_APART
_EXCEPT_WORDS = r"except|unless|other\s+than|save\s+for|excepted|exempt|but|though|while|however"
# words that set someone or something apart from a requirement ("required on all trams, but children under
# five travel free")
_SETS_APART = re.compile(rf"\b(?:{_EXCEPT_WORDS}|although|free|optional|recommended|advised)\b", re.IGNORECASE)


def _content(tok: str) -> bool:
    return tok[:1].isalpha() and tok not in STOP_WORDS and not _is_cue(tok)


def _in_clause(tok: str) -> bool:
    """A token inside a clause: a word, or a quotation mark (`not "a primary contributor"`)."""
    return (tok[:1].isalnum() or tok in _QUOTES) and tok not in _CLAUSE_BREAKS


# a modal after what a negated verb of a relative clause takes opens the sentence's own predicate ("Leave
# that is not used by 31 December | can be carried over"): what follows it is stated, not taken by the verb
_NEW_PREDICATE = frozenset({"can", "could", "will", "would", "must", "may", "might", "should", "shall"})
_RELATIVES = frozenset({"that", "who", "which"})


def _clause_end(toks: list[str], j: int, limit: int, relative: bool = False) -> int:
    """Where the clause that goes on at toks[j] ends, at most `limit`; for a negation inside a relative
    clause (`relative`), before a modal that opens the main predicate (not one right after "that": "products
    that can harm")."""
    while j < limit and _in_clause(toks[j]) and not (
            relative and toks[j] in _NEW_PREDICATE and toks[j - 1] not in _RELATIVES):  # fmt: skip
        j += 1
    return j


def polarity(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """(negated, plain): the content-word stems `text` negates and those it states outside any
    negation, each mapped to how it is written (for reasons: "'cannot' before 'returned'"). Words a weak
    negation reaches ("little change") and the complement of a negated verb of saying ("does not believe
    that X is Y") are in neither."""
    toks = clause_tokens(_joined(text))
    parts = _compound_parts(text)
    negated: dict[str, str] = {}
    in_scope: set[int] = set()
    for i, tok in enumerate(toks):
        if tok in _WEAK_CUES:
            in_scope.update(range(i + 1, _clause_end(toks, i + 1, min(len(toks), i + 1 + _SCOPE))))
            if tok in _FAIL and toks[i + 1 : i + 2] == ["to"] and i + 2 < len(toks) and _content(toks[i + 2]) \
                    and not _conditional(toks, i):  # fmt: skip
                # "failed to improve" denies "improve" (what it reaches past the verb stays neither:
                # "failed to show a benefit" does not say there is none)
                negated.setdefault(verb_stem(toks[i + 2]), f"{tok + ' to'!r} before {toks[i + 2]!r}")
            continue
        if not _is_cue(tok):
            continue
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        if i and toks[i - 1] in _BEFORE_NOT_A_CUE or (nxt in _PARTIAL and nxt != "yet") \
                or toks[i + 1 : i + 3] == ["to", "mention"]:
            continue  # "whether or not", "not only", "not always", "not to mention"
        if nxt in _COMPARATIVES and "than" in toks[i + 2 : i + 4]:
            continue  # "no more than 5", "not later than"
        if tok == "no" and (nxt[:1].isdigit() or (nxt == "." and toks[i + 2 : i + 3] and toks[i + 2][:1].isdigit())):
            continue  # "the no 1 jersey", "No. 10": a number, not a denial
        if nxt == "wait" and toks[i + 2 : i + 3] == ["to"]:
            continue  # "can't wait to teach them": eager to, not a denial
        if tok == "non" and not nxt.endswith(_ADJECTIVE_ENDINGS):
            continue  # "non-refundable" denies refundable; "non-members", "non-EU citizens" name someone
        j = i + 1
        if tok == "no" and (k := _modal_after_noun(toks, i + 1)):
            # "No employee may work more than 48 hours" says what "Employees may not work ..." says: the
            # "no" denies the verb after the modal, and the noun is neither negated nor stated plainly
            in_scope.update(range(i + 1, k))
            j = k
        if tok == "no" and nxt == "longer":
            j += 1  # "no longer stored" negates "stored"
        if tok == "nowhere" and nxt == "near":
            j += 1  # "nowhere near on track" negates "track"
        if nxt == "yet":
            j += 1  # "not yet approved": not approved (so far), a denial of the state now
        cue = "no longer" if tok == "no" and nxt == "longer" else tok
        limit = min(len(toks), i + _SCOPE)
        while j < limit and _in_clause(toks[j]):
            word = toks[j]
            if _content(word):
                in_scope.add(j)
                if not word.endswith("ly"):  # adverbs carry the scope on to the word they modify
                    after = toks[j + 2] if toks[j + 1 : j + 2] == ["as"] and j + 2 < len(toks) else ""
                    if after and (after in _DEGREES or after.endswith("ly")):
                        break  # "do not sink as readily": a degree, not a denial
                    for w in (word, *parts.get(word, ())):  # a compound and each of its parts
                        negated.setdefault(verb_stem(w), f"{cue!r} before {_shown(word, parts)!r}")
                    if word in _COMPLEMENT_VERBS:  # "does not believe that ...": the rest is neither
                        k = j + 1  # its complement goes on through commas ("that human activities, specifically ...")
                        while k < min(len(toks), j + 1 + 2 * _SCOPE) and (_in_clause(toks[k]) or toks[k] == ","):
                            k += 1
                        in_scope.update(range(j + 1, k))
                        break
                    if word in _CARRIERS and toks[j + 1 : j + 2] != ["to"]:
                        # "Smoking is not permitted": what is not permitted (the clause before the cue) is
                        # neither stated nor negated, so "No visitor may smoke" / "may not smoke" restate it
                        k = i - 1
                        while k >= 0 and _in_clause(toks[k]):
                            in_scope.add(k)
                            k -= 1
                    if word not in _CARRIERS or toks[j + 1 : j + 2] != ["to"]:
                        # what a negated verb takes is not stated either ("did not reach significance"
                        # does not state "significance"): read it as neither, to the clause's end
                        relative = bool(_RELATIVES.intersection(toks[max(0, i - 3) : i]))  # "that is not used"
                        in_scope.update(range(j + 1, _clause_end(toks, j + 1, min(len(toks), j + 1 + _SCOPE), relative)))
                        break  # a carrier passes the negation on to its verb only: "not allowed to smoke"
            elif _is_cue(word):
                break
            j += 1
    plain: dict[str, str] = {}
    for i, tok in enumerate(toks):
        if i not in in_scope and _content(tok) and not tok.endswith("ly"):
            for w in (tok, *parts.get(tok, ())):
                plain.setdefault(verb_stem(w), _shown(tok, parts))
    return negated, plain


# "isn't thread-safe" negates the compound, not its first half: a hyphen between letters joins the parts
# for this reading ("threadsafe"), except after "non", which is a cue of its own ("non-refundable")
_HYPHENATED = re.compile(r"(?<![Nn][Oo][Nn])(?<=[^\W\d_])-(?=[^\W\d_])")


def _joined(text: str) -> str:
    return _HYPHENATED.sub("", text) if "-" in text else text


_COMPOUND = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)+")


def _compound_parts(text: str) -> dict[str, tuple[str, ...]]:
    """Each hyphenated compound of text as one token (lower case) -> its parts ("threadsafe" -> thread, safe)."""
    if "-" not in text:
        return {}
    out = {}
    for m in _COMPOUND.finditer(text):
        low = m.group(0).casefold()
        if not low.startswith("non-"):
            out[low.replace("-", "")] = tuple(low.split("-"))
    return out


def _shown(word: str, parts: dict[str, tuple[str, ...]]) -> str:
    """A token as the text writes it (a joined compound with its hyphens)."""
    return "-".join(parts[word]) if word in parts else word


_AUXILIARIES = frozenset({"is", "are", "was", "were", "has", "have", "had", "be", "been"})


def _no_noun_aux_verb(text: str, negated: dict[str, str], plain: dict[str, str], other_negated: dict[str, str]) -> None:
    """"No refunds are given" says what "Refunds are not given" says: when `text` writes "no NOUN AUX VERB"
    and the other text negates that verb, read the "no" as negating the verb, not the noun (in place).
    Only then: read so always, "No side effects were reported" would no longer contradict "The drug had
    side effects" (measured: the general reading moved 10 dev rows and lowered the dev means)."""
    toks = clause_tokens(text)
    for i, tok in enumerate(toks):
        if tok != "no":
            continue
        for k in range(i + 2, min(len(toks) - 1, i + 5)):
            if toks[k] in _AUXILIARIES:
                noun, verb = toks[i + 1 : k], toks[k + 1]
                if verb_stem(verb) in other_negated and all(t.isalpha() and t not in _CLAUSE_BREAKS for t in noun):
                    for n in noun:
                        negated.pop(verb_stem(n), None)
                    negated[verb_stem(verb)] = plain.pop(verb_stem(verb), f"'no' before {verb!r}")
                break
            if not toks[k].isalpha():
                break


# verbs of showing: "has not been shown to be safe" denies that it is known to be safe
_SHOWN = frozenset({"show", "shows", "showed", "shown", "prove", "proves", "proved", "proven", "establish",
                    "established", "demonstrate", "demonstrated", "confirm", "confirmed"})  # fmt: skip
_HEDGES = frozenset({"may", "might", "could", "possibly", "perhaps", "probably", "likely", "maybe"})


def unshown(text: str) -> dict[str, str]:
    """The words a negated verb of showing leaves unshown, each -> how it is written: "has not been shown to
    be safe" -> {safe}, "was not proven to reduce pain" -> {reduce} (the first content word after its
    "to (be)"). A claim that states such a word plainly states what its source says is not known."""
    toks = clause_tokens(text)
    out: dict[str, str] = {}
    for i, tok in enumerate(toks):
        if not _is_cue(tok) or (i and toks[i - 1] in _BEFORE_NOT_A_CUE):
            continue
        j = i + 1
        while j < len(toks) and toks[j] in ("been", "be", "yet", "ever", "clearly", "conclusively", "convincingly"):
            j += 1
        if j + 1 >= len(toks) or toks[j] not in _SHOWN or toks[j + 1] != "to":
            continue
        k = j + 2 + (j + 2 < len(toks) and toks[j + 2] in ("be", "have"))
        if k < len(toks) and _content(toks[k]):
            out.setdefault(verb_stem(toks[k]), f"{tok!r} {toks[j]!r} to … {toks[k]!r}")
    return out


# a denial of doing something without a thing: a requirement of that thing, said twice negated
_DENIED_WITHOUT = re.compile(r"\b(?:no\s+\w+(?:\s+\w+)?\s+(?:may|can|shall|will|is\s+allowed\s+to)|cannot|can't|may\s+not|"
                             r"must\s+not|mustn't|shall\s+not|will\s+not|won't|never)\s+(?:\w+\s+){1,6}?without\b",
                             re.IGNORECASE)
_REQUIRED = re.compile(r"\b(?:required|requires?|need|needs|needed|must|have\s+to|has\s+to|necessary|essential|"
                       r"mandatory|compulsory)\b", re.IGNORECASE)


def polarity_conflicts(claim: str, evidence: str, source: str | None = None) -> list[str]:
    """Each content word the claim and the evidence disagree about, as a readable phrase: the
    evidence negates it and the claim states it plainly, or the other way round. Empty when they agree
    (or when neither text holds a negation cue). `source`: the whole text the evidence is a window of."""
    if not (_HAS_CUE.search(claim) or _HAS_CUE.search(evidence)):
        return []
    if _DENIED_WITHOUT.search(evidence) and _REQUIRED.search(claim) and not _HAS_CUE.search(claim) \
            and len(_HAS_CUE.findall(evidence)) == 1:  # fmt: skip
        return []  # "No passenger may board without a ticket" is "A ticket is required to board" (the one denial)
    if restated_requirement(claim, evidence):
        return []  # "You cannot enter without a badge" is "A badge is required to enter" (the other way round)
    if denied := denied_requirement(claim, evidence):
        return [denied]
    if denied_beyond_bound(claim, evidence, source):
        return []  # "cannot borrow more than 12 books" is "may borrow up to 12 books"
    c_neg, c_plain = polarity(claim)
    e_neg, e_plain = polarity(evidence)
    _no_noun_aux_verb(claim, c_neg, c_plain, e_neg)
    _no_noun_aux_verb(evidence, e_neg, e_plain, c_neg)
    out = []
    freed = _free_of(claim)
    for word, phrase in e_neg.items():
        if word in c_plain and word not in c_neg and word not in e_plain and word not in freed:
            out.append(f"the source says {phrase} and the claim does not ({c_plain[word]!r})")
    denied = _denied_clause_words(evidence) if c_neg else set()
    if c_neg and _ELLIPTIC_DENIAL.search(evidence):
        c_neg = {}  # "... would close, but the company said it will not.": the source denies the elided verb
    for word, phrase in c_neg.items():
        if word in e_plain and word not in e_neg and word not in c_plain and word not in denied:
            out.append(f"the claim says {phrase} and the source does not ({e_plain[word]!r})")
    if not out and not _HEDGES & set(tokens(claim)):
        for word, phrase in unshown(evidence).items():
            if word in c_plain and word not in c_neg and word not in e_plain and word not in unshown(claim):
                out.append(f"the source says it is not shown ({phrase}) and the claim states it ({c_plain[word]!r})")
    if not out and (focus := _focus_sentence(claim, evidence, c_plain)) is not None:
        # a word the evidence both negates and states, in two sentences ("The warranty covers defects. It
        # doesn't cover water damage."): the sentence that holds most of the claim's words decides
        out = [o + " (in the sentence about the claim)" for o in polarity_conflicts(claim, focus, source or evidence)]
    return list(dict.fromkeys(out))  # a compound and its parts read alike


# a denial whose verb is left out, said of a pronoun ("but the company said it will not."): what it denies is
# the earlier clause's, which states it plainly ("Workers feared the factory would close")
_ELLIPTIC_DENIAL = re.compile(r"\b(?:it|they|he|she|we)\s+(?:(?:will|would|does|do|did|is|are|was|were|can|could|has|"
                              r"have|should)\s+not|won't|wouldn't|doesn't|don't|didn't|isn't|aren't|wasn't|weren't|"
                              r"can't|cannot|couldn't|hasn't|haven't|shouldn't)\s*[.;!?]", re.IGNORECASE)
# "free of added sugar", "sugar-free": what the claim says a thing has none of, restating the source's "no"
_FREE_OF = re.compile(r"\bfree\s+(?:of|from)\s+((?:[^\W\d_]+\s+){0,2}[^\W\d_]+)|\b([^\W\d_]+)-free\b", re.IGNORECASE)


def _free_of(claim: str) -> set[str]:
    """The stems of what the claim says a thing is free of ("free of added sugar": add, sugar)."""
    out: set[str] = set()
    for m in _FREE_OF.finditer(claim):
        out |= {verb_stem(t) for t in tokens(m.group(1) or m.group(2)) if t not in STOP_WORDS}
    return out


# Words that deny what their clause names without a negation cue: "Garden waste collections are suspended",
# "It will remain closed on Sundays" say there is no garden waste collection, no Sunday opening
_DENIAL_WORDS = frozenset("""suspended cancelled canceled discontinued withdrawn scrapped halted abolished closed
unavailable paused refused denied rejected declined barred banned prevented prohibited forbidden""".split())
_DENIAL_CLAUSE = re.compile(r"[^.;:!?,]+")


def _denied_clause_words(evidence: str) -> set[str]:
    """Stems of the content words of each clause of `evidence` that holds a word of `_DENIAL_WORDS`: a
    claim's negation of them ("no Sunday opening") is no conflict with that clause."""
    out: set[str] = set()
    for m in _DENIAL_CLAUSE.finditer(evidence):
        words = [t.casefold() for t in re.findall(r"[^\W\d_]+", m.group(0))]
        if _DENIAL_WORDS & set(words):  # the denying word itself stays stated ("is closed" against "is not closed")
            out |= {verb_stem(w) for w in words if _content(w) and w not in _DENIAL_WORDS}
    return out


def _focus_sentence(claim: str, evidence: str, c_plain: dict[str, str]) -> str | None:
    """The evidence sentence holding the most of the claim's plain words (at least three), when one holds
    more than each other and the evidence has several; else None."""
    sentences = [x for x in split_sentences(evidence) if x.strip()]
    if len(sentences) < 2:
        return None
    scores = sorted(((len(c_plain.keys() & _stems(x)), k) for k, x in enumerate(sentences)), reverse=True)
    (best, k), (second, _) = scores[0], scores[1]
    return sentences[k] if best >= 3 and best > second else None


def _stems(text: str) -> set[str]:
    return {verb_stem(t) for t in clause_tokens(_joined(text)) if _content(t)}


# "No passenger may board without a ticket" / "cannot enter without a permit": the deed and what it needs
_WITHOUT_DEED = re.compile(r"\b(?:(?:no\s+[^\W\d_]+(?:\s+[^\W\d_]+)?|nobody|no-one)\s+(?:may|can|shall|will|is\s+allowed\s+to)|"
                           r"cannot|can't|may\s+not|must\s+not|mustn't|shall\s+not|(?:is|are)\s+(?:not\s+permitted\s+to|"
                           r"prohibited\s+from|forbidden\s+to|banned\s+from)|it\s+is\s+forbidden\s+to)\s+"
                           r"((?:[^\W\d_]+\s+){1,6}?)without\s+"
                           r"(?:a|an|any|the|their|your|his|her|its)?\s*([^\W\d_]+)", re.IGNORECASE)
# "is not required", "don't need", "needn't", "no ticket is needed": a requirement denied
_NOT_REQUIRED = re.compile(r"\b(?:(?:is|are)(?:\s+not|n't)(?:\s+[^\W\d_]+ly)?\s+(?:required|needed|necessary|mandatory|"
                           r"compulsory)|(?:do|does)(?:\s+not|n't)\s+(?:need|require|have\s+to\s+(?:have|show|hold))|"
                           r"needn't|need\s+not|there\s+is\s+no\s+need|no\s+[^\W\d_]+(?:\s+[^\W\d_]+)?\s+is\s+(?:required|needed|"
                           r"necessary))\b",
                           re.IGNORECASE)
_EXCEPTED = re.compile(rf"\b(?:{_EXCEPT_WORDS})\b|[,;:]", re.IGNORECASE)
_PHRASE_END = re.compile(r"\b(?:or|and|after|before|during|until|when|if|once)\b|" + _EXCEPTED.pattern,
                         re.IGNORECASE)  # the end of the thing needed ("without a referral after the first visit")
_REQUIREMENT_WORDS = frozenset({"requir", "need", "necessari", "mandatori", "compulsori", "have", "show", "hold", "provid",
                                "present"})


def denied_requirement(claim: str, evidence: str) -> str | None:
    """The claim denies a requirement the evidence sets: "A ticket is not required to board" against "No
    passenger may board without a ticket". Only when the claim's one denial is of the requirement, the evidence
    sentence's one denial is "may not V without X", and the claim names that deed and that thing, with no word
    the denial itself lacks (another deed, place or person may need it or not: "to board the ferry"; an
    exception or another clause may name who does not: "except staff", "or an invitation")."""
    if not _NOT_REQUIRED.search(claim) or len(_HAS_CUE.findall(claim)) != 1:
        return None
    claim_stems = _stems(claim)
    for sentence in split_sentences(evidence):
        m = _WITHOUT_DEED.search(sentence)
        if m is None or len(_HAS_CUE.findall(sentence)) > 1:  # ("Nobody" is no cue of _HAS_CUE)
            continue
        deed = [verb_stem(w) for w in m.group(1).split() if _content(w.casefold())]
        thing = verb_stem(m.group(2).casefold())
        if not deed or deed[0] not in claim_stems or thing not in claim_stems:
            continue
        # every word of the claim in the denial itself, not in an exception or another clause of its sentence
        # ("Staff do not need a pass" / "No one may enter without a pass, except staff")
        end = _PHRASE_END.search(sentence, m.end())
        denial = sentence[: end.start() if end else len(sentence)]  # "... without a safety induction"
        if claim_stems - _REQUIREMENT_WORDS <= _stems(denial) and not _EXCEPTED.search(denial):
            return f"the source says {m.group(0).strip()!r}: the claim denies that it is needed"
    return None
