"""The negation checks: a claim and its evidence must not disagree about "not".

Word overlap cannot tell "X causes Y" from "X does not cause Y": every word of a claim that negates
its source is in the source. Two rules:

- **Polarity conflict (a hard rule, `polarity_conflicts`).** A content word that one text negates and
  the other states plainly: "Gift cards cannot be returned" against "Gift cards can be returned"
  (`return` negated in the source, plain in the claim), "Electronics do not carry a warranty" against
  "Electronics carry a twelve month warranty". A negation cue (`not`, `n't` — `isn't`, `can't`,
  `won't`, `doesn't` —, `cannot`, `never`, `no`, `no longer`, `nor`, `neither`, `impossible`, `unable`)
  negates the first content word after it, within its clause (adverbs in -ly between are included:
  "not significantly reduce" negates `reduce`; through a word such as `possible` or `able` it reaches
  the next one: "not possible to return" negates `possible` and `return`). Partial negations ("not
  only", "not always", "not necessarily", "not solely", "not entirely") and comparisons ("no more than", "not later than", "or not")
  are not read as negations. A word both negated and plain in the same text is not a conflict. The
  cascade's `negation` stage applies it to the claim and its best evidence window: a conflict makes
  the source check `unsupported` whatever a model says, with the word named in the reason.
- **Missing negation (a penalty, `missing_negations`).** When the claim holds a negation word and its
  best evidence window holds none, the lexical score is multiplied by NEGATION_FACTOR (not a veto: the
  source may negate with other words, "Refunds are not available" against "Refunds are unavailable").
"""

from __future__ import annotations

import re

from citebound.text.stem import STOP_WORDS, stem
from citebound.text.tokenize import clause_tokens, is_contracted_negation, tokens

NEGATIONS = frozenset({"not", "no", "never", "none", "nor", "neither", "without", "nobody", "nothing", "nowhere"})
NEGATION_FACTOR = 0.5

# Cues of the hard rule (a narrower set: "without", "nothing" and "none" too often negate nothing a
# claim restates, as in "free of charge" / "without charge").
_CUES = frozenset({"not", "no", "never", "nor", "neither", "cannot", "impossible", "unable"})
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
_HAS_CUE = re.compile(r"\b(?:not|no|never|nor|neither|cannot|impossible|unable)\b|n['’]t\b", re.IGNORECASE)


def _is_cue(tok: str) -> bool:
    return tok in _CUES or is_contracted_negation(tok)


def negations(text: str) -> set[str]:
    """The negation words of `text`, contractions normalised to "not"."""
    found = set()
    for tok in tokens(text):
        if tok in NEGATIONS:
            found.add(tok)
        elif is_contracted_negation(tok):
            found.add("not")
    return found


def missing_negations(claim: str, evidence: str) -> list[str]:
    """Negations the claim states when the evidence states none, sorted ("not" and "never" both negate:
    "not stored" restates "never stored")."""
    claimed = negations(claim)
    return sorted(claimed) if claimed and not negations(evidence) else []


def _content(tok: str) -> bool:
    return tok[:1].isalpha() and tok not in STOP_WORDS and not _is_cue(tok)


def polarity(text: str) -> tuple[dict[str, str], dict[str, str]]:
    """(negated, plain): the content-word stems `text` negates and those it states outside any
    negation, each mapped to how it is written (for reasons: "'cannot' before 'returned'")."""
    toks = clause_tokens(text)
    negated: dict[str, str] = {}
    in_scope: set[int] = set()
    for i, tok in enumerate(toks):
        if not _is_cue(tok):
            continue
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        if i and toks[i - 1] in _BEFORE_NOT_A_CUE or nxt in _PARTIAL or toks[i + 1 : i + 3] == ["to", "mention"]:
            continue  # "whether or not", "not only", "not always", "not to mention"
        if nxt in _COMPARATIVES and "than" in toks[i + 2 : i + 4]:
            continue  # "no more than 5", "not later than"
        j = i + 1
        if tok == "no" and nxt == "longer":
            j += 1  # "no longer stored" negates "stored"
        while j < min(len(toks), i + 8) and toks[j][:1].isalnum() and toks[j] not in _CLAUSE_BREAKS:
            word = toks[j]
            if _content(word):
                in_scope.add(j)
                if not word.endswith("ly"):  # adverbs carry the scope on to the word they modify
                    cue = "no longer" if tok == "no" and nxt == "longer" else tok
                    negated.setdefault(stem(word), f"{cue!r} before {word!r}")
                    if word not in _CARRIERS:
                        break
            elif _is_cue(word):
                break
            j += 1
    plain: dict[str, str] = {}
    for i, tok in enumerate(toks):
        if i not in in_scope and _content(tok) and not tok.endswith("ly"):
            plain.setdefault(stem(tok), tok)
    return negated, plain


def polarity_conflicts(claim: str, evidence: str) -> list[str]:
    """Each content word the claim and the evidence disagree about, as a readable phrase: the
    evidence negates it and the claim states it plainly, or the other way round. Empty when they agree
    (or when neither text holds a negation cue)."""
    if not (_HAS_CUE.search(claim) or _HAS_CUE.search(evidence)):
        return []
    c_neg, c_plain = polarity(claim)
    e_neg, e_plain = polarity(evidence)
    out = []
    for word, phrase in e_neg.items():
        if word in c_plain and word not in c_neg and word not in e_plain:
            out.append(f"the source says {phrase} and the claim does not ({c_plain[word]!r})")
    for word, phrase in c_neg.items():
        if word in e_plain and word not in e_neg and word not in c_plain:
            out.append(f"the claim says {phrase} and the source does not ({e_plain[word]!r})")
    return out
