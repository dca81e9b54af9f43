"""Offline corrections: put the source's value back instead of cutting the words that carry a wrong one.

For each unit the feedback flags, the corrector reads the unit's evidence in the source (the verifier's evidence
window widened by one sentence on each side, parsed with spaCy) and tries, in this order:

* **value** — a number, date, duration, quantity or name of the unit's own words that the verdict holds against the
  unit (missing from the source, found only elsewhere, contradicted, substituted) and the evidence does not hold is
  replaced by the evidence's value of the same kind that hangs on the same word ("take two years" → "take about
  eighteen months": both are durations of "take"); a name is replaced only by a name of the same type in the same
  role of the same verb;
* **name** — a name standing, word for word, where the evidence sentence has another name (the verifier's name
  substitution) gets the evidence's name; a number or date standing so where the evidence has another value gets the
  evidence's value (recorded as a value correction);
* **negation** — a verb whose polarity the evidence contradicts gets the evidence's verb group ("approved" → "did not
  approve", "was not elected" → "was elected"), loses its "not" / "n't" / "never" where the evidence's same verb has
  none ("is not head of" → "is head of", "had not repeatedly offered" → "had repeatedly offered"), or takes the
  evidence's particle after "be" / "have" ("was safe" → "was not safe");
* **roles** — a verb whose subject and object the evidence holds the other way round gets them swapped back;
* **certainty** — a verb the unit states as certain where the evidence hedges it gets the evidence's modal for its
  "will" ("will rise" → "could rise"), and "all" where the evidence says a part gets the evidence's word ("all of its
  planned operations" → "some of its planned operations").

Every word a correction writes comes from the text or the sources; an edit records its kind and its evidence span.
What the corrector cannot fix is left to the deleter (citefix.revision.offline).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

from citefix.chunking import split_sentences
from citefix.lexicon import NAME_KINDS, VALUE_LABELS
from citefix.models import Case, Unit, Verdict
from citefix.verify.certainty import HEDGE_MODALS, PART_WORDS, hedged, quantifiers, scope
from citefix.verify.local import (
    ARG_POS,
    NOT_ARG,
    anchor_lemma,
    name_slot,
    other_end,
    same_value,
)
from citefix.verify.local import anchor as _anchor
from citefix.verify.local import arg_role as _role
from citefix.verify.names import name_substitutions, value_substitutions
from citefix.verify.predicates import opposite_in
from citefix.verify.relations import cross_flip
from citefix.verify.slots import speaker_conflicts, speaker_phrase

_NEG = {"not", "n't", "never", "no"}


@dataclass
class Correction:
    unit: str
    kind: str  # value | name | negation | roles
    start: int  # character range in the case text
    end: int
    old: str
    new: str
    evidence: dict[str, Any]

    def edit(self) -> dict[str, Any]:
        return {"unit": self.unit, "kind": f"correction ({self.kind})", "text": self.old, "new": self.new,
                "evidence": self.evidence}


def _region(case: Case, v: Verdict) -> tuple[str, int, str] | None:
    """(source id, offset, text) of the evidence window widened by one sentence on each side."""
    ev = v.evidence
    if ev is None:
        return None
    src = case.source(ev.source_id)
    if src is None:
        return None
    sents = split_sentences(src.text)
    if not sents:
        return ev.source_id, ev.start, ev.text
    k0 = max((k for k, s in enumerate(sents) if s.start <= ev.start), default=0)
    k1 = max((k for k, s in enumerate(sents) if s.start < ev.end), default=k0)
    a, b = sents[max(0, k0 - 1)].start, sents[min(len(sents) - 1, k1 + 1)].end
    return ev.source_id, a, src.text[a:b]


def _norm(s: str) -> str:
    return re.sub(r"\s+", " ", s.lower()).strip()


class Corrector:
    """Plans corrections for flagged units on real spaCy parses (see the module docstring)."""

    def __init__(self, nlp):
        self.nlp = nlp
        self._docs: dict[str, Any] = {}
        self.covered: set[str] = set()

    def _parse(self, text: str):
        if text not in self._docs:
            self._docs[text] = self.nlp(text)
        return self._docs[text]

    def plan(self, case: Case, doc, units: list[Unit], verdicts: dict[str, Verdict],
             to_orig: Callable[[int, int], tuple[int, int]], known: Callable[[str], bool]) -> list[Correction]:
        """Corrections for the flagged units. `doc` parses the text without citation marks; `to_orig` maps a
        cleaned (start, end) to the original text; `known(word)` says whether a word is in the text or sources.
        Afterwards `covered` names the units whose own name correction overlapped another unit's: the name is put
        right once, and such a unit is corrected, not cut."""
        out: list[Correction] = []
        taken: list[tuple[int, int]] = []
        names: list[tuple[int, int]] = []  # the ranges of the name and value corrections planned
        self.covered = set()
        for u in units:
            v = verdicts.get(u.id)
            if v is None or not u.has_span:
                continue
            reg = _region(case, v)
            if reg is None:
                continue
            sid, off, rtext = reg
            rdoc = self._parse(rtext)
            pieces = u.meta.get("pieces") or [[u.start, u.end]]
            toks = [t for t in doc if any(a <= to_orig(t.idx, t.idx + len(t.text))[0] < b for a, b in pieces)]
            if not toks:
                continue
            found = (self._values(u, v, toks, rdoc, sid, off, known) or self._names(u, v, toks, rdoc, sid, off, known)
                     or self._speakers(u, v, toks, rdoc, sid, off, known)
                     or self._negation(u, v, toks, rdoc, sid, off) or self._roles(u, v, toks, rdoc, sid, off)
                     or self._certainty(u, v, toks, rdoc, sid, off))
            for c in found:
                a, b = to_orig(c.start, c.end)
                if any(a < y and x < b for x, y in names):
                    if c.kind == "name":
                        self.covered.add(c.unit)  # its name is being put right by another unit's correction
                    continue
                if any(a < y and x < b for x, y in taken):
                    continue
                taken.append((a, b))
                if c.kind in ("name", "value"):
                    names.append((a, b))
                out.append(Correction(c.unit, c.kind, a, b, c.old, c.new, c.evidence))
        return out

    # --- values --------------------------------------------------------------------------------------------------

    def _values(self, u: Unit, v: Verdict, toks: list, rdoc, sid: str, off: int, known) -> list[Correction]:
        doc = toks[0].doc
        ids = {t.i for t in toks}
        named = _flagged_values(v)
        # figures the sources lack, with the figure of the same kind the evidence sentence gives (the verifier's)
        given = {_norm(c["text"]): _norm(str(c.get("evidence", ""))) for c in (v.details or {}).get("conflicts", [])
                 if c.get("kind") == "figure"}
        out = []
        for ent in doc.ents:
            kind = _kind(ent)
            if kind is None or not all(t.i in ids for t in ent):
                continue
            if not any(_overlaps(ent.text, x) for x in named):
                continue  # the verdict has nothing against this value: a unit flagged for its verb keeps its numbers
            anchor = _anchor(ent)
            lemma = anchor.lemma_.lower() if anchor is not None else None
            # the evidence holds this value on the same word (as the verifier reads it: citefix.verify.local)
            if any(same_value(ent.text, c.text, one_way=True) and anchor_lemma(c) in (None, lemma) for c in rdoc.ents):
                continue
            role = _role(ent)
            best, best_score = None, 0.0
            for cand in rdoc.ents:
                if _kind(cand) != kind or same_value(cand.text, ent.text):
                    continue
                if _norm(cand.text) in _norm(doc.text):
                    continue  # already said elsewhere in the text: not this slot's value
                if other_end(ent, cand):
                    continue  # where a change started is not where it ended ("from $3.41" for "to $3.69")
                ca = _anchor(cand)
                score = 0.0
                if anchor is not None and ca is not None and (ca.lemma_.lower() == anchor.lemma_.lower()
                                                              or ca.lower_ == anchor.lower_):
                    score += 2.0
                elif given.get(_norm(ent.text)) == _norm(cand.text):
                    score += 2.0  # the parse hangs the two on different words; the verifier matched them by sentence
                if kind in NAME_KINDS:
                    if score == 0 or _role(cand) != role:
                        continue  # a name is replaced only in the same role of the same verb
                else:
                    # by form or lemma: the tagger lemmatises one word two ways ("aged": "aged" / "age")
                    sent_words = {w for t in cand.sent if t.is_alpha and not t.is_stop for w in (t.lemma_.lower(), t.lower_)}
                    ctx = [t for t in ent.sent if t.is_alpha and not t.is_stop and t.i not in {x.i for x in ent}]
                    if ctx:
                        score += sum(1 for t in ctx if t.lemma_.lower() in sent_words or t.lower_ in sent_words) / len(ctx)
                if score < 1.0:
                    continue  # too little of the value's context around the candidate
                # two values in one evidence sentence: the one standing between the same words wins ("a total of
                # 58lb" over "the two sailors" for "a total of 60lb"); a tie-break only, never a reason to replace
                score += 0.25 * _same_neighbours(ent, cand) if kind not in NAME_KINDS else 0.0
                if score > best_score:
                    best, best_score = cand, score
            if best is None:
                continue
            slot, repl = _differing(ent, best)
            if not repl or not slot:
                continue
            new = best.doc.text[repl[0].idx : repl[-1].idx + len(repl[-1].text)]
            if not all(known(w) for w in re.findall(r"[A-Za-z]+", new)):
                continue
            a, b = slot[0].idx, slot[-1].idx + len(slot[-1].text)
            # "a" / "an" before the value follows its first sound
            prev = doc[slot[0].i - 1] if slot[0].i > 0 else None
            if prev is not None and prev.lower_ in ("a", "an"):
                want = "an" if re.match(r"[aeiou]", new, re.I) else "a"
                if want != prev.lower_ and known(want):
                    a = prev.idx
                    new = (want.capitalize() if prev.text[0].isupper() else want) + " " + new
            old = doc.text[a:b]
            out.append(Correction(u.id, "value", a, b, old, new, _ev(sid, off, best.start_char, best.end_char, best.text)))
        return out

    # --- names ----------------------------------------------------------------------------------------------------

    def _names(self, u: Unit, v: Verdict, toks: list, rdoc, sid: str, off: int, known) -> list[Correction]:
        """A name (or a number or date) the verifier found standing where the evidence sentence, copied word for
        word, has another (a substitution, or a conflict the copy pins) gets the evidence's back."""
        flagged = _flagged(v, "substitution", "conflict")
        if not flagged:
            return []
        doc = toks[0].doc
        span = [(toks[0].idx, toks[-1].idx + len(toks[-1].text))]
        out = []
        # a number or date the same copy pins (names.value_substitutions) gets the evidence's value the same way
        for sub in name_substitutions(doc, span, [rdoc]) + value_substitutions(doc, span, [rdoc]):
            if sub["text"] not in flagged or not all(known(w) for w in re.findall(r"[A-Za-z]+", sub["evidence"])):
                continue
            ev = _ev(sid, off, sub["evidence_start"], sub["evidence_end"], sub["evidence"])
            kind = "value" if sub.get("value_kind") else "name"
            out.append(Correction(u.id, kind, sub["start"], sub["end"], sub["text"], sub["evidence"], ev))
        return out

    def _speakers(self, u: Unit, v: Verdict, toks: list, rdoc, sid: str, off: int, known) -> list[Correction]:
        """A speech the region gives to another named speaker (citefix.verify.slots.speaker_conflicts) gets that
        speaker: the unit's speaker phrase ("Opposition leader Tomas Werner") replaced by the region's ("Housing
        minister Elena Drovic"), clauses and asides left out of both."""
        flagged = _flagged(v, "conflict")
        if not flagged:
            return []
        doc = toks[0].doc
        span = [(toks[0].idx, toks[-1].idx + len(toks[-1].text))]
        out = []
        for c in speaker_conflicts(doc, span, [rdoc], [], name_slot):
            if c["text"] not in flagged or c["speaker"] is None:
                continue
            mine, theirs = speaker_phrase(c["speaker"]), speaker_phrase(c["evidence_speaker"])
            if mine is None or theirs is None:
                continue
            new = rdoc.text[theirs[0]:theirs[1]]
            if not all(known(w) for w in re.findall(r"[A-Za-z]+", new)):
                continue
            if doc[c["speaker"].left_edge.i].is_sent_start:
                new = new[0].upper() + new[1:]
            elif new.split()[0] in ("The", "A", "An"):  # "The authority's commissioner" inside a sentence
                new = new[0].lower() + new[1:]
            out.append(Correction(u.id, "name", mine[0], mine[1], doc.text[mine[0]:mine[1]], new,
                                  _ev(sid, off, theirs[0], theirs[1], rdoc.text[theirs[0]:theirs[1]])))
        return out

    # --- negation -------------------------------------------------------------------------------------------------

    def _negation(self, u: Unit, v: Verdict, toks: list, rdoc, sid: str, off: int) -> list[Correction]:
        flagged = _flagged(v, "polarity")
        out = []
        for t in toks:
            main = t.pos_ == "VERB" or (t.pos_ == "AUX" and t.dep_ not in ("aux", "auxpass"))  # "is not head of"
            if not main or t.text not in flagged:
                continue
            cand = _counterpart(t, rdoc)
            if cand is None:
                continue
            fix = _drop_negation(t, cand) if _neg_children(t) and not _neg_children(cand) else None
            if fix is None and _neg_children(cand) and not _neg_children(t):
                fix = _add_negation(t, cand)
            if fix is None:
                fix = self._group_swap(t, cand)
            if fix is None:
                continue
            a, b, new = fix
            sa, sb = _group_span(cand)
            out.append(Correction(u.id, "negation", a, b, t.doc.text[a:b], new,
                                  _ev(sid, off, sa, sb, rdoc.text[sa:sb])))
        out += self._antonyms(u, v, toks, rdoc, sid, off)
        return out

    @staticmethod
    def _group_swap(t, cand) -> tuple[int, int, str] | None:
        """The evidence's verb group in place of the unit's ("approved" → "did not approve")."""
        ugroup, sgroup = _verb_group(t), _verb_group(cand)
        if ugroup is None or sgroup is None:
            return None
        doc, rdoc = t.doc, cand.doc
        a, b = doc[ugroup[0]].idx, doc[ugroup[1]].idx + len(doc[ugroup[1]].text)
        sa, sb = rdoc[sgroup[0]].idx, rdoc[sgroup[1]].idx + len(rdoc[sgroup[1]].text)
        new = rdoc.text[sa:sb]
        if _norm(new) == _norm(doc.text[a:b]):
            return None
        return a, b, new

    def _antonyms(self, u: Unit, v: Verdict, toks: list, rdoc, sid: str, off: int) -> list[Correction]:
        """An antonym predicate put back: the evidence's word in place of the unit's, when both have the same form
        ("lost" → "won", "ended" → "began", a noun: "a 37% decrease" → "a 37% increase", "a decrease" → "an
        increase", its article with it); a different form would need a word neither text nor source has."""
        flagged = _flagged(v, "antonym")
        out = []
        # the changed word may stand in the context a detail unit carries ("[a fall] in the quarterly dividend": the
        # unit states what fell): it is looked for in the unit's sentence too
        near = [t for t in (toks[0].sent if toks else []) if t.text in flagged and t not in toks]
        for t in list(toks) + near:
            cand = (opposite_in(t, rdoc) or cross_flip(t, [rdoc])) if t.text in flagged else None
            if cand is None or cand.tag_ != t.tag_:
                continue
            new = cand.text.lower() if t.text[:1].islower() else cand.text
            start = t.idx
            if t.i > 0 and t.doc[t.i - 1].lower_ in ("a", "an") and t.doc[t.i - 1].head.i == t.i:
                # the article right before the noun follows its first sound ("a decrease" → "an increase")
                art = t.doc[t.i - 1]
                said = "an" if new[:1].lower() in "aeiou" else "a"
                if said != art.lower_:
                    start, new = art.idx, (said.capitalize() if art.text[:1].isupper() else said) + " " + new
            out.append(Correction(u.id, "negation", start, t.idx + len(t.text), t.doc.text[start:t.idx + len(t.text)],
                                  new, _ev(sid, off, cand.idx, cand.idx + len(cand.text), cand.text)))
        return out

    # --- roles ------------------------------------------------------------------------------------------------------

    def _roles(self, u: Unit, v: Verdict, toks: list, rdoc, sid: str, off: int) -> list[Correction]:
        flagged = _flagged(v, "role")
        out = []
        for t in toks:
            if t.pos_ != "VERB" or t.text not in flagged:
                continue
            subj = next((c for c in t.children if c.dep_ in ("nsubj", "nsubjpass")), None)
            obj = next((c for c in t.children if c.dep_ in ("dobj",)), None)
            if obj is None:  # an argument the small model attached by another arc, after the verb (see roles())
                obj = next((c for c in t.children if c.i > t.i and c.pos_ in ARG_POS and c.dep_ not in NOT_ARG
                            and c.ent_type_ not in ("DATE", "TIME")), None)
            if obj is None:
                agent = next((c for c in t.children if c.dep_ == "agent"), None)
                obj = next((g for g in agent.children if g.dep_ == "pobj"), None) if agent is not None else None
            if subj is None or obj is None:
                continue
            doc = t.doc
            s0, s1 = _np(subj)
            o0, o1 = _np(obj)
            if not (s1 < o0):
                continue
            stext, otext = doc.text[s0:s1], doc.text[o0:o1]
            new_first = _recase(otext, at_start=s0 == doc[subj.left_edge.i].sent.start_char)
            new_second = _recase(stext, at_start=False)
            new = new_first + doc.text[s1:o0] + new_second
            out.append(Correction(u.id, "roles", s0, o1, doc.text[s0:o1], new,
                                  _ev(sid, off, 0, len(rdoc.text), rdoc.text)))
        return out

    # --- certainty --------------------------------------------------------------------------------------------------

    def _certainty(self, u: Unit, v: Verdict, toks: list, rdoc, sid: str, off: int) -> list[Correction]:
        flagged = _flagged(v, "certainty")
        out = []
        for t in toks:
            if t.text not in flagged:
                continue
            if t.pos_ == "VERB":
                # the unit's "will" / "would" / "shall" takes the modal of the evidence's hedged verb
                word = next((c for c in t.children if c.dep_ == "aux" and c.lower_ in ("will", "would", "shall")), None)
                cand = next((x for x in rdoc if x.lemma_.lower() == t.lemma_.lower() and hedged(x)), None)
                new = next((c for c in cand.children if c.dep_ == "aux" and c.lower_ in HEDGE_MODALS),
                           None) if cand is not None else None
            else:
                # "all" takes the word by which the evidence says a part of the same thing ("some")
                word = next((w for w in quantifiers(t) if w.lower_ == "all"), None)
                cand = next((x for x in rdoc if x.pos_ == "NOUN" and x.lemma_.lower() == t.lemma_.lower()
                             and scope(x) == "part"), None)
                new = next((w for w in quantifiers(cand) if w.lower_ in PART_WORDS), None) if cand is not None else None
            if word is None or new is None or cand is None:
                continue
            text = new.lower_ if word.text[:1].islower() else new.lower_.capitalize()
            a, b = min(new.idx, cand.idx), max(new.idx + len(new.text), cand.idx + len(cand.text))
            out.append(Correction(u.id, "certainty", word.idx, word.idx + len(word.text), word.text, text,
                                  _ev(sid, off, a, b, rdoc.text[a:b])))
        return out


