"""Drift, from the audit log: how answers change over time, per period.

Pure functions over `AuditRecord`s (no I/O but `load_records`); rendering lives in `drift_html.py` and the
CLI (`citebound report`). Every figure comes from what `ask` stored with each request:

- the verifier's report of the answer that was used (`record.result["report"]`): groundedness,
  citation precision and recall, and the stage that decided each claim;
- the claims the policy removed and why (`record.result["removed"]`), the status and abstention reason;
- the injection flags (`record.flags`), the timings per stage (`record.timings`);
- what produced it: the backend (`record.backend`), the checker (`record.result["verifier"]`
  = {checker, threshold, model}; older records have only the report's checker and threshold) and the
  knowledge base's revision (`record.kb_revision`).

Groundedness and citation figures are the mean over the period's requests whose backend made claims
(`generated`): before the policy removed anything, and including requests whose claims were all removed
(then the user saw an abstention). That is how grounded the backend is; a backend that starts inventing
numbers shows here even though the policy hides its inventions from the user.

A *change* is a record whose checker, threshold, checker model, backend or KB revision differs from the
record before it (in time order); the plots mark each one, so a drift that coincides with a change is
visible as such. A value that older records do not store (the checker model) is never reported as a change.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from citebound.audit import AuditLog, AuditRecord
from citebound.audit.log import AUDIT_FILENAME
from citebound.errors import InputError

# Metrics a floor (`--fail-below`) or a ceiling (`--fail-above`) can name: PeriodStats fields.
HIGHER_IS_BETTER = ("groundedness", "citation_precision", "citation_recall", "answer_rate")
LOWER_IS_BETTER = ("abstention_rate", "error_rate", "removed_rate", "flag_rate", "latency_p50", "latency_p95")
METRICS = HIGHER_IS_BETTER + LOWER_IS_BETTER
PERCENTILES = (50, 90, 95, 99)
TOP_REASONS = 5
KIND_NAMES = {"kb_revision": "KB revision", "model": "checker model", "backend_options": "backend options",
              "answer_threshold": "answer threshold"}
_UNKNOWN = object()  # a value an older record does not store: never a change


# -- values --------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Change:
    """Something that produces answers changed between two consecutive records."""

    at: str  # created_at of the first record with the new value
    request_id: str
    period: str  # label of the period that record falls in
    position: float  # x position on the plots: period index, plus where in the period it happened
    kind: str  # checker | threshold | model | backend | backend_options | kb_revision | answer_threshold
    before: Any
    after: Any

    @property
    def label(self) -> str:
        names = KIND_NAMES
        if self.kind == "backend_options":
            return "backend options " + ", ".join(f"{k} {_short(self.before.get(k))} → {_short(self.after.get(k))}"
                                          for k in self.after)
        return f"{names.get(self.kind, self.kind)} {_short(self.before)} → {_short(self.after)}"


@dataclass(frozen=True, slots=True)
class PeriodStats:
    """Everything measured in one period. Rates are shares of `requests`; quality figures are means over
    `generated` (None when no request of the period made claims)."""

    period: str
    start: str  # ISO 8601 UTC; for day/week the period's bounds [start, end), for requests:N the first
    end: str  # and last request's time
    requests: int = 0
    answered: int = 0
    abstained: int = 0
    errors: int = 0
    answer_rate: float | None = None
    abstention_rate: float | None = None
    error_rate: float | None = None
    abstain_reasons: dict[str, int] = field(default_factory=dict)
    generated: int = 0  # requests whose backend made claims that were verified
    groundedness: float | None = None
    citation_precision: float | None = None
    citation_recall: float | None = None
    claims: int = 0  # claims the backend made (the used attempt)
    claims_removed: int = 0  # of those, removed by the policy (uncited sentences included)
    removed_rate: float | None = None
    removed_by: dict[str, int] = field(default_factory=dict)  # "label · deciding stage" -> n
    removed_reasons: dict[str, int] = field(default_factory=dict)  # most frequent reasons, numbers as N
    stages: dict[str, dict[str, int]] = field(default_factory=dict)  # deciding stage -> label -> claims
    flags: int = 0
    flagged_requests: int = 0
    flag_rate: float | None = None
    flags_by_pattern: dict[str, int] = field(default_factory=dict)
    latency: dict[str, float] = field(default_factory=dict)  # p50/p90/p95/p99/max of total seconds
    latency_p50: float | None = None
    latency_p95: float | None = None
    stage_latency: dict[str, dict[str, float]] = field(default_factory=dict)  # stage -> p50/p95 seconds
    backends: dict[str, int] = field(default_factory=dict)
    verifiers: dict[str, int] = field(default_factory=dict)
    kb_revisions: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class DriftReport:
    by: str
    since: str | None  # ISO cutoff, None = the whole log
    now: str
    requests: int
    periods: tuple[PeriodStats, ...]
    changes: tuple[Change, ...]
    source: str | None = None  # the audit log it was read from

    @property
    def last(self) -> PeriodStats | None:
        """The most recent period that has requests (what `--fail-below` checks)."""
        return next((p for p in reversed(self.periods) if p.requests), None)

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["changes"] = [{**asdict(c), "label": c.label} for c in self.changes]
        out["last_period"] = self.last.period if self.last else None
        return out


@dataclass(frozen=True, slots=True)
class Check:
    """One floor or ceiling applied to the last period."""

    metric: str
    bound: str  # below | above
    limit: float
    value: float | None
    period: str | None

    @property
    def failed(self) -> bool:
        # No value (no request of the period made claims, or no period at all) is a failure: a monitor
        # that stays quiet when nothing could be measured would miss a backend that only errors.
        if self.value is None:
            return True
        return self.value < self.limit if self.bound == "below" else self.value > self.limit

    @property
    def message(self) -> str:
        where = f"in period {self.period}" if self.period else "(no requests in the report)"
        if self.value is None:
            return f"{self.metric}: no value {where} (limit {self.limit:g})"
        if self.bound == "below":
            op = "<" if self.failed else ">="
        else:
            op = ">" if self.failed else "<="
        return f"{self.metric} {self.value:.4f} {op} {self.limit:g} {where}"

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "failed": self.failed, "message": self.message}


# -- parsing options -----------------------------------------------------------------------------
_SINCE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([mhdw])\s*$")
_UNITS = {"m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(value: str | None, now: datetime) -> datetime | None:
    """`30d`, `12h`, `2w`, `90m`, an ISO date or time (UTC when it names no zone), or `all` / None."""
    if value is None or value.strip().lower() in ("", "all"):
        return None
    m = _SINCE.match(value)
    if m:
        return now - timedelta(**{_UNITS[m.group(2)]: float(m.group(1))})
    try:
        when = datetime.fromisoformat(value.strip())
    except ValueError:
        raise InputError(f"--since {value!r}: use a duration (30d, 12h, 2w, 90m), an ISO date, or 'all'") from None
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def parse_by(value: str) -> tuple[str, int]:
    """`day`, `week` or `requests:N` (N consecutive requests per period) -> (kind, N)."""
    v = value.strip().lower()
    if v in ("day", "week"):
        return v, 0
    kind, _, n = v.partition(":")
    if kind == "requests" and n.isdigit() and int(n) > 0:
        return "requests", int(n)
    raise InputError(f"--by {value!r}: use day, week or requests:N")


def parse_limits(value: str | None, bound: str = "below") -> dict[str, float]:
    """`groundedness=0.95,citation_precision=0.9` -> {metric: limit}; unknown metrics are an error."""
    limits: dict[str, float] = {}
    for part in (value or "").split(","):
        if not part.strip():
            continue
        name, sep, number = part.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or name not in METRICS:
            raise InputError(f"--fail-{bound} {part.strip()!r}: use metric=value with a metric among "
                             f"{', '.join(METRICS)}")
        try:
            limits[name] = float(number)
        except ValueError:
            raise InputError(f"--fail-{bound} {part.strip()!r}: {number.strip()!r} is not a number") from None
    return limits


def check_limits(report: DriftReport, below: Mapping[str, float] | None = None,
                 above: Mapping[str, float] | None = None) -> tuple[Check, ...]:
    """Each floor and ceiling applied to the report's last period with requests."""
    last = report.last
    checks = []
    for bound, limits in (("below", below or {}), ("above", above or {})):
        for metric, limit in limits.items():
            value = getattr(last, metric) if last is not None else None
            checks.append(Check(metric, bound, float(limit), value, last.period if last else None))
    return tuple(checks)


