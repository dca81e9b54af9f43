"""The offline default verifier: no LLM, only the packaged spaCy model and MiniLM encoder.

Three signals per unit, against the union of its target sources:

* lexical — numbers (normalised: "3.08 million", "£45m", "1,000", "three"), month/weekday names, named entities and
  content lemmas of the unit that the sources do not contain, and a negation mismatch with the evidence. Each miss
  multiplies the score by a penalty: `lexical = exp(-Σ weight·misses)`.
* alignment — BERTScore-style precision: every unit token (MiniLM, in context) takes its best cosine against all
  tokens of the source's sentence-aligned chunks (≤ 256 tokens each, so nothing is truncated); idf-weighted mean,
  rescaled by a baseline. Unit tokens below a threshold are reported as unsupported spans.
* similarity — mean-pooled MiniLM cosine between the unit and each source sentence or two-sentence window; the best
  one is the verdict's evidence. It does not decide alone.

The combined score is a logistic function of the three (weights in citefix/data/offline_params.json, fitted by
bench/tune_offline.py on development data). Cited answers use their own calibration profile (``profiles.cited_answer``:
weights and thresholds fitted on cited web passages); summaries and single claims the default one. `OfflineVerifier(signal="lexical")` etc. runs a single signal.
"""

from __future__ import annotations

import bisect
import hashlib
import json
import math
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, Sequence

from citefix.chunking import Span, chunk_text, split_sentences, word_count
from citefix.models import Case, Evidence, Unit, Verdict
from citefix.verify.base import label_for
from citefix.verify.lexical import date_words, find_numbers, negations, number_supported, time_phrases
from citefix.verify.local import (
    focus_ranges,
    in_focus,
    polarity_mismatches,
    region_words,
    role_swaps,
    value_conflicts,
    widen,
)

PARAMS_ENV = "CITEFIX_OFFLINE_PARAMS"
_PROFILE_KEYS = ("combined", "cap", "thresholds")  # what a calibration profile may set
SIGNALS = ("combined", "lexical", "alignment", "similarity", "entail")
_ENT_LABELS = {"PERSON", "ORG", "GPE", "LOC", "NORP", "FAC", "EVENT", "PRODUCT", "WORK_OF_ART", "LAW", "LANGUAGE"}
_CONTENT_POS = {"NOUN", "VERB", "ADJ", "ADV", "PROPN"}

# Used when citefix/data/offline_params.json is missing; the file holds the tuned values.
DEFAULT_PARAMS: dict[str, Any] = {
    "chunk_words": 150,
    "max_chunk_tokens": 254,
    "sentence_piece_words": 80,
    "window_words": 120,
    "window_margin": 0.03,
    "lexical": {"number": 1.2, "entity": 1.0, "date": 0.8, "word": 1.5, "neg_unit": 0.5, "neg_source": 0.1},
    "alignment": {"baseline": 0.35, "token_threshold": 0.55, "min_idf": 1.0},
    "similarity": {"baseline": 0.1},
    "combined": {"bias": -3.0, "lexical": 1.0, "alignment": 4.0, "similarity": 2.0},
    # A unit with an invented number, date or name (missing entity weight ≥ 1) is never scored above this, and its
    # combined verdict is "unsupported" (never "partial").
    "cap": {"enabled": True, "score": 0.4},
    # Calibration profiles by case kind, laid over the keys above (combined, thresholds, cap); see profile_for().
    "profiles": {},
    "thresholds": {
        "combined": {"supported": 0.5, "partial": 0.3},
        "lexical": {"supported": 0.6, "partial": 0.3},
        "alignment": {"supported": 0.6, "partial": 0.4},
        "similarity": {"supported": 0.6, "partial": 0.4},
    },
}


