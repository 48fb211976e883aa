"""The role rule (checks/roles.py): a claim must not give a deed the source states of one name to another
name the source mentions ("Alice founded" against "Bob founded ...; Alice joined"), nor put it in another
named place ("founded in Berlin" against "founded in Munich and moved to Berlin"); and the faithful
restatements it must not block."""

from __future__ import annotations

import pytest

from citebound.verify.cascade import Cascade
from citebound.verify.checkers import make_checker
from citebound.verify.checks.roles import (
    invented_authors,
    invented_names,
    other_doers,
    role_conflicts,
    swapped_roles,
)


@pytest.mark.parametrize(
    "claim, source, said",
    [
        ("Alice founded the company in 2010.", "Bob founded the company in 2010; Alice joined in 2012.", "'Bob'"),
        ("Alice founded the company in 2010.", "Bob founded the company in 2010 and Alice joined it in 2012.", "'Bob'"),
        ("The company was founded by Alice.", "Bob founded the company in 2010; Alice joined in 2012.", "'Bob'"),
        ("The company was founded in Berlin.", "The company was founded in Munich and moved to Berlin in 2015.",
         "'Munich'"),
        ("Mozart was born in Vienna.", "Mozart was born in Salzburg and died in Vienna.", "'Salzburg'"),
        # an author the source never names (2026-12-01, a blind-check case: `full` supported it, P = 0.58)
        ("The report was written by Dr. Lee.", "The report was published by the health ministry in 2020.", None),
        ("The bridge was built by Roman engineers.", "The bridge dates from the 2nd century.", None),
        # to whom a deed was done, with no agent, another name's (2026-12-02, the ninth blind set: every checker
        # supported it, P = 0.97)
        ("Marcus Yeo was appointed chief financial officer of Corvane Logistics.",
         "Corvane Logistics announced that Lena Brandt was appointed chief financial officer, while Marcus Yeo "
         "became head of operations.", "'Lena Brandt' where the claim says 'Marcus Yeo' (who was 'appointed')"),
    ],
)  # fmt: skip
def test_a_name_put_where_the_source_puts_another_or_never_names_is_unsupported(claim, source, said):
    assert role_conflicts(claim, source) if said else invented_authors(claim, source)
    v = Cascade().check_pair(claim, source)
    assert (v.label, v.stage) == ("unsupported", "role"), v.reason
    assert f"the source says {said}" in v.reason if said else "the source never names" in v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("Alice founded the company in 2010.", "Alice and Bob founded the company in 2010."),
        ("Alice founded the company in 2010.", "The company was founded by Alice in 2010."),
        ("Alice founded the company.", "Bob founded the company with Alice in 2010."),  # she is in its clause
        ("Alice founded the company.", "Alice, Bob's sister, founded the company in 2010."),
        ("Alice joined the company in 2012.", "Bob founded the company in 2010; Alice joined in 2012."),
        ("The company was founded by Bob.", "Bob founded the company in 2010; Alice joined in 2012."),
        ("The company was founded in Munich.", "The company was founded in Munich and moved to Berlin in 2015."),
        ("The company moved to Berlin.", "The company was founded in Munich and moved to Berlin in 2015."),
        ("The company was founded in Germany.", "The company was founded in Munich, Germany, in 1990."),
        ("The company was founded in Munich.", "The company was founded in 1990 in Munich and later opened an office in Berlin."),
        ("Mozart was born in Austria.", "Mozart was born in Salzburg, Austria, in 1756."),
        ("Dr. Smith led the study.", "The study was led by Dr. Smith and Dr. Jones at Oxford."),
        ("Alice wrote the report.", "Bob wrote the first draft. Alice wrote the report."),
        ("Marie Curie won the Nobel Prize in 1903.", "In 1903 Marie Curie and Pierre Curie won the Nobel Prize in Physics."),
        ("Curie won the prize in 1903.", "Marie Curie was a physicist. Marie won the prize in 1903."),  # one person
        ("Smith died in Blackville.", "Walls died in 1984. Smith was a logger; he died in Blackville."),  # "he"
        ("Smith died in Blackville.", "Walls died in Newcastle in 1984. Smith died in Blackville in 1957."),
        ("The Pacific island nations are at risk.", "Coral island nations in the Pacific are at risk."),  # no verb
        ("Alice did not found the company.", "Bob founded the company; Alice joined later."),  # negated: left alone
        ("The museum was designed by Gehry.", "Frank Gehry designed the museum, which opened in 1997."),
        ("The Hobbit was written by Tolkien.", "The Hobbit was written by J. R. R. Tolkien and published in 1937."),
        ("The song was written by Lennon.", "The song, credited to Lennon–McCartney, was released in 1965."),
        ("The study was funded by NIH.", "The study was funded by a federal grant."),  # an acronym: left alone
        ("The report was not written by Dr. Lee.", "The report was published by the ministry."),  # negated
        ("The plan was backed by Smith.", "The plan was backed by the council."),  # not a verb of authorship
        ("Lena Brandt was appointed chief financial officer.",
         "Lena Brandt was appointed chief financial officer, while Marcus Yeo became head of operations."),
        ("Marcus Yeo was appointed to the board.", "Lena Brandt and Marcus Yeo were appointed to the board."),
        ("Marcus Yeo was promoted.", "Lena Brandt was appointed chief financial officer and Marcus Yeo was promoted."),
        # a repeated verb left out after "and": no new subject's clause (a review of 2026-12-02 found both blocked)
        ("Marcus Yeo was appointed head of operations.",
         "Lena Brandt was appointed chief financial officer and Marcus Yeo head of operations."),
        ("Jones was elected deputy mayor.", "Smith was elected mayor and Jones deputy mayor."),
    ],
)  # fmt: skip
def test_faithful_restatements_and_unrelated_names_are_no_conflict(claim, source):
    assert role_conflicts(claim, source) == [] and invented_authors(claim, source) == []
    assert Cascade().check_pair(claim, source).stage != "role"



