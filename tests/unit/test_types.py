"""`Chunk` and `Hit` are built by an `__init__` that sets their slots directly (types._set_slots_directly):
the same values, defaults, signature and immutability as the dataclass's own."""

from __future__ import annotations

import dataclasses
import inspect
import pickle

import pytest

from citebound.types import Chunk, Hit


def _plain(cls: type) -> type:
    """The same fields as a frozen slots dataclass with the generated `__init__`."""
    return dataclasses.make_dataclass(cls.__name__, [(f.name, f.type, f) for f in dataclasses.fields(cls)],
                                      frozen=True, slots=True)


def test_the_values_are_those_the_generated_init_makes():
    chunk = Chunk("c0123456789abcdef01234567", "docs/a.txt", 2, 10, 42, "some text")
    plain = _plain(Chunk)("c0123456789abcdef01234567", "docs/a.txt", 2, 10, 42, "some text")
    assert dataclasses.astuple(chunk) == dataclasses.astuple(plain)
    assert chunk == Chunk(*dataclasses.astuple(chunk)) and hash(chunk) == hash(Chunk(*dataclasses.astuple(chunk)))
    assert chunk == Chunk(id=chunk.id, doc_id="docs/a.txt", version=2, start=10, end=42, text="some text")
    hit = Hit("S1", chunk, {"bm25": 1.5})
    assert (hit.source_id, hit.chunk, hit.scores) == ("S1", chunk, {"bm25": 1.5})
    assert repr(hit) == f"Hit(source_id='S1', chunk={chunk!r}, scores={{'bm25': 1.5}})"
    assert dataclasses.replace(chunk, text="other").text == "other"
    assert pickle.loads(pickle.dumps(hit)) == hit


def test_defaults_and_the_signature_are_kept():
    first, second = Hit("S1", None), Hit("S2", None)  # type: ignore[arg-type]
    assert first.scores == {} and first.scores is not second.scores  # a new dict each time
    assert Hit("S1", None, None).scores is None  # type: ignore[arg-type]
    for cls in (Chunk, Hit):
        assert list(inspect.signature(cls.__init__).parameters)[1:] == [f.name for f in dataclasses.fields(cls)]
    with pytest.raises(TypeError):
        Chunk("c", "d", 1, 2, 3)  # type: ignore[call-arg]


def test_they_stay_frozen():
    chunk = Chunk("c", "d", 1, 2, 3, "t")
    with pytest.raises(dataclasses.FrozenInstanceError):
        chunk.text = "changed"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        Hit("S1", chunk).source_id = "S2"  # type: ignore[misc]