def _differing(ent, cand) -> tuple[list, list]:
    """The tokens of the text's value and of the evidence's value that differ, once the words they share at either
    end, and the candidate's words that the text already has around the value, are set aside ("7 [to 4]" against
    "9 to 4" → "7" / "9")."""
    low = lambda t: t.lower_  # noqa: E731
    # the words the evidence has right after / before its value that the text's value holds inside it ("60lb" against
    # "58" followed by "lb": only "60" is the slot, so the unit stays); the words the text already has right after /
    # before its value that the candidate holds inside it ("7 [to 4]" against "9 to 4")
    slot = _shed(list(ent), cand.doc, cand.start, cand.end)
    repl = _shed(list(cand), ent.doc, ent.start, ent.end)
    while len(slot) > 1 and len(repl) > 1 and low(slot[-1]) == low(repl[-1]):
        slot, repl = slot[:-1], repl[:-1]
    while len(slot) > 1 and len(repl) > 1 and low(slot[0]) == low(repl[0]):
        slot, repl = slot[1:], repl[1:]
    if [low(t) for t in slot] == [low(t) for t in repl]:
        return [], []
    return slot, repl


def _shed(toks: list, doc, start: int, end: int) -> list:
    """`toks` without the longest run at its end that equals the words of `doc` right after [start, end), and then
    without the longest run at its start that equals the words right before it (at least one token stays)."""
    low = [t.lower_ for t in toks]
    for j in range(len(toks) - 1, 0, -1):
        after = [t.lower_ for t in doc[end : end + j]]
        if len(after) == j and low[-j:] == after:
            toks, low = toks[:-j], low[:-j]
            break
    for j in range(len(toks) - 1, 0, -1):
        before = [t.lower_ for t in doc[max(0, start - j) : start]]
        if len(before) == j and low[:j] == before:
            toks = toks[j:]
            break
    return toks


