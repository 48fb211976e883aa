"""Plain values shared between stages. Frozen dataclasses: cheap to build, safe to pass around and log.

The verifier works on `Mapping[str, str]` sources (id -> text) so it can be used on any answer without
the rest of citebound; the retrieval stage returns `Hit`s, which the pipeline turns into that mapping.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields


@dataclass(frozen=True, slots=True)
class Chunk:
    """A piece of one version of one document, with its offsets into that version's normalized text."""

    id: str
    doc_id: str
    version: int
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class Hit:
    """A retrieved chunk, with the id it has in one request (`S1`, `S2`, …) and the scores that ranked it."""

    source_id: str
    chunk: Chunk
    scores: dict[str, float] = field(default_factory=dict)


_NO_VALUE = object()


def _set_slots_directly(cls: type) -> type:
    """Give a frozen slots dataclass an `__init__` that sets each field through its slot's descriptor.

    The generated one calls `object.__setattr__` per field (frozen classes refuse plain assignment),
    about twice as slow: retrieval builds 20 of these values a query, 6 µs of a BM25 query that takes
    300 (docs/benchmarks.md, "The BM25 query at 100k"). Same signature, defaults and values; still frozen."""
    names = {f"_set_{f.name}": cls.__dict__[f.name].__set__ for f in fields(cls)}
    params, body = [], []
    for f in fields(cls):
        if f.default_factory is not MISSING:
            names[f"_make_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_NO_VALUE")
            body.append(f"_set_{f.name}(self, _make_{f.name}() if {f.name} is _NO_VALUE else {f.name})")
        elif f.default is not MISSING:
            names[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
            body.append(f"_set_{f.name}(self, {f.name})")
        else:
            params.append(f.name)
            body.append(f"_set_{f.name}(self, {f.name})")
    names["_NO_VALUE"] = _NO_VALUE
    exec(f"def __init__(self, {', '.join(params)}):\n    " + "\n    ".join(body), names)  # noqa: S102
    init = names["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    cls.__init__ = init  # type: ignore[misc]
    return cls


_set_slots_directly(Chunk)
_set_slots_directly(Hit)
