"""Find the numbers a text states, and normalise them so equal amounts compare equal.

`five` = `5`; `4 990` = `4,990` = `4 990` (no-break space) = `4990`; `30 %` = `thirty percent` =
`30 per cent` = `30`; `1.5 million` = `1,500,000`; `2k` = `2000`; `3rd` = `third` = `3`; `$12` = `12`;
`the 1990s` = `1990`. Each mention carries one or more *keys* (canonical strings); two mentions state the
same number when their keys overlap. A mention has several keys only when its reading is ambiguous
(`5m` is 5 million or 5 metres; `4.990` is 4.99 or, written the European way, 4990), so the check
stays lenient rather than raising false alarms.

What is deliberately not read as a number: digits glued after letters (`p53`, `H1N1`, `COVID-19`), a
list enumerator at the start of a line (`1.`, `2)`), citation markers (`[1]`, `[S2]`), and, when
`ambiguous_words=False` (how claims are read), the lone words `one`, `first` and `second`
("one of the", "a second look").

Hedged claim numbers (`about 5,000`, `more than 40`) are marked, so a checker can accept a nearby or
larger source value instead of demanding the exact one.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from citebound.text.scan import finditer_at
from citebound.text.tokenize import strip_citation_markers

UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
TENS = {
    "twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
    "ninety": 90,
}  # fmt: skip
SCALES = {"hundred": 100, "thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000,
          "trillion": 1_000_000_000_000}  # fmt: skip
ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
    "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
    "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60, "seventieth": 70,
    "eightieth": 80, "ninetieth": 90, "hundredth": 100, "thousandth": 1_000, "millionth": 1_000_000,
}  # fmt: skip
# Words that are numbers in form but usually not in meaning, when they stand alone in a claim.
AMBIGUOUS_WORDS = frozenset({"one", "first", "second"})
_SUFFIX_SCALES = {"k": 1_000, "thousand": 1_000, "m": 1_000_000, "mn": 1_000_000, "million": 1_000_000,
                  "b": 1_000_000_000, "bn": 1_000_000_000, "billion": 1_000_000_000,
                  "trillion": 1_000_000_000_000, "tn": 1_000_000_000_000}  # fmt: skip
# "m" and "b" alone are also units (metres, bytes): keep the bare amount as a second reading.
_AMBIGUOUS_SUFFIXES = frozenset({"m", "b"})

_SEP = "[ ,\u00a0\u202f\u2009]"
_NO_SEPARATORS = str.maketrans("", "", " ,\u00a0\u202f\u2009")
_DIGITS = re.compile(
    rf"""
    (?<![^\W\d_])(?<![\d.])(?<![^\W\d_]-)     # not glued to letters (p53, COVID-19) or inside a number
    (?P<cur>[$€£¥₹]\s?)?
    (?P<int>\d{{1,3}}(?:{_SEP}\d{{3}})+(?![\d])|\d+)
    (?P<dec>\.\d+(?!\.?\d))?
    (?P<suf>
        [ \u00a0\u202f]?%
      | [ \u00a0\u202f](?:percent|per\s?cent)\b
      | [ \u00a0\u202f]?(?:thousand|million|billion|trillion)\b
      | (?:[kKmMbB]|bn|mn|tn)\b
      | (?:st|nd|rd|th)\b
      | s\b
      | [ \u00a0]?[ap]\.?m\b\.?            # 5 pm, 9am, 5 p.m.
    )?
    """,
    re.VERBOSE | re.IGNORECASE,
)
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_TIME = re.compile(r"(?<![\d:.])([01]?\d|2[0-3]):([0-5]\d)(?:\s?([AaPp])\.?[Mm]\b\.?)?(?![\d:])")
_MARKER = re.compile(r"\[\s*[Ss]?\d+\s*(?:[,;]\s*[Ss]?\d+\s*)*\]")
# Where each pattern above can start (see text/scan.py): the first character, then the opening
# lookbehind re-checked one character back, so the engine can skip to candidates on long sources.
_DIGITS_STARTS = re.compile(r"[$€£¥₹\d](?<![^\W\d_].)(?<![\d.].)(?<![^\W\d_]-.)")
_ISO_DATE_STARTS = re.compile(r"\d(?<!\d\d)\d{3}-")
_TIME_STARTS = re.compile(r"\d(?<![\d:.]\d)\d?:")
_NUMBER_WORDS = frozenset({*UNITS, *TENS, *SCALES, *ORDINALS})
_SMALL_NUMBER_WORDS = frozenset({*UNITS, *TENS})
_PERCENT_AFTER = re.compile(r"\s*(?:%|percent\b|per\s?cent\b)", re.IGNORECASE)
_ENUMERATOR = re.compile(r"^[ \t]*(?:\(?\d{1,2}[.)]|[-*•])[ \t]+", re.MULTILINE)
_HEDGE_APPROX = re.compile(
    r"(?:about|approximately|approx\.?|around|roughly|nearly|almost|some|circa|ca\.|~|an estimated)\s*$",
    re.IGNORECASE,
)
_HEDGE_AT_LEAST = re.compile(r"(?:more than|over|above|at least|exceeding|upwards of|>)\s*$", re.IGNORECASE)
_HEDGE_AT_MOST = re.compile(r"(?:less than|fewer than|under|below|up to|at most|<)\s*$", re.IGNORECASE)


def canonical(value: float) -> str:
    """The key of a numeric value: integers without a decimal point, others to 6 significant digits.
    Digits beyond a float's range (a 400-digit run) read as infinity: key "∞", never an error."""
    if math.isinf(value):
        return "∞"
    rounded = round(value)
    if abs(value - rounded) <= 1e-9 * max(1.0, abs(value)):
        return str(int(rounded))
    return format(value, ".6g")


