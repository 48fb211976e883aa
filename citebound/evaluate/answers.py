"""Evaluate answers you already have: logged RAG outputs (question, answer, contexts) scored by the verifier.

    from citebound.evaluate.answers import evaluate_answers, read_answer_rows
    report = evaluate_answers([{"user_input": "...", "response": "...", "retrieved_contexts": ["...", "..."]}])
    report.faithfulness, report.rows[0]["label"], report.to_dict()

Rows are dicts. Column names are recognised for RAGAS (`user_input`, `response`, `retrieved_contexts`,
`reference`), DeepEval (`input`, `actual_output`, `retrieval_context`, `expected_output`) and plain
(`question`, `answer`, `contexts`); `mapping` ({field: column}) names your own. Contexts are a list of
strings (labelled S1..Sn in that order, so `[1]` cites the first) or an id -> text mapping (ids kept).

Per row:
- an answer **with** citation markers is verified as written (`citebound.verify.verify_answer`):
  claims, citation precision and recall (ALCE), uncited sentences, invalid citations;
- an answer **without** markers is checked sentence by sentence as if each sentence cited every
  context (the cascade's "any cited source supports it" rule), and each claim names the context that
  supports it (`source_id`, `span`). Every sentence is a claim there, however short.
- `faithfulness` = supported claims / claims (partial counts as not supported). Rows without claims
  get a label instead of a NaN: `abstained` (only abstention sentences), `empty` (blank answer) or
  `no_claims`; their faithfulness is 1.0 (they state nothing the contexts do not support) and they
  are left out of the mean `faithfulness`, which is over rows that have claims.
- labels of rows with claims: `faithful` (all supported), `partially_faithful`, `unfaithful` (none).
- a row that cannot be read (no answer column, contexts missing or not text, malformed JSON line) is
  an error with its reason (`report.errors`); the run goes on.

Aggregates carry 95 % bootstrap confidence intervals (percentile, 1000 resamples of rows, fixed seed).
"""

from __future__ import annotations

import ast
import csv
import html
import json
import re
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, is_dataclass
from pathlib import Path
from typing import Any

import numpy as np

from citebound.errors import InputError
from citebound.text.citations import ABSTENTION_SENTENCES
from citebound.verify import Cascade, make_checker, verify_answer
from citebound.verify.checkers import DEFAULT_CHECKER
from citebound.verify.citations import parse_markers, split_claims
from citebound.verify.schema import GroundedAnswer, parse_grounded_answer

# field -> column names recognised, in order of preference
COLUMNS: dict[str, tuple[str, ...]] = {
    "id": ("id", "_id", "qid", "question_id", "row_id"),
    "question": ("user_input", "input", "question", "query"),
    "answer": ("response", "actual_output", "answer", "output", "generated_answer"),
    "contexts": ("retrieved_contexts", "retrieval_context", "contexts", "sources", "documents", "context"),
    "reference": ("reference", "expected_output", "ground_truth", "ground_truths", "gold_answer"),
}
FIELDS = tuple(COLUMNS)
ROW_LABELS = ("faithful", "partially_faithful", "unfaithful", "abstained", "empty", "no_claims")
N_BOOTSTRAP = 1000
SEED = 0
# Whole sentences read as an abstention (compared ignoring case and spacing): citebound's own, and the
# plainest ones other systems log. More with `abstentions=` / `--abstention`.
DEFAULT_ABSTENTIONS: tuple[str, ...] = (*ABSTENTION_SENTENCES, "I don't know.", "I do not know.")


@dataclass(frozen=True)
class AnswerRow:
    """One logged answer, normalised: contexts keyed by the ids the answer's markers would use."""

    index: int
    id: str
    question: str
    answer: str | GroundedAnswer
    contexts: dict[str, str]
    reference: str | None = None


