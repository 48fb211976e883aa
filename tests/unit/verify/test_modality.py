"""The modality rule (checks/modality.py) and boundary words before numbers (checks/numbers.py
`boundary_before`): "must" is not "may", "by 5 %" is not "to 5 %", "until June 30" is not "from June 30"."""

from __future__ import annotations

import re

import pytest

from citebound.verify.cascade import Cascade
from citebound.verify.checks.modality import modality_conflicts
from citebound.verify.checks.numbers import boundary_before


@pytest.mark.parametrize(
    "claim, source",
    [
        ("Employees must complete the training.", "Employees may complete the training."),
        ("Helmets are required on site.", "Helmets are recommended on site."),
        ("Staff have to wear badges.", "Staff should wear badges."),
        ("Guests should register online.", "Guests can register online."),
        ("Users over 18 must vote.", "Users over 18 may vote."),  # "18 may": the modal, not a date
        ("Employees must complete the training by 3 May.", "Employees may complete the training by 3 May."),
    ],
)
def test_a_stronger_modal_than_the_source_is_unsupported(claim, source):
    assert modality_conflicts(claim, source)
    v = Cascade().check_pair(claim, source)
    assert (v.label, v.stage) == ("unsupported", "modality"), v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("Employees may complete the training.", "Employees must complete the training."),  # weaker: fine
        ("Visitors must sign in.", "Visitors must sign in and may use the lounge."),
        ("You must not smoke.", "You may not smoke."),  # negated: the negation rule's
        ("Employees must complete the training.", "Employees may complete the safety course."),  # says more
        ("Users can export data.", "Users export data every week."),  # no modal in the source
        ("All staff must attend on 3 May.", "All staff are obligated to attend on 3 May."),  # the month
        ("Drivers must have a licence.", "Drivers need a licence; they can rent a car at 21."),  # "need" a noun
        ("Tenants must pay rent by the 5th.", "Tenants pay rent by the 5th; late payments may incur a fee."),
    ],
)
def test_no_conflict_for_a_weaker_or_different_claim(claim, source):
    assert modality_conflicts(claim, source) == []


@pytest.mark.parametrize(
    "text, word",
    [("The rent increased by 5%", "by"), ("The rent increased to 5%", "to"), ("accepted until June 30", "until"),
     ("open from 9 am", "from"), ("rose to $ 12", "to"), ("costs 12 euros", None), ("due by 5 pm", "until"),
     ("due by June 30", "until"), ("done by 2024", "until"), ("open up to 2 pm", None)],
)
def test_the_boundary_word_before_a_number(text, word):
    assert boundary_before(text, re.search(r"\d", text).start()) == word


def test_a_number_after_another_boundary_word_is_not_stated():
    for claim, source in [("The rent increased by 5%.", "The rent increased to 5%."),
                          ("Applications are accepted until June 30.", "Applications are accepted from June 30.")]:
        v = Cascade().check_pair(claim, source)
        assert (v.label, v.stage) == ("unsupported", "numbers"), v.reason
    same = Cascade().check_pair("Applications are accepted until June 30.", "Applications are accepted till June 30.")
    assert same.stage != "numbers", same.reason


def test_pm_is_not_am():
    v = Cascade().check_pair("The store closes at 8 pm.", "The store closes at 8 am.")
    assert (v.label, v.stage) == ("unsupported", "numbers"), v.reason
    assert Cascade().check_pair("The store closes at 8 pm.", "The store closes at 8 p.m.").stage != "numbers"


# -- a hedge stated as fact (checks/modality.py `stated_hedges`) ---------------------------------------------
from citebound.verify.checks.modality import stated_hedges  # noqa: E402


