"""Sentence-aligned windows: a long text cut into runs of whole sentences that fit a token budget.

A cross-encoder reads at most 128 tokens, its first text (a claim, a question) included. The verifier
scores a long source, and the reranker a long chunk, window by window and keeps the best window, instead
of truncating the text blindly. `plan_windows` is the pure rule (sentence token counts in, windows out);
`citebound.models.cross_encoder.CrossEncoder.sentence_windows` counts the tokens and calls it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

_WORD = re.compile(r"[a-z0-9]+")
_STOP = frozenset("a an the of to in on at for and or is are was were be been by with as that this it its from".split())


@dataclass(frozen=True, slots=True)
class Window:
    start: int
    end: int


def plan_windows(sentence_tokens: Sequence[tuple[int, int, int]], budget: int) -> list[Window]:
    """Group sentences (start, end, n_tokens) into windows of at most `budget` tokens.

    A window grows sentence by sentence while it fits; the next window starts at the previous
    window's last sentence (one sentence of overlap) unless that window was a single sentence.
    A sentence longer than the budget is its own window (the tokenizer truncates it).
    """
    windows: list[Window] = []
    i, n = 0, len(sentence_tokens)
    while i < n:
        j, used = i, sentence_tokens[i][2]
        while j + 1 < n and used + sentence_tokens[j + 1][2] <= budget:
            j += 1
            used += sentence_tokens[j][2]
        window = Window(sentence_tokens[i][0], sentence_tokens[j][1])
        if not windows or window.end > windows[-1].end:  # skip a sentence the previous window holds
            windows.append(window)
        if j + 1 >= n:
            break
        i = j if j > i else j + 1
    return windows


def _content_words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _STOP}


def most_overlapping(windows: Sequence[Window], first: str, text: str, limit: int) -> list[Window]:
    """The `limit` windows of `text` sharing most content words with `first` (ties: earlier first),
    in source order; all of them when there are no more than `limit`."""
    if len(windows) <= limit:
        return list(windows)
    words = _content_words(first)
    ranked = sorted(range(len(windows)), key=lambda k: (-len(words & _content_words(text[windows[k].start : windows[k].end])), k))
    return [windows[k] for k in sorted(ranked[:limit])]
