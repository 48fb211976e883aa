"""The numbers check: every number the claim states must be stated by the cited source, *with what it
counts or measures*.

Runs before the word overlap because a wrong number is the commonest and most harmful unsupported
edit ("ten business days" against "five business days" overlaps 4 of 5 words). Equal amounts in any
form match (see citebound.text.numbers). A hedged claim number matches more loosely: "about N" accepts
a source value within 10 %, "more than N" a value in [N, 10 N], "less than N" a value in [N / 10, N].

Finding the value somewhere in the source is not enough: a true number attached to another thing is
the same error as a wrong number. A source mention of the value counts for a claim number only when

1. **unit or noun**: where the claim names what the number measures right after it (`90 business
   days`, `330 m`, `€12`, `30 %`), the source states the value with the same unit (units written
   several ways are one unit: `330 m` = `330 metres` = `330 meters`, `€12` = `12 euros`, `30 %` =
   `thirty percent`; see `text.numbers.UNITS_OF`), or with no unit while the sentence names the
   claim's unit and gives it to no other number, and where both name a dimension right after the unit
   it is the same one (`330 metres wide` is not found in `330 metres tall`); where the claim names a thing that is no unit
   (`4,990 employees`) and the source sentence names it too, it is next to the value (a few words
   after it, or before it when none follow; never past another number; or named by an "Of (N) NOUN
   ...," phrase right before the value: "Of 500 patients screened, 320 were enrolled", or by an "of (the) (N)
   NOUN" right after it: "Two of the five flights"; a "NOUN of N" names what the value counts, and the
   words before it are another's: "2,000 passengers and a crew of 800" states no 800 passengers). A share is one however it is written: "one in four"
   and "25 percent" are stated by "a quarter". "90 business days" is found
   in "ninety days", not in "90 minutes"; "12 paintings" not in "330 paintings and 12 sculptures". A
   number that names rather than counts ("BRCA 1", "type 2", "phase 3") is held to its unit only. The
   same amount in another unit of the same measure counts ("2 kg" in "2,000 grams": exact metric and
   time conversions, after the claim's verb when the claim has one right before its number). A value
   said of another thing does not count when the sentence gives the claim's thing another number: by
   the phrase after it ("9 am on weekdays and 11 am on Sundays" for 9 am on Sundays; on / for / during
   / in), the verb right before it ("screened 500 patients and included 320" for 500 included), or a
   joined clause with its verb left out ("The phone weighs 450 grams and its battery 60 grams" for the
   battery's 450 grams);
2. **sentence**: the source sentence holding the value shares at least one content word of the claim
   besides the number's own unit or noun ("Refunds ... within 90 business days" is not found in
   "Shipping takes 90 business days.");
   A number stated as a change ("reduced mortality by 30 %") is the change of the thing named right
   before its "by": "reduced hospital stays by 30 %" does not state it when the sentence names
   mortality elsewhere (unless the source's changed thing is in the claim too, as in the passive
   "Mortality was reduced by 30 %", or the claim's thing is in the source's clause);
A place in a ranking the claim states with an ordinal ("finished second", "came 3rd") is stated by an
   ordinal ("second", "2nd") or a label's number ("No. 2", "place 2"), not by a count ("two places behind");
3. **year**: when the claim dates its number (`12 % in 2019`) and the source sentence dates that
   mention with a year, the nearest such year is one of the claim's ("12 % in 2018 and 5 % in 2019"
   does not state 12 % in 2019); a year right after the value is its year ("8 % in 2022 and 12 % in
   2023" does not state 12 % in 2022).

The verdict names what failed: "S1 states 90 only as '90 minutes', not with 'business days'".
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise

from citebound.text.kinds import FREQUENCY_ADVERBS, ONE_OF_A_KIND, QUALIFIER_KINDS
from citebound.text.numbers import (
    _NUMBER_WORDS,
    FRACTION_WORDS,
    ORDINALS,
    recurrences,
    said_of,
    RANKED,
    Number,
    NumberMention,
    canonical,
    extract_numbers,
    in_base_unit,
    mention_units,
    names_age_group,
    PEOPLE_WORDS,
    single_number,
    unit_of,
    value_measure,
)
from citebound.text.sentences import sentence_spans
from citebound.text.stem import STOP_WORDS, stem, states_past
from citebound.text.tokenize import is_contracted_negation, tokens

APPROX_TOLERANCE = Fraction(1, 10)
NOUN_WINDOW = 3  # content words looked at on each side of a source number for the claim's noun
# nouns of "a NOUN of N" that say how much, not what is counted ("a total of 800 (passengers)")
_AMOUNT_NOUNS = frozenset({"total", "number", "maximum", "minimum", "average", "sum", "amount", "figure", "tally",
                           "count", "mean", "median", "peak", "high", "low", "record", "estimated", "range"})  # fmt: skip
YEAR_WINDOW = 12  # words: a year farther than this from a number does not date it
# Words after which a number names something rather than counting it ("type 2", "phase 3", "factor 21");
# a capitalised word before a number does the same ("BRCA 1", "Windows 11").
LABEL_WORDS = frozenset({"type", "phase", "factor", "chapter", "section", "article", "version", "level", "grade",
                         "stage", "class", "category", "room", "gate", "line", "route", "season", "episode", "page",
                         "figure", "table", "step", "part", "item", "number", "no", "model", "series",
                         "generation", "platform", "terminal", "floor", "building", "unit", "ward", "group",
                         "cohort", "arm"})  # fmt: skip
CURRENCIES = frozenset({"euro", "dollar", "pound", "yen", "rupee", "krona", "yuan", "franc"})
# The dimension a measure names right after its unit ("330 metres wide"): one name per synonym group.
DIMENSIONS = {"tall": "height", "high": "height", "wide": "width", "broad": "width", "across": "width",
              "long": "length", "deep": "depth", "thick": "thickness", "heavy": "weight", "old": "age"}  # fmt: skip
_RANGE = re.compile(r"\s*(?:to|-|–|—|or|and|through|until|till)\s*", re.IGNORECASE)
_TOKEN = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*|\d+|[%€$£¥₹°]|[.;:!?,()\[\]{}\"“”]|\S")
_STOP_PUNCT = frozenset(".;:!?,()[]{}\"“”")
_WORDS = re.compile(r"\w+")


def _as_number(v: Number | float) -> Number | Fraction:
    return Fraction(repr(v)) if isinstance(v, float) else v


def _hedged_match(mention: NumberMention, source_values: Sequence[Number]) -> bool:
    for v in map(_as_number, mention.values):
        for s in map(_as_number, source_values):
            if mention.hedge == "approx" and abs(s - v) <= APPROX_TOLERANCE * abs(v):
                return True
            if mention.hedge == "at_least" and v <= s <= 10 * v:
                return True
            if mention.hedge == "at_most" and Fraction(v) / 10 <= s <= v:
                return True
    return False


# A bound that sets a condition: "Orders over $50 ship free", "Cancellations made more than 48 hours before",
# "children under 12". "Orders over $30 ship free" is no looser reading of it, as "More than 2,000 people
# attended" is of "More than 3,000 people attended": what the claim bounds is a group, not an amount.
_BOUND_WORDS = re.compile(r"(?:over|above|under|below|exceeding|(?:more|less|fewer|greater|longer|shorter|older|"
                          r"younger)\s+than|at\s+(?:least|most)|up\s+to|in\s+excess\s+of|upwards\s+of)\s*[$€£]?\s*$",
                          re.IGNORECASE)
_GROUPS = frozenset("""orders order purchases purchase items item children child adults adult guests guest
applications application cancellations cancellation bookings booking stays stay deposits deposit transactions
transaction payments payment bags bag baggage parcels parcel packages package claims claim vehicles vehicle journeys
journey trips trip tickets ticket members member customers customer students student employees employee patients
patient users user accounts account refunds refund those anyone anything ones made placed booked""".split())
# (not "of", "worth", "priced", "weighing": "revenue of more than $2 billion", "worth over $1 million" bound an
# amount, as "more than 2,000 people attended" does; a review of 2026-12-03 found 11 such blocked)


def _threshold(claim: str, mention: NumberMention) -> bool:
    """Whether a hedged claim number sets a condition on a group ("Orders over $30 ship free"): the word
    before its bound is a group or a participle that the bound narrows."""
    bound = _BOUND_WORDS.search(claim, max(0, mention.start - 30), mention.start)
    if bound is None:
        return False
    before = re.findall(r"[^\W\d_]+", claim[max(0, bound.start() - 30) : bound.start()])
    return bool(before) and before[-1].casefold() in _GROUPS


_AND_OVER = re.compile(r"\s*(?:years?\s+)?(?:and|or)\s+(over|above|older|more|up|under|below|younger|less)\b",
                       re.IGNORECASE)


def _same_edge(claim: NumberMention, stated: NumberMention, source: str) -> bool:
    """Whether a source bound is the claim's with the other edge: "over 64" is "65 and over", "under 12" is
    "11 and under" (whole numbers)."""
    edge = _AND_OVER.match(source, stated.end)
    if edge is None:
        return False
    up = edge.group(1).casefold() in ("over", "above", "older", "more", "up")
    step = 1 if claim.hedge == "at_least" else -1
    return up == (claim.hedge == "at_least") and any(
        isinstance(v, int) and isinstance(s, int) and s == v + step for v in claim.values for s in stated.values)


def states_value(claim: NumberMention, source: NumberMention) -> bool:
    """Whether the source mention states the claim mention's value (any reading; hedges loosely)."""
    return bool(claim.keys & source.keys) or (bool(claim.hedge) and _hedged_match(claim, source.values))


def missing_numbers(
    claim_numbers: Sequence[NumberMention], source_keys: frozenset[str], source_values: Sequence[Number]
) -> list[NumberMention]:
    """The claim's number mentions whose value the source does not state anywhere, in claim order
    (values only; `number_problems` also asks where and with what)."""
    missing = []
    for mention in claim_numbers:
        if mention.keys & source_keys:
            continue
        if mention.hedge and _hedged_match(mention, source_values):
            continue
        missing.append(mention)
    return missing


def describe(mention: NumberMention) -> str:
    """How a missing number is named in a reason: its normalised value, and the words if different."""
    value = canonical(mention.value)
    if mention.kind == "time" and not any(ch.isdigit() for ch in mention.text):  # "noon": the time 12:00
        return f"the time {value}:00 ({mention.text!r})"
    return value if mention.text.replace(",", "").replace(" ", "") == value else f"{value} ({mention.text!r})"