@pytest.mark.parametrize(
    "claim, source",
    [
        ("The drug reduces blood pressure.", "Early results suggest the drug may reduce blood pressure."),
        ("Patients experience dizziness.", "Patients might experience dizziness."),
        ("Prices will rise.", "It is likely that prices will rise."),
        ("The bridge collapsed because of corrosion.", "The bridge possibly collapsed because of corrosion."),
        ("The species is extinct in the wild.", "The species appears to be extinct in the wild."),
        ("Customers return items within 30 days.", "Customers may return items within 30 days."),
        # a finding the claim reports ("The study shows that ...") that the source only hedges
        ("The study shows that coffee reduces the risk of stroke.",
         "The authors suggest that coffee could reduce the risk of stroke."),
        # "will" where the source says "could"
        ("The new line will open in 2027.", "The new line could open in 2027 if funding is approved."),
        ("The plant will close in May.", "The plant would close in May under the proposal."),
        # "shows" where the source only "suggests" or "indicates"
        ("The study shows that coffee reduces stroke risk.", "The study suggests that coffee reduces stroke risk."),
        ("Tests confirmed that the water is safe to drink.", "Tests indicate that the water is safe to drink."),
        ("The study proves that the diet works.", "The study appears to show that the diet works."),
    ],
)
def test_a_claim_that_states_a_hedge_as_fact_is_unsupported(claim, source):
    assert stated_hedges(claim, source)
    v = Cascade().check_pair(claim, source)
    assert (v.label, v.stage) == ("unsupported", "modality"), v.reason
    assert "hedges" in v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        # the hedge is of something else in the clause
        ("The drug reduces blood pressure.", "The drug, which may cause nausea, reduces blood pressure."),
        # the claim keeps the hedge, or a modal of its own
        ("The drug may reduce blood pressure.", "The drug may reduce blood pressure."),
        ("Customers can return items within 30 days.", "Customers may return items within 30 days."),
        # another clause states it plainly
        ("The drug reduced blood pressure.", "The drug may reduce pain. The drug reduced blood pressure."),
        # a report is not a hedge: summaries drop the attribution (QAGS labels those supported)
        ("Juventus offered 23 million for Dybala.", "Reports in Italy suggest that Juventus offered 23 million for Dybala."),
        ("The CEO resigned on Monday.", "The CEO reportedly resigned on Monday."),
        # "can" and "could" are ability; the month "May" is no modal
        ("The device records video.", "The device can record video."),
        ("The meeting is on 3 May.", "The meeting is on 3 May."),
        # a negated claim is the negation rule's
        ("The drug does not reduce blood pressure.", "The drug may not reduce blood pressure."),
        # a reported finding the source states plainly, or one the claim hedges itself
        ("The study found that coffee reduces the risk of stroke.", "Coffee reduces the risk of stroke, the study found."),
        ("The study suggests coffee could reduce the risk of stroke.",
         "The authors suggest that coffee could reduce the risk of stroke."),
        # "could" of the past is ability, and "will" against a plain future is no hedge
        ("In 1900 only the rich could afford cars.", "In 1900 only the rich could afford cars."),
        ("The new line will open in 2027.", "The new line will open in 2027, the city said."),
        # a "could" of another thing, or of the same verb the clause also states plainly
        ("The new ferry will carry 400 cars.",
         "The old ferry could carry only 200 cars, but the new ferry, due in May, will carry 400 cars."),
        ("The bridge will reopen on Monday.", "The bridge will reopen on Monday, but it could reopen sooner."),
        # a clause that shows it, whatever else it suggests
        ("Data show that sales rose.", "Data show sales rose, which suggests demand is strong."),
        ("The trial showed the drug lowers blood pressure.",
         "The trial showed the drug lowers blood pressure, and appears to reduce strokes."),
        ("The study shows that sleep improves memory.", "The study found that sleep improves memory, which suggests naps may help."),
    ],
)
def test_what_is_not_a_hedge_stated_as_fact(claim, source):
    assert stated_hedges(claim, source) == []


