"""Snowball English stemming (PyStemmer, a C extension) and the stop-word list of the lexical checks.

Stems are cached: a verifier sees the same few thousand words over and over, and a dict lookup is far
cheaper than even the C stemmer. `content_stems` is what the lexical check compares.
"""

from __future__ import annotations

import re

import Stemmer

from citebound.text.tokenize import tokens

# Function words that carry no claim on their own. Negations ("not", "no", "never") are deliberately
# absent, and so are contracted ones ("aren't" reads as "not", like "isn't"): a claim that says "not" must find
# it in the source.
STOP_WORDS = frozenset(
    """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each either else ever every
    few for from further get gets got had has have having he he'd he'll he's her here here's hers herself
    him himself his how how's however i i'd i'll i'm i've if in into is it it's its itself just let's
    may me might more most much must my myself neither nor of off on once only or other ought our ours
    ourselves out over own per same shall she she'd she'll she's should so some such than that that's
    the their theirs them themselves then there there's these they they'd they'll they're they've this
    those though through thus to too under until up upon us very via was we we'd we'll we're we've were
    what what's when when's where where's whether which while who who's whom whose why why's will with
    within would yet you you'd you'll you're you've your yours yourself yourselves
    """.split()
)

_stemmer = Stemmer.Stemmer("english")
_stem_cache: dict[str, str] = {}
_MAX_CACHE = 200_000


def stem(word: str) -> str:
    """The Snowball English stem of a lower-cased word (`months` -> `month`)."""
    hit = _stem_cache.get(word)
    if hit is None:
        hit = _stemmer.stemWord(word)
        if len(_stem_cache) < _MAX_CACHE:
            _stem_cache[word] = hit
    return hit


# An irregular past or participle read as its verb, so that "has built" is found in "plans to build" and
# "can be given" is what "never give" negates ("found", "left": other words too, not listed)
IRREGULAR_BASE = {"built": "build", "bought": "buy", "made": "make", "sold": "sell", "began": "begin",
                  "begun": "begin", "held": "hold", "won": "win", "paid": "pay", "sent": "send", "spent": "spend",
                  "took": "take", "taken": "take", "gave": "give", "given": "give", "wrote": "write",
                  "written": "write", "brought": "bring", "chose": "choose", "chosen": "choose", "grew": "grow",
                  "grown": "grow", "ran": "run", "led": "lead", "became": "become", "came": "come", "drew": "draw",
                  "drawn": "draw", "hired": "hire", "eaten": "eat", "ate": "eat", "driven": "drive",
                  "drove": "drive", "shown": "show", "seen": "see", "known": "know", "knew": "know",
                  "kept": "keep", "told": "tell", "taught": "teach", "thrown": "throw", "threw": "throw",
                  "worn": "wear", "wore": "wear", "stolen": "steal", "stole": "steal", "broken": "break",
                  "broke": "break", "spoken": "speak", "spoke": "speak", "forgotten": "forget", "forgot": "forget",
                  "frozen": "freeze", "froze": "freeze", "hidden": "hide", "hid": "hide", "ridden": "ride",
                  "rode": "ride", "sung": "sing", "sang": "sing", "swum": "swim", "swam": "swim"}  # fmt: skip


# Simple past forms that do not end in -ed, for `states_past` (participles of a present passive, "are given",
# are left out)
_SIMPLE_PAST = frozenset("""was were had did ran began became came went took made won lost sold bought grew fell rose
left met wrote built held saw said told drew caught brought thought fought sought taught felt found gave got heard
hit kept knew led let put read set shot spoke stood struck threw understood woke wore chose broke drove flew forgot
hid rode rang sang sank swam tore beat bit blew dealt dug fed fled hung lay lit meant paid quit sent slept spent
split spread stole stuck swore swept swung froze ate""".split())
_PRESENT_PASSIVE = re.compile(r"\b(?:is|are|be|been|being|gets?)\s+(?:[^\W\d_]+ly\s+)?[^\W\d_]+ed\b", re.IGNORECASE)
_WORDS = re.compile(r"[^\W\d_]+")


def states_past(text: str) -> bool:
    """Whether a text tells of the past: "was", an irregular past ("ran", "drew") or a word in -ed that is
    no present passive or a noun's modifier ("The factory employed 500", not "Refunds are issued" or
    "Registered members park free")."""
    words = [w.casefold() for w in _WORDS.findall(_PRESENT_PASSIVE.sub(" ", text))]
    # an -ed word first or after a determiner describes a noun ("Registered members", "the qualified staff")
    return any(w in _SIMPLE_PAST or (len(w) > 3 and w.endswith("ed") and w not in _NOT_PAST and k > 0
                                     and words[k - 1] not in _DETERMINERS) for k, w in enumerate(words))  # fmt: skip


_DETERMINERS = frozenset({"the", "a", "an", "all", "some", "any", "every", "each", "its", "their", "our", "his", "her",
                          "no", "most", "many", "these", "those", "this", "that"})


_NOT_PAST = frozenset({"need", "speed", "feed", "seed", "breed", "proceed", "exceed", "succeed", "bed",
                       "red", "shed", "hundred", "based", "used", "aged", "detailed", "limited", "advanced",
                       "skilled", "qualified", "required", "allowed", "permitted", "prohibited", "included",
                       "restricted", "reserved", "unlimited", "dedicated", "united", "named", "called"})


def verb_stem(word: str) -> str:
    """`stem` of a word with an irregular past read as its verb ("given" -> "give")."""
    return stem(IRREGULAR_BASE.get(word.lower(), word))


def stem_words(words: list[str]) -> list[str]:
    """`[stem(w) for w in words]` in one call into the C stemmer (for words not seen before)."""
    return _stemmer.stemWords(words)


def is_content_word(token: str) -> bool:
    """A token that is not a stop word and not a bare number (numbers are checked on their own)."""
    return token not in STOP_WORDS and not token.isdigit()


def alpha_content_stems(toks: list[str]) -> set[str]:
    """Stems of the alphabetic tokens that are not stop words (what the contradiction rules compare a claim's
    words with a clause's by; unlike `content_stems`, a token with a digit or a hyphen is left out)."""
    return {stem(t) for t in toks if t.isalpha() and t not in STOP_WORDS}


def content_stems(text: str) -> list[str]:
    """Stems of the content words of `text`, in order (duplicates kept)."""
    return [stem(t) for t in tokens(text) if is_content_word(t)]