# -- the report ----------------------------------------------------------------------------------
def load_records(kb_dir: str | Path) -> tuple[list[AuditRecord], str]:
    """Every record of the audit log beside the KB folder (or in the KB's PostgreSQL database), and where
    the log is."""
    if isinstance(kb_dir, str) and kb_dir.lower().startswith(("postgresql://", "postgres://")):
        with AuditLog.beside(kb_dir) as log:
            return log.last(len(log)), log.location
    path = Path(kb_dir) / AUDIT_FILENAME  # not AuditLog.beside(): opening would create an empty log
    if not path.is_file():
        raise InputError(f"no audit log at {path}")
    with AuditLog(path) as log:
        return log.last(len(log)), str(path)


def build_report(records: Iterable[AuditRecord], *, by: str = "day", since: datetime | None = None,
                 now: datetime | None = None, source: str | None = None) -> DriftReport:
    """Group the records since `since` into periods (`day`, `week` or `requests:N`), measure each, and
    list the changes of checker, threshold, checker model, backend and KB revision between them."""
    now = now or datetime.now(UTC)
    kind, size = parse_by(by)
    timed = sorted(((_when(r), i, r) for i, r in enumerate(records)), key=lambda t: (t[0], -t[1]))
    # (-i: `AuditLog.last` lists newest first, so equal times keep write order)
    timed = [(t, r) for t, _i, r in timed if since is None or t >= since]
    groups = _group(timed, kind, size)
    periods = tuple(_period(label, start, end, [r for _t, r in members]) for label, start, end, members in groups)
    changes = tuple(_changes(groups, by_requests=kind == "requests"))
    return DriftReport(by=by, since=since.isoformat() if since else None, now=now.isoformat(),
                       requests=len(timed), periods=periods, changes=changes, source=source)


