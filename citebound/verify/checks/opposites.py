"""The opposite-word penalty: a claim must not swap a word of its source for its opposite.

"Haplogroup I decreases the risk of heart disease" against "haplogroup I increases the risk of heart
disease by 50 %", "neural loss" against "neural gain", "earned $3.1 billion" against "lost $3.1 billion":
every other word of the claim is in the source, so word overlap scores it high. This reads the claim's
words that have an opposite in OPPOSITES (direction of a change, amount, effect, quality, temperature,
speed, length, age), stemmed, and words made opposite by a negative prefix ("indirect" / "direct",
"unreliable" / "reliable"), and finds one when

- the source nowhere states the claim's word, and
- the best evidence window states an opposite of it that the claim does not use itself.

Opposites that state one relation from either side (`before` / `after`, `above` / `below`, `win` /
`lose`, `superior` / `inferior`) are no swap when the words around them are swapped too: "the dinner
takes place before the ceremony" restates "the ceremony takes place after the dinner". Nor is an
opposite that either text negates ("closed" against "not open", "did not fall" against "rose").
Comparatives of a "… than …" comparison in both texts (or of the claim's comparison without "than": "The
older engine is less efficient") are left to the comparison rule, which tells a restatement with the
sides swapped from a comparison turned around. It is a penalty, not a veto (like a
missing negation, checks/negation.py): the lexical score is multiplied by OPPOSITE_FACTOR. A source may
state the same fact from the other side ("X reduces Y" against "Y increases without X"), and the rule
does not know what each word is said of. Chosen on the claim sets' dev splits (docs/benchmarks.md,
"Negation and spaced numbers, opposite words"): as a hard rule it would have blocked 35
gold-supported dev claims beside 100 unsupported ones, so it only lowers the score.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from citebound.text.stem import STOP_WORDS, alpha_content_stems, stem
from citebound.text.tokenize import tokens
from citebound.verify.checks.comparison import NOT_SUPERLATIVES, comparisons, implicit_comparisons

OPPOSITE_FACTOR = 0.5

_PAIRS = """
increase decrease, increase reduce, increase lower, increase decline, rise fall, rise decline, rise drop,
gain loss, gain lose, grow shrink, expand shrink, expand contract, up down, upregulate downregulate,
upregulation downregulation, upregulated downregulated, more less, more fewer, higher lower, high low,
greater smaller, larger smaller, bigger smaller, most least, maximum minimum, maximal minimal, above below,
majority minority, improve worsen, improve impair, better worse, best worst, benefit harm, positive negative,
positively negatively, promote inhibit, promote suppress, activate inhibit, activate suppress,
enhance reduce, enhance impair, enhance inhibit, accelerate slow, accelerate delay, strong weak,
stronger weaker, succeed fail, success failure, win lose, earn lose, profit loss,
safe dangerous, superior inferior, allow prevent, accept reject, approve reject, agree disagree,
support oppose, include exclude, presence absence, present absent, warm cool, warmer cooler,
warming cooling, hot cold, wet dry, fast slow, faster slower, long short, longer shorter, old young,
older younger, rich poor, permit prohibit, permit forbid, allow prohibit, allow forbid, optional mandatory,
optional required, optional compulsory, voluntary mandatory, voluntary compulsory, enable disable,
open closed, earliest latest, before after, most few, many few, begin complete, begin finish, start complete,
start finish, increase fall, increase drop, increase plunge, rise decrease, rise reduce, grow decline, grow fall,
grow drop, climb fall, climb drop, climb decline, climb decrease, jump fall, jump drop, soar plunge, soar fall,
surge fall, surge drop, increase shorten, lengthen shorten, extend shorten, prolong shorten,
raise cut, raise reduce, raise lower, boost cut, boost reduce, increase halve, double halve, widen narrow,
strengthen weaken, uphold overturn, uphold reverse, uphold quash, acquit convict,
highest lowest, largest smallest, biggest smallest, greatest smallest, fastest slowest, longest shortest,
oldest youngest, oldest newest, strongest weakest, richest poorest, warmest coldest, hottest coldest,
heaviest lightest, cheapest priciest, cheapest costliest, cheapest expensive, widest narrowest, deepest shallowest,
tallest shortest
"""
OPPOSITES: dict[str, frozenset[str]] = {}
for _pair in _PAIRS.replace("\n", " ").split(","):
    _a, _b = (stem(w) for w in _pair.split())
    OPPOSITES[_a] = OPPOSITES.get(_a, frozenset()) | {_b}
    OPPOSITES[_b] = OPPOSITES.get(_b, frozenset()) | {_a}


_NEGATIVE_PREFIXES = ("un", "in", "im", "il", "ir", "dis", "non")
# irregular forms, read as their verb ("fell" / "rose")
_BASE = {"rose": "rise", "risen": "rise", "fell": "fall", "fallen": "fall", "grew": "grow", "grown": "grow",
         "shrank": "shrink", "shrunk": "shrink", "won": "win", "lost": "lose", "began": "begin",
         "begun": "begin", "upheld": "uphold"}  # fmt: skip


# Where `tokens` starts a token (in text case-folded with ’ read as '), and the rest of one: so a pattern
# can find the few tokens this check reads in a window without tokenising all of it.
_START = r"(?<![^\W_])(?<![^\W_]')"
_REST = r"[^\W_]*(?:'[^\W_]+)*"


def _candidates() -> re.Pattern[str]:
    """Tokens that may stem to a word of the table: those starting with a table word's stem less its
    last letter ("ris" finds "rising", stem "rise"), or with an irregular form."""
    heads = set()
    for word in {w for pair in _PAIRS.replace("\n", " ").split(",") for w in pair.split()} | set(_BASE):
        head = os.path.commonprefix([word, stem(word)])
        heads.add(head[:-1] if len(head) > 3 else head)
    return re.compile(_START + "(?:" + "|".join(sorted(heads, key=len, reverse=True)) + ")" + _REST)


_CANDIDATE = _candidates()
_PREFIXED = re.compile(_START + "(?:" + "|".join(_NEGATIVE_PREFIXES) + r")[^\W\d_]{5,}(?![^\W_]|'[^\W_])")


def _stems(toks) -> dict[str, str]:
    """Each stem of these tokens that has an opposite -> the word as written."""
    found: dict[str, str] = {}
    for tok in toks:
        s = stem(_BASE.get(tok, tok))
        if s in OPPOSITES:
            found.setdefault(s, tok)
    return found


def _has_token(folded: str, word: str) -> bool:
    """Whether `word` is a whole token of the folded text."""
    return word in folded and re.search(_START + re.escape(word) + r"(?![^\W_]|'[^\W_])", folded) is not None


def opposed_words(claim: str, window: str, in_source: Callable[[str, str], bool]) -> list[tuple[str, str]]:
    """(claim word, window word) for each word of the claim the source never states while the window
    states an opposite of it the claim does not use; `in_source(stem, word)` says whether the whole
    source states a word (checks/lexical.py `source_states`). Empty when there is none."""
    c_toks = tokens(claim)
    claimed = _stems(c_toks)
    if claimed and _excepts_claim(c_toks, window):  # "closed on Mondays" / "open every day except Mondays"
        return []
    folded = window.casefold().replace("’", "'")
    stated = _stems(m.group(0) for m in _CANDIDATE.finditer(folded)) if claimed else {}
    c_compared, w_compared = (_compared(claim), _compared(window)) if "than" in claim.casefold() else (set(), set())
    if not c_compared and "than" in folded:  # "The older engine is less efficient": compared without "than"
        c_compared, w_compared = {c.phrase.split()[0] for c in implicit_comparisons(claim)}, _compared(window)
    out = []
    negated: set[str] | None = None  # stems negated in the claim or the window, read once there is a hit
    degree_down = bool(_DEGREE_DOWN.search(claim))
    for s, word in claimed.items():
        if degree_down and re.search(r"\b(?:least|less)\s+" + re.escape(word) + r"\b", claim, re.IGNORECASE):
            continue  # "the least expensive" is the cheapest
        hit = next((stated[o] for o in sorted(OPPOSITES[s]) if o in stated and o not in claimed), None)
        if hit is not None:
            negated = _negated(claim, window) if negated is None else negated
            if s in negated or stem(_BASE.get(hit, hit)) in negated:
                continue  # "closed" against "not open", "did not fall" against "rose": the same, said negated
        if hit is not None and not (word in c_compared and hit in w_compared) and not in_source(s, word) \
                and not in_source(stem(word), word) \
                and not (s in _CONVERSE and _sides_swapped(c_toks, word, window, hit)):
            out.append((word, hit))
    return out + _prefixed({t for t in c_toks if t.isalpha() and t not in STOP_WORDS}, folded, in_source)


_DEGREE_DOWN = re.compile(r"\b(?:least|less)\b", re.IGNORECASE)
# Opposites that say one relation from either side: "A before B" is "B after A", "Spain won against Italy"
# is "Italy lost to Spain". With the sides swapped the claim restates its window.
_CONVERSE = frozenset(stem(w) for w in "before after above below win lose superior inferior".split())


def _sides_swapped(c_toks: list[str], word: str, window: str, hit: str) -> bool:
    """Whether a content word before `word` in the claim comes after `hit` in the window, and one after
    it comes before: the same relation said from the other side."""
    w_toks = tokens(window)
    if word not in c_toks or hit not in w_toks:
        return False

    def sides(toks: list[str], at: str) -> tuple[set[str], set[str]]:
        i = toks.index(at)
        content = [{stem(_BASE.get(t, t)) for t in part if t.isalpha() and t not in STOP_WORDS}
                   for part in (toks[:i], toks[i + 1 :])]
        return content[0], content[1]

    (c_before, c_after), (w_before, w_after) = sides(c_toks, word), sides(w_toks, hit)
    return bool(c_before & w_after) and bool(c_after & w_before)


def _negated(claim: str, window: str) -> set[str]:
    """The stems the claim or the window negates (checks/negation.py `polarity`)."""
    from citebound.verify.checks.negation import polarity

    return set(polarity(claim)[0]) | set(polarity(window)[0])


def swapped_opposites(claim: str, window: str, in_source: Callable[[str, str], bool]) -> list[str]:
    """The opposite words of `opposed_words` where the claim is otherwise the window's own statement:
    every other content word of the claim is in the window ("Smoking is prohibited" against "Smoking
    is permitted in the courtyard"). Such a claim says the opposite of its evidence, and the cascade
    blocks it (stage `opposite`) whatever a model says; with words the window lacks, the claim may say
    something else, and the pair only lowers the lexical score. A window that excepts the claim's
    words ("open every day except Mondays") is left alone (in `opposed_words`): "closed on Mondays"
    restates it; "every day" states each day of the week, so "closed on Tuesdays" is its opposite."""
    pairs = opposed_words(claim, window, in_source)
    if not pairs:
        return []
    window_stems = alpha_content_stems(tokens(window))
    if _EVERY_DAY.search(window):  # "open every day (except Mondays)" states each other day too
        window_stems |= _WEEKDAYS
    claimed = alpha_content_stems(tokens(claim))
    out = []
    for word, hit in pairs:
        rest = claimed - {stem(_BASE.get(word, word)), stem(word)}
        if rest and rest <= window_stems:
            out.append(f"the claim says {word!r} where its evidence says {hit!r}")
    return out


_EVERY_DAY = re.compile(r"\b(?:every\s+day|daily|seven\s+days\s+a\s+week|7\s+days\s+a\s+week)\b", re.IGNORECASE)
_WEEKDAYS = frozenset(stem(d) for d in ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
                                         "mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays",
                                         "sundays"))  # fmt: skip


def _excepts_claim(c_toks: list[str], window: str) -> bool:
    """Whether the window's exceptions name a content word of the claim: then an opposite word restates
    it ("closed on Mondays" against "open every day except Mondays") rather than contradicting it."""
    from citebound.verify.checks.exceptions import excepted_words  # (exceptions imports nothing from here)

    excepted = excepted_words(window)
    return bool(excepted) and any(stem(t) in excepted for t in c_toks if t.isalpha() and t not in STOP_WORDS)


def _prefixed(c_words: set[str], folded: str, in_source: Callable[[str, str], bool]) -> list[tuple[str, str]]:
    """Opposites made by a negative prefix ("indirect" / "direct", "correct" / "incorrect"): a claim word
    the source never states, and in the (folded) window the same word with or without the prefix (a
    base of at least five letters: "intake" is not "take")."""
    prefixed = {m.group(0) for m in _PREFIXED.finditer(folded)} - c_words  # the window's "indirect", "unsafe", ...
    out = []
    for word in sorted(c_words):
        hit = next((f for f in (p + word for p in _NEGATIVE_PREFIXES) if f in prefixed), None) if prefixed else None
        hit = hit or next((b for b in _bases(word) if b not in c_words and _has_token(folded, b)), None)
        if hit is not None and not in_source(stem(word), word):
            out.append((word, hit))
    return out


def _bases(word: str) -> list[str]:
    """`word` without each negative prefix it starts with, when five letters or more are left."""
    if not word.startswith(_NEGATIVE_PREFIXES):
        return []
    return [word[len(p) :] for p in _NEGATIVE_PREFIXES if word.startswith(p) and len(word) - len(p) >= 5]


def _compared(text: str) -> set[str]:
    """The comparatives of `text`'s "… than …" comparisons: those are the comparison rule's, which
    knows a restatement with the sides swapped ("B has more features than A" / "A has fewer features
    than B") from a comparison turned around (checks/comparison.py)."""
    return {c.phrase.split()[0] for c in comparisons(text)}


# where one statement of a window ends and another begins: a sentence, a semicolon, a contrast
_STATEMENTS = re.compile(r"(?<=[.!?])\s+|;|,?\s+\b(?:while|whilst|whereas|but|although|(?:even\s+)?though)\b",
                         re.IGNORECASE)
_SCOPED = frozenset({"most", "least", "more", "less", "fewer", "greater", "smaller", "many", "few", "best", "worst",
                     "present"})
_WHEN = frozenset({"before", "after", "during", "until", "since"})
_SENTENCES = re.compile(r"(?<=[.!?])\s+")
_CLAUSE_NEGATION = re.compile(r"\b(?:not|no|never|neither|nor|cannot)\b|n't\b", re.IGNORECASE)


def clause_opposites(claim: str, window: str) -> list[str]:
    """The opposite of a claim word in the statement of the window about the claim's subject, where the
    window states the claim's word only of something else: "The booking deposit is refundable" against "The
    booking deposit is non-refundable; the remaining balance is refundable", "Operating profit rose" against
    "Revenue rose 12%, while operating profit fell 8%" (full supported both, P 0.95 and 0.90).
    `swapped_opposites` steps aside there because the source states the claim's word. The subject is the
    claim's content words before its word (two at least); a statement
    (sentence, part after a semicolon or before "while / whereas / but") that names all of them and the
    opposite (or the word with a negative prefix: "non-refundable", "limited" for "unlimited") conflicts, unless
    a statement names them with the claim's word in any form ("was rising"), or either negates. The opposing
    statement must say the subject before the opposite and nothing else there ("Sales of phones in Asia fell" is
    no statement about "sales in Asia"), have the claim's other words in its sentence, its numbers and its
    "before / after" itself ("rose in 2021" against "fell in 2020"). Comparisons and exceptions are other
    rules'. A review (193 faithful, 48 false cases, 2026-12-03) found the first version blocking 31 faithful
    claims; this one blocks none of them and 27 false ones."""
    c_toks = tokens(claim)
    if _CLAUSE_NEGATION.search(claim) or "than" in c_toks or _excepts_claim(c_toks, window):
        return []  # comparisons are the comparison rule's; "closed on Mondays" restates "open except Mondays"
    statements = [s for s in _STATEMENTS.split(window) if s and s.strip()]
    if len(statements) < 2:
        return []
    out = []
    claim_low = claim.casefold()
    sentences = _SENTENCES.split(window)
    claimed = alpha_content_stems(c_toks)
    for k, tok in enumerate(c_toks):
        s = stem(_BASE.get(tok, tok))
        if tok in _SCOPED or (tok.endswith("est") and tok not in NOT_SUPERLATIVES) or re.search(
                rf"\bnon-{re.escape(tok)}\b", claim_low):
            continue  # "most prevalent among ...": a superlative's scope is its own; "non-toxic" is the claim's
        prefixed = _un_forms(tok)
        if s not in OPPOSITES and not prefixed:
            continue
        subject = {stem(t) for t in c_toks[:k] if t.isalpha() and t not in STOP_WORDS}
        if len(subject) < 2:
            continue
        holding = [st for st in statements if subject <= alpha_content_stems(tokens(st))]
        if not holding:
            continue
        plain = re.compile(rf"(?<![\w-]){re.escape(tok)}\b", re.IGNORECASE)

        def says_it(st: str) -> bool:
            prefixed_there = any(re.search(rf"(?<![\w-]){re.escape(w)}\b", st.casefold()) for w in prefixed)
            return bool(plain.search(st)) or (not prefixed_there and s in {stem(_BASE.get(t, t)) for t in tokens(st)})

        if any(says_it(st) for st in holding):
            continue  # a statement about the subject says it the claim's way, in any form ("was rising")
        # the opposing statement says all the claim says but the word, in its sentence (shared context: "in the
        # third quarter, while operating profit fell"), and the claim's numbers itself ("rose in 2021" / "fell in
        # 2020")
        said = claimed - {s, stem(tok)}
        digits = {t for t in c_toks if t.isdigit()}
        for st in holding:
            st_toks = tokens(st)
            sentence = next((x for x in sentences if st.strip() in x), st)
            if _CLAUSE_NEGATION.search(st) or not said <= alpha_content_stems(tokens(sentence)) \
                    or not digits <= set(st_toks):  # fmt: skip
                continue
            if any(t in _WHEN and t not in st_toks for t in c_toks):
                continue  # "rose after the merger" against "fell before the merger"
            low = st.casefold()
            hit = next((w for w in prefixed if re.search(rf"(?<![\w-]){re.escape(w)}\b", low)), None)
            if hit is None and s in OPPOSITES and s not in _CONVERSE:
                hit = next((w for o, w in _stems(st_toks).items() if o in OPPOSITES[s]), None)
            if hit is not None and hit in st_toks:
                before = alpha_content_stems(st_toks[: st_toks.index(hit)])
                if before - claimed or not subject <= before:
                    continue  # said of a part of the subject ("Sales of phones in Asia fell"), or not before it
                    # ("acquitted of murder but convicted of manslaughter by the trial jury")
            if hit is not None and not re.search(rf"(?<![\w-]){re.escape(hit)}\b", _sentence_with(claim_low, tok)):
                named = " ".join(t for t in c_toks[:k] if t.isalpha() and t not in STOP_WORDS)
                out.append(f"the claim says {tok!r} of {named!r} where its evidence says {hit!r}")
                return out
    return out


def _un_forms(word: str) -> list[str]:
    """The word with "un" / "non" added or taken away ("refundable": "non-refundable", "unlimited": "limited"),
    five letters of base at least; the other prefixes make other words too often ("formed" / "informed")."""
    if not word.isalpha() or len(word) < 5:
        return []
    for p in ("non", "un"):
        if word.startswith(p) and len(word) - len(p) >= 5:
            return [word[len(p) :]]
    return [f"un{word}", f"non{word}", f"non-{word}"]


def _sentence_with(text: str, word: str) -> str:
    """The sentence of `text` (folded) that has `word` ("acquitted of murder but convicted of manslaughter")."""
    return next((p for p in _SENTENCES.split(text) if re.search(rf"\b{re.escape(word)}\b", p)), text)
