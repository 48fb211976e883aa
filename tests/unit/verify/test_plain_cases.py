"""Plain-language cases a user tries first (tests/unit/verify/plain_cases.jsonl, written for this test:
one line each, claim + source + gold label), through the `deterministic` and `full` checkers.

The set: 183 cases, 90 unsupported — a negation hidden in a contraction ("cannot", "isn't", "won't",
"never stored", "no longer", "nowhere near"), a negation the rules must not misread (a quoted phrase, a
denied "believe that", "little change", "can't wait to"), a word swapped for its opposite ("decreases" /
"increases"), a true number on the wrong attribute, thing, sentence or year, an
invented author or cause, a comparison turned around (and restated the other way round), a unit or number written two ways (supported),
and plain paraphrases (supported). `rule: true` marks the cases the deterministic rules decide
(checks/numbers.py, negation.py, comparison.py, dates.py, exceptions.py, scope.py, modality.py, opposites.py,
roles.py, plans.py): an unsupported one must be unsupported, by those rules,
for every checker (a claim that contradicts its source or puts a true number on the wrong thing is
never shown); a supported one must never be blocked by them.

Balanced accuracy measured on this set (2026-11-30, the shipped entailment model and its calibrated
`full` threshold): deterministic 0.840, full 0.873 on the first 63 (before the numbers-in-context and
negation rules: 0.541 and 0.655); 2026-12-01, with the comparison rule, on 68: deterministic 0.853, full
0.941; with the measure-dimension rule and "never" read as "not", on 70: deterministic 0.886, full 0.957. 2026-12-01,
negation misreadings and numbers written "56, 000" (10 new cases), on 87: deterministic 0.875, full 0.954
(on the first 77: 0.892, 0.947). 2026-12-01, a number read with its clause, exceptions, a statement with one
word swapped for its opposite blocked (9 new), on 99: deterministic 0.865, full 0.959; a rate per what the source
says (2 new), on 101: 0.867, 0.960; scope ("all", "only"; 3 new), on 104: 0.870, 0.961; "not yet", "non-", before / after, most / few (4 new), on 108: 0.870, 0.961;
modality ("must" / "may") and a boundary word before a number ("by" / "to", "until" / "from"; 5 new), on 113:
0.873, 0.963; "pm" against "am" (1 new), on 114: 0.873, 0.963; two supported restatements the new rules
must not block (2 new), on 116: 0.868, 0.964; restatements the new rules had blocked (the month "May",
"need a licence", "nobody except", a relation said from the other side, "up to 2 pm", "per user a month"; 9 new),
on 125: 0.871, 0.968;
"non-EU citizens" is not a negation of "EU" (1 new), on 126: 0.865, 0.968;
a restriction in another clause than the restated one (1 new), on 127: 0.867, 0.961;
a "may" of another clause than the restated one (1 new), on 128: 0.869, 0.961;
a clause after a semicolon that opens with "it" (1 new), on 129: 0.871, 0.962;
an exception whose excepted thing another clause states plainly (1 new), on 130: 0.873, 0.962;
an opposite the source states negated ("closed" / "not open"; 1 new), on 131: 0.868, 0.963;
"by 5 pm" against "from 9 am to 5 pm" (1 new), on 132: 0.870, 0.963; what a
denied verb takes ("did not reach significance") is not stated either (1 new), on 133: 0.871, 0.963.
2026-12-01 (13:00-14:00), the wrong one-line verdicts left open ("No employee may", "children under 5,
who travel free", a value said of another day / verb / year, a founder or a place swapped, "twice a day",
"began" / "completed", a plan stated as a fact) and their restatements (20 new), on 153: 0.883, 0.968;
then 20 cases written blind (run before any fix: deterministic 13/20, full 13/20; see docs/benchmarks.md),
on 173: 0.869, 0.954; an author the source never names, a verb left out ("and its battery 60 grams"): 0.875, 0.966;
"1,500 kg" is no year (6 new), on 179: 0.879, 0.967; "No refunds are given" (2 new), on 181: 0.880, 0.967 (at
full's threshold before 3e3ca2b; at its new 0.5095: 0.880, 0.951); "closed on Mondays" restates "open every day except
Mondays", "closed on Tuesdays" does not (2 new), on 183: 0.887, 0.951; a claim copied up to a condition it
leaves out ("only if", "unless", "Provided ...,"; 4 new) and 3 restatements the rule must not block, on 190:
0.891, 0.953. 2026-12-01 (15:45), two kinds a third blind set (bench/data/unseen_cases/cases3.jsonl) showed,
each with new cases: a threshold dropped ("free" against "free for purchases above 30 dollars") and a value
whose noun the source leaves out ("280,000 visitors in 2019 and 310,000 in 2020"; 5 new), on 195: 0.893, 0.954.
An event dated past a short complement ("opened to readers in 2008") or over a range ("ran from 2014 to 2019";
4 new, the first kind also from that set), on 199: 0.895, 0.955. Who did a deed to whom, turned round ("Oxford beat
Cambridge" against "Cambridge beat Oxford"; the passive too; 4 new, a kind every blind set had), on 203: 0.892, 0.956.
"failed to start" denies "started" (2 new; the third blind set's "failed to improve" kind), on 205: 0.893, 0.956.
A change's direction in other verbs ("increased" against "fell", "climbed" against "dropped"; 3 new; the
model gave "Prices increased" P = 0.80 against "Prices fell"), on 208: 0.894, 0.957.
A thing given to the wrong one of two names ("Ana Silva coaches the junior team" against "... the senior team, while
Paul Weber coaches the junior team"; 3 new), on 211: 0.896, 0.958. After the fourth blind set had judged the session's model
candidates (and is spent for these two kinds): an obligation the source denies ("must register" against "can
register, but it is not mandatory") and a year written after a month ("reopened in April 2020"; 4 new), on
215: 0.894, 0.958. A name at the end of one clause read as one name with the next clause's first ("by Ines Roth; Omar
Said restored it": the role rule let "Omar Said painted the mural" pass; 1 new), on 216: 0.894, 0.958. "fails to"
inside a condition denies nothing ("If a member fails to renew the card within 30 days, ..."; found by running the
session's rules over 1,040 faithful generated claims; 1 new), on 217: 0.894, 0.959.
2026-12-01 (18:15), kinds the second blind set (cases2.jsonl, now spent) showed, each with a contradiction and a
restatement of the same source: a change's direction in more verbs ("increased" against "shortened", "raised"
against "cut"; 4 new), on 221: 0.896, 0.959. A change to come on a named day ("will close ... from next Monday"
stated as "is closed"; 2 new), on 223. A condition past a short phrase ("can stay in the cabin for three nights if
..."; "even if" is none; 3 new), on 226. A name after a participle of another clause ("Lyon won the final, defeating
Porto": Porto did not win; 2 new), on 228. A deed turned round between two things named in lower case ("The bookshop
chain bought the publisher"; 2 new), on 230. A deed two do to each other said the other way round ("met", "married":
the rule blocked "Alice married Bob" against "Bob married Alice"; 1 new), on 231. A place said in the present and
after "the" ("stands in the Prado" against "... now stands in the Uffizi"; 2 new), on 233. A place in a ranking is
stated as a rank, not as a count ("came second" against "came fifth ..., two lengths behind"; 3 new), on 236. A value
said "in the one before" while another number has the claim's qualifier ("8 percent in the spring quarter" against
"6 percent in the spring quarter, down from 8 percent in the one before"; 2 new), on 238. "All" or "most" of what the
source gives a part of ("three of the eight buses", "only a quarter of the volunteers"; 4 new), on 242. A comparison
without "than" turned round ("The paper map is more accurate" against "The satellite map is far more accurate than
the paper one"; 3 new), on 245. What a negated verb of showing leaves unshown, stated plainly ("lowers cholesterol"
against "has not been proven to lower cholesterol"; 2 new), on 247. A value that counts the noun after "of the"
("Three of the ten patients": three patients; "nine in ten" stays a rate; 2 new), on 249. An event dated with the
date the source gives to another, its own kind dated otherwise ("opened in 2011" against "established in 2004 and
expanded in 2011"; 2 new), on 251. An author the source names only for another deed ("designed by Anna Berg" against
"Anna Berg inspected it"; 2 new), on 253: deterministic 0.899, full 0.965 (18:30; the second set is spent).
"came first" read as a rank is no number the source must state when it states no rank ("won the regional contest";
the numbers rule had blocked it since e4234e6; 1 new), on 254. A share written two ways ("one in four" / "a
quarter"; the numbers rule blocked it as "does not state 4"; 2 new), on 256. 2026-12-01 (eleventh session): a
true value of another clause ("lost 8% of their body weight, and their blood pressure fell by 12%" for "lost 12
percent of their body weight"; "Sales in Europe grew 12% ..., while sales in Asia grew 5%" for Asia), and two
numbers the model read as different when written two ways ("25" / "twenty-five", "0.2 percent" / "0.20%": P 0.04
before the model read the claim's numbers as the claim writes them); 5 new, on 261. A hedged amount in another unit
("not more than 3 grams" against "not more than 3,000 mg": the hedge alone had matched the wrong number; 2 new),
on 263. A negated hyphenated compound ("isn't thread-safe" beside "threads"), a word the source states in one
sentence and denies in the sentence about the claim ("covers fire and theft. It doesn't cover flood damage"),
and "no 9" read as a number (4 new), on 267. The model reads a unit as the claim writes it ("5 h" as "5 hours",
"an hour and a half" as "90 minutes"): two known misses of `full` pass. Who does a deed to whom turned round where the deed is one a modal
says is due ("shall repay") or goes to someone ("referred the patient to Dr. Okafor"; 3 new), on 270. A deed a
name reports of itself ("Harbor Mills said that it had acquired Delta Foods"; 2 new), on 272. A deadline
("by 11 am") is no amount a thing changed by (the numbers rule had blocked "must leave their rooms by 11 am"
as "not for 'rooms'"), and a time of another clause is no time of the claim's subject (2 new), on 274.
2026-12-02 (fourteenth session), the kinds two new blind sets (cases9, cases10) and a probe showed, each a
contradiction and a restatement: a deed turned round past "the startup NAME" / "the city of NAME", a passive
deed done to another name, a post "served as" up to a year, "every" of a statement taken back by an
exception or a condition, "on Tuesdays" / "on Thursdays" and a range's qualifier, "never give" / "can be
given", a word swapped for another of its closed kind ("every month" / "every week"), percentage points
against percent, the same verb with another doer, "including" an excepted thing, two events in the other
order, on time / late, a century or a decade as a date, a duration after "for" (33 new), on 351:
deterministic 0.892, full 0.983. From a twelfth set: an amount "of" another thing, a forecast stated as done
(3 new), on 354: 0.893, 0.983. 2026-12-02 (fifteenth session), from a thirteenth set: a deed said with a verb
of the other side ("took over from" / "replaced", "lost to" / "beat", a title before the name), a
recommendation or a hedge in one part of a joined answer sentence, "wherever" / "regardless" against a
condition or an exception, a plan weighed or proposed stated as decided, "one week's" read as a number,
years against months (17 new), on 371: 0.888, 0.981 (on this AVX2 machine, with exact int8 sums); a value of
another name whose clause opens the sentence ("The Kestrel 5 has ... 12 hours, while the Kestrel 7 lasts 9
hours"), and a compared pair it must not block (5 new), on 376: 0.886, 0.981; from a fourteenth set: a modal after
a negated relative clause opens a stated predicate ("not used by Friday can be exchanged"), a deed in the
perfect turned round, a permission the source denies ("does not permit children under 12 in the sauna"; 5
new), on 381: 0.888, 0.981; the value before a change given as the value now ("from 40 pounds to 55 pounds";
2 new), on 383: 0.886, 0.981; restatements a second review found blocked ("the same", "will be refused
boarding"; 2 new), on 385: 0.884, 0.982. 2026-12-03 (seventeenth session): two values given to two things the
other way round ("the Basic plan costs $24 and the Premium $9"), a superlative turned round, a finding or a
future stated as fact where the source says "could" / "would", a value that held until a time or "used to",
a name given to an office the source names no one for ("Spokesperson Anna Lee"), noon / midnight as times,
with the restatements a review found the first versions blocked (25 new), on 410: 0.884, 0.983; "shows"
where the source "suggests", a value after "now $52, up from" (4 new), on 414: 0.882, 0.983. Kinds blind set 16 showed (spent for
them): a "when" condition left out ("ride free on buses when accompanied by an adult"), "most" of what the
source says "several" of, a deed turned round between "Ltd." / "Co." companies (7 new), on 421: 0.884, 0.983; a thing
"may be taken" the source does not permit to bring, "now" with the verb of a plan in other words, a place of
another event ("after last year's meeting in Vienna"; 4 new), on 425: 0.885, 0.983; blind set 16's
faithful refusals, each kind restated (a duration with another verb, a change "to" an amount in another unit,
"three quarters" / "75 percent", "a quarter off" / "25%", "free of" / "no"; 6 new), on 431: 0.876, 0.984; a purpose the source never gives ("to reduce costs"),
and restatements a second review found blocked ("opens at 6 am, when the first trains arrive", "Several staff
left early, but 45 of the 50 staff stayed late"; 4 new), on 435: 0.877, 0.984; "the most expensive" against
"the cheapest" (1 new), on 436: 0.877, 0.984. Kinds blind set 18 showed (spent for them): an
answer's attribution ("According to the policy, ...", "The report says ...") that hid a contradiction from the
rules, a looser bound of a condition ("Orders over $30" against "over $50"), a value the source gives only
to another thing ("a 2-month trial period" against "a trial period of 4 months and ... a mentor review after 2
months"), and restatements ("holds 0.25 g" / "contains 250 mg", a comparison's "versus"; 8 new), on 444: 0.875, 0.984; a denial with its verb left out ("but the council said it will
not."; 1 new), on 445: 0.876, 0.984. 2026-12-03 (eighteenth session's rules; 13 new), on 458: 0.876, 0.985.
2026-12-03, nineteenth session: people on the other side of an age bound ("Children over 12" / "Under-12s"), a
denied "more than" that restates an upper bound, a denied requirement ("A ticket is not required to board" /
"No passenger may board without a ticket"), a bound after its number ("aged 70 or older"; 13 new), on 471:
0.871, 0.985.
The floors below sit just under those figures. Cases a checker still gets wrong and no rule can
catch (a true number on another attribute with the same unit, a comparison restated the other way
round, paraphrases the word overlap or the model miss) are listed in KNOWN_MISSES as strict xfails:
when a better model fixes one, its marker must go.
"""

