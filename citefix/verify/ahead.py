"""The sources of the next window of cases analysed in a background thread while this window's cases are checked.

A batch check spends about half its time in the MiniLM forward pass over the sources' chunks (torch, which releases
the GIL while it computes) and the other half on each case's units (spaCy parses, the unit signals). With the window
ahead analysed in a second thread the two halves overlap on a machine with two free cores. The work done is the same:
the same windows of cases (``citefix.verify.offline.PREFETCH_WINDOW``), so the same batches go through the encoder and
every score is bit for bit what the one-thread order gives (tests/llm/test_prefetch_ahead.py). Only the order in time
changes; a window's failure is raised where the window is next needed, as it would have been there.

The background thread shares no mutable model state with the checking thread: neither spaCy pipelines nor fast
tokenizers may be used from two threads at once (a shared pipeline crashed the process in one of a few 100-case runs;
a shared tokenizer's truncation setting is per object). It works through a twin of each offline verifier: the same
encoder weights (torch inference is thread-safe) with its own copy of the tokenizer, its own spaCy pipeline (loaded
once, the same packaged model), the same parameters; what it analyses moves into the verifier's own cache, under the
cache's lock and within its byte budget, exactly as ``_sources`` would have stored it.

It is off by default (``CITEFIX_PREFETCH_AHEAD`` unset or ``0``: each window in the calling thread): on the 2-core
development machine no gain was ever measured (README, "how it scales"), and it costs ~180 MB of memory. ``auto``
analyses ahead only when the process may use two cores or more and the machine's 1-minute load average is below its
number of cores (a core is free: on a machine whose cores are all busy the second thread only competes with the
first); ``1`` always.
"""

from __future__ import annotations

import copy
import hashlib
import os
import threading
from typing import Any, Sequence

from citefix.errors import ConfigError
from citefix.models import Case
from citefix.nlp import CONTRACTIONS, read_contractions

AHEAD_ENV = "CITEFIX_PREFETCH_AHEAD"


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def mode() -> str:
    """$CITEFIX_PREFETCH_AHEAD as auto, always or never."""
    raw = os.environ.get(AHEAD_ENV, "").strip().lower()
    if raw == "auto":
        return "auto"
    if raw in ("1", "true", "yes", "on"):
        return "always"
    if raw in ("", "0", "false", "no", "off"):
        return "never"
    raise ConfigError(f"{AHEAD_ENV}={raw!r}: expected 0 (the default: one window of cases after "
                      "another), auto (the next cases' sources analysed in the background when a core is free) or 1 "
                      "(always)")


def core_free() -> bool:
    """Whether a second thread would find a core: two or more usable, and a load average below their number."""
    cores = _cores()
    if cores < 2:
        return False
    try:
        return os.getloadavg()[0] < cores
    except OSError:  # no load average here: assume the cores are ours
        return True


def offline_bases(verifiers: Sequence[Any]) -> list[Any]:
    """The distinct offline verifiers among `verifiers` (each once, whether given as itself or behind wrappers)."""
    from citefix.verify.base import Wrapping
    from citefix.verify.offline import OfflineVerifier

    out: dict[int, Any] = {}
    for v in verifiers:
        while isinstance(v, Wrapping):
            v = v.inner
        if isinstance(v, OfflineVerifier):
            out.setdefault(id(v), v)
    return list(out.values())


def twin(base: Any) -> Any:
    """An offline verifier that analyses sources as `base` does, sharing none of its mutable model state: the same
    encoder weights with a copy of the tokenizer, its own spaCy pipeline, the same parameters."""
    import spacy

    enc, nlp = base.encoder, base.nlp
    # the same pipeline, loaded anew from where the shared one came from (its own vocab and caches)
    if getattr(nlp, "path", None):
        own_nlp = spacy.load(nlp.path)
        if all(t in nlp.tokenizer.rules for t in CONTRACTIONS):  # taught as the shared one was
            read_contractions(own_nlp)
    else:
        own_nlp = copy.deepcopy(nlp)
    own_enc = copy.copy(enc)  # the same model object (weights shared), a tokenizer of its own
    own_enc.tokenizer = copy.deepcopy(enc.tokenizer)
    # the verifier's own class (a subclass may analyse differently), with its models and parameters
    return type(base)(signal=base.signal, params=base.params, nlp=own_nlp, encoder=own_enc,
                      cache_bytes=base._cache_bytes, precision=base.precision)


