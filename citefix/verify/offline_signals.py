"""The offline verifier's per-unit signals: similarity and the evidence, lexical coverage (numbers, dates, names,
content words, negation), MiniLM token alignment against the whole source and against the evidence region, and the
local checks in that region (values, polarity, roles; citefix.verify.local).

``UnitSignals`` is a mixin of ``citefix.verify.offline.OfflineVerifier`` (it uses the verifier's ``params``, ``encoder``,
``nlp`` and ``idf``)."""

from __future__ import annotations

import math
import re
import threading
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Sequence

from citefix.lexicon import ENTITY_LABELS, MONTHS, NAME_KINDS, WEEKDAYS
from citefix.models import Case, Unit
from citefix.verify.certainty import surer_than_source, wider_than_source
from citefix.verify.lexical import (
    APPROXIMATORS,
    common_word,
    currency_conflict,
    find_numbers,
    negations,
    number_supported,
)
from citefix.verify.local import (
    focus_ranges,
    in_focus,
    name_slot,
    polarity_mismatches,
    region_words,
    role_swaps,
    value_conflicts,
)
from citefix.verify.names import name_said_in_slot, name_substitutions, value_substitutions
from citefix.verify.negation import word_pauses
from citefix.verify.offline_sources import Host, _Pool
from citefix.verify.pairs import frames_report, invented_pair_share
from citefix.verify.predicates import antonym_predicates
from citefix.verify.predication import parsed_words
from citefix.verify.regions import RegionFinder, hedged_where_cut, in_host, located_evidence, value_evidence
from citefix.verify.slots import speaker_conflicts
from citefix.verify.source_search import anchored_test, copied, one_bearer, polarity_elsewhere, said_with_name
from citefix.verify.synonyms import said_otherwise
from citefix.verify.times import canonical_step, date_words, time_phrases, time_steps

# a unit this many words long or longer that stands word for word in a source is not contradicted in polarity or roles
VERBATIM_WORDS = 4
_CONTENT_POS = {"NOUN", "VERB", "ADJ", "ADV", "PROPN"}


def _calendar_word(word: str) -> bool:
    """A month or weekday name ("June", "Nov"; not "may"): a date, which the date check reads in its canonical form
    ("June" / "Jun"), not a name."""
    return (word in MONTHS and word != "may") or word in WEEKDAYS


def _singular(t) -> str | None:
    """A plural proper noun's singular ("Olympics" → "olympic", "Democrats" → "democrat": the tagger's NNPS; spaCy
    leaves proper nouns unlemmatised), so that the source's "Olympic Games" holds the unit's "the Olympics"; None for
    any other word (a surname ending in -s, "Williams", is NNP and is not cut)."""
    return t.lower_[:-1] if t.tag_ == "NNPS" and t.lower_.endswith("s") and len(t.text) > 3 else None


def _opens(t) -> bool:
    """Does the token open a sentence, a line or what follows a colon: where a capital says nothing of a name
    ("Perform STA to …" after "Static Timing Analysis (STA):")."""
    if t.i == 0 or t.is_sent_start:
        return True
    prev = t.doc[t.i - 1]
    return prev.text[-1:] in (":", "-", "*", "\u2022") or "\n" in prev.text or "\n" in prev.whitespace_


_FUNCTION_WORDS = frozenset("a an the of and for on in to at by with from or".split())
_PAREN_ACRONYM = re.compile(r"((?:[A-Za-z]+[\s-]+){1,8})\(([A-Z]{2,6})s?\)")
_ACRONYM_PAREN = re.compile(r"\b([A-Z]{2,6})s?\s+\(([A-Za-z][A-Za-z\s-]*)\)")


def _spells(acronym: str, words: str, last: bool) -> bool:
    """Does `words` spell `acronym`: the last words before "(ACR)" when `last`, all of the words inside "ACR (…)"
    otherwise? By its initials (hyphens part words; function words may be left out), or, for "long form (ACR)" as
    Schwartz and Hearst (2003) match a definition, by the acronym's letters found in order in the last words, the
    first opening the first of them, no more words than min(len + 5, 2 × len) ("cardiothoracic ratio (CTR)",
    "deoxyribonucleic acid (DNA)"). Inside "ACR (…)" only initials count: "the US (usually)" defines nothing."""
    seq = [w for w in re.split(r"[\s-]+", words.strip().lower()) if w]
    acr = acronym.lower()
    for ws in (seq, [w for w in seq if w not in _FUNCTION_WORDS]):
        initials = "".join(w[0] for w in ws)
        if (initials.endswith(acr) if last else initials == acr):
            return True
    if not last:
        return False
    most = min(len(acr) + 5, 2 * len(acr))
    return any(_letters_in_order(acr, " ".join(seq[-n:])) for n in range(1, min(most, len(seq)) + 1))


