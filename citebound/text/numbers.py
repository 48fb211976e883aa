"""Find the numbers a text states, and normalise them so equal amounts compare equal.

`five` = `5`; `4 990` = `4,990` = `4 990` (no-break space) = `4990`; `30 %` = `thirty percent` = `30 per
cent` = `30`; `1.5 million` = `1,500,000`; `2k` = `2000`; `3rd` = `third` = `3`; `$12` = `12`; `the 1990s` =
`1990`; how often is a count: `twice a day` = `two times a day` = 2, and a source's `daily` or `every day`
is also 1 (`once a day`); `an hour and a half` is 1.5 hours, `half a day` 0.5 days. Each mention carries one
or more *keys* (canonical strings); two mentions state the same number when their keys overlap. A mention
has several keys only when its reading is ambiguous (`5m` is 5 million or 5 metres; `4.990` is 4.99 or,
written the European way, 4990), so the check stays lenient rather than raising false alarms.

What is deliberately not read as a number: digits glued after letters (`p53`, `H1N1`, `COVID-19`), a
list enumerator at the start of a line (`1.`, `2)`), citation markers (`[1]`, `[S2]`), and, when
`ambiguous_words=False` (how claims are read), the lone words `one`, `first` and `second`
("one of the", "a second look"), except "first" and "second" as a rank ("finished second", "came first")
and "one" before a measure ("one month's notice", "one hour").

Hedged claim numbers (`about 5,000`, `more than 40`) are marked, so a checker can accept a nearby or
larger source value instead of demanding the exact one.

Values are exact (`int`, or `Fraction` for decimals), never floats: two different 400-digit numbers
have different keys, and no reading overflows. A run of number words longer than MAX_RUN_WORDS
("nine hundred" written 150 times) is read as consecutive numbers of at most MAX_RUN_WORDS words each.

`UNITS_OF` and `unit_of` name what a number measures when it is a unit written one of several ways
(`330 m` = `330 metres` = `330 meters`, `€12` = `12 euros` = `EUR 12`, `30 %` = `30 percent`), so the
numbers check can ask that a claim's number be stated with the same unit.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

from citebound.text.citations import MARKER
from citebound.text.scan import finditer_at
from citebound.text.stem import stem
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
    (?<![^\W\d_])(?<![\d.])                 # not glued to letters (p53, COVID-19) or inside a number,
    (?:(?<![^\W\d_]-)|(?<=\b[Uu]nder-)|(?<=\b[Oo]ver-))  # but an age group is one ("under-12s", "over-65s")
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
# Text that was tokenised and joined again (news summaries, PDF extraction) writes "1, 056" and "31. 8
# million": sources also read these as 1,056 and 31.8 million, beside the plain readings ("1", "056").
_SPACED = re.compile(
    r"""
    (?<![^\W\d_])(?<![\d.,]\ )(?<![\d.])          # not glued to letters, not inside another number
    (?P<cur>[$€£¥₹]\s?)?
    (?P<int>\d{1,3}(?:,\ \d{3})+(?!\d)(?!,\ \d)|\d+(?=\.\ \d))
    (?P<dec>\.\ \d+(?!\d)(?!\.\ ?\d))?
    (?P<suf>[ \u00a0\u202f]?(?:%|percent\b|per\s?cent\b|thousand\b|million\b|billion\b|trillion\b)|(?:bn|mn)\b)?
    """,
    re.VERBOSE | re.IGNORECASE,
)
_SPACED_STARTS = re.compile(r"[$€£¥₹\d](?<![^\W\d_].)(?<![\d.].)")
_ISO_DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
_TIME = re.compile(r"(?<![\d:.])([01]?\d|2[0-3]):([0-5]\d)(?:\s?([AaPp])\.?[Mm]\b\.?)?(?![\d:])")
# Where each pattern above can start (see text/scan.py): the first character, then the opening
# lookbehind re-checked one character back, so the engine can skip to candidates on long sources.
_DIGITS_STARTS = re.compile(r"[$€£¥₹\d](?<![^\W\d_].)(?<![\d.].)(?:(?<![^\W\d_]-.)|(?<=\b[Uu]nder-.)|(?<=\b[Oo]ver-.))")
_ISO_DATE_STARTS = re.compile(r"\d(?<!\d\d)\d{3}-")
_TIME_STARTS = re.compile(r"\d(?<![\d:.]\d)\d?:")
_NUMBER_WORDS = frozenset({*UNITS, *TENS, *SCALES, *ORDINALS})
_SMALL_NUMBER_WORDS = frozenset({*UNITS, *TENS})
_PERCENT_AFTER = re.compile(r"\s*(?:%|percent\b|per\s?cent\b)", re.IGNORECASE)
# a verb of placing right before "first" / "second": a rank ("finished second", "came first")
RANKED = re.compile(r"\b(?:finish(?:ed|es)?|came|comes?|plac(?:ed|es)|rank(?:ed|s)?|end(?:ed|s)?\s+up)\s+$",
                     re.IGNORECASE)
_ENUMERATOR = re.compile(r"^[ \t]*(?:\(?\d{1,2}[.)]|[-*•])[ \t]+", re.MULTILINE)
_HEDGE_APPROX = re.compile(
    r"(?:about|approximately|approx\.?|around|roughly|nearly|almost|some|circa|ca\.|~|an estimated)\s*$",
    re.IGNORECASE,
)
# "no more than 12" bounds from above, "not less than 5" from below
_HEDGE_NEGATED = re.compile(r"\b(?:no|not)\s+(?:(more|greater|longer|later|higher|over|above|exceeding)|(less|fewer|"
                            r"shorter|lower|earlier|under|below))(?:\s+than)?\s*$", re.IGNORECASE)
# "over-65s" / "under-12s": an age group is bounded like "over 65" / "under 12"
_HEDGE_AT_LEAST = re.compile(r"(?:more than|over|above|at least|exceeding|upwards of|>)\s*$|\bover-$", re.IGNORECASE)
_HEDGE_AT_MOST = re.compile(r"(?:less than|fewer than|under|below|up to|at most|<)\s*$|\bunder-$", re.IGNORECASE)


Number = int | Fraction
# str(int) refuses more than 4,300 digits (sys.get_int_max_str_digits): beyond this many bits an
# integer's key is written in hexadecimal, still exact (equal keys if and only if equal values).
_DECIMAL_KEY_BITS = 13_000
_INT_CHUNK = 4_000  # digits converted per int() call (int() refuses more than 4,300 at once)
MAX_RUN_WORDS = 40  # a run of more number words than this is read as several numbers


def _int_of(digits: str) -> int:
    """int(digits) for a digit string of any length, exactly (divide and conquer past int()'s limit)."""
    if len(digits) <= _INT_CHUNK:
        return int(digits)
    low = len(digits) // 2
    return _int_of(digits[:-low]) * 10**low + _int_of(digits[-low:])


def _decimal_of(int_digits: str, dec: str) -> Number:
    """The exact value of `int_digits` + `dec` (dec is "" or ".ddd")."""
    if not dec:
        return _int_of(int_digits)
    return Fraction(_int_of(int_digits + dec[1:]), 10 ** (len(dec) - 1))


def _int_key(n: int) -> str:
    if n.bit_length() <= _DECIMAL_KEY_BITS:
        return str(n)
    return format(n, "#x")  # "0x…": exact, and never all letters


def canonical(value: Number | float) -> str:
    """The key of a numeric value, exact: integers in decimal without a point ("4990"), terminating
    fractions as decimals without trailing zeros ("12.9"), any other fraction as "p/q". Two keys are
    equal if and only if the values are. A float (from a caller) is read as its shortest repr."""
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "∞" if value > 0 else "-∞"
        value = Fraction(repr(value))
    if isinstance(value, Fraction) and value.denominator == 1:
        value = value.numerator
    if isinstance(value, int):
        return _int_key(value)
    num, den = value.numerator, value.denominator
    twos = fives = 0
    rest = den
    while rest % 2 == 0:
        rest //= 2
        twos += 1
    while rest % 5 == 0:
        rest //= 5
        fives += 1
    if rest != 1:
        return f"{_int_key(num)}/{_int_key(den)}"
    places = max(twos, fives)
    scaled = abs(num) * 10**places // den
    digits = _int_key(scaled)
    if digits.startswith("0x"):  # too long for decimal digits: exact as scaled/10^places
        return f"{'-' if num < 0 else ''}{digits}e-{places}"
    digits = digits.rjust(places + 1, "0")
    whole, frac = digits[:-places], digits[-places:].rstrip("0")
    return f"{'-' if num < 0 else ''}{whole}.{frac}" if frac else f"{'-' if num < 0 else ''}{whole}"


@dataclass(frozen=True, slots=True)
class NumberMention:
    """One number stated in a text. `values` holds every plausible reading (usually one)."""

    text: str
    start: int
    end: int
    values: tuple[Number, ...]
    kind: str = "number"  # number | percent | ordinal | currency | year | time | measure ("an hour and a half")
    hedge: str = ""  # "" | "approx" | "at_least" | "at_most"
    keys: frozenset[str] = field(init=False, repr=False, compare=False)  # canonical(v) of each reading

    def __post_init__(self) -> None:
        object.__setattr__(self, "keys", frozenset(canonical(v) for v in self.values))

    @property
    def value(self) -> Number:
        return self.values[0]


def _blank(text: str, pattern: re.Pattern[str]) -> str:
    """Replace matches with spaces of the same length, so offsets into `text` stay valid."""
    return pattern.sub(lambda m: " " * len(m.group(0)), text)


def _clock(hour: Number, half: str | None) -> list[Number]:
    """Readings of an hour: 5 pm is 5 and 17, 17:00 is 17, 12 am is 12 and 0."""
    if half in ("p", "P") and hour < 12:
        return [hour, hour + 12]
    if half in ("a", "A") and hour == 12:
        return [hour, 0]
    return [hour]


def blank_spans(text: str, spans: list[tuple[int, int]]) -> str:
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


# a bound after the number: "aged 65 and over", "12 or more", "18+", "5 years and under", "aged 70 or older"
_HEDGE_AFTER = re.compile(r"\+(?!\d)|\s*(years?\s+(?:old\s+)?)?(?:and|or)\s+(over|above|older|more|upwards|up|under|below|"
                          r"younger|less|fewer)\b", re.IGNORECASE)
_AGED = re.compile(r"\baged\s+$", re.IGNORECASE)


def bound_after(text: str, start: int, end: int) -> re.Match[str] | None:
    """The bound written after the number text[start:end] ("65 and over"), if any; "older" / "younger" only of
    an age ("aged 70 or older", "16 years or younger", not "£5 and older visitors")."""
    after = _HEDGE_AFTER.match(text, end)
    if after and after.group(2) and after.group(2).casefold() in ("older", "younger") and not after.group(1) \
            and not _AGED.search(text, max(0, start - 8), start):  # fmt: skip
        return None
    return after


def _hedge(text: str, start: int, end: int | None = None) -> str:
    if end is not None and (after := bound_after(text, start, end)):
        word = (after.group(2) or "over").casefold()
        return "at_most" if word in ("under", "below", "younger", "less", "fewer") else "at_least"
    before = text[max(0, start - 24) : start]
    if _HEDGE_APPROX.search(before):
        return "approx"
    if negated := _HEDGE_NEGATED.search(before):
        return "at_most" if negated.group(1) else "at_least"
    if _HEDGE_AT_LEAST.search(before):
        return "at_least"
    if _HEDGE_AT_MOST.search(before):
        return "at_most"
    return ""


def _digit_mentions(text: str, hedges: bool) -> list[NumberMention]:
    found: list[NumberMention] = []
    for m in finditer_at(_DIGITS, _DIGITS_STARTS, text):
        int_digits = m.group("int").translate(_NO_SEPARATORS)
        value = _decimal_of(int_digits, m.group("dec") or "")
        suffix = (m.group("suf") or "").strip().lower()
        kind = "currency" if m.group("cur") else "number"
        values = [value]
        dec = m.group("dec") or ""
        if len(dec) == 4 and len(m.group("int")) <= 3 and not suffix:
            values.append(_int_of(m.group("int") + dec[1:]))  # "4.990" may be 4990 written the European way
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
        elif kind == "number" and not m.group("dec") and 1000 <= value <= 2100 and m.group("int").isdigit():
            kind = "year"  # "1932"; "1,500 kg" is no year (a year is written without a separator)
        hedge = _hedge(text, m.start(), m.end()) if hedges else ""
        found.append(NumberMention(m.group(0), m.start(), m.end(), tuple(values), kind, hedge))
    return found


def _spaced_mentions(text: str) -> list[NumberMention]:
    """Readings of numbers written with a space inside ("1, 056", "$ 53, 193, 914", "31. 8 million"), for
    sources only: each besides the plain readings of its parts."""
    found: list[NumberMention] = []
    for m in finditer_at(_SPACED, _SPACED_STARTS, text):
        if m.group("dec") is None and ", " not in m.group("int"):
            continue  # "31" of "31. 8" with no decimal after all
        value = _decimal_of(m.group("int").replace(", ", ""), (m.group("dec") or "").replace(" ", ""))
        suffix = (m.group("suf") or "").strip().lower()
        kind = "currency" if m.group("cur") else "number"
        if suffix in ("%", "percent") or suffix.startswith("per"):
            kind = "percent"
        elif suffix in _SUFFIX_SCALES:
            value = value * _SUFFIX_SCALES[suffix]
        # "1, 056" is written with a separator: no year (as _digit_mentions reads "1,056")
        found.append(NumberMention(m.group(0), m.start(), m.end(), (value,), kind))
    return found


def _words_value(words: list[str]) -> tuple[int, bool]:
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
    return total + current, ordinal


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
    """Cut a matched run where it holds two numbers: "one and two", "first two", "two second"."""
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
        elif parts[-1] and parts[-1][-1].group(0).lower() in UNITS and (low in UNITS or low in ("first", "second")):
            parts.append([])  # "two second-half goals", "two first-class seats" ("one third" is a fraction)
        parts[-1].append(w)
    return [p for p in parts if p]


def _word_mentions(text: str, ambiguous_words: bool, hedges: bool) -> list[NumberMention]:
    found: list[NumberMention] = []
    for run in finditer_at(_WORD_RUN, _WORD_RUN_STARTS, text):
        words = list(_RUN_WORD.finditer(text, run.start(), run.end()))
        for part in _split_run(words):
            # a run longer than MAX_RUN_WORDS is no number anyone writes: read it as several, so its
            # value stays small and its reading is defined ("nine hundred" x 150 is 8 numbers)
            for i in range(0, len(part), MAX_RUN_WORDS):
                mention = _piece_mention(text, part[i : i + MAX_RUN_WORDS], ambiguous_words, hedges)
                if mention is not None:
                    found.append(mention)
    return found


def _one_measures(text: str, start: int, end: int) -> bool:
    """Whether the word "one" at text[start:end] counts a measure ("one month's notice", "for one day")."""
    if _ONE_MEASURE.match(text, end):
        return True
    return bool(_ONE_DAY.match(text, end) and _DURATION_BEFORE.search(text, max(0, start - 16), start))


def _piece_mention(text: str, part: list[re.Match[str]], ambiguous_words: bool, hedges: bool) -> NumberMention | None:
    lowered = [w.group(0).lower() for w in part]
    if lowered in (["a"], ["an"]):
        return None
    if not ambiguous_words and len(lowered) == 1 and lowered[0] in AMBIGUOUS_WORDS \
            and not (lowered[0] != "one" and RANKED.search(text, max(0, part[0].start() - 24), part[0].start())) \
            and not (lowered[0] == "one" and _one_measures(text, part[0].start(), part[0].end())):
        return None  # "one of the", "a second look"; but "finished second" is a rank, "one month's notice" a number
    value, ordinal = _words_value(lowered)
    start, end = part[0].start(), part[-1].end()
    kind = "ordinal" if ordinal else "number"
    after = _PERCENT_AFTER.match(text, end)
    if after and not ordinal:
        kind, end = "percent", after.end()
    hedge = _hedge(text, start, end) if hedges else ""
    return NumberMention(text[start:end], start, end, (value,), kind, hedge)


def extract_numbers(text: str, *, ambiguous_words: bool = True, hedges: bool = True,
                    spaced: bool = False) -> list[NumberMention]:  # fmt: skip
    """Every number stated in `text`, in order of position, with offsets into `text`.

    Citation markers and list enumerators are ignored. With `ambiguous_words=False` the lone words
    in AMBIGUOUS_WORDS are skipped (use it for claims; read sources with the default, leniently).
    `hedges=False` skips looking for "about"/"more than" before each number (sources need no hedges).
    `spaced=True` also reads numbers written with a space after a thousands comma or a decimal point
    ("1, 056", "31. 8 million"), as extra mentions beside the plain readings (sources only).
    """
    clean = unmarked = _blank(_blank(text, _ENUMERATOR), MARKER)
    mentions: list[NumberMention] = []
    for m in finditer_at(_ISO_DATE, _ISO_DATE_STARTS, clean):  # 2020-03-05: the year and the day; months are words elsewhere
        year, _, day = (int(g) for g in m.groups())
        mentions.append(NumberMention(m.group(0), m.start(), m.end(), (year,), "year"))
        mentions.append(NumberMention(m.group(0), m.start(), m.end(), (day,), "number"))
    for m in finditer_at(_TIME, _TIME_STARTS, clean):  # 17:00 is the hour 17; 9:30 is 9 and 30
        hour, minutes = int(m.group(1)), int(m.group(2))
        mentions.append(NumberMention(m.group(0), m.start(), m.end(), tuple(_clock(hour, m.group(3))), "time"))
        if minutes:
            mentions.append(NumberMention(m.group(0), m.start(), m.end(), (minutes,), "time"))
    for m in _NOON.finditer(clean):  # "noon" is 12:00, "midnight" 0:00 ("12 am"); not "a midnight rider"
        before = clean[max(0, m.start() - 9) : m.start()]
        if not _WORD_AFTER.match(clean, m.end()) and not _BOUND.search(before) and (
                _AT_TIME.search(before) or _CLAUSE_END.match(clean, m.end())):  # fmt: skip
            hour = 0 if m.group(1).casefold() == "midnight" else 12
            mentions.append(NumberMention(m.group(0), m.start(), m.end(), (hour,), "time"))
    mentions += _part_mentions(clean, hedges)  # "one and a half hours": one measure, not the number one
    clean = blank_spans(clean, [(n.start, n.end) for n in mentions])
    digit_mentions = _digit_mentions(clean, hedges)
    # "1.5 million" is one number: keep its scale word out of the word scan
    clean = blank_spans(clean, [(n.start, n.end) for n in digit_mentions])
    mentions += digit_mentions
    if spaced and (", " in text or ". " in text):
        mentions += _spaced_mentions(unmarked)
    mentions += _word_mentions(clean, ambiguous_words, hedges)
    mentions += _frequency_mentions(clean, ambiguous_words)
    mentions += _half_mentions(clean)
    mentions.sort(key=lambda n: (n.start, n.end))
    return mentions


_NOON = re.compile(r"\b(?:12\s+)?(noon|midday|midnight)\b", re.IGNORECASE)
# "noon" is a time after a word that opens one ("at noon", "until midnight") or at a clause's end ("The
# deadline is midnight."), and never as a noun's modifier ("the midnight rider", "at Midnight Mass")
_AT_TIME = re.compile(r"\b(?:at|by|until|till|til|from|to|between|and|or|since)\s+\Z", re.IGNORECASE)
# "before noon", "past midnight" bound a time the source may give otherwise ("by 11 am", "until 1 am")
_BOUND = re.compile(r"\b(?:before|after|past|around|about|gone|near)\s+\Z", re.IGNORECASE)
_WORD_AFTER = re.compile(
    r"\s+(?!(?:on|in|at|and|or|to|until|till|every|each|daily|sharp|exactly|local|today|tonight|tomorrow|yesterday|"
    r"is|was|will|when|the|gmt|utc|[a-z]+day)\b)[^\W\d_]", re.IGNORECASE)
_CLAUSE_END = re.compile(r"\s*(?:[.,;:!?)]|\Z)")
_PERIOD = r"(?:second|minute|hour|day|night|week|fortnight|month|quarter|year|decade)"
# "one month's notice", "one hour", "one kilometre": "one" before a measure (singular: "the only one metres from
# the beach" is no measure) is a number; "one day" and "one night" only after a word of duration ("for one
# day", "within one day"): "One day, she said, ..." is a time, not a count
_ONE_MEASURE = re.compile(
    r"[\s-]+(?:(?:second|minute|hour|week|fortnight|month|quarter|year|decade)(?:['’]s)?|metre|meter|kilometre|"
    r"kilometer|mile|kilogram|gram|litre|liter|euro|dollar|pound|per\s*cent|percent)\b",
    re.IGNORECASE,
)
_ONE_DAY = re.compile(r"[\s-]+(?:day|night)(?:['’]s)?\b", re.IGNORECASE)
_DURATION_BEFORE = re.compile(r"\b(?:for|within|in|after|over|than|only|just|least|about|around|under|lasts?|takes?)\s+$",
                              re.IGNORECASE)
_FREQUENCY_ADVERBS = r"(?:hourly|daily|nightly|weekly|fortnightly|monthly|quarterly|yearly|annually)"
# "once a day", "twice weekly": how often, a count ("twice a day" is not stated by "once a day")
_TIMES = re.compile(rf"\b(once|twice|thrice)(?=\s+(?:(?:a|an|per|every|each)\s+{_PERIOD}\b|{_FREQUENCY_ADVERBS}\b))",
                    re.IGNORECASE)
# in a source, "daily" and "every day" state once a day ("once a day" restates them)
_ONCE = re.compile(rf"\b(?:every\s+{_PERIOD}|{_FREQUENCY_ADVERBS})\b", re.IGNORECASE)
_TIMES_VALUES = {"once": 1, "twice": 2, "thrice": 3}
_ONCE_WORDS = ("every", "hourly", "daily", "nightly", "weekly", "monthly", "quarterly", "yearly", "annually")


_HALF = re.compile(rf"\b(?:(?:an?|one)\s+({_PERIOD})\s+and\s+a\s+half|half\s+an?\s+({_PERIOD}))\b", re.IGNORECASE)
# "one and a half hours", "2 and a quarter years": a whole number and a part, before the period's word
_AND_A_PART = re.compile(rf"\b(\d{{1,3}}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+and\s+a\s+"
                         rf"(half|quarter)\s+({_PERIOD}s?)\b", re.IGNORECASE)


def _half_mentions(text: str) -> list[NumberMention]:
    """"an hour and a half" is 1.5 hours, "half a day" 0.5 days (kind "measure": the unit is in its text),
    so that "90 minutes" restates it (checks/numbers.py converts units of one measure)."""
    if "half" not in text and "Half" not in text and "HALF" not in text:
        return []
    return [NumberMention(m.group(0), m.start(), m.end(), (Fraction(3, 2) if m.group(1) else Fraction(1, 2),),
                          "measure") for m in _HALF.finditer(text)]  # fmt: skip


def _part_mentions(text: str, hedges: bool) -> list[NumberMention]:
    """"one and a half hours" is 1.5 hours, "2 and a quarter years" 2.25 years (kind "measure")."""
    if " and a " not in text:
        return []
    out = []
    for m in _AND_A_PART.finditer(text):
        whole = int(m.group(1)) if m.group(1).isdigit() else UNITS[m.group(1).casefold()]
        part = Fraction(1, 2) if m.group(2).casefold() == "half" else Fraction(1, 4)
        hedge = _hedge(text, m.start()) if hedges else ""
        out.append(NumberMention(m.group(0), m.start(), m.end(), (whole + part,), "measure", hedge))
    return out


def _frequency_mentions(text: str, lenient: bool) -> list[NumberMention]:
    """How often, as a count: "twice a day" is 2 (claims and sources); in a source read leniently
    (`lenient`), "daily" / "every day" (not after "twice") is 1 too."""
    low = text.lower()  # the patterns are slow to scan for: look for their words first
    out = [NumberMention(m.group(0), m.start(), m.end(), (_TIMES_VALUES[m.group(1).lower()],), "number")
           for m in _TIMES.finditer(text)] if "twice" in low or "once" in low or "thrice" in low else []  # fmt: skip
    if lenient and any(w in low for w in _ONCE_WORDS):
        taken = {m.end for m in out}
        for m in _ONCE.finditer(text):
            if not any(0 <= m.start() - end <= 1 for end in taken):
                out.append(NumberMention(m.group(0), m.start(), m.end(), (1,), "number"))
    return out


# What a number measures, when it is a unit with several spellings: each spelling (lower case) -> one
# name. Plurals are listed, not stemmed: "m" and "min" must not stem into each other. Words that are
# also common words are left out ("in" for inches, "a", "s", "t").
_UNIT_SPELLINGS = {
    "percent": "% percent pct percentage percentages",
    "day": "day days", "week": "week weeks wk wks", "month": "month months mo mos mth mths",
    "year": "year years yr yrs", "hour": "hour hours h hr hrs", "minute": "minute minutes min mins",
    "second": "seconds sec secs", "millisecond": "millisecond milliseconds ms", "decade": "decade decades",
    "century": "century centuries",
    "metre": "m metre metres meter meters", "kilometre": "km kms kilometre kilometres kilometer kilometers",
    "centimetre": "cm centimetre centimetres centimeter centimeters",
    "millimetre": "mm millimetre millimetres millimeter millimeters",
    "micrometre": "µm μm micron microns micrometre micrometres micrometer micrometers",
    "nanometre": "nm nanometre nanometres nanometer nanometers",
    "mile": "mile miles mi", "foot": "ft foot feet", "inch": "inch inches", "yard": "yard yards yd yds",
    "kilogram": "kg kgs kilogram kilograms kilogramme kilogrammes kilo kilos",
    "gram": "g gram grams gramme grammes", "milligram": "mg milligram milligrams milligramme milligrammes",
    "microgram": "µg μg mcg microgram micrograms", "tonne": "tonne tonnes ton tons",
    "ounce": "oz ounce ounces", "pound": "£ gbp lb lbs pound pounds",
    "litre": "l litre litres liter liters", "millilitre": "ml millilitre millilitres milliliter milliliters",
    "gallon": "gallon gallons gal",
    "euro": "€ eur euro euros", "dollar": "$ usd us$ dollar dollars", "yen": "¥ jpy yen",
    "rupee": "₹ inr rs rupee rupees", "krona": "kr sek nok dkk krona kronor krone kroner",
    "cent": "cent cents", "yuan": "yuan rmb cny renminbi", "franc": "chf franc francs",
    "degree": "° °c °f degree degrees celsius fahrenheit", "kelvin": "kelvin",
    "byte": "byte bytes", "kilobyte": "kb kilobyte kilobytes", "megabyte": "mb megabyte megabytes",
    "gigabyte": "gb gigabyte gigabytes", "terabyte": "tb terabyte terabytes",
    "watt": "w watt watts", "kilowatt": "kw kilowatt kilowatts", "megawatt": "mw megawatt megawatts",
    "gigawatt": "gw gigawatt gigawatts", "kilowatt-hour": "kwh", "volt": "v volt volts",
    "hertz": "hz hertz", "calorie": "kcal cal calorie calories", "mph": "mph", "kph": "kph",
    "hectare": "ha hectare hectares", "acre": "acre acres",
}  # fmt: skip
UNITS_OF: dict[str, str] = {word: name for name, words in _UNIT_SPELLINGS.items() for word in words.split()}


# Units one converts into another exactly: unit -> (what it measures, its size in that measure's base
# unit). "2 kg" states what "2,000 grams" states; months and years (of varying length), bytes (1000 or
# 1024) and imperial units are left out.
CONVERSIONS: dict[str, tuple[str, Fraction]] = {
    "microgram": ("mass", Fraction(1, 10**6)), "milligram": ("mass", Fraction(1, 1000)), "gram": ("mass", Fraction(1)),
    "kilogram": ("mass", Fraction(1000)), "tonne": ("mass", Fraction(10**6)),
    "nanometre": ("length", Fraction(1, 10**9)), "micrometre": ("length", Fraction(1, 10**6)),
    "millimetre": ("length", Fraction(1, 1000)), "centimetre": ("length", Fraction(1, 100)),
    "metre": ("length", Fraction(1)), "kilometre": ("length", Fraction(1000)),
    "millilitre": ("volume", Fraction(1, 1000)), "litre": ("volume", Fraction(1)),
    "millisecond": ("time", Fraction(1, 1000)), "second": ("time", Fraction(1)), "minute": ("time", Fraction(60)),
    "hour": ("time", Fraction(3600)), "day": ("time", Fraction(86400)), "week": ("time", Fraction(604800)),
    # months are no fixed number of days, but a year is twelve of them ("two years" = "24 months")
    "month": ("months", Fraction(1)), "year": ("months", Fraction(12)),
    "watt": ("power", Fraction(1)), "kilowatt": ("power", Fraction(1000)), "megawatt": ("power", Fraction(10**6)),
    "gigawatt": ("power", Fraction(10**9)),
}  # fmt: skip


def in_base_unit(value: Number, unit: str) -> tuple[str, Fraction] | None:
    """(measure, exact size in its base unit) of `value` `unit` ("2", kilogram -> ("mass", 2000)); None
    when the unit does not convert (see CONVERSIONS)."""
    if unit not in CONVERSIONS:
        return None
    measure, factor = CONVERSIONS[unit]
    return measure, Fraction(value) * factor


def unit_of(word: str) -> str | None:
    """The unit a word (or symbol) names, any spelling (`metres`, `meters`, `m` -> "metre"), else None."""
    return UNITS_OF.get(word.casefold().replace("’", "'"))


def mention_units(mention: NumberMention) -> frozenset[str]:
    """Units the mention's own text states: its currency symbol, a percent sign or word, and for an
    ambiguous suffix (`330m`) the unit reading besides the scale one ("metre")."""
    found = set()
    if mention.kind == "percent":
        found.add("percent")
    if mention.kind == "measure":  # "an hour and a half": the unit is a word of the mention
        found.update(u for w in mention.text.split() if (u := unit_of(w)) is not None)
    head = mention.text[:1]
    if head in "$€£¥₹" and head:
        found.add(UNITS_OF[head])
    tail = mention.text.rstrip()[-1:].lower()
    if len(mention.values) > 1 and tail in ("m", "b") and mention.text[:1].isdigit() and mention.kind != "time":
        # ("3 pm" has two readings too, 3 and 15: its "m" is no metre)
        found.add("metre" if tail == "m" else "byte")
    return frozenset(found)


@lru_cache(maxsize=1024)
def source_numbers(text: str) -> tuple[NumberMention, ...]:
    """`extract_numbers(text, hedges=False, spaced=True)`, cached: how sources are read, often several times."""
    return tuple(extract_numbers(text, hedges=False, spaced=True))


def number_keys(text: str) -> frozenset[str]:
    """The keys of every number in `text` (read leniently, as a source is)."""
    return frozenset(k for n in extract_numbers(text) for k in n.keys)


def number_values(text: str) -> tuple[Number, ...]:
    """Every value stated in `text` (all readings), for hedged comparisons."""
    return tuple(v for n in extract_numbers(text) for v in n.values)


def single_number(word: str) -> NumberMention | None:
    """The number a single word or numeral states ("four", "25", "1,200"), or None when it states none or
    more than one."""
    found = extract_numbers(word)
    return found[0] if len(found) == 1 else None


# How often, written two ways: "twice a year" is "every six months", "every 12 hours" is "twice a day". Period
# lengths in hours (a month a twelfth of a year).
_PERIOD_HOURS = {"hour": 1, "day": 24, "week": 168, "fortnight": 336, "month": Fraction(8766, 12),
                 "quarter": Fraction(8766, 4), "year": 8766}
_PERIOD_WORD = r"(hour|day|week|fortnight|month|quarter|year)s?"
_ADVERB_PERIOD = {"hourly": "hour", "daily": "day", "weekly": "week", "fortnightly": "fortnight", "monthly": "month",
                  "quarterly": "quarter", "yearly": "year", "annually": "year"}
_EVERY = re.compile(rf"\bevery\s+(?:(\d+|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+)?{_PERIOD_WORD}\b",
                    re.IGNORECASE)
_RATE = re.compile(rf"\b(once|twice|thrice|(?:\d+|two|three|four|five|six)(?=\s+times))(?:\s+times)?\s+(?:(?:a|an|per|each|every)\s+"
                   rf"{_PERIOD_WORD}\b|(hourly|daily|weekly|fortnightly|monthly|quarterly|yearly|annually)\b)",
                   re.IGNORECASE)
_COUNT_WORDS = {**_TIMES_VALUES, **{w: UNITS[w] for w in "two three four five six seven eight nine ten eleven twelve".split()}}


def _count_of(word: str | None) -> int:
    if not word:
        return 1
    return int(word) if word.isdigit() else _COUNT_WORDS.get(word.casefold(), 0)


def recurrences(text: str) -> list[tuple[int, int, Fraction]]:
    """(start, end, interval in hours) of each way the text says something recurs: "every six months",
    "twice a year" (both 4383 hours)."""
    out = [(m.start(), m.end(), Fraction(_count_of(m.group(1))) * _PERIOD_HOURS[m.group(2).casefold()])
           for m in _EVERY.finditer(text)]  # fmt: skip
    for m in _RATE.finditer(text):
        period = (m.group(2) or _ADVERB_PERIOD[m.group(3).casefold()]).casefold()
        if count := _count_of(m.group(1)):
            out.append((m.start(), m.end(), Fraction(_PERIOD_HOURS[period]) / count))
    return out


_WORDS = re.compile(r"[^\W\d_]+")
_NOT_THE_THING = frozenset({"once", "twice", "thrice", "times", "every", "each", "per", "a", "an", "the", "is", "are",
                            "was", "were", "be", "to", "of", "in", "on", "at", "for", "and", "or", "it", "its", "their",
                            *_ADVERB_PERIOD, *(p for p in _PERIOD_HOURS), *(p + "s" for p in _PERIOD_HOURS), *_COUNT_WORDS})
_CLAUSE_BREAK = re.compile(r"[.;!?]|,\s|\band\b|\bbut\b|\bwhile\b|\bwhereas\b", re.IGNORECASE)


def said_of(claim: str, text: str, start: int, end: int) -> bool:
    """Whether the recurrence at text[start:end] is said of the claim's thing: its clause (cut at a sentence end,
    a semicolon, a comma, "and" / "but" / "while") has every word of the claim that is no word of how often."""
    words = {w.rstrip("s") for w in _WORDS.findall(claim.casefold()) if w not in _NOT_THE_THING and len(w) > 2}
    begin = max((m.end() for m in _CLAUSE_BREAK.finditer(text, 0, start)), default=0)
    stop = _CLAUSE_BREAK.search(text, end)
    clause = text[begin : stop.start() if stop else len(text)].casefold()
    return words <= {w.rstrip("s") for w in _WORDS.findall(clause)}


def _recurrences_as_in(claim: str, text: str) -> str:
    """`text` with a recurrence written as the claim writes the same interval ("every six months" for a claim's
    "twice a year"): the model read the two ways as different (P 0.09)."""
    mine = {i: claim[a:b] for a, b, i in recurrences(claim)}
    if not mine:
        return text
    out, last = [], 0
    for a, b, interval in sorted(recurrences(text)):
        if a >= last and interval in mine and text[a:b].casefold() != mine[interval].casefold() \
                and said_of(claim, text, a, b):  # fmt: skip
            out += [text[last:a], mine[interval]]
            last = b
    return "".join(out) + text[last:]


def _plain(written: str) -> bool:
    """A number written with digits or cardinal words only ("25", "0.20%", "twenty-five"), not a word that
    also says how often or which ("daily", "twice", "third"): those carry meaning a rewrite would lose."""
    words = re.findall(r"[^\W\d_]+", written.casefold())
    return any(c.isdigit() for c in written) or all(w in _CARDINAL_WORDS for w in words)


_CARDINAL_WORDS = frozenset({*UNITS, *TENS, *SCALES, "and", "a"}) - {"first", "second"}


def written_as_in(claim: str, text: str) -> str:
    """`text` with each number the claim states written as the claim writes it ("twenty-five" -> "25",
    "0.20%" -> "0.2 percent" for a claim saying "25" and "0.2 percent"), its unit too ("5 h" -> "5 hours"),
    and an amount the claim states in another unit of the same measure written as the claim writes it
    ("an hour and a half" -> "90 minutes"). Offsets are not kept: this is what an entailment model reads,
    after the numbers check has compared the values. A model trained on running text reads "twenty-five
    days" and "25 days" as different (P 0.04 against 0.98 for the same claim), and the difference is the
    numbers check's business, not the model's."""
    text = _recurrences_as_in(claim, _shares_as_in(claim, text))
    said = [(m, _unit_read(claim, m)) for m in extract_numbers(claim, ambiguous_words=False)
            if m.kind != "year" and (_plain(m.text) or m.kind in ("measure", "time"))]  # fmt: skip
    if not said:
        return text
    out, last = [], 0
    for m in extract_numbers(text, hedges=False):
        if m.start < last or not (_plain(m.text) or m.kind in ("measure", "time")):  # in a rewrite; "daily", "twice"
            continue
        unit = _unit_read(text, m)
        for c, c_unit in said:
            if c.keys & m.keys and c.kind == m.kind == "time":  # a time of day: no unit word ("noon" -> "12:00")
                if c.text.rstrip(".") != m.text.rstrip("."):  # ("5 pm." may end the sentence: keep its period)
                    out += [text[last : m.start], c.text.rstrip(".") + "." * m.text.endswith(".")]
                    last = m.end
                break
            if c.keys & m.keys and c.kind == m.kind and _plain(m.text):  # the same value
                if unit and c_unit and unit[0] == c_unit[0] and unit[1] > m.end:  # "5 h" -> "5 hours"
                    out += [text[last : m.start], claim[c.start : c_unit[2]]]
                    last = unit[2]
                elif c.text != m.text:
                    out += [text[last : m.start], c.text]
                    last = m.end
                break
            if unit and c_unit and unit[0] != c_unit[0] and _same_amount(c, c_unit[0], m, unit[0]):
                out += [text[last : m.start], claim[c.start : c_unit[2]]]  # "1.5 hours" -> "90 minutes"
                last = max(m.end, unit[2])
                break
    return "".join(out) + text[last:] if out else text


_NEXT_WORD = re.compile(r"(?:\s+|-)([^\W\d_]+)")


def value_measure(text: str, m: NumberMention) -> tuple[str, int]:
    """What a value measures, and where its words end: its own unit ("$", "%"), else the unit or the stem
    of the word right after it ("12 hours", "a 9-hour battery" -> hour, "40 stores" -> store), else ""."""
    own = mention_units(m)
    if own:
        return ",".join(sorted(own)), m.end
    nxt = _NEXT_WORD.match(text, m.end)
    if nxt is None:
        return "", m.end
    word = nxt.group(1).casefold()
    return unit_of(word) or stem(word), nxt.end()


_UNIT_WORD = re.compile(r"\s?([^\W\d_]+|%)")
_SHARE_WORDS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "seven": 7, "nine": 9}
# a share in words: "a quarter", "three quarters", "two thirds", "half" (not "halves": a count of parts)
_SHARE_PHRASE = re.compile(r"\b(?:(a|an|one|two|three|four|five|seven|nine)\s+(half|thirds?|quarters?|fifths?|"
                           r"tenths?)|(half))\b", re.IGNORECASE)


