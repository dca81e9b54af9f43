"""The one event type: what a long step tells its caller as it goes (progress bars, --json lines, the TUI).

An event is a name and a dict. evaluate() sends decompose_started, units_ready, units_scored; a refinement session
sends round_started, progress (evaluate's events wrapped, with round and stage), units_scored, revision_proposed,
round_stored, reverted and run_finished, each with run_id and case_id.
"""

from __future__ import annotations

from typing import Any, Callable

Event = Callable[[str, dict[str, Any]], None]
