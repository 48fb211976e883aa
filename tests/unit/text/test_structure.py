"""citebound.text.structure on real Markdown and on HTML as the reader renders it: every offset exact."""

from citebound.kb.ingest.html import html_to_text
from citebound.text.structure import flatten, introduces, items_end, lines, segments

MD = """# Datatypes In SQLite

## Storage Classes and Datatypes

Each value stored in an SQLite database has one of the following storage classes:

- NULL. The value is a NULL value.
- INTEGER. The value is a signed integer, stored in 0, 1, 2, 3, 4, 6, or 8 bytes.
- TEXT. The value is a text string, stored using the database encoding.

Maximum Number Of Columns

The maximum number of columns in a table is 2000 by default.

Limits
======

| parameter | value |
|---|---|
| k1 | 1.2 |
| b | 0.75 |

The last paragraph has no list after it.
"""

HTML = """<html><body><h1>Limits In SQLite</h1>
<h2>Maximum Length Of A String</h2>
<p>The maximum number of bytes in a string is set by SQLITE_MAX_LENGTH.</p>
<p>The journal modes are:</p>
<ul><li>DELETE, the default mode</li><li>TRUNCATE, which truncates the journal</li><li>WAL, write-ahead logging</li></ul>
<p>The default limits are the following:</p>
<table><tr><th>Limit</th><th>Default</th></tr><tr><td>SQLITE_MAX_LENGTH</td><td>1000000000</td></tr>
<tr><td>SQLITE_MAX_COLUMN</td><td>2000</td></tr></table>
</body></html>"""


def kinds(text):
    return {text[s.start:s.end]: s.kind for s in segments(text)}


def test_markdown_lines_are_classified():
    k = kinds(MD)
    assert k["# Datatypes In SQLite"] == "heading"
    assert k["## Storage Classes and Datatypes"] == "heading"
    assert k["Maximum Number Of Columns"] == "heading"  # short, unpunctuated, a paragraph of its own
    assert k["Limits"] == "heading"  # setext
    assert k["| parameter | value |"] == "table_header"
    assert k["|---|---|"] == "rule"
    assert k["| k1 | 1.2 |"] == "table_row"
    assert k["- NULL."] == "list_item"
    assert k["The maximum number of columns in a table is 2000 by default."] == "text"
    assert k["The last paragraph has no list after it."] == "text"


def test_segments_are_exact_offsets_and_never_cross_a_heading():
    glued = "## Chunking\nSentences are packed into chunks.\n| a | b |\n| c | d |"
    for text in (MD, html_to_text(HTML), glued):
        for s in segments(text):
            piece = text[s.start:s.end]
            assert piece == piece.strip() and piece
    assert kinds(glued) == {"## Chunking": "heading", "Sentences are packed into chunks.": "text",
                            "| a | b |": "table_row", "| c | d |": "table_row"}


def test_an_introducer_comes_with_its_items():
    start = MD.index("Each value")
    end = MD.index("classes:") + len("classes:")
    assert introduces(MD, start, end)
    stop = items_end(MD, start, end)
    assert MD[start:stop].endswith("stored using the database encoding.")
    assert MD[start:stop].count("\n- ") == 3
    claim = flatten(MD[start:stop], end - start)
    assert "\n" not in claim and claim.startswith("Each value stored") and "TEXT, The value is a text string" in claim


def test_a_sentence_without_a_list_after_it_is_not_an_introducer():
    s = MD.index("The maximum number of columns")
    e = MD.index("by default.") + len("by default.")
    assert not introduces(MD, s, e) and items_end(MD, s, e) == e
    s = MD.index("The last paragraph")
    assert items_end(MD, s, len(MD.rstrip())) == len(MD.rstrip())
    # a colon, but what follows is a paragraph
    text = "Reading it:\n\nThe cascade beats the plain checker."
    assert not introduces(text, 0, len("Reading it:"))


def test_items_are_bounded():
    text = "The options are:\n" + "\n".join(f"- option number {i} does a thing" for i in range(20))
    stop = items_end(text, 0, len("The options are:"), max_items=8)
    assert text[:stop].count("\n- ") == 8
    stop = items_end(text, 0, len("The options are:"), max_chars=100)
    assert 0 < stop - len("The options are:") <= 100 + 40


def test_html_renders_headings_lists_and_tables_as_lines():
    text = html_to_text(HTML)
    assert "\n\nMaximum Length Of A String\n\n" in text
    assert "The journal modes are:\n\n- DELETE, the default mode\n- TRUNCATE, which truncates the journal\n" in text
    assert "| Limit | Default |\n| --- | --- |\n| SQLITE_MAX_LENGTH | 1000000000 |\n| SQLITE_MAX_COLUMN | 2000 |" in text
    k = kinds(text)
    assert k["Limits In SQLite"] == "heading" and k["Maximum Length Of A String"] == "heading"
    assert k["| Limit | Default |"] == "table_header"
    start = text.index("The default limits")
    end = start + len("The default limits are the following:")
    stop = items_end(text, start, end)
    assert text[start:stop].endswith("| SQLITE_MAX_COLUMN | 2000 |")
    assert flatten(text[start:stop], end - start) == (
        "The default limits are the following: Limit, Default; SQLITE_MAX_LENGTH, 1000000000; SQLITE_MAX_COLUMN, 2000")


def test_lines_cover_the_text():
    ls = lines(MD)
    assert "\n".join(MD[ln.start:ln.end] for ln in ls) == MD
