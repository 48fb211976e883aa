"""The cascade: cheap, certain checks first, each able to settle a claim before the next runs.

For one claim and each source it cites:

1. ids       a cited id that names no source -> unsupported ("S9 is not in the retrieved context").
2. numbers   a number in the claim that the source does not state, or states only with another unit
             or thing, in a sentence about something else, or with another year -> unsupported,
             the numbers named (checks/numbers.py).
   negation  a word the claim states plainly and its best evidence window negates, or the other way
             round ("can be returned" / "cannot be returned") -> unsupported, the word named
             (checks/negation.py). Runs with the numbers check (both off in `lexical` and `model`).
   comparison  a comparison the best evidence window states the other way round ("slower than" /
             "faster than", or its sides swapped) -> unsupported (checks/comparison.py); runs with
             the negation rule.
   exception  the claim states of a thing what the best evidence window states of everything except
             it ("covers water damage" / "covers everything except water damage") -> unsupported
             (checks/exceptions.py); runs with the negation rule.
   scope     the claim says "all" of what the window restricts ("orders over 50 euros") or "only" of what
             it shares ("managers and team leads"), otherwise restating it -> unsupported
             (checks/scope.py); runs with the negation rule.
   modality  the claim makes an obligation of what the window only permits or recommends ("must" /
             "may"), otherwise restating it -> unsupported (checks/modality.py); runs with the
             negation rule.
   opposite  the claim is its best evidence window's statement with one word swapped for its opposite
             ("prohibited" / "permitted", every other content word in the window) -> unsupported
             (checks/opposites.py `swapped_opposites`); runs with the negation rule.
   dates     an event the best evidence window dates otherwise ("opened in 1932" against "began in
             1932 and opened in 1937") -> unsupported (checks/dates.py); runs with the negation rule.
   role      a name the claim puts where the best evidence window puts another it also names ("Alice
             founded" against "Bob founded ...; Alice joined", "founded in Berlin" against "founded in
             Munich and moved to Berlin"), or an author the source never names ("written by Dr. Lee")
             -> unsupported (checks/roles.py); runs with the negation rule.
   plan      the claim states as a fact what the best evidence window only plans or expects ("supports
             Android" against "Android support is planned", "available now" against "will be available
             next year") -> unsupported (checks/plans.py); runs with the negation rule.
   ended     the claim states in the present what the window says held until a time ("Rio is Brazil's
             capital" against "Rio was Brazil's capital until 1960") -> unsupported (checks/ended.py);
             runs with the negation rule.
   condition the claim is the window word for word up to a condition it leaves out ("Tickets are
             refundable" against "... refundable only if the event is cancelled", or after "If ...,")
             -> unsupported (checks/conditions.py); runs with the negation rule.
3. lexical   score = (1 - pair_weight) * term share + pair_weight * word-pair share, halved when the
             claim states a negation its best evidence window lacks (checks/negation.py), and halved
             when the claim swaps a word the source never states for the opposite its window states
             ("decreases" / "increases"; checks/opposites.py), and raised to the threshold when the claim
             states an exception's excepted thing with the clause's word turned to its opposite ("closed
             on Mondays" / "open every day except Mondays"; checks/exceptions.py);
             >= threshold -> supported; >= partial_floor -> partial; else unsupported.
             term share: the claim's content terms (stemmed, numbers normalised) found in the source.
             With scope="blend" (the default) it is the mean of the whole source's share and the
             share inside the best window of up to two consecutive sentences, so words scattered over
             a long document count for less than words found together. Word pairs (adjacent content
             stems) see word order. Blend, pairs (weight 0.25) and negation were chosen on the dev
             splits (bench/verify_ablation.py; docs/verifier.md).
4. semantic  optional (`semantic=` an EntailmentScorer, see checks/base.py): replaces step 3's decision
             for sources that passed 1-2. The model's P(supported) is the score, or is blended with the
             lexical score (`lexical_weight`; a source longer than `long_source_chars` by its own
             weight), or combined with the deterministic signals by a fitted logistic `gate`
             (`gate_features`); score >= threshold -> supported. The `model` and `full`
             checkers (model_checkers.py) configure this one stage.

A claim is supported if any cited source supports it (the best source check wins); a claim that cites
nothing is `uncited`. `score` is in [0, 1], higher = better supported: the lexical score (or the
model's probability); a claim blocked by the numbers check keeps a quarter of its term fraction so
it still ranks below every claim that passed, at any threshold the batch tuner may pick. Each source
check also keeps `fraction`, the plain share of claim terms found anywhere in the source.

`Cascade(stemming=False, numbers=False, scope="source", pair_weight=0, negation=False)` is the seed's
plain checker, the measured baseline (`CHECKERS["lexical"]`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from citebound import config
from citebound.models.gate import Gate
from citebound.text.sentences import split_sentences
from citebound.verify.checks.base import LABEL_RANK, EntailmentScorer, Label, SourceCheck
from citebound.verify.checks.ids import missing_source, resolve_ids
from citebound.verify.checks.lexical import (
    Terms,
    claim_numbers,
    claim_pairs,
    pair_share,
    plain_terms,
    sentence_terms,
    source_plain_terms,
    source_states,
    source_stemmed_terms,
    stemmed_profile,
    stemmed_terms,
    support_fraction,
)
from citebound.verify.checks.bounds import reversed_bounds
from citebound.verify.checks.comparison import comparison_conflicts
from citebound.verify.checks.causes import invented_causes
from citebound.verify.checks.crossed import compared_values, crossed_values, misplaced_values
from citebound.verify.checks.conditions import dropped_conditions, waived_conditions
from citebound.verify.checks.exceptions import (
    affirmed_by_exception,
    denied_by_exception,
    exception_conflicts,
    restated_by_exception,
)
from citebound.verify.checks.modality import denied_permissions, modality_conflicts, stated_hedges
from citebound.verify.checks.scope import scope_conflicts
from citebound.verify.checks.speakers import wrong_speakers
from citebound.verify.checks.dates import date_conflicts
from citebound.verify.checks.ended import ended_states
from citebound.verify.checks.homes import home_conflicts
from citebound.verify.checks.negation import NEGATION_FACTOR, missing_negations, polarity_conflicts
from citebound.verify.checks.numbers import describe, problems_reason
from citebound.verify.checks.kinds import swapped_kinds, swapped_multiples, swapped_timeliness
from citebound.verify.checks.order import reversed_orders
from citebound.verify.checks.opposites import OPPOSITE_FACTOR, clause_opposites, opposed_words, swapped_opposites
from citebound.verify.checks.plans import plan_conflicts, weighed_as_decided
from citebound.verify.checks.roles import (
    crossed_roles,
    invented_authors,
    invented_names,
    other_doers,
    role_conflicts,
    swapped_roles,
)
from citebound.text.attribution import without_attribution
from citebound.verify.citations import remove_markers
from citebound.verify.report import ClaimVerdict
from citebound.verify.spans import best_window, find_span, headed_quote

BLOCKED_SCORE_FACTOR = 0.25
# The contradiction rules in the order they run, each (stage, conflicts(cascade, claim, window, source)): the
# first that finds a conflict settles the source, so the later ones are not read.
_CONTRADICTION_RULES = (
    ("numbers", lambda c, claim, window, source: crossed_values(claim, window) or misplaced_values(claim, window)
                                                  or compared_values(claim, window) or reversed_bounds(claim, window)),
    # (an exception restated is read on the statement, "Based on the rules, ..." aside)
    ("negation", lambda c, claim, window, source: [] if affirmed_by_exception(without_attribution(claim), window)
                                                   or denied_by_exception(without_attribution(claim), window)
                                                   else polarity_conflicts(claim, window, source)),
    ("comparison", lambda c, claim, window, source: comparison_conflicts(claim, window)),
    ("exception", lambda c, claim, window, source: exception_conflicts(claim, window)),
    ("scope", lambda c, claim, window, source: scope_conflicts(claim, window)),
    ("modality", lambda c, claim, window, source: modality_conflicts(claim, window) or stated_hedges(claim, window)
                                                  or denied_permissions(claim, window)),
    ("opposite", lambda c, claim, window, source: (swapped_opposites(claim, window, source_states(source))
                                                   or clause_opposites(claim, window)) if c.stemming else []),
    ("kind", lambda c, claim, window, source: swapped_kinds(claim, window) or swapped_timeliness(claim, window)
                                              or swapped_multiples(claim, window)),
    ("order", lambda c, claim, window, source: reversed_orders(claim, window)),
    ("dates", lambda c, claim, window, source: date_conflicts(claim, window)),
    ("role", lambda c, claim, window, source: role_conflicts(claim, window) or swapped_roles(claim, window, source)
                                              or crossed_roles(claim, window) or invented_authors(claim, source)
                                              or invented_names(claim, source)
                                              or other_doers(claim, window) or wrong_speakers(claim, window)),
    ("plan", lambda c, claim, window, source: plan_conflicts(claim, window) or weighed_as_decided(claim, window)),
    ("ended", lambda c, claim, window, source: ended_states(claim, window)),
    ("home", lambda c, claim, window, source: home_conflicts(claim, source)),
    ("condition", lambda c, claim, window, source: dropped_conditions(claim, window) or waived_conditions(claim, window)),
    ("cause", lambda c, claim, window, source: invented_causes(claim, source)),
)  # fmt: skip
# the stages that settle a claim as unsupported whatever a model or a threshold would say (besides "ids")
RULE_STAGES = tuple(dict.fromkeys(("numbers", *(stage for stage, _ in _CONTRADICTION_RULES))))
DEFAULT_THRESHOLD = config.SUPPORT_THRESHOLD
DEFAULT_PARTIAL_FLOOR = 0.5


@dataclass(frozen=True)
class Cascade:
    """A configured claim checker. Immutable; safe to share between threads."""

    threshold: float = DEFAULT_THRESHOLD
    partial_floor: float = DEFAULT_PARTIAL_FLOOR
    stemming: bool = True
    numbers: bool = True
    scope: Literal["source", "window", "blend"] = "blend"
    window_sentences: int = 2
    pair_weight: float = 0.25
    negation: bool = True
    semantic: EntailmentScorer | None = None
    name: str = "deterministic"
    # semantic stage only: score = (1 - lexical_weight) * P + lexical_weight * lexical score, unless a
    # `gate` (citebound.models.gate.Gate) combines P with the deterministic signals; `quote_shortcut`
    # supports a claim its source states word for word without a model call.
    lexical_weight: float = 0.0
    # a source longer than `long_source_chars` (0: no such rule) is blended with its own weight: the model
    # reads one 128-token window of it, the lexical score the whole text (chosen on dev, calibration.json)
    long_source_chars: int = 0
    long_source_lexical_weight: float = 0.0
    gate: Gate | None = None
    quote_shortcut: bool = False

    def __post_init__(self) -> None:
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"threshold must be in [0, 1], got {self.threshold}")
        if self.partial_floor > self.threshold:  # a low threshold: nothing between it and the floor is partial
            object.__setattr__(self, "partial_floor", self.threshold)
        if not 0.0 <= self.partial_floor <= self.threshold:
            raise ValueError("partial_floor must be in [0, threshold]")

    # -- terms -------------------------------------------------------------------------------------
    def claim_terms(self, claim: str) -> Terms:
        return stemmed_terms(claim) if self.stemming else plain_terms(claim)

    def source_terms(self, source: str, terms: Terms | None = None) -> frozenset[str]:
        """The source's terms (given the claim's `terms`, only those it could match: see lexical.py)."""
        return source_stemmed_terms(source, terms) if self.stemming else source_plain_terms(source)

    def window(self, source: str, terms: Terms) -> tuple[float, int, int]:
        """The best evidence window of `source` for these claim terms: (share, start, end)."""
        sentences, per_sentence = sentence_terms(source, self.stemming, terms)
        return best_window(sentences, per_sentence, terms.terms, max_sentences=self.window_sentences)

    def label_for(self, score: float, blocked: bool = False) -> Label:
        """The label a score earns at this cascade's threshold (blocked = failed ids/numbers)."""
        if blocked or score < self.partial_floor:
            return "unsupported"
        return "supported" if score >= self.threshold else "partial"

    # -- one claim, one source -----------------------------------------------------------------------
    def check_source(self, claim: str, source_id: str, source: str) -> SourceCheck:
        """Check `claim` (markers already removed) against the text of one source."""
        terms = self.claim_terms(claim)
        doc_share, missing_terms = support_fraction(terms, self.source_terms(source, terms))
        if self.numbers:
            blocked = self._numbers_check(claim, source_id, source, doc_share, missing_terms)
            if blocked is None and self.negation:  # the hard rules run together (`lexical`, `model`: off)
                blocked = self._contradiction_check(claim, terms, source_id, source, doc_share, missing_terms)
            if blocked is not None:
                return blocked
        if self.semantic is not None:
            return self._model_check(claim, terms, source_id, source, doc_share, missing_terms)
        return self._lexical_check(claim, terms, source_id, source, doc_share, missing_terms)

    def _numbers_check(self, claim: str, source_id: str, source: str, doc_share: float,
                       missing_terms: list[str]) -> SourceCheck | None:  # fmt: skip
        stated = claim_numbers(claim)
        if not stated:  # nothing to look for: skip reading the source's numbers
            return None
        problems = stemmed_profile(source).number_problems(claim, stated)  # value, unit/noun, sentence, year
        if not problems:
            return None
        named = tuple(describe(p.mention) for p in problems)
        return SourceCheck(
            source_id, "unsupported", BLOCKED_SCORE_FACTOR * doc_share, "numbers",
            problems_reason(source_id, problems),
            missing_numbers=named, missing_terms=tuple(missing_terms), fraction=doc_share,
        )  # fmt: skip

    def _contradiction_check(self, claim: str, terms: Terms, source_id: str, source: str, doc_share: float,
                        missing_terms: list[str]) -> SourceCheck | None:  # fmt: skip
        """A word the claim and its best evidence window disagree about ("can be returned" against
        "cannot be returned"), a comparison the window states the other way round ("slower than" /
        "faster than"), or an event it dates otherwise -> unsupported, whatever later stages would say."""
        _, start, end = self.window(source, terms)
        window = source[start:end]
        # an answer's "According to the policy, ..." / "The report says ...": its words are not in the source,
        # and the rules that need every content word of the claim read the statement without them too
        core = without_attribution(claim)
        for statement in (claim, core) if core != claim else (claim,):
            for stage, read in _CONTRADICTION_RULES:
                if conflicts := read(self, statement, window, source):
                    said = "" if statement is claim else f" (read without its attribution: {statement!r})"
                    return SourceCheck(
                        source_id, "unsupported", BLOCKED_SCORE_FACTOR * doc_share, stage,
                        f"{source_id} contradicts the claim{said}: {'; '.join(conflicts)}",
                        missing_terms=tuple(missing_terms), fraction=doc_share,
                    )  # fmt: skip
        return None

    def _lexical_check(self, claim: str, terms: Terms, source_id: str, source: str, doc_share: float,
                       missing_terms: list[str]) -> SourceCheck:  # fmt: skip
        n = len(terms.terms)
        fraction, span, notes = doc_share, None, []
        if self.scope != "source":
            w_share, w_start, w_end = self.window(source, terms)
            span = (w_start, w_end)
            fraction = w_share if self.scope == "window" else (doc_share + w_share) / 2
            notes.append(f", {round(w_share * n)}/{n} within one window")
        score = fraction
        if self.pair_weight and self.stemming:
            found_pairs, n_pairs = pair_share(claim_pairs(claim), stemmed_profile(source).pairs)
            score = (1 - self.pair_weight) * fraction + self.pair_weight * (found_pairs / n_pairs if n_pairs else 1.0)
            if n_pairs:
                notes.append(f", {found_pairs}/{n_pairs} of its word pairs")
        if self.negation:
            evidence = source[span[0] : span[1]] if span else source
            absent = missing_negations(claim, evidence, source)
            if absent:
                score *= NEGATION_FACTOR
                notes.append(f"; the claim says {', '.join(repr(w) for w in absent)} and the evidence does not")
            opposed = opposed_words(claim, evidence, source_states(source)) if self.stemming else []
            if opposed:
                score *= OPPOSITE_FACTOR
                said = ", ".join(f"{c!r} where the evidence says {e!r}" for c, e in opposed)
                notes.append(f"; the claim says {said}")
            if score < self.threshold and self.stemming and (excepted := restated_by_exception(claim, evidence)):
                # "closed on Mondays" restates "open every day except Mondays": the one word overlap misses
                score = max(score, self.threshold)
                notes.append(f"; the evidence states it as an exception ({excepted!r})")

        label = self.label_for(score)
        if n == 0:
            reason = f"the claim has no content words to check against {source_id}"
        else:
            reason = f"{source_id} contains {n - len(missing_terms)}/{n} of the claim's terms ({doc_share:.2f})"
            reason += "".join(notes)
            if score != doc_share:
                reason += f"; score {score:.2f}"
            if label != "supported":
                reason += f" < {self.threshold:.2f}"
                if missing_terms:
                    reason += f"; missing: {', '.join(missing_terms)}"
        if label != "unsupported" and span is None:
            _, s, e = self.window(source, terms)
            span = (s, e)
        return SourceCheck(source_id, label, score, "lexical", reason, span=span,
                           missing_terms=tuple(missing_terms), fraction=doc_share)

    # -- the semantic stage (one implementation: the `model` and `full` checkers configure it) -------------
    def _model_check(self, claim: str, terms: Terms, source_id: str, source: str, doc_share: float,
                     missing_terms: list[str]) -> SourceCheck:  # fmt: skip
        """After ids and numbers: a word-for-word copy is supported as stage "quote" (with
        `quote_shortcut`); otherwise the model's P(supported) for its best window, combined with the
        deterministic signals by the `gate` (a logistic model, citebound/models/gate.py) when there is
        one, else blended with the lexical score by `lexical_weight`; supported when >= threshold."""
        assert self.semantic is not None
        if self.quote_shortcut and (span := find_span(source, claim) or headed_quote(source, claim)) is not None:
            return SourceCheck(source_id, "supported", 1.0, "quote", f"{source_id} states the claim word for word",
                               span=span, missing_terms=tuple(missing_terms), fraction=doc_share)  # fmt: skip
        p, start, end = self.semantic.best_window(claim, source)
        p = min(1.0, max(0.0, float(p)))
        name = getattr(self.semantic, "name", "model")
        reason = f"{source_id}: {name} P(supported) = {p:.2f}"
        score = p
        if self.gate is not None:
            lexical = self._lexical_check(claim, terms, source_id, source, doc_share, missing_terms)
            features = gate_features(claim, terms, source, p, (start, end), doc_share, lexical.score, self.stemming)
            score = self.gate.probability(features)
            reason += f", lexical {lexical.score:.2f}, coverage {features['coverage']:.2f} -> gate {score:.2f}"
        elif weight := self.blend_weight(source):
            lexical = self._lexical_check(claim, terms, source_id, source, doc_share, missing_terms)
            score = (1 - weight) * p + weight * lexical.score
            reason += f", lexical {lexical.score:.2f} (weight {weight:g}) -> {score:.2f}"
        label: Label = "supported" if score >= self.threshold else "unsupported"
        return SourceCheck(
            source_id, label, score, "semantic", f"{reason} (threshold {self.threshold:.2f})",
            span=(start, end) if end > start else None, missing_terms=tuple(missing_terms), fraction=doc_share,
        )  # fmt: skip

    def blend_weight(self, source: str) -> float:
        """The lexical score's weight in the semantic stage's blend for this source."""
        if self.long_source_chars and len(source) > self.long_source_chars:
            return self.long_source_lexical_weight
        return self.lexical_weight

    # -- one claim, its cited sources ----------------------------------------------------------------
    def check_claim(self, claim: str, cited_ids: Sequence[str], sources: Mapping[str, str]) -> ClaimVerdict:
        """The verdict for one claim citing `cited_ids` among `sources` (id -> text)."""
        text = remove_markers(claim)
        if not cited_ids:
            return ClaimVerdict(text, "uncited", "the claim cites no source", 0.0, "citations")
        valid, invalid = resolve_ids(cited_ids, sources)
        checks = [missing_source(i) for i in invalid]
        checks += [self.check_source(text, sid, sources[sid]) for sid in valid]
        best = max(checks, key=lambda c: (LABEL_RANK[c.label], c.score))
        reason = best.reason if best.supports or len(checks) == 1 else "; ".join(c.reason for c in checks)
        evidence = sources[best.source_id][best.span[0] : best.span[1]] if best.span else None
        return ClaimVerdict(
            claim=text, label=best.label, reason=reason, score=best.score, stage=best.stage,
            source_id=best.source_id if best.source_id in sources else None, span=best.span,
            evidence=evidence, cited_ids=tuple(cited_ids), invalid_ids=tuple(invalid), checks=tuple(checks),
        )  # fmt: skip

    def check_pair(self, claim: str, evidence: str) -> ClaimVerdict:
        """A claim against one piece of evidence (the batch format): cites it as `evidence`."""
        return self.check_claim(claim, ("evidence",), {"evidence": evidence})


