"""The plan rule (checks/plans.py): a claim must not state as a fact what its source only plans or
expects; and the faithful restatements it must not block."""

from __future__ import annotations

import pytest

from citebound.verify.cascade import Cascade
from citebound.verify.checks.plans import plan_conflicts


@pytest.mark.parametrize(
    "claim, source, named",
    [
        # 2026-12-01: both supported by `full` (P = 0.97, 0.96) and the first by `deterministic` too
        ("The app supports Android.", "The app supports iOS; Android support is planned.", "'android'"),
        ("The feature is available now.", "The feature will be available next year.", "'feature', 'available'"),
        ("The new wing is open to visitors.", "The new wing is scheduled to open to visitors.", "'wing'"),
        ("The city opened a second library.",
         "The city opened a new library and plans to open a second one next year.", "'second'"),
        # what someone expects of a thing, and a long claim with one word of its own (2026-12-02, the twelfth blind
        # set: full 0.96)
        ("The company's full-year sales topped $2 billion for the first time, driven by strong demand in its medical "
         "devices division.", "The company expects full-year sales to exceed $2 billion for the first time, driven by "
         "strong demand in its medical devices division.", "'sales'"),
        # "now" with the verb of the source's plan in other words (blind set 16's kind: full 0.85)
        ("The airline now flies direct to Lima.", "The airline plans to launch direct flights to Lima from June.",
         "'lima'"),
        ("The gym now operates a 24-hour service.", "The gym intends to introduce a 24-hour service next year.",
         "'service'"),
        ("The museum now opens on Mondays.", "The museum aims to open on Mondays.", "'museum'"),
    ],
)  # fmt: skip
def test_a_plan_stated_as_a_fact_is_unsupported(claim, source, named):
    assert plan_conflicts(claim, source)
    v = Cascade().check_pair(claim, source)
    assert (v.label, v.stage) == ("unsupported", "plan"), v.reason
    assert named in v.reason and "only as to come" in v.reason


@pytest.mark.parametrize(
    "claim, source",
    [
        ("The app supports iOS.", "The app supports iOS; Android support is planned."),
        ("Android support is planned.", "The app supports iOS; Android support is planned."),
        ("The app will support Android.", "The app supports iOS; Android support is planned for next year."),
        ("The museum reopens in May.", "The museum is scheduled to reopen in May."),  # the claim sets a date
        ("Refunds are processed within 5 days.", "Refunds will be processed within 5 days."),  # a policy's "will"
        ("The app supports Android.", "The app supports Android and iOS; a web version is planned."),
        ("The library offers e-books.", "The library offers e-books; it plans to offer audiobooks next year."),
        ("The bridge carries 40,000 vehicles a day.",
         "The bridge carries 40,000 vehicles a day and is expected to carry more next year."),
        ("Members get early access to tickets.", "Members get early access to tickets for upcoming concerts."),
        ("The airline operates flights to Lisbon.", "The airline operates scheduled flights to Lisbon."),
        ("The city opened a new library.", "The city opened a new library and plans to open a second one next year."),
        ("People expect Cameron to remain prime minister.", "Cameron is planning to remain prime minister."),
        ("The app does not support Android.", "The app supports iOS; Android support is planned."),  # negated
        ("The company expects sales to exceed $2 billion.", "The company expects full-year sales to exceed $2 billion."),
        ("The app supports Android tablets.", "The app supports iOS; Android support is planned."),  # a word of its own, short
        ("The council now collects food waste weekly.",
         "The council collects food waste weekly and plans to collect garden waste from May."),
        ("The museum now opens on Sundays.", "The museum now opens on Sundays and plans to open on Mondays next year."),
        # the fact now in other words, a plan of something else with the claim's verb (a review of 2026-12-03)
        ("The cafe now serves breakfast.", "The cafe has begun opening for breakfast, and plans to serve lunch next month."),
        ("The gym now offers yoga classes.", "The gym added yoga last month and plans to offer more classes next year."),
    ],
)  # fmt: skip
def test_facts_restated_and_plans_restated_are_no_conflict(claim, source):
    assert plan_conflicts(claim, source) == []
    assert Cascade().check_pair(claim, source).stage != "plan"


from citebound.verify.checks.plans import weighed_as_decided  # noqa: E402


@pytest.mark.parametrize(
    ("claim", "source", "said"),
    [
        ("The board decided to relocate the depot.", "The board agreed to consider relocating the depot.", "consider relocating"),
        ("The town will close the pool in winter.", "The town is discussing whether to close the pool in winter.", "whether to close"),
        ("The committee approved the plan to build a footbridge.", "The committee proposed a plan to build a footbridge.", "proposed a plan to build"),
        ("The council adopted the new parking rules.", "The council has drafted the new parking rules.", "drafted"),
    ],
)  # fmt: skip
def test_what_the_source_only_weighs_or_proposes_is_not_decided(claim, source, said):
    found = weighed_as_decided(claim, source)
    assert len(found) == 1 and said in found[0], found


@pytest.mark.parametrize(
    ("claim", "source"),
    [
        ("The board relocated the depot.", "After considering three sites, the board relocated the depot."),  # decided too
        ("The board is considering relocating the depot.", "The board agreed to consider relocating the depot."),  # weighed
        ("The committee approved the plan to build a footbridge.", "The mayor proposed it and the committee approved the plan to build a footbridge."),
        ("The council may close the pool.", "The council is discussing whether to close the pool."),  # a modal
        ("The board did not relocate the depot.", "The board agreed to consider relocating the depot."),  # negated
        # a review's false blocks of the first version (2026-12-02): the source goes on to the decision or the
        # deed, "considered" means "regarded as", "proposed to Maria" and "looked into reports" weigh no deed
        ("The council approved building a bike lane on Main Street.",
         "The mayor proposed building a bike lane on Main Street, and the council approved it in June."),
        ("The constitution was adopted by parliament in 1997.", "The constitution, drafted in 1996, was formally accepted by parliament in 1997."),
        ("The school was closed in 2019.", "Governors discussed closing the school in 2017; it was finally shut in 2019."),
        ("The club signed Reed in July.", "The club looked into signing Reed and completed the deal for him in July."),
        ("The film is lost.", "The film is considered lost."),
        ("He married Maria in 2001.", "He proposed to Maria in Paris, and they married in 2001."),
        ("Police arrested two men after looking into reports of fraud.", "Police looked into reports of fraud and then arrested two men."),
        ("The lab confirmed contamination of the well.", "Early tests suggested contamination of the well, which the lab later confirmed."),
    ],
)  # fmt: skip
def test_a_decision_the_source_states_or_a_claim_that_weighs_is_left_alone(claim, source):
    assert weighed_as_decided(claim, source) == []
