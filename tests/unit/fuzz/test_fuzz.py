"""Fuzzing citebound's entry points for user input (issue 11 §4): any exception other than citebound's
own errors fails. A fixed budget for CI (the `ci` profile: ~50 s in all on 2 shared cores); the same
properties run for minutes in bench/fuzz_bench.py."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import properties as p

settings.register_profile(
    "citebound-ci", max_examples=60, deadline=None, derandomize=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
)
ci = settings.get_profile("citebound-ci")


@ci
@given(p.texts, p.sources, p.thresholds, p.checkers)
def test_verify_answer(answer, srcs, threshold, checker):
    p.prop_verify_answer(answer, srcs, threshold, checker)


@ci
@given(p.json_lines_text, p.sources)
def test_verify_grounded_answer_json(payload, srcs):
    p.prop_grounded_answer(payload, srcs)


@ci
@given(p.texts, st.lists(p.source_ids, max_size=3), p.sources, p.thresholds, p.checkers)
def test_check_claim(claim, ids, srcs, threshold, checker):
    p.prop_check_claim(claim, ids, srcs, threshold, checker)


@settings(ci, max_examples=200)
@given(p.texts)
def test_citation_parser(text):
    p.prop_citations(text)


@settings(ci, max_examples=150)
@given(p.texts, st.integers(-2, 400), st.integers(-2, 400))
def test_chunker(text, size, overlap):
    p.prop_chunker(text, size, overlap)


@settings(ci, max_examples=150)
@given(st.one_of(p.json_lines_text, p.texts))
def test_sources_reader(text):
    p.prop_sources_reader(text)


@ci
@given(p.raw_bytes)
def test_beir_reader(data):
    p.prop_beir_reader(data)


@ci
@given(p.raw_bytes)
def test_questions_reader(data):
    p.prop_questions_reader(data)


@ci
@given(p.raw_bytes, st.sampled_from([".txt", ".md", ".html", ".pdf", ".jsonl"]))
def test_ingest_readers(data, suffix):
    p.prop_collect(data, suffix)


def test_verify_answer_accepts_any_threshold_in_0_1():
    from citebound.verify import verify_answer

    for threshold in (0.0, 0.3, 0.49):
        assert verify_answer("Refunds take 30 days [S1].", {"S1": "Refunds take 30 days."},
                             threshold=threshold).claims[0].supported
