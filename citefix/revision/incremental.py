"""Incremental rounds: a unit whose text and target sources did not change keeps its verdict.

`CachingVerifier` wraps any verifier. The key is the verifier's fingerprint (its name and settings), the unit's text,
the words it is scored on, the hash of the sources it is judged against and, for a verifier that reads it (the
offline one), the sentence of the text that holds the unit; the value is the verdict with its unsupported spans stored
relative to the unit (through the unit's alignment to the text when it has one, else relative to its start), so a
unit that moved because an earlier sentence changed gets its spans back at its new place. Verdicts live in memory for the
session and, given a store, in the store's verdict cache across runs and processes.

The LLM path needs no wrapper to save calls (identical verify requests are answered by the store's LLM cache), but the
wrapper saves even the lookups; the offline verifier has no call cache, so this is what makes its rounds incremental.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Sequence, cast

from citefix.models import Case, Source, Unit, Verdict
from citefix.verify.base import ReadsContext, ReadsSetting, Verifier, Wrapping

if TYPE_CHECKING:
    from citefix.llm.client import LLMClient


@dataclass
class ReuseStats:
    units: int = 0
    reused: int = 0
    verified: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"units": self.units, "reused": self.reused, "verified": self.verified}


def verifier_fingerprint(verifier: Verifier) -> str:
    """Name plus whatever changes a verdict (citefix's version, offline parameters, prompt hash, window, threshold); a
    verifier behind the verdict cache has its own fingerprint. The version is in it because a verdict also reads the
    verifier's code: a store's verdicts from another release are judged again, not reused."""
    from citefix.version import __version__

    verifier = unwrap(verifier)
    parts: dict[str, Any] = {"name": verifier.name, "version": __version__}
    for attr in ("params", "window_words", "threshold", "signal"):
        if hasattr(verifier, attr):
            parts[attr] = getattr(verifier, attr)
    judge = getattr(verifier, "judge_fingerprint", None)
    if judge:  # the learned judge's weights, calibration, decision points and context share
        parts["judge"] = judge
    precision = getattr(verifier, "precision", "fp32")
    if precision != "fp32":  # fp32 left out: fingerprints stored before it stay valid
        parts["precision"] = precision
    prompt = getattr(verifier, "prompt", None)
    if prompt is not None and hasattr(prompt, "hash"):
        parts["prompt"] = prompt.hash
    blob = json.dumps(parts, sort_keys=True, default=str)
    return f"{parts['name']}#{hashlib.sha256(blob.encode()).hexdigest()[:12]}"


def sources_hash(case: Case, ids: Sequence[str]) -> str:
    ids = list(ids) or [s.id for s in case.sources]
    payload = json.dumps([[i, (cast(Source, case.source(i)).text if case.source(i) else None)] for i in ids])
    return hashlib.sha256(payload.encode()).hexdigest()[:16]


def _unit_offsets(unit: Unit, case_text: str) -> list[list[int]] | None:
    unit_to_text_offsets: Callable[[Unit, str], list[list[int]] | None] | None
    try:
        from citefix.decompose.clauses import unit_to_text_offsets
    except ImportError:  # pragma: no cover - the clause decomposer ships with citefix
        unit_to_text_offsets = None
    if unit_to_text_offsets is not None:
        return unit_to_text_offsets(unit, case_text)
    if unit.has_span and case_text[unit.start : unit.end] == unit.text:
        return [[0, len(unit.text), cast(int, unit.start)]]  # has_span: start is set
    return None


def spans_to_unit(unit: Unit, case_text: str, spans: list) -> dict[str, Any]:
    """Case-text spans → {"unit": [[a, b], ...]} in unit-text coordinates when every span maps through the unit's
    alignment, else {"rel": [[a, b], ...]} relative to the unit's start."""
    if not spans:
        return {"unit": []}
    align = _unit_offsets(unit, case_text)
    if align:
        out = []
        for s, e in spans:
            pieces = []
            for a, b, o in align:
                lo, hi = max(s, o), min(e, o + (b - a))
                if lo < hi:
                    pieces.append([a + lo - o, a + hi - o])
            covered = sum(hi - lo for lo, hi in pieces)
            if covered < len(case_text[s:e].strip()):
                break
            out.extend(pieces)
        else:
            return {"unit": out}
    if unit.start is not None:
        return {"rel": [[s - unit.start, e - unit.start] for s, e in spans]}
    return {"rel": None}


def spans_from_unit(unit: Unit, case_text: str, stored: dict[str, Any]) -> list[tuple[int, int]] | None:
    """The inverse of spans_to_unit for the unit at its new place; None when the spans cannot be placed."""
    if "unit" in stored and stored["unit"] is not None:
        if not stored["unit"]:
            return []
        align = _unit_offsets(unit, case_text)
        if not align:
            return None
        out: list[tuple[int, int]] = []
        for s, e in stored["unit"]:
            for a, b, o in align:
                lo, hi = max(s, a), min(e, b)
                if lo < hi:
                    out.append((o + lo - a, o + hi - a))
        return _merge(out)
    rel = stored.get("rel")
    if rel is None or unit.start is None:
        return None
    return [(unit.start + a, unit.start + b) for a, b in rel]


def _merge(spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for a, b in sorted(spans):
        if out and a <= out[-1][1]:
            out[-1] = (out[-1][0], max(b, out[-1][1]))
        else:
            out.append((a, b))
    return out


# what of a unit's meta decides how it is scored, beside its text: its own words (unit-relative), its role, its clause
SCORED_META = ("focus", "role", "clause", "clause_words")


class CachingVerifier:
    """Any verifier, with verdicts of unchanged units reused (see the module docstring)."""

    def __init__(self, inner: Verifier, *, store=None, memory: bool = True):
        self.inner = inner
        self.store = store
        self.memory: dict[str, dict] | None = {} if memory else None
        self.fingerprint = verifier_fingerprint(inner)
        self._setting = _setting_reader(inner)
        self.last = ReuseStats()
        self.total = ReuseStats()
        self._lock = threading.Lock()

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def llm(self) -> LLMClient | None:  # so evaluate() drains the inner verifier's call log
        return self.inner.llm

    @property
    def model_name(self) -> str | None:
        return self.inner.model_name

    def supported_at(self, profile: str) -> float:
        return self.inner.supported_at(profile)

    def key(self, unit: Unit, case: Case, target: Sequence[str]) -> str:
        meta = unit.meta or {}
        # the words it is scored on and what kind of piece it is, as the decomposer marked them: the same words can be
        # cut from a sentence as a whole clause or as a detail's context
        scored = {k: meta[k] for k in SCORED_META if k in meta}
        parts = [self.fingerprint, unit.text, unit.kind, sources_hash(case, target), case.kind, scored]
        if self._setting is not None:  # the sentence around the unit, where the verifier reads it
            parts.append(self._setting(unit, case))
        payload = json.dumps(parts, ensure_ascii=False)
        return hashlib.sha256(payload.encode()).hexdigest()

    def _get(self, key: str) -> dict | None:
        if self.memory is not None and key in self.memory:
            return self.memory[key]
        if self.store is not None:
            with self._lock:
                hit = self.store.verdict_cache_get(key)
            if hit is not None and self.memory is not None:
                self.memory[key] = hit
            return hit
        return None

    def _put(self, key: str, value: dict) -> None:
        if self.memory is not None:
            self.memory[key] = value
        if self.store is not None:
            with self._lock:
                self.store.verdict_cache_put(key, self.inner.name, value)

    def verify(self, units: Sequence[Unit], case: Case, *, targets: Sequence[Sequence[str]] | None = None) -> list[Verdict]:
        units = list(units)
        out: list[Verdict | None] = [None] * len(units)
        todo: list[int] = []
        keys: list[str] = []
        for i, u in enumerate(units):
            target = list(targets[i]) if targets is not None and targets[i] else []
            k = self.key(u, case, target)
            keys.append(k)
            hit = self._get(k)
            if hit is not None:
                v = self._restore(hit, u, case)
                if v is not None:
                    out[i] = v
                    continue
            todo.append(i)
        # a verifier that reads each unit in the context of the whole text (the offline judge) is asked for its
        # verdicts of the units alone, which are what is kept, and reads them all in the text's context afterwards:
        # a reused verdict and a fresh one then meet the same context
        reads = self.inner if isinstance(self.inner, ReadsContext) else None
        verify = reads.verify_alone if reads is not None else self.inner.verify
        if todo:
            sub_targets = [list(targets[i]) for i in todo] if targets is not None else None
            fresh = verify([units[i] for i in todo], case, targets=sub_targets) if targets is not None \
                else verify([units[i] for i in todo], case)
            for i, v in zip(todo, fresh):
                out[i] = v
                if v.error is None and v.score is not None:
                    self._put(keys[i], self._pack(v, units[i], case))
        self.last = ReuseStats(units=len(units), reused=len(units) - len(todo), verified=len(todo))
        self.total.units += self.last.units
        self.total.reused += self.last.reused
        self.total.verified += self.last.verified
        done = [v for v in out if v is not None]
        if reads is not None and len(done) == len(units):
            done = reads.in_context(done, units, case)
        return done

    def _pack(self, v: Verdict, unit: Unit, case: Case) -> dict:
        data = v.model_dump(mode="json")
        data["unit_id"] = None
        data["unsupported_spans"] = spans_to_unit(unit, case.text, [tuple(s) for s in v.unsupported_spans])
        return data

    def _restore(self, data: dict, unit: Unit, case: Case) -> Verdict | None:
        spans = spans_from_unit(unit, case.text, data.get("unsupported_spans") or {"unit": []})
        if spans is None:
            return None
        d = dict(data)
        d["unit_id"] = unit.id
        d["unsupported_spans"] = spans
        d["details"] = {**(d.get("details") or {}), "reused": True}
        return Verdict.model_validate(d)


def _setting_reader(verifier: Verifier) -> Callable[[Unit, Case], str] | None:
    """The `setting` of the verifier or of one it hands its work to (ReadsSetting), if any reads one."""
    v: Any = verifier
    while not isinstance(v, ReadsSetting) and isinstance(v, Wrapping):
        v = v.inner
    return v.setting if isinstance(v, ReadsSetting) else None


def unwrap(verifier: Verifier) -> Verifier:
    """The verifier behind the verdict cache (itself when not wrapped)."""
    return verifier.inner if isinstance(verifier, CachingVerifier) else verifier
