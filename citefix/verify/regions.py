"""Where a unit's evidence lies in its sources: the sentence piece its words align to best (its names, numbers and
dates left out), or the piece that holds it word for word, widened into the evidence region(s) that the local checks
read (citefix.verify.local). ``RegionFinder`` is mixed into ``citefix.verify.offline_signals.UnitSignals``."""

from __future__ import annotations

import bisect
import re
from typing import TYPE_CHECKING, Any, Callable

from citefix.chunking import split_sentences
from citefix.decompose.align import content_tokens
from citefix.lexicon import ENTITY_LABELS
from citefix.models import Case, Unit
from citefix.verify.certainty import clause_start, hedged_in_text
from citefix.verify.lexical import Number, currency, find_numbers
from citefix.verify.local import focus_ranges, in_focus, region_words, widen
from citefix.verify.offline_sources import Host, _Pool
from citefix.verify.source_search import bag_host, compression_at, copy_at, copy_host
from citefix.verify.synonyms import Bag, floor_held, said_otherwise, source_phrases
from citefix.verify.times import date_words


class RegionFinder:
    """The evidence region of a unit (mixed into UnitSignals, which OfflineVerifier mixes in)."""

    params: dict[str, Any]

    if TYPE_CHECKING:

        @property
        def idf(self) -> Any: ...

        @property
        def nlp(self) -> Any: ...

    def _host(self, unit: Unit, text: str, pool: _Pool) -> Host | None:
        """Where the sentence of the checked text that holds the unit stands in a source, word for word or as a
        compression (``compression_at``: its words in order inside one source sentence, a stretch or two left out),
        or else by its words in any order (``bag_host``: one source sentence holds nearly all of them; it locates
        only): a ``Host``, or None. Every unit cut from such a sentence ("Smith is 26" from "Smith, 26, already leads
        …") has its evidence there, wherever its own few words align best, and (for a copy or a compression) the
        names, numbers and dates it shares with that sentence are the source's own there."""
        if unit.start is None or unit.end is None or not text:
            return None
        sents = self._text_sentences(text)
        k = bisect.bisect_right([sp.start for sp in sents], unit.start) - 1
        if k < 0 or unit.end > sents[k].end:
            return None  # a unit of several sentences
        sentence = text[sents[k].start:sents[k].end]
        if sentence not in pool.host_copies:  # once per sentence, not once per unit cut from it
            doc = self.nlp.tokenizer(sentence)
            pool.host_copies[sentence] = copy_host(doc, pool) or compression_at(doc, pool) or bag_host(doc, pool)
        return pool.host_copies[sentence]

    def setting(self, unit: Unit, case: Case) -> str:
        """The stretch of the checked text that a unit's verdict alone reads beyond the unit's own words: the
        sentence(s) holding it (whether that sentence stands in a source: ``_host``), back to where the stretch its
        earliest word lies in begins (a hedge a few words before it: ``hedged_where_cut``). Empty for a unit with no
        place in the text. Two units of the same words get the same verdict only in the same setting."""
        text = case.text
        if unit.start is None or unit.end is None or not text:
            return ""
        at = [int(r[2]) for r in (unit.meta or {}).get("align") or [] if len(r) >= 3]
        lo, hi = min([unit.start, *at]), unit.end
        for sp in self._text_sentences(text):
            if sp.start < unit.end and sp.end > unit.start:
                lo, hi = min(lo, sp.start), max(hi, sp.end)
        return text[min(lo, clause_start(text, lo)):hi]

    def _text_sentences(self, text: str) -> list[Any]:
        """The checked text's sentences (split_sentences), kept for the text checked last."""
        memo = self.__dict__.get("_sentences_of")
        if memo is None or memo[0] != text:
            memo = (text, split_sentences(text))
            self.__dict__["_sentences_of"] = memo
        return memo[1]

    def _regions(self, unit: Unit, tok, pool: _Pool, pick, doc=None, host: Host | None = None
                 ) -> tuple[list[Any], tuple[int, int] | None]:
        """The evidence region(s) of a unit, and the sentence piece that locates it.

        The piece is the one that holds the unit word for word (at least COPY_MIN_WORDS words), or `host`, where the
        text's sentence holding the unit stands in (``_host``); else the one whose tokens the unit's words align to
        best, leaving out the names, numbers and dates of the unit's own words (a name swapped in from another
        sentence must not pull the region there). The region is that piece widened by `local.spread` pieces
        on each side (`local.speaker_spread` for a speaker's unit: quotes run on for sentences after their speaker is
        named), then by a piece on each side at a time until it spans `local.min_region_chars` characters (200 as
        packaged: a transcript's turns or a list's lines are pieces of a few words, and three of them say too little;
        prose regions are longer already). A unit of several sentences gets one region per sentence (no copy is looked
        for). Without token embeddings the similarity window stands in."""
        from citefix.verify.local import Region

        lp = self.params.get("local", {})
        spread = int(lp.get("speaker_spread", 3) if (unit.meta or {}).get("role") == "speaker" else lp.get("spread", 1))
        min_chars = int(lp.get("min_region_chars", 0))
        sents = split_sentences(unit.text)
        out: list[Any] = []
        located = None
        # a unit a source holds word for word is located there: its words are their own evidence, wherever the
        # alignment of its words (names left out) points ("Sgt Chris Gaynor told the court" / "Carpenter told the court")
        copy = None
        if len(sents) <= 1:
            copy = (copy_at(doc, pool) if doc is not None else None) or ((host.source, host.at) if host else None)
        for sp in (sents if len(sents) > 1 else [None]):
            best = copy or self._best_aligned_piece(unit, tok, pool, doc, within=(sp.start, sp.end) if sp else None)
            if best is None:
                continue
            si, start = best
            located = located or best
            src = pool.sources[si]
            a, b = widen(src.piece_starts, len(src.text), start, start + 1, spread, min_chars)
            if not any(r.source == si and r.start <= a and b <= r.end for r in out):
                out.append(Region(si, a, b))
        if not out and pick is not None:
            si, wi = pool.win_owner[pick]
            src = pool.sources[si]
            span = src.windows[wi]
            a, b = widen(src.piece_starts, len(src.text), span.start, span.end, spread, min_chars)
            out.append(Region(si, a, b))
        return out, located

    def _best_aligned_piece(self, unit: Unit, tok, pool: _Pool, doc=None,
                            within: tuple[int, int] | None = None) -> tuple[int, int] | None:
        """(source index, piece start) of the sentence piece whose tokens best align with the unit's own tokens."""
        import torch

        if tok is None or pool.tok_emb is None or not len(tok[0]) or not len(pool.tok_emb):
            return None
        offsets: list[tuple[int, int]]
        emb, offsets, ids = tok
        # locate the event by the unit's words other than its focus's names, numbers and dates: a name swapped in
        # from another sentence must not pull the region towards that sentence
        focus = focus_ranges(unit)
        values = [(a, b) for a, b in self._value_spans(unit.text, doc) if in_focus(a, b, focus)]
        rows = [k for k, (a, e) in enumerate(offsets) if within is None or within[0] <= a < within[1]]
        if not rows:
            return None
        keep = [k for k in rows if not in_focus(*offsets[k], values)] or rows
        weights = torch.tensor(self._weights([ids[k] for k in keep]), dtype=emb.dtype)
        sim = emb[keep] @ pool.tok_emb.T  # [U, T]
        # piece id of every source token row
        piece_of: list[int] = []
        keys: list[tuple[int, int]] = []
        for si, src in enumerate(pool.sources):
            ps = src.piece_starts or [0]
            base = len(keys)
            keys.extend((si, x) for x in ps)
            piece_of.extend(base + max(0, bisect.bisect_right(ps, x) - 1) for x in src.tok_pos)
        if len(piece_of) != sim.shape[1] or not keys:
            return None
        idx = torch.tensor(piece_of, dtype=torch.long).unsqueeze(0).expand(sim.shape[0], -1)
        per = torch.full((sim.shape[0], len(keys)), -1.0, dtype=sim.dtype)
        per = per.scatter_reduce(1, idx, sim, reduce="amax", include_self=True)  # [U, P]
        score = (per * weights.unsqueeze(1)).sum(0) / (weights.sum() + 1e-9)
        return keys[int(score.argmax())]

    @staticmethod
    def _value_spans(text: str, doc) -> list[tuple[int, int]]:
        """Character spans of the names, numbers and dates in a unit's text."""
        spans = [(n.start, n.end) for n in find_numbers(text)] + [(a, b) for _, a, b in date_words(text)]
        if doc is not None:
            spans += [(e.start_char, e.end_char) for e in doc.ents if e.label_ in ENTITY_LABELS]
            spans += [(t.idx, t.idx + len(t.text)) for t in doc if t.pos_ == "PROPN"]
        return spans

    @staticmethod
    def _region_mask(pool: _Pool, regions: list[Any]):
        if pool.tok_si is None or not regions:
            return None
        mask = None
        for r in regions:
            m = (pool.tok_si == r.source) & (pool.tok_pos >= r.start) & (pool.tok_pos < r.end)
            mask = m if mask is None else (mask | m)
        return mask

    def _held(self, pool: _Pool, regions: list[Any], content: list):
        """``synonyms.floor_held`` for the unit's content words, as a function of (cosines, piece offsets, pool or
        None): against the whole source (`pool`: a word it holds in any form, or says otherwise) or, with None, against
        the evidence region alone. Without the switch `synonyms.alignment` the cosines pass unchanged."""
        if not self.params.get("synonyms", {}).get("alignment", True) or not content:
            return lambda cos, offsets, whole: cos
        floor = self.params["alignment"]["token_threshold"]
        seq: list[tuple[int, str, str]] = []
        phrases: frozenset[int] = frozenset()
        for r in regions:
            src = pool.sources[r.source]
            got = region_words(src.words_at, r.start, r.end)
            seq += got
            phrases |= source_phrases(got, src.text, src.preps)
        bag = Bag(seq, phrases)
        syn = bool(self.params.get("synonyms", {}).get("lexical", True))

        def in_bag(t, b) -> bool:
            return (t.lower_ in b.words or t.lemma_.lower() in b.lemmas or t.lower_ in b.lemmas
                    or (syn and said_otherwise(t, b)))

        return lambda cos, offsets, whole: floor_held(cos, offsets, content,
                                                      lambda t: in_bag(t, whole or bag), floor)

    def _weights(self, ids: list[int]) -> list[float]:
        idf = self.idf
        if idf is None:
            return [1.0] * len(ids)
        table, default = idf["idf"], idf["default"]
        return [table.get(i, default) for i in ids]


