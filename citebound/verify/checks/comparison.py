"""The comparison check: a claim must not turn its source's comparison around.

"The new train is slower than the old one" against "The new train is faster than the old one", or
"Copper conducts heat better than steel" against "Steel conducts heat better than copper": every word
of the claim is in its source, so word overlap (and, measured, the entailment model) calls it
supported. This rule reads comparisons of the form `LEFT … COMPARATIVE … than RIGHT` in the claim and in
its best evidence window:

- a comparative has a dimension and a direction: `faster` (speed, +), `slower` (speed, -), `more
  features` (featur, +), `fewer features` (featur, -), `more expensive` / `cheaper` (price, + / -); an
  unknown `-er` word just before "than" is its own dimension (`hotter`: +), so a swap of its sides is
  still read, an antonym of it is not;
- the sides are the content-word stems before the comparative (back to the clause start) and after
  "than" (to the clause end). Two comparisons of one dimension are aligned when their right sides
  share a word, and swapped when each one's right side shares a word with the other's left side (words
  on both sides, like "plan" in "plan A … plan B", are ignored), whatever context the right sides
  share ("in July"); anything else is unrelated;
- the claim's comparison conflicts when an aligned evidence comparison has the other direction, or a
  swapped one the same direction, and no evidence comparison agrees with it. "The old train is slower
  than the new one" restates "The new train is faster than the old one" (swapped and opposite).

A claim that compares without "than" ("The older engine is more efficient", a comparative ending its
clause after "is" / "are" / "was" ...) is read against the window's comparisons of its dimension: its
subject is the side it names (a right side "the older one" names the left side's noun: "engine"), and
it conflicts when that side is the window's right side with the same direction, or its left side with
the other ("The older engine is less efficient" restates it).

A bound turned around is read the same way ("more than 5 days" against "less than 5 days"; which
number is the numbers check's). A negated comparison ("not faster than", "no more than") is skipped.
The cascade runs it with the negation rule; a conflict makes the source `unsupported` (stage
`comparison`) whatever a model says.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citebound.text.numbers import AMBIGUOUS_WORDS, SCALES, TENS, UNITS
from citebound.text.stem import STOP_WORDS, stem
from citebound.text.tokenize import clause_tokens, is_contracted_negation

_DIMENSIONS: dict[str, tuple[str, int]] = {}
for _dim, _up, _down in (
    ("speed", "faster quicker speedier", "slower"),
    ("height", "higher taller", "lower"),  # "shorter" is read as length
    ("size", "larger bigger greater", "smaller lesser"),
    ("quality", "better", "worse"),
    ("age", "older elder", "younger newer"),
    ("length", "longer", "shorter"),
    ("time", "later", "earlier sooner"),
    ("price", "costlier pricier dearer", "cheaper"),
    ("weight", "heavier", "lighter"),
    ("strength", "stronger", "weaker"),
    ("temperature", "hotter warmer", "colder cooler"),
    ("wealth", "richer wealthier", "poorer"),
    ("width", "wider broader", "narrower"),
    ("thickness", "thicker", "thinner"),
    ("difficulty", "harder tougher", "easier simpler"),
    ("risk", "riskier", "safer"),
    ("distance", "farther further", "nearer closer"),
    ("loudness", "louder", "quieter softer"),
    ("density", "denser", "sparser"),
    ("frequency", "frequenter", "rarer"),
):
    _DIMENSIONS.update({w: (_dim, +1) for w in _up.split()})
    _DIMENSIONS.update({w: (_dim, -1) for w in _down.split()})
# "more expensive" is "costlier"; other adjectives after more/less are their own dimension
_MORE_ADJECTIVES = {"expensive": ("price", +1), "costly": ("price", +1), "difficult": ("difficulty", +1),
                    "dangerous": ("risk", +1), "risky": ("risk", +1), "frequent": ("frequency", +1),
                    "frequently": ("frequency", +1), "often": ("frequency", +1), "common": ("frequency", +1),
                    "quickly": ("speed", +1), "rapidly": ("speed", +1), "slowly": ("speed", -1),
                    "cheaply": ("price", -1)}  # fmt: skip
# "takes longer than": more time is less speed ("is quicker than" / "takes longer than" are opposites)
_TAKES = frozenset({"take", "takes", "took", "taking", "taken"})
_MORE = {"more": +1, "less": -1, "fewer": -1}
_NOT_COMPARATIVES = frozenset({"other", "rather", "whether", "together", "either", "neither", "never", "ever",
                               "over", "under", "after", "former", "latter", "order", "number", "member",
                               "matter", "power", "water", "paper", "letter", "user", "customer", "computer"})  # fmt: skip
_CLAUSE_BREAKS = frozenset({"but", "however", "although", "though", "while", "whereas", "which", "who", "because",
                            "since", "unless", "and", "so", "if", "when", "where", "then", "whose"})  # fmt: skip
_NEGATION_CUES = frozenset({"not", "no", "never", "cannot", "nor", "neither"})
_HAS_THAN = re.compile(r"\bthan\b", re.IGNORECASE)
_LOOK_BACK = 5  # tokens between a comparative and "than": "more often on Sundays than"
_SIDE_MAX = 10


@dataclass(frozen=True, slots=True)
class Comparison:
    dimension: str
    direction: int  # +1 / -1
    left: frozenset[str]  # content stems, each side without the words both sides share
    right: frozenset[str]
    phrase: str  # as written, for reasons: "faster than the old one"
    head: str = ""  # the left side's noun when the right side says it as "one" ("than the older one")


def _content(tok: str) -> bool:
    return tok[:1].isalpha() and tok not in STOP_WORDS and tok not in _MORE and tok != "than"


_NUMBER_WORDS = (set(UNITS) | set(TENS) | set(SCALES)) - AMBIGUOUS_WORDS  # "the old one" is no number


def _is_number(tok: str) -> bool:
    return tok[:1].isdigit() or tok in _NUMBER_WORDS


def _comparative(toks: list[str], than: int) -> tuple[int, str, int, int] | None:
    """(index, dimension, direction, end of the comparative phrase) of the comparative before toks[than]."""
    lo = max(0, than - _LOOK_BACK)
    for k in range(than - 1, lo - 1, -1):
        tok = toks[k]
        if not tok[:1].isalnum():
            break  # the clause starts here; an unknown "-er" word before "than" is still read below
        if tok in _MORE:
            obj = next((j for j in range(k + 1, than) if _content(toks[j])), None)
            if obj is None:  # "costs more than"
                return k, "quantity", _MORE[tok], k + 1
            dim, sign = _MORE_ADJECTIVES.get(toks[obj], (stem(toks[obj]), +1))
            return k, dim, sign * _MORE[tok], obj + 1
        if tok in _DIMENSIONS:
            takes = k and (toks[k - 1] in _TAKES or (k > 1 and toks[k - 1] in _ADVERBS and toks[k - 2] in _TAKES))
            dim, sign = ("speed", -_DIMENSIONS[tok][1]) if tok in ("longer", "shorter") and takes else _DIMENSIONS[tok]
            return k, dim, sign, k + 1
    before = toks[than - 1] if than else ""
    if len(before) >= 5 and before.endswith("er") and before not in _NOT_COMPARATIVES and before.isalpha():
        return than - 1, before, +1, than
    return None


# A capital letter after a word names something ("line A", "plan B", "vitamin C"): read as a word of its
# own, not as the article "a" (a stop word), so "Line A is longer than line B" has two sides
_LABEL = re.compile(r"(?<=[^\W\d_] )([A-Z])\b")
_UNLABEL = re.compile(r"\blabel([a-z])\b")


def _side_start(toks: list[str], k: int) -> int:
    """Where the left side of the comparative at `k` starts: back to its clause's start."""
    start = k
    while start > 0 and toks[start - 1][:1].isalnum() and toks[start - 1] not in _CLAUSE_BREAKS:
        start -= 1
    return start