def _shares(text: str) -> list[tuple[int, int, Fraction]]:
    """(start, end, share) of each share a text writes in words."""
    out = []
    for m in _SHARE_PHRASE.finditer(text):
        n, word = (1, "half") if m.group(3) else (_SHARE_WORDS[m.group(1).casefold()], m.group(2).casefold())
        out.append((m.start(), m.end(), Fraction(n, FRACTION_WORDS[word])))
    return out


def _shares_as_in(claim: str, text: str) -> str:
    """`text` with a share written as the claim writes it, in words or as a percent ("a quarter off" for a
    claim's "25% discount" -> "25% off"; "75 percent" for a claim's "three quarters"): the model read the
    two ways as different (P 0.04). Only equal shares are rewritten: "a third" is no "33%"."""
    c_percents = [(m.text, Fraction(m.value) / 100) for m in extract_numbers(claim) if m.kind == "percent"
                  and isinstance(m.value, (int, Fraction))]  # fmt: skip
    c_words = [(claim[a:b], f) for a, b, f in _shares(claim)]
    if not c_percents and not c_words:
        return text
    spans = [(a, b, next((t for t, f in c_percents if f == share), None)) for a, b, share in _shares(text)]
    spans += [(m.start, m.end, next((t for t, f in c_words if f == Fraction(m.value) / 100), None))
              for m in extract_numbers(text) if m.kind == "percent" and isinstance(m.value, (int, Fraction))]
    out, last = [], 0
    for a, b, written in sorted(s for s in spans if s[2] is not None):
        if a >= last:
            out += [text[last:a], written]
            last = b
    return "".join(out) + text[last:]