def in_host(text: str, pool: _Pool, host: Host | None) -> Callable[[int, int], bool]:
    """A test for a stretch of the unit (a name, number or date): does it stand in the source sentence that the unit's
    text sentence copies or compresses (RegionFinder._host), where the text took it from? Not when the compression
    left a number out between its words ("Freda Humphreys [in 1991] and Anne Smith 1999 – 2003": whose years those
    are has changed)."""
    if host is None or not host.keeps_numbers:
        return lambda s, e: False
    sentence = " ".join(pool.sources[host.source].text[host.start:host.end].lower().split())

    def test(s: int, e: int) -> bool:
        piece = " ".join(text[s:e].lower().split())
        return bool(piece) and re.search(r"(?<!\w)" + re.escape(piece) + r"(?!\w)", sentence) is not None

    return test


def located_evidence(pool: _Pool, located: tuple[int, int], evidence: dict[str, Any] | None) -> dict[str, Any] | None:
    """The evidence shown: the sentence piece that holds the unit's words (`located`), when pooled similarity picked
    another."""
    si, start = located
    src = pool.sources[si]
    k = bisect.bisect_right(src.piece_starts, start) - 1
    piece = src.windows[k] if 0 <= k < src.n_pieces else None
    if piece is not None and not (evidence and evidence["source_id"] == pool.ids[si]
                                  and evidence["start"] <= piece.start < evidence["end"]):
        return {"source_id": pool.ids[si], "start": piece.start, "end": piece.end, "text": piece.text}
    return evidence