def _before_aside(toks: list[str], start: int, k: int) -> list[str]:
    """The subject before an aside when the left side is only a verb after one ("The Volga, at 3,530 km, is
    longer than ..."): the words of the clause before the aside's opening comma; else none."""
    if start == 0 or toks[start - 1] != "," or any(_content(t) for t in toks[start:k]):
        return []
    for j in range(start - 2, max(-1, start - 2 - _SIDE_MAX), -1):
        if toks[j] in _CLAUSE_BREAKS or toks[j] in (".", ";", ":"):
            return []
        if toks[j] == "," and not (toks[j - 1].isdigit() and toks[j + 1].isdigit()):  # not "3,530"
            return toks[_side_start(toks, j) : j]
    return []


def comparisons(text: str) -> list[Comparison]:
    """The `… COMPARATIVE … than …` comparisons of `text` this rule can read."""
    if not _HAS_THAN.search(text):
        return []
    toks = clause_tokens(_LABEL.sub(r"label\1", text))
    found = []
    for than, tok in enumerate(toks):
        if tok != "than":
            continue
        comp = _comparative(toks, than)
        if comp is None:
            continue
        k, dim, sign, phrase_end = comp
        if any(t in _NEGATION_CUES or is_contracted_negation(t) for t in toks[max(0, k - 3) : k]):
            continue  # "not faster than", "no more than": not a plain comparison
        start = _side_start(toks, k)
        before = _before_aside(toks, start, k)
        end = than + 1
        while end < len(toks) and end - than <= _SIDE_MAX and toks[end][:1].isalnum() and toks[end] not in _CLAUSE_BREAKS:
            end += 1
        right_toks = toks[than + 1 : end]
        if not right_toks:
            continue
        left = {stem(t) for t in before + toks[start:k] + toks[phrase_end:than] if _content(t)}
        right = {stem(t) if _content(t) else t for t in right_toks if _content(t) or _is_number(t)}
        shared = left & right
        phrase = _UNLABEL.sub(lambda m: m.group(1).upper(), " ".join(toks[k:end]))
        head = _head(toks[start:k]) if {"one", "ones"} & set(right_toks) else ""
        found.append(Comparison(dim, sign, frozenset(left - shared), frozenset(right - shared), phrase, head))
    return found


