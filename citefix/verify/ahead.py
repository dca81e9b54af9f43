"""The sources of the next window of cases analysed in a background thread while this window's cases are checked.

A batch check spends about half its time in the MiniLM forward pass over the sources' chunks (torch, which releases
the GIL while it computes) and the other half on each case's units (spaCy parses, the unit signals). With the window
ahead analysed in a second thread the two halves overlap on a machine with two free cores. The work done is the same:
the same windows of cases (``citefix.verify.offline.PREFETCH_WINDOW``), so the same batches go through the encoder and
every score is bit for bit what the one-thread order gives (tests/test_prefetch_ahead.py). Only the order in time
changes; a window's failure is raised where the window is next needed, as it would have been there.

By default (``CITEFIX_PREFETCH_AHEAD`` unset or ``auto``) a window is analysed ahead only when the process may use two
cores or more and the machine's 1-minute load average is below its number of cores (a core is free): on a machine
whose cores are all busy the second thread only competes with the first (measured on the shared 2-core machine at a
load average of 3-4: 40 cases took 5-10% longer ahead than in one thread). ``1`` always analyses ahead, ``0`` never
(each window in the calling thread, as before).
"""

from __future__ import annotations

import os
import threading
from typing import Any, Sequence

from citefix.errors import ConfigError
from citefix.models import Case

AHEAD_ENV = "CITEFIX_PREFETCH_AHEAD"


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return os.cpu_count() or 1


def mode() -> str:
    """$CITEFIX_PREFETCH_AHEAD as auto, always or never."""
    raw = os.environ.get(AHEAD_ENV, "").strip().lower()
    if raw in ("", "auto"):
        return "auto"
    if raw in ("1", "true", "yes", "on"):
        return "always"
    if raw in ("0", "false", "no", "off"):
        return "never"
    raise ConfigError(f"{AHEAD_ENV}={raw!r}: expected auto (the default: the next cases' sources analysed in the "
                      "background when a core is free), 1 (always) or 0 (never: one case after another)")


def core_free() -> bool:
    """Whether a second thread would find a core: two or more usable, and a load average below their number."""
    cores = _cores()
    if cores < 2:
        return False
    try:
        return os.getloadavg()[0] < cores
    except OSError:  # no load average here: assume the cores are ours
        return True


class PrefetchAhead:
    """Windows of cases for ``citefix.verify.offline.prefetch``: each window is analysed before its cases are checked,
    the next one in a background thread meanwhile (``mode()``: auto, always or never)."""

    def __init__(self, verifiers: Sequence[Any], *, ahead: str | None = None):
        self.verifiers = list(verifiers)
        self.mode = mode() if ahead is None else ahead  # auto | always | never
        self.started = 0  # windows analysed in the background
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
            if pending == key:
                did = out["did"]
        if did is None:
            did = prefetch(self.verifiers, list(now)) if now else []
        if after and (self.mode == "always" or (self.mode == "auto" and core_free())):
            self._start(list(after))
        return did

    def _start(self, cases: list[Case]) -> None:
        from citefix.verify.offline import prefetch

        out = self._out

        def work() -> None:
            try:
                out["did"] = prefetch(self.verifiers, cases)
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