def _value_kind(text: str, n: Number) -> str:
    """What a figure counts, for matching it with a source's: its currency, a share, or a plain number."""
    cur = currency(text, n)
    if cur is not None:
        return cur
    return "percent" if n.unit == "%" or re.match(r"\s*(?:%|per\s?cent\b)", text[n.end:]) else "number"


def value_evidence(text: str, missing: list[dict[str, Any]], pool: _Pool,
                   evidence: dict[str, Any] | None) -> dict[str, Any] | None:
    """The evidence to show for a unit whose figure the sources lack: the source sentence that gives a figure of the
    same kind (same currency, a share, a count) and shares most of the unit's other words ("The bridge cost £6.3
    million" for "the River Aln cost £8.1 million"), where the evidence found by similarity gives none. Each missing
    figure's record gets the source's figure as "evidence" when one figure is missing. None: keep the evidence."""
    figures = [m for m in missing if m.get("kind") == "number"]
    if not figures:
        return None
    found = {(n.start, n.end): n for n in find_numbers(text)}
    kinds = {_value_kind(text, found[(m["start"], m["end"])]) for m in figures if (m["start"], m["end"]) in found}
    if len(kinds) != 1:
        return None
    want = kinds.pop()

    def same_kind(sentence: str) -> list[Number]:
        return [n for n in find_numbers(sentence) if not n.soft and _value_kind(sentence, n) == want]

    if evidence and same_kind(evidence.get("text", "")):
        return None
    words = {w for w, a, b in content_tokens(text)
             if not any(m["start"] <= a < m["end"] for m in figures) and not w[:1].isdigit()}
    best: tuple[int, int, int, int, Number] | None = None
    for si, src in enumerate(pool.sources):
        for a, b in src.sentence_bounds():
            sentence = src.text[a:b]
            nums = same_kind(sentence)
            if not nums:
                continue
            shared = len(words & {w for w, _, _ in content_tokens(sentence)})
            if shared and (best is None or shared > best[0]):
                best = (shared, si, a, b, nums[0])
    if best is None:
        return None
    _, si, a, b, n = best
    sentence = pool.sources[si].text[a:b]
    lead = len(sentence) - len(sentence.lstrip())
    sentence = sentence.strip()
    if len(figures) == 1:
        figures[0]["evidence"] = n.text
    return {"source_id": pool.ids[si], "start": a + lead, "end": a + lead + len(sentence), "text": sentence}


def hedged_where_cut(unit: Unit, c: dict[str, Any], case_text: str) -> bool:
    """Does the text the unit was cut from hedge the word `c` stands on (certainty.hedged_in_text), found through the
    unit's meta["align"] runs (unit start, unit end, text start)?"""
    for a, b, at in (unit.meta or {}).get("align") or [[0, len(unit.text), unit.start or 0]]:
        if a <= c["start"] < b:
            return hedged_in_text(case_text, at + c["start"] - a)
    return False