_COPULAS = frozenset({"is", "are", "was", "were", "be", "been", "has", "have", "had"})
_ADVERBS = frozenset({"much", "far", "now", "slightly", "significantly", "considerably", "even", "still", "a", "lot",
                      "bit", "somewhat", "substantially", "markedly"})  # fmt: skip


def _head(left: list[str]) -> str:
    """The noun of a comparison's left side, the last content word before its verb ("The new engine is 12
    percent more efficient": engine), stemmed."""
    cut = next((i for i, t in enumerate(left) if t in _COPULAS), len(left))
    words = [t for t in left[:cut] if _content(t)]
    return stem(words[-1]) if words else ""


def implicit_comparisons(text: str) -> list[Comparison]:
    """Comparisons stated without "than" at the end of a clause ("The older engine is more efficient",
    "Train tickets are cheaper"): the other side is left to the reader, the right side is empty."""
    toks = clause_tokens(_LABEL.sub(r"label\1", text))
    found = []
    for k, tok in enumerate(toks):
        if tok in _MORE and k + 1 < len(toks) and _content(toks[k + 1]):
            dim, sign = _MORE_ADJECTIVES.get(toks[k + 1], (stem(toks[k + 1]), +1))
            sign, end = sign * _MORE[tok], k + 2
        elif tok in _DIMENSIONS:
            (dim, sign), end = _DIMENSIONS[tok], k + 1
        else:
            continue
        if end < len(toks) and toks[end][:1].isalnum() and toks[end] not in _CLAUSE_BREAKS:
            continue  # "more efficient engines", "faster than": not a predicate that ends its clause
        j = k - 1
        while j >= 0 and toks[j] in _ADVERBS:
            j -= 1
        if j < 1 or toks[j] not in _COPULAS:
            continue
        if any(t in _NEGATION_CUES or is_contracted_negation(t) for t in toks[max(0, j - 2) : k]):
            continue
        start = j
        while start > 0 and toks[start - 1][:1].isalnum() and toks[start - 1] not in _CLAUSE_BREAKS:
            start -= 1
        left = frozenset(stem(t) for t in toks[start:j] if _content(t))
        if left:
            found.append(Comparison(dim, sign, left, frozenset(), " ".join(toks[k:end])))
    return found


def _implicit_orientation(claim: Comparison, evidence: Comparison) -> int:
    """+1 when the claim's subject is the evidence comparison's left side, -1 its right side ("The older
    engine" against "The new engine is more efficient than the older one"), 0 when it cannot tell."""
    left, right = evidence.left - {evidence.head}, evidence.right - {"one", "ones"}
    said = claim.left - {evidence.head}
    if {w for w in evidence.right if w[:1].isdigit()}:
        return 0  # "more than 5 days": a bound, not another thing
    if said & right and not said & left:
        return -1
    if said & left and not said & right:
        return 1
    return 0


def _orientation(claim: Comparison, evidence: Comparison) -> int:
    """+1 aligned, -1 swapped, 0 unrelated."""
    if {w for w in claim.right if w[:1].isdigit()} != {w for w in evidence.right if w[:1].isdigit()}:
        return 0  # "more than 3 million years" and "less than 20 million years" compare different things
    if claim.right & evidence.left and evidence.right & claim.left:
        return -1  # each side moved to the other; shared context ("in July") does not undo that
    return 1 if claim.right & evidence.right else 0


# "the oldest ... in Europe": a superlative and the words of its scope, to the clause's end
_SUPERLATIVE = re.compile(r"\b(one\s+of\s+the|among\s+the|the)\s+((?:most|least)\s+[^\W\d_]+|[^\W\d_]{3,}est|best|worst)\b"
                          r"((?:(?!\b(?:and|but|or|while|whereas|one\s+of|among)\b)[^.;:!?,])*)", re.IGNORECASE)