def _when(record: AuditRecord) -> datetime:
    try:
        t = datetime.fromisoformat(record.created_at)
    except ValueError:
        raise InputError(f"request {record.id}: created_at {record.created_at!r} is not an ISO time") from None
    return t if t.tzinfo else t.replace(tzinfo=UTC)


Group = tuple[str, datetime, datetime, list[tuple[datetime, AuditRecord]]]


def _group(timed: list[tuple[datetime, AuditRecord]], kind: str, size: int) -> list[Group]:
    """Periods in time order. Day and week periods (UTC; weeks start on Monday) run from the first
    record's period to the last's, empty ones included, so the time axis is honest."""
    if not timed:
        return []
    if kind == "requests":
        out = []
        for k in range(0, len(timed), size):
            chunk = timed[k:k + size]
            out.append((f"#{k + 1}–{k + len(chunk)}", chunk[0][0], chunk[-1][0], chunk))
        return out
    step = timedelta(days=1 if kind == "day" else 7)

    def floor(t: datetime) -> datetime:
        t = t.astimezone(UTC)
        day = datetime(t.year, t.month, t.day, tzinfo=UTC)
        return day if kind == "day" else day - timedelta(days=day.weekday())

    def label(start: datetime) -> str:
        if kind == "day":
            return start.date().isoformat()
        year, week, _ = start.isocalendar()
        return f"{year}-W{week:02d}"

    out, start, last, i = [], floor(timed[0][0]), floor(timed[-1][0]), 0
    while start <= last:
        members = []
        while i < len(timed) and timed[i][0] < start + step:
            members.append(timed[i])
            i += 1
        out.append((label(start), start, start + step, members))
        start += step
    return out