@dataclass
class AnswersReport:
    """What `evaluate_answers` found: per-row results, errors, and aggregates with bootstrap CIs."""

    rows: list[dict[str, Any]]
    errors: list[dict[str, Any]]
    checker: str
    threshold: float
    seconds: float
    n_input: int
    aggregates: dict[str, Any] = field(default_factory=dict)

    @property
    def faithfulness(self) -> float | None:
        return self.aggregates.get("faithfulness")

    def to_dict(self) -> dict[str, Any]:
        return {
            "n": self.n_input,
            "n_scored": len(self.rows),
            "n_errors": len(self.errors),
            **self.aggregates,
            "checker": self.checker,
            "threshold": self.threshold,
            "seconds": round(self.seconds, 3),
            "rows_per_second": round(len(self.rows) / self.seconds, 2) if self.seconds > 0 else None,
            "errors": self.errors,
            "rows": self.rows,
        }


# -- reading ---------------------------------------------------------------------------------------
def parse_mapping(spec: str | None) -> dict[str, str]:
    """`--map question=q,answer=resp,contexts=ctx` -> {field: column}; unknown fields are an InputError."""
    mapping: dict[str, str] = {}
    for part in (spec or "").split(","):
        if not part.strip():
            continue
        key, sep, column = part.partition("=")
        key, column = key.strip(), column.strip()
        if not sep or not column:
            raise InputError(f"--map entry {part.strip()!r} is not field=column")
        if key not in FIELDS:
            raise InputError(f"--map names unknown field {key!r}; fields: {', '.join(FIELDS)}")
        mapping[key] = column
    return mapping


