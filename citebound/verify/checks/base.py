"""What a check returns, and the extension point for a semantic stage.

Every check looks at one claim against one cited source and returns a `SourceCheck`: a label, a
score in [0, 1] (higher = better supported), the stage that decided, a readable reason, and the
evidence span (offsets into the source) when there is one.

Semantic stage contract (`EntailmentScorer`)
--------------------------------------------
A later stage (an entailment model) plugs into `Cascade(semantic=...)` by implementing one method::

    def best_window(self, claim: str, passage: str) -> tuple[float, int, int]

- `claim`: the claim text, citation markers already removed.
- `passage`: the full text of one cited source.
- returns `(p_supported, start, end)`: the probability in [0, 1] that the passage supports the claim,
  and the character offsets [start, end) into `passage` of the window that gave it (its best evidence).
- It must not raise on any str input (empty passage -> (0.0, 0, 0)), must be deterministic, and
  should load its model lazily. `name` (a short string such as "minilm-nli") goes into reasons.

The cascade calls it only for sources that passed the ids and numbers checks, so numbers stay a hard
rule whatever the model says. (The cascade calls it once per claim and source; a scorer that wants
to batch can cache pair scores across calls.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

Label = Literal["supported", "partial", "unsupported", "uncited"]
Stage = Literal["citations", "ids", "numbers", "negation", "comparison", "exception", "scope", "modality", "opposite",
                "kind", "order", "dates", "role", "plan", "ended", "home", "condition", "cause", "quote", "lexical", "semantic",
                "judge"]
LABEL_RANK = {"supported": 3, "partial": 2, "unsupported": 1, "uncited": 0}


@runtime_checkable
class EntailmentScorer(Protocol):
    name: str

    def best_window(self, claim: str, passage: str) -> tuple[float, int, int]: ...


@dataclass(frozen=True, slots=True)
class SourceCheck:
    """The outcome of checking one claim against one cited source."""

    source_id: str
    label: Label
    score: float
    stage: Stage
    reason: str
    span: tuple[int, int] | None = None
    missing_numbers: tuple[str, ...] = ()
    missing_terms: tuple[str, ...] = ()
    fraction: float | None = None  # share of the claim's content terms found in the whole source

    @property
    def supports(self) -> bool:
        return self.label == "supported"

    def to_dict(self) -> dict:
        return {
            "source_id": self.source_id,
            "label": self.label,
            "score": round(self.score, 4),
            "stage": self.stage,
            "reason": self.reason,
            "span": list(self.span) if self.span else None,
            "missing_numbers": list(self.missing_numbers),
            "missing_terms": list(self.missing_terms),
            "fraction": None if self.fraction is None else round(self.fraction, 4),
        }