def _letters_in_order(acr: str, long_form: str) -> bool:
    """The long form opens with the acronym's first letter and holds the rest of its letters in order."""
    if not long_form.startswith(acr[0]):
        return False
    k = 1
    for ch in long_form[1:]:
        if k < len(acr) and ch == acr[k]:
            k += 1
    return k == len(acr)


def defined_acronyms(text: str) -> set[str]:
    """Acronyms the text itself spells out ("interrupt-on-change (IOC)", "NGO (non-governmental organisation)"): their
    words are checked against the sources, the acronym is no name of its own."""
    out = {m.group(2) for m in _PAREN_ACRONYM.finditer(text) if _spells(m.group(2), m.group(1), last=True)}
    out |= {m.group(1) for m in _ACRONYM_PAREN.finditer(text) if _spells(m.group(1), m.group(2), last=False)}
    return out


class UnitSignals(RegionFinder):
    """Per-unit features (mixed into OfflineVerifier)."""

    # provided by OfflineVerifier (declarations for the type checker only)
    params: dict[str, Any]
    _lock: threading.Lock

    if TYPE_CHECKING:

        @property
        def nlp(self) -> Any: ...

        @property
        def idf(self) -> Any: ...

    def _unit_features(self, unit: Unit, case: Case, doc, tok, sent_emb, pool: _Pool) -> dict[str, Any]:
        p = self.params
        f: dict[str, Any] = {}
        # (c) similarity and evidence
        sims = (pool.win_emb @ sent_emb).tolist() if len(pool.win_owner) else []
        best, best_single = -1, -1
        for w, v in enumerate(sims):
            si, wi = pool.win_owner[w]
            if best < 0 or v > sims[best]:
                best = w
            if wi < pool.sources[si].n_pieces and (best_single < 0 or v > sims[best_single]):
                best_single = w
        evidence: dict[str, Any] | None = None
        sim_raw = 0.0
        if best >= 0:
            sim_raw = sims[best]
            pick = best_single if best_single >= 0 and sims[best_single] + p["window_margin"] >= sims[best] else best
            si, wi = pool.win_owner[pick]
            span = pool.sources[si].windows[wi]
            evidence = {"source_id": pool.ids[si], "start": span.start, "end": span.end, "text": span.text}
        f["similarity_raw"] = _finite(sim_raw)
        b = p["similarity"]["baseline"]
        f["similarity"] = _clip01((f["similarity_raw"] - b) / (1 - b))
        f["evidence"] = evidence
        focus = focus_ranges(unit)
        host = self._host(unit, case.text, pool)  # its sentence copied or compressed from one source sentence
        f["stands_in_source"] = bool(host and host.keeps_negations and host.keeps_numbers)  # (the offline reviser)
        regions, located = self._regions(unit, tok, pool, pick if best >= 0 else None, doc, host=host)
        if located is not None and len(regions) == 1:
            evidence = f["evidence"] = located_evidence(pool, located, evidence)
        f["_region_text"] = " ".join(pool.sources[r.source].text[r.start:r.end] for r in regions) if regions else (
            evidence["text"] if evidence else "")
        # (a) lexical, on the unit's own words; (d) the same elements against the evidence region
        lex = self._lexical(unit, doc, pool, evidence["text"] if evidence else "", focus, f["_region_text"])
        groups, content = lex.pop("_entity_groups"), lex.pop("_content")
        f.update(lex)
        f.update(self._local(unit, doc, pool, regions, focus, groups, content, host, case.text))
        f["copied"] = int(copied(doc, pool))
        # a figure the sources lack: shown with the source sentence giving a figure of its kind to the same thing
        f["evidence"] = value_evidence(unit.text, f.get("missing", []), pool, evidence) or f["evidence"]

        # (b) alignment, on the unit's own words: against the whole source, and against the evidence region
        if tok is not None and pool.tok_emb is not None and len(tok[0]) and len(pool.tok_emb):
            emb, offsets, ids = tok
            keep = [k for k, (a, e) in enumerate(offsets) if in_focus(a, e, focus)] or list(range(len(offsets)))
            emb, offsets, ids = emb[keep], [offsets[k] for k in keep], [ids[k] for k in keep]
            best_cos = (emb @ pool.tok_emb.T).max(dim=1).values.tolist()
            held = self._held(pool, regions, content)  # words the source says: aligned (synonyms.alignment)
            raw_cos, best_cos = best_cos, held(best_cos, offsets, pool)
            weights = self._weights(ids)
            tot = sum(weights)
            prec = sum(w * c for w, c in zip(weights, best_cos)) / tot if tot > 0 else 0.0
            f["alignment_raw"] = _finite(prec)
            ab = p["alignment"]["baseline"]
            f["alignment"] = _clip01((f["alignment_raw"] - ab) / (1 - ab))
            mask = self._region_mask(pool, regions)
            if mask is not None and bool(mask.any()):
                raw_loc = (emb @ pool.tok_emb[mask].T).max(dim=1).values.tolist()
                loc_cos = held(raw_loc, offsets, None)
                lprec = sum(w * c for w, c in zip(weights, loc_cos)) / tot if tot > 0 else 0.0
            else:
                raw_loc, loc_cos, lprec = raw_cos, best_cos, prec
            f["local_alignment_raw"] = _finite(lprec)
            f["local_alignment"] = _clip01((f["local_alignment_raw"] - ab) / (1 - ab))
            # the words shown and cut as unsupported: by their own cosines (a word the evidence holds in another
            # sense, "wanted" of a warrant, still aligns poorly; the floor is for the score only)
            f["low_tokens"] = self._low_words(unit.text, offsets, raw_loc, weights)
            invented = self._invented_words(content, offsets, raw_cos, pool)
        else:
            f["alignment_raw"] = f["local_alignment_raw"] = 0.0
            f["alignment"] = f["local_alignment"] = 0.0
            f["low_tokens"] = []
            invented = []
        f["invented_words"], f["atomic"] = len(invented), unit.kind in ("acu", "clause")
        f["attribute"] = (unit.meta or {}).get("clause") in ("appos", "relcl") or (unit.meta or {}).get("role") == "attribute"
        # a clause's core: its share of invented words is counted against the whole clause (the decomposer's count)
        f["clause_words"] = int((unit.meta or {}).get("clause_words") or 0)
        f["invented"] = [{"kind": "word", "text": t.text, "start": t.idx, "end": t.idx + len(t.text)} for t in invented]
        f["invented_pairs"] = invented_pair_share(doc, [t.idx for t in invented])  # pairs found nowhere (.pairs)
        return f

    def _invented_words(self, content: list, offsets, best_cos: list[float], pool: _Pool) -> list:
        """Content words of the focus that the source holds neither as a word or lemma nor as a near meaning: not as a
        WordNet synonym ("rest" for "remainder"; `synonyms.invented`), and every word piece of the word aligns below the
        token threshold to every source token (a paraphrase such as "start" for "begin" aligns; "chairs" where no
        source token is near it does not)."""
        th = self.params["alignment"]["token_threshold"]
        synonyms = bool(self.params.get("synonyms", {}).get("invented", True))
        frames = bool(self.params.get("local", {}).get("report_frames", True))
        out = []
        for t in content:
            if self._known(t, pool) or (synonyms and said_otherwise(t, pool)) or (frames and frames_report(t)):
                continue
            a, b = t.idx, t.idx + len(t.text)
            cs = [c for (s, e), c in zip(offsets, best_cos) if e > s and s < b and e > a]
            if cs and max(cs) < th:
                out.append(t)
        return out

    def _local(self, unit: Unit, doc, pool: _Pool, regions: list[Any], focus, groups: list, content: list,
               host: Host | None = None, case_text: str = "") -> dict[str, Any]:
        """(d) Elements of the unit's focus that the source holds, but not in the evidence region; verbs whose
        polarity or roles the region contradicts."""
        if not regions:
            return {"misplaced": [], "misplaced_numbers": 0, "misplaced_dates": 0, "misplaced_entities": 0.0,
                    "misplaced_word_frac": 0.0, "polarity_mismatch": 0, **dict.fromkeys(POLARITY_READINGS, 0),
                    "role_swap": 0, "value_conflict": 0, "name_substitution": 0, "structure": []}
        seq: list[tuple[int, str, str]] = []
        # indices of seq with punctuation before them → whether it ends a sentence (each region starts one)
        pauses: dict[int, bool] = {}
        texts: list[str] = []
        places: list[tuple[int, int]] = []  # each word of seq: (its region, its offset in the region's text)
        for r in regions:
            src = pool.sources[r.source]
            got = region_words(src.words_at, r.start, r.end)
            places += [(len(texts), at - r.start) for at, _, _ in got]
            pauses.update({len(seq) + i: end for i, end in word_pauses(got, src.text).items()})
            pauses[len(seq)] = True
            seq += got
            texts.append(src.text[r.start : r.end])
        words = {w for _, w, _ in seq}
        lemmas = {lem for _, _, lem in seq}
        region_text = "\n".join(texts)
        numbers = [n.value for n in find_numbers(region_text)]
        dates = {d for d, _, _ in date_words(region_text)}
        text = unit.text
        out: list[dict[str, Any]] = []
        n_num = n_date = 0
        pinned = in_host(unit.text, pool, host)
        near = anchored_test(doc, pool)
        anchored = lambda a, b: pinned(a, b) or near(a, b)  # noqa: E731
        for n in find_numbers(text):
            if n.soft or not in_focus(n.start, n.end, focus):
                continue
            if number_supported(n, pool.numbers) and not number_supported(n, numbers) and not anchored(n.start, n.end):
                n_num += 1
                out.append({"kind": "number", "text": n.text, "start": n.start, "end": n.end})
        region_lower = " ".join(region_text.lower().split())
        for d, a, b in _times(unit, focus):
            if d in pool.lower_text() and d not in region_lower and not anchored(a, b):
                n_date += 1
                out.append({"kind": "date", "text": text[a:b], "start": a, "end": b})
        for d, a, b in date_words(text):
            if in_focus(a, b, focus) and d in pool.dates and d not in dates and not anchored(a, b):
                n_date += 1
                out.append({"kind": "date", "text": text[a:b], "start": a, "end": b})
        known_loc = lambda t: (t.lower_ in words or t.lemma_.lower() in lemmas or t.lower_ in lemmas  # noqa: E731
                               or _singular(t) in words)
        n_ent = 0.0
        for g in groups:
            here = [known_loc(t) for t in g]
            glob = [self._known(t, pool) for t in g]
            frac = sum(1 for h, k in zip(here, glob) if k and not h) / len(g)
            if frac > 0 and anchored(g[0].idx, g[-1].idx + len(g[-1].text)):
                frac = 0.0
            if frac > 0:
                n_ent += frac
                s_, e_ = g[0].idx, g[-1].idx + len(g[-1].text)
                out.append({"kind": "entity", "text": text[s_:e_], "start": s_, "end": e_, "weight": round(frac, 3)})
        misplaced_words = [t for t in content if self._known(t, pool) and not known_loc(t)]
        for t in misplaced_words:
            out.append({"kind": "word", "text": t.text, "start": t.idx, "end": t.idx + len(t.text)})
        structure, n_pol, swaps, conflicts, subs = self._structure(unit, doc, pool, focus, (seq, pauses), texts,
                                                                   anchored, pinned, bool(host and host.keeps_negations),
                                                                   case_text, places)
        return {
            "misplaced": out,
            "misplaced_numbers": n_num,
            "misplaced_dates": n_date,
            "misplaced_entities": round(n_ent, 4),
            "misplaced_word_frac": round(len(misplaced_words) / len(content), 4) if content else 0.0,
            "polarity_mismatch": n_pol,
            # the polarity finding by its reading, each counted apart (so that each can be weighed on its own)
            **{k: sum(1 for c in structure if c.get("kind") == kind) for k, kind in POLARITY_READINGS.items()},
            "role_swap": len(swaps),
            "value_conflict": len(conflicts),
            "name_substitution": len(subs),
            "structure": structure,
        }

    def _structure(self, unit: Unit, doc, pool: _Pool, focus, seq_pauses: tuple[list[tuple[int, str, str]], dict[int, bool]],
                   texts: list[str],
                   anchored, pinned, kept_negations: bool = False, case_text: str = "",
                   places: Sequence[tuple[int, int]] = ()) -> tuple[list[dict[str, Any]], int, list[dict[str, Any]], list[dict[str, Any]],
                                      list[dict[str, Any]]]:
        """What the evidence region contradicts: verb polarity, roles, values on the same word, names in a copy.
        Returns (all of them, the polarity count, role swaps, value conflicts, name substitutions)."""
        # a verb the source states elsewhere with the unit's polarity and the unit's other words ("children … live and
        # learn" when the region's "aren't ready to learn" is another sentence) is not contradicted by this region
        align = (unit.meta or {}).get("align")
        seq, pauses = seq_pauses
        # words the source says word for word, negation and all ("they were not threatening"), are neither negated
        # nor turned round by another sentence the region happens to hold ("None of the tweets … are … threatening")
        verbatim = copied(doc, pool, min_words=VERBATIM_WORDS)
        # nor is a unit cut from a text sentence that copies or compresses one source sentence keeping all its
        # negations (RegionFinder._host): every "not" of the text is that sentence's, and none of its was left out
        same_polarity = verbatim or kept_negations
        rdocs = self._parse_regions(texts)
        local = self.params.get("local", {})
        # a verb's occurrences matched by their predication on the region's parse (citefix.verify.predication)
        on_parse = local.get("predication", True) and places and len(rdocs) == len(texts)
        parsed = parsed_words(rdocs, places) if on_parse else None
        structure = [c for c in polarity_mismatches(doc, focus, seq, align, pauses, parsed)
                     if not polarity_elsewhere(doc, c, pool, self._parse_regions if parsed is not None else None)
                     ] if not same_polarity else []
        n_pol = len(structure)
        # a predicate whose antonym the region says of the same subject, unless some source sentence states the
        # unit's own word with its other content words (the same guard as polarity)
        opposed = [c for c in antonym_predicates(doc, focus, rdocs, align, cross=local.get("cross_antonyms", False))
                   if not polarity_elsewhere(doc, c, pool)] if local.get("antonyms", True) and not same_polarity else []
        structure += opposed
        n_pol += len(opposed)
        # a hedged predicate stated as certain, a part stated as the whole (citefix.verify.certainty)
        # (not where the text the unit was cut from hedges the verb: the cut may have left the hedge behind)
        surer = [c for c in surer_than_source(doc, focus, rdocs) + wider_than_source(doc, focus, rdocs)
                 if not hedged_where_cut(unit, c, case_text)] if not same_polarity else []
        structure += surer
        n_pol += len(surer)
        swaps = role_swaps(doc, focus, rdocs) if self.params.get("local", {}).get("roles", True) and not verbatim else []
        structure += swaps
        # a value the source states on the same word elsewhere (an age, a figure or a name the summary gathered from
        # another sentence), or in a unit the source says word for word, is not contradicted by this region; nor is a
        # value whose words the decomposer took from two places ("at the age [of 15] in 2001")
        # a number or date put where the region sentence, copied word for word around it, has another counts too
        # (names.value_substitutions: the copy pins the slot where the parse hangs the two on different words),
        # unless a source sentence says the unit's words with its value
        def stands(c: dict[str, Any]) -> bool:  # not excused, and taken from one place
            # a name is excused only where a source sentence says it in the unit's slot, not anywhere near its word
            said = (name_said_in_slot(doc, c, pool.sentences(), self._parse_regions) or one_bearer(c, pool, self._parse_regions)
                    if c.get("value_kind") in NAME_KINDS else anchored(c["start"], c["end"]))
            return not said and (not align or any(r[0] <= c["start"] and c["end"] <= r[1] for r in align))

        conflicts = [c for c in value_conflicts(doc, focus, rdocs) if stands(c)] if not verbatim else []
        found = {c["start"] for c in conflicts}
        # a speech the region gives to another named speaker (citefix.verify.slots; `local.speakers`)
        if self.params.get("local", {}).get("speakers", True) and not verbatim:
            conflicts += [c for c in speaker_conflicts(doc, focus, rdocs, pool.sentences(), name_slot)
                          if c["start"] not in found]
            found = {c["start"] for c in conflicts}
        conflicts += [c for c in value_substitutions(doc, focus, rdocs) if c["start"] not in found and stands(c)
                      and not said_with_name(doc, c, pool)] if not verbatim else []
        structure += conflicts
        # a name in a word-for-word copy of a region sentence where that sentence has another name: the copy pins
        # the slot, so a sentence elsewhere holding the name on the same word does not excuse it
        taken = {c["start"] for c in conflicts}
        subs = [c for c in name_substitutions(doc, focus, rdocs, known=pool.capitalised())
                if c["start"] not in taken and not said_with_name(doc, c, pool) and not pinned(c["start"], c["end"])
                and not one_bearer(c, pool, self._parse_regions)]
        structure += subs
        return structure, n_pol, swaps, conflicts, subs

    def _parse_regions(self, texts: list[str]) -> list[Any]:
        """Parsed region texts (dependency parse for role checks), cached by text."""
        out = []
        with self._lock:
            cache = self.__dict__.setdefault("_region_docs", OrderedDict())
        todo = [t for t in dict.fromkeys(texts) if t not in cache]
        if todo:
            docs = list(self.nlp.pipe(todo, batch_size=16))
            with self._lock:
                for t, d in zip(todo, docs):
                    cache[t] = d
                while len(cache) > 512:
                    cache.popitem(last=False)
        with self._lock:
            for t in texts:
                out.append(cache.get(t))
        return [d for d in out if d is not None]

    def _low_words(self, text: str, offsets, best_cos: list[float], weights: list[float]) -> list[dict[str, Any]]:
        """Words of the unit whose word pieces align poorly with every source token."""
        p = self.params["alignment"]
        words: list[list[Any]] = []  # [start, end, [cos], [weights]]
        for (s, e), c, w in zip(offsets, best_cos, weights):
            if e <= s:
                continue
            if words and s == words[-1][1]:
                words[-1][1] = e
                words[-1][2].append(c)
                words[-1][3].append(w)
            else:
                words.append([s, e, [c], [w]])
        out = []
        for s, e, cs, ws in words:
            cos = sum(cs) / len(cs)
            if cos < p["token_threshold"] and max(ws) >= p["min_idf"] and any(ch.isalnum() for ch in text[s:e]):
                out.append({"start": s, "end": e, "text": text[s:e], "cos": round(cos, 4)})
        return out

    def _lexical(self, unit: Unit, doc, pool: _Pool, evidence_text: str,
                 focus: list[tuple[int, int]] | None = None, region_text: str | None = None) -> dict[str, Any]:
        w = self.params["lexical"]
        text = unit.text
        focus = focus or [(0, len(text))]
        missing: list[dict[str, Any]] = []
        # numbers
        found = find_numbers(text)
        nums = [n for n in found if not n.soft and in_focus(n.start, n.end, focus)]
        # an amount in another currency is not the amount
        miss_num = [n for n in nums if not pool.holds_number(n, text) or currency_conflict(n, text, pool.money)]
        missing += [{"kind": "number", "text": n.text, "start": n.start, "end": n.end} for n in miss_num]
        num_spans = [(n.start, n.end) for n in nums]
        # dates (month / weekday names)
        dates = [d for d in date_words(text) if in_focus(d[1], d[2], focus)]
        miss_date = [d for d in dates if d[0] not in pool.dates]
        # relative times ("last week", "three weeks ago"): the phrase itself must be in the source
        times = _times(unit, focus)
        if times:
            src_lower = pool.lower_text()
            # … or the same step from now written otherwise ("compared to last year" / "versus … a year ago")
            steps = pool.time_steps()
            miss_date += [x for x in times if x[0] not in src_lower
                          and not {canonical_step(n, u) for n, u, _, _ in time_steps(x[0])} & steps]
            dates += times
        missing += [{"kind": "date", "text": text[s:e], "start": s, "end": e} for _, s, e in miss_date]
        ent_tokens, ent_groups, n_ent, ent_missing = self._entities(doc, pool, text, focus, num_spans, missing)
        # content words
        content = [
            t
            for t in doc
            if t.pos_ in _CONTENT_POS and t.is_alpha and not t.is_stop and t.i not in ent_tokens and len(t.text) > 1
            and t.lower_ not in _DATE_WORDS and t.lower_ not in APPROXIMATORS and in_focus(t.idx, t.idx + len(t.text), focus)
            and not any(n.start <= t.idx < n.end for n in found)  # "quarter" of "a quarter of", "decades": a value's
        ]
        syn = self.params.get("synonyms", {}).get("lexical", True)  # a word the sources say otherwise is not missing
        miss_words = [t for t in content if not self._known(t, pool) and not (syn and said_otherwise(t, pool))]
        word_frac = len(miss_words) / len(content) if content else 0.0
        # negation: a cue in the unit and none in the evidence, or the other way round
        neg_u = negations(" ".join(text[a:b] for a, b in focus)) > 0
        neg_s = negations(evidence_text) > 0 if evidence_text else False
        # a negation of the unit's own is looked for in the regions its sentences align to, each of which may hold it
        neg_r = negations(region_text) > 0 if region_text else neg_s
        feats: dict[str, Any] = {
            "n_numbers": len(nums),
            "missing_numbers": len(miss_num),
            "n_dates": len(dates),
            "missing_dates": len(miss_date),
            "n_entities": n_ent,
            "missing_entities": round(ent_missing, 4),
            "n_words": len(content),
            "missing_word_frac": round(word_frac, 4),
            "neg_unit_only": int(neg_u and not neg_r),
            "neg_source_only": int(neg_s and not neg_u),
        }
        feats["lexical_log"] = -(
            w["number"] * feats["missing_numbers"]
            + w["date"] * feats["missing_dates"]
            + w["entity"] * feats["missing_entities"]
            + w["word"] * feats["missing_word_frac"]
            + w["neg_unit"] * feats["neg_unit_only"]
            + w["neg_source"] * feats["neg_source_only"]
        )
        feats["lexical"] = _clip01(math.exp(max(-30.0, feats["lexical_log"])))
        feats["missing"] = missing
        feats["missing_words"] = [{"text": t.text, "start": t.idx, "end": t.idx + len(t.text)} for t in miss_words]
        feats["_entity_groups"] = ent_groups  # for the local checks; popped there
        feats["_content"] = content
        return feats

    def _entities(self, doc, pool: _Pool, text: str, focus: list[tuple[int, int]], num_spans: list[tuple[int, int]],
                  missing: list[dict[str, Any]]) -> tuple[set[int], list[list[Any]], int, float]:
        """Named entities of the unit's focus (and proper nouns the NER missed): the tokens they cover, their word
        groups, how many, and the summed share of their words the source lacks (each missing one appended to
        `missing`)."""
        ent_tokens: set[int] = set()
        ent_missing = 0.0
        # a word is a name's when the tagger and the entity recogniser both say so, or when one does and WordNet does
        # not know it as a common word only: "Develop" opening a list item (an ORG to the recogniser, a verb to the
        # tagger) and "cinema" in a lower-cased summary (a proper noun to the tagger) are checked as words; an acronym
        # the unit spells out ("interrupt-on-change (IOC)") is checked through its words.
        # The unit's own letter case: a word written in lower case where the unit writes names with capitals (a
        # capital inside a sentence) is none ("diabetes mellitus"); in a lower-cased summary ("Ben stokes clashed …
        # in jamaica", capitals only opening sentences) any word may be.
        cased = any(any(c.isupper() for c in t.text) and not _opens(t) for t in doc)
        spelt = defined_acronyms(text)

        def name_word(t, tagged: bool) -> bool:
            return ((tagged and not _opens(t) or not common_word(t.text)) and t.text.rstrip("s") not in spelt
                    and (not cased or any(c.isupper() for c in t.text)) and not _calendar_word(t.lower_))

        groups = [[t for t in e if name_word(t, t.pos_ == "PROPN")] for e in doc.ents if e.label_ in ENTITY_LABELS]
        groups = [g for g in groups if g]
        for g in groups:
            ent_tokens.update(t.i for t in g)
        for t in doc:
            if t.pos_ == "PROPN" and t.i not in ent_tokens and t.is_alpha and name_word(t, False):
                groups.append([t])
                ent_tokens.add(t.i)
        n_ent = 0
        ent_groups = []
        for g in groups:
            toks = [t for t in g if t.is_alpha and not t.is_stop and len(t.text) > 1]
            toks = [t for t in toks if not any(a <= t.idx < b for a, b in num_spans)]
            toks = [t for t in toks if in_focus(t.idx, t.idx + len(t.text), focus)]
            if not toks:
                continue
            ent_groups.append(toks)
            n_ent += 1
            found = [self._known(t, pool) or _spelt_out(t.text, pool) for t in toks]
            frac_missing = 1 - sum(found) / len(found)
            if frac_missing > 0:
                ent_missing += frac_missing
                s, e = g[0].idx, g[-1].idx + len(g[-1].text)
                missing.append({"kind": "entity", "text": text[s:e], "start": s, "end": e, "weight": round(frac_missing, 3)})
        return ent_tokens, ent_groups, n_ent, ent_missing

    @staticmethod
    def _known(t, pool: _Pool) -> bool:
        # an abbreviation the source writes with its full stop ("St." / "st", the unit's tokenizer split the stop off)
        return (t.lower_ in pool.words or t.lemma_.lower() in pool.lemmas or t.lower_ in pool.lemmas
                or t.lower_ + "." in pool.words or _singular(t) in pool.words)

    # --- verdicts --------------------------------------------------------------------------------------------------