from __future__ import annotations

import json
import os
from functools import cache
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from citebound.verify.cascade import RULE_STAGES  # noqa: E402
from citebound.verify.checkers import make_checker  # noqa: E402

CASES = [json.loads(line) for line in (Path(__file__).with_name("plain_cases.jsonl")).read_text().splitlines() if line]
BY_ID = {c["id"]: c for c in CASES}
CHECKERS = ("deterministic", "full")
BA_FLOOR = {"deterministic": 0.86, "full": 0.94}

_RESTATED = "a comparison restated with its sides swapped and the antonym: the rules only block, and '{}' is not in the source"
KNOWN_MISSES = {
    "deterministic": {
        "num-age-group-same-side-kept": "no rule blocks it, but 'children' is not in the source: 0.75",
        "neg-denied-more-than-bound": "no rule blocks it, but 'cannot' is not in the source: 0.75",
        "neg-denied-longer-than-bound": "no rule blocks it, but 'not' and 'longer' are not in the source: 0.55",
        "neg-denied-requirement-other-place-kept": "no rule blocks it, but 'need' and 'park' are not in its sentence",
        "cmp-restated-swapped": _RESTATED.format("slower"),
        "cmp-restated-antonym": _RESTATED.format("worse"),
        "cause-stated-by-a-verb-kept": "no rule blocks it (the verb 'delayed' states the cause), but none of its word "
                                       "pairs is in the source: 0.75",
        "cause-stated-kept": "no rule blocks it ('because' states the cause), but 'due' is not in the source: 0.72",
        "unit-space-thousands": "word pairs read '4 990' as two tokens, so '4990 employees' finds no pair",
        "condition-regardless-kept": "no rule blocks it, but 'regardless' is not in the source: 0.79",
        "num-compared-both-kept": "no rule blocks it, but 'cheaper' is not in the source: 0.78",
        "num-value-after-change-kept": "no rule blocks it, but 'costs' is not in the source: 0.78",
        "neg-refused-kept": "no rule blocks it ('refused' denies), but 'without' is not in the source: 0.60",
        "num-one-hour-kept": "no rule blocks it (one hour = 60 minutes), but 'hour' and 'one' are not in the source: 0.46",
        "unit-and-a-half-hours": "no rule blocks it (one and a half hours = 90 minutes), but '90' and 'minutes' are "
                                 "not in the source: word overlap only",
        "unit-years-as-months-kept": "no rule blocks it (three years = 36 months), but 'years' and 'three' are not in "
                                     "the source: 0.46",
        "para-up-to-five": "'take' is not in the source ('processed within'): word overlap 3/4",
        "para-never-sold": "'sold' does not stem to 'sell'",
        "para-eu-shipping": "'inside'/'free' against 'within'/'costs nothing': a paraphrase",
        "num-hedged": "'work for the company' against 'employs': a paraphrase",
        "neg-both-paraphrase": "'used' against 'work': a paraphrase",
        "neg-little-change": "'not changed' against 'little change': the rule no longer blocks it, word overlap misses 'not'",
        "neg-lacks": "'does not have' against 'lacks': the rule no longer blocks it, word overlap misses 'not'",
        "neg-not-as-readily": "'does not sink as readily' against 'sinks less readily': a degree the words do not show",
        "exc-not-except": "no rule blocks it ('not ... except' is read), but word overlap halves a claim that lacks the source's 'not'",
        "neg-not-permitted-prohibited": "'not permitted' against 'prohibited': no rule blocks it now, word overlap halves a claim whose 'not' the source lacks",
        "neg-non-eu": "no rule blocks it ('non-' makes a group of a noun), but 'non' is not in the source: word overlap 0.66",
        "opp-negated-opposite": "no rule blocks it ('not open' restates 'closed'), but 'closed' is not in the source: word overlap 0.50",
        "opp-below-above-sides": "no rule blocks it (the sides are swapped), but 'below' is not in the source: word overlap 0.75",
        "opp-won-lost-sides": "no rule blocks it (the sides are swapped), but 'won' is not in the source: word overlap 0.50",
        "num-crossed-owner-after-kept": "no rule blocks it (a value's owner after it is not read), but 'rose' and the "
                                        "word pairs are not in the source: word overlap 0.62",
        "role-adverb-not-a-name-kept": "no rule blocks it ('Meanwhile' is no name), but 'meanwhile' is not in the "
                                       "source: word overlap below 0.80",
        "num-now-up-from-kept": "no rule blocks it ($52 is the value now), but the claim's one word pair is not in "
                                "the source: word overlap 0.75",
        "unit-duration-other-verb-kept": "no rule blocks it (an hour and a half = 90 minutes), but 'lasts', 'hour' and "
                                         "'half' are not in the source: word overlap 0.31",
        "unit-change-to-converted-kept": "no rule blocks it (8 km = 8,000 metres), but 'cut', 'metres' and '8,000' are "
                                         "not in the source: word overlap 0.19",
        "num-share-three-quarters-kept": "no rule blocks it (three quarters = 75 percent), but 'cut', 'three' and "
                                         "'quarters' are not in the source: word overlap 0.30",
        "num-share-quarter-off-kept": "no rule blocks it (a quarter off = 25%), but 'discount' and '25%' are not in "
                                      "the source: word overlap 0.38",
        "neg-free-of-kept": "no rule blocks it ('free of' restates 'no'), but 'free' is not in the source: word "
                            "overlap 0.65",
        "unit-contains-holds-kept": "no rule blocks it (0.25 g = 250 mg, 'holds' = 'contains'), but 'holds', 'g' and "
                                    "'0.25' are not in the source: word overlap 0.30",
        "num-versus-kept": "no rule blocks it (the comparison said from the other side), but 'cooler' and 'versus' are "
                           "not in the source: word overlap 0.65",
        "unit-noon-clock-kept": "no rule blocks it (noon is 12:00), but 'noon' is not in the source: word overlap 0.68",
        "num-once-daily": "no rule blocks it ('daily' states once a day), but 'day' is not in 'daily': word overlap 0.69",
        "blind-cmp-restated": _RESTATED.format("cheaper"),
        "blind-unit-kg-grams": "no rule blocks it (2 kg = 2,000 grams), but word overlap misses 'kg' and '2': 0.73",
        "blind-unit-minutes-hours": "no rule blocks it (an hour and a half = 90 minutes), but word overlap misses "
                                    "'minutes' and '90': 0.46",
        "role-passive-kept": "no rule blocks it (the passive names the same deed), but none of its word pairs is "
                             "in the active source: 0.75",
        "date-month-year-kept": "no rule blocks it ('April 2020' dates the reopening), but none of its word pairs "
                                "is in the source: 0.75",
        "num-rank-label-kept": "no rule blocks it ('Season 3' is the third season), but none of its word pairs is "
                               "in the source: 0.75",
        "cmp-no-than-restated": "no rule blocks it (the other side, the opposite direction), but 'less' is not in "
                                "the source: word overlap 0.56",
        "date-kindred-event-kept": "no rule blocks it ('set up' in 2004 is 'established' in 2004), but 'set' is not "
                                   "in the source: word overlap 0.50",
        "num-rank-in-words-kept": "no rule blocks it ('won' states first place in words), but 'came' and the rank "
                                  "are not in the source: word overlap 0.51",
        "num-share-two-ways-kept": "no rule blocks it ('one in four' is 'a quarter'), but 'four' and its word pairs are "
                                   "not in the source: word overlap 0.50",
        "num-words-digits-kept": "no rule blocks it (25 = twenty-five), but 'get', 'year' and the word pairs are not in "
                                 "the source: word overlap 0.68",
        "num-percent-two-ways-kept": "no rule blocks it (0.2 percent = 0.20%), but 'annual' and the word pairs are not in "
                                     "the source: word overlap 0.56",
        "unit-hedged-converted-kept": "no rule blocks it (more than 3 grams = more than 3,000 mg), but 'grams' is not in "
                                      "the source: word overlap 0.79",
        "num-deadline-by-kept": "no rule blocks it ('by 10 am' is a deadline), but 'guests', 'leave' and 'hostel' near "
                                "it are not in the source's clause: word overlap 0.38",
        "scope-all-exception-kept": "no rule blocks it (the claim states the exception), but word overlap halves a claim "
                                    "whose 'not' the source lacks: 0.36",
        "neg-never-give-kept": "no rule blocks it ('must not be given' restates 'never give'), but 'given' does not stem "
                               "to 'give' for word overlap: 0.75",
        "num-century-as-date-kept": "no rule blocks it (1791 is in the late eighteenth century), but 'late', 'century' "
                                    "and 'eighteenth' are not in the source: word overlap 0.36",
        "unit-duration-for-kept": "no rule blocks it (90 minutes = an hour and a half), but 'hour' and 'half' are not in "
                                  "the source: word overlap 0.38",
    },
    "full": {
        "invented-requirement": "an invented condition on a topic the source mentions: the model says P = 0.64 (lexical 0.25)",
        "para-never-sold": "the model scores 'never sold' against 'never sell' P = 0.16",
        "para-eu-shipping": "the model scores 'free' against 'costs nothing' P = 0.25",
        "scope-all-restriction-elsewhere": "the model scores 'All students receive a laptop' P = 0.20 (no rule blocks it)",
        # the stage-6k model (2026-12-01) learned 'all' and 'must' as signs of an overstatement from the
        # 'kinds' generator's widened quantifiers ('some' -> 'all', 'may' -> 'must'), which has no positive
        # where the word restates the source: both faithful restatements below fall under its threshold
        "scope-all-with-its-restriction": "the model scores 'All orders over 50 euros ship free' against 'Orders over 50 euros ship free' P = 0.07",
        "condition-regardless-kept": "the model scores 'regardless of which site' against 'at all three sites' P = 0.10",
        "modal-may-of-another-clause": "the model scores 'Tenants must pay rent by the 5th' against 'Tenants pay rent by the 5th ...' P = 0.35 (score 0.48, just under 0.49)",
    },
}


