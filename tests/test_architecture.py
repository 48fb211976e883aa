"""Imports run one way: every import in citebound/ (module level or inside a function) must be allowed by
the table in docs/architecture.md. The table is the rule; this test only reads and enforces it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "citebound"
TABLE_ROW = re.compile(r"^\| (\S+) \| [^|]+ \| ([^|]+) \|$")


def allowed_imports() -> dict[str, set[str] | None]:
    """package -> the packages it may import (None: anything)."""
    rules: dict[str, set[str] | None] = {}
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc.split("## Packages", 1)[1].split("\n## ", 1)[0]
    for line in section.splitlines():
        m = TABLE_ROW.match(line.strip())
        if not m or m.group(1) in ("package", "---"):
            continue
        allowed = m.group(2).strip()
        rules[m.group(1)] = None if allowed == "*" else {a.strip() for a in allowed.split(",") if a.strip() not in ("—", "")}
    return rules


def unit_of(path: Path) -> str:
    """The package a file belongs to: its first folder under citebound/, or its module name."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return parts[0]


def imported_units(tree: ast.AST) -> set[str]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            parts = node.module.split(".")
            if parts[0] != "citebound":
                continue
            if len(parts) > 1:
                found.add(parts[1])
            else:  # from citebound import config, policy
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == "citebound" and len(parts) > 1:
                    found.add(parts[1])
    return found


def test_every_package_is_in_the_table():
    rules = allowed_imports()
    units = {unit_of(p) for p in PACKAGE.rglob("*.py")}
    assert units - set(rules) == set(), "add these packages to docs/architecture.md"
    assert set(rules) - units == set(), "the table names packages that do not exist"


def test_imports_follow_the_table():
    rules = allowed_imports()
    violations = []
    for path in sorted(PACKAGE.rglob("*.py")):
        unit = unit_of(path)
        allowed = rules.get(unit)
        if allowed is None:
            continue
        for target in sorted(imported_units(ast.parse(path.read_text(encoding="utf-8"))) - {unit}):
            if target not in allowed:
                violations.append(f"{path.relative_to(ROOT)}: {unit} imports {target}")
    assert violations == []


def test_the_rule_catches_a_violation():
    """The checker itself: a kb module importing retrieval is found."""
    tree = ast.parse("def f():\n    from citebound.retrieval.hybrid import Retriever\nfrom citebound import policy\n")
    assert imported_units(tree) == {"retrieval", "policy"}
    assert "retrieval" not in allowed_imports()["kb"]
