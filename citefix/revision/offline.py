"""The offline reviser: corrects what it can from the source, deletes the rest; it never writes a word that is in
neither the text nor the sources. No LLM, so the loop runs anywhere.

First, for each unit the feedback names as unsupported, citefix.revision.correct tries to put the source's value back
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
from typing import Any, Collection, cast

from citefix.models import Case, Evaluation, Unit, Verdict
from citefix.revision.feedback import Feedback
from citefix.revision.revise import Revision
from citefix.revision.subtree import (
    _KIND,
    _MARK_RUN,
    SELF_CHECK_DEPS,
    _anchor,
    _apply,
    _broken,
    _by_sentence,
    _clean,
    _climb,
    _distinctive,
    _has_words,
    _is_content,
    _is_word,
    _known,
    _mark_ids,
    _mark_run_for,
    _merge,
    _outermost,
    _Plan,
    _plan_tokens,
    _quantity,
    _runs,
    _settle,
    _stem,
    _Text,
    _vocabulary,
)


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
        covered: set[str] = set()
        # a flagged unit whose sentence stands in a source sentence as written, or with a few words left out (its
        # negations and numbers kept: the offline verifier's `stands_in_source`), is left alone: no edit can bring it
        # closer to the source
        standing = {u.id for u in feedback.units if _stands_in_source(feedback.verdicts.get(u.id))}
        edits += [{"unit": k, "kind": "kept", "text": "", "why": "its sentence stands in the source as written (a few "
                   "words left out at most): not changed"} for k in sorted(standing)]
        if feedback.units and self.correct:
            corrections, covered = self._corrections(case, tx, feedback, skip=standing)
            edits += [c.edit() for c in corrections]
        fixed = {c.unit for c in corrections} | covered
        # a unit flagged for words it shares with units being corrected (the offline verifier's `shared_from`) is
        # put right by their corrections
        fixed |= {u.id for u in feedback.units if _shared_only(feedback.verdicts.get(u.id), fixed)}
        if feedback.units:
            supported = [u for u in evaluation.units if (v := evaluation.verdict_for(u.id)) is not None and v.label == "supported"]
            for u in feedback.units:
                if u.id in fixed or u.id in standing:
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

    def _corrections(self, case: Case, tx: _Text, feedback: Feedback, skip: Collection[str] = ()) -> tuple[list, set[str]]:
        """The corrections planned, and the units whose name another unit's correction puts right."""
        from citefix.revision.correct import Corrector

        vocab = {w.lower() for w in re.findall(r"[A-Za-z]+", tx.original + "\n" + "\n".join(s.text for s in case.sources))}

        def to_orig(a: int, b: int) -> tuple[int, int]:
            return tx.orig_of[a], tx.orig_of[max(a, b - 1)] + 1

        corrector = Corrector(self.nlp)
        planned = corrector.plan(case, tx.doc, [u for u in feedback.units if u.id not in skip], feedback.verdicts,
                                 to_orig, lambda w: w.lower() in vocab)
        return planned, corrector.covered

    # --- planning: flagged units -------------------------------------------------------------------------------------

    def _plan_unit(self, tx: _Text, u: Unit, v: Verdict | None, supported: list[Unit], plans, edits, *,
                   allow_drop: bool = True) -> None:
        if not u.has_span:
            edits.append({"unit": u.id, "kind": "skipped", "text": "", "why": u.note or "the unit has no span in the text"})
            return
        lo, hi = (tx.clean_at[max(0, min(cast(int, u.start), len(tx.original)))],  # has_span: start and end are set
                  tx.clean_at[max(0, min(cast(int, u.end), len(tx.original)))])
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
                # the passage the verifier found supporting it, else the one holding nearly all its words
                better = next(iter(issue.supported_by), None) or self._supporting_passage(
                    case, issue.claim, exclude=set(issue.cited))
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
            edit: dict[str, Any] = {"kind": "citation", "text": raw.strip(), "new": "".join(f"[{i}]" for i in keep),
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


__all__ = ["OfflineReviser"]


def _stands_in_source(v: Verdict | None) -> bool:
    """Did the offline verifier find the unit's sentence standing in one source sentence (word for word or with a few
    words left out, negations and numbers kept)?"""
    return bool(v is not None and v.label != "supported" and (v.details or {}).get("stands_in_source"))


def _shared_only(v: Verdict | None, fixed: Collection[str]) -> bool:
    """Whether a verdict's findings all come from words it shares with units in `fixed` (none of its own)."""
    d = (v.details or {}) if v is not None else {}
    shared = d.get("shared_from") or []
    return bool(shared) and not d.get("conflicts") and not d.get("missing") and set(shared) <= set(fixed)
