"""The audit log: every request, its sources, raw model outputs, verdicts and final answer, in SQLite."""

from citebound.audit.log import (
    AUDIT_FILENAME,
    AuditLog,
    AuditRecord,
    FlagRecord,
    OutputRecord,
    SourceRecord,
    VerdictRecord,
)

__all__ = ["AUDIT_FILENAME", "AuditLog", "AuditRecord", "FlagRecord", "OutputRecord", "SourceRecord",
           "VerdictRecord"]
