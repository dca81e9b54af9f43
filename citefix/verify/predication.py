"""Which of a source's occurrences of a verb a unit restates, read on the two spaCy parses: a verb's predication is
the content words of its own clause, with the subject it takes from the word it hangs on (a conjoined verb, a
complement, a relative clause's noun). The negation check (citefix.verify.local.polarity_mismatches) matches the
unit's verb to the region's occurrence whose predication shares the most of its words, and the excuse that a source
sentence says the verb with the unit's polarity (citefix.verify.source_search.polarity_elsewhere) reads that
sentence's verb the same way (`local.predication`).

Pure functions over spaCy tokens; no model of their own.
"""

from __future__ import annotations

from typing import Any, Sequence

from citefix.verify.slots import same_predicate

_CLAUSAL = {"ccomp", "advcl", "conj", "parataxis", "relcl", "acl", "csubj", "xcomp"}


def _clause_tokens(verb) -> list[Any]:
    """The content words of `verb`'s own clause, besides the verb: its dependents' subtrees, not the clauses hanging
    on it ("… not be powerful enough: the pieces will be less …")."""
    out: list[Any] = []
    stack = [c for c in verb.children if c.dep_ not in _CLAUSAL]
    while stack:
        t = stack.pop()
        if t.is_alpha and not t.is_stop and t.pos_ in ("NOUN", "PROPN", "ADJ", "VERB", "ADV", "NUM"):
            out.append(t)
        stack.extend(c for c in t.children if c.dep_ not in _CLAUSAL)
    return out


# a verb or adjective that takes its subject from the word it hangs on ("rose and then fell", "ready to learn")
_SHARES_SUBJECT = {"conj", "xcomp", "acomp"}
_RELATIVE = {"WP", "WDT"}  # "who", "which", "that" as a relative clause's subject: the noun the clause hangs on


def _subject_tokens(verb) -> list[Any]:
    """The content words of the subject a verb's predication is said of: its own, or, for a verb that takes it from
    the word it hangs on, that word's (up a chain: "children who aren't ready to learn": "learn" is said of the
    children), a relative pronoun read as the noun its clause hangs on."""
    t = verb
    for _ in range(4):
        subj = next((c for c in t.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if subj is not None:
            if subj.tag_ in _RELATIVE and t.dep_ == "relcl":
                return [t.head] + [c for c in t.head.children if c.dep_ in ("compound", "flat")]
            return [x for x in subj.subtree if x.is_alpha and not x.is_stop]
        if t.dep_ not in _SHARES_SUBJECT or t.head.i == t.i:
            return []
        t = t.head
    return []


def predication_tokens(verb) -> list[Any]:
    """The content words a verb's own predication states (its clause's words, ``_content_words``), with its
    subject's where it takes the subject from the word it hangs on ("Sales rose and then fell": "fell" is said of
    sales)."""
    out = _clause_tokens(verb)
    if not any(c.dep_ in ("nsubj", "nsubjpass") for c in verb.children):
        out += [t for t in _subject_tokens(verb) if t not in out]
    return out


def _words_of(tokens: Sequence[Any]) -> set[str]:
    return {w for t in tokens for w in (t.lower_, t.lemma_.lower())}


def _predication_words(verb) -> set[str]:
    return _words_of(predication_tokens(verb))


def states_predication(verb, other) -> bool:
    """Does `other` (a token of another parse) state every content word of `verb`'s predication in its own
    (by form or lemma)? False when the predication has none."""
    mine = predication_tokens(verb)
    theirs = _predication_words(other)
    return bool(mine) and all(t.lower_ in theirs or t.lemma_.lower() in theirs for t in mine)


def same_predication(verb, tokens: Sequence[Any], keys: Sequence[int]) -> list[int]:
    """Of the region's occurrences of the unit's verb (`tokens`, their parse tokens; `keys`, what to return for
    each), those whose own predication shares the most content words with the unit verb's: the predicate the unit
    restates, read on the two parses rather than by the words standing near it. None when the unit's verb has such
    words and no occurrence shares one (another predication of the same verb); all of them when it has none."""
    words = _predication_words(verb)
    if not words:
        return list(keys)
    counts = [len(words & _predication_words(tok)) for tok in tokens]
    best = max(counts, default=0)
    return [k for k, c in zip(keys, counts) if c == best] if best else []


_COMPLEMENT = {"acomp", "attr", "oprd"}
# where a source's "be" has no adjective or noun after it, what it says of its subject: "The costs are not under
# [budget]", "was not there"
_COPULA_REST = {"prep", "advmod", "npadvmod"}


def _complements(tok) -> list[Any]:
    """What a copula says of its subject: its adjective or noun after it (else a preposition or adverb after it),
    with that word's conjuncts ("was tired and hungry"); for "be" as an auxiliary ("was not approved"), the verb it
    serves."""
    if tok.dep_ in ("aux", "auxpass"):
        return [tok.head] if tok.head.i != tok.i else []
    for deps in (_COMPLEMENT, _COPULA_REST):
        first = next((c for c in tok.children if c.dep_ in deps and c.i > tok.i), None)
        if first is not None:
            return [first, *first.conjuncts]
    return []


def _says_any(words: Sequence[Any], tokens: Sequence[Any]) -> bool:
    """Does any of `words` stand among `tokens` (by form or lemma), or a WordNet synonym of it?"""
    forms = _words_of(tokens)
    return any(w.lower_ in forms or w.lemma_.lower() in forms or any(same_predicate(w, t) for t in tokens)
               for w in words)


def another_complement(verb, other) -> bool:
    """Does a source's "be" (`other`, a token of the region's parse) say another thing of its subject than the unit's
    copula `verb` says ("it's not very expensive" / "the price was reasonable")? A negated copula denies only its
    own complement: "not expensive" is no contradiction of "reasonable", which the unit's words found or not found in
    the sources judge. True only where the unit's complement is none of the words of the source's predication (nor a
    synonym of one) and the source's complement none of the unit's: "is not American" is still read against "is an
    American bounty hunter"."""
    if verb.lemma_.lower() != "be" or other.lemma_.lower() != "be" or verb.dep_ in ("aux", "auxpass"):
        return False
    mine, theirs = _complements(verb), _complements(other)
    if not mine or not theirs or mine[0].dep_ not in _COMPLEMENT:
        return False
    return not _says_any(mine, predication_tokens(other) + theirs) and not _says_any(theirs, predication_tokens(verb))


def parsed_words(docs: Sequence[Any], places: Sequence[tuple[int, int]]) -> list[Any]:
    """For each region word (its region and offset there), the token of the region's parse that starts at it, or
    None where the parse splits the text otherwise."""
    at = [{t.idx: t for t in d} for d in docs]
    return [at[r].get(off) if r < len(at) else None for r, off in places]