@pytest.mark.parametrize(
    ("claim", "source", "words"),
    [
        ("Employees are required to change passwords yearly, and MFA is mandatory for remote logins.",
         "We recommend that employees change passwords yearly. MFA is mandatory for remote logins.", ("required", "recommend")),
        ("Guests must check out by 11, and breakfast is included.",
         "Guests should check out by 11. Breakfast is included and parking is mandatory to book.", ("must", "should")),
    ],
)  # fmt: skip
def test_a_part_of_a_joined_claim_is_read_against_the_clause_that_restates_it(claim, source, words):
    found = modality_conflicts(claim, source)
    assert len(found) == 1 and all(repr(w) in found[0] for w in words), found


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("Employees should change passwords yearly, and MFA is mandatory for remote logins.",
         "We recommend that employees change passwords yearly. MFA is mandatory for remote logins."),
        ("Employees are required to change passwords yearly, and MFA is mandatory for remote logins.",
         "Employees must change passwords yearly. MFA is mandatory for remote logins."),
    ],
)  # fmt: skip
def test_parts_that_keep_their_modal_are_left_alone(claim, source):
    assert modality_conflicts(claim, source) == []


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        # a review's false blocks of the first version (2026-12-02): a claim's "advises" reports; a claim that
        # hedges one part keeps the source's hedge
        ("The airline advises that passengers can check in online.", "Passengers can check in online, the airline says."),
        ("Prices increased in 2023, and they will probably increase again.", "Prices increased in 2023 and will probably increase again."),
        ("The river flooded in March, and it is likely to flood again in the autumn.",
         "The river flooded in March and is likely to flood again in the autumn."),
    ],
)  # fmt: skip
def test_a_reported_advice_or_a_claim_that_hedges_a_part_itself_is_left_alone(claim, source):
    assert stated_hedges(claim, source) == []
    assert modality_conflicts(claim, source) == []


def test_a_hedge_of_one_part_of_a_joined_claim_is_named():
    claim = "The scan showed a small cyst, so the clinic is referring you to a specialist."
    assert stated_hedges(claim, "The scan showed a small cyst. The clinic may refer you to a specialist.")
    assert stated_hedges(claim, "The scan showed a small cyst. The clinic is referring you to a specialist.") == []


from citebound.verify.checks.modality import denied_permissions  # noqa: E402


@pytest.mark.parametrize(
    ("claim", "source", "ok"),
    [
        ("Guests under 16 may use the weights area.", "The club does not permit guests under 16 in the weights area.", False),
        ("Staff can park in the front car park.", "Staff are prohibited from parking in the front car park.", False),
        ("Dogs are allowed on the beach in July.", "Dogs are banned from the beach in July and August.", False),
        ("Visitors may take photos in the gallery.", "Flash photography is prohibited in the gallery, but visitors may take photos.", True),
        ("Guests aged 16 and over may use all facilities.", "The club does not permit guests under 16 in the weights area. "
                                                            "Guests aged 16 and over may use all facilities.", True),
        ("Guests under 16 may not use the weights area.", "The club does not permit guests under 16 in the weights area.", True),
        # a second review's false blocks of the first version (2026-12-02): another group or time, a grant after
        # "but", a claim that restates the ban, a name
        ("Guests over 16 may use the weights area.", "The club does not permit guests under 16 in the weights area.", True),
        ("Students may use phones at lunch.", "Phones are banned in lessons but students may use phones at lunch.", True),
        ("Fishing is allowed in the lake from June.", "Fishing in the lake is banned until June.", True),
        ("Drivers can be banned for speeding.", "Drivers caught speeding repeatedly are banned from driving.", True),
        ("The club may ban members who break the rules.", "Members who break the rules are banned by the club.", True),
        ("Barred owls can live for 20 years in the wild.", "Barred owls can live up to 20 years in the wild.", True),
        ("Staff can access the server room with a badge.", "Staff are not allowed in the server room without a badge.", True),
        # a thing "may be taken" where the source does not permit bringing it (blind set 16's kind: full 0.87)
        ("Bikes may be taken onto trams during rush hour.",
         "Passengers are not permitted to bring bikes onto trams during rush hour.", False),
        ("Bikes can be carried on the ferry.", "Passengers may not bring bikes onto trams. Bikes can be carried on the ferry.",
         True),
        ("Bikes may be taken onto trams outside rush hour.",
         "Bikes are not permitted on trams during rush hour but may be taken on at other times.", True),
    ],
)  # fmt: skip
def test_a_permission_the_source_denies_is_named(claim, source, ok):
    assert (denied_permissions(claim, source) == []) == ok, denied_permissions(claim, source)
