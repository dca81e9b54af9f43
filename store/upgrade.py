"""A store made by an earlier citefix, opened to read: upgraded first, so that read commands work on it."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from citefix.errors import ConfigError

if TYPE_CHECKING:
    from . import Store


def upgrade_for_reading(store: Store) -> list[str]:
    """Apply a read-only store's pending migrations (on a writable connection, then read-only again) and return their
    names, for the command to say so; [] when it is up to date."""
    from sqlite_utils import Database

    from . import _BUSY_TRY_S, Store
    from .migrations import pending as pending_migrations

    try:
        pending = [m.name for m in pending_migrations(store.db)]
    except sqlite3.DatabaseError:
        pending = []
    if not pending:
        return []
    store.db.conn.close()
    try:
        writer = Store(store.path, wait=store.wait)
        writer.db.conn.close()
    except ConfigError as exc:
        raise ConfigError(f"the store at {store.path} was made by an earlier citefix and needs upgrading before it can "
                          f"be read, which failed: {exc}") from exc
    conn = sqlite3.connect(f"{store.path.resolve().as_uri()}?mode=ro", uri=True,
                           timeout=min(store.wait, _BUSY_TRY_S), check_same_thread=False)
    store.db = Database(conn)
    return pending