# -- what a number is attached to ----------------------------------------------------------------------
def _word_stem(word: str) -> str:
    low = word.casefold().replace("’", "'")
    return stem("not" if is_contracted_negation(low) else low)


def _acronym(word: str) -> bool:
    """A short all-capitals token or a single letter ("EB", "U", "s"): part of a name, not a noun."""
    return len(word) == 1 or (len(word) <= 4 and word.isupper())


def _content(word: str) -> bool:
    low = word.casefold()
    return word[:1].isalpha() and low not in STOP_WORDS and low not in _NUMBER_WORDS


@dataclass(frozen=True, slots=True)
class Attached:
    """What a number is stated with: its unit (one name, see UNITS_OF) and the words around it."""

    units: frozenset[str]
    words: tuple[str, ...]  # as written: the claim's run after the number; a source's window
    stems: frozenset[str]
    end: int  # where the words read after the number end (for quoting)


def _after(text: str, pos: int, limit: int, stop: int) -> list[re.Match[str]]:
    out = []
    for m in _TOKEN.finditer(text, pos, stop):
        if m.group(0) in _STOP_PUNCT:
            break
        out.append(m)
        if len(out) >= limit:
            break
    return out


def dimension(words: Sequence[str]) -> str | None:
    """The dimension named by the word right after a unit among `words` ("330 metres tall" -> height)."""
    for prev, word in pairwise(words):
        if unit_of(prev) is not None:
            return DIMENSIONS.get(word.casefold())
    return None


_BY_HEDGES = frozenset({"about", "around", "roughly", "nearly", "almost", "approximately", "some", "over", "up",
                        "to", "more", "less", "than", "at", "least", "most", "just", "only"})  # fmt: skip


def changed_by(text: str, start: int, limit: int = 8) -> tuple[str, frozenset[str]] | None:
    """For a number stated as a change ("reduced mortality by 30 %"): the stem of the content word right
    before its "by" (what changed, `mortal`; or the verb when nothing is named, "sales rose by 12 %")
    and the stems of up to `limit` content words before "by" in its clause. None when the number does
    not follow "by"."""
    before = [m.group(0) for m in _TOKEN.finditer(text, max(0, start - 160), start)]
    while before and before[-1].casefold() in _BY_HEDGES:
        before.pop()
    if not before or before[-1].casefold() != "by":
        return None
    words: list[str] = []
    for word in reversed(before[:-1]):
        if word in _STOP_PUNCT:
            break
        if _content(word):
            words.append(_word_stem(word))
            if len(words) >= limit:
                break
    return (words[0], frozenset(words)) if words else None


def claim_attached(claim: str, mention: NumberMention, mentions: Sequence[NumberMention]) -> Attached:
    """What the claim says its number measures: a unit, or up to two content words right after it
    (`90 business days` -> unit day, words business days; `4,990 employees` -> employees)."""
    nxt = min((m.start for m in mentions if m.start >= mention.end), default=len(claim))
    units = set(mention_units(mention))
    run: list[str] = []
    end = mention.end
    # a number right after a content word is usually part of a name ("BRCA 1", "factor 21"): only a
    # unit after it is read, not a noun
    before = [m.group(0) for m in _TOKEN.finditer(claim, max(0, mention.start - 40), mention.start)]
    label_like = bool(before) and not mention.hedge and (
        before[-1].casefold() in LABEL_WORDS or (_content(before[-1]) and not before[-1].islower() and len(before) > 1)
    )
    if not units and mention.kind not in ("year", "time"):
        for m in _after(claim, mention.end, 4, nxt):
            word = m.group(0)
            unit = unit_of(word)
            if unit is not None:
                if not units:
                    units.add(unit)
                run.append(word)
            elif _content(word) and not label_like and not _acronym(word):
                run.append(word)
            elif word in "-/–":
                continue
            else:
                break
            end = m.end()
            if len(run) >= 2:
                break
        if not units:  # a currency written before the amount: "EUR 12", "USD 5"
            if before and unit_of(before[-1]) in CURRENCIES:
                units.add(unit_of(before[-1]))  # type: ignore[arg-type]
    return Attached(frozenset(units), tuple(run), frozenset(_word_stem(w) for w in run), end)


_RELATIVE = re.compile(r"\s*,\s*(?:who|which)\b", re.IGNORECASE)


def source_attached(text: str, i: int, mentions: Sequence[NumberMention], start: int, stop: int) -> Attached:
    """What the source states its i-th number with, inside its sentence [start, stop): the unit (its
    own symbol, else the first unit among the next content words, else a currency written before it)
    and up to NOUN_WINDOW content words on each side, not past another number (a range "5 to 10
    days" reads through to "days")."""
    mention = mentions[i]
    units = set(mention_units(mention))
    k, pos = i + 1, mention.end
    while k < len(mentions) and mentions[k].start < mention.end:
        k += 1  # a reading of a part of this one ("000" of "56, 000")
    while k < len(mentions) and mentions[k].start < stop and _RANGE.fullmatch(text, pos, mentions[k].start):
        pos = mentions[k].end  # "5 to 10 days": 5 is stated with days
        k += 1
    nxt = min(mentions[k].start if k < len(mentions) else stop, stop)
    if (rel := _RELATIVE.match(text, pos, nxt)) is not None:
        pos = rel.end()  # "children under 5, who travel free": the relative clause says what the 5 do
    after: list[str] = []
    end, unit_read = mention.end, bool(units - {"metre", "byte"})
    for m in _after(text, pos, 8, nxt):
        word = m.group(0)
        unit = unit_of(word)
        if unit is not None or _content(word):
            after.append(word)
            if unit is not None and not unit_read:  # the first unit after the number is its unit
                units.add(unit)
                unit_read = True
            end = m.end()
            if len(after) >= NOUN_WINDOW:
                break
    prev = max((m.end for m in mentions[:i] if m.end <= mention.start), default=start)
    before_tokens = list(_TOKEN.finditer(text, max(start, prev, mention.start - 120), mention.start))
    before: list[str] = []
    # the words before a number are its own only when none follow it ("employees: 4,990"); else they
    # may be the previous number's ("330 paintings and 12 sculptures"); "a crew of 800" names what it
    # counts, and the words before that noun are another number's ("2,000 passengers and a crew of 800")
    own = before_tokens if not after or prev <= start else []
    if len(own) >= 2 and own[-1].group(0).lower() == "of" and _content(noun := own[-2].group(0)) \
            and noun.lower() not in _AMOUNT_NOUNS:
        own = own[-2:-1]
    for m in reversed(own):
        word = m.group(0)
        if word in _STOP_PUNCT and word not in ":,":  # "Employees: 4,990"
            break
        if _content(word) or unit_of(word):
            before.append(word)
            if len(before) >= NOUN_WINDOW:
                break
    if before_tokens and (u := unit_of(before_tokens[-1].group(0))) in CURRENCIES:
        units.add(u)  # type: ignore[arg-type]
    words = tuple(reversed(before)) + tuple(after)
    return Attached(frozenset(units), words, frozenset(_word_stem(w) for w in words), end)


# -- the check ----------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class NumberProblem:
    """A claim number the source does not state as the claim does: `kind` is "absent" (the value is
    nowhere in the source), "unit", "noun", "sentence" or "year"; `detail` is the reason's wording."""

    mention: NumberMention
    kind: str
    detail: str


_RANK = {"unit": 0, "noun": 0, "sentence": 1, "year": 2}  # the candidate that got furthest is reported


# The word right before a number that says what the number is a boundary of; a claim and a source that
# put the same number after two of these words in one pair state different things.
_BOUNDARY = re.compile(r"\b(by|to|from|until|till|since|before|after)\s+(?:[$€£]\s*)?$", re.IGNORECASE)
_CONFLICTING_BOUNDARIES = frozenset(frozenset(p) for p in (
    ("by", "to"), ("until", "from"), ("till", "from"), ("until", "since"), ("till", "since"), ("until", "after"),
    ("till", "after"), ("before", "after"), ("before", "from"), ("before", "since")))


# a difference of two percentages: "25 percentage points", "2.5 % points", "3 pp"
_POINTS = re.compile(r"\s*(?:(?:%|percent|per\s+cent|percentage)\s*points?|pp|p\.p\.)(?!\w)", re.IGNORECASE)


def _in_points(text: str, mention: NumberMention) -> bool:
    """Whether the number is given in percentage points (its text may hold the "%": "2.5 % points")."""
    if _POINTS.match(text, mention.end):
        return True
    return mention.kind == "percent" and bool(re.match(r"\s*points?\b", text[mention.end :], re.IGNORECASE))


_MERIDIEM = re.compile(r"\b([ap])\.?\s?m\b\.?", re.IGNORECASE)


def _meridiem(text: str) -> str | None:
    """"am" or "pm" when a clock time is written with one ("8 pm", "8 p.m."), else None."""
    m = _MERIDIEM.search(text)
    return m.group(1).lower() + "m" if m else None


_WHEN = re.compile(r"\d{1,2}(?:[:.]\d\d)?\s?[ap]\.?m\b|(?:1[89]|20)\d\d\b", re.IGNORECASE)  # a clock time, a year


def boundary_before(text: str, start: int) -> str | None:
    """The boundary word right before the number at `start` ("by", "to", "until", "from", ...), if any;
    a month name between them is skipped ("until June 30"). "By" a date, a clock time or a year is a
    deadline and reads as "until" ("by 5 pm" is what "from 9 am to 5 pm" ends with); "by 5 %" stays "by"."""
    head = text[max(0, start - 30) : start]
    dated = re.sub(r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"
                   r"\s*$", "", head, flags=re.IGNORECASE)
    m = _BOUNDARY.search(dated)
    if m is None or (m.group(1).lower() == "to" and re.search(r"\bup\s+$", dated[: m.start(1)], re.IGNORECASE)):
        return None  # "up to 2 pm" is a limit, as "by 2 pm" is: no boundary to tell them apart
    word = m.group(1).lower()
    if word == "by" and (dated != head or _WHEN.match(text, start)):
        return "until"  # "by June 30", "by 5 pm", "by 2024": a deadline, as "to 5 pm" ends a range
    return word


_TIMES = ("second", "minute", "hour", "day", "night", "week", "month", "quarter", "year")
# "per X", "/X", and beside one of those "a month" / "an hour" ("10 euros per user a month")
_PER = re.compile(rf"\s*(per\s+|/\s*|an?\s+(?=(?:{'|'.join(_TIMES)})\b))([^\W\d_]+)", re.IGNORECASE)
_UNIT_WORD = re.compile(r"\s*(?:[^\W\d_]+|[%€$£])")
# abbreviations a rate is written with, read as their word ("km/h" is per hour)
_RATE_WORDS = {"h": "hour", "hr": "hour", "hrs": "hour", "min": "minute", "s": "second", "sec": "second",
               "d": "day", "wk": "week", "mo": "month", "yr": "year", "y": "year", "annum": "year"}