def _same_neighbours(ent, cand) -> int:
    """How many of the two words before and the two after a value are the same words around the candidate."""
    def around(span) -> tuple[list[str], list[str]]:
        d = span.doc
        return ([t.lower_ for t in d[max(0, span.start - 2) : span.start]],
                [t.lower_ for t in d[span.end : span.end + 2]])
    (lb, la), (cb, ca) = around(ent), around(cand)
    return sum(1 for x, y in zip(reversed(lb), reversed(cb)) if x == y) + sum(1 for x, y in zip(la, ca) if x == y)


def _verb_group(t) -> tuple[int, int] | None:
    """Token range (first, last) of a verb with its auxiliaries and negation, when they stand together before it."""
    first = t.i
    for c in sorted(t.children, key=lambda c: -c.i):
        if c.i < t.i and c.dep_ in ("aux", "auxpass", "neg") and c.i == first - 1:
            first = c.i
    return first, t.i


_RANGE_WORDS = {"to", "and", "or", "between", "-", "–"}


def _kind(ent) -> str | None:
    """The kind of value an entity carries; bare numbers ("52 to 60", "50") are numbers whatever the tagger called
    them (it tags the same age range DATE in one sentence and CARDINAL in the next)."""
    kind = VALUE_LABELS.get(ent.label_)
    if kind in ("time", "number") and all((t.like_num and not _year(t.text)) or t.lower_ in _RANGE_WORDS for t in ent):
        return "number"
    return kind


