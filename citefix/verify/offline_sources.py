"""The offline verifier's view of its sources: each text analysed once (spaCy words and lemmas, numbers and dates,
MiniLM token embeddings of encoder-sized chunks, sentence pieces and two-piece windows with pooled embeddings), kept in
a byte-bounded cache by content hash, and analysed for many cases in one batched pass (``prefetch``).

``SourceAnalysis`` is a mixin of ``citefix.verify.offline.OfflineVerifier`` (it uses the verifier's ``params``,
``encoder`` and ``nlp``)."""

from __future__ import annotations

import bisect
import hashlib
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple, Sequence

from citefix.chunking import Span, chunk_text, split_sentences, word_count
from citefix.models import Case
from citefix.verify.lexical import currency, derived_supported, differences, find_numbers, number_supported
from citefix.verify.times import canonical_step, date_words, duration_supported, durations, time_steps


@dataclass
class _Encoded:
    raw: Any  # [n, d] hidden states of the text's tokens (no special tokens)
    tokens: Any  # [n, d] the same, unit-norm
    offsets: list[tuple[int, int]]
    ids: list[int]
    pooled: Any  # [d] mean over all tokens (special ones included: the sentence-transformers recipe), unit-norm


@dataclass
class _Source:
    """Everything the verifier needs from one source text, computed once and cached by text hash."""

    text: str
    words: set[str] = field(default_factory=set)
    lemmas: set[str] = field(default_factory=set)
    money: list[tuple[float, str | None]] = field(default_factory=list)  # each number's value, with its currency if any
    dates: set[str] = field(default_factory=set)
    windows: list[Span] = field(default_factory=list)  # sentence pieces, then two-piece windows
    n_pieces: int = 0
    win_emb: Any = None  # [W, d]
    tok_emb: Any = None  # [T, d]
    tok_pos: list[int] = field(default_factory=list)  # per row of tok_emb: its character offset in the text
    piece_starts: list[int] = field(default_factory=list)  # start offset of each sentence piece
    sentence_starts: list[int] = field(default_factory=list)  # start offset of each sentence (long ones not cut)
    words_at: list[tuple[int, str, str]] = field(default_factory=list)  # (offset, lower, lemma) of each spaCy word
    preps: set[int] = field(default_factory=set)  # offsets of the words tagged IN (a preposition, not a particle)
    n_chunks: int = 0
    _joined: str | None = None  # the words, NUL-separated, for word-for-word copy search (built on first use)
    _capitalised: frozenset[str] | None = None  # words written capitalised inside a sentence (built on first use)
    _sentence_words: list[tuple[int, int, frozenset[str]]] | None = None  # (start, end, content words) per sentence

    def sentence_bounds(self) -> list[tuple[int, int]]:
        """Each sentence's (start, end) offsets (long ones not cut)."""
        starts = self.sentence_starts or [0]
        return list(zip(starts, [*starts[1:], len(self.text)]))

    def sentence_words(self) -> list[tuple[int, int, frozenset[str]]]:
        """Each sentence's start, end and content words (lower-cased, stop words left out), built on first use."""
        if self._sentence_words is None:
            from spacy.lang.en.stop_words import STOP_WORDS

            bounds = self.sentence_bounds()
            per: list[set[str]] = [set() for _ in bounds]
            k = 0
            for pos, w, _ in self.words_at:
                while k + 1 < len(bounds) and pos >= bounds[k + 1][0]:
                    k += 1
                if w not in STOP_WORDS:
                    per[k].add(w)
            self._sentence_words = [(a, b, frozenset(ws)) for (a, b), ws in zip(bounds, per)]
        return self._sentence_words

    def capitalised(self) -> frozenset[str]:
        """The words this source writes with a capital letter inside a sentence (not after . ! ? : ; a quote or a
        bracket): names, whatever the tagger made of them."""
        if self._capitalised is None:
            out = set()
            text = self.text
            for pos, w, _ in self.words_at:
                if not text[pos:pos + 1].isupper():
                    continue
                k = pos - 1
                while k >= 0 and text[k].isspace():
                    k -= 1
                if k >= 0 and text[k] not in ".!?:;\"'“”‘’([-–—":
                    out.add(text[pos:pos + len(w)])
            self._capitalised = frozenset(out)
        return self._capitalised

    def joined(self) -> str:
        """The source's words (lower case, punctuation left out) joined by NUL, with one at each end."""
        if self._joined is None:
            self._joined = "\0" + "\0".join(w for _, w, _ in self.words_at) + "\0"
        return self._joined

    def nbytes(self) -> int:
        """Rough memory held by this entry: its tensors, text and word tables (for the byte-bounded cache)."""
        n = len(self.text) * 2 + 64 * (len(self.words) + len(self.lemmas) + len(self.words_at) + len(self.windows)
                                      + len(self.preps))
        for t in (self.win_emb, self.tok_emb):
            if t is not None:
                n += int(t.numel()) * int(t.element_size())
        return n + 8 * len(self.tok_pos)


