"""Small real corpora written to tmp folders: each format the KB reads, made with the real libraries."""

from __future__ import annotations

from pathlib import Path

import pytest

SCURVY = (
    "Scurvy is a disease caused by a lack of vitamin C. Early symptoms include weakness and sore arms.\n\n"
    "James Lind showed in 1747 that citrus fruits cure scurvy. Sailors were later given lemon juice."
)
PARIS = "<html><head><style>p{color:red}</style><script>var secret = 'tracking';</script></head>" \
    "<body><h1>Paris</h1><p>Paris is the <b>capital</b> of France.</p><p>It has 2.1 million inhabitants.</p></body></html>"


def make_pdf(path: Path, text: str) -> None:
    """A one-page PDF with a real text layer, written by hand (the PDF format is plain enough)."""
    stream = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length " + str(len(stream)).encode() + b" >>\nstream\n" + stream + b"\nendstream",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for i, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += f"{i} 0 obj\n".encode() + body + b"\nendobj\n"
    xref = len(out)
    out += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    out += b"".join(f"{o:010d} 00000 n \n".encode() for o in offsets)
    out += f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
    path.write_bytes(bytes(out))


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "scurvy.txt").write_text(SCURVY, encoding="utf-8")
    (root / "notes.md").write_text("# Notes\n\nThe Eiffel Tower is 330 metres tall.\n", encoding="utf-8")
    (root / "paris.html").write_text(PARIS, encoding="utf-8")
    make_pdf(root / "report.pdf", "The annual rainfall in Bergen is 2250 millimetres.")
    (root / "beir.jsonl").write_text(
        '{"_id": "d1", "title": "Aspirin", "text": "Aspirin reduces the risk of heart attack."}\n'
        '{"_id": "d2", "title": "", "text": "Metformin is a first-line drug for type 2 diabetes."}\n',
        encoding="utf-8",
    )
    return root


@pytest.fixture
def kb(kb_target):
    """A new, empty KB in each backend (SQLite folder, PostgreSQL database): the store's tests run on both."""
    from citebound.kb import KnowledgeBase

    with KnowledgeBase.open(kb_target, create=True) as store:
        yield store
