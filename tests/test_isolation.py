"""citebound.verify works on its own: importing and using it loads no retrieval, generation, KB or model."""

from __future__ import annotations

import subprocess
import sys

FORBIDDEN = ("citebound.kb", "citebound.retrieval", "citebound.generation", "citebound.pipeline",
             "onnxruntime", "torch", "tantivy", "tokenizers")  # fmt: skip

SCRIPT = f"""
import sys
import citebound.verify
from citebound import verify_answer, check_claim, find_span
from citebound.verify.batch import parse_rows, predict
from citebound.verify.checkers import make_checker
report = verify_answer("Shipping takes 30 days [S1].", {{"S1": "Shipping takes 30 days."}})
assert report.ok, report.to_dict()
loaded = [m for m in sys.modules if any(m == f or m.startswith(f + ".") for f in {FORBIDDEN!r})]
print(",".join(loaded))
"""


def test_verify_imports_nothing_heavy():
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"citebound.verify loaded: {out.stdout.strip()}"