class Host(NamedTuple):
    """Where a sentence of the checked text stands in a source, word for word, as a compression
    (source_search.compression_at) or by its words in any order (source_search.bag_host); RegionFinder._host."""

    source: int  # index in the pool's sources
    at: int  # offset of its first word there
    start: int  # that source sentence's start and end
    end: int
    keeps_negations: bool  # every negation word of that sentence is among the words kept
    keeps_numbers: bool  # no number of that sentence was left out between the first word kept and the last


@dataclass
class _Pool:
    """The union of a unit's target sources."""

    ids: list[str]
    sources: list[_Source]
    words: set[str]
    lemmas: set[str]
    numbers: list[float]  # the values of `money`
    dates: set[str]
    tok_emb: Any
    win_emb: Any
    win_owner: list[tuple[int, int]]  # per window row: (index in sources, index in that source's windows)
    tok_si: Any = None  # per row of tok_emb: index in sources
    tok_pos: Any = None  # per row of tok_emb: character offset in that source
    _lower: str | None = None
    _steps: set[tuple[int, str]] | None = None
    _durations: list[float] | None = None
    _differences: list[Any] | None = None  # lexical.Number
    _capitalised: frozenset[str] | None = None
    _senses: frozenset[int] | None = None
    # where each sentence of the checked text stands in these sources, word for word or with words left out
    # (RegionFinder._host)
    host_copies: dict[str, Host | None] = field(default_factory=dict)
    money: list[tuple[float, str | None]] = field(default_factory=list)  # each number's value and currency, if any

    def capitalised(self) -> frozenset[str]:
        """The words the sources write capitalised inside a sentence (each source's `capitalised`, joined once)."""
        if self._capitalised is None:
            self._capitalised = frozenset().union(*(s.capitalised() for s in self.sources))
        return self._capitalised

    def sentences(self) -> list[str]:
        """Every sentence of the sources (as their sentence starts cut them)."""
        return [src.text[a:b] for src in self.sources for a, b in src.sentence_bounds() if src.text[a:b].strip()]

    def senses(self) -> frozenset[int]:
        """The synonym groups of every word, lemma and phrase of the sources (citefix.verify.synonyms), gathered once."""
        if self._senses is None:
            from citefix.verify.synonyms import senses_of, source_phrases

            self._senses = senses_of(self.words | self.lemmas).union(
                *(source_phrases(s.words_at, s.text, s.preps) for s in self.sources))
        return self._senses

    def time_steps(self) -> set[tuple[int, str]]:
        """The relative times the sources name, as steps from now (times.time_steps: (count, unit))."""
        if self._steps is None:
            self._steps = {canonical_step(n, u) for s in self.sources for n, u, _, _ in time_steps(s.text)}
        return self._steps

    def durations(self) -> list[float]:
        """The spans of time the sources name, in days (times.durations)."""
        if self._durations is None:
            self._durations = [d for s in self.sources for d in durations(s.text)]
        return self._durations

    def differences(self) -> list[Any]:
        """The differences of two figures of one source sentence (lexical.differences), which a summary may state."""
        if self._differences is None:
            self._differences = [d for s in self.sources for d in differences(s.text)]
        return self._differences

    def holds_number(self, n: Any, text: str) -> bool:
        """Do the sources hold the number `n` of `text` (a lexical.Number): as a value up to its rounding or bound, as a
        span of time in any unit, or, stated as a change, as the difference of two figures of one source sentence?"""
        return number_supported(n, self.numbers) or duration_supported(n, text, self.durations()) or \
            derived_supported(n, text, self.differences())

    def lower_text(self) -> str:
        """The sources' texts, lower-cased, whitespace collapsed (for phrase look-ups)."""
        if self._lower is None:
            import re as _re

            self._lower = "\n".join(_re.sub(r"\s+", " ", s.text.lower()) for s in self.sources)
        return self._lower


