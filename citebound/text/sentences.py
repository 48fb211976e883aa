"""Sentence splitting that survives real text, returning character offsets into the original.

Rules, in order of precedence:
- a blank line, or a line break before a list item, always ends a sentence;
- `.`, `!`, `?` or an ellipsis, plus any closing quotes/brackets and citation markers (`[1]`, `[S2, S3]`)
  that follow, ends a sentence when whitespace and then a plausible sentence start follow;
- but not after a known abbreviation (Dr., e.g., U.S.), a single initial (J. Smith), or inside a
  number (4.5), and an ellipsis followed by a lower-case word continues the sentence.

Citation markers on either side of the full stop (`days [1].` and `days. [1]`) stay with the sentence
they close, so claims keep their citations.
"""

from __future__ import annotations

import re

# Lower-cased abbreviations (without their final dot) after which a period does not end a sentence.
ABBREVIATIONS = frozenset(
    """
    mr mrs ms dr prof sr jr st mt ft vs etc e.g i.e cf al approx appr dept est fig figs eq eqs no nos vol
    vols pp p ch sec sect art inc ltd co corp llc plc bros gov gen col lt sgt capt cmdr adm rev hon pres
    jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat sun a.m p.m u.s u.k u.n e.u
    ph.d m.d b.a m.a b.sc m.sc dipl ca incl excl min max avg resp viz op ed eds repr
    """.split()
)

# Each branch opens with a literal so the regex engine can skip ahead to the next candidate character
# (a leading repeat or class disables that, and a 100 kB source is scanned at every position). Same
# matches as `(?:\.{3}|…|[.!?]+)`: "..." first, else a run of . ! ?
_TERMINAL = re.compile(
    r"""(?:\.(?:\.\.|[.!?]*)|…|![.!?]*|\?[.!?]*)   # the terminal punctuation
        ["'”’»)\]]*                   # closing quotes or brackets
        (?:\s*\[[^\[\]\n]{1,40}\])*   # citation markers after the full stop: `. [1][2]`
    """,
    re.VERBOSE,
)
_STARTS_SENTENCE = re.compile(r"""["'“‘«(\[]*[A-Z0-9À-ÖØ-Þ•\-*]""")
_HARD_BREAK = re.compile(r"\n[ \t]*\n\s*|\n(?=[ \t]*(?:[-*•]|\d{1,3}[.)])\s)")
_WORD_BEFORE = re.compile(r"([A-Za-z][A-Za-z.]*)$")
_CIRCA_YEAR = re.compile(r"\s+\d{3,4}\b")
_DOTTED_INITIALS = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")


def _is_abbreviation(text: str, dot: int) -> bool:
    """True when the period at `dot` closes an abbreviation or an initial rather than a sentence."""
    match = _WORD_BEFORE.search(text, max(0, dot - 12), dot)
    if not match:
        return False
    word = match.group(1).lower().rstrip(".")
    if word in ABBREVIATIONS:
        return True
    if word == "c" and _CIRCA_YEAR.match(text, dot + 1):  # "c. 1616": circa, before a year
        return True
    # A single capital letter ("J. Smith"), or dotted initials ("U.S.", "e.g.") not in the list.
    token = match.group(1)
    return (len(token) == 1 and token.isupper()) or bool(_DOTTED_INITIALS.fullmatch(token))


def _soft_boundaries(text: str, start: int, end: int) -> list[int]:
    """Offsets inside text[start:end] right after which a sentence ends."""
    cuts: list[int] = []
    for m in _TERMINAL.finditer(text, start, end):
        stop = m.end()
        if stop >= end:
            break
        if not text[stop].isspace():
            continue  # "4.5", "e.g.the", "file.txt": no whitespace, no boundary
        punct = m.group(0)
        nxt = stop  # the next non-space character in the block (walked, not sliced: blocks can be long)
        while nxt < end and text[nxt].isspace():
            nxt += 1
        if nxt >= end:
            break
        if not _STARTS_SENTENCE.match(text, nxt):
            continue  # a lower-case continuation: "e.g. apples", "... and then"
        if punct.startswith(".") and not punct.startswith("...") and _is_abbreviation(text, m.start()):
            continue
        cuts.append(stop)
    return cuts


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """Split `text` into sentences; return (start, end) offsets (end exclusive), whitespace trimmed."""
    spans: list[tuple[int, int]] = []
    blocks: list[tuple[int, int]] = []
    pos = 0
    for m in _HARD_BREAK.finditer(text):
        blocks.append((pos, m.start()))
        pos = m.end()
    blocks.append((pos, len(text)))
    for b_start, b_end in blocks:
        cut_start = b_start
        for cut in [*_soft_boundaries(text, b_start, b_end), b_end]:
            s, e = cut_start, cut
            while s < e and text[s].isspace():
                s += 1
            while e > s and text[e - 1].isspace():
                e -= 1
            if e > s:
                spans.append((s, e))
            cut_start = cut
    return spans


def split_sentences(text: str) -> list[str]:
    """The sentences of `text`, as strings (see `sentence_spans` for offsets)."""
    return [text[s:e] for s, e in sentence_spans(text)]


# where one sentence of an answer goes on to another statement: a semicolon, or a comma before a
# conjunction ("..., so Dr Okafor is recommending a change", "..., and MFA is mandatory")
_CLAUSE_CUT = re.compile(r";\s*|,\s+(?=(?:and|but|so|while|whereas|although|though|yet|with)\s)", re.IGNORECASE)


def clause_parts(sentence: str) -> list[str]:
    """The statements one sentence joins: its parts between semicolons and before ", and" / ", but" /
    ", so" / ", while" / ", with" ...; the conjunction stays at the start of its part. One part when
    nothing joins them. Rules that read "the claim" read each part of a long answer sentence so."""
    parts = [p.strip() for p in _CLAUSE_CUT.split(sentence)]
    return [p for p in parts if p] or [sentence]
