"""Negation on both sides of the offline verifier's polarity checks: whether a verb of a unit (a spaCy token) or a word
of a source (a word sequence of (offset, lower-cased word, lemma)) is negated, read the same way on both sides.

Split from citefix.verify.local, which uses it for polarity mismatches; citefix.verify.source_search for the
negations it looks for elsewhere in a source.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from citefix.verify.lexical import FOCUS_AFTER_CUE, MODALS

NEG_WORDS = {"not", "n't", "n\u2019t", "never", "no", "nobody", "nothing", "neither", "nor", "without", "cannot", "none",
             # a contraction a detokeniser pulled apart ("doesn ’ t", "didn ' t"): the stem carries the negation
             "doesn", "didn", "isn", "wasn", "aren", "weren", "hasn", "hadn", "couldn", "wouldn", "shouldn", "mustn",
             "needn"}
_NEG_AFTER = {"be", "have", "do"}  # "was not", "has n't": the cue follows these verbs
_NEG_PARTICLES = {"not", "n't", "n\u2019t", "never"}  # only these after the verb: "were without Totti" is no negated "be"
# "no" right after a verb denies it of its object ("had shown no remorse", "found no evidence"), on both sides; not as
# a bound ("costs no more than £5", "no later than June"), and not after "be": "there have been no deaths" says what
# "no deaths have been reported" says, the "no" standing where a paraphrase may move it
_NO_BOUND = {"more", "less", "fewer", "later", "earlier", "sooner", "better", "worse", "greater", "smaller", "than"}
# a word that says the verb after "to" did not happen: "had failed to replace" is "had not replaced", "were unable to
# complete" is "could not complete"; a cue only with "to" right after it ("the failed bid was rejected" denies nothing)
IMPLICATIVE_NEG = {"unable", "fail", "fails", "failed", "failing"}


def _no_after(lemma: str, word: str, following: str | None) -> bool:
    return lemma != "be" and word == "no" and following is not None and following not in _NO_BOUND


def _original_offset(align: Sequence[Sequence[int]] | None, x: int) -> int:
    """Where unit-text offset x stood in the text the unit was cut from (meta["align"]: unit start, end, origin)."""
    for a, b, o in align or ():
        if a <= x < b:
            return o + x - a
    return x


def negated_unit(tok, align: Sequence[Sequence[int]] | None = None) -> bool:
    """A negation cue on the verb: a `neg` child, "no" right after it ("shown no remorse"), or a cue among the three
    words before it, with no punctuation and no inflected word but auxiliaries between (as on the source side,
    ``source_negated``), that stood right there in the text the unit was cut from too — a cue of another verb must
    not reach across words the decomposer left out ("won't translate [into Bernie Sanders] becoming": "becoming" is
    not negated). A noun right after "no" is the cue's own ("no customers were charged"), and "failed to" or "unable
    to" is a cue."""
    doc = tok.doc
    if any(c.dep_ == "neg" and not _focus_after(doc, c.i) for c in tok.children):
        return True
    here = _original_offset(align, tok.idx)
    if tok.i + 2 < len(doc) and _no_after(tok.lemma_.lower(), doc[tok.i + 1].lower_, doc[tok.i + 2].lower_) and \
            _original_offset(align, doc[tok.i + 1].idx) - here == doc[tok.i + 1].idx - tok.idx:
        return True
    for j in range(tok.i - 1, max(0, tok.i - 3) - 1, -1):
        w = doc[j]
        if w.is_punct and not w.is_quote:
            return False
        cue = w.lower_ in NEG_WORDS or (w.lower_ in IMPLICATIVE_NEG and j + 1 < len(doc) and doc[j + 1].lower_ == "to")
        if cue and here - _original_offset(align, w.idx) == tok.idx - w.idx:
            return not _focus_after(doc, j)
        if _ends_cue(w.lower_, w.lemma_.lower()) and not (j > 0 and doc[j - 1].lower_ == "no"):
            return False
    return False