def _year(word: str) -> bool:
    return len(word) == 4 and word.isdigit() and 1000 <= int(word) <= 2199


def _flagged_values(v: Verdict) -> list[str]:
    """The values the verdict holds against its unit: numbers, dates and names the source lacks, found only elsewhere
    in it, or contradicted by the evidence."""
    d = v.details or {}
    out = list(d.get("missing", [])) + list(d.get("misplaced", []))
    return out + sorted(_flagged(v, "conflict", "substitution"))


def _flagged(v: Verdict, *kinds: str) -> set[str]:
    """The unit's words that a check found at odds with the evidence, for these kinds of finding: read from the
    verdict's conflict records (kind, words, span), never from its display strings."""
    return {str(c["text"]) for c in (v.details or {}).get("conflicts", []) if c.get("kind") in kinds}


def _overlaps(a: str, b: str) -> bool:
    a, b = _norm(a), _norm(b)
    return bool(a and b) and (a in b or b in a)


def _neg_children(t) -> list:
    """The verb's "not" / "n't" / "never", also where the parser hung it on the verb's auxiliary ("was not long
    gone")."""
    heads = [t] + [c for c in t.children if c.dep_ in ("aux", "auxpass")]
    return [c for h in heads for c in h.children if c.dep_ == "neg" and c.lower_ in ("not", "n't", "never")]