def read_answer_rows(path: str | Path) -> Iterator[dict[str, Any] | InputError]:
    """The rows of a JSON lines, JSON (a list, or {"test_cases"|"samples"|"rows": [...]}) or CSV/TSV file.
    A line that cannot be read is yielded as an InputError (naming the line) so the run can go on."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"no such file: {path}")
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        with path.open(encoding="utf-8-sig", newline="") as fh:
            yield from csv.DictReader(fh, delimiter="\t" if suffix == ".tsv" else ",")
        return
    if suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict):
            data = next((data[k] for k in ("test_cases", "samples", "rows", "data") if isinstance(data.get(k), list)), None)
        if not isinstance(data, list):
            raise InputError(f"{path}: expected a JSON list of rows (or JSON lines)")
        yield from (row if isinstance(row, dict) else InputError(f"item {i} is not an object") for i, row in enumerate(data, 1))
        return
    with path.open(encoding="utf-8") as fh:
        for line_no, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except ValueError as exc:
                yield InputError(f"line {line_no}: not JSON ({exc.msg})")
                continue
            yield row if isinstance(row, dict) else InputError(f"line {line_no}: not a JSON object")


def _column(raw: Mapping[str, Any], name: str, mapping: Mapping[str, str]) -> tuple[str | None, Any]:
    if name in mapping:
        col = mapping[name]
        if col not in raw:
            return None, None
        return col, raw[col]
    for col in COLUMNS[name]:
        if col in raw:
            return col, raw[col]
    return None, None


def _decode_text_cell(value: Any) -> Any:
    """CSV cells hold lists/dicts as JSON or as Python literals (pandas writes `['a', 'b']`)."""
    if not isinstance(value, str):
        return value
    stripped = value.strip()
    if stripped[:1] in ("[", "{"):
        try:
            return json.loads(stripped)
        except ValueError:
            try:
                return ast.literal_eval(stripped)
            except (ValueError, SyntaxError, MemoryError, RecursionError):
                return value
    return value


def normalise_contexts(value: Any) -> dict[str, str]:
    """A list of strings -> {S1: ..., Sn: ...}; a mapping -> {str(id): text}; a lone string -> {S1: it}.
    Items that are dicts with a `text`/`page_content`/`content` key are read as that text."""
    value = _decode_text_cell(value)
    if value is None:
        raise InputError("the row has no contexts")
    if isinstance(value, str):
        value = [value]
    if isinstance(value, Mapping):
        items = [(str(k), v) for k, v in value.items()]
    elif isinstance(value, (list, tuple)):
        items = [(f"S{i}", v) for i, v in enumerate(value, 1)]
    else:
        raise InputError(f"contexts must be a list of strings or an id -> text mapping, got {type(value).__name__}")
    out: dict[str, str] = {}
    for key, text in items:
        if isinstance(text, Mapping):
            text = next((text[k] for k in ("text", "page_content", "content") if isinstance(text.get(k), str)), text)
        if not isinstance(text, str):
            raise InputError(f"context {key} is not text ({type(text).__name__})")
        out[key] = text
    if not out or not any(t.strip() for t in out.values()):
        raise InputError("the row has no contexts (empty list or blank texts)")
    return out


def as_mapping(raw: Any) -> Mapping[str, Any]:
    """A row as a mapping: dicts as they are; pydantic models (RAGAS `SingleTurnSample`, DeepEval
    `LLMTestCase`), dataclasses and plain objects by their fields."""
    if isinstance(raw, Mapping):
        return raw
    if hasattr(raw, "model_dump"):
        return raw.model_dump()
    if is_dataclass(raw) and not isinstance(raw, type):
        return asdict(raw)
    if hasattr(raw, "__dict__") and not isinstance(raw, type):
        return vars(raw)
    raise InputError(f"row is not an object ({type(raw).__name__})")


def normalise_row(raw: Mapping[str, Any], index: int, mapping: Mapping[str, str] | None = None) -> AnswerRow:
    """One input row -> AnswerRow; a row that cannot be scored raises InputError with the reason."""
    mapping = mapping or {}
    raw = as_mapping(raw)
    answer_col, answer = _column(raw, "answer", mapping)
    if answer_col is None:
        wanted = mapping.get("answer") or " / ".join(COLUMNS["answer"])
        raise InputError(f"no answer column ({wanted}); name yours with --map answer=COLUMN")
    answer = _decode_text_cell(answer) if isinstance(answer, str) and answer.strip().startswith("{") else answer
    if answer is None:
        answer = ""
    if isinstance(answer, Mapping):
        try:
            answer = parse_grounded_answer(json.dumps(answer))
        except InputError as exc:
            raise InputError(f"the answer object is not a GroundedAnswer: {exc}") from None
    elif not isinstance(answer, str):
        raise InputError(f"the answer is not text ({type(answer).__name__})")
    ctx_col, contexts = _column(raw, "contexts", mapping)
    if ctx_col is None:
        wanted = mapping.get("contexts") or " / ".join(COLUMNS["contexts"])
        raise InputError(f"no contexts column ({wanted}); name yours with --map contexts=COLUMN")
    contexts = normalise_contexts(contexts)
    _, question = _column(raw, "question", mapping)
    _, reference = _column(raw, "reference", mapping)
    _, row_id = _column(raw, "id", mapping)
    return AnswerRow(
        index=index,
        id=str(row_id) if row_id not in (None, "") else str(index),
        question="" if question is None else str(question),
        answer=answer,
        contexts=contexts,
        reference=None if reference in (None, "") else (reference if isinstance(reference, str) else json.dumps(reference)),
    )


# -- scoring ---------------------------------------------------------------------------------------
def _claim_dict(v: Any, contexts: Mapping[str, str]) -> dict[str, Any]:
    d = v.to_dict()
    d.pop("checks", None)
    d["supporting_contexts"] = list(v.supporting_ids)
    if v.label != "supported":  # where the claim came closest: what a reader compares it with
        near = [c for c in v.checks if c.span and c.source_id in contexts]
        best = max(near, key=lambda c: c.score, default=None)
        d["closest"] = {"source_id": best.source_id, "span": list(best.span)} if best else None
    return d


def _row_label(n_claims: int, n_supported: int) -> str:
    if n_supported == n_claims:
        return "faithful"
    return "unfaithful" if n_supported == 0 else "partially_faithful"


def score_row(row: AnswerRow, cascade: Cascade, abstentions: Sequence[str] = DEFAULT_ABSTENTIONS) -> dict[str, Any]:
    """The verdicts and figures of one row (see the module docstring)."""
    base: dict[str, Any] = {"index": row.index, "id": row.id, "question": row.question,
                            "answer": row.answer.answer if isinstance(row.answer, GroundedAnswer) else row.answer,
                            "reference": row.reference, "contexts": row.contexts}
    text = base["answer"]
    if not text.strip():
        return {**base, "label": "empty", "faithfulness": 1.0, "n_claims": 0, "n_supported": 0, "claims": [],
                "mode": None, "abstained": False}
    structured = isinstance(row.answer, GroundedAnswer)
    if structured or parse_markers(text):
        report = verify_answer(row.answer, row.contexts, checker=cascade, abstentions=abstentions)
        claims = [_claim_dict(v, row.contexts) for v in report.claims]
        extra = {"mode": "cited", "citation_precision": round(report.citation_precision, 4),
                 "citation_recall": round(report.citation_recall, 4), "n_citations": report.n_citations,
                 "uncited_sentences": list(report.uncited_sentences),
                 "invalid_citations": list(report.invalid_citations)}
        abstained = report.abstained
    else:
        found, abstained = split_claims(text, abstentions)
        ids = tuple(row.contexts)
        claims = []
        for c in found:
            v = cascade.check_claim(c.text, ids, row.contexts)
            d = _claim_dict(v, row.contexts)
            d["claim_span"] = [c.start, c.end]
            d["cited_ids"] = []  # checked against every context: nothing was cited
            claims.append(d)
        extra = {"mode": "uncited"}
    n_supported = sum(c["label"] == "supported" for c in claims)
    if not claims:
        label = "abstained" if abstained else "no_claims"
        return {**base, **extra, "label": label, "faithfulness": 1.0, "n_claims": 0, "n_supported": 0,
                "claims": [], "abstained": abstained}
    return {**base, **extra, "label": _row_label(len(claims), n_supported),
            "faithfulness": round(n_supported / len(claims), 4), "n_claims": len(claims),
            "n_supported": n_supported, "claims": claims, "abstained": False}


def verify_row(answer: str | GroundedAnswer, contexts: Any, *, checker: str | Cascade = DEFAULT_CHECKER,
               question: str = "", threshold: float | None = None,
               abstentions: Sequence[str] = DEFAULT_ABSTENTIONS) -> dict[str, Any]:  # fmt: skip
    """`score_row` for one answer and its contexts (a list of strings or an id -> text mapping): what the
    framework adapters and `citebound.testing` call."""
    cascade = checker if isinstance(checker, Cascade) else make_checker(checker, threshold=threshold)
    if answer is None:
        answer = ""
    row = score_row(AnswerRow(0, "0", question, answer, normalise_contexts(contexts)), cascade, abstentions)
    row["checker"] = cascade.name
    return row


def supported_text(row: Mapping[str, Any], abstention: str | None = None) -> str:
    """The row's answer with every claim that is not `supported` cut out (citation markers and sentences
    that are not claims stay). When no supported claim is left, `abstention` (default: citebound's own
    abstention sentence) — an answer of only unsupported claims is not shown as if it were grounded."""
    from citebound.text.citations import ABSTENTION_SENTENCE

    text = row["answer"]
    cuts = sorted(tuple(c["claim_span"]) for c in row["claims"] if c["label"] != "supported" and c.get("claim_span"))
    if not cuts:
        return text
    if not any(c["label"] == "supported" for c in row["claims"]):
        return ABSTENTION_SENTENCE if abstention is None else abstention
    kept, pos = [], 0
    for start, end in cuts:
        kept.append(text[pos:start])
        pos = max(pos, end)
    kept.append(text[pos:])
    joined = re.sub(r"[ \t]{2,}", " ", "".join(kept))
    joined = re.sub(r"[ \t]+\n", "\n", joined)
    return re.sub(r"\n{3,}", "\n\n", joined).strip()


def bootstrap_ci(values: Sequence[float], *, n_boot: int = N_BOOTSTRAP, seed: int = SEED,
                 level: float = 0.95) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean of `values` (None when there are none)."""
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return None
    rng = np.random.default_rng(seed)
    means = arr[rng.integers(0, arr.size, size=(n_boot, arr.size))].mean(axis=1)
    lo, hi = np.quantile(means, [(1 - level) / 2, 1 - (1 - level) / 2])
    return round(float(lo), 4), round(float(hi), 4)