_FEATURE_KEYS = (
    "n_numbers", "missing_numbers", "n_dates", "missing_dates", "n_entities", "missing_entities", "n_words",
    "missing_word_frac", "neg_unit_only", "neg_source_only", "lexical_log",
)
# the polarity finding's readings, counted apart (raw key → structure kind): a negation, an antonym, a hedge or part
POLARITY_READINGS = {"polarity_negation": "polarity", "polarity_antonym": "antonym", "polarity_certainty": "certainty"}
_LOCAL_KEYS = ("misplaced_numbers", "misplaced_dates", "misplaced_entities", "misplaced_word_frac",
               "polarity_mismatch", *POLARITY_READINGS, "role_swap", "value_conflict", "invented_words",
               "name_substitution", "copied")
_DATE_WORDS = set(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday".split()
)


def _spelt_out(word: str, pool: _Pool) -> bool:
    """Is a name word of three to six letters, not all lower case, the initials of words the sources write in a row
    ("YoY" / "year-over-year", "EPS" / "earnings per share")? Then the sources name it in full."""
    if not (3 <= len(word) <= 6 and word.isalpha() and not word.islower()):
        return False
    pattern = r"[\s-]+".join(re.escape(c) + r"[a-z']*" for c in word.lower())
    return re.search(r"\b" + pattern + r"\b", pool.lower_text()) is not None


