"""HTML: visible text only, with its structure kept as lines. Scripts, styles and other non-content
elements are dropped; block elements end with a blank line so sentences and paragraphs survive, inline
elements (<b>, <a>) stay in the flow. Structure is written the way Markdown writes it, so one set of rules
(citebound.text.structure) reads both: a heading (h1–h6) is a paragraph of its own; each list item is a
line `- item`; each table row is a line `| a | b |`, a row of header cells (<th> only) is followed by a
delimiter line `| --- | --- |`, and the table is a block; <br> is a line break."""

from __future__ import annotations

import re
from pathlib import Path

from citebound.kb.ingest.text import decode_text

DROPPED = ("script", "style", "noscript", "template", "svg", "head", "iframe", "object")
BLOCKS = (
    "p,div,section,article,header,footer,aside,nav,main,h1,h2,h3,h4,h5,h6,dt,dd,hr,"
    "blockquote,pre,table,ul,ol,dl,figure,figcaption,caption,address"
)
LINES = "li,tr,br"  # end with a line break, not a blank line

_BREAK = "\x1e"  # a blank line
_LINE = "\x1f"  # a line break
_CELL = "\x1c"  # a table cell starts
_SPACES = re.compile(r"[ \t\r\n\f\v]+")
_MARKS = re.compile(r" ?(?:[\x1e\x1f] ?)+")


def _marks(m: re.Match) -> str:
    return "\n\n" if _BREAK in m.group(0) else "\n"


def _row(line: str) -> str:
    if _CELL not in line:
        return line
    cells = [" ".join(c.split()) for c in line.split(_CELL)[1:]]
    return "| " + " | ".join(cells) + " |"


def html_to_text(html: str) -> str:
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html)
    for node in tree.css(",".join(DROPPED)):
        node.decompose()
    for node in tree.css("td,th"):
        node.insert_before(_CELL)
    for node in tree.css("tr"):
        cells = node.css("td,th")
        if cells and all(c.tag == "th" for c in cells):  # a header row: Markdown's delimiter line after it
            node.insert_after(_LINE + "| " + " | ".join("---" for _ in cells) + " |" + _LINE)
    for node in tree.css("li"):
        node.insert_before(_LINE + "- ")
    for node in tree.css(LINES):
        node.insert_after(_LINE)
    for node in tree.css(BLOCKS):
        node.insert_after(_BREAK)
    root = tree.body or tree.root
    if root is None:
        return ""
    # HTML whitespace is not significant: collapse it, then turn the markers into line breaks
    flat = _MARKS.sub(_marks, _SPACES.sub(" ", root.text(separator="")))
    lines = [_row(line).strip() for line in flat.split("\n")]
    return "\n".join(lines).replace(_CELL, " ").strip()


def read_html(path: Path) -> str:
    return html_to_text(decode_text(path.read_bytes(), str(path)))