def aggregate(rows: Sequence[Mapping[str, Any]], *, n_boot: int = N_BOOTSTRAP, seed: int = SEED) -> dict[str, Any]:
    """Means over the rows where each figure is defined, each with a bootstrap CI, and label counts."""
    with_claims = [r for r in rows if r["n_claims"] > 0]
    cited = [r for r in with_claims if r.get("mode") == "cited"]
    n_claims = sum(r["n_claims"] for r in rows)
    out: dict[str, Any] = {}

    def put(name: str, values: list[float]) -> None:
        out[name] = round(float(np.mean(values)), 4) if values else None
        out[f"{name}_ci"] = bootstrap_ci(values, n_boot=n_boot, seed=seed)

    put("faithfulness", [r["faithfulness"] for r in with_claims])
    put("faithful_rate", [float(r["label"] == "faithful") for r in with_claims])
    put("abstention_rate", [float(r["label"] == "abstained") for r in rows])
    put("citation_precision", [r["citation_precision"] for r in cited])
    put("citation_recall", [r["citation_recall"] for r in cited])
    out["abstained"] = sum(r["label"] == "abstained" for r in rows)
    out["labels"] = {label: sum(r["label"] == label for r in rows) for label in ROW_LABELS}
    out["n_with_claims"] = len(with_claims)
    out["n_cited"] = len(cited)
    out["n_claims"] = n_claims
    out["n_supported_claims"] = sum(r["n_supported"] for r in rows)
    out["claim_support_rate"] = round(out["n_supported_claims"] / n_claims, 4) if n_claims else None
    out["bootstrap"] = {"resamples": n_boot, "seed": seed, "level": 0.95, "method": "percentile, rows resampled"}
    return out


