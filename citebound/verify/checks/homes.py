"""The home check: a claim that someone lives (resides, is based, is headquartered) in a place now must find
that place given as a home in its source, not only named.

"She now lives in Leeds" against "She was born in Leeds before moving to York" (the shipped `full` said
supported, 0.73), "Tobias Lind lives in Malmö" against "Tobias Lind was born in Malmö", "Corvex Systems is
based in Dublin" against "Corvex Systems opened an office in Dublin": every word of the claim is in the
source, and the model reads a place named beside a person as their home. Two rules, both on the source as a
whole (a home may be stated in another sentence than the window's):

- `moved_away`: a sentence names the place as a home of the past or a move's origin ("born in Leeds", "grew up
  in Leeds", "from Leeds", "left Leeds") and, after it, a move to another place ("before moving to York"), and
  no sentence gives the place as a home or a destination ("lives in Leeds", "moved back to Leeds");
- `unstated_home`: no sentence that names the place says anything of a home in it (lives, resides, based,
  headquartered, home, settled, stayed, remains, native, still...): the place is only where someone was born,
  studied, toured, has an office.

Who lives there is not read: "Tom lives in Denver; his partner Rita lives in Boulder" gives Denver as a home,
and "Rita lives in Denver" is left to the other checks.
"""

from __future__ import annotations

import re

from citebound.text.sentences import sentence_spans

_NAME = r"[A-Z][\w'’-]*(?:\s+(?:[A-Z][\w'’-]*|upon|on|de|la|le))*"
# the claim's present home: "lives in Leeds", "now resides in Leeds", "is based in Leeds", not negated
_HOME = re.compile(r"\b(?<!no longer )(?<!not )(?:lives|live|resides|reside|is\s+based|are\s+based|is\s+living|are\s+living|"
                   r"is\s+headquartered|are\s+headquartered|makes\s+(?:her|his|their|its)\s+home)\s+(?:now\s+)?in\s+"
                   r"(?P<place>" + _NAME + ")")
_NOT_NOW = re.compile(r"\b(?:no\s+longer|not|never|was|were|until|used\s+to)\b", re.IGNORECASE)
# a move to somewhere: "moving to York", "moved from Leeds to York", "relocated to", "left Leeds for York"
_MOVE = re.compile(r"\b(?:moved|moving|moves|move|relocated|relocating|relocates|emigrated|emigrating|"
                   r"left|leaving|leaves)\b(?:(?!\b(?:and|but)\b)[^.;:])*?\b(?:to|for)\s+(?P<dest>" + _NAME + ")")
_BACK = r"(?:lives|live|lived|living|resides|resided|based|settled|settling|returned|returning|back|moved|moving|relocated|home)"
# a sentence that speaks of a home at all
_HOME_WORDS = re.compile(r"\b(?:lives?|living|resides?|residing|residents?|based|headquartered|headquarters|home|homes|"
                         r"settled|settling|stays|stayed|staying|remains|remained|native|still|returned|returning|"
                         r"moved|moving|relocated|relocating|emigrated|where|head\s+offices?|main\s+office|seat|"
                         r"residence|currently)\b|"
                         r"\b(?:has|have)\s+(?:\w+\s+)?(?:lived|been\s+based|been\s+living)\b", re.IGNORECASE)


def _claimed_home(claim: str) -> str | None:
    m = _HOME.search(claim)
    if m is None or _NOT_NOW.search(claim):
        return None
    return m.group("place")


def moved_away(claim: str, source: str) -> list[str]:
    """A home the claim states in the present that the source says was left for another place."""
    place = _claimed_home(claim)
    return [] if place is None else _moved_away(place, source)


def _moved_away(place: str, source: str) -> list[str]:
    # the source gives the place as a home or a destination itself: left to the other checks
    if re.search(rf"\b{_BACK}\b(?:\s+\w+){{0,2}}\s+(?:in|to)\s+{re.escape(place)}\b", source):
        return []
    # the place as a home of the past ("born in Leeds", "grew up in Leeds"), a move's origin ("from Leeds",
    # "left Leeds"): a move to a place that may hold it ("lives in Camden" / "moving to London") is not enough
    past_home = re.compile(rf"\b(?:born|raised|grew\s+up|lived|was\s+based|were\s+based|founded|started|began)"
                           rf"(?:\s+\w+){{0,2}}\s+in\s+{re.escape(place)}\b|\b(?:from|left|leaving|leaves)\s+{re.escape(place)}\b")
    for a, b in sentence_spans(source):
        sent = source[a:b]
        at = past_home.search(sent)
        if at is None:
            continue
        for move in _MOVE.finditer(sent):
            dest = move.group("dest")
            if move.start("dest") >= at.end() and dest != place and not dest.startswith(place) and not place.startswith(dest):
                return [f"the source says of {place} {sent[move.start():move.end()]!r}: a home left, not that it still is"]
    return []


def unstated_home(claim: str, source: str) -> list[str]:
    """A home the claim states in the present at a place the source names but never as a home."""
    place = _claimed_home(claim)
    return [] if place is None else _unstated_home(place, source)


def _unstated_home(place: str, source: str) -> list[str]:
    spans = sentence_spans(source)
    # each sentence naming the place, with the one before it (an address cut by an abbreviation: "residing at
    # ul. Lipowa 12, Wrocław")
    named = [(source[spans[k - 1][0] if k else a : b], source[a:b]) for k, (a, b) in enumerate(spans)
             if re.search(rf"\b{re.escape(place)}\b", source[a:b])]  # fmt: skip
    # the place as what an organisation is of: "the Henley-on-Thames club", "the Portland, Maine, publisher"
    of_place = re.compile(rf"\b(?:the|a|an)\s+{re.escape(place)}(?:,\s+{_NAME},)?\s+[a-z]")
    if not named or any(_HOME_WORDS.search(text) or of_place.search(sent) for text, sent in named):
        return []  # not named (the other checks' matter), or named where a home is spoken of
    return [f"the source names {place} ({' '.join(named[0][1].split())[:80]!r}) but not as a home"]


def home_conflicts(claim: str, source: str) -> list[str]:
    """Both rules, the claim's home read once (the cascade calls this for every claim and source)."""
    place = _claimed_home(claim)
    return [] if place is None else _moved_away(place, source) or _unstated_home(place, source)