def rate_after(text: str, pos: int, word_stem=_word_stem) -> frozenset[str]:
    """What the number ending at `pos` is a rate per: the stems after "per" or "/" that follow it, past
    its unit (two words at most): "10 euros per user per month" -> {user, month}, "5 mg/kg/day" ->
    {kg, day}; "per user a month" is per user and month; empty when no "per" or "/" follows ("10 euros a
    month" alone is left to the other checks)."""
    at = pos
    for _ in range(3):
        if _PER.match(text, at):
            break
        word = _UNIT_WORD.match(text, at)
        if word is None:
            return frozenset()
        at = word.end()
    out, per = set(), False
    while (m := _PER.match(text, at)) is not None:
        per = per or m.group(1)[0].lower() != "a"  # "per" or "/", not only "a month"
        name = m.group(2).lower()
        out.add(word_stem(_RATE_WORDS.get(name, name)))
        at = m.end()
    return frozenset(out) if per else frozenset()


# "5 tonnes daily": the adverb of a time unit is a rate per it
_TIME_ADVERBS = {**{w: base for w, base in FREQUENCY_ADVERBS.items() if w.endswith("ly")}, "nightly": "night"}
# "5 million a year later" is no rate: a time unit after "a" that words like these follow measures a gap
_NOT_A_RATE_AFTER = re.compile(r"\s+(?:later|earlier|ago|before|after|old|long|apart|in\s+advance|or\s+so)\b", re.IGNORECASE)


def time_rate_after(text: str, pos: int, word_stem=_word_stem) -> frozenset[str]:
    """The time units the number ending at `pos` is a rate per, past its unit (two words at most), however
    the rate is written: "5 tonnes a day", "per day", "/day", "daily" -> {day}. Empty when none follows or
    the unit measures a gap ("a year later", "a week in advance"). `rate_after` reads "a day" only beside a
    "per"; this reading is compared only with another time rate, so "10 euros a month" against a source
    that gives no rate is still left to the other checks."""
    at = pos
    for _ in range(3):
        word = _UNIT_WORD.match(text, at)
        if _PER.match(text, at) or word is None:
            break
        adverb = _TIME_ADVERBS.get(word.group(0).strip().lower())
        if adverb:
            return frozenset({word_stem(adverb)})
        at = word.end()
    out = set()
    while (m := _PER.match(text, at)) is not None:
        name = _RATE_WORDS.get(m.group(2).lower(), m.group(2).lower())
        if m.group(1)[0].lower() == "a" and _NOT_A_RATE_AFTER.match(text, m.end()):
            return frozenset()
        if name.rstrip("s") in _TIMES:
            out.add(word_stem(name.rstrip("s")))
        at = m.end()
    return frozenset(out)


def _other_rate(claim: str, claim_end: int, source: str, source_end: int, word_stem) -> str | None:
    """How the claim's rate reads ("per 'month'", "a 'day'") when the source gives the number another
    rate: per other things (`rate_after`), or per another time unit however written (`time_rate_after`)."""
    per = rate_after(claim, claim_end, word_stem)
    if per and (got := rate_after(source, source_end, word_stem)) and got != per:
        return f"per {' per '.join(sorted(per))!r}"
    every = time_rate_after(claim, claim_end, word_stem)
    if not every:
        return None
    if (got := time_rate_after(source, source_end, word_stem)) and got != every:
        return f"a {' and '.join(sorted(every))!r}"
    if (often := _frequency(source, source_end)) and not _frequency(claim, claim_end):
        # "two tablets a day" is not stated by "two tablets twice a day": the source says how often
        return f"a {' and '.join(sorted(every))!r} without {often!r}"
    return None


_FREQUENCY = re.compile(r"\s*(?:[^\W\d_]+\s+){0,2}?(twice|thrice|(?:\d+|two|three|four|five|six)\s+times)\s+"
                        r"(?:an?\s+|per\s+|every\s+|/\s*)?[^\W\d_]+", re.IGNORECASE)


def _frequency(text: str, pos: int) -> str | None:
    """How often the amount after the number ending at `pos` is given, when a frequency stands before its time
    rate: "2 tablets twice a day" -> "twice", "1 g three times daily" -> "three times"; "once" is none."""
    m = _FREQUENCY.match(text, pos)
    return " ".join(m.group(1).lower().split()) if m and time_rate_after(text, m.end(1)) else None


# What a number is said of by a phrase right after it: "9 am on Sundays", "300 euros for members"
# (past the number's unit; the words joined by "and" / "or" up to the next punctuation or number)
_QUALIFIER = re.compile(r"\s+(on|for|during|in|of)\s+(?:the\s+|all\s+)?((?:[^\W\d_]+(?:\s+(?:and|or)\s+|\s+)?){1,3})",
                        re.IGNORECASE)


def _range_qualifier(text: str, i: int, mentions: Sequence[NumberMention], word_stem, bare: bool = False):
    """The qualifier of the source's i-th number, or, when it opens a range, of the range ("6 am to 10 pm on
    weekdays": "on weekdays" qualifies 6 am as much as 10 pm)."""
    if (q := qualifier_after(text, mentions[i].end, word_stem, bare=bare)) is not None or i + 1 >= len(mentions):
        return q
    nxt = mentions[i + 1]
    if nxt.start > mentions[i].end and _RANGE.fullmatch(text, _past_unit(text, mentions[i].end), nxt.start):
        return qualifier_after(text, nxt.end, word_stem, bare=bare)
    return None


def _said_with(source: str, found: NumberMention, phrase: str) -> str:
    """The source's number as written up to its qualifier ("6 am to 10 pm on weekdays")."""
    at = source.find(phrase, found.end)
    if 0 <= at - found.end <= 40:
        return " ".join(source[found.start : at + len(phrase)].split())
    return source[found.start : _past_unit(source, found.end)] + " " + phrase


def _past_unit(text: str, end: int) -> int:
    """Where the text after the number ending at `end` goes on past its unit ("300 euros| for")."""
    at = end
    for _ in range(2):
        m = _UNIT_WORD.match(text, at)
        if m is None or unit_of(m.group(0).strip()) is None:
            break
        at = m.end()
    return at


_JOIN_STOPS = frozenset({"until", "till", "from", "to", "at", "on", "in", "for", "by", "then", "the"})


def qualifier_after(text: str, end: int, word_stem=_word_stem,
                    bare: bool = False) -> tuple[str, frozenset[str], str] | None:  # fmt: skip
    """(preposition, stems of its words, the phrase as written) of the phrase that qualifies the number
    ending at `end`: "9 am on weekdays and Sundays" -> ("on", {weekday, sunday}, "on weekdays and
    Sundays"); None when none follows. `bare`: also a phrase of no content word ("in the one before":
    ("in", {}, ...)), which qualifies the number as something other than any named thing."""
    m = _QUALIFIER.match(text, _past_unit(text, end))
    if m is None:
        return None
    words = [w for w in _WORDS.findall(m.group(2)) if _content(w) and w.casefold() not in ("and", "or")]
    if not words and not bare:
        return None
    phrase = " ".join(m.group(0).split())
    # the phrase ends before a join to what follows ("on Thursdays and until 6 pm": "on Thursdays")
    phrase = re.sub(r"(?:\s+(?:and|or)(?:\s+(?:" + "|".join(sorted(_JOIN_STOPS)) + r"))?)$", "", phrase, flags=re.IGNORECASE)
    phrase = re.sub(r"(?:\s+(?:" + "|".join(sorted(_JOIN_STOPS)) + r"|with|and|or))+$", "", phrase, flags=re.IGNORECASE)
    return m.group(1).lower(), frozenset(map(word_stem, words)), phrase


# Words that tell one of a kind from another ("the second quarter", "the northern region"), each group one
# meaning: only these are read, so "the last year" and "the final year" are not two years.
_WHICH_ONE = {w: k for k, group in enumerate((
    "first 1st", "second 2nd", "third 3rd", "fourth 4th", "fifth 5th", "sixth 6th", "seventh 7th", "eighth 8th",
    "ninth 9th", "tenth 10th", "spring", "summer", "autumn fall", "winter", "north northern", "south southern",
    "east eastern", "west western", "morning", "afternoon", "evening", "upper", "lower",
)) for w in group.split()}  # fmt: skip


_EACH_ONE = {w: kind for w, kind in ONE_OF_A_KIND.items() if kind[0] in QUALIFIER_KINDS}  # text/kinds.py


def _other_of_the_same(claimed: tuple[str, frozenset[str], str], got: tuple[str, frozenset[str], str]) -> bool:
    """Whether two qualifiers name another one of the same thing: the same preposition, and a head of a
    closed kind (`text/kinds.py`) the source's phrase names another one of and never the claim's; or the same
    last word, and before it words of _WHICH_ONE of other meanings ("in the second quarter" / "in the first quarter", "in
    the northern region" / "in the southern region"; not "in the quarter" / "in the first quarter", nor
    "in the last year" / "in the final year")."""
    if claimed[0] != got[0]:
        return False
    mine, theirs = ([w.casefold() for w in _WORDS.findall(q[2])] for q in (claimed, got))
    head = mine[-1]  # the phrase after the source's number may run on ("the first quarter and fell ...")
    if head in _EACH_ONE:
        # the head itself is one of a kind: "on Tuesdays" / "on Thursdays", "in the morning" / "in the evening",
        # "on weekends" / "on weekdays" (a day of the week is no other one than "weekdays": not compared); the
        # source's phrase naming the claim's one among others ("on Saturdays and Sundays") states it
        if any(_EACH_ONE.get(w) == _EACH_ONE[head] for w in theirs):
            return False
        first = next((w for w in theirs[1:] if w not in ("the", "all", "a", "an")), None)
        return first in _EACH_ONE and _EACH_ONE[first][0] == _EACH_ONE[head][0]
    if head not in theirs:
        return False
    mine_which = {_WHICH_ONE[w] for w in mine[:-1] if w in _WHICH_ONE}
    theirs_which = {_WHICH_ONE[w] for w in theirs[: theirs.index(head)] if w in _WHICH_ONE}
    return bool(mine_which) and bool(theirs_which) and not mine_which & theirs_which


_YEAR_AFTER = re.compile(r"\s+(?:in|during)\s+((?:1[89]|20)\d\d)\b", re.IGNORECASE)