def _times(unit: Unit, focus) -> list[tuple[str, int, int]]:
    """The relative times of the unit's focus ("last week", "three weeks ago") whose words stand together in the text
    the unit was cut from (one run of its meta["align"]): "eight years [with the Argentine side] before leaving" has
    no phrase "eight years before". Not "the next year", "the previous day": a time counted from one the text itself
    names ("married in 2012, and their son was born the next year"), which no phrase of the source need repeat."""
    align = (unit.meta or {}).get("align")
    return [(d, a, b) for d, a, b in time_phrases(unit.text) if in_focus(a, b, focus)
            and (not align or any(r[0] <= a and b <= r[1] for r in align))
            and not _anaphoric(unit.text, a)]


def _anaphoric(text: str, a: int) -> bool:
    """Is the relative time at `a` counted from a time the text names: "the following week", "born the next year";
    not "within the next month", "over the next year" (counted from now)?"""
    before, word = text[max(0, a - 16):a].lower(), text[a:a + 10].lower()
    if not re.search(r"\bthe\s+$", before):
        return False
    if word.startswith(("following", "previous", "preceding")):
        return True
    return word.startswith("next") and not re.search(r"\b(?:within|over|in|during|for)\s+the\s+$", before)


def _finite(x: float) -> float:
    return float(x) if math.isfinite(x) else 0.0


def _clip01(x: float) -> float:
    x = _finite(x)
    return 0.0 if x < 0 else 1.0 if x > 1 else x