@pytest.mark.parametrize(
    "claim, source, doer",
    [
        ("Priya Nair composed the score for the musical.",
         "The musical's score was composed by Daniel Ortiz, and Priya Nair wrote the lyrics.", "'Daniel Ortiz'"),
        ("Acme acquired the startup.", "The startup was acquired by Google in 2019.", "'Google'"),
        ("Maria Lopez leads the design team.", "Tom Becker leads the design team.", "'Tom Becker'"),
    ],
)  # fmt: skip
def test_a_deed_the_source_gives_only_to_another_name_is_unsupported(claim, source, doer):
    assert other_doers(claim, source)
    v = Cascade().check_pair(claim, source)
    assert (v.label, v.stage) == ("unsupported", "role") and f"the source says {doer}" in v.reason, v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("Priya Nair composed the score.", "The score was composed by Daniel Ortiz and Priya Nair."),  # one of the doers
        ("Alice founded the company.", "Bob founded the company with Alice in 2010."),  # done with her
        ("Curie won the prize in 1903.", "Marie Curie was a physicist. Marie won the prize in 1903."),  # one person
        ("The police arrested the driver.", "Officers arrested the driver at the scene."),  # nouns: maybe synonyms
        ("Bob married Alice.", "Carl married Alice in 1990, and Bob married her in 2001."),  # a mutual verb
    ],
)  # fmt: skip
def test_co_doers_one_person_nouns_and_mutual_deeds_are_no_other_doer(claim, source):
    assert other_doers(claim, source) == []


