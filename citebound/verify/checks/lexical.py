"""The lexical check: what share of the claim's content terms does the source contain?

Two term extractors:

- `stemmed_terms` (the cascade's): content words (stop words and number words removed), stemmed with
  Snowball English so `months` matches `month`, plus the normalised value of every unhedged number
  (`ten` and `10` are the same term `10`).
- `plain_terms` (the seed's plain checker, kept as the measured baseline `lexical`): lower-cased word
  tokens minus stop words. No stemming, no number normalisation (`4 990` is the two tokens `4`, `990`).

support fraction = |claim terms found in the source| / |claim terms|.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache
from itertools import chain, compress, islice

from citebound.text.numbers import (
    _NUMBER_WORDS,
    ORDINALS,
    TENS,
    UNITS,
    UNITS_OF,
    Number,
    NumberMention,
    canonical,
    extract_numbers,
    source_numbers,
)
from citebound.text.sentences import sentence_spans
from citebound.text.stem import STOP_WORDS, stem, stem_words
from citebound.text.tokenize import (
    is_contracted_negation,
    strip_citation_markers,
    tokens,
    tokens_in_spans,
)
from citebound.verify.checks.numbers import NumberProblem, convertible, number_problems


@dataclass(frozen=True, slots=True)
class Terms:
    """The terms of a text, and for each term the word as first written (for readable reasons)."""

    terms: frozenset[str]
    surface: dict[str, str]


TermExtractor = Callable[[str], Terms]


@lru_cache(maxsize=8192)
def claim_numbers(text: str) -> tuple[NumberMention, ...]:
    """The numbers a claim states (strictly read: lone "one"/"first" are not numbers), cached."""
    return tuple(extract_numbers(text, ambiguous_words=False))


@lru_cache(maxsize=8192)
def stemmed_terms(text: str) -> Terms:
    """Stemmed content words plus normalised numbers."""
    surface: dict[str, str] = {}
    for tok in tokens(strip_citation_markers(text)):
        if tok in STOP_WORDS or tok in _NUMBER_WORDS or tok.isdigit() or tok in _PERCENT_WORDS:
            continue
        surface.setdefault(stem(_not(tok)), tok)
    for mention in claim_numbers(text):
        if not mention.hedge:
            surface.setdefault(canonical(mention.value), mention.text)
    return Terms(frozenset(surface), surface)


# A cached source's term sets are dicts with None values, not frozensets: a dict that holds only strings
# is invisible to Python's cyclic garbage collector, a set never is, and every full collection walked
# every element of every cached source's sets again (a quarter of the checking time on long sources).
# `in` reads them the same way. A source's word pairs are one string for the same reason (WordPairs).
StrSet = dict[str, None]


@dataclass(frozen=True, slots=True)
class WordPairs:
    """A source's adjacent content stems as one string, " u1 u2 u3 ... ": the pair "a b" occurs iff
    " a b " is a substring, since stems hold no spaces. One join per source; a substring search per
    claim pair is cheaper than hashing every pair of a long source that no claim will ask about."""

    units: str

    def __contains__(self, pair: str) -> bool:
        return f" {pair} " in self.units


@dataclass(frozen=True, eq=False)
class SourceProfile:
    """What the checks need of one source, from one reading of the text (cached per text): its terms,
    numbers and word pairs, and its sentences with the terms of each (for evidence windows).

    The number parts are read on first use: reading numbers is the dearest step on a long source, and
    a claim that states no number and has no term written in digits never needs them (number keys
    are always written with a digit or "∞", so they cannot equal an all-letter word stem).
    """

    text: str
    word_terms: StrSet  # the stems of the source's content words (no numbers)
    pairs: WordPairs
    word_stems: dict[str, str]  # each content word of the source -> its stem

    @cached_property
    def sentences(self) -> tuple[tuple[int, int], ...]:
        return tuple(sentence_spans(self.text)) or ((0, len(self.text)),)

    @cached_property
    def clauses(self) -> tuple[tuple[int, int], ...]:
        """The sentences cut again after each semicolon: what the numbers check reads a value with.
        "Returns are accepted within 14 days; exchanges within 30 days." states 30 days of exchanges,
        and a semicolon joins two statements that could each stand alone. A clause that opens with a
        pronoun referring back is not cut off: "The bridge opened in 1932; it is 300 metres long" states
        300 metres of the bridge."""
        out = []
        for start, end in self.sentences:
            at = start
            for m in _CLAUSE_BREAK.finditer(self.text, start, end):
                first = _WORD_AT.match(self.text, m.end())
                if first and first.group(0).casefold() in _REFERS_BACK:
                    continue
                out.append((at, m.start() + 1))
                at = m.end()
            out.append((at, end))
        return tuple((a, b) for a, b in out if b > a)

    @cached_property
    def sentence_words(self) -> tuple[StrSet, ...]:
        """Per sentence, as word_terms (a long text's is built only if asked for: see
        `claim_sentence_terms`)."""
        spans = self.sentences
        tokens_per_sentence = [] if len(spans) == 1 else tokens_in_spans(self.text, spans)
        return _sentence_words(tokens_per_sentence, self.word_stems, self.word_terms)

    def count_window_read(self) -> int:
        """How many claims have now asked this source for evidence windows (this one included). Kept
        outside the frozen fields: a race between threads only picks the other, equivalent, path."""
        reads = self.__dict__.get("_window_reads", 0) + 1
        self.__dict__["_window_reads"] = reads
        return reads

    @cached_property
    def folded(self) -> str:
        """The text as `tokens` reads it (case-folded, ’ as '), to find words in."""
        return self.text.casefold().replace("’", "'")

    @cached_property
    def sentence_starts(self) -> tuple[int, ...]:
        return tuple(s for s, _ in self.sentences)

    @cached_property
    def _mentions(self) -> tuple[NumberMention, ...]:
        return source_numbers(self.text)

    @cached_property
    def number_keys(self) -> frozenset[str]:
        return frozenset(k for n in self._mentions for k in n.keys)

    @cached_property
    def number_values(self) -> tuple[Number, ...]:
        return tuple(v for n in self._mentions for v in n.values)

    def number_problems(self, claim: str, stated: Sequence[NumberMention]) -> list[NumberProblem]:
        """Why this source does not state each of the claim's numbers with what the claim attaches to
        it (checks/numbers.py); empty when every number is stated as claimed. Reads the sentences'
        words only when a claim number's value occurs in the source at all."""
        if not stated or not self.number_keys.intersection(k for n in stated for k in n.keys) and not any(
            n.hedge for n in stated
        ) and not convertible(claim, stated):
            return number_problems(claim, stated, self.text, (), (), ())  # every value absent: no context needed
        spans = self.clauses
        if spans == self.sentences:  # no semicolon: the sentence words may be read already
            words = self.sentence_words if "sentence_words" in self.__dict__ else _LazySentenceWords(self, spans)
        else:
            words = _LazySentenceWords(self, spans)
        return number_problems(claim, stated, self.text, self._mentions, spans, words, _word_stem)

    @cached_property
    def terms(self) -> StrSet:
        """Word stems plus every reading of every number."""
        return {**self.word_terms, **dict.fromkeys(self.number_keys)}

    @cached_property
    def sentence_terms(self) -> tuple[StrSet, ...]:
        if len(self.sentences) == 1:  # one sentence: its terms are the text's
            return (self.terms,)
        mentions = self._mentions
        starts = [n.start for n in mentions]
        keys = [n.keys for n in mentions]  # a property that builds a set: read it once
        return tuple(
            {**words, **dict.fromkeys(chain.from_iterable(keys[bisect_left(starts, s) : bisect_left(starts, e)]))}
            for (s, e), words in zip(self.sentences, self.sentence_words, strict=True)
        )


class _LazySentenceWords(Sequence):
    """A long source's per-sentence word stems (as `SourceProfile.sentence_words`), each sentence read
    only when asked for: the numbers check looks at the few sentences that state a claim's value."""

    def __init__(self, profile: SourceProfile, spans: Sequence[tuple[int, int]] | None = None) -> None:
        self._profile, self._read = profile, {}  # type: ignore[var-annotated]
        self._spans = profile.sentences if spans is None else spans

    def __len__(self) -> int:
        return len(self._spans)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i not in self._read:
            s, e = self._spans[i]
            stems = self._profile.word_stems
            self._read[i] = {stems[t]: None for t in tokens(self._profile.text[s:e]) if t in stems}
        return self._read[i]


_CLAUSE_BREAK = re.compile(r";\s+")
# words a clause opens with to refer back to the one before it (then the two are read as one)
_REFERS_BACK = frozenset({"it", "its", "they", "them", "their", "he", "she", "him", "his", "her", "there", "this",
                          "these", "those", "which", "who", "whose"})  # fmt: skip
_WORD_AT = re.compile(r"[^\W\d_]+")


def _word_stem(word: str) -> str:
    """The stem a word counts as in a source's word sets (case-folded; see `_not`)."""
    # (casefold writes "İ" as "i" + a combining dot, which would hide "isn't" in "İstanbulisn't" from the
    # contraction reading the reference applies: hypothesis found the pair)
    return _token_stems(word.casefold().replace("’", "'").replace("\u0307", ""))[1]


def _sentence_words(
    tokens_per_sentence: list[list[str]], word_stems: dict[str, str], words: StrSet
) -> tuple[StrSet, ...]:
    """Each sentence's word stems; one sentence (no token lists given) has the text's."""
    if len(tokens_per_sentence) <= 1:
        return (words,)
    per_sentence = []
    for sentence in tokens_per_sentence:
        found = dict.fromkeys(map(word_stems.get, sentence))  # looked up in C, not a Python loop
        found.pop(None, None)  # type: ignore[call-overload]  # stop words and number words
        per_sentence.append(found)
    return tuple(per_sentence)


def _may_name_a_number(claim: Terms) -> bool:
    """Whether a claim term could equal a number key: only a term that is not all letters can."""
    return not all(map(str.isalpha, claim.terms))


# Unit words count as their unit's name, so `330 m` = `330 metres` = `330 meters` (text/numbers.py
# UNITS_OF); symbols are not tokens and are left out. Percent words are not terms at all (`%` is never a
# token, and the numbers check already holds a claim's percent to a percent in the source).
_UNIT_TERMS = {w: name for w, name in UNITS_OF.items() if w.isalpha() and name != "percent"}
_PERCENT_WORDS = frozenset(w for w, name in UNITS_OF.items() if w.isalpha() and name == "percent")


def _not(tok: str) -> str:
    """The word a token counts as: contracted negations and "never" as "not" (`doesn't`, `can't`, `cannot`,
    `isn't's`, `never`: "are not stored" restates "are never stored"), a unit in any spelling as the
    unit's name (`meters`, `m` -> `metre`)."""
    if tok in ("never", "no") or is_contracted_negation(tok):  # "No employee may" = "Employees may not"
        return "not"
    return _UNIT_TERMS.get(tok, tok)


_ORDINAL_DIGITS = re.compile(r"(\d+)(?:st|nd|rd|th)")
_WORD_VALUES = {w: canonical(v) for w, v in {**UNITS, **TENS, **ORDINALS}.items()}


def _pair_unit(tok: str) -> str:
    """How a token enters a word pair: numbers as digits (`five` = `5`, `3rd` = `3`), else its stem."""
    if tok in _WORD_VALUES:
        return _WORD_VALUES[tok]
    m = _ORDINAL_DIGITS.fullmatch(tok)
    return m.group(1) if m else stem(_not(tok))


# Token -> (pair unit, word stem), shared by all texts: sources repeat a vocabulary of a few thousand
# words, and a dict hit is cheaper than the ordinal regex plus the stemmer. Bounded like stem's cache.
_TOKEN_STEMS: dict[str, tuple[str, str]] = {}
_MAX_TOKEN_STEMS = 200_000


def _token_stems(tok: str) -> tuple[str, str]:
    """(how `tok` enters a word pair, the stem it counts as a term under), cached."""
    hit = _TOKEN_STEMS.get(tok)
    if hit is None:
        hit = (_pair_unit(tok), stem(_not(tok)))
        if len(_TOKEN_STEMS) < _MAX_TOKEN_STEMS:
            _TOKEN_STEMS[tok] = hit
    return hit


def _stems(toks: list[str]) -> dict[str, str]:
    """Each distinct non-stop token -> its pair unit (computed once, however often it occurs)."""
    return {t: _token_stems(t)[0] for t in set(toks) - STOP_WORDS}


def _pair_units(toks: list[str], stems: dict[str, str] | None = None) -> list[str]:
    """The tokens as they enter word pairs, stop words dropped ("refund within 30 days" -> refund, 30,
    day): adjacent units make the pairs ("refund 30", "30 day"), word order and phrase evidence that a
    bag of words cannot see."""
    stems = _stems(toks) if stems is None else stems
    return [unit for unit in map(stems.get, toks) if unit is not None]  # stop words have no unit


def _token_stems_of(words: set[str]) -> dict[str, tuple[str, str]]:
    """`{t: _token_stems(t) for t in words}`, with every word not yet cached stemmed in one C call:
    a long source brings dozens of words no earlier text had."""
    known = dict(zip(words, map(_TOKEN_STEMS.get, words)))
    misses = [t for t, hit in known.items() if hit is None]
    if misses:
        for tok, word_stem in zip(misses, stem_words([_not(t) for t in misses]), strict=True):
            if tok in _WORD_VALUES:
                unit = _WORD_VALUES[tok]
            elif tok[:1].isdigit() and (m := _ORDINAL_DIGITS.fullmatch(tok)):
                unit = m.group(1)  # \d matches only characters str.isdigit accepts
            else:
                unit = word_stem
            known[tok] = hit = (unit, word_stem)
            if len(_TOKEN_STEMS) < _MAX_TOKEN_STEMS:
                _TOKEN_STEMS[tok] = hit
    return known  # type: ignore[return-value]


# Up to this length a source's per-sentence term table is built with the profile, from the same
# per-sentence tokens (cheap); beyond it, windows search only for the claim's words instead
# (`claim_sentence_terms`), which costs less than tabling a long text most of which no claim asks about.
# Both give the same windows. The cut-off lies between qags (~2 kB a source: tabling was faster) and
# wice (~9 kB: searching was faster), as timed with bench/verify_bench.py.
TABLE_SENTENCES_UP_TO = 4_000


@lru_cache(maxsize=4096)
def stemmed_profile(text: str) -> SourceProfile:
    """A source read leniently: stemmed content words plus every reading of every number.

    Numbers are read only when a claim needs them; a long text's sentences too. A short text is
    tokenised sentence by sentence: sentences are cut only at whitespace and cover every other
    character, so their tokens, in order, are exactly `tokens(text)`.
    """
    per_sentence_tokens = None
    if len(text) <= TABLE_SENTENCES_UP_TO:
        spans = tuple(sentence_spans(text)) or ((0, len(text)),)
        per_sentence_tokens = tokens_in_spans(text, spans)
        toks = [t for sentence in per_sentence_tokens for t in sentence]
    else:
        toks = tokens(text)
    both = _token_stems_of(set(toks) - STOP_WORDS)
    pair_units = {t: units[0] for t, units in both.items()}
    word_stems = {t: units[1] for t, units in both.items() if t not in _NUMBER_WORDS}
    words = dict.fromkeys(word_stems.values())
    pairs = WordPairs(f" {' '.join(_pair_units(toks, pair_units))} ")
    profile = SourceProfile(text, words, pairs, word_stems)
    if per_sentence_tokens is not None:  # fill the cached properties now, from the tokens at hand
        profile.__dict__["sentences"] = spans
        profile.__dict__["sentence_words"] = _sentence_words(per_sentence_tokens, word_stems, words)
    return profile


# A source word occurs as a token where no word character (or word character and apostrophe) comes
# before it and none (or apostrophe and word character) after it: exactly where `tokens` would cut it.
_TOKEN_STARTS_HERE = re.compile(r"(?<![^\W_])(?<![^\W_]')").match
_TOKEN_ENDS_HERE = re.compile(r"(?![^\W_])(?!'[^\W_])").match


def _token_positions(folded: str, word: str) -> list[int]:
    """Where `word` occurs in `folded` as a whole token (str.find plus two boundary tests: a regex
    built per claim would cost more to compile than the search saves)."""
    out, size = [], len(word)
    pos = folded.find(word)
    while pos >= 0:
        if _TOKEN_STARTS_HERE(folded, pos) and _TOKEN_ENDS_HERE(folded, pos + size):
            out.append(pos)
        pos = folded.find(word, pos + 1)
    return out


def claim_sentence_terms(profile: SourceProfile, claim: Terms) -> tuple[Collection[str], ...]:
    """Per sentence of the source, the claim's terms it contains: all an evidence window reads of a
    sentence's terms (`best_window` intersects them with the claim's), found by searching the source
    for the few words that stem to a claim term instead of stemming every sentence."""
    sentences = profile.sentences
    # The full per-sentence table (exactly equivalent for a window) is the cheaper one once built
    # (short texts), or once a second claim asks about the same source; and the search needs the
    # folded text's offsets to be the text's (folding `ß` to `ss` shifts them).
    tabled = "sentence_words" in profile.__dict__
    if tabled or profile.count_window_read() > 1 or len(sentences) == 1 or len(profile.folded) != len(profile.text):
        return profile.sentence_terms if _may_name_a_number(claim) else profile.sentence_words
    folded = profile.folded
    starts = profile.sentence_starts
    found: dict[int, StrSet] = {}

    def add(term: str, pos: int) -> None:
        i = bisect_right(starts, pos) - 1
        if i >= 0 and pos < sentences[i][1]:
            found.setdefault(i, {})[term] = None

    word_stems = profile.word_stems  # the source words that stem to a claim term, picked out in C:
    surface = dict(compress(word_stems.items(), map(claim.terms.__contains__, word_stems.values())))
    for word, term in surface.items():
        for pos in _token_positions(folded, word):
            add(term, pos)
    if _may_name_a_number(claim):  # (no per-key position index is kept: lists cost the GC more)
        for mention in profile._mentions:
            for key in claim.terms.intersection(mention.keys):
                add(key, mention.start)
    empty: StrSet = {}
    return tuple(found.get(i, empty) for i in range(len(sentences)))


@lru_cache(maxsize=8192)
def claim_pairs(text: str) -> frozenset[str]:
    """The claim's adjacent content-stem pairs, "stem stem" (see `_pair_units`)."""
    units = _pair_units([t for t in tokens(strip_citation_markers(text)) if t not in _PERCENT_WORDS])
    return frozenset(map(" ".join, zip(units, islice(units, 1, None))))


def pair_share(claim: frozenset[str], source: WordPairs) -> tuple[int, int]:
    """(claim pairs found in the source, claim pairs)."""
    return sum(pair in source for pair in claim), len(claim)


def source_states(text: str) -> Callable[[str, str], bool]:
    """`states(stem, word)`: whether the source states a word anywhere, by its stem (`word_terms`), or
    written as is when it is a stop word ("more", "up": not among a source's terms)."""
    profile = stemmed_profile(text)

    def states(word_stem: str, word: str) -> bool:
        if word_stem in profile.word_terms:
            return True
        return word in STOP_WORDS and re.search(rf"(?<![^\W_]){re.escape(word)}(?![^\W_])", profile.folded) is not None

    return states


def source_stemmed_terms(text: str, claim: Terms | None = None) -> StrSet:
    """The source's terms; given the `claim`, only those it could match (the same share either way),
    so a claim with no number in it spares reading the source's numbers."""
    profile = stemmed_profile(text)
    return profile.terms if claim is None or _may_name_a_number(claim) else profile.word_terms


Sentences = tuple[tuple[int, int], ...]


def sentence_terms(
    text: str, stemming: bool = True, claim: Terms | None = None
) -> tuple[Sentences, tuple[Collection[str], ...]]:
    """The sentences of `text` (offsets) and the terms of each: evidence windows are built from these.
    Given the `claim`, as in `source_stemmed_terms`."""
    if not stemming:
        return _plain_sentence_terms(text)
    profile = stemmed_profile(text)
    if claim is None:
        return profile.sentences, profile.sentence_terms
    return profile.sentences, claim_sentence_terms(profile, claim)


@lru_cache(maxsize=1024)
def _plain_sentence_terms(text: str) -> tuple[Sentences, tuple[frozenset[str], ...]]:
    spans = tuple(sentence_spans(text)) or ((0, len(text)),)
    if len(spans) == 1:  # one sentence: its terms are the text's
        return spans, (plain_terms(text).terms,)
    return spans, tuple(frozenset(set(tokens(text[s:e])) - STOP_WORDS) for s, e in spans)


@lru_cache(maxsize=8192)
def plain_terms(text: str) -> Terms:
    """The seed's plain terms: lower-cased tokens that are not stop words, unstemmed."""
    surface = {t: t for t in tokens(strip_citation_markers(text)) if t not in STOP_WORDS}
    return Terms(frozenset(surface), surface)


def source_plain_terms(text: str) -> frozenset[str]:
    return plain_terms(text).terms


def support_fraction(claim: Terms, source_terms: Collection[str]) -> tuple[float, list[str]]:
    """(share of claim terms in the source, the missing terms as written). No terms -> (0.0, [])."""
    if not claim.terms:
        return 0.0, []
    missing = [claim.surface[t] for t in claim.surface if t not in source_terms]
    return 1.0 - len(missing) / len(claim.terms), missing
