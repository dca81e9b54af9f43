"""Typed rows: what the `Store`'s read methods return, one frozen dataclass per kind of row, every column typed.

Each is built from the sqlite row in one place (`from_row`), which fails naming the columns when the table and the
class disagree (a migration added a column the class does not have yet: add it here, in the table's order). Values are
as SQLite gives them back: `accepted` and `cached` stay 0/1 integers, JSON columns (`settings`, `evaluation`,
`messages`, …) stay text. `as_dict()` gives the row back as the plain dict the store read, keys in column order, for
JSON output (`show --json`, `runs --json`, `export`) and for `export_run`'s picklable bundles.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Mapping, TypeVar

if TYPE_CHECKING:
    from citefix.models import Evaluation

R = TypeVar("R", bound="_Row")


@dataclass(frozen=True)
class _Row:
    """from_row / as_dict for the dataclasses below."""

    @classmethod
    def from_row(cls: type[R], row: Mapping[str, Any]) -> R:
        names = [f.name for f in fields(cls)]
        extra = [k for k in row if k not in names]
        missing = [n for n in names if n not in row]
        if extra or missing:
            raise TypeError(f"{cls.__name__} does not match the stored row: columns not in the class {extra}, "
                            f"fields not in the row {missing}; update citefix/store/rows.py to the schema")
        return cls(**row)

    def as_dict(self) -> dict[str, Any]:
        """The row as the store read it: a plain dict, keys in column order (a shallow copy of the values)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


@dataclass(frozen=True)
class RunRow(_Row):
    """A `runs` row (`Store.run`). `status` is as shown: a running run whose process is gone reads 'interrupted'."""

    id: int
    case_pk: int
    command: str
    status: str
    created: str
    finished: str | None
    input_path: str | None
    llm: str | None
    judge_llm: str | None
    decomposer: str | None
    verifier: str | None
    strategy: str | None
    settings: str | None  # JSON text: the run's settings (RunSettings.stored())
    best_round: int | None
    stop_reason: str | None
    pid: int | None
    host: str | None
    heartbeat: str | None


@dataclass(frozen=True)
class RunListRow(RunRow):
    """A run as `Store.list_runs` lists it: the run row, its case's id and kind, and round figures."""

    case_id: str
    kind: str
    n_rounds: int
    last_score: float | None  # the last accepted round's score (a rejected proposal is not the run's)
    first_score: float | None


@dataclass(frozen=True)
class FoundRunRow(RunRow):
    """A run as `Store.find_runs` finds it: the run row with its case's id and content hash."""

    case_id: str
    content_hash: str


@dataclass(frozen=True)
class RoundRow(_Row):
    """A `rounds` row (`Store.rounds`). `accepted` is 1, 0, or None on rows from before lineage was stored (accepted)."""

    id: int
    run_id: int
    n: int
    status: str | None
    text: str
    comment: str | None
    score: float | None
    judge_score: float | None
    n_units: int
    n_unsupported: int
    edit_prev: int | None
    edit_orig: int | None
    prompt_tokens: int | None
    completion_tokens: int | None
    cost: float | None  # None: a call had no price (unknown, not free)
    duration_s: float | None
    accepted: int | None
    evaluation: str  # JSON text of the Evaluation
    judge_evaluation: str | None
    created: str
    parent: int | None
    strategy: str | None

    @property
    def is_accepted(self) -> bool:
        return self.accepted is None or bool(self.accepted)


@dataclass(frozen=True)
class CallRow(_Row):
    """A `calls` row (`Store.calls`): one model call or failed attempt, as the call log keeps it."""

    id: int
    run_id: int | None
    round_id: int | None
    purpose: str
    model: str
    prompt_name: str | None
    prompt_version: str | None
    prompt_hash: str | None
    messages: str | None  # JSON text, redacted
    response: str | None
    logprobs: str | None
    prompt_tokens: int | None
    completion_tokens: int | None
    latency_ms: float | None
    cost: float | None
    cached: int
    attempts: int | None
    error: str | None
    created: str
    status: str | None  # ok | cached | retried | error (None on rows from before attempts were logged)
    error_class: str | None
    attempt: int | None
    deployment: str | None
    api_base: str | None
    router_fallbacks: int | None


@dataclass(frozen=True)
class LoadedRound(_Row):
    """A stored round as a resumed session takes it (`Store.load_rounds`; `Round(**r.as_dict())`): the evaluations
    parsed, `accepted` a bool, the parent filled in for rows from before lineage was stored, token counts 0 for NULL."""

    n: int
    text: str
    evaluation: Evaluation
    judge: Evaluation | None
    comment: str | None
    parent: int | None
    accepted: bool
    status: str
    strategy: str | None
    edit_prev: int | None
    edit_orig: int | None
    prompt_tokens: int
    completion_tokens: int
    cost: float | None
    duration_s: float | None


def best_round_of(run: RunRow, rows: list[RoundRow]) -> int | None:
    """The run's best round as stored, when it is an accepted, completely checked round; else the accepted complete
    round with the best score (the latest of equals). A rejected proposal and a partly checked round are never the
    best: with neither, None (no round was checked completely)."""
    kept = [r for r in rows if r.is_accepted and r.status != "partial"]
    if run.best_round is not None and run.best_round in {r.n for r in kept}:
        return run.best_round
    if kept:
        return max(kept, key=lambda r: (r.score if r.score is not None else float("-inf"), r.n)).n
    return None


NO_BEST = "none (no round was checked completely)"


def best_round_text(best: int | None) -> str:
    """A best round as the reports write it: its number, or that no round was checked completely."""
    return str(best) if best is not None else NO_BEST