@pytest.mark.parametrize(
    "claim, source, said",
    [
        ("Northwind acquired Acme.", "In 2019 Acme acquired Northwind.", "'Acme' acquired 'Northwind'"),
        # a noun before the name, or "the NOUN of NAME", on either side (2026-12-02, the ninth blind set: both
        # were supported by every checker, P = 0.98)
        ("Helix Labs acquired Nova Pharma for $85 million.", "Nova Pharma acquired the startup Helix Labs for $85 million.",
         "'Nova Pharma' acquired 'Helix Labs'"),
        ("Dekker Group sued the city of Marlow.", "The city of Marlow sued the construction firm Dekker Group.",
         "'Marlow' sued 'Dekker Group'"),
    ],
)  # fmt: skip
def test_a_deed_turned_round_is_unsupported_with_a_descriptor_before_a_name(claim, source, said):
    assert swapped_roles(claim, source)
    v = Cascade().check_pair(claim, source)
    assert (v.label, v.stage) == ("unsupported", "role") and f"the source says {said}" in v.reason, v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("Nova Pharma acquired Helix Labs.", "Nova Pharma acquired the startup Helix Labs for $85 million."),
        ("The city of Marlow sued Dekker Group.", "The city of Marlow sued the construction firm Dekker Group."),
        ("Marlow sued the firm.", "The city of Marlow sued the construction firm Dekker Group."),
    ],
)  # fmt: skip
def test_the_deed_the_claims_way_round_is_no_swap(claim, source):
    assert swapped_roles(claim, source) == []


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("Priya Nair took over from Owen Hale as editor.", "Owen Hale replaced Priya Nair as editor."),
        ("Owen Hale was replaced by Priya Nair.", "Owen Hale took over from Priya Nair in 2021."),
        ("Millford lost to Ravensby in the final.", "Millford beat Ravensby in the final."),
        ("Ravensby defeated Millford in the final.", "Millford beat Ravensby in the final."),
        ("Dana Ruiz succeeded Ian Cole as mayor.", "Ian Cole replaced Dana Ruiz as mayor."),
        ("Top seed Ana Weiss beat Lotte Brandt.", "Lotte Brandt defeated top seed Ana Weiss in straight sets."),
        ("Pellby Express has acquired Orvanta.", "Orvanta has acquired the regional courier firm Pellby Express."),  # the perfect
    ],
)  # fmt: skip
def test_a_deed_turned_round_in_the_words_of_the_other_side_is_named(claim, source):
    assert len(swapped_roles(claim, source)) == 1, swapped_roles(claim, source)


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("Owen Hale took over from Priya Nair as editor.", "Owen Hale replaced Priya Nair as editor."),
        ("Ravensby lost to Millford in the final.", "Millford beat Ravensby in the final."),
        ("Millford defeated Ravensby.", "Millford beat Ravensby 3-0."),
        ("Lotte Brandt beat top seed Ana Weiss.", "Lotte Brandt defeated top seed Ana Weiss in straight sets."),
        # a review's false blocks of the first version (2026-12-02): the source says the claim's deed in its own
        # words too (another occasion lost), or of a pronoun
        ("Ajax beat Porto in the cup final.", "Ajax lost to Porto in the league but beat them in the cup final."),
        ("Brown beat Jones in 2020.", "Brown lost to Jones in the 2016 primary, but she defeated her in 2020."),
        ("In 2020 Lopez replaced Reed.", "Reed took over from Lopez in 2015; in 2020 Lopez took over from him."),
        # a second review's (2026-12-02): the perfect with an adverb, an older deed turned round, a pronoun
        ("Orvanta has acquired Pellby Express.", "Pellby Express acquired Orvanta in 2005. Orvanta has now acquired Pellby Express."),
        ("Orvanta has acquired Pellby Express.", "In 2010 Pellby Express acquired Orvanta. Orvanta has just acquired Pellby Express."),
        ("Lopez has replaced Reed as captain.", "Reed replaced Lopez as captain in 2019. He has since been replaced by Lopez."),
        ("Smith has replaced Jones as chair.", "Jones replaced Smith as chair in 2010. Smith, re-elected in 2022, has replaced Jones as chair."),
    ],
)  # fmt: skip
def test_the_same_deed_in_other_words_is_left_alone(claim, source):
    assert Cascade().check_pair(claim, source).stage != "role"


@pytest.mark.parametrize(
    "claim, source, named",
    [
        ("Spokesperson Anna Lee said the plant will close.", "A spokesperson said the plant will close in March.",
         "the spokesperson 'Anna Lee'"),
        ("CEO Mark Hill announced 200 job cuts.", "The chief executive announced 200 job cuts on Monday.",
         "the ceo 'Mark Hill'"),
        ("Dana Kim, the company's director, said sales fell.", "The company's director said sales fell in spring.",
         "the director 'Dana Kim'"),
        ("Headteacher Tom Reed closed the school.", "The headteacher closed the school because of snow.",
         "the headteacher 'Tom Reed'"),
    ],
)  # fmt: skip
def test_a_name_given_to_an_office_the_source_names_no_one_for_is_invented(claim, source, named):
    assert any(named in r for r in invented_names(claim, source)), invented_names(claim, source)
    v = Cascade().check_pair(claim, source)
    assert (v.label, v.stage) == ("unsupported", "role"), v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("Coach José Mourinho praised the team.", "José Mourinho, the coach, praised the team after the match."),
        ("Coach McDermott praised the team.", "Sean McDermott, the coach, praised the team."),
        ("Governor DeSantis signed the bill.", "Florida's governor, Ron DeSantis, signed the bill on Friday."),
        ("Meanwhile, the spokesperson said the plant would reopen.", "A spokesperson said the plant would reopen."),
        ("Today, the principal closed the school.", "The principal closed the school because of snow."),
        ("Spokesperson Anna Lee did not comment.", "A spokesperson did not comment."),  # negated: left alone
        ("Mayor Jones opened the park.", "The park was opened by the city on Friday."),  # no office in the source
    ],
)  # fmt: skip
def test_a_name_the_source_gives_or_a_word_that_is_no_name_is_no_invention(claim, source):
    assert invented_names(claim, source) == []


