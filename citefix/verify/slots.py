"""Where a name stands, read across voice and relative clauses: "the bill was introduced by Werner" and "Drovic, who
introduced the bill" put Werner and Drovic in one slot, the doer of "introduce"; "put off some operations" and
"postponed some operations" are one predicate (WordNet: "put off" is "postpone"). citefix.verify.local's value check
compares a unit's name with the region's names by these slots, so a name swapped for another of the same article in
the doer's or the undergoer's place is seen whichever way either sentence is built. Pure functions over spaCy docs;
no parameter.
"""

from __future__ import annotations

import re
from typing import Any

from citefix.decompose.details import SPEECH_VERBS
from citefix.lexicon import SPEAKER_LABELS
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
    each stands in ("put off" / "postponed")? (Two verbs of speech are not one slot here: who said what is told by
    what was said, ``speaker_conflicts``.)"""
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


# a speech is told by what it says: at least this many content words, most of which one speech of the region says
SAID_WORDS = 3
_CONTENT_POS = {"NOUN", "PROPN", "ADJ", "VERB", "ADV", "NUM"}


def _said(verb, skip: set[int]) -> dict[str, str]:
    """{lemma: form} of the content words a verb of speech governs (its subtree), outside the tokens `skip` (its
    speaker's phrase)."""
    return {t.lemma_.lower(): t.lower_ for t in verb.subtree
            if t.i not in skip and t.i != verb.i and t.is_alpha and not t.is_stop and t.pos_ in _CONTENT_POS}


def _speaker(verb) -> Any | None:
    return next((c for c in verb.children if c.dep_ in ("nsubj", "nsubjpass")), None)


def _speeches(region_docs):
    """(verb, its subject) of every verb of speech with a subject in the region docs."""
    for rd in region_docs:
        for v in rd:
            if v.pos_ == "VERB" and v.lemma_.lower() in SPEECH_VERBS and (vs := _speaker(v)) is not None:
                yield v, vs


def _said_by_name_elsewhere(name: str, said: dict[str, str], sentences) -> bool:
    """Does a source sentence that names `name` hold most of the words `said` (as lemma or form)?"""
    needle = name.lower()
    for s in sentences:
        if needle in s.lower():
            words = set(re.findall(r"[a-z]+", s.lower()))
            if 2 * sum(1 for lem, form in said.items() if lem in words or form in words) >= len(said):
                return True
    return False


def speaker_conflicts(doc, focus, region_docs, sentences, slot) -> list[dict[str, Any]]:
    """Speeches given to another speaker: a name of the unit's focus that speaks (`slot`: citefix.verify.local's
    name_slot says it is the subject of a verb of speech) what one speech of the region says (most of its content
    words, at least SAID_WORDS; that speech alone, no other as close) while that speech's speaker is named and is
    someone else ("Opposition leader Tomas Werner described the bill as the most significant change …" where the
    region says "Housing minister Elena Drovic … said it was 'the most significant change …'"), unless a source
    sentence naming the unit's speaker says most of it too (two people may say one thing). `sentences`: every source
    sentence. Conflicts are value conflicts of kind "speaker"; "speaker" and "evidence_speaker" hold the two subject
    tokens (the unit's may be None) for the reviser."""
    out: list[dict[str, Any]] = []
    def inside(a: int, b: int) -> bool:
        return any(x < b and a < y for x, y in focus)

    for ent in doc.ents:
        if ent.label_ not in SPEAKER_LABELS:
            continue
        verb, role = slot(ent)
        if verb is None or role != "nsubj" or verb.lemma_.lower() not in SPEECH_VERBS:
            continue
        subj = _speaker(verb)
        skip = {t.i for t in (subj.subtree if subj is not None else ent)}
        said = _said(verb, skip)
        # the unit's focus: the speaker, or what is said (a detail cut from it: "… as the most significant change")
        here = [(ent.start_char, ent.end_char)] if inside(ent.start_char, ent.end_char) else [
            (t.idx, t.idx + len(t.text)) for t in verb.subtree if t.i not in skip and inside(t.idx, t.idx + len(t.text))]
        if len(said) < SAID_WORDS or not here:
            continue
        # the region's speeches by how many of the unit's content words each says; the closest alone counts
        speeches = [(len(set(said) & set(_said(v, {t.i for t in vs.subtree}))), vs) for v, vs in _speeches(region_docs)]
        best_n = max((n for n, _ in speeches), default=0)
        closest = [vs for n, vs in speeches if n == best_n]
        if not best_n or len(closest) > 1 or 2 * best_n < len(said):
            continue
        best = closest[0]
        theirs = {t.lower_ for t in best.subtree if t.ent_type_ in SPEAKER_LABELS}
        if not theirs or theirs & {t.lower_ for t in ent} or _said_by_name_elsewhere(ent.text, said, sentences):
            continue
        who = " ".join(t.text for t in best.subtree if t.ent_type_ in SPEAKER_LABELS)
        a, b = here[0][0], here[-1][1]
        out.append({"kind": "conflict", "value_kind": "speaker", "text": doc.text[a:b], "start": a, "end": b,
                    "evidence": who, "speaker": subj, "evidence_speaker": best})
    return out


_NOT_CORE = {"relcl", "acl", "prep", "punct", "appos", "cc", "conj", "advcl"}


def speaker_phrase(subj) -> tuple[int, int] | None:
    """The character span of a speaker's noun phrase without its clauses, asides and prepositions ("Housing minister
    Elena Drovic" of "Housing minister Elena Drovic, who introduced the bill,"), or, where that names no one, of the
    first name in an aside ("Piotr Zalewski" of "The authority's commissioner, Piotr Zalewski,"); None if neither is
    one unbroken run of words with a name in it."""
    drop: set[int] = set()
    for c in subj.children:
        if c.dep_ in _NOT_CORE:
            drop |= {t.i for t in c.subtree}
    kept = sorted(t.i for t in subj.subtree if t.i not in drop)
    doc = subj.doc
    if kept == list(range(kept[0], kept[-1] + 1)) and any(doc[i].ent_type_ in SPEAKER_LABELS for i in kept):
        return doc[kept[0]].idx, doc[kept[-1]].idx + len(doc[kept[-1]].text)
    ent = next((e for e in doc.ents if e.label_ in SPEAKER_LABELS and subj.left_edge.i <= e.start and e.end <= subj.right_edge.i + 1),
               None)
    return (ent.start_char, ent.end_char) if ent is not None else None
