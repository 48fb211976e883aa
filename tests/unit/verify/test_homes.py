"""The home rules (checks/homes.py): a present home the source says was left, or names only as a place of
birth, study or an office, is not supported; a home kept, returned to, or stated in other words is left alone."""

from __future__ import annotations

import pytest

from citebound.verify.checkers import make_checker
from citebound.verify.checks.homes import moved_away, unstated_home


LEFT_HOMES = [
    ("She now lives in Leeds.", "She was born in Leeds before moving to York in 1990."),
    ("She lives in Leeds.", "She moved from Leeds to York in 2010."),
    ("She lives in Leeds.", "She left Leeds for York in 2010."),
    ("The company is based in Leeds.", "The company was founded in Leeds in 1988 and moved its headquarters to Manchester in 2004."),
]
HOMES_KEPT = [
    ("He lives in Leeds.", "He moved from York to Leeds in 2001 and still lives there."),  # the destination
    ("She lives in Leeds.", "She lives in Leeds, although her office moved to York last year."),
    ("She lives in Leeds.", "She grew up in Leeds. After university she moved back to Leeds."),
    # a move to a place that may hold the home: Camden is in London
    ("Howard lives in Camden.", "Howard grew up in Bath before moving to London; he and his wife live in Camden."),
    ("She no longer lives in Leeds.", "She was born in Leeds before moving to York in 1990."),
]


@pytest.mark.parametrize("claim,source", LEFT_HOMES)
def test_a_home_the_source_says_was_left_is_not_a_home_now(claim, source):
    (reason,) = moved_away(claim, source)
    assert "a home left" in reason
    assert make_checker("full").check_pair(claim, source).stage == "home"


@pytest.mark.parametrize("claim,source", HOMES_KEPT)
def test_a_home_kept_returned_to_or_inside_the_destination_is_left_alone(claim, source):
    assert moved_away(claim, source) == []


NAMED_ONLY = [
    ("Tobias Lind lives in Malmö.", "Tobias Lind was born in Malmö in 1975. He is a noted jazz pianist."),
    ("Corvex Systems is based in Dublin.", "Corvex Systems opened an office in Dublin in 2018 to handle its European sales."),
    ("Sara Lindqvist lives in Stockholm.", "Sara Lindqvist has exhibited her paintings in Stockholm, Oslo and Copenhagen."),
]
HOME_STATED = [
    ("Siobhan Kelly lives in York.", "Born in Cork, Siobhan Kelly moved to York in 1989 and still lives there."),
    ("The firm is based in Oslo.", "The firm is headquartered in Oslo and has offices in Bergen."),
    ("She lives in Leeds.", "She returned to Leeds, where she now lives, in 2012."),
    ("He lives in Porto.", "He is a native of Porto."),
    ("She lives in Lyon.", "She was born in Paris. Her home is in Lyon."),  # another sentence gives it
]


@pytest.mark.parametrize("claim,source", NAMED_ONLY)
def test_a_place_named_only_as_a_birthplace_venue_or_office_is_no_home(claim, source):
    (reason,) = unstated_home(claim, source)
    assert "but not as a home" in reason


@pytest.mark.parametrize("claim,source", HOME_STATED)
def test_a_home_the_source_speaks_of_is_left_to_the_other_checks(claim, source):
    assert unstated_home(claim, source) == []


@pytest.mark.parametrize("claim,source", [
    ("Olga Ivanova lives in Tallinn.", "Olga Ivanova lived in Moscow until 2014. Since 2020 she has lived in Tallinn."),
    ("Northgate Logistics is based in Leeds.", "Northgate Logistics has offices in Leeds, Hull and Newcastle. Its head office is in Leeds."),
])
def test_a_present_perfect_home_or_a_head_office_is_a_home(claim, source):
    assert unstated_home(claim, source) == [] and moved_away(claim, source) == []


@pytest.mark.parametrize("claim,source", [
    ("Northbridge Rowing Club is based in Henley-on-Thames.", "Northbridge Rowing Club, the Henley-on-Thames club founded in 1890, races on the Tideway."),
    ("Bellweather Books is based in Portland.", "Bellweather Books, the Portland, Maine, publisher, has operated from Fore Street since 1998."),
    ("Marta Kowalczyk lives in Wrocław.", "Notice issued to Marta Kowalczyk, currently residing at ul. Lipowa 12, Wrocław. Previous address: Poznań."),
    ("Clara Jensen lives in Copenhagen.", "Clara Jensen splits her time between Copenhagen and Bornholm, though her permanent residence is in Copenhagen."),
])
def test_an_organisation_of_the_place_or_an_address_is_a_home(claim, source):
    assert unstated_home(claim, source) == []
