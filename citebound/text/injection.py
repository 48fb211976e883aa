"""Instruction-like text inside a document ("ignore previous instructions", "system:", role tags,
"answer supported"). Sources are untrusted data: the prompt builder flags such text in the trace, and
the entailment checker leaves such sentences out of what its model reads, since a sentence addressed
to the checker states nothing about the claim.
"""

from __future__ import annotations

import re

from citebound.text.sentences import sentence_spans

# (name, pattern) — instruction-like text worth flagging inside a source.
INJECTION_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "override",
        re.compile(
            r"\b(?:ignore|disregard|forget|override)\b[^.\n]{0,40}?\b(?:previous|prior|above|earlier|all|any"
            r"|the)\b[^.\n]{0,20}?\b(?:instructions?|prompts?|rules|directions|context)\b",
            re.IGNORECASE,
        ),
    ),
    ("role-prefix", re.compile(r"(?:^|\n)\s*(?:system|assistant|user|developer)\s*:", re.IGNORECASE)),
    ("role-tag", re.compile(r"<\|[a-z_]+\|>|\[/?INST\]|<</?SYS>>|<\s*/?\s*(?:system|assistant)\s*>", re.I)),
    ("persona", re.compile(r"\byou are now\b|\bnew instructions?\s*:|\bact as\b[^.\n]{0,30}\binstead\b", re.I)),
    ("answer-directive", re.compile(r"\b(?:answer|respond|reply|say)\s+(?:only\s+)?(?:with\s+)?[\"'“]?"
                                    r"(?:yes|no|supported)[\"'”]?\s*(?:\.|$|to\b|regardless)", re.I)),
)


def is_instruction_like(text: str) -> bool:
    return any(pattern.search(text) for _, pattern in INJECTION_PATTERNS)


def without_instructions(text: str) -> str:
    """`text` with every sentence that looks like an instruction removed (unchanged if none does)."""
    if not is_instruction_like(text):
        return text
    kept = [text[s:e] for s, e in sentence_spans(text) if not is_instruction_like(text[s:e])]
    return " ".join(kept)