def _group_span(t) -> tuple[int, int]:
    """Character range of a verb with its auxiliaries, negation and the adverbs between them ("had not repeatedly
    offered", "is not")."""
    ids = [t.i] + [c.i for c in t.children if c.dep_ in ("aux", "auxpass", "neg")]
    lo, hi = min(ids), max(ids)
    doc = t.doc
    return doc[lo].idx, doc[hi].idx + len(doc[hi].text)


def _counterpart(t, rdoc) -> Any | None:
    """The evidence's verb of the same lemma that shares the most of the unit verb's clause words (the first one on a
    tie): the predicate the unit restates, not another clause's "be"."""
    lemma = t.lemma_.lower()
    cands = [s for s in rdoc if s.lemma_.lower() == lemma and (s.pos_ == "VERB" or (s.pos_ == "AUX" and s.dep_ not in
                                                                                     ("aux", "auxpass")))]
    if not cands:
        return None
    mine = _clause_words(t)
    return max(cands, key=lambda s: (len(mine & _clause_words(s)), -s.i))


def _clause_words(verb) -> set[str]:
    return {x.lemma_.lower() for x in verb.subtree if x.is_alpha and not x.is_stop and x.i != verb.i}


def _add_negation(t, cand) -> tuple[int, int, str] | None:
    """The evidence's particle after the unit's "be" / "have" where the evidence has it right after its own ("is
    head" → "is not head", "was" → "wasn't")."""
    neg = _neg_children(cand)[0]
    if neg.i != cand.i + 1 or t.pos_ != "AUX":
        return None
    rdoc = cand.doc
    return t.idx, t.idx + len(t.text), t.text + rdoc.text[cand.idx + len(cand.text):neg.idx + len(neg.text)]


