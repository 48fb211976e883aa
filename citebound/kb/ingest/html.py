"""HTML: visible text only. Scripts, styles and other non-content elements are dropped; block elements
end with a blank line so sentences and paragraphs survive, inline elements (<b>, <a>) stay in the flow."""

from __future__ import annotations

import re
from pathlib import Path

from citebound.kb.ingest.text import decode_text

DROPPED = ("script", "style", "noscript", "template", "svg", "head", "iframe", "object")
BLOCKS = (
    "p,div,section,article,header,footer,aside,nav,main,h1,h2,h3,h4,h5,h6,li,dt,dd,br,hr,tr,"
    "blockquote,pre,table,ul,ol,dl,figure,figcaption,caption,address"
)

_BREAK = "\x1e"
_SPACES = re.compile(r"[ \t\r\n\f\v]+")
_MARKS = re.compile(r" ?(?:\x1e ?)+")


def html_to_text(html: str) -> str:
    from selectolax.lexbor import LexborHTMLParser

    tree = LexborHTMLParser(html)
    for node in tree.css(",".join(DROPPED)):
        node.decompose()
    for node in tree.css(BLOCKS):
        node.insert_after(_BREAK)
    root = tree.body or tree.root
    if root is None:
        return ""
    # HTML whitespace is not significant: collapse it, then turn the block markers into blank lines
    flat = _SPACES.sub(" ", root.text(separator=""))
    return _MARKS.sub("\n\n", flat).strip()


def read_html(path: Path) -> str:
    return html_to_text(decode_text(path.read_bytes(), str(path)))