def _unit_read(text: str, m: NumberMention) -> tuple[str, int, int] | None:
    """(unit name, where its word starts, where it ends) of a mention: its own ("an hour and a half") or the
    word right after it ("5 h", "330 metres")."""
    own = mention_units(m)
    if len(own) == 1:
        return next(iter(own)), m.end, m.end
    w = _UNIT_WORD.match(text, m.end)
    u = unit_of(w.group(1)) if w else None
    return (u, w.start(1), w.end(1)) if u else None


def _same_amount(a: NumberMention, a_unit: str, b: NumberMention, b_unit: str) -> bool:
    """Whether two amounts in two units of one measure are equal ("90 minutes", "an hour and a half")."""
    x = [in_base_unit(v, a_unit) for v in a.values]
    return any(r is not None and r in x for r in (in_base_unit(v, b_unit) for v in b.values))


# the words of a fraction, by denominator ("a quarter", "two thirds"), for shares written in words
FRACTION_WORDS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fifth": 5,
                  "fifths": 5, "sixth": 6, "sixths": 6, "eighth": 8, "eighths": 8, "tenth": 10, "tenths": 10}  # fmt: skip


__all__ = ["CONVERSIONS", "FRACTION_WORDS", "UNITS_OF", "Number", "NumberMention", "canonical", "extract_numbers", "in_base_unit",
           "mention_units", "number_keys", "number_values", "single_number", "source_numbers", "strip_citation_markers",
           "unit_of", "value_measure", "written_as_in"]  # fmt: skip


# an age group ("under-12s", "over-65s") names people of that age, whatever a claim calls them ...
_AGE_GROUP = re.compile(r"\b(?:under|over)-$", re.IGNORECASE)
# ... unless it qualifies someone else: "Parents of under-5s", "Adults accompanying under-12s"
_OF_GROUP = re.compile(r"\b(?:of|accompanying|with|for\s+parents\s+of)\s+(?:the\s+|their\s+)?(?:under|over)-$", re.IGNORECASE)
PEOPLE_WORDS = ("children", "child", "kids", "people", "persons", "adults", "pupils", "students", "passengers",
                "patients", "pensioners", "seniors", "residents", "players", "customers", "visitors", "those", "anyone",
                "everyone")


def names_age_group(text: str, mention: NumberMention) -> bool:
    """Whether `mention` is an age group that names people ("Under-12s travel free"), not one that qualifies
    someone else ("Parents of under-5s")."""
    return bool(_AGE_GROUP.search(text, max(0, mention.start - 6), mention.start)) and mention.text.endswith("s") \
        and not _OF_GROUP.search(text, max(0, mention.start - 24), mention.start)  # fmt: skip
