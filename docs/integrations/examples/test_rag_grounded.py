"""Run: .venv/bin/python -m pytest docs/integrations/examples/test_rag_grounded.py -q

`my_rag` stands in for your system: it returns an answer and the contexts it was generated from."""

import pytest

from citebound.testing import assert_grounded

HANDBOOK = [
    "Refunds are processed within five business days after the returned item reaches our warehouse.",
    "Express delivery arrives the next business day and costs 12 euros.",
]


def my_rag(question: str) -> tuple[str, list[str]]:
    answers = {
        "How long do refunds take?": "Refunds are processed within five business days [1].",
        "How much is express delivery?": "Express delivery costs 12 euros [2]. It is free for members [2].",
    }
    return answers[question], HANDBOOK


def test_refund_answer_is_grounded():
    answer, contexts = my_rag("How long do refunds take?")
    assert_grounded(answer, contexts)


def test_express_answer_is_not_grounded():
    answer, contexts = my_rag("How much is express delivery?")
    with pytest.raises(AssertionError) as failure:
        assert_grounded(answer, contexts)
    print(failure.value)  # shown with pytest -s
    assert "'It is free for members.'" in str(failure.value)
    assert_grounded(answer, contexts, min_faithfulness=0.5)  # half the claims supported: enough here