def _period(label: str, start: datetime, end: datetime, records: Sequence[AuditRecord]) -> PeriodStats:
    n = len(records)
    if not n:
        return PeriodStats(label, start.isoformat(), end.isoformat())
    status = Counter(r.status for r in records)
    reports = [_report(r) for r in records]
    generated = [rep for rep in reports if rep and rep.get("n_claims")]
    claims = sum(int(rep["n_claims"]) for rep in generated)
    removed_by: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    stages: dict[str, Counter[str]] = {}
    n_removed = 0
    for r, rep in zip(records, reports):
        stage_of = {c.get("claim"): c.get("stage") for c in (rep or {}).get("claims", [])}
        for c in (rep or {}).get("claims", []):
            stages.setdefault(str(c.get("stage")), Counter())[str(c.get("label"))] += 1
        for rm in r.result.get("removed") or []:
            n_removed += 1
            stage = stage_of.get(rm.get("text"))
            removed_by[f"{rm.get('label')} · {stage}" if stage else str(rm.get("label"))] += 1
            reasons[reason_kind(str(rm.get("reason", "")))] += 1
    totals = [_total_seconds(r.timings) for r in records]
    stage_names = sorted({k for r in records for k in r.timings if k != "failed"})
    flags = [f for r in records for f in r.flags]
    flagged = sum(1 for r in records if r.flags)
    latency = {f"p{q}": _percentile(totals, q) for q in PERCENTILES} | {"max": round(max(totals), 6)}
    return PeriodStats(
        period=label, start=start.isoformat(), end=end.isoformat(), requests=n,
        answered=status["answered"], abstained=status["abstained"], errors=status["error"],
        answer_rate=_rate(status["answered"], n), abstention_rate=_rate(status["abstained"], n),
        error_rate=_rate(status["error"], n),
        abstain_reasons=dict(Counter(reason_kind(r.abstain_reason or "") for r in records
                                     if r.status == "abstained").most_common()),
        generated=len(generated),
        groundedness=_mean(rep.get("groundedness") for rep in generated),
        citation_precision=_mean(rep.get("citation_precision") for rep in generated),
        citation_recall=_mean(rep.get("citation_recall") for rep in generated),
        claims=claims, claims_removed=n_removed, removed_rate=_rate(n_removed, claims) if claims else None,
        removed_by=dict(removed_by.most_common()), removed_reasons=dict(reasons.most_common(TOP_REASONS)),
        stages={s: dict(c.most_common()) for s, c in sorted(stages.items())},
        flags=len(flags), flagged_requests=flagged, flag_rate=_rate(flagged, n),
        flags_by_pattern=dict(Counter(f.pattern for f in flags).most_common()),
        latency=latency, latency_p50=latency["p50"], latency_p95=latency["p95"],
        stage_latency={s: {"p50": _percentile(v, 50), "p95": _percentile(v, 95)} for s in stage_names
                       if (v := [float(r.timings[s]) for r in records if s in r.timings])},
        backends=dict(Counter(backend_name(r.backend) for r in records).most_common()),
        verifiers=dict(Counter(verifier_name(r) for r in records).most_common()),
        kb_revisions=dict(Counter(str(r.kb_revision) for r in records).most_common()),
    )


def _changes(groups: list[Group], by_requests: bool) -> list[Change]:
    changes: list[Change] = []
    previous: dict[str, Any] = {}
    for index, (label, start, end, members) in enumerate(groups):
        for j, (t, record) in enumerate(members):
            current = identity(record)
            new_backend = previous.get("backend", current["backend"]) != current["backend"]
            for kind, value in current.items():
                before = previous.get(kind, _UNKNOWN)
                if value is _UNKNOWN:
                    continue  # keep the last known value
                if before is not _UNKNOWN and before != value:
                    if kind == "backend_options":
                        if new_backend:
                            previous[kind] = value
                            continue  # another backend: its options differ as a matter of course
                        keys = sorted(k for k in set(before) | set(value) if before.get(k) != value.get(k))
                        before, value_shown = ({k: before.get(k) for k in keys}, {k: value.get(k) for k in keys})
                    else:
                        value_shown = value
                    frac = j / max(1, len(members)) if by_requests else (t - start) / (end - start)
                    changes.append(Change(record.created_at, record.id, label, round(index - 0.5 + frac, 4),
                                          kind, before, value_shown))
                previous[kind] = value
    return changes