@pytest.mark.parametrize(
    "claim, source",
    [
        # a company's "Ltd." or "Co." is no sentence end, and "its smaller rival NAME" is NAME
        ("Northwind Ltd. bought Acme Corp. in 2019.", "Acme Corp. bought Northwind Ltd. in 2019."),
        ("Harvest Co. acquired Greenfield Foods.", "Greenfield Foods acquired Harvest Co. last spring."),
        ("Northwind Ltd. bought Acme Corp. in 2019.", "Acme Corp. bought its smaller rival Northwind Ltd. in 2019."),
    ],
)  # fmt: skip
def test_a_deed_turned_round_between_companies_is_named(claim, source):
    assert swapped_roles(claim, source)
    assert swapped_roles("Acme Corp. bought its rival Northwind.", source) == []


@pytest.mark.parametrize(
    ("claim", "ok"),
    [("The conference will be held in Vienna in May.", False), ("The conference will be held in Prague in May.", True)],
)
def test_a_place_after_another_event_is_not_the_event_s(claim, ok):
    # "after last year's meeting in Vienna": Vienna is the other meeting's place (blind set 16's kind: full 0.97);
    # "after a day off, in Cork" is a place of the same verb
    assert role_conflicts("The band played in Cork.", "The band played in Dublin and then, after a day off, in Cork.") == []
    source = "The conference will be held in Prague in May, after last year's meeting in Vienna."
    assert (role_conflicts(claim, source) == []) == ok, role_conflicts(claim, source)


@pytest.mark.parametrize("claim,source", [
    ("The Kolm Lynx beat the Eastfield Bears 4-3.", "Ice hockey: The Eastfield Bears beat the Kolm Lynx 4-3 in overtime on Tuesday."),
    ("Amelia Stone narrowly defeated Rafael Quist.", "In a runoff, Senator Rafael Quist narrowly defeated Amelia Stone."),
    ("Amelia Stone defeated Rafael Quist.", "Senator Rafael Quist narrowly defeated Amelia Stone in the runoff."),
])
def test_a_deed_turned_round_between_names_with_articles_or_an_adverb_is_read(claim, source):
    assert swapped_roles(claim, source)


@pytest.mark.parametrize("claim,source", [
    ("The Eastfield Bears beat the Kolm Lynx 4-3.", "Ice hockey: The Eastfield Bears beat the Kolm Lynx 4-3 in overtime on Tuesday."),
    ("Rafael Quist narrowly defeated Amelia Stone.", "Senator Rafael Quist narrowly defeated Amelia Stone."),
    # "of" joins one name: the Ministry of Trade is one party, before its verb or after "by"
    ("Orlen Freight was fined by the Ministry of Trade.", "The Ministry of Trade fined the Orlen Freight company 2 million euros."),
])
def test_the_same_deed_the_same_way_round_is_no_swap(claim, source):
    assert swapped_roles(claim, source) == []
    assert make_checker("deterministic").check_pair(claim, source).stage != "role"


@pytest.mark.parametrize("claim,source,doer", [
    # the doer before an aside between commas ("Kurz, ranked 112th in the world, will face")
    ("Havel will face Aiko Tanaka in the semi-finals.",
     "Mira Havel lost to Jana Kurz in the quarter-finals. Kurz, ranked 112th in the world, will face Aiko Tanaka in the semi-finals.", "Kurz"),
    ("Moss saved a late penalty.", "Keane, the goalkeeper, saved a late penalty, and Moss, the captain, scored the winner.", "Keane"),
])
def test_a_deed_of_a_party_named_before_an_aside_is_not_anothers(claim, source, doer):
    (reason,) = other_doers(claim, source)
    assert repr(doer) in reason


@pytest.mark.parametrize("claim,source", [
    ("Kurz will face Aiko Tanaka.", "Kurz, ranked 112th in the world, will face Aiko Tanaka in the semi-finals."),
    ("Mendes will fight Chen for the title.", "Chen, who turned 19 last week, will fight Mendes for the title in March."),  # mutual
    ("Static Bloom will tour Japan with Carla Mendez.",
     "Carla Mendez and Leo Park, a folk duo, will tour Japan with the rock band Static Bloom."),  # a co-doer after "with"
])
def test_a_mutual_deed_either_way_round_or_a_co_doer_is_no_other_doer(claim, source):
    assert other_doers(claim, source) == [] and swapped_roles(claim, source) == []


def test_a_doer_before_an_adverb_of_time_is_read():
    source = ("The north face was first climbed in 1938 by Marc Fabre and Yves Roussel. Roussel later led the first "
              "winter ascent of the same face in 1951; Fabre had died two years earlier.")
    (reason,) = other_doers("Marc Fabre led the first winter ascent of the north face in 1951.", source)
    assert "'Roussel'" in reason
    assert other_doers("Yves Roussel led the first winter ascent in 1951.", source) == []