def year_after(text: str, end: int) -> str | None:
    """The year a number is stated "in" right after it (past its unit): "12 % in 2023" -> "2023"."""
    m = _YEAR_AFTER.match(text, _past_unit(text, end))
    return m.group(1) if m else None


_DOER_STOP = frozenset({"and", "but", "while", "whereas", "then", "who", "which", "that"})


def _doer(text: str, start: int, word_stem) -> frozenset[str]:
    """The stems of the capitalised words right before the verb before the number at `start`, back to a
    punctuation mark, a number or a joining word ("Viktor Salo scored 6.5" -> {viktor, salo}): who did it,
    when a name says so; empty otherwise."""
    toks = [m.group(0) for m in _TOKEN.finditer(text, max(0, start - 80), start)]
    while toks and toks[-1].casefold() in _BY_HEDGES:
        toks.pop()
    if not toks or not toks[-1].islower():
        return frozenset()
    toks.pop()  # the verb
    names = []
    while toks and toks[-1][:1].isupper() and toks[-1].isalpha() and toks[-1].casefold() not in _DOER_STOP:
        names.append(toks.pop())
    if toks and not (toks[-1] in _STOP_PUNCT or toks[-1].casefold() in _DOER_STOP or toks[-1][:1].isdigit()
                     or toks[-1].casefold() in ("the", "a", "an")):  # fmt: skip
        return frozenset()  # the words before the name go on ("the coach of Viktor Salo scored"): not read
    return frozenset(word_stem(w.casefold()) for w in names if w.casefold() not in ("the", "a", "an", "in", "on"))


def word_before(text: str, start: int) -> str | None:
    """The lower-case content word right before the number at `start` ("included 320"), past a hedge
    ("included about 320"); None when the number follows anything else."""
    before = [m.group(0) for m in _TOKEN.finditer(text, max(0, start - 60), start)]
    while before and before[-1].casefold() in _BY_HEDGES:
        before.pop()
    if not before or not before[-1].islower() or not _content(before[-1]) or unit_of(before[-1]) is not None:
        return None
    return before[-1] if before[-1] not in LABEL_WORDS else None


