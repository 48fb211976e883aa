"""Risk–coverage pairs and the area under the curve (AURC)."""

import math

import pytest

from citebound.metrics import aurc, risk_coverage

CONF = [0.9, 0.8, 0.3, -math.inf]  # the last question is never answered
RIGHT = [True, False, True, False]


def test_risk_coverage_hand_worked():
    points = risk_coverage(CONF, RIGHT, points=3)  # thresholds 0.3, 0.8, 0.9 (quantiles), then inf
    by_cov = {round(p["coverage"], 2): round(p["risk"], 3) for p in points}
    assert by_cov == {0.75: round(1 / 3, 3), 0.5: 0.5, 0.25: 0.0, 0.0: 0.0}
    assert points[-1]["threshold"] == math.inf


def test_aurc_hand_worked():
    # answered in confidence order: right, wrong, right -> risks 0, 1/2, 1/3; divided by all 4 questions
    assert aurc(CONF, RIGHT) == pytest.approx((0 + 0.5 + 1 / 3) / 4)
    assert aurc([0.9, 0.1], [True, True]) == 0.0  # never wrong
    assert aurc([-math.inf], [False]) == 0.0  # never answers


def test_nothing_answerable_is_one_point():
    assert risk_coverage([-math.inf, -math.inf], [False, False]) == [{"threshold": math.inf, "coverage": 0.0, "risk": 0.0}]
