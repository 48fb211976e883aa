"""The order check: a claim must not tell two events of its source in the other order.

"The board voted to postpone the hiring until October and then approved the revised budget" against "The
board first approved the revised budget and then voted to postpone the hiring until October", or "The
wooden town hall was destroyed in a fire after the stone building had been completed" against "After the
fire destroyed the wooden town hall, the stone building was completed in 1893": every word of the claim
is in its source, so word overlap and the entailment model (P = 0.97 and 0.85) call it supported. This
reads, in each sentence of the claim and of the best evidence window, two events joined by a word of
order, in the order they happened:

- "A and then B", "A, then B" ("first A and then B"), "A and later B", "A, followed by B": A, then B;
- "A before B", "Before B, A" ("prior to"): A, then B ("testified before the committee" is a place);
- "B after A", "After A, B": A, then B ("archived after 90 days": 90 days, then archived).

It finds a conflict when the claim's first event is the window's second and its second the window's first:
most of each of the claim's events' content words (three in five) are in the other event of the window's
pair, more than in the same one. A negated claim is left to the negation rule. The cascade runs it after the
kind rule; a conflict makes the source `unsupported` (stage `order`) whatever a model says.
"""

from __future__ import annotations

import re

from citebound.text.sentences import sentence_spans
from citebound.text.stem import alpha_content_stems
from citebound.text.tokenize import tokens
from citebound.verify.checks.negation import states_negation

# each pattern: group a happened first, then b; "then" after "until" / "since" / "by" / "from" is a time
_ORDERS = tuple(re.compile(p, re.IGNORECASE | re.DOTALL) for p in (
    r"^(?P<a>.+?)\s*,?\s+(?<!until\s)(?<!since\s)(?<!by\s)(?<!from\s)(?:and\s+)?(?:then|later|subsequently|afterwards)\s+(?P<b>.+)$",
    r"^(?P<a>.+?)\s*,?\s+followed\s+by\s+(?P<b>.+)$",
    r"^(?:before|prior\s+to)\s+(?P<b>.+?),\s*(?P<a>.+)$",
    r"^after\s+(?P<a>.+?),\s*(?P<b>.+)$",
    r"^(?P<a>.+?)\s+(?:before|prior\s+to)\s+(?P<b>.+)$",
    r"^(?P<b>.+?)\s+after\s+(?P<a>.+)$",
))  # fmt: skip
# "before" of a place ("testified before the committee", "appeared before parliament") is no order
_BEFORE_A_BODY = re.compile(
    r"\b(?:appear\w*|testif\w*|stood|stand\w*|came|come\w*|brought|went|go(?:es|ing)?|argued|spoke|bow\w*)\s+before\b|"
    r"\bbefore\s+(?:the\s+|a\s+)?(?:committee|court|parliament|congress|senate|house|judge|jury|panel|council|board|"
    r"tribunal|magistrate|audience|crowd|camera|cameras|assembly|commission|inquiry|hearing)\b",
    re.IGNORECASE,
)
_FIRST = re.compile(r"\bfirst\b,?\s*", re.IGNORECASE)
_SHARE = 0.6


def _events(sentence: str) -> tuple[set[str], set[str]] | None:
    """(the content stems of the event that happened first, of the one after) of the first word of order in
    `sentence` that joins two events of at least two content words each; None when there is none."""
    text = _BEFORE_A_BODY.sub(lambda m: m.group(0).replace("before", "in front of").replace("Before", "In front of"),
                              sentence.strip().rstrip(".!?;: "))  # fmt: skip
    for pattern in _ORDERS:
        m = pattern.match(text)
        if m is None:
            continue
        first, then = (alpha_content_stems(tokens(_FIRST.sub("", m.group(g)))) for g in ("a", "b"))
        if len(first) >= 2 and len(then) >= 2:
            return first, then
    return None


def _share(claimed: set[str], stated: set[str]) -> float:
    return len(claimed & stated) / len(claimed)


def reversed_orders(claim: str, window: str) -> list[str]:
    """Each pair of events the claim tells in the order opposite to the window's, as a readable phrase; empty
    when there is none or the claim is negated."""
    if not re.search(r"\b(?:then|before|after|followed|later|subsequently|afterwards|prior)\b", claim, re.IGNORECASE) \
            or states_negation(tokens(claim)):
        return []
    out = []
    for c_start, c_end in sentence_spans(claim) or [(0, len(claim))]:
        claimed = _events(claim[c_start:c_end])
        if claimed is None:
            continue
        for w_start, w_end in sentence_spans(window):
            stated = _events(window[w_start:w_end])
            if stated is None:
                continue
            (c1, c2), (w1, w2) = claimed, stated
            if _share(c1, w2) >= _SHARE and _share(c2, w1) >= _SHARE and _share(c1, w2) > _share(c1, w1) \
                    and _share(c2, w1) > _share(c2, w2):  # fmt: skip
                out.append(f"the source tells the two events in the other order: {window[w_start:w_end].strip()[:100]!r}")
                break
    return out