def load_params(path: str | None = None) -> dict[str, Any]:
    """The verifier's parameters: DEFAULT_PARAMS updated with the packaged (or given) JSON file.

    Per-domain calibration: when ``path`` is not given and ``CITEFIX_OFFLINE_PARAMS`` names a JSON file, that file is
    laid over the packaged parameters (section by section), so it may hold only what changes, e.g.
    ``{"thresholds": {"combined": {"supported": 0.42, "partial": 0.25}}}``.
    """
    params = json.loads(json.dumps(DEFAULT_PARAMS))
    try:
        if path is None:
            raw = resources.files("citefix").joinpath("data/offline_params.json").read_text(encoding="utf-8")
        else:
            with open(path, encoding="utf-8") as f:
                raw = f.read()
        _overlay(params, json.loads(raw))
    except (FileNotFoundError, OSError):
        pass
    user = os.environ.get(PARAMS_ENV, "").strip() if path is None else ""
    if user:
        from citefix.errors import ConfigError

        try:
            with open(os.path.expanduser(user), encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{PARAMS_ENV}={user}: cannot read offline verifier parameters ({exc})") from exc
        if not isinstance(data, dict):
            raise ConfigError(f"{PARAMS_ENV}={user}: expected a JSON object")
        _overlay(params, data)
    return params


def _overlay(params: dict[str, Any], data: dict[str, Any]) -> None:
    """Lay `data` over `params` key by key, down to the leaves: an overlay holds only what it changes (e.g.
    ``{"profiles": {"cited_answer": {"thresholds": {"combined": {"supported": 0.5}}}}}`` keeps every other value)."""
    for k, v in data.items():
        if isinstance(v, dict) and isinstance(params.get(k), dict):
            _overlay(params[k], v)
        else:
            params[k] = v


def load_idf() -> dict[str, Any] | None:
    """The MiniLM word-piece idf table (see citefix/data/README.md), or None when it is missing."""
    try:
        raw = resources.files("citefix").joinpath("data/minilm_idf.json").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return None
    data = json.loads(raw)
    return {"default": float(data["default"]), "idf": {int(k): float(v) for k, v in data["idf"].items()}}


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
    numbers: list[float] = field(default_factory=list)
    dates: set[str] = field(default_factory=set)
    windows: list[Span] = field(default_factory=list)  # sentence pieces, then two-piece windows
    n_pieces: int = 0
    win_emb: Any = None  # [W, d]
    tok_emb: Any = None  # [T, d]
    tok_pos: list[int] = field(default_factory=list)  # per row of tok_emb: its character offset in the text
    piece_starts: list[int] = field(default_factory=list)  # start offset of each sentence piece
    words_at: list[tuple[int, str, str]] = field(default_factory=list)  # (offset, lower, lemma) of each spaCy word
    n_chunks: int = 0

    def nbytes(self) -> int:
        """Rough memory held by this entry: its tensors, text and word tables (for the byte-bounded cache)."""
        n = len(self.text) * 2 + 64 * (len(self.words) + len(self.lemmas) + len(self.words_at) + len(self.windows))
        for t in (self.win_emb, self.tok_emb):
            if t is not None:
                n += int(t.numel()) * int(t.element_size())
        return n + 8 * len(self.tok_pos)


@dataclass
class _Pool:
    """The union of a unit's target sources."""

    ids: list[str]
    sources: list[_Source]
    words: set[str]
    lemmas: set[str]
    numbers: list[float]
    dates: set[str]
    tok_emb: Any
    win_emb: Any
    win_owner: list[tuple[int, int]]  # per window row: (index in sources, index in that source's windows)
    tok_si: Any = None  # per row of tok_emb: index in sources
    tok_pos: Any = None  # per row of tok_emb: character offset in that source
    _lower: str | None = None

    def lower_text(self) -> str:
        """The sources' texts, lower-cased, whitespace collapsed (for phrase look-ups)."""
        if self._lower is None:
            import re as _re

            self._lower = "\n".join(_re.sub(r"\s+", " ", s.text.lower()) for s in self.sources)
        return self._lower


class OfflineVerifier:
    """Lexical + token-alignment + similarity verifier that runs on CPU with the packaged models."""

    def __init__(
        self,
        signal: str = "combined",
        *,
        params: dict[str, Any] | None = None,
        params_path: str | None = None,
        encoder=None,
        nlp=None,
        cache_bytes: int | None = None,
    ):
        if signal not in SIGNALS:
            raise ValueError(f"signal must be one of {', '.join(SIGNALS)}, not {signal!r}")
        self.signal = signal
        self.name = "offline" if signal == "combined" else f"offline:{signal}"
        self.params = params if params is not None else load_params(params_path)
        self._encoder = encoder
        self._nlp = nlp
        self._idf: dict[str, Any] | None = None
        self._idf_loaded = False
        self._cache: OrderedDict[str, _Source] = OrderedDict()
        # the analysed sources are kept by content hash up to a memory budget ($CITEFIX_SOURCE_CACHE_MB): long
        # documents must not pile up to gigabytes over a batch
        self._cache_bytes = cache_bytes if cache_bytes is not None else _cache_budget()
        self._cached_bytes = 0
        self._lock = threading.Lock()
        self._profile_params: dict[str, dict[str, Any]] = {}
        self._entail = None

    # --- models, loaded on first use ------------------------------------------------------------------------------

    @property
    def encoder(self):
        if self._encoder is None:
            _quiet_transformers()
            from citefix.encoder import load_encoder

            self._encoder = load_encoder()
        return self._encoder

    @property
    def nlp(self):
        if self._nlp is None:
            from citefix.nlp import load_spacy

            self._nlp = load_spacy()
        return self._nlp

    @property
    def idf(self):
        if not self._idf_loaded:
            self._idf = load_idf()
            self._idf_loaded = True
        return self._idf

    # --- public API ------------------------------------------------------------------------------------------------

    def verify(
        self, units: Sequence[Unit], case: Case, *, targets: Sequence[Sequence[str]] | None = None
    ) -> list[Verdict]:
        """One verdict per unit, in order. `targets[i]`: source ids for unit i (empty/None: all sources)."""
        feats = self.features(units, case, targets=targets)
        return [self._verdict(u, f, case) for u, f in zip(units, feats)]

    def verify_signals(
        self,
        units: Sequence[Unit],
        case: Case,
        signals: Sequence[str],
        *,
        targets: Sequence[Sequence[str]] | None = None,
    ) -> dict[str, list[Verdict]]:
        """Verdicts under several signals from one feature pass: {signal: verdicts}.

        Each list equals what ``OfflineVerifier(signal=s, params=self.params).verify(units, case, targets=targets)``
        returns (score, label, spans, evidence); only the ``details`` of a lexical or similarity verdict may also carry
        the alignment figures that a single-signal run skips.
        """
        signals = list(dict.fromkeys(signals))
        bad = [s for s in signals if s not in SIGNALS]
        if bad:
            raise ValueError(f"signal must be one of {', '.join(SIGNALS)}, not {bad[0]!r}")
        tokens = any(s in ("combined", "alignment", "entail") for s in signals)
        entail = "entail" in signals or ("combined" in signals and self.uses_entail(combined=True))
        feats = self.features(units, case, targets=targets, tokens=tokens, entail=entail)
        return {s: [self._verdict(u, f, case, signal=s) for u, f in zip(units, feats)] for s in signals}

    def features(
        self,
        units: Sequence[Unit],
        case: Case,
        *,
        targets: Sequence[Sequence[str]] | None = None,
        tokens: bool | None = None,
        entail: bool | None = None,
    ) -> list[dict[str, Any]]:
        """Raw per-unit features (all three signals), or {"error": ...}. Used by verify() and by the tuner.

        ``tokens``: compute the token alignment (default: when this verifier's signal uses it).
        """
        if tokens is None:
            tokens = self.signal in ("combined", "alignment", "entail")
        if entail is None:
            entail = self.uses_entail()
        if targets is not None and len(targets) != len(units):
            raise ValueError(f"targets has {len(targets)} entries for {len(units)} units")
        all_ids = [s.id for s in case.sources]
        target_ids: list[list[str] | None] = []
        for i in range(len(units)):
            t = list(targets[i]) if targets is not None and targets[i] else []
            target_ids.append(list(dict.fromkeys(t)) if t else None)
        out: list[dict[str, Any] | None] = [None] * len(units)
        live: list[int] = []
        for i, u in enumerate(units):
            if not u.text.strip() or not any(ch.isalnum() for ch in u.text):
                out[i] = {"error": "empty unit: nothing to check", "target": list(target_ids[i] or [])}
                continue
            ids = target_ids[i] or all_ids
            unknown = [x for x in ids if case.source(x) is None]
            if unknown:
                out[i] = {
                    "error": f"unknown source id(s) {', '.join(unknown)}; the case has {', '.join(all_ids)}",
                    "target": list(target_ids[i] or []),
                }
                continue
            live.append(i)
        if not live:
            return [o or {"error": "no unit"} for o in out]

        # Sources: each distinct text once per call (and across calls through the LRU cache).
        needed = list(dict.fromkeys(x for i in live for x in (target_ids[i] or all_ids)))
        infos = self._sources([case.source(x).text for x in needed])
        by_id = dict(zip(needed, infos))
        pools: dict[tuple[str, ...], _Pool] = {}

        # Units: one spaCy pass (tagger, lemmatizer, NER) and one encoder pass for all of them.
        texts = [units[i].text for i in live]
        docs = list(self.nlp.pipe(texts, batch_size=64))
        enc = self._encode(texts)
        tok = [(e.tokens, e.offsets, e.ids) for e in enc]
        sent = [e.pooled for e in enc]
        for k, i in enumerate(live):
            key = tuple(target_ids[i] or all_ids)
            if key not in pools:
                pools[key] = self._pool(list(key), [by_id[x] for x in key], tokens=tokens)
            out[i] = self._unit_features(units[i], case, docs[k], tok[k], sent[k], pools[key])
            out[i]["target"] = list(target_ids[i] or [])
            out[i]["profile"] = self.profile_for(case)
        regions = {i: out[i].pop("_region_text", "") for i in live}
        if entail:
            # (e) the entailment model, one batch for all units: the unit against its evidence region
            probs = self.entail_model.score([(units[i].text, regions[i]) for i in live])
            for i, pr in zip(live, probs):
                out[i]["entail"] = _clip01(_finite(pr))
        return [o if o is not None else {"error": "no features"} for o in out]

    def uses_entail(self, combined: bool = False) -> bool:
        """Whether features carry the entailment model's score: for the entail signal, and for the combination when
        its signals include it (``entail.enabled`` false turns it off)."""
        if not self.params.get("entail", {}).get("enabled", True):
            return False
        if self.signal == "entail" and not combined:
            return True
        if self.signal not in ("combined", "entail") and not combined:
            return False
        names = set(self.params.get("combined", {}).get("signals") or ())
        for prof in (self.params.get("profiles") or {}).values():
            names |= set(prof.get("combined", {}).get("signals") or ())
        return "entail" in names or bool(self.params.get("entail", {}).get("always"))

    @property
    def entail_model(self):
        if self._entail is None:
            _quiet_transformers()
            from citefix.verify.entail import load_entail

            self._entail = load_entail()
        return self._entail

    def profile_for(self, case: Case) -> str:
        """The calibration profile for a case: its kind when the parameters hold a profile for it, else "default".

        The packaged parameters carry a ``cited_answer`` profile (cited answers against web passages, fitted on
        AttributionBench) beside the default one (summaries and single claims against their documents).
        """
        kind = case.kind or "summary"
        return kind if kind in (self.params.get("profiles") or {}) else "default"

    def profile_params(self, profile: str | None) -> dict[str, Any]:
        """The parameters under one profile: the profile's ``combined``, ``thresholds`` and ``cap`` laid over the
        defaults (computed once per profile)."""
        prof = (self.params.get("profiles") or {}).get(profile or "default")
        if not prof:
            return self.params
        if profile not in self._profile_params:
            merged = {k: json.loads(json.dumps(v)) if k in _PROFILE_KEYS else v for k, v in self.params.items()}
            _overlay(merged, {k: prof[k] for k in _PROFILE_KEYS if k in prof})
            self._profile_params[profile] = merged
        return self._profile_params[profile]

    def _capped(self, feat: dict[str, Any], p: dict[str, Any] | None = None) -> bool:
        """Whether the cap applies: the unit has an invented number, date or name (missing entity weight ≥ 1) or,
        with the local checks on, a value, verb polarity or role assignment that its evidence contradicts. Values
        found only away from the evidence (misplaced) are reported but do not cap: on human-labelled dev data they
        fire on 19-42% of supported texts (bench/lodo.py caps)."""
        p = p or self.profile_params(feat.get("profile"))
        cap = p.get("cap", {})
        hard = feat["missing_numbers"] + feat["missing_dates"] + feat["missing_entities"]
        if p.get("combined", {}).get("method") == "local" and cap.get("local", True):
            hard += feat.get("value_conflict", 0) + feat.get("polarity_mismatch", 0) + feat.get("role_swap", 0)
        return bool(cap.get("enabled")) and hard >= 1

    def score(self, feat: dict[str, Any], signal: str | None = None) -> float:
        """The score in [0, 1] of one feature dict under `signal` (default: this verifier's) and the feature's profile."""
        signal = signal or self.signal
        p = self.profile_params(feat.get("profile"))
        if signal == "lexical":
            s = math.exp(max(-30.0, feat["lexical_log"]))
        elif signal == "alignment":
            s = feat["alignment"]
        elif signal == "similarity":
            s = feat["similarity"]
        elif signal == "entail":
            if "entail" not in feat:
                raise ValueError("the entail signal needs features computed with the entailment model")
            s = feat["entail"]
        elif p["combined"].get("method") == "local":
            s = self._local_score(feat, p)
            if self._capped(feat, p):
                s = min(s, float(p["cap"]["score"]))
        else:
            c = p["combined"]
            z = (
                c["bias"]
                + c["lexical"] * max(-10.0, feat["lexical_log"])
                + c["alignment"] * feat["alignment"]
                + c["similarity"] * feat["similarity"]
            )
            s = 1.0 / (1.0 + math.exp(-max(-50.0, min(50.0, z))))
            if self._capped(feat, p):
                s = min(s, float(p["cap"]["score"]))
        return _clip01(s)

    @staticmethod
    def _local_score(feat: dict[str, Any], p: dict[str, Any]) -> float:
        """The "local" combination: the geometric mean of the signals named in combined.signals (default all three:
        lexical coverage, token alignment against the evidence region, embedding similarity). No fitted weights: each is already a support score in
        [0, 1], and on every held-out dataset this parameter-free mean ranked at least as well as a logistic
        combination fitted on the other datasets (bench/lodo.py eval)."""
        vals = {
            "lexical": math.exp(max(-30.0, feat["lexical_log"])),
            "alignment": feat.get("local_alignment", feat["alignment"]),
            "similarity": feat["similarity"],
        }
        if "entail" in feat:
            vals["entail"] = feat["entail"]
        names = [n for n in (p["combined"].get("signals") or ("lexical", "alignment", "similarity")) if n in vals]
        prod = 1.0
        for n in names:
            prod *= max(0.0, vals[n])
        return prod ** (1.0 / len(names))

    # --- sources ---------------------------------------------------------------------------------------------------

    def prefetch(self, cases: Sequence[Case]) -> int:
        """Analyse the sources of many cases in one batched pass (spaCy and the encoder see all their chunks together,
        sorted by length) so that checking the cases one by one finds them cached. Stops adding cases once their
        sources would exceed the cache's memory budget; returns how many cases were covered."""
        texts: dict[str, str] = {}
        size = 0
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
        for info in infos:
            info.numbers = [n.value for n in find_numbers(info.text)]
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
            for s in split_sentences(info.text):
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
                hidden = enc_.model(**batch).last_hidden_state
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
        numbers: list[float] = []
        dates: set[str] = set()
        owner: list[tuple[int, int]] = []
        for si, s in enumerate(sources):
            words |= s.words
            lemmas |= s.lemmas
            numbers.extend(s.numbers)
            dates |= s.dates
            owner.extend((si, wi) for wi in range(len(s.windows)))
        tok_emb = tok_si = tok_pos = None
        if tokens if tokens is not None else self.signal in ("combined", "alignment"):
            tok_emb = torch.cat([s.tok_emb for s in sources]) if len(sources) > 1 else sources[0].tok_emb
            tok_si = torch.tensor([si for si, s in enumerate(sources) for _ in s.tok_pos], dtype=torch.long)
            tok_pos = torch.tensor([x for s in sources for x in s.tok_pos], dtype=torch.long)
        win_emb = torch.cat([s.win_emb for s in sources]) if len(sources) > 1 else sources[0].win_emb
        return _Pool(ids, sources, words, lemmas, numbers, dates, tok_emb, win_emb, owner, tok_si, tok_pos)

    # --- units -----------------------------------------------------------------------------------------------------

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
        evidence = None
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
        regions, located = self._regions(unit, tok, pool, pick if best >= 0 else None, doc)
        if located is not None and len(regions) == 1:
            # the evidence shown is the sentence that holds the unit's words (when pooled similarity picked another)
            si, start = located
            src = pool.sources[si]
            k = bisect.bisect_right(src.piece_starts, start) - 1
            piece = src.windows[k] if 0 <= k < src.n_pieces else None
            if piece is not None and not (evidence and evidence["source_id"] == pool.ids[si]
                                          and evidence["start"] <= piece.start < evidence["end"]):
                evidence = {"source_id": pool.ids[si], "start": piece.start, "end": piece.end, "text": piece.text}
                f["evidence"] = evidence

        f["_region_text"] = " ".join(pool.sources[r.source].text[r.start:r.end] for r in regions) if regions else (
            evidence["text"] if evidence else "")
        # (a) lexical, on the unit's own words; (d) the same elements against the evidence region
        lex = self._lexical(unit, doc, pool, evidence["text"] if evidence else "", focus)
        groups, content = lex.pop("_entity_groups"), lex.pop("_content")
        f.update(lex)
        f.update(self._local(unit, doc, pool, regions, focus, groups, content))

        # (b) alignment, on the unit's own words: against the whole source, and against the evidence region
        if tok is not None and pool.tok_emb is not None and len(tok[0]) and len(pool.tok_emb):
            emb, offsets, ids = tok
            keep = [k for k, (a, e) in enumerate(offsets) if in_focus(a, e, focus)] or list(range(len(offsets)))
            emb = emb[keep]
            offsets = [offsets[k] for k in keep]
            ids = [ids[k] for k in keep]
            best_cos = (emb @ pool.tok_emb.T).max(dim=1).values.tolist()
            weights = self._weights(ids)
            tot = sum(weights)
            prec = sum(w * c for w, c in zip(weights, best_cos)) / tot if tot > 0 else 0.0
            f["alignment_raw"] = _finite(prec)
            ab = p["alignment"]["baseline"]
            f["alignment"] = _clip01((f["alignment_raw"] - ab) / (1 - ab))
            mask = self._region_mask(pool, regions)
            if mask is not None and bool(mask.any()):
                loc_cos = (emb @ pool.tok_emb[mask].T).max(dim=1).values.tolist()
                lprec = sum(w * c for w, c in zip(weights, loc_cos)) / tot if tot > 0 else 0.0
            else:
                loc_cos, lprec = best_cos, prec
            f["local_alignment_raw"] = _finite(lprec)
            f["local_alignment"] = _clip01((f["local_alignment_raw"] - ab) / (1 - ab))
            f["low_tokens"] = self._low_words(unit.text, offsets, loc_cos, weights)
        else:
            f["alignment_raw"] = f["local_alignment_raw"] = 0.0
            f["alignment"] = f["local_alignment"] = 0.0
            f["low_tokens"] = []
        return f

    def _regions(self, unit: Unit, tok, pool: _Pool, pick, doc=None) -> tuple[list[Any], tuple[int, int] | None]:
        """The evidence region(s) of a unit, and the sentence piece that locates it.

        The piece is the one whose tokens the unit's words align to best, leaving out the names, numbers and dates
        of the unit's own words (a name swapped in from another sentence must not pull the region there); the region
        is that piece widened by `local.spread` pieces on each side (`local.speaker_spread` for a speaker's unit:
        quotes run on for sentences after their speaker is named). A unit of several sentences gets one region per
        sentence. Without token embeddings the similarity window stands in."""
        from citefix.verify.local import Region

        lp = self.params.get("local", {})
        spread = int(lp.get("speaker_spread", 3) if (unit.meta or {}).get("role") == "speaker" else lp.get("spread", 1))
        sents = split_sentences(unit.text)
        out: list[Any] = []
        located = None
        for sp in (sents if len(sents) > 1 else [None]):
            best = self._best_aligned_piece(unit, tok, pool, doc, within=(sp.start, sp.end) if sp else None)
            if best is None:
                continue
            si, start = best
            located = located or best
            src = pool.sources[si]
            a, b = widen(src.piece_starts, len(src.text), start, start + 1, spread)
            if not any(r.source == si and r.start <= a and b <= r.end for r in out):
                out.append(Region(si, a, b))
        if not out and pick is not None:
            si, wi = pool.win_owner[pick]
            src = pool.sources[si]
            span = src.windows[wi]
            a, b = widen(src.piece_starts, len(src.text), span.start, span.end, spread)
            out.append(Region(si, a, b))
        return out, located

    def _best_aligned_piece(self, unit: Unit, tok, pool: _Pool, doc=None,
                            within: tuple[int, int] | None = None) -> tuple[int, int] | None:
        """(source index, piece start) of the sentence piece whose tokens best align with the unit's own tokens."""
        import torch

        if tok is None or pool.tok_emb is None or not len(tok[0]) or not len(pool.tok_emb):
            return None
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
            spans += [(e.start_char, e.end_char) for e in doc.ents if e.label_ in _ENT_LABELS]
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

    def _local(self, unit: Unit, doc, pool: _Pool, regions: list[Any], focus, groups: list, content: list
               ) -> dict[str, Any]:
        """(d) Elements of the unit's focus that the source holds, but not in the evidence region; verbs whose
        polarity or roles the region contradicts."""
        if not regions:
            return {"misplaced": [], "misplaced_numbers": 0, "misplaced_dates": 0, "misplaced_entities": 0.0,
                    "misplaced_word_frac": 0.0, "polarity_mismatch": 0, "role_swap": 0, "value_conflict": 0,
                    "structure": []}
        seq: list[tuple[int, str, str]] = []
        texts: list[str] = []
        for r in regions:
            src = pool.sources[r.source]
            seq += region_words(src.words_at, r.start, r.end)
            texts.append(src.text[r.start : r.end])
        words = {w for _, w, _ in seq}
        lemmas = {lem for _, _, lem in seq}
        region_text = "\n".join(texts)
        numbers = [n.value for n in find_numbers(region_text)]
        dates = {d for d, _, _ in date_words(region_text)}
        text = unit.text
        out: list[dict[str, Any]] = []
        n_num = n_date = 0
        anchored = self._anchored(doc, pool)
        for n in find_numbers(text):
            if n.soft or not in_focus(n.start, n.end, focus):
                continue
            if number_supported(n, pool.numbers) and not number_supported(n, numbers) and not anchored(n.start, n.end):
                n_num += 1
                out.append({"kind": "number", "text": n.text, "start": n.start, "end": n.end})
        region_lower = " ".join(region_text.lower().split())
        for d, a, b in time_phrases(text):
            if in_focus(a, b, focus) and d in pool.lower_text() and d not in region_lower and not anchored(a, b):
                n_date += 1
                out.append({"kind": "date", "text": text[a:b], "start": a, "end": b})
        for d, a, b in date_words(text):
            if in_focus(a, b, focus) and d in pool.dates and d not in dates and not anchored(a, b):
                n_date += 1
                out.append({"kind": "date", "text": text[a:b], "start": a, "end": b})
        known_loc = lambda t: t.lower_ in words or t.lemma_.lower() in lemmas or t.lower_ in lemmas  # noqa: E731
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
        structure = polarity_mismatches(doc, focus, seq)
        n_pol = len(structure)
        rdocs = self._parse_regions(texts)
        swaps = role_swaps(doc, focus, rdocs) if self.params.get("local", {}).get("roles", True) else []
        structure += swaps
        # a value the source states on the same word elsewhere (an age, a figure or a name the summary gathered from
        # another sentence) is not contradicted by a different value in this region
        conflicts = [c for c in value_conflicts(doc, focus, rdocs) if not anchored(c["start"], c["end"])]
        structure += conflicts
        return {
            "misplaced": out,
            "misplaced_numbers": n_num,
            "misplaced_dates": n_date,
            "misplaced_entities": round(n_ent, 4),
            "misplaced_word_frac": round(len(misplaced_words) / len(content), 4) if content else 0.0,
            "polarity_mismatch": n_pol,
            "role_swap": len(swaps),
            "value_conflict": len(conflicts),
            "structure": structure,
        }

    @staticmethod
    def _anchored(doc, pool: _Pool):
        """A test for a stretch of the unit: does some source sentence piece hold both its words and the content
        word it hangs on in the unit's parse (its head, or the head's head past a preposition)? "a £2.4 million
        plan" is anchored by "… the plan, which will cost £2.4 million" even when that sentence is not the unit's
        evidence; a name swapped in from an unrelated sentence is not."""
        pieces: list[tuple[set[str], set[str]]] = []
        for src in pool.sources:
            ps = src.piece_starts or [0]
            per: list[tuple[set[str], set[str]]] = [(set(), set()) for _ in ps]
            for pos, w, lem in src.words_at:
                k = max(0, bisect.bisect_right(ps, pos) - 1)
                per[k][0].add(w)
                per[k][1].add(lem)
            pieces.extend(per)

        def test(a: int, b: int) -> bool:
            toks = [t for t in doc if t.idx < b and t.idx + len(t.text) > a and not t.is_punct]
            if not toks:
                return False
            inside = {t.i for t in toks}
            head = next((t.head for t in toks if t.head.i not in inside), None)
            while head is not None and head.pos_ in ("ADP", "AUX", "DET", "PART") and head.head.i != head.i:
                head = head.head
            if head is None or head.i in inside or not head.is_alpha:
                return False
            hw, hl = head.lower_, head.lemma_.lower()
            if hl in _LIGHT_HEADS:
                return False  # "X said", "X is": every other sentence has one; they anchor nothing
            need = [(t.lower_, t.lemma_.lower()) for t in toks if t.is_alpha or t.like_num]
            for words, lemmas in pieces:
                if (hw in words or hl in lemmas) and all(w in words or lem in lemmas for w, lem in need):
                    return True
            return False

        return test

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

    def _weights(self, ids: list[int]) -> list[float]:
        idf = self.idf
        if idf is None:
            return [1.0] * len(ids)
        table, default = idf["idf"], idf["default"]
        return [table.get(i, default) for i in ids]

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
                 focus: list[tuple[int, int]] | None = None) -> dict[str, Any]:
        w = self.params["lexical"]
        text = unit.text
        focus = focus or [(0, len(text))]
        missing: list[dict[str, Any]] = []
        # numbers
        nums = [n for n in find_numbers(text) if not n.soft and in_focus(n.start, n.end, focus)]
        miss_num = [n for n in nums if not number_supported(n, pool.numbers)]
        missing += [{"kind": "number", "text": n.text, "start": n.start, "end": n.end} for n in miss_num]
        num_spans = [(n.start, n.end) for n in nums]
        # dates (month / weekday names)
        dates = [d for d in date_words(text) if in_focus(d[1], d[2], focus)]
        miss_date = [d for d in dates if d[0] not in pool.dates]
        # relative times ("last week", "three weeks ago"): the phrase itself must be in the source
        times = [x for x in time_phrases(text) if in_focus(x[1], x[2], focus)]
        if times:
            src_lower = pool.lower_text()
            miss_date += [x for x in times if x[0] not in src_lower]
            dates += times
        missing += [{"kind": "date", "text": text[s:e], "start": s, "end": e} for _, s, e in miss_date]
        # named entities (and proper nouns the NER missed)
        ent_tokens: set[int] = set()
        ent_missing = 0.0
        ents = [e for e in doc.ents if e.label_ in _ENT_LABELS]
        groups = [list(e) for e in ents]
        for e in ents:
            ent_tokens.update(t.i for t in e)
        for t in doc:
            if t.pos_ == "PROPN" and t.i not in ent_tokens and t.is_alpha:
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
            found = [self._known(t, pool) for t in toks]
            frac_missing = 1 - sum(found) / len(found)
            if frac_missing > 0:
                ent_missing += frac_missing
                s, e = g[0].idx, g[-1].idx + len(g[-1].text)
                missing.append({"kind": "entity", "text": text[s:e], "start": s, "end": e, "weight": round(frac_missing, 3)})
        # content words
        content = [
            t
            for t in doc
            if t.pos_ in _CONTENT_POS and t.is_alpha and not t.is_stop and t.i not in ent_tokens and len(t.text) > 1
            and t.lower_ not in _DATE_WORDS and in_focus(t.idx, t.idx + len(t.text), focus)
        ]
        miss_words = [t for t in content if not self._known(t, pool)]
        word_frac = len(miss_words) / len(content) if content else 0.0
        # negation: a cue in the unit and none in the evidence, or the other way round
        neg_u = negations(" ".join(text[a:b] for a, b in focus)) > 0
        neg_s = negations(evidence_text) > 0 if evidence_text else False
        feats = {
            "n_numbers": len(nums),
            "missing_numbers": len(miss_num),
            "n_dates": len(dates),
            "missing_dates": len(miss_date),
            "n_entities": n_ent,
            "missing_entities": round(ent_missing, 4),
            "n_words": len(content),
            "missing_word_frac": round(word_frac, 4),
            "neg_unit_only": int(neg_u and not neg_s),
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

    @staticmethod
    def _known(t, pool: _Pool) -> bool:
        return t.lower_ in pool.words or t.lemma_.lower() in pool.lemmas or t.lower_ in pool.lemmas

    # --- verdicts --------------------------------------------------------------------------------------------------

    def _verdict(self, unit: Unit, f: dict[str, Any], case: Case, signal: str | None = None) -> Verdict:
        signal = signal or self.signal
        name = "offline" if signal == "combined" else f"offline:{signal}"
        if "error" in f:
            return Verdict(unit_id=unit.id, verifier=name, score=None, label="error", error=f["error"],
                           target=list(f.get("target", [])))
        score = self.score(f, signal)
        thresholds = self.profile_params(f.get("profile"))["thresholds"]
        th = thresholds.get(signal, thresholds["combined"])
        label = label_for(score, supported_at=th["supported"], partial_at=th.get("partial"))
        if signal == "combined" and label == "partial" and self._capped(f):
            # The cap's rule: a unit that invents a number, date or name is not partly right, it is unsupported.
            label = "unsupported"
        marks: list[tuple[int, int]] = []
        if signal in ("combined", "lexical"):
            marks += [(m["start"], m["end"]) for m in f["missing"]]
            marks += [(m["start"], m["end"]) for m in f["missing_words"]]
        if signal == "combined":
            marks += [(m["start"], m["end"]) for m in f.get("misplaced", [])]
            marks += [(m["start"], m["end"]) for m in f.get("structure", [])]
        if signal in ("combined", "alignment"):
            marks += [(m["start"], m["end"]) for m in f["low_tokens"]]
        # Only a unit that is not judged supported gets its weak words painted.
        spans = _to_case_spans(unit, case.text, marks) if label != "supported" else []
        details = {
            "signal": signal,
            "profile": f.get("profile", "default"),
            "lexical": round(f["lexical"], 4),
            "alignment": round(f["alignment"], 4),
            "similarity": round(f["similarity"], 4),
            "alignment_raw": round(f["alignment_raw"], 4),
            "similarity_raw": round(f["similarity_raw"], 4),
            **({"entail": round(f["entail"], 4)} if "entail" in f else {}),
            "missing": [m["text"] for m in f["missing"]],
            "missing_words": [m["text"] for m in f["missing_words"]],
            "unsupported_tokens": [m["text"] for m in f["low_tokens"]],
            "local_alignment": round(f.get("local_alignment", 0.0), 4),
            "misplaced": [m["text"] for m in f.get("misplaced", [])],
            "structure": [f"{m['kind']}: {m['text']}" for m in f.get("structure", [])],
            "features": {k: f[k] for k in _FEATURE_KEYS + _LOCAL_KEYS if k in f},
        }
        ev = f.get("evidence")
        return Verdict(
            unit_id=unit.id,
            verifier=name,
            score=score,
            label=label,
            evidence=Evidence(**ev) if ev else None,
            target=list(f.get("target", [])),
            unsupported_spans=spans,
            details=details,
        )


# Heads too common to anchor a name or number to a sentence (light verbs and verbs of saying).
_LIGHT_HEADS = set(
    "be have do say tell add make take get go come give see know think claim state report announce warn insist "
    "argue explain confirm deny believe suggest write note reveal admit stress".split()
)
_FEATURE_KEYS = (
    "n_numbers", "missing_numbers", "n_dates", "missing_dates", "n_entities", "missing_entities", "n_words",
    "missing_word_frac", "neg_unit_only", "neg_source_only", "lexical_log",
)
_LOCAL_KEYS = ("misplaced_numbers", "misplaced_dates", "misplaced_entities", "misplaced_word_frac",
               "polarity_mismatch", "role_swap", "value_conflict")
_DATE_WORDS = set(
    "january february march april may june july august september october november december "
    "monday tuesday wednesday thursday friday saturday sunday".split()
)


def _to_case_spans(unit: Unit, case_text: str, marks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Map unit-text spans to merged case-text spans, when the unit can be aligned to the case text."""
    if not marks or not unit.has_span:
        return []
    from citefix.decompose.clauses import unit_to_text_offsets

    align = unit_to_text_offsets(unit, case_text)
    if align is None:
        return []
    out: list[tuple[int, int]] = []
    for s, e in sorted(set(marks)):
        for a, b, o in align:
            lo, hi = max(s, a), min(e, b)
            if lo < hi:
                out.append((o + lo - a, o + hi - a))
    out.sort()
    merged: list[tuple[int, int]] = []
    for s, e in out:
        if merged and (s <= merged[-1][1] or not case_text[merged[-1][1] : s].strip()):
            merged[-1] = (merged[-1][0], max(e, merged[-1][1]))
        else:
            merged.append((s, e))
    return merged


def _finite(x: float) -> float:
    return float(x) if math.isfinite(x) else 0.0


def _clip01(x: float) -> float:
    x = _finite(x)
    return 0.0 if x < 0 else 1.0 if x > 1 else x


def _quiet_transformers() -> None:
    """No 'Loading weights' progress bars or load warnings from transformers."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    except Exception:  # pragma: no cover - transformers missing is reported by load_encoder
        pass


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


PREFETCH_WINDOW = 16  # cases whose sources are analysed together (one batched spaCy and encoder pass)


def prefetch(verifiers: Sequence[Any], cases: Sequence[Case]) -> list[int]:
    """Analyse the sources of `cases` in one batched pass for every offline verifier among `verifiers` (each once,
    whether given as itself, behind a verdict cache, or as a view of a shared feature pass); returns the positions
    in `verifiers` of those that did the work."""
    seen: set[int] = set()
    did: list[int] = []
    for k, v in enumerate(verifiers):
        base = getattr(getattr(v, "shared", None), "base", None) or v
        fn = getattr(base, "prefetch", None)
        if fn is None or not isinstance(getattr(base, "inner", base), OfflineVerifier) or id(fn.__self__) in seen:
            continue
        seen.add(id(fn.__self__))
        fn(cases)
        did.append(k)
    return did
