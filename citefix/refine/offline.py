"""The offline reviser: corrects what it can from the source, deletes the rest; it never writes a word that is in
neither the text nor the sources. No LLM, so the loop runs anywhere.

First, for each unit the feedback names as unsupported, citefix.refine.correct tries to put the source's value back
(a number, date, duration or name the evidence holds in its place, a polarity, the roles of a verb). For each unit
still unsupported after that, the words that carry it are found (the verifier's unsupported spans
inside the unit, else the unit's own words that no supported unit shares), and for each such word the reviser climbs
the spaCy dependency tree to the nearest node whose subtree can go without breaking the sentence: a modifier phrase
(prep, amod, advmod, npadvmod, nummod, compound, acl, advcl), an apposition, a relative clause or a conjunct (with its
coordinator; a first conjunct gives its place to the next). A word that reaches the root without meeting one is part of
the sentence's core (root verb, subject, object): the whole sentence goes. A modifier whose removal would leave a verb
that needs a complement bare ("will take", "is") takes its clause with it. After the deletions, punctuation, spacing
and capitalisation are mended at each cut — only there. Citation marks stay attached to the words before them: a
positional mark goes with its words, a single sentence-final mark stays with its sentence; marks naming a passage
that does not support its claim are removed when the feedback says so. No mark is ever added.

When the feedback names no units (the `none` control, or a free-form critique), the reviser can only check the text
against the source itself: it deletes modifier subtrees (apposition, relative clause, modifier phrase, conjunct) most
of whose content words (numbers, names, nouns, adjectives) the source does not contain.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from citefix.models import Case, Evaluation, Unit, Verdict
from citefix.refine.feedback import Feedback
from citefix.refine.revise import Revision

DELETABLE = {
    "amod", "advmod", "npadvmod", "prep", "agent", "appos", "relcl", "acl", "advcl", "conj", "nummod", "quantmod",
    "compound", "parataxis", "predet", "meta", "nmod", "intj",
}
# Dependents that leave a verb "bare" when everything else is deleted.
FUNCTIONAL = {"nsubj", "nsubjpass", "csubj", "csubjpass", "expl", "aux", "auxpass", "neg", "punct", "mark", "cc", "conj",
              "prt", "det"}
# Verbs that read wrong without a complement ("the work will take", "the ticket costs").
NEEDS_COMPLEMENT = set(
    "be take cost last weigh become make give put reach include contain remain seem appear total equal mean involve "
    "require need hold have get keep lead receive owe number measure amount rise fall grow increase decrease drop "
    "stand describe call name".split()
)
SELF_CHECK_DEPS = {"appos", "relcl", "acl", "advcl", "prep", "amod", "nummod", "compound", "conj", "npadvmod", "quantmod"}
_STOP = set(
    """a an the and or but of to in on at by for with from as is are was were be been being has have had do does did it
    its this that these those he she they them his her their him we our you your i me my not no will would can could
    should may might must shall there here which who whom whose what when where why how than then so such also into
    onto over under about after before during while if because said says say""".split()
)
_MARK_RUN = re.compile(r"(?:\s*\[\s*\d+(?:\s*(?:,|-|–)\s*\d+)*\s*\])+")


@dataclass
class _Text:
    """The text with citation marks removed, parsed, and the maps between cleaned and original offsets."""

    original: str
    cleaned: str
    orig_of: list[int]  # cleaned index → original index
    clean_at: list[int]  # original index → number of cleaned chars before it
    marks: list[tuple[int, int, int]]  # (original start, original end, cleaned position) of each run of marks
    doc: Any = None

    def tok_range(self, t) -> tuple[int, int]:
        return self.orig_of[t.idx], self.orig_of[t.idx + len(t.text) - 1] + 1


def _clean(text: str) -> _Text:
    orig_of: list[int] = []
    clean_at: list[int] = []
    parts: list[str] = []
    marks: list[tuple[int, int, int]] = []
    pos = 0
    n = 0
    for m in _MARK_RUN.finditer(text):
        parts.append(text[pos : m.start()])
        for k in range(pos, m.start()):
            clean_at.append(n)
            orig_of.append(k)
            n += 1
        for _ in range(m.start(), m.end()):
            clean_at.append(n)
        marks.append((m.start(), m.end(), n))
        pos = m.end()
    parts.append(text[pos:])
    for k in range(pos, len(text)):
        clean_at.append(n)
        orig_of.append(k)
        n += 1
    clean_at.append(n)
    return _Text(text, "".join(parts), orig_of, clean_at, marks)


@dataclass
class _Plan:
    """What to delete in one sentence."""

    nodes: dict[int, str] = field(default_factory=dict)  # token index → why (the unit id)
    first_conjuncts: dict[int, str] = field(default_factory=dict)
    drop: str | None = None  # why the whole sentence goes


class OfflineReviser:
    """Deletion-only reviser on real spaCy parses (see the module docstring)."""

    name = "offline"

    def __init__(self, *, nlp=None, self_check: bool = True, self_check_share: float = 0.5, correct: bool = True,
                 recite_share: float = 0.8):
        self._nlp = nlp
        self.correct = correct
        self.recite_share = recite_share  # a claim moves to a passage that holds this share of its content words
        self.self_check = self_check
        self.self_check_share = self_check_share

    @property
    def nlp(self):
        if self._nlp is None:
            from citefix.nlp import load_spacy

            self._nlp = load_spacy()
        return self._nlp

    # --- entry point -----------------------------------------------------------------------------------------------

    def revise(self, case: Case, feedback: Feedback, evaluation: Evaluation) -> Revision:
        if not feedback.comment:
            return Revision(None, "no_feedback", "the strategy had nothing to say about this text")
        text = evaluation.text or case.text
        tx = _clean(text)
        tx.doc = self.nlp(tx.cleaned)
        # First pass: a sentence whose core is unsupported goes. If that would leave no text at all, a second pass
        # keeps every sentence and deletes only the flagged words that hang off a core.
        new, edits = self._pass(case, feedback, evaluation, tx, allow_drop=True)
        if new is not None and not _has_words(new):
            new, edits2 = self._pass(case, feedback, evaluation, tx, allow_drop=False)
            edits = edits2 + [{"kind": "note", "text": "", "why": "deleting every unsupported core would leave no text: "
                                                                      "kept the sentences, deleted their unsupported modifiers"}]
            if new is None or not _has_words(new):
                return Revision(None, "nothing_left", "every sentence's core is unsupported and nothing else can be "
                                                      "deleted without leaving no text", edits=edits)
        if new is None:
            return Revision(None, "nothing_to_delete", "the offline reviser found nothing it could delete", edits=edits)
        notes = [f"{e['kind']}: {e['text']!r} → {e['new']!r}" if "new" in e else f"deleted {e['kind']}: {e['text']!r}"
                 for e in edits if e.get("text")]
        return Revision(new, notes=notes, edits=edits)

    def _pass(self, case: Case, feedback: Feedback, evaluation: Evaluation, tx: _Text, *, allow_drop: bool):
        plans: dict[int, _Plan] = {}  # sentence start token → plan
        edits: list[dict[str, Any]] = []
        mark_edits: dict[tuple[int, int], str] = {}  # original (start, end) of a mark run → replacement
        corrections: list = []
        if feedback.units and self.correct:
            corrections = self._corrections(case, tx, feedback)
            edits += [c.edit() for c in corrections]
        fixed = {c.unit for c in corrections}
        if feedback.units:
            supported = [u for u in evaluation.units if (v := evaluation.verdict_for(u.id)) is not None and v.label == "supported"]
            for u in feedback.units:
                if u.id in fixed:
                    continue
                v = feedback.verdicts.get(u.id)
                if v is not None and v.label == "partial":
                    # partly supported: some evidence holds a version of it, so it is not deleted (a correction, made
                    # above when the evidence holds the right value, is the only edit a partial unit gets)
                    edits.append({"unit": u.id, "kind": "kept", "text": "", "why": "partly supported: not deleted"})
                    continue
                self._plan_unit(tx, u, feedback.verdicts.get(u.id), supported, plans, edits, allow_drop=allow_drop)
        if feedback.citations:
            recited = self._plan_citations(case, tx, feedback, mark_edits, edits)
            for k in list(plans):  # a re-cited claim stays
                plan = plans[k]
                plan.nodes = {i: why for i, why in plan.nodes.items() if why not in recited}
                plan.first_conjuncts = {i: why for i, why in plan.first_conjuncts.items() if why not in recited}
                if plan.drop and plan.drop.split(":", 1)[0] in recited:
                    plan.drop = None
        if not feedback.units and not feedback.citations and self.self_check:
            self._plan_self_check(case, tx, plans, edits)
            allow_drop = False  # checking against the source alone never drops a sentence
        ranges, replacements, _ = self._ranges(tx, plans, edits, allow_drop=allow_drop)
        replacements += [(c.start, c.end, c.new) for c in corrections]
        for (a, b), rep in mark_edits.items():
            if not any(s <= a and b <= e for s, e in ranges):
                replacements.append((a, b, rep))
        if not ranges and not replacements:
            return None, edits
        return _apply(tx.original, ranges, replacements), edits

    # --- planning: corrections from the source ------------------------------------------------------------------------

    def _corrections(self, case: Case, tx: _Text, feedback: Feedback) -> list:
        from citefix.refine.correct import Corrector

        vocab = {w.lower() for w in re.findall(r"[A-Za-z]+", tx.original + "\n" + "\n".join(s.text for s in case.sources))}

        def to_orig(a: int, b: int) -> tuple[int, int]:
            return tx.orig_of[a], tx.orig_of[max(a, b - 1)] + 1

        return Corrector(self.nlp).plan(case, tx.doc, list(feedback.units), feedback.verdicts, to_orig,
                                        lambda w: w.lower() in vocab)

    # --- planning: flagged units -------------------------------------------------------------------------------------

    def _plan_unit(self, tx: _Text, u: Unit, v: Verdict | None, supported: list[Unit], plans, edits, *,
                   allow_drop: bool = True) -> None:
        if not u.has_span:
            edits.append({"unit": u.id, "kind": "skipped", "text": "", "why": u.note or "the unit has no span in the text"})
            return
        lo, hi = tx.clean_at[max(0, min(u.start, len(tx.original)))], tx.clean_at[max(0, min(u.end, len(tx.original)))]
        region = [t for t in tx.doc if t.idx < hi and t.idx + len(t.text) > lo and _is_word(t)]
        if not region:
            return
        targets: list = []
        spans = list(v.unsupported_spans) if v is not None else []
        for s, e in spans:
            cs, ce = tx.clean_at[max(0, min(s, len(tx.original)))], tx.clean_at[max(0, min(e, len(tx.original)))]
            targets += [t for t in tx.doc if t.idx < ce and t.idx + len(t.text) > cs and _is_word(t)]
        targets = list({t.i: t for t in targets}.values())
        if not targets:
            targets = _distinctive(u, region, supported)
        for sent_start, toks in _by_sentence(targets).items():
            plan = plans.setdefault(sent_start, _Plan())
            if plan.drop:
                continue
            sent = toks[0].sent
            target_ids = {t.i for t in toks}
            for t in toks:
                node, first_conj = _climb(t, target_ids)
                if node is None:
                    if allow_drop:
                        plan.drop = f"{u.id}: the unsupported word {t.text!r} is part of the sentence's core"
                        break
                    continue
                (plan.first_conjuncts if first_conj else plan.nodes)[node.i] = u.id
            if not plan.drop:
                _settle(sent, plan, allow_drop=allow_drop)

    # --- planning: citations --------------------------------------------------------------------------------------------

    def _plan_citations(self, case: Case, tx: _Text, feedback: Feedback, mark_edits, edits) -> set[str]:
        """Re-cite or remove marks the feedback says do not support their claim or name missing passages.

        A mark whose passage does not support its claim moves to the passage that does (the one holding the most of
        the claim's content words, when it holds nearly all of them: `recite_share`); with no such passage it goes.
        A claim none of whose cited passages supports it is re-cited the same way instead of being deleted. Returns
        the ids of the units re-cited whole (the deleter leaves them alone)."""
        drop: dict[int, set[str]] = {}  # mark-run index → ids to remove
        add: dict[int, list[str]] = {}  # mark-run index → ids to put in
        recited: set[str] = set()
        for issue in feedback.citations:
            # "redundant" (METHODS, ALiiCE precision 0): the mark's passage alone does not support the claim while the
            # other marks do without it; it is re-cited or removed like a missing passage. Two marks that each support
            # the claim alone are never flagged, so a supporting passage is never removed here.
            if issue.kind == "unsupported_claim" and issue.unit is not None and issue.cited:
                better = self._supporting_passage(case, issue.claim, exclude=set(issue.cited))
                k = _mark_run_for(tx, issue.unit, issue.cited, issue.cited[0])
                if better is not None and k is not None:
                    drop.setdefault(k, set()).update(issue.cited)
                    add.setdefault(k, []).append(better)
                    recited.add(issue.unit.id)
                continue
            if issue.kind not in ("redundant", "missing_passage") or issue.source is None:
                continue
            k = _mark_run_for(tx, issue.unit, issue.cited, issue.source)
            if k is not None:
                drop.setdefault(k, set()).add(issue.source)
                better = self._supporting_passage(case, issue.claim, exclude=set(issue.cited))
                if better is not None:
                    add.setdefault(k, []).append(better)
        for k in sorted(set(drop) | set(add)):
            ids = drop.get(k, set())
            a, b, _ = tx.marks[k]
            raw = tx.original[a:b]
            present = _mark_ids(raw)
            keep = [i for i in present if i not in ids]
            new_ids = [i for i in dict.fromkeys(add.get(k, [])) if i not in keep]
            keep = sorted(keep + new_ids, key=lambda x: (len(x), x))
            lead = raw[: len(raw) - len(raw.lstrip())]
            mark_edits[(a, b)] = (lead + "".join(f"[{i}]" for i in keep)) if keep else ""
            edit = {"kind": "citation", "text": raw.strip(), "new": "".join(f"[{i}]" for i in keep),
                    "removed": sorted(i for i in ids if i not in new_ids), "why": "citation feedback"}
            if new_ids:
                edit["added"] = new_ids
                src = case.source(new_ids[0])
                edit["evidence"] = {"source_id": new_ids[0], "start": 0, "end": len(src.text), "text": src.text} if src else None
            edits.append(edit)
        return recited

    def _supporting_passage(self, case: Case, claim: str, *, exclude: set[str]) -> str | None:
        """The passage (not in `exclude`) holding the most of the claim's content words, if it holds at least
        `recite_share` of them; None otherwise."""
        words = [t for t in self.nlp(claim) if _is_content(t)]
        if not words:
            return None
        best, best_share = None, 0.0
        for src in case.sources:
            if src.id in exclude:
                continue
            vocab = self._passage_vocab(src.text)
            share = sum(1 for t in words if _known(t, vocab)) / len(words)
            if share > best_share:
                best, best_share = src.id, share
        return best if best_share >= self.recite_share else None

    def _passage_vocab(self, text: str) -> set[str]:
        cache = self.__dict__.setdefault("_vocab_cache", {})
        if text not in cache:
            vocab: set[str] = set()
            for t in self.nlp(text):
                vocab |= {t.lower_, t.lemma_.lower(), _stem(t.text)}
            cache[text] = vocab
        return cache[text]

    # --- planning: no unit feedback (self-check against the source) ---------------------------------------------------

    def _plan_self_check(self, case: Case, tx: _Text, plans, edits) -> None:
        vocab = _vocabulary(self.nlp, case)
        for sent in tx.doc.sents:
            plan = plans.setdefault(sent.start, _Plan())
            for t in sent:
                if t.dep_ not in SELF_CHECK_DEPS or t.i == sent.root.i or _quantity(t):
                    continue
                content = [x for x in t.subtree if _is_content(x)]
                if not content:
                    continue
                missing = [x for x in content if not _known(x, vocab)]
                strong = [x for x in missing if x.like_num or x.pos_ in ("PROPN", "NUM", "NOUN", "ADJ")]
                if strong and len(missing) / len(content) >= self.self_check_share:
                    plan.nodes[t.i] = "self-check"
            _outermost(sent, plan)
            _settle(sent, plan, allow_drop=False)

    # --- from plans to character ranges ----------------------------------------------------------------------------------

    def _ranges(self, tx: _Text, plans: dict[int, _Plan], edits, *, allow_drop: bool = True
                ) -> tuple[list[tuple[int, int]], list, list[int]]:
        doc = tx.doc
        deleted_tokens: set[int] = set()
        ranges: list[tuple[int, int]] = []
        replacements: list[tuple[int, int, str]] = []
        dropped: list[int] = []
        sents = {s.start: s for s in doc.sents}
        for start, plan in sorted(plans.items()):
            sent = sents.get(start)
            if sent is None:
                continue
            if not plan.drop:
                toks, reps = _plan_tokens(sent, plan)
                broken = _broken(sent, toks)
                if broken:
                    if allow_drop:
                        plan.drop = broken
                    else:
                        edits.append({"kind": "kept", "text": "", "why": f"{broken}: left the sentence as it is"})
                        toks, reps = set(), []
            if plan.drop:
                a = tx.orig_of[sent.start_char] if sent.start_char < len(tx.orig_of) else len(tx.original)
                b = tx.tok_range(sent[-1])[1] if len(sent) else a
                # marks right after the sentence's end belong to it
                m = _MARK_RUN.match(tx.original, b)
                if m:
                    b = m.end()
                ranges.append((a, b))
                deleted_tokens.update(t.i for t in sent)
                dropped.append(start)
                edits.append({"kind": "sentence", "text": tx.original[a:b].strip(), "why": plan.drop})
                continue
            if not toks:
                continue
            deleted_tokens.update(toks)
            for run in _runs(sorted(toks)):
                a, _ = tx.tok_range(doc[run[0]])
                _, b = tx.tok_range(doc[run[-1]])
                ranges.append((a, b))
            for tok_i, new_text in reps:
                a, b = tx.tok_range(doc[tok_i])
                replacements.append((a, b, new_text))
            for i, why in list(plan.nodes.items()) + list(plan.first_conjuncts.items()):
                node = doc[i]
                kind = "first conjunct" if i in plan.first_conjuncts else _KIND.get(node.dep_, node.dep_)
                words = [t for t in doc[i].subtree if t.i in toks]
                if words:
                    edits.append({"unit": why, "kind": kind, "text": "".join(t.text_with_ws for t in words).strip()})
        # positional marks whose word was deleted go with it
        for a, b, cpos in tx.marks:
            if any(s <= a and b <= e for s, e in ranges):
                continue
            anchor = _anchor(doc, cpos)
            if anchor is None or anchor.i not in deleted_tokens:
                continue
            sent = anchor.sent
            runs_in_sent = [m for m in tx.marks if sent.start_char <= m[2] <= sent.end_char + 1]
            at_end = all(not _is_word(t) for t in doc[anchor.i + 1 : sent.end]) and len(runs_in_sent) == 1
            if not at_end:
                ranges.append((a, b))
        return _merge(ranges), replacements, dropped


_KIND = {"appos": "apposition", "relcl": "relative clause", "conj": "conjunct", "prep": "modifier phrase",
         "acl": "clause modifier", "advcl": "adverbial clause", "amod": "modifier", "advmod": "modifier",
         "npadvmod": "modifier phrase", "nummod": "number", "compound": "modifier", "quantmod": "modifier",
         "parataxis": "clause"}


# --- tree helpers ----------------------------------------------------------------------------------------------------


def _is_word(t) -> bool:
    return not (t.is_punct or t.is_space) and any(ch.isalnum() for ch in t.text)


def _is_content(t) -> bool:
    return _is_word(t) and t.lower_ not in _STOP and t.pos_ not in ("DET", "ADP", "CCONJ", "PRON", "AUX", "PART", "SCONJ")


def _stem(w: str) -> str:
    from citefix.decompose.align import stem

    return stem(w)


def _distinctive(u: Unit, region: list, supported: list[Unit]) -> list:
    """The region's words that carry the unit: in its text and in no supported unit of the same sentence."""
    unit_words = {_stem(w) for w in re.findall(r"[\w£$€%]+(?:[.,'][\w]+)*", u.text) if w.lower() not in _STOP}
    same = [s for s in supported if u.sentence is None or s.sentence is None or s.sentence == u.sentence]
    sup_words = {_stem(w) for s in same for w in re.findall(r"[\w£$€%]+(?:[.,'][\w]+)*", s.text) if w.lower() not in _STOP}
    content = [t for t in region if t.lower_ not in _STOP]
    own = [t for t in content if _stem(t.text) in unit_words or _stem(t.lemma_) in unit_words]
    distinct = [t for t in own if _stem(t.text) not in sup_words and _stem(t.lemma_) not in sup_words]
    return distinct or own or content or region


def _by_sentence(tokens: list) -> dict[int, list]:
    out: dict[int, list] = {}
    for t in sorted(tokens, key=lambda x: x.i):
        out.setdefault(t.sent.start, []).append(t)
    return out


def _climb(t, target_ids: set[int]):
    """The nearest deletable ancestor-or-self of t: (node, is_first_conjunct), or (None, False) at the core."""
    node = t
    while True:
        root = node.dep_ == "ROOT" or node.head.i == node.i
        if not root and node.dep_ in DELETABLE and not _quantity(node):
            return node, False
        # a first conjunct whose partners are fine gives its place to them (even the root verb: "met X and approved Y")
        conj_kids = [c for c in node.children if c.dep_ == "conj"]
        if conj_kids and not any(x.i in target_ids for c in conj_kids for x in c.subtree):
            return node, True
        if root:
            return None, False
        node = node.head


def _quantity(node) -> bool:
    """A number counting a plural noun ("two years", "200 people"): the number is the phrase's point, so the phrase
    goes, not the number alone ("years" would be left saying something else)."""
    return node.dep_ in ("nummod", "quantmod") and (node.head.tag_ in ("NNS", "NNPS") or node.head.dep_ == "nummod")


def _outermost(sent, plan: _Plan) -> None:
    """Drop nodes that lie inside another planned node's subtree."""
    chosen = list(plan.nodes)
    inside = set()
    for i in chosen:
        for j in chosen:
            if i != j and _is_ancestor(sent.doc[j], sent.doc[i]):
                inside.add(i)
    for i in inside:
        plan.nodes.pop(i, None)
    for i in list(plan.first_conjuncts):
        if any(_is_ancestor(sent.doc[j], sent.doc[i]) for j in plan.nodes):
            plan.first_conjuncts.pop(i)


def _is_ancestor(a, b) -> bool:
    """True when a is a proper ancestor of b."""
    node = b
    while node.head.i != node.i:
        node = node.head
        if node.i == a.i:
            return True
    return False


def _has_words(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def _broken(sent, toks: set[int]) -> str | None:
    """Why deleting `toks` would wreck the sentence (its root, its subject or nearly all its words go), or None."""
    content = [t for t in sent if _is_word(t)]
    if not content:
        return None
    left = [t for t in content if t.i not in toks]
    if not left:
        return "every word of the sentence is unsupported"
    if sent.root.i in toks and not any(c.dep_ == "conj" and c.i not in toks for c in sent.root.children):
        return "the deletion would take the sentence's main verb"
    subj = [c for c in sent.root.children if c.dep_ in ("nsubj", "nsubjpass", "csubj", "expl")]
    if subj and all(c.i in toks for c in subj):
        return "the deletion would take the sentence's subject"
    if len(left) < 3 and len(content) > len(left):
        return "too little of the sentence would be left"
    return None


def _settle(sent, plan: _Plan, *, allow_drop: bool = True) -> None:
    """Outermost nodes only; a deletion that leaves a verb needing a complement bare takes the verb's clause along."""
    for _ in range(20):
        _outermost(sent, plan)
        changed = False
        toks = _subtree_ids(sent, plan)
        for i in list(plan.nodes):
            node = sent.doc[i]
            head = node.head
            if head.i == node.i or head.i in toks:
                continue
            lemma = head.lemma_.lower()
            needs = head.pos_ in ("VERB", "AUX") and (lemma in NEEDS_COMPLEMENT or head.pos_ == "AUX")
            if not needs:
                continue
            rest = [c for c in head.children if c.i not in toks and c.dep_ not in FUNCTIONAL]
            if rest:
                continue
            why = plan.nodes.pop(i)
            up, first = _climb(head, set(toks) | {head.i})
            if up is None:
                if allow_drop:
                    plan.drop = f"{why}: deleting {node.text!r} would leave {head.text!r} without its complement"
                    return
                continue
            (plan.first_conjuncts if first else plan.nodes)[up.i] = why
            changed = True
        if not changed:
            return


def _subtree_ids(sent, plan: _Plan) -> set[int]:
    ids: set[int] = set()
    for i in plan.nodes:
        ids.update(t.i for t in sent.doc[i].subtree)
    for i in plan.first_conjuncts:
        ids.update(_first_conjunct_ids(sent.doc[i]))
    return ids


def _first_conjunct_ids(node) -> set[int]:
    """The first conjunct's own words and the coordinator/commas up to the next conjunct."""
    conj = sorted((c for c in node.children if c.dep_ == "conj"), key=lambda c: c.i)
    keep = set()
    for c in conj:
        keep.update(t.i for t in c.subtree)
    if node.pos_ in ("VERB", "AUX"):
        # "X have hurled bombs and fired shots": the subject and auxiliaries before the verb are shared
        shared = {t.i for c in node.children if c.i < node.i for t in c.subtree}
        keep |= shared
    own = {t.i for t in node.subtree if t.i not in keep}
    first = conj[0]
    first_start = min(t.i for t in first.subtree)
    # coordinators and punctuation between the first conjunct and the next go too
    for t in node.subtree:
        if t.i < first_start and t.i > node.i and (t.dep_ in ("cc", "punct", "preconj")):
            own.add(t.i)
    # words of node's subtree after the first conjunct (e.g. a closing particle) stay
    return {i for i in own if i < first_start}


def _plan_tokens(sent, plan: _Plan) -> tuple[set[int], list[tuple[int, str]]]:
    """Token indices to delete for the plan's nodes, with the commas/coordinators that go with them, and token
    replacements (a coordinator moved in front of the last remaining conjunct)."""
    doc = sent.doc
    toks: set[int] = set()
    reps: list[tuple[int, str]] = []
    for i in plan.first_conjuncts:
        toks.update(_first_conjunct_ids(doc[i]))
    for i in sorted(plan.nodes):
        node = doc[i]
        if node.dep_ == "conj":
            _delete_conjunct(sent, node, toks, reps)
            continue
        sub = sorted(t.i for t in node.subtree)
        lo, hi = sub[0], sub[-1]
        if lo - 1 >= sent.start and doc[lo - 1].text == "(":
            # a bracket opened just before the subtree closes inside it: delete up to the bracket, keep what follows
            close = next((k for k in sub if doc[k].text == ")"), None)
            if close is not None and close < hi:
                sub = [k for k in sub if k <= close]
                hi = close
        toks.update(sub)
        # paired punctuation around the subtree: ", X," "(X)" "— X —"
        left = doc[lo - 1] if lo - 1 >= sent.start else None
        right = doc[hi + 1] if hi + 1 < sent.end else None
        pairs = {",": ",", "(": ")", "—": "—", "–": "–", "-": "-"}
        if left is not None and left.text in pairs and right is not None and right.text == pairs[left.text]:
            toks.update({left.i, right.i})
        elif left is not None and left.text in ("(", "—", "–") and right is not None and right.text in (")", "—", "–"):
            toks.update({left.i, right.i})
        elif left is not None and left.text == "," and (right is None or right.is_punct and right.text in ".;:!?"):
            toks.add(left.i)
        elif right is not None and right.text == "," and (left is None or lo == sent.start):
            toks.add(right.i)
    if toks:
        _glued(sent, toks)
        _paired(sent, toks)
        # the sentence's closing punctuation stays with what is left of it
        k = sent.end - 1
        while k >= sent.start and doc[k].is_punct and doc[k].text in (".", "!", "?", "...", "…"):
            toks.discard(k)
            k -= 1
    return toks, reps


def _chain(node) -> list:
    """Every conjunct of the coordination `node` belongs to, in order (spaCy chains them: a → conj b → conj c)."""
    top = node
    while top.dep_ == "conj" and top.head.i != top.i:
        top = top.head
    out, todo = [], [top]
    while todo:
        n = todo.pop()
        out.append(n)
        todo.extend(c for c in n.children if c.dep_ == "conj")
    return sorted(out, key=lambda t: t.i)


def _own(node) -> list[int]:
    """A conjunct's own words: its subtree without the conjuncts (and their coordinators) chained to it."""
    drop = set()
    for c in node.children:
        if c.dep_ == "conj":
            drop.update(t.i for t in c.subtree)
    first_conj = min(drop, default=None)
    if first_conj is not None:
        drop.update(c.i for c in node.children
                    if c.dep_ in ("cc", "preconj", "punct") and node.i < c.i < first_conj)
    return sorted(t.i for t in node.subtree if t.i not in drop)


def _delete_conjunct(sent, node, toks: set[int], reps: list) -> None:
    """Delete a (non-first) conjunct with the coordinator or comma before it; when that was the list's last
    coordinator, the comma before the new last conjunct becomes it ("a, b and c" − c → "a and b")."""
    doc = sent.doc
    own = _own(node)
    toks.update(own)
    k = own[0] - 1
    cc = None
    while k >= sent.start and doc[k].dep_ in ("cc", "punct", "preconj") and doc[k].text not in (")", "]", '"', "''"):
        if doc[k].dep_ == "cc":
            cc = doc[k]
        toks.add(k)
        k -= 1
    if cc is None:
        return
    remaining = [c for c in _chain(node) if c.i not in toks]
    if len(remaining) < 2:
        return
    last = remaining[-1]
    start = min(_own(last))
    before = start - 1
    if before >= sent.start and doc[before].text == "," and before not in toks:
        reps.append((before, " " + cc.text))


_GLUE = {"-", "–", "/"}
_OPEN = {"``": "''", "“": "”", "‘": "’", "(": ")", "[": "]"}


def _glued(sent, toks: set[int]) -> None:
    """A hyphenated or slashed word ("re-signed", "2-0", "super-bantamweight") goes whole or not at all."""
    groups: list[list] = []
    for t in sent:
        prev = sent.doc[t.i - 1] if t.i > sent.start else None
        if prev is not None and prev.whitespace_ == "" and (prev.text in _GLUE or t.text in _GLUE) and groups:
            groups[-1].append(t)
        else:
            groups.append([t])
    for g in groups:
        if len(g) > 1 and any(t.i in toks for t in g if _is_word(t)):
            toks.update(t.i for t in g)


def _paired(sent, toks: set[int]) -> None:
    """A quote or bracket whose partner was deleted goes too."""
    stack: list = []
    for t in sent:
        if t.text in _OPEN:
            stack.append(t)
        elif t.text == '"':
            if stack and stack[-1].text == '"':
                _pair(stack.pop(), t, toks)
            else:
                stack.append(t)
        elif stack and _OPEN.get(stack[-1].text) == t.text:
            _pair(stack.pop(), t, toks)


def _pair(a, b, toks: set[int]) -> None:
    if (a.i in toks) != (b.i in toks):
        toks.update({a.i, b.i})


def _runs(ids: list[int]) -> list[list[int]]:
    runs: list[list[int]] = []
    for i in ids:
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def _merge(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(b, out[-1][1]))
        else:
            out.append((a, b))
    return out


def _anchor(doc, cpos: int):
    """The word a mark at cleaned position cpos attaches to: the closest one before it."""
    best = None
    for t in doc:
        if t.idx + len(t.text) <= cpos and _is_word(t):
            best = t
        elif t.idx >= cpos:
            break
    return best


def _mark_ids(raw: str) -> list[str]:
    ids: list[str] = []
    for inner in re.findall(r"\[([^\]]*)\]", raw):
        for part in inner.split(","):
            part = part.strip()
            m = re.match(r"^(\d+)\s*[-–]\s*(\d+)$", part)
            if m and int(m.group(2)) >= int(m.group(1)) and int(m.group(2)) - int(m.group(1)) < 100:
                ids += [str(k) for k in range(int(m.group(1)), int(m.group(2)) + 1)]
            elif part.isdigit():
                ids.append(part)
    return list(dict.fromkeys(ids))


def _mark_run_for(tx: _Text, unit: Unit | None, cited: list[str], sid: str) -> int | None:
    """The mark run that cites `sid` for this unit: the first one holding sid at or after the unit's start."""
    cands = [k for k, (a, b, _) in enumerate(tx.marks) if sid in _mark_ids(tx.original[a:b])]
    if not cands:
        return None
    if unit is not None and unit.has_span:
        after = [k for k in cands if tx.marks[k][0] >= unit.start - 1]
        if after:
            return after[0]
    return cands[0]


def _vocabulary(nlp, case: Case) -> set[str]:
    vocab: set[str] = set()
    for doc in nlp.pipe([s.text for s in case.sources], batch_size=8):
        for t in doc:
            vocab.add(t.lower_)
            vocab.add(t.lemma_.lower())
            vocab.add(_stem(t.text))
    return vocab


def _known(t, vocab: set[str]) -> bool:
    return t.lower_ in vocab or t.lemma_.lower() in vocab or _stem(t.text) in vocab


# --- applying the edits --------------------------------------------------------------------------------------------


def _apply(text: str, ranges: list[tuple[int, int]], replacements: list[tuple[int, int, str]]) -> str:
    """Delete the ranges and make the replacements, mending punctuation, spacing and capitals at each cut only."""
    edits = [(a, b, "") for a, b in ranges] + [r for r in replacements if not any(a <= r[0] and r[1] <= b for a, b in ranges)]
    edits.sort()
    out = ""
    pos = 0
    for a, b, rep in edits:
        if a < pos:
            continue
        out += text[pos:a]
        if rep:
            out = out.rstrip(" \t") + rep if rep.startswith(" ") else out + rep
            pos = b
            continue
        # deletion: mend the junction
        nxt_edit = next((e for e in edits if e[0] >= b), None)
        stop = nxt_edit[0] if nxt_edit else len(text)
        right = text[b:stop]
        if not right and nxt_edit is not None:
            pos = b  # the next edit starts here: mend the junction after it
            continue
        cut = text[a:b].lstrip(" \t,;:")
        out, right = _join(out, right, capitalise=bool(cut[:1].isupper()))
        out += right
        pos = stop
    out += text[pos:]
    return out


_SENT_END = re.compile(r"[.!?][\"”’')\]]*\s*$")


def _join(left: str, right: str, *, capitalise: bool = True) -> tuple[str, str]:
    l = left.rstrip(" \t")
    r = right.lstrip(" \t")
    for _ in range(6):
        changed = False
        if l and l[-1] in ",;:—–" and (not r or r[0] in ",.;:!?)\n"):
            l, changed = l[:-1].rstrip(" \t"), True
        if r and r[0] in ",;:" and (not l.strip() or _SENT_END.search(l) or l.endswith(("\n", "(", "—", "–"))):
            r, changed = r[1:].lstrip(" \t"), True
        if l.endswith("(") and r.startswith(")"):
            l, r, changed = l[:-1].rstrip(" \t"), r[1:].lstrip(" \t"), True
        m = re.search(r"(?:^|\s)(and|or|but|nor|while|whereas|which|who|that)$", l)
        if m and (not r or r[0] in ".;:!?,)\n"):
            l, changed = l[: m.start()].rstrip(" \t"), True
        m = re.match(r"(and|or|but|nor)\b\s*", r)
        if m and (not l.strip() or _SENT_END.search(l)):
            r, changed = r[m.end():], True
        if not changed:
            break
    if not l or l.endswith(("\n", "(", "“", "‘")) or not r or r[0] in ".,;:!?)]”’\n":
        sep = ""
    else:
        sep = " "
    if capitalise and r and r[0].islower() and (not l.strip() or _SENT_END.search(l) or l.endswith("\n")):
        r = r[0].upper() + r[1:]
    return l + sep, r


__all__ = ["OfflineReviser"]