def _key(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8")).hexdigest()  # the key of SourceAnalysis's cache


def seed(analysed: Any, base: Any, cases: Sequence[Case]) -> Any:
    """`analysed` (a twin) given the entries `base` already holds for the sources of `cases`, so that it analyses
    only the others, in the same batches as `base` itself would (a source shared with an earlier window is not
    analysed again, and the batch of the rest is what it would have been)."""
    keys = dict.fromkeys(_key(x.text) for c in cases for x in c.sources)
    with base._lock:
        held = [(k, base._cache[k]) for k in keys if k in base._cache]
    for k, info in held:
        if k not in analysed._cache:
            analysed._cache[k] = info
            analysed._cached_bytes += info.nbytes()
    return analysed


def adopt(base: Any, analysed: Any) -> None:
    """The sources `analysed` (a twin's cache) stored in `base`'s cache, as ``SourceAnalysis._sources`` stores what it
    analyses: an entry already there is kept, the byte count follows, and least recently used entries go once the
    budget is passed (never the ones just stored)."""
    entries = list(analysed._cache.items())
    analysed._cache.clear()
    analysed._cached_bytes = 0
    with base._lock:
        for k, info in entries:
            if k not in base._cache:
                base._cache[k] = info
                base._cached_bytes += info.nbytes()
            base._cache.move_to_end(k)
        keep = {k for k, _ in entries}
        while base._cache and base._cached_bytes > base._cache_bytes:
            k = next(iter(base._cache))
            if k in keep:
                break
            base._cached_bytes -= base._cache.pop(k).nbytes()


class PrefetchAhead:
    """Windows of cases for ``citefix.verify.offline.prefetch``: each window is analysed before its cases are checked,
    the next one in a background thread meanwhile (``mode()``: auto, always or never)."""

    def __init__(self, verifiers: Sequence[Any], *, ahead: str | None = None):
        self.verifiers = list(verifiers)
        self.mode = mode() if ahead is None else ahead  # auto | always | never
        self.started = 0  # windows analysed in the background
        self._twins: dict[int, Any] = {}
        self._thread: threading.Thread | None = None
        self._pending: tuple[str, ...] | None = None  # ids of the cases the background pass covers
        self._out: dict[str, Any] = {}

    def window(self, now: Sequence[Case], after: Sequence[Case] = ()) -> list[int]:
        """`now` analysed (by the pass started for it earlier, or here), `after` started in the background; returns
        what ``prefetch`` returned for `now` (the positions of the verifiers that did the work)."""
        from citefix.verify.offline import prefetch

        key = tuple(c.id for c in now)
        did: list[int] | None = None
        if self._thread is not None:
            pending = self._pending
            self._thread.join()
            self._thread, self._pending = None, None
            out, self._out = self._out, {}
            if "error" in out:
                raise out["error"]
            for base, analysed in out["pairs"]:
                adopt(base, analysed)
            if pending == key:
                did = out["did"]
        if did is None:
            did = prefetch(self.verifiers, list(now)) if now else []
        if after and (self.mode == "always" or (self.mode == "auto" and core_free())):
            self._start(list(after))
        return did

    def _start(self, cases: list[Case]) -> None:
        from citefix.verify.offline import prefetch

        pairs = []
        for base in offline_bases(self.verifiers):
            if id(base) not in self._twins:
                self._twins[id(base)] = twin(base)  # models loaded here, in the calling thread
            pairs.append((base, seed(self._twins[id(base)], base, cases)))
        out = self._out
        out["did"] = prefetch(self.verifiers, [])  # (no work) the positions prefetch gives of the offline verifiers

        def work() -> None:
            try:
                for _, analysed in pairs:
                    analysed.prefetch(cases)
                out["pairs"] = pairs
            except BaseException as exc:  # noqa: BLE001 - raised in the caller's thread when the window is needed
                out["error"] = exc

        self._pending = tuple(c.id for c in cases)
        self.started += 1
        # a daemon: an interrupted command does not wait for the window it will not check
        self._thread = threading.Thread(target=work, name="citefix-prefetch", daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Wait for a background pass still running (its result is dropped)."""
        if self._thread is not None:
            self._thread.join()
            self._thread, self._pending, self._out = None, None, {}
