"""Two values given to two things the other way round from the source (checks/crossed.py)."""

from __future__ import annotations

import pytest

from citebound.verify import check_claim
from citebound.verify.checks.crossed import compared_values, crossed_values, misplaced_values

PLANS = "The Basic plan costs $9 a month and the Premium plan costs $24 a month."


@pytest.mark.parametrize(
    "claim, source, owner",
    [
        ("The Basic plan costs $24 and the Premium $9.", PLANS, "basic"),
        ("The adult ticket costs 12 euros and the child ticket 20 euros.",
         "An adult ticket costs 20 euros and a child ticket costs 12 euros.", "adult"),
        # a model number belongs to its name, not to what it counts
        ("The Kestrel 5 lasts 9 hours and the Kestrel 7 lasts 12 hours.",
         "The Kestrel 5 lasts 12 hours, while the Kestrel 7 lasts 9 hours.", "kestrel 5"),
        # a value with no noun of its own counts what the value before it counts ("and Lyon 12")
        ("Paris had 12 stores and Lyon 40.", "Paris had 40 stores and Lyon 12.", "paris"),
        # an ordinal names a thing; it is no value
        ("The first floor has 30 rooms and the second floor has 18 rooms.",
         "The first floor has 18 rooms and the second floor has 30 rooms.", "first"),
    ],
)  # fmt: skip
def test_values_crossed_between_two_things_are_found_and_blocked(claim, source, owner):
    found = crossed_values(claim, source)
    assert found and f"to {owner!r}; the source gives it to" in found[0]
    for checker in ("deterministic", "full"):
        v = check_claim(claim, ("S1",), {"S1": source}, checker=checker)
        assert (v.label, v.stage) == ("unsupported", "numbers"), (checker, v.reason)


@pytest.mark.parametrize(
    "claim, source",
    [
        ("The Basic plan costs $9 and the Premium $24.", PLANS),
        ("The Basic plan costs $9 and the Premium $24.", "Premium costs $24 a month. Basic costs $9 a month."),
        # the owner may stand after its value: read nothing into the order then
        ("Sales rose 5% in Asia and 12% in Europe.", "Sales in Europe grew 12% while sales in Asia grew 5%."),
        ("The Basic plan costs $24 and the Premium $9.", "It costs $9 for Basic and $24 for Premium."),
        ("The Basic plan costs $24 and the Premium $9.", "The plans cost $24 and $9 respectively for Basic and Premium."),
        # one value in the claim, or values of different measures
        ("The Premium plan costs $24.", PLANS),
        ("The Kestrel 7 weighs 300 grams and lasts 9 hours.", "The Kestrel 7 lasts 9 hours and weighs 300 grams."),
        ("The Kestrel 5 lasts 12 hours and the Kestrel 7 lasts 9 hours.",
         "The Kestrel 5 lasts 12 hours, while the Kestrel 7 lasts 9 hours."),
        # a comparison's "versus" / "against" pairs its values by meaning, not by order (blind set 18: blocked)
        ("July was cooler than August this year, at 18.1°C versus 19.4°C.",
         "August was warmer than July this year, with a mean temperature of 19.4°C against July's 18.1°C."),
    ],
)  # fmt: skip
def test_values_paired_as_the_source_pairs_them_or_not_comparably_are_left_alone(claim, source):
    assert crossed_values(claim, source) == []


PROBATION = "Trainees serve a trial period of 4 months and get a mentor review after 2 months."