def gate_features(claim: str, terms: Terms, source: str, p: float, span: tuple[int, int], doc_share: float,
                  lexical: float, stemming: bool = True) -> dict[str, float]:  # fmt: skip
    """The signals the gate combines for one claim and one source that passed ids and numbers:

    - `logit_p`: the model's P(supported) for its best window, as a logit (clipped at 1e-4);
    - `lexical`: the deterministic cascade's score (stems, best lexical window, word pairs, negation);
    - `support`: share of the claim's terms found anywhere in the source;
    - `coverage`: share of the claim's terms found inside the model's best window;
    - `negation`: 1 when the claim states a negation the model's best window lacks;
    - `numbers`: 1 when the claim states a number (which the numbers stage found in the source);
    - `claim_terms`: log(1 + number of distinct claim terms);
    - `claim_sentences`: 1 when the claim has more than one sentence.
    """
    import math

    start, end = span
    window = source[start:end] if end > start else ""
    window_terms = source_stemmed_terms(window, terms) if stemming else source_plain_terms(window)
    coverage, _ = support_fraction(terms, window_terms)
    q = min(1 - 1e-4, max(1e-4, p))
    return {
        "logit_p": math.log(q / (1 - q)),
        "lexical": lexical,
        "support": doc_share,
        "coverage": coverage,
        "negation": 1.0 if missing_negations(claim, window, source) else 0.0,
        "numbers": 1.0 if claim_numbers(claim) else 0.0,
        "claim_terms": math.log1p(len(terms.terms)),
        "claim_sentences": 1.0 if len(split_sentences(claim)) > 1 else 0.0,
    }