def evaluate_answers(
    rows: Iterable[Mapping[str, Any] | InputError],
    *,
    checker: str | Cascade = DEFAULT_CHECKER,
    threshold: float | None = None,
    model: str | None = None,
    mapping: Mapping[str, str] | None = None,
    progress: bool = False,
    total: int | None = None,
    abstentions: Iterable[str] = (),
    n_boot: int = N_BOOTSTRAP,
    seed: int = SEED,
) -> AnswersReport:
    """Score every row (see the module docstring); bad rows are collected in `errors`, never raised.

    `rows` are dicts (RAGAS, DeepEval or plain column names; `mapping` = {field: column} for yours), objects
    with those fields (RAGAS `dataset.samples`, DeepEval test cases, dataclasses), or InputErrors from
    `read_answer_rows` (counted as errors). `checker` is a registered name
    (deterministic, full, model, lexical) or a ready Cascade. `abstentions`: more whole sentences that
    mean "no answer" in your system, added to DEFAULT_ABSTENTIONS."""
    if isinstance(checker, Cascade):
        cascade = checker
    else:
        cascade = make_checker(checker, threshold=threshold, **({"model": model} if model else {}))
    from tqdm import tqdm

    known_abstentions = (*DEFAULT_ABSTENTIONS, *abstentions)
    results: list[dict[str, Any]] = []
    errors: list[dict[str, Any]] = []
    n_input = 0
    t0 = time.perf_counter()
    for index, raw in enumerate(tqdm(rows, desc="answers", unit="row", total=total, disable=not progress), 1):
        n_input += 1
        try:
            if isinstance(raw, InputError):
                raise raw
            row = normalise_row(raw, index, mapping)
            results.append(score_row(row, cascade, known_abstentions))
        except Exception as exc:  # noqa: BLE001 - one bad row never stops the run; a bug says what it was
            reason = str(exc) if isinstance(exc, InputError) else f"internal error ({type(exc).__name__}: {exc})"
            row_id = raw.get("id", raw.get("_id")) if isinstance(raw, Mapping) else getattr(raw, "id", None)
            errors.append({"index": index, "id": None if row_id is None else str(row_id), "reason": reason})
    seconds = time.perf_counter() - t0
    report = AnswersReport(rows=results, errors=errors, checker=cascade.name, threshold=cascade.threshold,
                           seconds=seconds, n_input=n_input)
    report.aggregates = aggregate(results, n_boot=n_boot, seed=seed)
    return report