@dataclass(frozen=True, slots=True)
class NumberMention:
    """One number stated in a text. `values` holds every plausible reading (usually one)."""

    text: str
    start: int
    end: int
    values: tuple[float, ...]
    kind: str = "number"  # number | percent | ordinal | currency | year
    hedge: str = ""  # "" | "approx" | "at_least" | "at_most"

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(canonical(v) for v in self.values)

    @property
    def value(self) -> float:
        return self.values[0]


def _blank(text: str, pattern: re.Pattern[str]) -> str:
    """Replace matches with spaces of the same length, so offsets into `text` stay valid."""
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


def _clock(hour: float, half: str | None) -> list[float]:
    """Readings of an hour: 5 pm is 5 and 17, 17:00 is 17, 12 am is 12 and 0."""
    if half in ("p", "P") and hour < 12:
        return [hour, hour + 12]
    if half in ("a", "A") and hour == 12:
        return [hour, 0.0]
    return [hour]


def _blank_spans(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` with each (start, end) span replaced by spaces (offsets preserved), in one pass."""
    if not spans:
        return text
    parts, pos = [], 0
    for start, end in sorted(spans):
        if start < pos:
            start = pos
        parts += [text[pos:start], " " * (end - start)] if end > start else [text[pos:start]]
        pos = max(pos, end)
    parts.append(text[pos:])
    return "".join(parts)


def _hedge(text: str, start: int) -> str:
    before = text[max(0, start - 24) : start]
    if _HEDGE_APPROX.search(before):
        return "approx"
    if _HEDGE_AT_LEAST.search(before):
        return "at_least"
    if _HEDGE_AT_MOST.search(before):
        return "at_most"
    return ""


def _digit_mentions(text: str, hedges: bool) -> list[NumberMention]:
    found: list[NumberMention] = []
    for m in finditer_at(_DIGITS, _DIGITS_STARTS, text):
        digits = m.group("int").translate(_NO_SEPARATORS) + (m.group("dec") or "")
        value = float(digits)
        suffix = (m.group("suf") or "").strip().lower()
        kind = "currency" if m.group("cur") else "number"
        values = [value]
        dec = m.group("dec") or ""
        if len(dec) == 4 and len(m.group("int")) <= 3 and not suffix:
            values.append(float(m.group("int") + dec[1:]))  # "4.990" may be 4990 written the European way
        if suffix in ("%", "percent") or suffix.startswith("per"):
            kind = "percent"
        elif suffix in _SUFFIX_SCALES:
            values = [value * _SUFFIX_SCALES[suffix]]
            if suffix in _AMBIGUOUS_SUFFIXES:
                values.append(value)
        elif suffix in ("st", "nd", "rd", "th"):
            kind = "ordinal"
        elif suffix[:1] in ("a", "p") and suffix.rstrip(".").endswith("m"):
            kind, values = "time", _clock(value, suffix[0])
        elif kind == "number" and not m.group("dec") and 1000 <= value <= 2100:
            kind = "year"
        hedge = _hedge(text, m.start()) if hedges else ""
        found.append(NumberMention(m.group(0), m.start(), m.end(), tuple(values), kind, hedge))
    return found


def _words_value(words: list[str]) -> tuple[float, bool]:
    """Value of a run of number words ("one hundred and five" -> 105); True if it ends in an ordinal."""
    total, current, ordinal = 0, 0, False
    for w in words:
        if w in ("a", "an"):
            current = max(current, 1)
        elif w in UNITS:
            current += UNITS[w]
        elif w in TENS:
            current += TENS[w]
        elif w == "hundred":
            current = max(current, 1) * 100
        elif w in SCALES:
            total += max(current, 1) * SCALES[w]
            current = 0
        elif w in ORDINALS:
            ordinal = True
            value = ORDINALS[w]
            if value >= 100:
                current = max(current, 1) * value
            else:
                current += value
    return float(total + current), ordinal


def _trie_pattern(words: Iterable[str]) -> str:
    """A regex alternation of `words` shared by prefix (t(?:en|wo|...)): much faster to scan than a flat
    list, since most positions fail on the first letter."""
    trie: dict = {}
    for word in words:
        node = trie
        for ch in word:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:
        branches = [re.escape(ch) + build(child) for ch, child in sorted(node.items()) if ch]
        optional = "" in node
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if optional else body

    return build(trie)


_WORD_ALT = _trie_pattern(_NUMBER_WORDS)
_SCALE_ALT = "|".join(SCALES)
# A run of number words joined by spaces, hyphens or "and" ("one hundred and five", "twenty-one"),
# or an article before a scale word ("a million"). Split further in Python where "and" or an
# ordinal does not continue the number.
_WORD_RUN = re.compile(
    rf"\b(?:(?:an?\s+)(?={_SCALE_ALT}\b))?(?:{_WORD_ALT})(?:(?:\s+and\s+|\s*-\s*|\s+)(?:{_WORD_ALT}))*\b",
    re.IGNORECASE,
)
_RUN_WORD = re.compile(r"[A-Za-z]+")
# Where a run can start: a word that opens with a number word's first letter followed by some number
# word's remaining letters (or an article before a scale word). Case-insensitive matching also lets
# "ſ" (long s) stand for "s", so it is listed with the letters.
_FIRST_LETTERS = sorted({w[0] for w in _NUMBER_WORDS} | {"a"})
_RUN_FIRST = "".join(_FIRST_LETTERS) + "".join(_FIRST_LETTERS).upper() + ("ſ" if "s" in _FIRST_LETTERS else "")
_WORD_RUN_STARTS = re.compile(
    rf"[{_RUN_FIRST}](?<!\w.)(?i:{_trie_pattern({w[1:] for w in _NUMBER_WORDS})}|n?\s+(?:{_SCALE_ALT}))"
)


def _split_run(words: list[re.Match[str]]) -> list[list[re.Match[str]]]:
    """Cut a matched run where it holds two numbers: "one and two", "first two"."""
    parts: list[list[re.Match[str]]] = [[]]
    for k, w in enumerate(words):
        low = w.group(0).lower()
        if low == "and":
            prev = words[k - 1].group(0).lower() if k else ""
            nxt = words[k + 1].group(0).lower() if k + 1 < len(words) else ""
            if prev in SCALES and nxt in _SMALL_NUMBER_WORDS:
                continue  # "one hundred and five" stays one number
            parts.append([])
            continue
        if parts[-1] and parts[-1][-1].group(0).lower() in ORDINALS:
            parts.append([])
        parts[-1].append(w)
    return [p for p in parts if p]


def _word_mentions(text: str, ambiguous_words: bool, hedges: bool) -> list[NumberMention]:
    found: list[NumberMention] = []
    for run in finditer_at(_WORD_RUN, _WORD_RUN_STARTS, text):
        words = list(_RUN_WORD.finditer(text, run.start(), run.end()))
        for part in _split_run(words):
            lowered = [w.group(0).lower() for w in part]
            if lowered in (["a"], ["an"]):
                continue
            if not ambiguous_words and len(lowered) == 1 and lowered[0] in AMBIGUOUS_WORDS:
                continue
            value, ordinal = _words_value(lowered)
            start, end = part[0].start(), part[-1].end()
            kind = "ordinal" if ordinal else "number"
            after = _PERCENT_AFTER.match(text, end)
            if after and not ordinal:
                kind, end = "percent", after.end()
            hedge = _hedge(text, start) if hedges else ""
            found.append(NumberMention(text[start:end], start, end, (value,), kind, hedge))
    return found


def extract_numbers(text: str, *, ambiguous_words: bool = True, hedges: bool = True) -> list[NumberMention]:
    """Every number stated in `text`, in order of position, with offsets into `text`.

    Citation markers and list enumerators are ignored. With `ambiguous_words=False` the lone words
    in AMBIGUOUS_WORDS are skipped (use it for claims; read sources with the default, leniently).
    `hedges=False` skips looking for "about"/"more than" before each number (sources need no hedges).
    """
    clean = _blank(_blank(text, _ENUMERATOR), _MARKER)
    mentions: list[NumberMention] = []
    for m in finditer_at(_ISO_DATE, _ISO_DATE_STARTS, clean):  # 2020-03-05: the year and the day; months are words elsewhere
        year, _, day = (float(g) for g in m.groups())
        mentions.append(NumberMention(m.group(0), m.start(), m.end(), (year,), "year"))
        mentions.append(NumberMention(m.group(0), m.start(), m.end(), (day,), "number"))
    for m in finditer_at(_TIME, _TIME_STARTS, clean):  # 17:00 is the hour 17; 9:30 is 9 and 30
        hour, minutes = float(m.group(1)), float(m.group(2))
        mentions.append(NumberMention(m.group(0), m.start(), m.end(), tuple(_clock(hour, m.group(3))), "time"))
        if minutes:
            mentions.append(NumberMention(m.group(0), m.start(), m.end(), (minutes,), "time"))
    clean = _blank_spans(clean, [(n.start, n.end) for n in mentions])
    digit_mentions = _digit_mentions(clean, hedges)
    # "1.5 million" is one number: keep its scale word out of the word scan
    clean = _blank_spans(clean, [(n.start, n.end) for n in digit_mentions])
    mentions += digit_mentions
    mentions += _word_mentions(clean, ambiguous_words, hedges)
    mentions.sort(key=lambda n: (n.start, n.end))
    return mentions


@lru_cache(maxsize=1024)
def source_numbers(text: str) -> tuple[NumberMention, ...]:
    """`extract_numbers(text, hedges=False)`, cached: how sources are read, often several times."""
    return tuple(extract_numbers(text, hedges=False))


def number_keys(text: str) -> frozenset[str]:
    """The keys of every number in `text` (read leniently, as a source is)."""
    return frozenset(k for n in extract_numbers(text) for k in n.keys)


def number_values(text: str) -> tuple[float, ...]:
    """Every value stated in `text` (all readings), for hedged comparisons."""
    return tuple(v for n in extract_numbers(text) for v in n.values)


__all__ = ["NumberMention", "canonical", "extract_numbers", "number_keys", "number_values", "source_numbers",
           "strip_citation_markers"]  # fmt: skip
