"""Typed access to the store's tables: `table(db, name)` is a sqlite-utils `Table`, never a `View`.

`db[name]` types as `Table | View` (a name may be a view); the store's own tables are tables, and this says so once,
checked, so mypy knows `insert`, `update`, `create` and `add_column` are there.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlite_utils.db import Database, Table


def table(db: Database, name: str) -> Table:
    from sqlite_utils.db import Table

    found = db[name]
    if not isinstance(found, Table):
        raise TypeError(f"{name!r} is a view in {db}, not a table; the store writes only to its tables")
    return found


def inserted_pk(inserted: Table) -> int:
    """The id of the row `Table.insert` just wrote (sqlite-utils types `last_pk` as possibly None)."""
    if inserted.last_pk is None:
        raise RuntimeError(f"sqlite-utils gave no primary key for the row just inserted into {inserted.name}")
    return int(inserted.last_pk)