# -- what a record was produced with ---------------------------------------------------------------
def identity(record: AuditRecord) -> dict[str, Any]:
    """checker, threshold, model, backend, kb_revision and the backend's answer threshold of a record
    (`_UNKNOWN` where not stored: records before the answer threshold was logged, backends without one)."""
    verifier = record.result.get("verifier")
    report = _report(record) or {}
    if isinstance(verifier, dict):
        checker, threshold, model = verifier.get("checker"), verifier.get("threshold"), verifier.get("model")
    else:  # older records: the report's checker and threshold, when an answer was verified
        checker = report.get("checker", _UNKNOWN)
        threshold = report.get("threshold", _UNKNOWN)
        model = _UNKNOWN
    options = {k: v for k, v in dict(record.backend.get("options") or {}).items() if k not in ("model", "model_path")}
    applied = record.backend.get("threshold")  # the extractive backend's: an option, the KB's own or the default
    return {"checker": checker, "threshold": threshold, "model": model, "backend": backend_name(record.backend),
            "backend_options": options,
            "kb_revision": record.kb_revision if record.kb_revision is not None else _UNKNOWN,
            "answer_threshold": applied.get("value", _UNKNOWN) if isinstance(applied, dict) else _UNKNOWN}


def backend_name(backend: Mapping[str, Any]) -> str:
    """The backend's name and, when it has one, the model it runs (`openai:gpt-4o-mini`); a change of
    any other option is reported as a `backend_options` change."""
    options = dict(backend.get("options") or {})
    model = options.get("model") or options.get("model_path")
    return str(backend.get("name", "?")) + (f":{Path(str(model)).name}" if model else "")


def verifier_name(record: AuditRecord) -> str:
    ident = identity(record)
    if ident["checker"] is _UNKNOWN:
        return "unknown"
    text = f"{ident['checker']} threshold={ident['threshold']}"
    if ident["model"] is not _UNKNOWN and ident["model"]:
        text += f" model={ident['model']}"
    return text


_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|“[^”]*”|‘[^’]*’")
_SOURCE = re.compile(r"\b[Ss]\d+\b")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def reason_kind(reason: str) -> str:
    """A reason with its particulars (quotes, source ids, numbers) replaced, so that reasons group:
    "S2 does not state the number 90" -> "S# does not state the number N"."""
    text = _QUOTED.sub("'…'", reason.strip())
    text = _NUMBER.sub("N", _SOURCE.sub("S#", text))
    return text[:160] or "(no reason)"


# -- small helpers -------------------------------------------------------------------------------
def _report(record: AuditRecord) -> dict[str, Any] | None:
    report = record.result.get("report") if isinstance(record.result, dict) else None
    return report if isinstance(report, dict) else None


def _total_seconds(timings: Mapping[str, float]) -> float:
    return float(sum(v for k, v in timings.items() if k != "failed" and isinstance(v, (int, float))))


def _rate(k: int, n: int) -> float | None:
    return round(k / n, 4) if n else None


def _mean(values: Iterable[Any]) -> float | None:
    finite = [float(v) for v in values if isinstance(v, (int, float)) and math.isfinite(v)]
    return round(sum(finite) / len(finite), 4) if finite else None


def _percentile(values: Sequence[float], q: float) -> float:
    """Linear interpolation between closest ranks (numpy's default)."""
    s = sorted(values)
    if len(s) == 1:
        return round(s[0], 6)
    pos = (len(s) - 1) * q / 100
    lo = math.floor(pos)
    hi = min(lo + 1, len(s) - 1)
    return round(s[lo] + (s[hi] - s[lo]) * (pos - lo), 6)


def _short(value: Any) -> str:
    if value is None:
        return "none"
    text = str(value)
    return text[:12] + "…" if len(text) > 16 else text


__all__ = ["METRICS", "Change", "Check", "DriftReport", "PeriodStats", "build_report", "check_limits",
           "identity", "load_records", "parse_by", "parse_limits", "parse_since", "reason_kind"]
