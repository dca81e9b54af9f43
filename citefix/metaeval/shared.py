"""One offline feature pass shared by several offline verifiers that differ only by signal (`share_offline`), so a
meta-eval of `offline`, `offline:lexical`, … computes the features of an item once. Used by
`citefix.metaeval.runner`, which re-exports these names.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from citefix.models import Case, Unit, Verdict

if TYPE_CHECKING:
    from citefix.verify.base import Verifier
    from citefix.verify.offline import OfflineVerifier


class _SharedOffline:
    """Offline verifiers of several signals with the same parameters: one feature pass per call, all verdicts from it.

    The runner asks each verifier in turn about the same units; the first ask computes the features once
    (``OfflineVerifier.verify_signals``) and the others read their verdicts from a small cache keyed by content.
    """

    def __init__(self, base: OfflineVerifier, signals: Sequence[str], size: int = 4):
        self.base = base
        self.signals = list(signals)
        self.size = size
        self._cache: dict[Any, dict[str, list[Verdict]]] = {}

    def verdicts(self, signal: str, units: Sequence[Unit], case: Case,
                 targets: Sequence[Sequence[str]] | None) -> list[Verdict]:
        key = (
            case.id, case.text, tuple((s.id, s.text) for s in case.sources),
            tuple((u.id, u.text, u.start, u.end) for u in units),
            None if targets is None else tuple(tuple(t or ()) for t in targets),
        )
        got = self._cache.get(key)
        if got is None:
            got = self.base.verify_signals(units, case, self.signals, targets=targets)
            self._cache[key] = got
            while len(self._cache) > self.size:
                self._cache.pop(next(iter(self._cache)))
        return got[signal]


class _SignalView:
    """One signal of a :class:`_SharedOffline`, with the Verifier interface."""

    llm = None
    model_name = None

    def __init__(self, shared: _SharedOffline, signal: str, name: str):
        self.shared = shared
        self.signal = signal
        self.name = name

    @property
    def inner(self) -> OfflineVerifier:
        """The offline verifier whose feature pass this view reads (what `prefetch` warms)."""
        return self.shared.base

    def supported_at(self, profile: str) -> float:
        return self.shared.base.supported_at(profile, self.signal)

    def verify(self, units: Sequence[Unit], case: Case, *,
               targets: Sequence[Sequence[str]] | None = None) -> list[Verdict]:
        return self.shared.verdicts(self.signal, units, case, targets)


def share_offline(verifiers: Mapping[str, Verifier]) -> tuple[dict[str, Verifier], list[str]]:
    """Replace offline verifiers that differ only by signal with views of one shared feature pass.

    Returns the new mapping (same names, same order) and notes for the report.
    """
    from citefix.verify.offline import OfflineVerifier

    groups: dict[str, list[str]] = {}
    offline: dict[str, OfflineVerifier] = {}
    for name, v in verifiers.items():
        if type(v) is OfflineVerifier:
            offline[name] = v
            groups.setdefault(json.dumps(v.params, sort_keys=True, default=str), []).append(name)
    out = dict(verifiers)
    notes: list[str] = []
    for names in groups.values():
        if len(names) < 2:
            continue
        members = [offline[n] for n in names]
        base = next((v for v in members if v.signal in ("combined", "alignment")), members[0])
        shared = _SharedOffline(base, [v.signal for v in members])
        for n, v in zip(names, members):
            out[n] = _SignalView(shared, v.signal, n)
        notes.append(f"{', '.join(names)} share one offline feature pass per item; its time is counted on "
                     f"{names[0]} (the others only derive their scores)")
    return out, notes