def evaluate_answers_file(path: str | Path, **kwargs: Any) -> AnswersReport:
    """`evaluate_answers` over the rows of a JSON lines / JSON / CSV file."""
    path = Path(path)
    total = None
    if path.suffix.lower() not in (".csv", ".tsv", ".json") and path.is_file():
        with path.open(encoding="utf-8", errors="replace") as fh:
            total = sum(1 for line in fh if line.strip())
    return evaluate_answers(read_answer_rows(path), total=total, **kwargs)


# -- text and HTML -----------------------------------------------------------------------------------
def _fmt_ci(value: float | None, ci: Sequence[float] | None) -> str:
    if value is None:
        return "n/a"
    return f"{value:.3f}" + (f" [{ci[0]:.3f}, {ci[1]:.3f}]" if ci else "")


def format_text(report: AnswersReport) -> list[str]:
    """The lines `citebound eval answers` prints."""
    a = report.aggregates
    lines = [
        f"{report.n_input} rows: {len(report.rows)} scored, {len(report.errors)} errors; checker {report.checker} "
        f"(threshold {report.threshold:g}); {len(report.rows) / report.seconds if report.seconds else 0:.1f} rows/s",
        f"faithfulness (mean over {a['n_with_claims']} rows with claims, 95% CI): {_fmt_ci(a['faithfulness'], a['faithfulness_ci'])}",
        f"rows fully faithful: {_fmt_ci(a['faithful_rate'], a['faithful_rate_ci'])}; "
        f"claims supported: {a['n_supported_claims']}/{a['n_claims']}",
    ]
    if a["n_cited"]:
        lines.append(f"answers with citations: {a['n_cited']}; citation precision "
                     f"{_fmt_ci(a['citation_precision'], a['citation_precision_ci'])}, recall "
                     f"{_fmt_ci(a['citation_recall'], a['citation_recall_ci'])}")
    lines.append("labels: " + ", ".join(f"{k} {v}" for k, v in a["labels"].items() if v))
    for err in report.errors[:20]:
        lines.append(f"error in row {err['index']}" + (f" (id {err['id']})" if err["id"] else "") + f": {err['reason']}")
    if len(report.errors) > 20:
        lines.append(f"... and {len(report.errors) - 20} more errors (--json lists them all)")
    return lines


