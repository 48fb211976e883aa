"""The adapters are optional: `import citebound` and its verifier never load a framework or the MCP SDK."""

from __future__ import annotations

import subprocess
import sys


def test_import_citebound_loads_no_framework():
    code = ("import sys, citebound; citebound.verify_answer('Refunds take five days [1].', {'1': 'Refunds take "
            "five days.'}); citebound.evaluate_answers([]); import citebound.testing; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] in ('llama_index', 'langchain_core', 'langchain', "
            "'mcp') or m.startswith(('citebound.integrations', 'citebound.mcp_server'))))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
