from __future__ import annotations

from pathlib import Path

import pytest

DOCS = {
    "scurvy.txt": "Scurvy is caused by a lack of vitamin C. James Lind showed in 1747 that citrus fruit cures it.",
    "paris.txt": "Paris is the capital and largest city of France. About 2.1 million people live there.",
    "owls.txt": "Owls are nocturnal birds of prey. They hunt small mammals at night using silent flight.",
    "python.txt": "Python is a programming language created by Guido van Rossum and first released in 1991.",
    "bees.txt": "Honey bees live in colonies. Worker bees collect nectar and turn it into honey in the hive.",
}


@pytest.fixture(scope="module")
def small_kb(tmp_path_factory):
    from citebound.kb import KnowledgeBase

    root: Path = tmp_path_factory.mktemp("retrieval") / "docs"
    root.mkdir()
    for name, text in DOCS.items():
        (root / name).write_text(text, encoding="utf-8")
    kb = KnowledgeBase.open(root.parent / "kb", create=True)
    kb.ingest([root], progress=False)
    yield kb
    kb.close()
