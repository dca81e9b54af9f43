"""The store's LLM cache: identical model requests answered from the `llm_cache` table (the client's CallCache).

`Store.llm_cache()` gives one; `citefix.store` re-exports `LLMCache`. The verdict cache is `Store.verdict_cache_get`
and `verdict_cache_put`.
"""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING

from . import _j, now
from .tables import table

if TYPE_CHECKING:
    from . import Store


class LLMCache:
    """Identical LLM requests answered from the store (the client's CallCache)."""

    def __init__(self, store: Store):
        self.store = store
        self._lock = threading.Lock()  # the client calls from worker threads; one connection serves them in turn

    def get(self, key: str) -> dict | None:
        with self._lock:
            row = next(table(self.store.db, "llm_cache").rows_where("key = ?", [key], limit=1), None)
        return json.loads(row["value"]) if row else None

    def put(self, key: str, model: str, value: dict) -> None:
        with self._lock, self.store.write():
            table(self.store.db, "llm_cache").insert({"key": key, "model": model, "value": _j(value), "created": now()}, replace=True)
