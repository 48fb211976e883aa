"""Document structure read from the lines of a normalised text: headings, list items, table rows.

Pure functions on offsets into the text they are given (a document version's normalised text or a
chunk of it), so whatever they return can be cut from that text verbatim. The readers keep the line
structure this needs: Markdown is stored as written; HTML is rendered with each heading, list item
(`- item`) and table row (`| a | b |`, a header row followed by `| --- | --- |`) on its own line
(citebound/kb/ingest/html.py).

Line kinds:

- `heading`: a Markdown ATX heading (`## Chunking`); the text line above a setext underline (`===`,
  `---`); or a short line (at most `HEADING_MAX_WORDS` words and `HEADING_MAX_CHARS` characters) with no
  final punctuation that stands alone: a blank line (or the start of the text) before it and a blank
  line after it, with more text to come (an HTML `<h2>` rendered as its own paragraph is one).
- `rule`: a setext underline, a thematic break (`---`, `***`), or a Markdown table's delimiter row.
- `table_header`: a table row directly followed by a delimiter row.
- `table_row`: any other line that starts with `|`.
- `list_item`: a line that starts with `-`, `*`, `+`, `•` or `1.` / `1)` and a space.
- `text`: everything else (`blank` for empty lines).

`segments(text)` refines `sentence_spans` by these lines: a sentence never runs across a heading, a
rule or a table line, and each segment carries the kind of the line it lies on. A segment `introduces`
items when it ends with `:` or speaks of "the following …", and the next non-blank line is a list item
or a table row; `items_end` gives the offset after those items (bounded).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass

from citebound.text.sentences import sentence_spans

HEADING_MAX_WORDS = 12
HEADING_MAX_CHARS = 100
MAX_ITEMS = 8
MAX_ITEM_CHARS = 600

_ATX = re.compile(r"[ ]{0,3}#{1,6}(?:[ \t]|$)")
_SETEXT = re.compile(r"[ ]{0,3}(?:=+|-+)[ \t]*$")
_THEMATIC = re.compile(r"[ ]{0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_TABLE_RULE = re.compile(r"[ ]{0,3}\|?[ \t]*:?-{3,}:?[ \t]*(?:\|[ \t]*:?-{3,}:?[ \t]*)*\|?[ \t]*$")
_LIST_ITEM = re.compile(r"[ \t]*(?:[-*+•]|\d{1,3}[.)])[ \t]+\S")
_FINAL_PUNCT = re.compile(r"[.!?…:;,]['\"”’)\]]*$")
_INTRODUCER = re.compile(r"\bthe following\b|\bas follows\b", re.IGNORECASE)
_WORD = re.compile(r"\w+")

STRUCTURAL = frozenset({"heading", "rule", "table_header"})  # never an answer on their own


@dataclass(frozen=True, slots=True)
class Line:
    start: int
    end: int  # exclusive, before the line's "\n"
    kind: str  # blank | heading | rule | table_header | table_row | list_item | text


@dataclass(frozen=True, slots=True)
class Segment:
    start: int
    end: int
    kind: str  # the kind of the line it starts on (a Line kind other than blank)


def _raw_lines(text: str) -> list[tuple[int, int]]:
    out, pos = [], 0
    while True:
        nl = text.find("\n", pos)
        if nl < 0:
            out.append((pos, len(text)))
            return out
        out.append((pos, nl))
        pos = nl + 1


def _looks_like_title(line: str) -> bool:
    s = line.strip()
    return (0 < len(s) <= HEADING_MAX_CHARS and len(_WORD.findall(s)) <= HEADING_MAX_WORDS
            and not _FINAL_PUNCT.search(s) and _WORD.search(s) is not None)


def lines(text: str) -> list[Line]:
    """Every line of `text` with its kind (see the module docstring)."""
    raw = _raw_lines(text)
    strs = [text[a:b] for a, b in raw]
    n = len(raw)
    kinds: list[str] = []
    for i, s in enumerate(strs):
        t = s.strip()
        prev_blank = i == 0 or not strs[i - 1].strip()
        if not t:
            kinds.append("blank")
        elif _ATX.match(s):
            kinds.append("heading")
        elif _TABLE_RULE.match(s) and "|" in t:
            kinds.append("rule")
        elif _SETEXT.match(s) and not prev_blank and kinds[i - 1] == "text":
            kinds[i - 1] = "heading"
            kinds.append("rule")
        elif _THEMATIC.match(s):
            kinds.append("rule")
        elif t.startswith("|"):
            nxt = strs[i + 1] if i + 1 < n else ""
            kinds.append("table_header" if _TABLE_RULE.match(nxt) and "|" in nxt else "table_row")
        elif _LIST_ITEM.match(s):
            kinds.append("list_item")
        else:
            kinds.append("text")
    # A short unpunctuated paragraph of one line, with more text after it, is a title.
    for i in range(n):
        if kinds[i] != "text" or not _looks_like_title(strs[i]):
            continue
        prev_blank = i == 0 or kinds[i - 1] in ("blank", "heading", "rule")
        next_blank = i + 1 < n and kinds[i + 1] == "blank"
        more = any(k != "blank" for k in kinds[i + 1:])
        if prev_blank and next_blank and more:
            kinds[i] = "heading"
    return [Line(a, b, k) for (a, b), k in zip(raw, kinds, strict=True)]


def segments(text: str) -> list[Segment]:
    """`sentence_spans(text)` cut at every line boundary next to a heading, rule or table line, each
    piece with the kind of the line it starts on. Offsets are into `text`; whitespace is trimmed."""
    ls = lines(text)
    cuts = []  # offsets where a segment must end: around lines that are not running text
    for ln in ls:
        if ln.kind in ("heading", "rule", "table_header", "table_row"):
            cuts.extend((ln.start, ln.end))
    cuts.sort()
    out: list[Segment] = []
    starts = [ln.start for ln in ls]

    for s, e in sentence_spans(text):
        lo = bisect.bisect_right(cuts, s)
        hi = bisect.bisect_left(cuts, e)
        pieces, pos = [], s
        for c in cuts[lo:hi]:
            pieces.append((pos, c))
            pos = c
        pieces.append((pos, e))
        for a, b in pieces:
            while a < b and text[a].isspace():
                a += 1
            while b > a and text[b - 1].isspace():
                b -= 1
            if b > a:
                kind = ls[bisect.bisect_right(starts, a) - 1].kind
                out.append(Segment(a, b, kind))
    return out


def introduces(text: str, start: int, end: int) -> bool:
    """True when the sentence `text[start:end]` announces a list or a table that follows it: it ends
    with ":" or speaks of "the following" / "as follows", and the next non-blank line is a list item or
    a table row (one blank line in between is allowed)."""
    sentence = text[start:end].rstrip()
    if not (sentence.endswith(":") or _INTRODUCER.search(sentence)):
        return False
    return bool(_items_after(text, end, 1, MAX_ITEM_CHARS * 10))


def _items_after(text: str, end: int, max_items: int, max_chars: int) -> list[Line]:
    """The list-item / table lines after `end` (a continuation line of an item goes with it)."""
    rest_start = text.find("\n", end)
    if rest_start < 0 or text[end:rest_start].strip():
        return []  # the sentence does not end its line
    ls = lines(text)

    i = bisect.bisect_left([ln.start for ln in ls], rest_start + 1)
    if i < len(ls) and ls[i].kind == "blank":
        i += 1
    first = ls[i].kind if i < len(ls) else None
    table = first in ("table_header", "table_row")
    if first not in ("list_item", "table_header", "table_row"):
        return []
    items: list[Line] = []
    n_items = 0
    while i < len(ls):
        ln = ls[i]
        if table:
            if ln.kind not in ("table_header", "table_row", "rule"):
                break
            counts = ln.kind != "rule"
        elif ln.kind == "list_item":
            counts = True
        elif ln.kind == "text" and items and text[ln.start:ln.end][:1] in " \t":
            counts = False  # an indented continuation of the item above
        elif ln.kind == "blank" and i + 1 < len(ls) and ls[i + 1].kind == "list_item" and items:
            i += 1  # a loose list: one blank line between items
            continue
        else:
            break
        if counts and n_items >= max_items:
            break
        if ln.end - end > max_chars and items:
            break
        items.append(ln)
        n_items += counts
        i += 1
    return items


def items_end(text: str, start: int, end: int, max_items: int = MAX_ITEMS, max_chars: int = MAX_ITEM_CHARS) -> int:
    """Where the items announced by the sentence `text[start:end]` stop (whole lines, at most `max_items`
    items and about `max_chars` characters after `end`), or `end` itself when it announces none."""
    if not introduces(text, start, end):
        return end
    items = _items_after(text, end, max_items, max_chars)
    return items[-1].end if items else end


def flatten(text: str, head_end: int) -> str:
    """One line for a span of introducer (`text[:head_end]`) plus the items after it: bullets and table
    pipes become "; "-separated parts, delimiter rows are dropped, each item's own sentences are joined
    with ", ". For an answer claim that must stay one sentence; the quote it cites stays verbatim."""
    head = " ".join(text[:head_end].split())
    body = text[head_end:]
    parts: list[str] = []
    for ln in lines(body):
        s = body[ln.start:ln.end].strip()
        if ln.kind in ("blank", "rule"):
            continue
        if ln.kind == "text" and parts and body[ln.start:ln.end][:1] in " \t":
            parts[-1] = parts[-1] + " " + s  # an indented continuation of the item above
            continue
        if ln.kind in ("table_header", "table_row"):
            s = ", ".join(c.strip() for c in s.strip("|").split("|") if c.strip())
        elif ln.kind == "list_item":
            s = _LIST_ITEM.sub(lambda m: m.group(0)[-1], s, count=1)
        pieces = [s[a:b].rstrip(" .!?…;:") for a, b in sentence_spans(s)]
        s = ", ".join(p for p in pieces if p)
        if s:
            parts.append(s)
    if not parts:
        return head
    return (head if head.endswith(":") else head + ":") + " " + "; ".join(parts)
