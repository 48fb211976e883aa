"""citebound.testing.assert_grounded: passes grounded answers, fails with a message naming each bad claim."""

from __future__ import annotations

import pytest

from citebound.testing import assert_grounded
from citebound.text.citations import ABSTENTION_SENTENCE
from citebound.verify.checkers import DEFAULT_CHECKER

SOURCES = {"S1": "Refunds are paid within five business days of the return.",
           "S2": "Express delivery arrives the next business day and costs 12 euros."}


def test_grounded_answers_pass_with_and_without_markers():
    row = assert_grounded("Refunds are paid within five business days [S1]. Express delivery costs 12 euros [2].",
                          SOURCES)
    assert row["faithfulness"] == 1.0
    assert assert_grounded("Express delivery costs 12 euros.", list(SOURCES.values()))["label"] == "faithful"


def test_failure_lists_each_unsupported_claim_and_its_reason():
    with pytest.raises(AssertionError) as info:
        assert_grounded("Refunds are paid within five business days [1]. Refunds take ten days [1]. "
                        "Shipping is free [9].", list(SOURCES.values()))
    message = str(info.value)
    assert message.splitlines()[0] == ("answer is not grounded: faithfulness 0.33 < 1.00 "
                                       f"(1 of 3 claims supported, checker {DEFAULT_CHECKER})")
    assert "- unsupported: 'Refunds take ten days.' — S1 does not state the number 10 ('ten')" in message
    assert "'Shipping is free.'" in message and "citation [9] names no source" in message


def test_min_faithfulness_abstention_and_empty():
    answer = "Express delivery costs 12 euros. The warehouse is in Lyon."
    assert assert_grounded(answer, SOURCES, min_faithfulness=0.5)["faithfulness"] == 0.5
    with pytest.raises(AssertionError, match="0.50 < 0.60"):
        assert_grounded(answer, SOURCES, min_faithfulness=0.6)
    assert assert_grounded(ABSTENTION_SENTENCE, SOURCES)["label"] == "abstained"
    with pytest.raises(AssertionError, match="abstention"):
        assert_grounded(ABSTENTION_SENTENCE, SOURCES, allow_abstention=False)
    with pytest.raises(AssertionError, match="empty"):
        assert_grounded("   ", SOURCES)
    with pytest.raises(ValueError):
        assert_grounded(answer, SOURCES, min_faithfulness=1.5)
