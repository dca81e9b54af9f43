"""Where a name stands, read across voice and relative clauses: "the bill was introduced by Werner" and "Drovic, who
introduced the bill" put Werner and Drovic in one slot, the doer of "introduce"; "put off some operations" and
"postponed some operations" are one predicate (WordNet: "put off" is "postpone"). citefix.verify.local's value check
compares a unit's name with the region's names by these slots, so a name swapped for another of the same article in
the doer's or the undergoer's place is seen whichever way either sentence is built. Pure functions over spaCy docs;
no parameter.
"""

from __future__ import annotations

from typing import Any

from citefix.verify.synonyms import phrase_senses_at, senses

_RELATIVE = {"who", "which", "that"}
# the dependency labels of a verb's arguments, as what the argument is to the verb whichever the voice
_SEMANTIC = {"nsubj": "agent", "csubj": "agent", "nsubjpass": "patient", "dobj": "patient"}


def _role(span, anchor, role: str | None) -> str | None:
    """The semantic role of a name whose slot is (anchor, dependency role): a passive's "by" object is the doer."""
    if role == "pobj" and span.root.head.dep_ == "agent":
        return "agent"
    return _SEMANTIC.get(role or "", role)


def slots(span, slot) -> list[tuple[Any, str | None]]:
    """The (word, semantic role) places of a name span: the one `slot(span)` gives (citefix.verify.local.name_slot,
    its role read across voice), and the verb of each relative clause the name opens with "who", "which" or "that" as
    its subject ("Elena Drovic, who introduced the bill": the doer of "introduced")."""
    anchor, role = slot(span)
    out = [(anchor, _role(span, anchor, role))] if anchor is not None else []
    for rel in span.root.children:
        if rel.dep_ != "relcl":
            continue
        subj = next((c for c in rel.children if c.dep_ in ("nsubj", "nsubjpass") and c.lower_ in _RELATIVE), None)
        if subj is not None:
            out.append((rel, _SEMANTIC[subj.dep_]))
    return out


def same_predicate(a, b) -> bool:
    """Do two words say one thing: the same lemma, or a WordNet synonym in their part of speech, alone or as the phrase
    each stands in ("put off" / "postponed")?"""
    la, lb = a.lemma_.lower(), b.lemma_.lower()
    if la == lb:
        return True
    if a.pos_ != b.pos_ or a.pos_ not in ("VERB", "NOUN", "ADJ"):
        return False
    sa = senses(la, a.pos_) | phrase_senses_at(a)
    return bool(sa and sa & (senses(lb, b.pos_) | phrase_senses_at(b)))


def same_slot(unit_span, region_span, slot) -> bool:
    """Does the region's name stand where the unit's does: on the same predicate (or a synonym), in the same role?"""
    return any(ua is not None and ra is not None and ur == rr and same_predicate(ua, ra)
               for ua, ur in slots(unit_span, slot) for ra, rr in slots(region_span, slot))
