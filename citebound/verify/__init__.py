"""The claim verifier: checks each cited claim of an answer against the exact source text it cites.

Usable on its own, on any answer and any sources, with no retriever and no model: this package imports
only citebound.text, citebound.types and citebound.errors (tests/test_isolation.py enforces it).

    from citebound.verify import verify_answer
    report = verify_answer("Refunds take five business days [1].", {"1": "Refunds take five business days."})
    report.ok, report.groundedness, report.claims[0].label
"""

from citebound.verify.answer import check_claim, verify_answer
from citebound.verify.cascade import Cascade
from citebound.verify.checkers import CHECKERS, make_checker
from citebound.verify.checks.base import EntailmentScorer, SourceCheck
from citebound.text.citations import ABSTENTION_SENTENCES
from citebound.verify.citations import Claim, Marker, parse_markers, split_claims
from citebound.verify.report import AnswerReport, ClaimVerdict, QuoteCheck
from citebound.verify.schema import Citation, GroundedAnswer, parse_grounded_answer
from citebound.verify.spans import find_span, normalize_for_match

__all__ = [
    "ABSTENTION_SENTENCES", "CHECKERS", "AnswerReport", "Cascade", "Citation", "Claim", "ClaimVerdict",
    "EntailmentScorer", "GroundedAnswer", "Marker", "QuoteCheck", "SourceCheck", "check_claim",
    "find_span", "make_checker", "normalize_for_match", "parse_grounded_answer", "parse_markers",
    "split_claims", "verify_answer",
]  # fmt: skip