@cache
def checker(name: str):
    return make_checker(name)


@cache
def verdict(name: str, case_id: str):
    case = BY_ID[case_id]
    return checker(name).check_pair(case["claim"], case["source"])


def predicted(name: str, case_id: str) -> str:
    return "supported" if verdict(name, case_id).label == "supported" else "unsupported"


def balanced_accuracy(name: str) -> float:
    recalls = []
    for gold in ("supported", "unsupported"):
        ids = [c["id"] for c in CASES if c["gold"] == gold]
        recalls.append(sum(predicted(name, i) == gold for i in ids) / len(ids))
    return sum(recalls) / 2


def test_the_set_is_plain_balanced_and_covers_every_kind():
    assert len(CASES) >= 40 and len(BY_ID) == len(CASES)
    unsupported = sum(c["gold"] == "unsupported" for c in CASES)
    assert 0.4 <= unsupported / len(CASES) <= 0.6
    assert {c["kind"] for c in CASES} == {"negation", "number", "comparison", "invented", "unit", "paraphrase"}
    assert all(len(c["claim"]) < 120 and len(c["source"]) < 200 for c in CASES)
    for name, misses in KNOWN_MISSES.items():
        assert set(misses) <= set(BY_ID), name


RULE_UNSUPPORTED = [c["id"] for c in CASES if c["rule"] and c["gold"] == "unsupported"]
RULE_SUPPORTED = [c["id"] for c in CASES if c["rule"] and c["gold"] == "supported"]