def _drop_negation(t, cand) -> tuple[int, int, str] | None:
    """The unit's "not" / "n't" / "never" cut where the evidence's same verb has none ("is not head" → "is head",
    "had not repeatedly offered" → "had repeatedly offered"), unless do-support carries it ("did not begin" needs the
    evidence's "began": the group swap) or the contraction would leave half a word ("ca n't")."""
    negs = _neg_children(t)
    if len(negs) != 1 or any(c.dep_ == "aux" and c.lemma_.lower() == "do" for c in t.children):
        return None
    neg = negs[0]
    doc = t.doc
    if neg.i == 0:
        return None
    before = doc[neg.i - 1]
    if neg.lower_ == "n't" and before.lower_ in ("ca", "wo", "sha"):
        return None
    a = before.idx + len(before.text)  # the space before the particle goes with it
    b = neg.idx + len(neg.text)
    return a, b, ""


def _np(tok) -> tuple[int, int]:
    """Character range of a noun phrase without its relative clauses or appositions."""
    doc = tok.doc
    drop = {x.i for c in tok.children if c.dep_ in ("relcl", "appos", "acl", "punct") and c.i > tok.i for x in c.subtree}
    ids = [x.i for x in tok.subtree if x.i not in drop]
    lo, hi = min(ids), max(ids)
    return doc[lo].idx, doc[hi].idx + len(doc[hi].text)


def _recase(phrase: str, *, at_start: bool) -> str:
    if not phrase:
        return phrase
    first = phrase.split(" ", 1)[0]
    if at_start:
        return phrase[0].upper() + phrase[1:]
    if first.lower() in ("the", "a", "an", "this", "that", "these", "those", "his", "her", "its", "their"):
        return phrase[0].lower() + phrase[1:]
    return phrase


def _ev(sid: str, off: int, a: int, b: int, text: str) -> dict[str, Any]:
    return {"source_id": sid, "start": off + a, "end": off + b, "text": text}
