"""A claim the extractive backend writes as "HEAD: SENTENCE" is the source's own when the source states
HEAD and, after it, SENTENCE word for word: the `full` checker settles it as a quote, without the model."""

from __future__ import annotations

import pytest

from citebound.verify.spans import headed_quote
from citebound.verify.checkers import make_checker

SOURCE = ("Queue.put(item, block=True, timeout=None)¶\nPut item into the queue. If optional args block is true "
          "and timeout is None (the default), block if necessary until a free slot is available.")
JOINED = ("Queue.put(item, block=True, timeout=None): If optional args block is true and timeout is None (the "
          "default), block if necessary until a free slot is available.")


def test_a_heading_and_the_sentence_under_it_are_a_quote():
    span = headed_quote(SOURCE, JOINED)
    assert span is not None and SOURCE[span[0] : span[1]].startswith("Queue.put(") and SOURCE[: span[1]].endswith("available")
    v = make_checker("full").check_pair(JOINED, SOURCE)
    assert (v.label, v.stage) == ("supported", "quote")


@pytest.mark.parametrize(
    "claim",
    [
        "If optional args block is true: Queue.put(item, block=True, timeout=None) blocks.",  # order reversed
        "Queue.get(): If optional args block is true and timeout is None (the default), block if necessary.",  # head not there
        "Queue.put(item, block=True, timeout=None): block forever.",  # tail not there, and too short
        "Queue.put(item, block=True, timeout=None): the queue.",  # a tail under min_words
        "No colon here, just a sentence that is not in the source at all.",
    ],
)
def test_anything_else_is_not(claim):
    assert headed_quote(SOURCE, claim) is None