@pytest.mark.parametrize("name", CHECKERS)
@pytest.mark.parametrize("case_id", RULE_UNSUPPORTED)
def test_a_contradiction_or_a_number_on_the_wrong_thing_is_never_supported(name, case_id):
    v = verdict(name, case_id)
    assert v.label == "unsupported", (v.stage, v.reason)
    assert v.stage in RULE_STAGES, v.reason  # decided by a rule, whatever a model would say
    assert v.reason.startswith("evidence ")  # names the source and what failed


@pytest.mark.parametrize("name", CHECKERS)
@pytest.mark.parametrize("case_id", RULE_SUPPORTED)
def test_the_rules_never_block_a_restatement(name, case_id):
    v = verdict(name, case_id)
    assert v.stage not in RULE_STAGES, v.reason


def _marked(name: str, case_id: str):
    reason = KNOWN_MISSES[name].get(case_id)
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(name, case_id, marks=marks, id=f"{name}-{case_id}")


@pytest.mark.parametrize("name,case_id", [_marked(n, c["id"]) for n in CHECKERS for c in CASES])
def test_each_case(name, case_id):
    assert predicted(name, case_id) == BY_ID[case_id]["gold"], verdict(name, case_id).reason


@pytest.mark.parametrize("name", CHECKERS)
def test_balanced_accuracy_per_checker(name):
    ba = balanced_accuracy(name)
    print(f"plain cases, {name}: balanced accuracy {ba:.3f} on {len(CASES)} cases")
    assert ba >= BA_FLOOR[name], ba
