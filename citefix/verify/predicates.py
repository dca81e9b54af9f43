"""The antonym check of the offline verifier: a verb or predicative adjective of the unit that the evidence region does
not say of its subject while it says the WordNet antonym of it ("The SNP lost 56 seats" / "The SNP won 56 seats"), a
relation word or a modifier said the other way round of the same thing (citefix.verify.relations), and, with
`local.cross_antonyms`, a change the region says the other way in the other part of speech ("a decrease in sales" /
"sales increased"; citefix.verify.relations.cross_flip). Pure functions over spaCy docs; no model of their own.
"""

from __future__ import annotations

from typing import Any, Sequence

from citefix.verify.local import in_focus, roles
from citefix.verify.negation import negated_unit
from citefix.verify.relations import (
    agentless,
    antonyms,
    cross_flip,
    modifier_flip,
    opposite_relation,
    opposites,
    passive_voice,
    patient_lemma,
    relation_flip,
    thing_tokens,
    wordnet_lemma,
)


def pos_class(tok) -> str | None:
    if tok.pos_ == "VERB" or (tok.pos_ == "AUX" and tok.dep_ not in ("aux", "auxpass")):
        return "verb"
    if tok.pos_ == "ADJ":
        return "adj"
    return None


def bearer(tok) -> str | None:
    """The lemma of what a predicate is said of: a verb's subject (a conjoined verb's shared one), else its object; an
    adjective's noun, or the subject of its copula."""
    if pos_class(tok) == "adj" and tok.dep_ == "amod":
        return tok.head.lemma_.lower()
    verb = tok.head if pos_class(tok) == "adj" else tok
    while True:
        for deps in (("nsubj", "nsubjpass"), ("dobj",)):
            arg = next((c for c in verb.children if c.dep_ in deps), None)
            if arg is not None:
                return arg.lemma_.lower()
        if verb.dep_ == "conj" and verb.head.i != verb.i:
            verb = verb.head
            continue
        return None


_PREDICATIVE = {"acomp", "attr", "oprd"}  # "the plan was cheap", "it seemed easy"


def object_lemma(tok) -> str | None:
    """The lemma of a verb's direct object: "lack flexibility" and "have difficulty" are not opposites."""
    obj = next((c for c in tok.children if c.dep_ == "dobj"), None)
    return obj.lemma_.lower() if obj is not None else None


def opposite_in(tok, region_doc) -> Any | None:
    """The first word of `region_doc` that says a WordNet antonym of `tok` (a verb or adjective) of the same subject,
    and of the same object where both verbs have one; None if there is none. A relation word ("below", "against",
    "after") is read by citefix.verify.relations: its opposite, of the same thing."""
    if opposites(tok):
        found = opposite_relation(tok, region_doc)
        if found is not None or pos_class(tok) is None:
            return found
    pos = pos_class(tok)
    if pos is None:
        return None
    opposite = antonyms()[pos].get(wordnet_lemma(tok.lemma_.lower(), pos))
    if not opposite:
        return None
    who, what, undergoer = bearer(tok), object_lemma(tok), patient_lemma(tok)
    return next((x for x in region_doc if pos_class(x) == pos and wordnet_lemma(x.lemma_.lower(), pos) in opposite
                 and ((bearer(x) == who and (what is None or object_lemma(x) in (what, None)))
                      or (undergoer is not None and patient_lemma(x) == undergoer and (agentless(x) or agentless(tok)
                          or (passive_voice(x) != passive_voice(tok) and roles(x)[0] & roles(tok)[0]))))), None)


def antonym_predicates(doc, focus: Sequence[tuple[int, int]], region_docs: Sequence[Any],
                       align: Sequence[Sequence[int]] | None = None, cross: bool = False) -> list[dict]:
    """Verbs and predicative adjectives of the unit's focus that the region does not say of their subject while it
    says one of their WordNet antonyms of it (of the same object too, where both verbs have one): "lost" where the
    region says the same party "won". With `cross`, also a verb or noun whose antonym the region says of the same
    thing in another part of speech ("a decrease in sales" / "sales increased"; citefix.verify.relations.cross_flip)."""
    out: list[dict] = []
    for t in doc:
        found = _antonym_of(t, focus, region_docs, align)
        # the changed word in the unit's own words, or what it is said of ("a fall [in the dividend]": the detail
        # states what fell)
        if found is None and cross and t.pos_ in ("VERB", "NOUN") and not negated_unit(t, align) and any(
                in_focus(w.idx, w.idx + len(w.text), focus) for w in [t, *thing_tokens(t)]):
            c = cross_flip(t, region_docs)
            found = _finding(t, c) if c is not None else None
        if found is not None:
            out.append(found)
    return out


def _finding(t, evidence) -> dict:
    """An antonym finding: the unit's word `t`, the region's word that says the opposite (neither negated:
    ``_either_negated``)."""
    return {"kind": "antonym", "text": t.text, "start": t.idx, "end": t.idx + len(t.text), "evidence": evidence.text,
            "unit_negated": False}


def _antonym_of(t, focus: Sequence[tuple[int, int]], region_docs: Sequence[Any],
                align: Sequence[Sequence[int]] | None) -> dict | None:
    """antonym_predicates for one word of the unit: its finding, if any."""
    pos = pos_class(t)
    if opposites(t) and in_focus(t.idx, t.idx + len(t.text), focus):
        # "three points below the zone" where the region says "above the zone" (citefix.verify.relations)
        r = relation_flip(t, region_docs)
        if r is not None:
            return _finding(t, r)
    m = modifier_flip(t, region_docs) if in_focus(t.idx, t.idx + len(t.text), focus) else None
    if m is not None:  # "a slow recovery" / "a fast recovery", "flying strongly" / "weakly" (same noun or verb)
        # a modifier's negation is its phrase's: "without implicit supervision" still differs from "without explicit
        # supervision", while "not a fast recovery" may be the slow one
        return _finding(t, m) if negated_unit(t, align) == negated_unit(m) else None
    if pos is None or not in_focus(t.idx, t.idx + len(t.text), focus) or (pos == "adj" and t.dep_ not in _PREDICATIVE):
        return None  # (an attributive adjective is read above, against a modifier of the same noun only)
    lemma, who = t.lemma_.lower(), bearer(t)
    if who is None or any(x.lemma_.lower() == lemma and pos_class(x) == pos and bearer(x) in (who, None)
                          for rd in region_docs for x in rd):
        return None  # the region says it too (of the same subject, or of one it does not name; "the end" says nothing)
    r = next((r for r in (opposite_in(t, rd) for rd in region_docs) if r is not None), None)
    return _finding(t, r) if r is not None and not _either_negated(t, r, align) else None


def _either_negated(t, opposite, align: Sequence[Sequence[int]] | None) -> bool:
    """A predicate and its antonym oppose each other only where neither is negated: "will not change" says what "will
    remain" says, "did not win" what "lost" says, and "won" is no contradiction of "did not lose" (a draw)."""
    return negated_unit(t, align) or negated_unit(opposite)
