"""training/pairs.py `kinds_pairs` (rule/kinds_*): the kinds the blind one-line sets keep showing (a deed
turned round, a plan stated as done and back, a dropped condition, a part made the whole) made from real
sentences, labelled not supported, beside the same sentences copied, supported. Hand-written documents
(the generator's `docs` argument), no shared data."""

from __future__ import annotations

import random

import pairs  # training/pairs.py (pyproject: pythonpath)


DOCS = [
    ("deal", "Northwind acquired Acme Logistics in 2019 after a long bidding war. The council plans to build "
             "a second bridge over the river. Customers can return an item within 30 days if they keep the "
             "receipt. Some members of the board opposed the merger. The museum was opened in 1990 by the mayor."),
    ("club", "The Tigers defeated the Lions in the final of 2004. Alice Moreau married Bruno Lenz in Lyon. "
             "Visitors may bring a guest on weekdays. The library is open until midnight unless the campus is "
             "closed for a holiday. Several branches usually close in May."),
]


def test_a_deed_is_turned_round_between_two_names_but_not_one_two_do_to_each_other():
    rng = random.Random(0)
    assert pairs.swap_roles("Northwind acquired Acme Logistics in 2019.", rng) == "Acme Logistics acquired Northwind in 2019."
    assert pairs.swap_roles("Alice Moreau married Bruno Lenz in Lyon.", rng) is None
    assert pairs.swap_roles("Paris and Lyon are the largest cities of France.", rng) is None  # no deed between them


def test_a_plan_is_stated_as_done_and_a_deed_as_only_planned():
    rng = random.Random(0)
    assert pairs.plan_or_done("The council plans to build a second bridge.", rng) == ("The council built a second bridge.", "plan_as_done")
    assert pairs.plan_or_done("The museum was opened in 1990.", rng) == ("The museum will be opened in 1990.", "done_as_plan")
    out, rule = pairs.plan_or_done("Northwind acquired Acme in 2019.", rng)
    assert rule == "done_as_plan" and out.startswith("Northwind ") and "acquire Acme in 2019" in out
    # a participle after its noun is left alone: the edit would break the sentence, and give the label away
    assert pairs.plan_or_done("It is an album by Henry Threadgill released on the About Time label.", rng) is None


def test_a_condition_is_dropped_and_a_quantifier_widened():
    assert (pairs.drop_condition("Customers can return an item within 30 days if they keep the receipt.")
            == "Customers can return an item within 30 days.")
    assert pairs.drop_condition("The library is open until midnight unless the campus is closed.") == "The library is open."
    assert pairs.drop_condition("The river is wide.") is None
    rng = random.Random(0)
    assert pairs.widen_quantifier("Visitors may bring a guest.", rng) == "Visitors must bring a guest."
    assert pairs.widen_quantifier("The shop opens in May.", rng) is None  # a month, not "may"
    assert pairs.widen_quantifier("It costs some 20 euros.", rng) is None  # "some" as "about"


def test_labels_follow_the_kind_and_supported_claims_are_the_documents_own_words():
    got = []
    for seed in range(40):
        got += pairs.kinds_pairs(random.Random(seed), per_doc=5, docs=DOCS)[0]
    kinds = {(k, y) for _, _, y, k in got}
    assert {("rule/kinds_copy", 1), ("rule/kinds_role_swap", 0), ("rule/kinds_plan_as_done", 0),
            ("rule/kinds_done_as_plan", 0), ("rule/kinds_condition_dropped", 0), ("rule/kinds_quantifier", 0)} <= kinds
    assert all(y == (k == "rule/kinds_copy") for k, y in kinds)
    for claim, doc, y, _ in got:
        if y:  # the sentence, or the sentence less a clause: every word of it is in the document
            assert all(w.strip(".,") in doc for w in claim.split())
        else:
            assert claim not in doc
