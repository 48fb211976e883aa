"""The condition check: a claim must not state plainly what its source states only under a condition.

"Tickets are refundable" against "Tickets are refundable only if the event is cancelled by the
organiser": the claim is its source word for word, so the quote stage and word overlap both call it
supported, yet the source says something else (a refund under a condition). An answer that copies the
first half of a sentence makes exactly this claim. This rule finds the claim word for word in its best
evidence window (`find_span`: case, spacing and punctuation aside) and reads the rest of that sentence:

- right after it, a connective that makes it conditional: "only if", "only when", "unless", "provided
  (that)", "as long as", "on condition that", "subject to", "if", or "only" before a restriction ("only
  on weekends", "only for members"), or "for" a group past a threshold ("for orders over 50 euros",
  "for children under 12"); or, past a short phrase of the statement's own (up to four words: "can borrow
  laptops for one week if they leave a deposit"), one of the connectives that open a clause ("if",
  "unless", "provided", "as long as", "on condition that"; not "even if", "as if", "check if");
- right after a claim in the present, "when" with a participle or someone doing what a condition asks
  ("ride free on buses when accompanied by an adult", "get a 10% discount when they show a valid card");
  not a "when" that says when ("opens at 6 am, when the first trains arrive"); after a past or a future
  event "when" dates it ("The museum closed when it ran out of money", "will not be weakened when they
  play Chelsea");
- right after it, no comma between, a participle that narrows the claim's last noun to those past a limit
  ("a 20 percent discount on tickets | bought at least a week in advance", "for applications | submitted
  before 1 March");
- before it, in the same sentence, a conditional clause that opens the sentence ("If the event is
  cancelled, tickets are refundable"; "Unless ...", "Provided ...", "As long as ...").

What follows that is no condition stays a detail the claim leaves out ("Refunds take five business
days" against "... after the item arrives"; ", and adults pay 10 euros"). A claim that carries the
condition itself is not found word for word up to the connective, so it is left to the other stages.
The cascade runs it with the negation rule; a conflict makes the source `unsupported` (stage
`condition`) whatever a model says.

`waived_conditions`, in the same stage: a claim that says it holds whatever happens ("wherever the device
was", "regardless of the reason", "however many transfers", "with no exceptions") against the sentence of
the window that restates it and sets a condition or an exception ("provided ...", "unless ...", "except
...", "other than ..."). The entailment model supported both cases of the thirteenth blind set (P 0.58, 0.91).
"""

from __future__ import annotations

import re

from citebound.text.sentences import sentence_spans
from citebound.text.stem import alpha_content_stems, states_past
from citebound.text.tokenize import tokens
from citebound.verify.spans import find_span, rest_of_sentence

# right after the claim: what makes it conditional (the comma before it optional)
_AFTER = re.compile(
    r"\s*,?\s*(?:only\s+(?:if|when|where|after|before|for|to|on|in|at|with|within|during|between|once)|"
    r"unless|provided(?:\s+that)?|as\s+long\s+as|on\s+(?:the\s+)?condition\s+that|subject\s+to|"
    r"if(?!\s+(?:needed|necessary|possible|any|required)\b)|but\s+only|"
    # "for orders over 50 euros", "for children under 12": who or what it holds for, past a threshold
    r"for\s+(?:[^\W\d_]+\s+){1,3}(?:over|above|under|below|exceeding|aged|"
    r"(?:of\s+)?(?:more|less|fewer|longer|shorter|older|younger|greater|larger|smaller)\s+than|"
    r"of\s+(?:at\s+least|over|up\s+to))\s+(?:[$€£]\s*)?\d)",
    re.IGNORECASE,
)
# a participle that narrows the claim's last noun to those past a limit of time or amount ("a discount on tickets
# | bought at least a week in advance", "waived for applications | submitted before 1 March"); no comma before
# it (one makes it a description), and no "by" / "over" ("separated by the river", "accrued over a year")
_NARROWED = re.compile(
    r"\s+(?:[^\W\d_]+ed|bought|sold|made|paid|sent|held|taken|given|written|kept|won|spent|done|seen|"
    r"brought|built|chosen|drawn|grown|known|shown|worn|begun|run)\s+"
    r"(?:at\s+(?:least|most)|no\s+(?:later|earlier|more|less|fewer)\s+than|(?:more|less|fewer)\s+than|"
    r"up\s+to|within|before|prior\s+to|in\s+advance)\b",
    re.IGNORECASE,
)
# the same past a short phrase of the claim's statement ("can borrow laptops | for one week | if they leave a
# deposit"): up to four words, none a conjunction that starts another statement, none a verb that asks
# whether ("check if"), nor "even" / "as" ("even if", "as if" hold it whatever happens)
_GAPPED = re.compile(
    r"\s+(?:(?!(?:and|but|or|nor|so|because|which|who|while|whereas|as|even|ask|asks|asked|see|check|checks|"
    r"know|tell|decide|decides|wonder|determine|test|whether)\b)[^\W_][\w'’-]*\s+){1,4}?,?\s*"
    r"(?:only\s+(?:if|when)|unless|provided(?:\s+that)?|as\s+long\s+as|on\s+(?:the\s+)?condition\s+that|"
    r"if(?!\s+(?:needed|necessary|possible|any|required)\b))\b",
    re.IGNORECASE,
)
# "when" that sets a condition on a statement in the present: a participle ("ride free | when accompanied by an
# adult", "half price | when booked online") or someone doing what the condition asks ("a discount | when they
# show a valid card"); not any "when" clause, which more often says when ("opens at 6 am, | when the first trains
# arrive", "floods every spring | when the snow melts": a review found 12 such blocked by a wider first version).
# After a past or a future event it dates ("closed | when it ran out of money", "will not be weakened | when they
# play Chelsea")
_WHEN = re.compile(
    r"\s*,?\s*(?:only\s+)?when(?:ever)?\s+(?:accompanied|booked|bought|purchased|ordered|paid|kept|used|shown|"
    r"presented|made|[^\W\d_]+ed\s+by|(?:you|they|customers|members|guests|passengers|users|students|staff|"
    r"visitors|children|buyers|holders)\s+(?:show|present|buy|book|pay|order|use|bring|have|hold|register|sign|"
    r"apply|join|travel|arrive|spend|subscribe|renew|display|carry|wear))\b",
    re.IGNORECASE,
)
_FUTURE = re.compile(r"\b(?:will|won't|would|shall|going\s+to)\b", re.IGNORECASE)
# a sentence that opens with a conditional clause, then a comma, then the claim
_BEFORE = re.compile(
    r"(?:^|[.!?;:]\s+)(?:only\s+if|only\s+when|if|unless|provided(?:\s+that)?|as\s+long\s+as|"
    r"on\s+(?:the\s+)?condition\s+that)\b[^.!?;]*,\s*$",
    re.IGNORECASE,
)


