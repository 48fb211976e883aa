"""An answer sentence's attribution: "According to the policy, ...", "The report says that ...", "...,
the leaflet warns."

Answers cite their sources in words as well as with markers, and those words are not in the source: a rule
that needs every content word of the claim in its evidence ("staff in any role may work remotely" against
"... except for staff in customer-facing roles") reads "According to the policy, staff in any role may ..."
as a claim with two words the source lacks and steps aside. The cascade reads such a claim's statement
without its attribution as well (`without_attribution`).
"""

from __future__ import annotations

import re
from functools import lru_cache

_SAYING = (r"says?|said|states?|stated|notes|noted|note|reports|reported|explains?|explained|warns?|warned|"
           r"points?\s+out|pointed\s+out|specify|stipulated|"
           r"mentions?|mentioned|specifies|specified|lists?|listed|describes?|described|confirms?|confirmed|"
           r"indicates?|indicated|shows?|showed|shown|finds|found|reads?|stipulates?|advises?|advised|tells?|told")
# "According to the policy, ", "Based on the handbook, ", "As the leaflet notes, ", "Per the contract, "
_ACCORDING = re.compile(r"^\s*(?:according\s+to|based\s+on|as\s+per|as\s+(?:stated|noted|set\s+out|described)\s+in|per|"
                        r"under)\s+"
                        r"[^,]{1,60},\s*", re.IGNORECASE)
_AS_SAYS = re.compile(rf"^\s*as\s+[^,]{{1,50}}?\b(?:{_SAYING})\b,\s*", re.IGNORECASE)
# "The report says (that) ", "The hotel's terms state that ", "The minutes show ": a subject of at most six
# words, a verb of saying, what it says (two words at least, not opening with a pronoun: "The company said it
# will ..." keeps its subject)
_SUBJECT_SAYS = re.compile(rf"^\s*(?:[\w'’.-]+\s+){{1,6}}(?:{_SAYING})\s+(?:that\s+)?(?!(?:it|they|he|she|we|that|"
                           rf"i)\b)(?=\S+\s+\S)", re.IGNORECASE)
# "..., the leaflet warns." / "..., according to the minutes."
_TRAILING = re.compile(rf",\s*(?:according\s+to\s+[^,]{{1,60}}|(?:the|a|an|its|their)\s+(?:[\w'’-]+\s+){{0,4}}?"
                       rf"(?:{_SAYING}))\s*([.!?]?)\s*$", re.IGNORECASE)
_SOURCE_NOUNS = re.compile(r"\b(?:report|policy|policies|page|site|website|leaflet|label|terms|contract|minutes|"
                           r"notice|study|survey|data|results?|summary|document|guide|handbook|rules|schedule|"
                           r"letter|statement|announcement|release|notes|article|review|trial|analysis|figures|"
                           r"records?|source|text|passage|officials|researchers|authors|company|council|court|"
                           r"judge|ruling|board|agency|ministry|department|school|university|hotel|airline)\b",
                           re.IGNORECASE)


@lru_cache(maxsize=4096)  # the cascade asks it once per source of the same claim
def without_attribution(claim: str) -> str:
    """The claim's statement without its attribution, or the claim itself when it has none: "According to
    the policy, staff may ..." -> "Staff may ..."; "The report says spring rainfall was above average" ->
    "Spring rainfall was above average"; "Rainfall was above average, the report says." -> "Rainfall was
    above average." A subject that names no source ("The bus runs ...", "Maria said ...") is kept: only a
    document, a body or a pronoun before the verb of saying is an attribution."""
    text = claim
    if m := _ACCORDING.match(text) or _AS_SAYS.match(text):
        text = text[m.end() :]
    elif (m := _SUBJECT_SAYS.match(text)) and _SOURCE_NOUNS.search(text[: m.end()]):
        text = text[m.end() :]
    if (t := _TRAILING.search(text)) and (t.group(0).lstrip(", ").lower().startswith("according")
                                          or _SOURCE_NOUNS.search(t.group(0))):  # fmt: skip
        text = text[: t.start()] + (t.group(1) or ".")
    text = text.strip()
    return text[:1].upper() + text[1:] if text != claim.strip() else claim