def worst_first(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Rows with claims, least faithful first (more unsupported claims first on ties), then the rest."""
    return sorted(rows, key=lambda r: (r["n_claims"] == 0, r["faithfulness"], -(r["n_claims"] - r["n_supported"]), r["index"]))


_EXTRA_STYLE = """<style>
.row{border-top:2px solid #ddd;margin-top:1.5rem;padding-top:.5rem}.answer{background:#fafafa;padding:.5rem}
mark.supported{background:#c8efc8}mark.partial{background:#fde9a9}mark.unsupported,mark.uncited{background:#f8c4c4}
mark.evidence{background:#c8efc8}mark.closest{background:none;outline:2px solid #e07070}.ctx{font-size:.9rem;border-left:3px solid #ccc;padding-left:.5rem;margin:.3rem 0}
.reason{color:#555;font-size:.85rem}ul.claims li{margin:.2rem 0}
</style>"""


def _highlight(text: str, spans: Sequence[tuple[int, int, str, str]]) -> str:
    """`text` escaped, with non-overlapping (start, end, css class, title) spans wrapped in <mark>."""
    out, pos = [], 0
    for start, end, cls, title in sorted(spans, key=lambda s: (s[0], s[2] != "evidence")):  # support wins ties
        if start < pos or end <= start or end > len(text):
            continue
        out.append(html.escape(text[pos:start]))
        out.append(f"<mark class='{cls}' title='{html.escape(title, quote=True)}'>{html.escape(text[start:end])}</mark>")
        pos = end
    out.append(html.escape(text[pos:]))
    return "".join(out)


def _row_html(row: Mapping[str, Any]) -> str:
    parts = [f"<div class='row'><h3>row {row['index']} (id {html.escape(str(row['id']))}): "
             f"{html.escape(row['label'])}, faithfulness {row['faithfulness']:.2f}</h3>"]
    if row["question"]:
        parts.append(f"<p><b>Question:</b> {html.escape(row['question'])}</p>")
    spans = [(*c["claim_span"], c["label"], c["reason"]) for c in row["claims"] if c.get("claim_span")]
    parts.append(f"<p class='answer'><b>Answer:</b> {_highlight(row['answer'], spans)}</p><ul class='claims'>")
    for c in row["claims"]:
        where = f" — {html.escape(c['source_id'])}" if c["label"] == "supported" and c.get("source_id") else ""
        parts.append(f"<li><mark class='{c['label']}'>{html.escape(c['label'])}</mark>{where} {html.escape(c['claim'])}"
                     f"<br><span class='reason'>{html.escape(c['reason'])}</span></li>")
    parts.append("</ul>")
    evidence: dict[str, list[tuple[int, int, str, str]]] = {}
    for c in row["claims"]:
        if c["label"] == "supported" and c.get("source_id") in row["contexts"] and c.get("span"):
            evidence.setdefault(c["source_id"], []).append((c["span"][0], c["span"][1], "evidence", c["claim"]))
        elif c.get("closest"):
            near = c["closest"]
            evidence.setdefault(near["source_id"], []).append(
                (near["span"][0], near["span"][1], "closest", f"closest to the {c['label']} claim: {c['claim']}"))
    parts.append("<details open><summary>Contexts (green: supporting span; red outline: where an unsupported "
                 "claim came closest)</summary>")
    for cid, text in row["contexts"].items():
        parts.append(f"<div class='ctx'><b>{html.escape(cid)}</b> {_highlight(text, evidence.get(cid, []))}</div>")
    parts.append("</details></div>")
    return "".join(parts)


def write_html(report: AnswersReport, path: str | Path, *, max_rows: int = 100, meta: dict[str, Any] | None = None) -> Path:
    """One self-contained HTML page: summary table, faithfulness distribution, label counts, then the
    worst rows first (up to `max_rows`) with each claim marked by its verdict against its contexts."""
    from citebound.evaluate.report import Plot, Section, render_html

    a = report.aggregates
    summary = [{"figure": "rows", "value": report.n_input, "95% CI": ""},
               {"figure": "errors", "value": len(report.errors), "95% CI": ""}]
    for name in ("faithfulness", "faithful_rate", "abstention_rate", "citation_precision", "citation_recall"):
        ci = a.get(f"{name}_ci")
        summary.append({"figure": name, "value": "n/a" if a.get(name) is None else a[name],
                        "95% CI": f"[{ci[0]:.3f}, {ci[1]:.3f}]" if ci else ""})
    labels = a["labels"]
    sections = [
        Section("Summary", text=(f"checker {report.checker}, threshold {report.threshold:g}; faithfulness = supported "
                                 "claims / claims, mean over rows that have claims. Faithfulness to the contexts, "
                                 "not factuality: a claim the contexts state is supported whether or not it is true."),
                table=summary),
        Section("Distribution", plots=[
            Plot("hist", "Faithfulness per row (rows with claims)",
                 series={"faithfulness": [r["faithfulness"] for r in report.rows if r["n_claims"]]},
                 xlabel="faithfulness", ylabel="rows"),
            Plot("bar", "Rows per label", x=[k.replace("partially_faithful", "partial").replace("_", " ") for k in labels],
                 series={"rows": [float(v) for v in labels.values()]}),
        ]),
    ]
    if report.errors:
        sections.append(Section("Rows that could not be scored", table=[dict(e) for e in report.errors[:200]]))
    page = render_html("Answer faithfulness", sections, meta)
    worst = [r for r in worst_first(report.rows) if r["n_claims"]][:max_rows]
    body = [_EXTRA_STYLE, f"<h2>Worst rows first ({len(worst)} shown)</h2>"]
    body.extend(_row_html(r) for r in worst)
    page = page.replace("</body></html>", "\n".join(body) + "\n</body></html>")
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(page, encoding="utf-8")
    return out


__all__ = [
    "COLUMNS",
    "AnswerRow",
    "AnswersReport",
    "aggregate",
    "bootstrap_ci",
    "evaluate_answers",
    "evaluate_answers_file",
    "format_text",
    "normalise_contexts",
    "normalise_row",
    "parse_mapping",
    "read_answer_rows",
    "score_row",
    "worst_first",
    "write_html",
]  # fmt: skip
