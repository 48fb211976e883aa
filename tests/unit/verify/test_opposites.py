"""A claim that swaps a word of its source for its opposite scores lower (checks/opposites.py)."""

from __future__ import annotations

import pytest

from citebound.text.stem import stem
from citebound.text.tokenize import tokens
from citebound.verify import check_claim
from citebound.verify.checks.lexical import source_states
from citebound.verify.checks.opposites import OPPOSITE_FACTOR, OPPOSITES, opposed_words, swapped_opposites


def opposed(claim: str, source: str) -> list[tuple[str, str]]:
    return opposed_words(claim, source, source_states(source))


def test_the_table_is_symmetric_and_in_stems():
    assert all(a in OPPOSITES[b] for a, others in OPPOSITES.items() for b in others)
    assert OPPOSITES[stem("decreases")] >= {stem("increase")}
    assert stem("cooling") in OPPOSITES[stem("warming")]


@pytest.mark.parametrize(
    "claim, source, pair",
    [
        ("Haplogroup I decreases the risk of heart disease.", "Haplogroup I increases the risk of heart disease.",
         ("decreases", "increases")),
        ("The bank lost $3.1 billion.", "The bank earned $3.1 billion.", ("lost", "earned")),
        ("Gain in EEG power fell.", "Gain in EEG power rose sharply.", ("fell", "rose")),
        ("Prices went down.", "Prices went up in May.", ("down", "up")),  # stop words, read as written
        # a beginning is not an end (2026-12-01: `full` supported "completed" against "began", P = 0.96)
        ("The bridge was completed in 1932.", "Construction of the bridge began in 1932.", ("completed", "began")),
        ("The race started at noon.", "The race finished at noon.", ("started", "finished")),
        # a superlative turned round
        ("The team ranked highest in the survey.", "The team ranked lowest in the survey of 40 clubs.",
         ("highest", "lowest")),
        ("The Vega is the cheapest model.", "The Vega is the priciest model in the range.", ("cheapest", "priciest")),
        # "the most expensive" against "the cheapest" (a review of 2026-12-03: full supported it)
        ("The Vega is the most expensive model.", "The Vega is the cheapest model in the range.",
         ("expensive", "cheapest")),
    ],
)  # fmt: skip
def test_a_word_the_source_never_states_against_its_opposite_is_found(claim, source, pair):
    assert opposed(claim, source) == [pair]


@pytest.mark.parametrize(
    "claim, source",
    [
        ("The drug lowers blood pressure.", "The drug lowers blood pressure and increases heart rate."),  # stated
        ("Sales increased and costs decreased.", "Sales increased while costs decreased."),  # both stated
        ("Costs rose.", "Costs rose in May and fell in June."),  # the claim's word is in the source
        ("Plan B has more features than plan A.", "Plan A has fewer features than plan B."),  # the comparison rule's
        ("The lake is cold.", "The lake is deep."),  # no opposite in the source
        ("The bridge was completed in 1937.", "Construction of the bridge began in 1932 and was completed in 1937."),
        ("The project started in May.", "The project began in May."),  # the same, in other words
        ("Applicants must complete the form before the course begins.",
         "Before the course begins, applicants must complete the form."),
    ],
)  # fmt: skip
def test_no_opposite_when_the_source_states_the_word_or_a_comparison_restates_it(claim, source):
    assert opposed(claim, source) == []


def test_the_penalty_halves_the_lexical_score_and_is_named():
    source = "Haplogroup I increases the risk of heart disease by 50 percent."
    # "sharply" is not in the source: the claim is not the source's statement with one word swapped, so
    # the opposite only halves the lexical score (no block)
    v = check_claim("Haplogroup I sharply decreases the risk of heart disease.", ["S1"], {"S1": source},
                    checker="deterministic")
    assert (v.label, v.stage) == ("unsupported", "lexical")
    assert "the claim says 'decreases' where the evidence says 'increases'" in v.reason
    plain = check_claim("Haplogroup I sharply raises the risk of heart disease.", ["S1"], {"S1": source},
                        checker="deterministic")
    assert v.score < plain.score and OPPOSITE_FACTOR == 0.5


def test_the_source_statement_with_one_word_swapped_is_blocked_whatever_a_model_says():
    source = "Haplogroup I increases the risk of heart disease by 50 percent."
    v = check_claim("Haplogroup I decreases the risk of heart disease.", ["S1"], {"S1": source})
    assert (v.label, v.stage) == ("unsupported", "opposite")
    assert "the claim says 'decreases' where its evidence says 'increases'" in v.reason
    states = source_states(source)
    assert swapped_opposites("Haplogroup I decreases the risk of heart disease.", source, states)
    assert not swapped_opposites("Haplogroup I decreases the risk of stroke.", source, states)  # says more
    assert not swapped_opposites("Haplogroup I increases the risk of heart disease.", source, states)
    # an exception turns it around: "closed on Mondays" restates "open every day except Mondays"
    museum = "The museum is open every day except Mondays."
    assert not swapped_opposites("The museum is closed on Mondays.", museum, source_states(museum))
    # "every day" states each day: "closed on Tuesdays" is its opposite (2026-12-01: `full` supported it, P = 0.75)
    assert swapped_opposites("The museum is closed on Tuesdays.", museum, source_states(museum))
    pool = "The pool is open daily from 7 am."
    assert swapped_opposites("The pool is closed on Sundays.", pool, source_states(pool))


def test_stop_words_are_looked_up_as_written_in_the_whole_source():
    states = source_states("Prices went up. They never went down again.")
    assert states("down", "down") and states("up", "up") and not states("abov", "above")
    assert all(states(stem(t), t) for t in tokens("prices went"))


@pytest.mark.parametrize(
    "claim, source, pair",
    [
        ("The study shows an indirect link.", "The study shows a direct link.", ("indirect", "direct")),
        ("The output is correct.", "The output is incorrect.", ("correct", "incorrect")),
        ("The test is unreliable.", "The test is reliable and cheap.", ("unreliable", "reliable")),
    ],
)  # fmt: skip
def test_a_word_made_opposite_by_a_negative_prefix_is_found(claim, source, pair):
    assert opposed(claim, source) == [pair]


@pytest.mark.parametrize(
    "claim, source",
    [
        ("Food intake fell.", "Patients take the pill and eat less."),  # "take": too short to be a base
        ("The test is unreliable.", "The test is unreliable, not reliable."),  # the source states it
    ],
)  # fmt: skip
def test_a_prefix_match_needs_a_base_of_five_letters_and_a_word_the_source_lacks(claim, source):
    assert opposed(claim, source) == []


def test_the_least_of_a_word_is_no_opposite_of_its_opposite():
    # "the least expensive" is the cheapest: no halving, no block
    assert opposed("The Vega is the least expensive model.", "The Vega is the cheapest model in the range.") == []
