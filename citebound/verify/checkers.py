"""Named checkers, so the CLI, the benchmark and later stages choose one by a short string.

    CHECKERS[name](threshold=config.SUPPORT_THRESHOLD) -> Cascade

- `lexical`: the seed's plain checker, the measured baseline: content-word overlap fraction over
  lower-cased tokens, no stemming, no numbers stage.
- `deterministic`: the full cascade without a model: ids -> numbers -> stemmed lexical overlap.
- `model`, `full`: the entailment model alone, and ids -> numbers -> model combined with the deterministic
  signals (citebound/verify/model_checkers.py).

`DEFAULT_CHECKER` is the default everywhere (one setting).

A model-based stage registers itself with a couple of lines, e.g.
`CHECKERS["model"] = lambda **kw: Cascade(semantic=load_scorer(), name="model", **kw)`.
Factories must import heavy things lazily (inside the factory), never at module import.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module

from citebound.errors import InputError
from citebound.verify.cascade import Cascade

CheckerFactory = Callable[..., Cascade]

CHECKERS: dict[str, CheckerFactory] = {
    "lexical": lambda **kw: Cascade(
        stemming=False, numbers=False, scope="source", pair_weight=0.0, negation=False, name="lexical", **kw
    ),
    "deterministic": lambda **kw: Cascade(name="deterministic", **kw),
    # the entailment model alone, and ids -> numbers -> model (+ lexical score): thresholds calibrated
    # on dev beside the model. Imported on use (onnxruntime); see citebound/verify/model_checkers.py.
    "model": lambda **kw: import_module("citebound.verify.model_checkers").model_checker(**kw),
    "full": lambda **kw: import_module("citebound.verify.model_checkers").full_checker(**kw),
}
# The one default checker of `verify`, `verify-batch`, `ask`, the server and the library: every caller
# passes None (or nothing) for "the default" and gets this. It becomes the model-based cascade (`full`)
# when that beats `deterministic` at one global threshold on the dev calibration halves
# (training/calibrate.py and training/fit_gate.py report both; docs/entailment.md).
DEFAULT_CHECKER = "full"


def make_checker(name: str | None = None, **options: object) -> Cascade:
    """Build the checker registered as `name` (None: DEFAULT_CHECKER); an unknown name raises InputError
    listing the choices. `threshold=None` means the checker's own default (calibrated on dev for `model`
    and `full`)."""
    name = name or DEFAULT_CHECKER
    factory = CHECKERS.get(name)
    if factory is None:
        raise InputError(f"unknown checker {name!r}; choose one of: {', '.join(sorted(CHECKERS))}")
    if options.get("threshold", 0.0) is None:
        options.pop("threshold")
    return factory(**options)


@dataclass(frozen=True, slots=True)
class CheckerSpec:
    """A checker as plain values (name, threshold, model file), so another process (a pool or Ray
    worker, citebound.parallel) can build the same checker: a built Cascade holds a model session and
    does not travel."""

    name: str | None = None
    threshold: float | None = None
    model: str | None = None

    def build(self) -> Cascade:
        return make_checker(self.name, threshold=self.threshold, **({"model": self.model} if self.model else {}))
