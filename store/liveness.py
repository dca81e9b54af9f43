"""Whether a stored 'running' run is still running: its process on this host, or its heartbeat elsewhere.

`Store.run` and `Store.list_runs` show a running run whose process is gone as 'interrupted' (the stored row is left as
it is; resuming the run sets it running again, with this process's pid, host and a fresh heartbeat).
"""

from __future__ import annotations

import os
from dataclasses import replace
from datetime import datetime, timezone
from typing import TypeVar

from .rows import RunListRow, RunRow

L = TypeVar("L", RunRow, RunListRow)

def host() -> str:
    import socket

    return socket.gethostname()


STALE_HEARTBEAT_S = 6 * 3600  # a running run on another host with no sign of life for this long reads as interrupted


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def liveness(row: L) -> L:
    """A 'running' run whose process is gone (same host, pid not alive; elsewhere: no heartbeat for hours) is shown
    as 'interrupted' (the stored row is left as it is; resuming it sets it running again)."""
    if row.status != "running" or not row.pid:
        return row
    if row.host == host():
        gone = not _pid_alive(int(row.pid))
    else:
        try:
            beat = datetime.fromisoformat(row.heartbeat or "")
            gone = (datetime.now(timezone.utc) - beat).total_seconds() > STALE_HEARTBEAT_S
        except ValueError:
            gone = False
    if gone:
        row = replace(row, status="interrupted")
    return row


def refuse_if_held(row: RunRow) -> None:
    """A run another live process works on (running, not this process's, its process alive) is not taken: RunBusyError
    (exit 4); one whose process is gone reads as interrupted and may be taken."""
    from citefix.errors import RunBusyError

    mine = row.pid == os.getpid() and row.host == host()
    if row.status == "running" and not mine and liveness(row).status == "running":
        raise RunBusyError(f"run {row.id} is being worked on by another citefix process (pid {row.pid} on {row.host}, "
                           f"last seen {row.heartbeat}); wait for it to finish, or stop it and resume the run then")