def _quote(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _word_distance(text: str, a: int, b: int) -> int:
    return len(_WORDS.findall(text, min(a, b), max(a, b)))


def _claim_words_as_written(claim: str, stems: frozenset[str], word_stem=_word_stem) -> list[str]:
    seen: dict[str, str] = {}
    for t in tokens(claim):
        if _content(t) and word_stem(t) in stems:
            seen.setdefault(word_stem(t), t)
    return list(seen.values())


def claim_words(claim: str, word_stem=_word_stem) -> frozenset[str]:
    """The claim's content-word stems, no numbers."""
    return frozenset(word_stem(t) for t in tokens(claim) if _content(t))


def number_problems(claim: str, stated: Sequence[NumberMention], source: str,
                    mentions: Sequence[NumberMention], sentences: Sequence[tuple[int, int]],
                    sentence_words: Sequence[object], word_stem=None) -> list[NumberProblem]:  # fmt: skip
    """For each claim number, why the source does not state it with what the claim attaches to it
    (empty list: every number is stated as claimed). `mentions` are the source's numbers (read
    leniently), `sentences` its sentence spans and `sentence_words` the content stems of each
    (anything supporting `in`), stemmed by `word_stem` (the lexical check's, so both read a word alike;
    default: Snowball with contracted negations as "not")."""
    if not stated:
        return []
    word_stem = word_stem or _word_stem
    starts = [s for s, _ in sentences]
    years_in_claim = frozenset(k for m in stated if m.kind == "year" for k in m.keys)
    claim_sentences = sentence_spans(claim) or [(0, len(claim))]
    cache: dict[int, Attached] = {}

    def sentence_of(pos: int) -> tuple[int, tuple[int, int]]:
        j = max(0, bisect_right(starts, pos) - 1)
        if sentences and sentences[j][0] <= pos < sentences[j][1]:
            return j, sentences[j]
        return -1, (0, len(source))

    def attached(k: int) -> Attached:
        """What the source's k-th number is stated with (in its own sentence), cached."""
        if k not in cache:
            start, stop = sentence_of(mentions[k].start)[1]
            if stop < mentions[k].end:  # "2. 4 miles": a number read across a break the splitter saw
                stop = max(stop, sentence_of(mentions[k].end - 1)[1][1])
            cache[k] = source_attached(source, k, mentions, start, stop)
        return cache[k]

    source_keys = [m.keys for m in mentions]  # (a property that builds a set: read once)
    problems = []
    for mention in stated:
        keys = mention.keys
        exact = [i for i in range(len(mentions)) if keys & source_keys[i]]
        candidates = exact or [i for i, s in enumerate(mentions) if mention.hedge and _hedged_match(mention, s.values)
                               and (not _threshold(claim, mention) or _same_edge(mention, s, source))]  # fmt: skip
        wanted = claim_attached(claim, mention, stated)
        # another unit of the same measure is looked for unless the value is stated as it is ("not more than
        # 4 grams" against "not more than 4,000 mg": the hedge alone matches 24 hours too)
        converted = (frozenset() if exact
                     else _converted(claim, mention, wanted, source, mentions, attached, word_stem))  # fmt: skip
        candidates = sorted(converted) if converted else candidates
        if not candidates and mention.text.casefold() in ("first", "second") and not _STATES_RANK.search(source):
            continue  # "finished first" against "won the race": a rank the source states in words, not as another
        if not candidates and (share := _claim_share(claim, mention)) is not None and any(
                _same_share(share, mention.kind == "percent", f, percent) for f, percent in _source_shares(source)):
            continue  # "one in four" or "25 percent" stated as "a quarter"
        if not candidates and (span := _years_meant(claim, mention)) \
                and _dated_within(claim, mention, source, span, word_stem):  # fmt: skip
            continue  # "in the late nineteenth century", "in the 1880s": a year of the source within it
        if not candidates and mention.text.casefold() == "one" and _said_as_one(source, claim, mention.end):
            continue  # "one hour" stated as "an hour", "a single week"
        if not candidates and _same_frequency(claim, mention, source):
            continue  # "twice a year" stated as "every six months"
        if not candidates:
            problems.append(NumberProblem(mention, "absent", describe(mention)))
            continue
        # the claim's words around the number: those of its own sentence (a summary states many facts)
        c_start, c_end = next(((a, b) for a, b in claim_sentences if a <= mention.start < b), (0, len(claim)))
        run = frozenset(map(word_stem, wanted.words))
        context = claim_words(claim[c_start:c_end], word_stem) - run
        # not "by 2030", not "by 11 am" (a deadline, not an amount a thing changed by)
        claimed_change = changed_by(claim, mention.start) if mention.kind not in ("year", "time") else None
        all_claim_words = claim_words(claim, word_stem) if claimed_change else frozenset()
        claimed_qualifier = qualifier_after(claim, mention.end, word_stem) if mention.kind != "year" else None
        claimed_verb = word_before(claim, mention.start) if mention.kind != "year" else None
        claim_stems = claim_words(claim, word_stem) if claimed_verb else frozenset()
        # the claim's words before its verb ("The battery weighs 450 grams": battery), for an elided verb
        claim_subject = (claim_words(claim[c_start : claim.rfind(claimed_verb, c_start, mention.start)], word_stem)
                         if claimed_verb and wanted.units else frozenset())  # fmt: skip
        failures: list[tuple[int, str]] = []
        passed: list[int] = []
        passed_at: list[int] = []  # the source numbers that passed (indexes into mentions)
        for i in candidates:
            found = mentions[i]
            j, (s_start, s_end) = sentence_of(found.start)
            got = attached(i)
            shown = _quote(source[found.start : max(got.end, found.end)])
            words = sentence_words[j] if 0 <= j < len(sentence_words) else ()
            j_end = sentence_of(found.end - 1)[0] if found.end > s_end else j
            if j_end != j and 0 <= j_end < len(sentence_words):  # "98. 7 per cent of cases": both halves
                words = {**dict.fromkeys(words), **dict.fromkeys(sentence_words[j_end])}  # type: ignore[arg-type]
            if names_age_group(source, found):
                # "Under-12s travel free" speaks of children under 12: the people the claim names
                words = {**dict.fromkeys(words), **dict.fromkeys(map(word_stem, PEOPLE_WORDS))}  # type: ignore[arg-type]
            if mention.kind == "ordinal" and found.kind != "ordinal" and _ranks(claim, mention) \
                    and not _labelled(source, found.start):
                # "finished second" is not stated by "finished fourth, two places behind": a rank is stated
                # as one ("2nd", "second"), or as a label's number ("No. 2", "place 2")
                failures.append((0, f"{describe(mention)} only as {shown!r}, not as a rank"))
                continue
            # 1. unit or noun: a different unit fails; no unit fails unless the sentence names the
            # claim's unit and gives it to no other number ("a rise of 8.3 (inches)" passes, "400 IU
            # ... 200 mg" does not for 400 mg); a noun fails when the sentence names it, but not next
            # to this number ("330 paintings and 12 sculptures" for 12 paintings)
            if wanted.units and not wanted.units & got.units and i not in converted and (
                got.units
                or not any(word_stem(u) in words for u in wanted.units)  # type: ignore[operator]
                or any(wanted.units & attached(k).units for k in range(len(mentions))
                       if k != i and s_start <= mentions[k].start < s_end)  # fmt: skip
            ):
                named = " ".join(wanted.words) or next(iter(wanted.units))
                failures.append((0, f"{describe(mention)} only as {shown!r}, not with {named!r}"))
                continue
            said_half, got_half = _meridiem(mention.text), _meridiem(found.text)
            if said_half and got_half and said_half != got_half:  # "8 pm" is not "8 am"
                failures.append((0, f"{describe(mention)} only as {_quote(found.text)!r}"))
                continue
            if _in_points(claim, mention) != _in_points(source, found) \
                    and (mention.kind == "percent" or found.kind == "percent" or _in_points(claim, mention)):
                # "grew by 25 percentage points" is not "grew by 25 percent" (from 8 % to 10 % is 25 percent)
                points = _POINTS.match(source, found.end)
                shown = _quote(source[found.start : points.end() if points else found.end])
                failures.append((0, f"{describe(mention)} only as {shown!r}, "
                                    f"not in {'percentage points' if _in_points(claim, mention) else 'percent'}"))  # fmt: skip
                continue
            said_before, got_before = boundary_before(claim, mention.start), boundary_before(source, found.start)
            if said_before and got_before and frozenset((said_before, got_before)) in _CONFLICTING_BOUNDARIES:
                # "increased by 5 %" is not "increased to 5 %"; "accepted until June 30" is not "from June 30"
                failures.append((0, f"{describe(mention)} only as {_quote(source[max(0, found.start - 12):found.end])!r},"
                                    f" not {said_before!r} it"))  # fmt: skip
                continue
            if other_rate := _other_rate(claim, mention.end, source, found.end, word_stem):
                # "10 euros per month" is not stated by "10 euros per user per month": a rate is per what
                # the source says it is per (a source that gives no rate is left to the other checks);
                # "5 tonnes a day" is not stated by "5 tonnes a week"
                failures.append((0, f"{describe(mention)} only as {_quote(source[found.start:found.end + 40])!r}, "
                                    f"not {other_rate}"))  # fmt: skip
                continue
            claimed_dim = dimension(wanted.words) if wanted.units else None
            if claimed_dim and (got_dim := dimension(got.words)) and got_dim != claimed_dim:
                # "330 metres wide" is not stated by "330 metres tall": the same unit, another measure
                failures.append((0, f"{describe(mention)} only as {shown!r}, not {' '.join(wanted.words)!r}"))
                continue
            others = [k for k, o in enumerate(mentions) if s_start <= o.start < s_end and o is not found
                      and not states_value(mention, o)]  # the sentence's other numbers  # fmt: skip
            if claimed_qualifier and others and (got_q := _range_qualifier(source, i, mentions, word_stem, bare=True)) \
                    and got_q[0] == claimed_qualifier[0] and not got_q[1] & claimed_qualifier[1] and any(
                        (q := qualifier_after(source, mentions[k].end, word_stem)) and q[0] == claimed_qualifier[0]
                        and q[1] & claimed_qualifier[1] for k in others):  # fmt: skip
                # "opens at 9 am on Sundays" is not stated by "9 am on weekdays and 11 am on Sundays": the
                # source says the value of something else and gives the claim's thing another number
                said = _said_with(source, found, got_q[2])
                other_said = claimed_qualifier[2]
                failures.append((0, f"{describe(mention)} only as {said!r}, and another number {other_said!r}"))
                continue
            if claimed_qualifier and (got_q := _range_qualifier(source, i, mentions, word_stem)) \
                    and _other_of_the_same(claimed_qualifier, got_q):
                # "rose 5 % in the second quarter" is not stated by "rose 5 % in the first quarter": the same
                # thing ("quarter"), another one of it
                said = _said_with(source, found, got_q[2])
                failures.append((0, f"{describe(mention)} only as {said!r}, not {claimed_qualifier[2]!r}"))
                continue
            if claimed_verb and others and (got_verb := word_before(source, found.start)) \
                    and word_stem(got_verb) not in claim_stems and any(
                        (v := word_before(source, mentions[k].start)) and word_stem(v) == word_stem(claimed_verb)
                        for k in others):  # fmt: skip
                # "included 500 patients" is not stated by "screened 500 patients and included 320": the
                # value belongs to another verb, and the claim's verb has its own number (a word of the
                # claim's own before the value is no other verb: "its battery 60 grams")
                failures.append((0, f"{describe(mention)} only as {got_verb + ' ' + found.text!r}, and another "
                                    f"number as {claimed_verb!r}"))  # fmt: skip
                continue
            if claimed_verb and others and (doer := _doer(claim, mention.start, word_stem)) \
                    and (got_verb := word_before(source, found.start)) and word_stem(got_verb) == word_stem(claimed_verb) \
                    and not doer & _doer(source, found.start, word_stem) and any(
                        (v := word_before(source, mentions[k].start)) and word_stem(v) == word_stem(claimed_verb)
                        and doer & _doer(source, mentions[k].start, word_stem) for k in others):  # fmt: skip
                # "Amira Dossou scored 6.5 points" is not stated by "Viktor Salo scored 6.5 points and Amira Dossou
                # scored 5 points": the same verb, another doer, and the claim's doer has a number of their own
                said = _quote(source[max(s_start, found.start - 40) : _past_unit(source, found.end)].strip())
                named = " ".join(dict.fromkeys(w for w in _WORDS.findall(claim[c_start : mention.start])
                                               if word_stem(w.casefold()) in doer))  # as the claim writes it
                failures.append((0, f"{describe(mention)} only as {said!r}, and another number for {named!r}"))
                continue
            if whose := _other_subject(claim, (c_start, c_end), mention, stated, source, (s_start, s_end),
                                       found, mentions, sentence_of, attached, wanted, word_stem):
                # "The Kestrel 7 has a battery life of 12 hours" is not stated by "The Kestrel 5 has a battery
                # life of 12 hours, while the Kestrel 7 lasts 9 hours": the value is another name's, and the
                # claim's name has a value of its own in the same unit
                failures.append((0, f"{describe(mention)} only of {whose[0]!r}, and another number for {whose[1]!r}"))
                continue
            owner = (_elided_owner(source, found, mentions, others, attached, wanted, word_stem)
                     if claim_subject else frozenset())  # fmt: skip
            if owner & claim_subject and not owner & claim_words(source[s_start:found.start], word_stem):
                # "The battery weighs 450 grams" is not stated by "The phone weighs 450 grams and its battery 60
                # grams": the verb left out, the next thing named is given its own value of the same unit
                said = _quote(source[s_start : _past_unit(source, found.end)].strip())
                named = " ".join(_claim_words_as_written(claim, owner, word_stem))
                failures.append((0, f"{describe(mention)} only as {said!r}, and another number for {named!r}"))
                continue
            changed = _value_before_change(source, found) or (
                None if states_past(claim) or _PAST_MARK.search(claim) else _value_held_before(source, found))
            if changed and not _SPEAKS_OF_CHANGE.search(claim):
                # "The fee is $45" is not stated by "raised its fee from $45 to $52": the value it had before
                failures.append((0, f"{describe(mention)} only as the value before a change ({_quote(changed, 70)!r})"))
                continue
            got_change = changed_by(source, found.start) if claimed_change else None
            if claimed_change and got_change and claimed_change[0] not in got_change[1] and claimed_change[0] in words \
                    and got_change[0] not in all_claim_words:  # type: ignore[operator]
                # "reduced mortality by 30 %" is not stated by "reduced hospital stays by 30 % ... mortality":
                # what changed by this amount is named with it; "Mortality was reduced by 30 %" (the
                # source's thing is the claim's) and "sea levels by 7 m" / "sea level would rise by 7 m"
                # (the claim's thing is in the source's clause) pass
                said = _quote(source[source.rfind(" ", s_start, max(s_start, found.start - 30)) + 1 : found.end])
                named = (_claim_words_as_written(claim, frozenset({claimed_change[0]}), word_stem) or [claimed_change[0]])[0]
                failures.append((0, f"{describe(mention)} only as {said!r}, not for {named!r}"))
                continue
            if not wanted.units and wanted.stems and not wanted.stems & got.stems and any(
                w in words for w in run  # type: ignore[operator]
            ) and not wanted.stems & _partitive(source, s_start, found.start, word_stem) \
                    and not wanted.stems & _part_of(source, found.end, word_stem) \
                    and not _gapped(i, got, mentions, attached, s_start, wanted.stems):
                failures.append((0, f"{describe(mention)} only as {shown!r}, not with {' '.join(wanted.words)!r}"))
                continue
            # 2. the sentence is about the claim's subject
            if context and not any(w in words for w in context):  # type: ignore[operator]
                absent = ", ".join(repr(w) for w in _claim_words_as_written(claim, context, word_stem)[:3])
                failures.append((1, f"{describe(mention)} only in a sentence about something else "
                                    f"({_quote(source[s_start:s_end], 80)!r}, without {absent})"))  # fmt: skip
                continue
            # 3. the year it is dated with
            if years_in_claim and mention.kind != "year" and (direct := year_after(source, found.end)):
                # "8 % in 2022 and 12 % in 2023": the year right after a value ("12 % in 2023") dates it,
                # however near the previous one is
                if direct in years_in_claim:
                    passed += [j] if j_end == j else [j, j_end]
                    passed_at.append(i)
                    continue
                claimed_years = " or ".join(sorted(years_in_claim))
                failures.append((2, f"{describe(mention)} with the year {direct!r}, not {claimed_years}"))
                continue
            if years_in_claim and mention.kind != "year":
                near = sorted((abs(y.start - found.start), k) for k, y in enumerate(mentions)
                              if y.kind == "year" and y is not found and s_start <= y.start < s_end
                              and abs(y.start - found.start) <= YEAR_WINDOW * 30)[:4]  # fmt: skip
                dated = [(_word_distance(source, mentions[k].start, found.start), mentions[k]) for _, k in near]
                dated = [(d, y) for d, y in dated if d <= YEAR_WINDOW]
                if dated:
                    nearest = min(d for d, _ in dated)
                    if not any(y.keys & years_in_claim for d, y in dated if d == nearest):
                        year = next(y for d, y in dated if d == nearest)
                        failures.append((2, f"{describe(mention)} with the year {year.text!r}, not "
                                            f"{' or '.join(sorted(years_in_claim))}"))  # fmt: skip
                        continue
            passed += [j] if j_end == j else [j, j_end]
            passed_at.append(i)
        alone = sum(c_start <= m.start < c_end and m.kind != "year" for m in stated) == 1
        if passed and alone:  # a claim sentence with one number: is the value the one its subject has?
            rival = _rival(source, mention, wanted, context, passed, mentions, sentences, sentence_words, attached)
            if rival is None:
                rival = _clause_rival(claim, source, mention, wanted, context, passed_at, mentions, sentence_of, attached,
                                      word_stem)  # fmt: skip
            if rival is None:
                continue
            failures = [(3, rival)]
        elif passed:
            continue
        rank = max(r for r, _ in failures)
        detail = next(d for r, d in failures if r == rank)
        kind = {0: "unit" if wanted.units else "noun", 1: "sentence", 2: "year", 3: "rival"}[rank]
        problems.append(NumberProblem(mention, kind, detail))
    return problems


_RANK_LABELS = frozenset({"place", "position", "rank", "ranked", "no", "number", "#"}) | LABEL_WORDS
# a source that states a place in a ranking as an ordinal ("came third", "finished 4th")
_STATES_RANK = re.compile(RANKED.pattern.removesuffix(r"\s+$") + r"\s+(?:" + "|".join(ORDINALS)
                          + r"|\d+(?:st|nd|rd|th))\b", re.IGNORECASE)  # fmt: skip


def _ranks(claim: str, mention: NumberMention) -> bool:
    """Whether the claim's ordinal is a place in a ranking ("finished second", "came 3rd"): an ordinal
    that names ("the Fourth Assessment Report") or orders ("the third phase") may be written as a count."""
    return RANKED.search(claim, max(0, mention.start - 24), mention.start) is not None


def _labelled(source: str, start: int) -> bool:
    """Whether the source number at `start` follows a label ("No. 2", "season 3", "place 2", "#2")."""
    before = re.findall(r"[^\W\d_]+|#", source[max(0, start - 20) : start])
    return bool(before) and before[-1].casefold() in _RANK_LABELS


# "450 grams and its battery 60 grams": a joined clause whose verb is left out, a thing and its own value
_ELIDED = re.compile(r"\s*,?\s*(?:and|while|whereas|but)\s+(?:its|the|their|his|her)?\s*((?:[^\W\d_]+\s+){1,2})$")


def _elided_owner(source: str, found: NumberMention, mentions: Sequence[NumberMention], others: list[int], attached,
                  wanted: Attached, word_stem) -> frozenset[str]:  # fmt: skip
    """The stems of the thing named right before the next number of the same unit when only "and (its)
    THING" lies between it and the value's unit ("450 grams and its battery 60 grams" -> {batteri})."""
    end = _past_unit(source, found.end)
    for k in others:
        other = mentions[k]
        if other.start <= end or not attached(k).units & wanted.units:
            continue
        m = _ELIDED.match(source, end, other.start)
        if m is None:
            return frozenset()
        return frozenset(word_stem(w) for w in m.group(1).split() if _content(w))
    return frozenset()


def _gapped(i: int, got: Attached, mentions: Sequence[NumberMention], attached, s_start: int,
            stems: frozenset[str]) -> bool:  # fmt: skip
    """Whether the i-th source value is bare and an earlier value of its sentence is stated with `stems`:
    "40,000 visitors in 2021 and 52,000 in 2022" leaves out the noun of 52,000, which counts visitors too."""
    if got.words or mentions[i].kind == "year":
        return False
    return any(stems & attached(k).stems for k in range(i)
               if mentions[k].start >= s_start and mentions[k].kind != "year")  # fmt: skip


# "Of 500 patients screened, 320 were enrolled": the value counts what the "of" phrase before it names
_PARTITIVE = re.compile(r"\b[Oo]f\s+(?:the\s+|these\s+|those\s+)?(?:[\d,.]+\s+)?([^\W\d_]+)[^,;:.]*,\s*$")


def _partitive(source: str, start: int, pos: int, word_stem) -> frozenset[str]:
    """The stem of what an "Of (N) NOUN ...," phrase right before the value at `pos` names, else empty."""
    m = _PARTITIVE.search(source, max(start, pos - 120), pos)
    return frozenset({word_stem(m.group(1))}) if m else frozenset()


# "Two of the five flights": the value counts the noun after "of (the) (N)" ("nine in ten" is a rate)
_PART_OF = re.compile(r"\s+(?:of|out\s+of)\s+(?:the\s+|its\s+|their\s+|our\s+|these\s+|those\s+)?"
                      r"(?:[\d,.]+\s+|(?:" + "|".join(sorted(_NUMBER_WORDS)) + r")\s+)?([^\W\d_]+)", re.IGNORECASE)


def _part_of(source: str, end: int, word_stem) -> frozenset[str]:
    """The stem of the noun a value is a part of, right after it ("Two of the five flights": flight)."""
    m = _PART_OF.match(source, end)
    return frozenset({word_stem(m.group(1))}) if m else frozenset()


def _same_frequency(claim: str, mention: NumberMention, source: str) -> bool:
    """Whether a claim number is a frequency ("twice a year", "every six months") the source states as the
    same interval in the other way of writing it."""
    mine = {i for a, b, i in recurrences(claim) if a <= mention.start < b}
    if not mine:
        return False
    # the source's recurrence must be said of the claim's thing ("The board meets twice a year" is not "its audit
    # committee meets every six months")
    return any(interval in mine and said_of(claim, source, a, b) for a, b, interval in recurrences(source))


# A share written two ways: "one in four", "25 percent", "a quarter" (a percent rounded: "33 percent" is a third)
_SHARE_TOLERANCE = Fraction(1, 200)
_WORD_SHARE = re.compile(r"\b(a|an|one|two|three|four|five|six|seven|eight|nine|\d+)\s+(" + "|".join(FRACTION_WORDS)
                         + r")\b", re.IGNORECASE)  # fmt: skip
_IN_SHARE = re.compile(r"\b([^\W_]+)\s+(?:in|out\s+of)\s+(?:every\s+)?([^\W_]+)\b", re.IGNORECASE)
_IN_BEFORE = re.compile(r"\b([^\W_]+)\s+(?:in|out\s+of)\s+(?:every\s+)?$", re.IGNORECASE)
_IN_AFTER = re.compile(r"\s+(?:in|out\s+of)\s+(?:every\s+)?([^\W_]+)\b", re.IGNORECASE)


def _count(word: str) -> Fraction | None:
    """The value of one number word or numeral ("a", "one": 1), else None."""
    if word.casefold() in ("a", "an"):
        return Fraction(1)
    found = single_number(word)
    return Fraction(_as_number(found.value)) if found is not None and found.text == word else None


def _claim_share(claim: str, mention: NumberMention) -> Fraction | None:
    """The share a claim number states: "25 percent" -> 1/4, either number of "one in four" -> 1/4, "three
    quarters" -> 3/4."""
    if mention.kind == "percent":
        return Fraction(_as_number(mention.value)) / 100
    if (m := _WORD_SHARE.match(claim, mention.start)) and (n := _count(m.group(1))):
        return n / FRACTION_WORDS[m.group(2).casefold()]
    if (m := _IN_BEFORE.search(claim, max(0, mention.start - 30), mention.start)) and (n := _count(m.group(1))):
        return n / Fraction(_as_number(mention.value)) if mention.value else None
    if (m := _IN_AFTER.match(claim, mention.end)) and (d := _count(m.group(1))):
        return Fraction(_as_number(mention.value)) / d
    return None


def _source_shares(source: str) -> list[tuple[Fraction, bool]]:
    """The shares a source states, each with whether it is a percent: "a quarter", "two thirds", "half",
    "one in four", "25 percent"."""
    out = [n / FRACTION_WORDS[m.group(2).casefold()] for m in _WORD_SHARE.finditer(source) if (n := _count(m.group(1)))]
    out += [Fraction(1, 2)] if re.search(r"\bhalf\b", source, re.IGNORECASE) else []
    out += [n / d for m in _IN_SHARE.finditer(source) if (n := _count(m.group(1))) and (d := _count(m.group(2)))]
    return [(f, False) for f in out] + [(Fraction(_as_number(m.value)) / 100, True) for m in extract_numbers(source)
                                        if m.kind == "percent"]  # fmt: skip


def _same_share(a: Fraction, a_percent: bool, b: Fraction, b_percent: bool) -> bool:
    """Whether two shares are one written two ways: equal, or a percent rounding a share no percent writes
    exactly ("33 percent", "a third"). Two percents are the numbers check's to compare, not this."""
    if a_percent and b_percent:
        return False
    if a == b:
        return True
    other = b if a_percent else a if b_percent else None
    return other is not None and 100 % other.denominator != 0 and abs(a - b) <= _SHARE_TOLERANCE


def convertible(claim: str, stated: Sequence[NumberMention]) -> bool:
    """Whether a claim number is stated with a unit another unit can state ("2 kg": "2,000 grams")."""
    return any(not m.hedge and any(in_base_unit(1, u) for u in claim_attached(claim, m, stated).units) for m in stated)


# a year: four digits not followed by a noun they count ("1550 residents") or a percent
_YEAR = re.compile(r"(?<![\d.,])(1\d{3}|20\d\d)(?![\d,]|\.\d|\s*(?:%|percent|per\s+cent)|\s+(?!(?:and|or|but|by|to|"
                   r"when|as|after|before|until|in|on|at|the|with|for|from|it|he|she|they|its|their|a|an)\b)[a-z])")
_CENTURY = re.compile(r"\s*(?:-|\s)?centur(?:y|ies)\b", re.IGNORECASE)
# the century or decade is a date: "in the (late) 19th century", "during the 1880s", "since the mid 1970s"
_AS_DATE = re.compile(r"\b(?:in|during|by|since|from|until|till|through|throughout)\s+the\s+"
                      r"(?:(early|mid|middle|late)[\s-]*)?$", re.IGNORECASE)


def _dated_within(claim: str, mention: NumberMention, source: str, span: tuple[int, int], word_stem) -> bool:
    """Whether the source gives a year within `span` to what the claim dates: a year after the claim's verb
    when the source has it ("built in the 19th century" against "built in 1925, restored in 1887": 1925
    only), else any year of the source."""
    before = _WORDS.findall(claim[max(0, mention.start - 60) : mention.start])
    verbs = [w for w in before[:-2] if w.islower() and _content(w)]  # the words before "in the (late)"
    verb = word_stem(verbs[-1]) if verbs else None
    years = []
    if verb:
        for m in _WORDS.finditer(source):
            if word_stem(m.group(0).casefold()) == verb:  # the verb's own phrase, up to a punctuation mark
                stop = re.search(r"[,;.!?]\s|$", source[m.end() : m.end() + 40])
                years += _YEAR.findall(source, m.end(), m.end() + (stop.start() if stop else 40))
    if not years:
        years = _YEAR.findall(source)
    return any(span[0] <= int(y) <= span[1] for y in years)


def _years_meant(claim: str, mention: NumberMention) -> tuple[int, int] | None:
    """The years a century or a decade the claim dates something by spans ("in the nineteenth century":
    1800-1900, "in the late 19th century": 1866-1900, "during the 1880s": 1880-1889); None for any other
    number, and for a century or decade that is no date ("the 20th-century average")."""
    as_date = _AS_DATE.search(claim, max(0, mention.start - 30), mention.start)
    if as_date is None:
        return None  # "the 20th-century average": a thing of the century, not a date the source may give
    part = (as_date.group(1) or "").lower()
    if mention.kind == "ordinal" and _CENTURY.match(claim, mention.end) and 1 <= mention.values[0] <= 21:
        lo = (int(mention.values[0]) - 1) * 100
        return {"early": (lo, lo + 34), "mid": (lo + 33, lo + 67), "middle": (lo + 33, lo + 67),
                "late": (lo + 66, lo + 100)}.get(part, (lo, lo + 100))  # fmt: skip
    if mention.kind == "year" and mention.text.endswith("s") and int(mention.values[0]) % 10 == 0:
        lo = int(mention.values[0])
        if lo % 100 == 0:
            return (lo, lo + 99)  # "the 1900s" may be the century
        return {"early": (lo, lo + 3), "mid": (lo + 3, lo + 7), "middle": (lo + 3, lo + 7),
                "late": (lo + 6, lo + 9)}.get(part, (lo, lo + 9))  # fmt: skip
    return None


def _words_before(text: str, start: int, n: int) -> tuple[str, ...]:
    """The last n words before position start, case-folded."""
    return tuple(w.casefold() for w in _WORDS.findall(text[max(0, start - 60) : start])[-n:])


_DURATIONS = frozenset({"second", "minute", "hour", "day", "week", "month", "year"})
# "for 24 months", "a 24-month warranty", "a warranty of 24 months": a duration said without the claim's verb
_DURATION_PREPOSITIONS = frozenset({("for",), ("over",), ("within",), ("of",), ("a",), ("an",)})
# verbs that say how long a thing is ("lasts", "takes", "runs")
_DURATION_VERBS = frozenset(stem(w) for w in ("last", "lasts", "lasted", "take", "takes", "took", "run", "runs", "ran"))
# verbs that say what a thing holds ("holds 0.5 g" is "contains 500 mg")
_CONTAINING = frozenset(stem(w) for w in ("hold", "holds", "contain", "contains", "has", "have", "include", "includes",
                                          "provide", "provides", "deliver", "delivers"))
# a preposition right before both numbers ties them to the same change or limit ("cut to", "shortened to")
_LINKING = frozenset({("to",), ("by",), ("from",)})


_APPROX_BEFORE = re.compile(r"\b(?:about|approximately|approx\.?|around|roughly|nearly|almost|some|circa|an\s+estimated)\s*$",
                            re.IGNORECASE)


def _converted(claim: str, mention: NumberMention, wanted: Attached, source: str, mentions: Sequence[NumberMention],
               attached, word_stem) -> frozenset[int]:  # fmt: skip
    """The source numbers that state the claim's amount in another unit of the same measure ("2 kg" in "2,000
    grams", "90 minutes" in "1.5 hours"): exact metric and time conversions only (text.numbers.CONVERSIONS).
    Where the claim has a verb right before its number ("weighs 2 kg"), the source's must follow the same verb:
    a converted amount is read more narrowly than the same figure ("2,000 grams heavier" is not a weight)."""
    claimed = {b for u in wanted.units for v in mention.values if (b := in_base_unit(v, u)) is not None}
    if not claimed:
        return frozenset()
    # a bound ("more than 4 grams") is stated in another unit only with the same hedge before it; "about 2.5
    # hours" is met by 150 minutes, said plainly or roughly, after the claim's verb ("takes about")
    hedge = _words_before(claim, mention.start, 2) if mention.hedge and mention.hedge != "approx" else None
    approx = _APPROX_BEFORE.search(claim, 0, mention.start) if mention.hedge == "approx" else None
    start = approx.start() if approx else mention.start
    verb = None if hedge else word_before(claim, start)
    # a duration is said with many verbs ("spent two days incubating" against "incubated for 48 hours"): after
    # "for" / "over" / "within" in the source it needs no verb of the claim's
    duration = bool(wanted.units & _DURATIONS)
    found = set()
    preposition = _words_before(claim, mention.start, 1)
    for k, other in enumerate(mentions):
        said_with = word_before(source, other.start) or ""
        if verb and word_stem(said_with) != word_stem(verb) \
                and not (duration and _words_before(source, other.start, 1) in _DURATION_PREPOSITIONS) \
                and not (duration and {word_stem(verb), word_stem(said_with)} <= _DURATION_VERBS) \
                and not {word_stem(verb), word_stem(said_with)} <= _CONTAINING \
                and not (preposition in _LINKING and _words_before(source, other.start, 1) == preposition):  # fmt: skip
            # ("lasts an hour and a half" is "takes 90 minutes"; "cut to 21,000 metres" is "shortened to 21 km")
            continue
        if hedge and _words_before(source, other.start, 2) != hedge:
            continue
        units = attached(k).units
        if any(in_base_unit(v, u) in claimed for u in units for v in other.values):
            found.add(k)
    return frozenset(found)


def _rival(source: str, mention: NumberMention, wanted: Attached, context: frozenset[str], passed: list[int],
           mentions: Sequence[NumberMention], sentences: Sequence[tuple[int, int]],
           sentence_words: Sequence[object], attached) -> str | None:  # fmt: skip
    """4. the best sentence: when another sentence holds more of the claim's words than every sentence
    that states the value (at least two), and states the same unit or noun with another value, the
    value belongs to something else: "returns within 30 days ... for a full refund" against "refunds
    are processed within five business days", for "refunds are processed within 30 business days".
    Returns the reason's wording, or None."""
    if not context or not (wanted.units or wanted.stems) or not sentences or min(passed) < 0:
        return None
    scores = [sum(w in words for w in context) for words in sentence_words]  # type: ignore[operator]
    found = max(scores[j] for j in passed)
    best = max(scores)
    if best < 2 or best <= found:
        return None
    for b, score in enumerate(scores):
        if score != best:
            continue
        b_start, b_end = sentences[b]
        for k, other in enumerate(mentions):
            if not b_start <= other.start < b_end or states_value(mention, other):
                continue
            got = attached(k)
            if (wanted.units & got.units) if wanted.units else (wanted.stems & got.stems):
                stated = _quote(source[other.start : max(got.end, other.end)], 40)
                return (f"{describe(mention)} only about something else; about the claim's subject it "
                        f"states {stated!r} ({_quote(source[b_start:b_end], 80)!r})")  # fmt: skip
    return None


# where one clause of a sentence ends and the next, about something else, begins
_CLAUSE_BREAK = re.compile(r"\s*(?:;|,\s*(?:and|but|while|whereas)\b|\b(?:while|whereas)\b)\s*", re.IGNORECASE)


def _clause(text: str, start: int, stop: int, pos: int) -> tuple[int, int]:
    """The clause of text[start:stop] that holds position pos."""
    a, b = start, stop
    for m in _CLAUSE_BREAK.finditer(text, start, stop):
        if m.end() <= pos:
            a = m.end()
        elif m.start() >= pos:
            b = m.start()
            break
    return a, b


# "raised its fee from $45 to $52", "cut the price from 30 euros to 25": the value before a change
_CHANGE_FROM = re.compile(
    r"\b(?:rais|increas|rose|rise|ris|cut|reduc|lower|drop|fell|fall|chang|went\s+(?:up|down)|grew|grow|jump|climb|"
    r"doubl|halv|extend|shorten|mov|switch)\w*\b[^.;!?]{0,60}?\bfrom\s+$",
    re.IGNORECASE,
)
_TO_AFTER = re.compile(r"\s*(?:[^\W\d_]+\s+){0,2}?to\s+[$€£¥]?\s*\d", re.IGNORECASE)
# a claim that speaks of the change or the past itself ("was $45", "rose from", "previously", "until March")
_SPEAKS_OF_CHANGE = re.compile(
    r"\b(?:from|was|were|previously|formerly|used\s+to|before|until|originally|initially|had\s+been|old|earlier|"
    r"rais\w*|increas\w*|rose|cut|reduc\w*|lower\w*|dropp?\w*|fell|chang\w*|grew|jump\w*|climb\w*)\b",
    re.IGNORECASE,
)


def _value_before_change(source: str, found: NumberMention) -> str | None:
    """The source's words when `found` is the "from" value of a change stated right there ("raised its
    standard monthly membership fee from $45 to $52"), else None."""
    before = _CHANGE_FROM.search(source, max(0, found.start - 90), found.start)
    to = _TO_AFTER.match(source, _past_unit(source, found.end)) if before else None
    return source[before.start() : to.end() + 6] if before and to else None


def _value_held_before(source: str, found: NumberMention) -> str | None:
    """The source's words when `found` held until a time or in the past, before another value of the same
    measure now ("ran every 20 minutes until May; it now runs every 30 minutes", "used to cost $45 and now
    costs $52", "is now $52, up from $45"), else None. Not "20% off until Sunday, and the store is now open 7
    days a week": the value now is of another measure."""
    now = _NOW_AFTER.match(source, found.end)
    if now is None or not (_UNTIL.match(source, found.end)
                           or _FORMERLY.search(source, max(0, found.start - 50), found.start)):  # fmt: skip
        # the value now first: "The fee is now $52, up from $45" / "formerly $45"
        now = _NOW_BEFORE.search(source, max(0, found.start - 90), found.start) or _IS_BEFORE.search(
            source, max(0, found.start - 90), found.start)
        if now is None:
            return None
    end = found.start if now.end() <= found.start else now.end() + 30  # the value now, not `found` itself
    after_now = source[now.start(1) : end]
    later = [m for m in extract_numbers(after_now) if m.kind == found.kind]
    if not later or _measure_of(after_now, later[0]) != _measure_of(source, found):
        return None
    start = source.rfind(" ", 0, max(0, found.start - 30)) + 1
    return source[start : max(now.end(), _past_unit(source, found.end)) + 6]


def _measure_of(text: str, m: NumberMention) -> str:
    """A value's unit, else the word right after it ("20 minutes" -> minute, "3 mills" -> mill); a time
    of day is one measure."""
    return "time" if m.kind == "time" else value_measure(text, m)[0]


# "... until May; it now runs every 30 ...": after the value, in its sentence, a "now" and another number
_NOW_AFTER = re.compile(r"[^.!?]{0,90}?\b(now|currently|today|these\s+days|since\s+then|from\s+then\s+on)\b"
                        r"[^.!?]{0,40}?\d", re.IGNORECASE)
_UNTIL = re.compile(r"[^.;!?\d]{0,40}?\b(?:until|till|up\s+until|before|last\s+(?:year|month|week))\b",
                    re.IGNORECASE)
_FORMERLY = re.compile(
    r"(?:\b(?:used\s+to|previously|formerly|originally|initially|in\s+the\s+past|once(?!\s+(?:a|an|per|every|each|"
    r"in|or|more|again|daily|weekly|monthly|yearly|annually)\b))|\b(?:before|until)\s+(?:1[89]|20)\d\d|"
    r"\bin\s+(?:1[89]|20)\d\d\b[^.;!?\d]*\b(?:was|were|had|cost))\b[^.;!?\d]*$",
    re.IGNORECASE,
)
# "now $52, up from $45", "currently 30, formerly 20": a value after the value now
_NOW_BEFORE = re.compile(
    r"\b(now|currently|today|these\s+days)\b[^.;!?]{0,40}?\d[^.;!?]{0,25}?\b(?:up\s+from|down\s+from|formerly|"
    r"previously|compared\s+with|\(\s*(?:it\s+|they\s+)?(?:was|were))\s+[^\w\s]?$",
    re.IGNORECASE,
)
# "The fee is $52, having been $45 until March", "is $52 (it was $45)"
_IS_BEFORE = re.compile(r"\b(is|are)\b[^.;!?]{0,40}?\d[^.;!?]{0,25}?(?:having\s+been|\(\s*(?:it\s+|they\s+)?"
                        r"(?:was|were))\s+[^\w\s]?$", re.IGNORECASE)
# A claim in the past ("The bus ran every 20 minutes in April", "The factory employed 500 people") may state
# the value that held then.
_PAST_MARK = re.compile(r"\b(?:ago|last|once)\b|\bin\s+\d{4}\b", re.IGNORECASE)


_AS_ONE = re.compile(r"\b(?:a\s+single|an?|per|each|every)\s+([^\W\d_]+)", re.IGNORECASE)


def _said_as_one(source: str, claim: str, end: int) -> bool:
    """Whether the source names the unit after the claim's "one" (at `end`) with "a" / "an" / "a single"
    ("one hour" as "an hour", "one month's notice" as "a month's notice")."""
    after = re.match(r"[\s-]+([^\W\d_]+)", claim[end:])
    unit = unit_of(after.group(1)) if after else None
    return unit is not None and any(unit_of(m.group(1)) == unit for m in _AS_ONE.finditer(source))


_ARTICLE_WORDS = frozenset({"the", "a", "an", "its", "their", "our", "his", "her"})
_NOT_SUBJECTS = STOP_WORDS | frozenset({"it", "this", "that", "these", "those", "there", "in", "on", "at", "by", "for",
                                       "from", "after", "before", "during", "since", "until", "of", "with", "as", "if",
                                       "when", "all"})


def _subject_name(text: str, start: int, stop: int) -> tuple[tuple[str, ...], str] | None:
    """The name that opens text[start:stop] and is followed by a lower-case word (its verb), with a model
    number it carries ("The Kestrel 5 has ..." -> (("kestrel", "5"), "Kestrel 5")): after an article, or of
    two words or more; None when the clause opens with anything else ("In 2019 ...", "It lasts ...",
    "Refunds are ...")."""
    toks = [m for m in _TOKEN.finditer(text, start, stop)]
    k = 0
    while k < len(toks) and toks[k].group(0).casefold() in _ARTICLE_WORDS:
        k += 1
    first = k
    while k < len(toks) and (t := toks[k].group(0)) and (
            (t[:1].isupper() and t.isalpha()) or (k > first and t.isdigit() and len(t) <= 4)):  # fmt: skip
        k += 1
    if k == first or k >= len(toks) or not toks[k].group(0).islower() \
            or toks[first].group(0).casefold() in _NOT_SUBJECTS:  # fmt: skip
        return None
    if first == 0 and k - first < 2:
        return None  # "Refunds are ...": a first word is capitalised by its place; "The Osprey", "Kestrel 5" are names
    return tuple(t.group(0).casefold() for t in toks[first:k]), text[toks[first].start() : toks[k - 1].end()]


# a clause that gives a name another's value without a number ("the Kestrel 7 has the same")
_SAME_VALUE = re.compile(r"\b(?:the\s+same|just\s+as|as\s+(?:much|long|fast|many)|match(?:es|ed)?|likewise|equally)\b",
                         re.IGNORECASE)
# a clause that compares or pairs values gives them to several things ("cheaper than the Premium plan, at $9
# versus $24"): its first name is not the owner of each
_PAIRS_VALUES = re.compile(r"\b(?:than|versus|vs|compared|respectively|while|whereas|against)\b", re.IGNORECASE)


def _noun_after(text: str, end: int, word_stem) -> str | None:
    """The stem of the content word right after a number ("42 staff" -> "staff"); "" at a clause's end
    ("employs 17."); None after anything else."""
    m = _TOKEN.search(text, end)
    if m is None or m.group(0) in _STOP_PUNCT:
        return ""
    return word_stem(m.group(0).casefold()) if m.group(0).isalpha() and _content(m.group(0)) else None


def _other_subject(claim: str, claim_span: tuple[int, int], mention: NumberMention, stated: Sequence[NumberMention],
                   source: str, sentence: tuple[int, int], found: NumberMention, mentions: Sequence[NumberMention],
                   sentence_of, attached, wanted: Attached, word_stem) -> tuple[str, str] | None:  # fmt: skip
    """(the source's name, the claim's) when the clause that states the value opens with another name than
    the claim's clause, and a clause that opens with the claim's name states another value of the claim's
    unit (or, with no unit, of the noun after the claim's number, or a bare one: "employs 17."); None
    otherwise, and for a claim clause that pairs or compares values."""
    c_clause = _clause(claim, *claim_span, mention.start)
    if _PAIRS_VALUES.search(claim, *c_clause):
        return None
    noun = None if wanted.units else _noun_after(claim, mention.end, word_stem)
    if not wanted.units and (not noun or _noun_after(source, found.end, word_stem) != noun):
        return None
    for o in stated:  # another value of the same unit or noun in the claim's clause: several owners
        if o is not mention and c_clause[0] <= o.start < c_clause[1] and (
                wanted.units & claim_attached(claim, o, stated).units if wanted.units
                else _noun_after(claim, o.end, word_stem) == noun):  # fmt: skip
            return None
    claimed = _subject_name(claim, *c_clause)
    if claimed is None:
        return None
    if any(o is not mention and c_clause[0] <= o.start < c_clause[1] and o.text.casefold() not in claimed[0]
           for o in stated):  # fmt: skip
        return None  # "have batteries of 12 and 9 hours": two values, two owners
    name = r"\b" + r"\s+".join(map(re.escape, claimed[0])) + r"\b"  # the claim's name, as the source may write it
    if _SAME_VALUE.search(source) and re.search(name + r"[^.;]*" + _SAME_VALUE.pattern, source, re.IGNORECASE):
        return None  # "the Kestrel 7 costs the same", "charges just as fast", "matches that"
    clause = _clause(source, *sentence, found.start)
    got = _subject_name(source, *clause)
    if got is None or claimed[0] == got[0]:
        return None
    if re.search(name, source[clause[0] : clause[1]], re.IGNORECASE):
        return None  # "Last year Acme sold 500 units": the claim's name is in the clause, not its first words
    for k, other in enumerate(mentions):
        if other is found or states_value(mention, other) or other.kind == "year":
            continue
        if wanted.units:
            if not wanted.units & attached(k).units:
                continue
        elif (after := _noun_after(source, other.end, word_stem)) != noun and not (
                # a bare value counts as the noun's after the claim's own verb ("employs 17."), not "is 24."
                after == "" and (verb := word_before(claim, mention.start))
                and word_stem(word_before(source, other.start) or "") == word_stem(verb)):  # fmt: skip
            continue
        theirs = _subject_name(source, *_clause(source, *sentence_of(other.start)[1], other.start))
        if theirs is not None and theirs[0] == claimed[0]:
            return got[1], claimed[1]
    return None


def _names(text: str, word_stem) -> frozenset[str]:
    """The stems of the capitalised content words of text past its first word (names, mostly)."""
    words = [m.group(0) for m in _WORDS.finditer(text)][1:]
    return frozenset(word_stem(w) for w in words if w[:1].isupper() and _content(w))


def _clause_rival(claim: str, source: str, mention: NumberMention, wanted: Attached, context: frozenset[str],
                  passed_at: list[int], mentions: Sequence[NumberMention], sentence_of, attached,
                  word_stem) -> str | None:  # fmt: skip
    """5. the best clause: when each number that states the value sits in a clause about something else,
    and another clause of its sentence holds at least two more of the claim's words and gives the same
    unit or noun another value, the value belongs to something else: "gained 23% more weight than
    controls, and their insulin levels were 40% higher" for "gained 40 percent more weight than controls".
    Returns the reason's wording, or None."""
    clock = mention.kind == "time"  # a time of day: another time is the rival ("starts at 3 pm, ... by 11 am")
    context = context - claim_words(mention.text, word_stem)  # the value's own words ("pm") say nothing of whose
    if not context or not (wanted.units or wanted.stems or clock) or not passed_at:
        return None
    names = _names(claim, word_stem)
    claim_stems = claim_words(claim, word_stem)
    reasons = []
    for i in passed_at:
        s_start, s_end = sentence_of(mentions[i].start)[1]
        a, b = _clause(source, s_start, s_end, mentions[i].start)
        mine = context & claim_words(source[a:b], word_stem)
        best = None
        for k, other in enumerate(mentions):
            if not s_start <= other.start < s_end or a <= other.start < b or states_value(mention, other):
                continue
            got = attached(k)
            if clock:
                if other.kind != "time":
                    continue
            elif not ((wanted.units & got.units) if wanted.units else (wanted.stems & got.stems)):
                continue
            ka, kb = _clause(source, s_start, s_end, other.start)
            theirs = context & claim_words(source[ka:kb], word_stem)
            # more of the claim's words, or the claim's name where the value's own clause has another name
            # ("Sales in Asia grew 12%" against "Sales in Europe grew 12% ..., while sales in Asia grew 5%")
            named = bool((theirs - mine) & names) and bool(_names(source[a:b], word_stem) - claim_stems)
            if len(theirs) >= 2 and (len(theirs) >= len(mine) + 2 or named) and (best is None or len(theirs) > best[0]):
                best = (len(theirs), k, ka, kb)
        if best is None:
            return None  # this statement of the value is about the claim's subject as far as clauses tell
        _, k, ka, kb = best
        stated = _quote(source[mentions[k].start : max(attached(k).end, mentions[k].end)], 40)
        reasons.append(f"{describe(mention)} only about something else ({_quote(source[a:b].strip(), 60)!r}); "
                       f"about the claim's subject it states {stated!r} ({_quote(source[ka:kb].strip(), 80)!r})")
    return reasons[0] if reasons else None


def problems_reason(source_id: str, problems: Sequence[NumberProblem]) -> str:
    """One readable reason for a claim's number problems against one source."""
    absent = [p for p in problems if p.kind == "absent"]
    parts = []
    if absent:
        noun = "number" if len(absent) == 1 else "numbers"
        parts.append(f"{source_id} does not state the {noun} {', '.join(p.detail for p in absent)}")
    parts += [f"{source_id} states {p.detail}" for p in problems if p.kind != "absent"]
    return "; ".join(parts)