@pytest.mark.parametrize(
    "claim, source",
    [
        # blind set 18's kind: every checker supported it (full 0.97)
        ("Trainees serve a 2-month trial period.", PROBATION),
        ("The language course lasts 3 months.", "The language course lasts 6 months, with a review after 3 months."),
    ],
)
def test_a_value_the_source_gives_only_to_another_thing_is_misplaced(claim, source):
    assert misplaced_values(claim, source)
    v = check_claim(claim, ("S1",), {"S1": source}, checker="full")
    assert (v.label, v.stage) == ("unsupported", "numbers"), v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("Trainees serve a 4-month trial period.", PROBATION),
        ("Trainees get a mentor review after 2 months.", PROBATION),
        # an owner after its value, and a synonym of the equal value's words (a review of 2026-12-03)
        ("A child's ticket costs $6.", "Tickets cost $12 for adults and $6 for children."),
        # a change "from ... to": both values are the rate's (blind set 16's b16-37, blocked by a first version)
        ("The central bank raised its main interest rate to 4.5%.",
         "On Monday, the central bank raised its main interest rate from 4.25% to 4.5%, citing inflation."),
        ("A new hire's trial period can be lengthened by a further 3 months.",
         "New hires serve 6 months' probation, which may be extended by 3 months."),
        ("Staff get 10 days of sick pay.", "Staff get 25 days of leave and 10 days of sick pay."),
        ("The battery lasts 9 hours.", "The phone's screen lasts 12 hours and its battery 9 hours."),
        ("The Premium plan costs $24.", "It costs $9 for Basic and $24 for Premium."),
        # a participle after a comma goes on about the value ("$125 billion, making Harvey ...": a dev row)
        ("Harvey cost $125 billion.", "Officials set the total at $125 billion, making Harvey the second costliest "
                                      "storm, behind Katrina with costs of $161 billion."),
    ],
)  # fmt: skip
def test_a_value_said_with_the_claim_s_words_is_not_misplaced(claim, source):
    assert misplaced_values(claim, source) == []


GROWTH = "Seedlings kept under red lamps grew 14 cm, compared with 9 cm for those kept under blue lamps."


@pytest.mark.parametrize(
    "claim, source",
    [
        # the value after "compared with" is the other side's (every checker supported it: full 0.97)
        ("Seedlings kept under red lamps grew 9 cm.", GROWTH),
        ("Women earned $50,000 on average.", "Women earned $40,000 on average, compared with $50,000 among men."),
        ("Apple shares rose 1% on Tuesday.", "Apple shares rose 5% on Tuesday, compared with 1% for the Nasdaq index."),
        ("Girls averaged 62 points on the test.", "Girls averaged 68 points on the test, compared with 62 points for boys."),
    ],
)  # fmt: skip
def test_a_value_the_source_gives_to_the_other_side_of_a_comparison_is_unsupported(claim, source):
    assert compared_values(claim, source)
    v = check_claim(claim, ("S1",), {"S1": source}, checker="full")
    assert (v.label, v.stage) == ("unsupported", "numbers"), v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("Seedlings kept under blue lamps grew 9 cm.", GROWTH),
        ("Seedlings grew 9 cm under blue lamps.", GROWTH),
        ("Seedlings kept under red lamps grew 14 cm.", GROWTH),
        # the claim is a comparison itself
        ("Red-lamp seedlings grew 14 cm compared with 9 cm for blue-lamp ones.", GROWTH),
        ("Men earned $50,000 on average.", "Women earned $40,000 on average, compared with $50,000 among men."),
        ("Revenue was $3 million in 2022.", "Revenue rose to $5 million, compared with $3 million in 2022."),
        ("Unemployment was 5% the previous year.", "Unemployment fell to 4%, compared with 5% for the previous year."),
        # no value of that measure before the comparison: nothing to give the claim's thing
        ("The drug cut risk by 30%.", "The drug cut risk by 30% compared with placebo in adults."),
        # a review's false blocks (2026-12-03): an owner that is a time, which a claim may put in its own words
        ("Revenue was $9 million the year before.", "Revenue rose to $12 million, compared with $9 million in 2022."),
        ("Unemployment fell to 5%.", "Unemployment fell to 4%, compared with 5% for the previous year."),
        # ... a change with both values
        ("Revenue rose from $9 million to $12 million.", "Revenue rose to $12 million, compared with $9 million in 2022."),
        # ... the other side named in words of the claim's own
        ("Male respondents spent about 2 hours a day on unpaid work.",
         "Women spent 4 hours a day on unpaid work, compared with 2 hours for men."),
        ("A child's ticket costs $8.", "Tickets cost $15 for adults, compared with $8 for children."),
        ("Non-smokers had a lifetime lung cancer risk of 1%.",
         "Smokers had a 15% lifetime risk of lung cancer, compared with 1% for people who had never smoked."),
    ],
)  # fmt: skip
def test_a_value_said_with_its_own_side_of_a_comparison_is_left_alone(claim, source):
    assert compared_values(claim, source) == []
