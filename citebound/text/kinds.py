"""Words that each name one of a closed kind: a day of the week, a part of the day, a season, a month, a
direction, a colour, a period of time. One such word swapped for another of its kind says something else
("reviewed every month" / "every week", "the north wing" / "the south wing", "on Tuesdays" / "on
Thursdays"), while every other word stays, so word overlap and a small model both miss it. Read by the
numbers check (a number's qualifier: "9 pm on Tuesdays") and the kind check (checks/kinds.py).

`ONE_OF_A_KIND[word] = (kind, which)`: two words of one kind and another `which` are two of that kind.
"""

from __future__ import annotations

_GROUPS = {
    "day": ("monday mondays", "tuesday tuesdays", "wednesday wednesdays", "thursday thursdays", "friday fridays",
            "saturday saturdays", "sunday sundays"),
    # a day of the week is no other one than "weekdays": the two parts of the week are a kind of their own
    "part of the week": ("weekday weekdays", "weekend weekends"),
    "part of the day": ("morning mornings", "afternoon afternoons", "evening evenings", "night nights", "noon midday",
                        "midnight"),
    "season": ("spring", "summer summers", "autumn autumns", "winter winters"),
    # "may" is left out: a modal far more often than a month
    "month": ("january", "february", "march", "april", "june", "july", "august", "september", "october",
              "november", "december"),
    "direction": ("north northern", "south southern", "east eastern", "west western"),
    "colour": ("red", "blue", "green", "yellow", "white", "black", "orange", "purple", "pink", "grey gray",
               "brown"),
    # a period read as how often ("every month", "a week", "weekly"); after a number it is a unit, the
    # numbers check's ("12 months" is "one year")
    "period": ("hour hours hourly", "day days daily", "week weeks weekly", "fortnight fortnightly",
               "month months monthly", "quarter quarterly", "year years yearly annually annual", "decade decades"),
}  # fmt: skip

ONE_OF_A_KIND = {w: (kind, k) for kind, groups in _GROUPS.items() for k, group in enumerate(groups)
                 for w in group.split()}  # fmt: skip
# a period said as an adverb of how often ("weekly") -> the period's first word ("week")
FREQUENCY_ADVERBS = {w: group.split()[0] for group in _GROUPS["period"] for w in group.split()
                     if w.endswith("ly") or w == "annual"}  # fmt: skip
# the kinds a number's qualifier is read by (checks/numbers.py: "on Tuesdays", "in the evening", "in spring")
QUALIFIER_KINDS = frozenset({"day", "part of the week", "part of the day", "season", "month"})