NOT_SUPERLATIVES = frozenset({"interest", "rest", "west", "test", "guest", "forest", "request", "contest", "protest",
                              "harvest", "honest", "modest", "suggest", "latest", "nest", "chest", "quest", "pest",
                              "crest", "manifest", "invest", "digest", "arrest", "conquest", "earnest", "midwest"})  # fmt: skip


_SCOPE_PREPOSITIONS = frozenset({"in", "on", "at", "of", "for", "across", "within", "among"})


def _scope_words(text: str) -> set[str]:
    """What a superlative ranks within: the content words after its first preposition ("university in
    Europe": europ), else its first content words ("mountain")."""
    toks = clause_tokens(text)[:8]
    at = next((i for i, t in enumerate(toks) if t in _SCOPE_PREPOSITIONS), None)
    return {stem(t) for t in (toks[at + 1 :] if at is not None else toks[:4]) if _content(t)}


def superlative_conflicts(claim: str, evidence: str) -> list[str]:
    """"The oldest university in Europe" against "one of the oldest in Europe": a claim that names something
    the superlative of a scope where its evidence says only "one of the" (or "among the") superlatives of
    that scope. The scope is what follows the superlative's first preposition ("in Europe"); an evidence
    superlative of the same word relates to the claim's when their scopes share a word. A plain
    superlative of that scope anywhere in the evidence agrees ("the oldest university in Spain" is not
    read against "in Europe")."""
    out = []
    for c in _SUPERLATIVE.finditer(claim):
        if c.group(1).lower() != "the" or c.group(2).lower() in NOT_SUPERLATIVES:
            continue
        word, scope = c.group(2).lower(), _scope_words(c.group(3))
        related = [e for e in _SUPERLATIVE.finditer(evidence)
                   if e.group(2).lower() == word and scope & _scope_words(e.group(3))]  # fmt: skip
        if related and all(e.group(1).lower() != "the" for e in related):
            said = " ".join(related[0].group(0).split()[:8])
            out.append(f"the source says {said!r}, not {' '.join(c.group(0).split()[:8])!r}")
    return out


# "topped the medal table", "came first in the league": first place, and what it was first in
_FIRST = re.compile(r"\b(?:topped|tops|top|headed|heads|led|leads|(?:came|finished|ranked|placed|was|is)\s+first)\s+"
                    r"(?:in\s+|on\s+)?(?:the\s+)?((?:[^\W\d_]+\s+){0,2}(?:table|league|standings|rankings?|"
                    r"chart|charts|poll|list|group|ranking))\b", re.IGNORECASE)
_NOT_FIRST = re.compile(r"\b(?:ranked|finished|came|placed|was|is|ended)\s+(?:in\s+)?(second|third|fourth|fifth|sixth|"
                        r"seventh|eighth|ninth|tenth|last|\d+(?:nd|rd|th))\b", re.IGNORECASE)


def rank_conflicts(claim: str, evidence: str) -> list[str]:
    """"The country topped the medal table" against "The country ranked second in the medal table, behind
    Norway": first place claimed where the evidence gives another place in the same table (its last word:
    table, league, chart ...), and says nowhere that it came first in it."""
    claimed = _FIRST.search(claim)
    if claimed is None:
        return []
    table = claimed.group(1).split()[-1].lower()
    if any(m.group(1).split()[-1].lower() == table for m in _FIRST.finditer(evidence)):
        return []
    for m in _NOT_FIRST.finditer(evidence):
        rest = evidence[m.end() : m.end() + 60].lower()
        if re.search(rf"\b{re.escape(table)}\b", rest.split(".")[0]):
            return [f"the source says {' '.join(evidence[m.start() : m.end() + 40].split()[:8])!r}, not first"]
    return []


def comparison_conflicts(claim: str, evidence: str) -> list[str]:
    """Each comparison of the claim that its evidence states the other way round, as a readable phrase;
    empty when they agree or the rule cannot relate them."""
    if ranked := superlative_conflicts(claim, evidence) or rank_conflicts(claim, evidence):
        return ranked
    claimed, implicit = comparisons(claim), False
    if not claimed and _HAS_THAN.search(evidence):
        claimed, implicit = implicit_comparisons(claim), True
    if not claimed:
        return []
    stated = comparisons(evidence)
    out = []
    for c in claimed:
        agrees, conflict, conflict_orientation = False, None, 0
        for e in stated:
            if e.dimension != c.dimension:
                continue
            orientation = _implicit_orientation(c, e) if implicit else _orientation(c, e)
            if orientation == 0:
                continue
            if c.direction == e.direction * orientation:
                agrees = True
            elif conflict is None:
                conflict, conflict_orientation = e, orientation
        if conflict is not None and not agrees:
            how = "compares the other way round" if conflict_orientation < 0 else "says the opposite"
            out.append(f"the source {how}: {conflict.phrase!r} where the claim says {c.phrase!r}")
    return out