def dropped_conditions(claim: str, window: str) -> list[str]:
    """What the claim leaves out: the condition under which `window` states it word for word (none
    when the claim is not in the window word for word, or nothing conditional borders it)."""
    text = claim.strip().rstrip(".!?;: ")
    if len(text.split()) < 2:
        return []
    span = find_span(window, text)
    if span is None:
        return []
    start, end = span
    after = window[end:]
    if _AFTER.match(after) or _GAPPED.match(after) or _NARROWED.match(after) or (
            _WHEN.match(after) and not states_past(text) and not _FUTURE.search(text)):  # fmt: skip
        condition = rest_of_sentence(after)
        return [f"the source goes on {condition[:80]!r}, a condition the claim leaves out"]
    before = _BEFORE.search(window[:start])
    if before:
        condition = window[before.start() : start].strip(" ,.!?;:")
        return [f"the source opens with {condition[:80]!r}, a condition the claim leaves out"]
    return []


# A claim that says it holds whatever happens: "wherever the device was", "regardless of the reason", "in
# every case", "with no exceptions"; up to the end of its clause
_WHATEVER = re.compile(
    r"\b(?:wherever|whenever|whatever|whichever|however\s+(?:many|much|long)|regardless\s+of|irrespective\s+of|"
    r"no\s+matter|in\s+(?:all|every)\s+cases?|without\s+(?:any\s+)?(?:exception|conditions?|restrictions?)|"
    r"with\s+no\s+(?:exceptions?|conditions?|restrictions?)|unconditionally)\b[^,;.!?]*",
    re.IGNORECASE,
)
# What a source sets on a statement: a condition or an exception
_LIMITED = re.compile(
    r"\b(?:provided(?:\s+that)?|providing|only\s+(?:if|when|where)|as\s+long\s+as|on\s+(?:the\s+)?condition\s+that|"
    r"unless|except(?:\s+for)?|excluding|other\s+than|apart\s+from|subject\s+to|but\s+not)\b[^.;!?]*",
    re.IGNORECASE,
)
_RESTATED_SHARE = 0.6  # of the claim's other content words, in the sentence that sets the condition


# where a sentence goes on to another statement before a condition ("..., and adults pay the full fare except at
# weekends": the exception is the adults' fare's)
_NEXT_STATEMENT = re.compile(r"[;:]|,\s*(?:and|but|while|whereas|so)\b|\bwhich\b", re.IGNORECASE)


def waived_conditions(claim: str, window: str) -> list[str]:
    """A claim that says it holds whatever happens ("covers accidental damage ..., wherever the device was")
    against a window whose sentence restating it sets a condition or an exception ("..., provided the
    device was kept in a locked room"; "for all business travel, except journeys within central London"):
    the source's words, as a readable phrase; empty otherwise. The words before the condition, back to where
    their statement begins, must state most (60 %, two at least) of the claim's content words outside its
    "whatever" phrase. A claim that states a condition or an exception itself, or a source sentence that
    says "whatever" too ("wherever possible", "regardless of how it was charged, but not water damage"), is
    left alone; "in any case" is a way of speaking, not a "whatever"."""
    said = _WHATEVER.search(claim)
    if said is None or _LIMITED.search(claim):
        return []
    core = alpha_content_stems(tokens(claim[: said.start()] + " " + claim[said.end() :]))
    if len(core) < 2:
        return []
    for start, end in sentence_spans(window):
        sentence = window[start:end]
        limit = _LIMITED.search(sentence)
        if limit is None or _WHATEVER.search(sentence):
            continue
        cuts = [m.end() for m in _NEXT_STATEMENT.finditer(sentence, 0, limit.start())]
        statement = sentence[cuts[-1] if cuts else 0 : limit.start()]
        shared = core & alpha_content_stems(tokens(statement))
        if len(shared) >= max(2, _RESTATED_SHARE * len(core)):
            return [f"the claim says {said.group(0).strip()[:60]!r} where the source sets "
                    f"{limit.group(0).strip()[:80]!r}"]
    return []
