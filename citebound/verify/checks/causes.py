"""The cause check: a claim must not give a cause its source never states.

"The factory closed because of falling demand" against "The factory closed in 2015. Demand had been
falling for years.": every content word of the claim is in the source, so word overlap and the
entailment model (P = 0.72) support it, but the source never says one led to the other. `invented_causes`:
the claim joins two statements with a causal connective ("because", "due to", "as a result of", "caused
by", "led to" ..., or a purpose: "in order to", "in a bid to", a closing "to reduce costs") and the
source states no cause or consequence at all: none of a broad list of causal
words ("because", "due", "cause", "result", "lead"/"led", "so", "therefore", "since", "after",
"following", "reason", "blamed", "attributed", "thanks", "response", "prompted", "triggered", ...). The list
is wide on purpose: a source that says any of them is left to the other checks, so the rule fires only
where no reading of the source gives a cause. A verb can state the cause too ("Fog delayed flights" is
"Flights were delayed because of fog"): a source sentence that states the claim's effect (all its content
words) and names its cause (one of its words) is left alone as well, so the rule fires where the source
states the two apart ("Engineers found cracks in the bridge. The bridge was closed in May."). A negated claim ("not
because of") is left alone. The price of the wide list: a temporal "since January" or "after the
meeting" in the source also makes the rule step aside.
"""

from __future__ import annotations

import re

from citebound.text.sentences import sentence_spans
from citebound.text.stem import alpha_content_stems
from citebound.text.tokenize import is_contracted_negation, tokens

# a causal link the claim states: "because (of)", "due to", "owing to", "as a result of", "caused by",
# "thanks to", "led to" / "leads to", "resulted in", "result of"
_CLAIMED_CAUSE = re.compile(
    r"\b(?:because(?:\s+of)?|due\s+to|owing\s+to|as\s+a\s+(?:result|consequence)\s+of|caused\s+by|thanks\s+to|"
    r"(?:led|leads|lead|leading)\s+to|result(?:ed|s)?\s+(?:in|from)|the\s+result\s+of|on\s+account\s+of|"
    # a purpose ("will cut 200 jobs to reduce costs", "in order to", "in a bid to")
    r"(?P<purpose>in\s+order\s+to|so\s+as\s+to|in\s+an?\s+(?:bid|effort|attempt)\s+to|with\s+the\s+aim\s+of|"
    r"(?P<bare>to)\s+(?=(?:reduce|cut|lower|save|boost|improve|increase|raise|avoid|prevent|protect|attract|offset|"
    r"ease|tackle|curb|limit)\s+[^\W\d_]+[.!?]?\s*$)))\b",
    re.IGNORECASE,
)
# any word with which a source may state a cause or a consequence (stems and forms; wide on purpose)
_CAUSAL_WORDS = frozenset(
    "because cause caused causes causing due owing result results resulted resulting consequence consequences "
    "consequently lead leads led leading so therefore thus hence since as after following followed reason "
    "reasons why blame blamed blames attributed attribute attributes attributing thanks response responded "
    "prompted prompting triggered triggers trigger drove driven drive drives contributed contributing "
    "contributes factor factors effect effects affected impact impacted behind amid explained explains "
    "stemmed stems forced forcing made makes sparked fuelled fueled boosted hit hurt".split()
)
# and, for a claim that gives a purpose, the words with which a source may state one
_PURPOSE_WORDS = frozenset("aim aims aimed aiming goal goals purpose purposes bid effort efforts attempt intended "
                           "order".split())
_NEGATIONS = frozenset("not no never".split())


def invented_causes(claim: str, source: str) -> list[str]:
    """The claim's causal connective where the whole source states no cause or consequence; else empty."""
    m = _CLAIMED_CAUSE.search(claim)
    if m is None:
        return []
    before = tokens(claim[: m.start()])
    if before and (before[-1] in _NEGATIONS or is_contracted_negation(before[-1])):
        return []  # "not because of": the claim denies a cause
    after = tokens(claim[m.end() :])
    if not before or not after:
        return []  # no statement on one side: nothing is joined
    purpose = m.group("purpose") is not None
    if any(t in _CAUSAL_WORDS or (purpose and t in _PURPOSE_WORDS) for t in tokens(source)):
        return []
    effect, cause = alpha_content_stems(before), alpha_content_stems(after)
    for start, end in sentence_spans(source) or [(0, len(source))]:
        words = alpha_content_stems(tokens(source[start:end]))
        if effect <= words and words & cause:
            return []  # one sentence names both: a verb may state the cause ("Fog delayed flights")
    said = claim[m.start() :].rstrip(" .!?") if m.group("bare") else m.group(0)  # "to reduce costs"
    return [f"the claim says {' '.join(said.split())!r}; the source states no cause"]
