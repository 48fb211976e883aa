from pathlib import Path

from citebound.audit.migrations import schema_sql

DOC = Path(__file__).resolve().parents[3] / "docs" / "audit-schema.md"


def test_docs_show_the_schema_the_migrations_build():
    text = DOC.read_text(encoding="utf-8")
    block = text.split("<!-- schema:start -->", 1)[1].split("<!-- schema:end -->", 1)[0]
    shown = block.strip().removeprefix("```sql").removesuffix("```").strip()
    assert shown == schema_sql().strip(), "regenerate with: python -m citebound.audit.migrations"
