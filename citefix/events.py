"""The one event type: what a long step tells its caller as it goes (progress bars, --json lines, the TUI).

An event is a name and a dict. evaluate() sends decompose_started, units_ready, units_verified (k of n, from a verifier
that works through the units itself: `report_units`), units_scored; a refinement session
sends round_started, progress (evaluate's events wrapped, with round and stage), units_scored, revision_proposed,
round_stored, reverted and run_finished, each with run_id and case_id.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Iterator

Event = Callable[[str, dict[str, Any]], None]

# Where a verifier working through many units in this thread says how far it got: set by evaluate() around
# verify(); the callback may raise (a cancel), which stops the verifier between units.
_UNITS_DONE: ContextVar[Callable[[int, int], None] | None] = ContextVar("citefix_units_done", default=None)


def report_units(done: int, total: int) -> None:
    """A verifier's progress: `done` of `total` units verified (nothing happens when nobody listens)."""
    hook = _UNITS_DONE.get()
    if hook is not None:
        hook(done, total)


@contextmanager
def listening_for_units(on_event: Event) -> Iterator[None]:
    """Context for a verify() call: its report_units calls become `units_verified` events."""
    token = _UNITS_DONE.set(lambda done, total: on_event("units_verified", {"done": done, "n": total}))
    try:
        yield
    finally:
        _UNITS_DONE.reset(token)