def _focus_after(doc, i: int) -> bool:
    """Does the cue doc[i] scope over a focus word rather than the verb ("doesn't just affect the victims but also
    …": the sentence says it affects them; lexical.FOCUS_AFTER_CUE): "not" / "n't" / "never" with a focus word and a
    word after it, not after a modal ("can't just leave", "cannot simply be solved" deny)."""
    return (doc[i].lower_ in _NEG_PARTICLES and i + 2 < len(doc) and doc[i + 1].lower_ in FOCUS_AFTER_CUE
            and not doc[i + 2].is_punct and not (i > 0 and doc[i - 1].lemma_.lower() in MODALS))


def _source_focus_after(seq: Sequence[tuple[int, str, str]], j: int, pauses: Mapping[int, bool]) -> bool:
    """``_focus_after`` on a source word sequence (`pauses` marks punctuation before a word)."""
    return (seq[j][1] in _NEG_PARTICLES and j + 2 < len(seq) and seq[j + 1][1] in FOCUS_AFTER_CUE
            and j + 2 not in pauses and not (j > 0 and seq[j - 1][2] in MODALS))


# an inflected word between a negation cue and the verb ends the cue's reach, unless it is an auxiliary ("has not yet
# been said"): it is a verb (or noun) of its own ("who has not been identified, said" does not negate "said")
_AUX_LEMMAS = {"be", "have", "do"} | MODALS


def _ends_cue(word: str, lemma: str) -> bool:
    return lemma != word and lemma not in _AUX_LEMMAS


PAUSES = set(".,;:!?()[]{}-\u2013\u2014")  # punctuation a negation cue does not reach across (quotes it does)


SENTENCE_ENDS = set(".!?")


def word_pauses(words: Sequence[tuple[int, str, str]], text: str, lo: int = 1,
                hi: int | None = None) -> dict[int, bool]:
    """Indices i in [lo, hi) of a word sequence from `text` with punctuation between words i-1 and i, each mapped to
    whether that punctuation ends a sentence."""
    hi = len(words) if hi is None else min(hi, len(words))
    out: dict[int, bool] = {}
    for i in range(max(1, lo), hi):
        gap = text[words[i - 1][0] + len(words[i - 1][1]):words[i][0]]
        if any(c in PAUSES for c in gap):
            out[i] = any(c in SENTENCE_ENDS for c in gap)
    return out


def source_negated(seq: Sequence[tuple[int, str, str]], k: int, pauses: Mapping[int, bool] | None = None) -> bool:
    """Whether word k of a source word sequence (position, word, lemma) is negated: a cue among the three words
    before it with no punctuation (`pauses`, from ``word_pauses``) and no inflected word but auxiliaries between, or
    right after it for "be", "have" and "do" ("he was not happy"), as spaCy parses the unit's side; or "no" right
    after it ("had shown no remorse"), as on the unit's side. As there, a noun right after "no" is the cue's own, and
    "failed to" or "unable to" is a cue."""
    pauses = pauses or {}
    for j in range(k - 1, max(0, k - 3) - 1, -1):
        if j + 1 in pauses:
            break  # punctuation between (the sequence holds words only): "with nothing. Steve Bruce is"
        if seq[j][1] in NEG_WORDS or (seq[j][1] in IMPLICATIVE_NEG and j + 1 < len(seq) and seq[j + 1][1] == "to"):
            if _source_focus_after(seq, j, pauses):
                break  # "did not only flood the town": not the verb's negation
            return True
        if _ends_cue(seq[j][1], seq[j][2]) and not (j > 0 and j not in pauses and seq[j - 1][1] == "no"):
            break
    if k + 2 < len(seq) and k + 1 not in pauses and _no_after(seq[k][2], seq[k + 1][1], seq[k + 2][1]):
        return True
    return (seq[k][2] in _NEG_AFTER and k + 1 < len(seq) and seq[k + 1][1] in _NEG_PARTICLES
            and not _source_focus_after(seq, k + 1, pauses))