class SourceAnalysis:
    """Source analysis and its cache (mixed into OfflineVerifier)."""

    # provided by OfflineVerifier (declarations for the type checker only)
    params: dict[str, Any]
    signal: str
    _cache: OrderedDict[str, _Source]
    _cache_bytes: int
    _cached_bytes: int
    _lock: threading.Lock

    if TYPE_CHECKING:

        @property
        def encoder(self) -> Any: ...

        @property
        def nlp(self) -> Any: ...

    def prefetch(self, cases: Sequence[Case]) -> int:
        """Analyse the sources of many cases in one batched pass (spaCy and the encoder see all their chunks together,
        sorted by length) so that checking the cases one by one finds them cached. Stops adding cases once their
        sources would exceed the cache's memory budget; returns how many cases were covered."""
        texts: dict[str, str] = {}
        size: float = 0
        covered = 0
        for case in cases:
            new = {hashlib.sha1(x.text.encode("utf-8")).hexdigest(): x.text for x in case.sources}
            # about 4 bytes × 384 dims per token, ~1.4 tokens per word, twice (tokens and windows)
            est = sum(len(t) // 5 * 1.4 * 384 * 4 * 2 for k, t in new.items() if k not in texts)
            if covered and size + est > self._cache_bytes:
                break
            texts.update(new)
            size += est
            covered += 1
        if texts:
            self._sources(list(texts.values()))
        return covered

    def forget_sources(self, keys: Sequence[str]) -> None:
        """Drop these analysed sources (sha1 hex digests of their texts) from the cache: a caller that knows no later
        case has them (a worker given every case of its sources at once) frees their memory for the next ones."""
        with self._lock:
            for k in keys:
                info = self._cache.pop(k, None)
                if info is not None:
                    self._cached_bytes -= info.nbytes()

    def _sources(self, texts: list[str]) -> list[_Source]:
        keys = [hashlib.sha1(t.encode("utf-8")).hexdigest() for t in texts]
        with self._lock:
            missing = list(dict.fromkeys((k, t) for k, t in zip(keys, texts) if k not in self._cache))
        if missing:
            built = self._analyse([t for _, t in missing])
            with self._lock:
                for (k, _), info in zip(missing, built):
                    if k not in self._cache:
                        self._cache[k] = info
                        self._cached_bytes += info.nbytes()
        with self._lock:
            out = []
            for k in keys:
                self._cache.move_to_end(k)
                out.append(self._cache[k])
            keep = set(keys)
            # evict least recently used entries over the byte budget, never the ones this call returns
            while self._cache and self._cached_bytes > self._cache_bytes:
                k = next(iter(self._cache))
                if k in keep:
                    break
                self._cached_bytes -= self._cache.pop(k).nbytes()
        return out

    def _analyse(self, texts: list[str]) -> list[_Source]:
        import torch

        p = self.params
        infos = [_Source(text=t) for t in texts]
        # Chunks that fit the encoder (≤ max_chunk_tokens word pieces); spaCy reads the same chunks.
        chunk_lists = [self._chunks(t) for t in texts]
        flat = [(si, c) for si, cl in enumerate(chunk_lists) for c in cl]
        docs = self.nlp.pipe([c.text for _, c in flat], batch_size=32, disable=["parser", "ner"])
        for (si, c), doc in zip(flat, docs):
            info = infos[si]
            for t in doc:
                if t.is_space or t.is_punct:
                    continue
                info.words.add(t.lower_)
                info.lemmas.add(t.lemma_.lower())
                info.words_at.append((c.start + t.idx, t.lower_, t.lemma_.lower()))
                if t.tag_ == "IN":
                    info.preps.add(c.start + t.idx)
        for info in infos:
            info.money = [(n.value, currency(info.text, n)) for n in find_numbers(info.text)]
            info.dates = {d for d, _, _ in date_words(info.text)}
        # One encoder pass over the chunks gives both the token embeddings (alignment) and, by mean-pooling the
        # in-context hidden states of each sentence piece, the sentence/window embeddings (similarity, evidence).
        enc = self._encode([c.text for _, c in flat], lean=True) if flat else []
        per_raw: list[list[Any]] = [[] for _ in infos]
        per_pos: list[list[int]] = [[] for _ in infos]
        for (si, c), e in zip(flat, enc):
            per_raw[si].append(e.raw)
            per_pos[si].extend(c.start + a for a, _ in e.offsets)
        for si, cl in enumerate(chunk_lists):
            infos[si].n_chunks = len(cl)
        for si, info in enumerate(infos):
            raw = torch.cat(per_raw[si]) if per_raw[si] else torch.zeros((0, self._dim()))
            starts = per_pos[si]
            info.tok_emb = torch.nn.functional.normalize(raw, dim=-1)
            info.tok_pos = list(starts)
            pieces: list[Span] = []
            info.sentence_starts = []
            for s in split_sentences(info.text):
                info.sentence_starts.append(s.start)
                if word_count(s.text) > p["sentence_piece_words"]:
                    pieces.extend(
                        Span(s.start + c.start, s.start + c.end, c.text) for c in chunk_text(s.text, p["sentence_piece_words"])
                    )
                else:
                    pieces.append(s)
            ranges = [(bisect.bisect_left(starts, x.start), bisect.bisect_left(starts, x.end)) for x in pieces]
            wins, wranges = list(pieces), list(ranges)
            for k in range(len(pieces) - 1):
                a, b = pieces[k], pieces[k + 1]
                if word_count(a.text) + word_count(b.text) <= p["window_words"]:
                    wins.append(Span(a.start, b.end, info.text[a.start : b.end]))
                    wranges.append((ranges[k][0], ranges[k + 1][1]))
            info.windows = wins
            info.n_pieces = len(pieces)
            info.piece_starts = [x.start for x in pieces]
            vecs = [raw[a:b].mean(0) if b > a else torch.zeros(raw.shape[1]) for a, b in wranges]
            info.win_emb = (
                torch.nn.functional.normalize(torch.stack(vecs), dim=-1) if vecs else torch.zeros((0, raw.shape[1]))
            )
        return infos

    def _chunks(self, text: str) -> list[Span]:
        p = self.params
        tok = self.encoder.tokenizer
        out: list[Span] = []
        todo = list(chunk_text(text, p["chunk_words"]))
        while todo:
            c = todo.pop(0)
            n = len(tok(c.text, add_special_tokens=False)["input_ids"])
            words = word_count(c.text)
            if n <= p["max_chunk_tokens"] or words <= 1:
                out.append(c)
                continue
            # too many word pieces: split the chunk's words in two halves and check each again
            sub = chunk_text(c.text, max(1, (words + 1) // 2))
            todo[:0] = [Span(c.start + s.start, c.start + s.end, s.text) for s in sub]
        return out

    def _dim(self) -> int:
        return int(self.encoder.model.config.hidden_size)

    def _encode(self, texts: list[str], batch_size: int = 16, *, lean: bool = False) -> list["_Encoded"]:
        """One MiniLM pass per text (batched by length): hidden states, unit-norm token embeddings, mean-pooled vector.
        ``lean``: hidden states and offsets only (source chunks: the caller normalises and pools them itself)."""
        import torch

        enc_ = self.encoder
        out: list[_Encoded | None] = [None] * len(texts)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        for b in range(0, len(order), batch_size):
            idx = order[b : b + batch_size]
            batch = enc_.tokenizer(
                [texts[i] for i in idx],
                padding=True,
                truncation=True,
                max_length=enc_.max_length,
                return_offsets_mapping=True,
                return_special_tokens_mask=True,
                return_tensors="pt",
            )
            offsets = batch.pop("offset_mapping")
            special = batch.pop("special_tokens_mask").bool()
            with torch.inference_mode():
                # on a GPU the inputs go to it and the hidden states come back: everything after works on the CPU
                hidden = enc_.model(**{k: v.to(enc_.device) for k, v in batch.items()}).last_hidden_state.cpu()
            mask = batch["attention_mask"].bool()
            for j, i in enumerate(idx):
                m = mask[j]
                keep = m & ~special[j]
                raw = hidden[j][keep]
                out[i] = _Encoded(
                    raw=raw,  # boolean indexing copies: the batch's hidden states are not kept alive
                    tokens=None if lean else torch.nn.functional.normalize(raw, dim=-1),
                    offsets=[tuple(x) for x in offsets[j][keep].tolist()],
                    ids=batch["input_ids"][j][keep].tolist(),
                    pooled=None if lean else torch.nn.functional.normalize(hidden[j][m].mean(0), dim=-1),
                )
        return out  # type: ignore[return-value]

    def _pool(self, ids: list[str], sources: list[_Source], *, tokens: bool | None = None) -> _Pool:
        import torch

        words: set[str] = set()
        lemmas: set[str] = set()
        money: list[tuple[float, str | None]] = []
        dates: set[str] = set()
        owner: list[tuple[int, int]] = []
        for si, s in enumerate(sources):
            words |= s.words
            lemmas |= s.lemmas
            money.extend(s.money)
            dates |= s.dates
            owner.extend((si, wi) for wi in range(len(s.windows)))
        tok_emb = tok_si = tok_pos = None
        if tokens if tokens is not None else self.signal in ("combined", "alignment"):
            tok_emb = torch.cat([s.tok_emb for s in sources]) if len(sources) > 1 else sources[0].tok_emb
            tok_si = torch.tensor([si for si, s in enumerate(sources) for _ in s.tok_pos], dtype=torch.long)
            tok_pos = torch.tensor([x for s in sources for x in s.tok_pos], dtype=torch.long)
        win_emb = torch.cat([s.win_emb for s in sources]) if len(sources) > 1 else sources[0].win_emb
        return _Pool(ids, sources, words, lemmas, [v for v, _ in money], dates, tok_emb, win_emb, owner, tok_si, tok_pos,
                     money=money)

    # --- units -----------------------------------------------------------------------------------------------------


CACHE_ENV = "CITEFIX_SOURCE_CACHE_MB"


def _cache_budget() -> int:
    """Bytes the analysed-source cache may hold: $CITEFIX_SOURCE_CACHE_MB (default 512)."""
    raw = os.environ.get(CACHE_ENV, "").strip()
    if not raw:
        return 512 * 2**20
    try:
        mb = float(raw)
    except ValueError:
        from citefix.errors import ConfigError

        raise ConfigError(f"{CACHE_ENV}={raw!r}: expected a size in MB, e.g. {CACHE_ENV}=512") from None
    return max(0, int(mb * 2**20))
