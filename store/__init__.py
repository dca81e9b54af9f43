"""The SQLite store: the one place that knows the schema.

One file, opened through sqlite-utils, in WAL mode, migrated on open. Every evaluation round is written in one
transaction together with its units, verdicts, scores and model calls, so a crash never leaves half a round.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import threading
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, TypeVar

from citefix.errors import ConfigError, InputError, StoreBusyError
from citefix.models import CallRecord, Case, Evaluation
from .liveness import host as _host
from .liveness import liveness as _liveness
from .liveness import refuse_if_held
from .rows import CallRow, FoundRunRow, LoadedRound, RoundRow, RunListRow, RunRow
from .tables import inserted_pk as _pk
from .tables import table
from .transfer import RunTransfer

if TYPE_CHECKING:
    from sqlite_utils.db import Database, Table

T = TypeVar("T")


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def default_db_path(explicit: str | os.PathLike | None = None) -> Path:
    """--db PATH, else $CITEFIX_HOME/citefix.db, else $XDG_DATA_HOME/citefix/citefix.db (~/.local/share)."""
    if explicit:
        return Path(explicit).expanduser()
    home = os.environ.get("CITEFIX_HOME")
    if home:
        return Path(home).expanduser() / "citefix.db"
    data = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(data) / "citefix" / "citefix.db"


def _j(value: Any) -> str | None:
    return None if value is None else json.dumps(value, ensure_ascii=False)


STORE_WAIT_ENV = "CITEFIX_STORE_WAIT"
DEFAULT_STORE_WAIT = 30.0  # seconds a writer waits for another process's write lock before giving up
_BUSY_TRY_S = 5.0  # SQLite's own busy wait per attempt; attempts repeat, jittered, until the whole wait is spent
_MAX_BUSY_ATTEMPTS = 60


def store_wait() -> float:
    """Seconds to wait for the write lock: $CITEFIX_STORE_WAIT, else 30."""
    raw = os.environ.get(STORE_WAIT_ENV)
    if raw is None or not raw.strip():
        return DEFAULT_STORE_WAIT
    try:
        value = float(raw)
    except ValueError:
        value = -1.0
    if not (0 <= value < float("inf")):
        raise ConfigError(f"{STORE_WAIT_ENV}={raw!r} is not a number of seconds; set it to e.g. 30 or unset it")
    return value


def _is_busy(exc: BaseException) -> bool:
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text)


def _is_readonly(exc: BaseException) -> bool:
    text = str(exc).lower()
    return isinstance(exc, sqlite3.OperationalError) and ("readonly" in text or "read-only" in text)


def _where_from(path: Path, explicit: bool) -> str:
    """Which input chose the store path, for messages: --db, CITEFIX_HOME or the default."""
    if explicit:
        return "--db (or db in the config file)"
    if os.environ.get("CITEFIX_HOME"):
        return "CITEFIX_HOME"
    return "the default store path"


class Store(RunTransfer):
    db: Database

    def __init__(self, path: str | os.PathLike | None = None, *, readonly: bool = False, wait: float | None = None):
        """Open (and migrate) the store. readonly=True opens an existing store for reading only and creates nothing.

        Every write goes through write(): BEGIN IMMEDIATE, so a writer waits for another process's write lock instead
        of failing on a read-to-write upgrade, retried with jitter until `wait` seconds (CITEFIX_STORE_WAIT) are spent.
        """
        from sqlite_utils import Database

        self.path = default_db_path(path)
        self.readonly = readonly
        self.upgraded: list[str] = []  # migrations a read-only open applied to a store made by an earlier citefix
        self.wait = store_wait() if wait is None else float(wait)
        self._wlock = threading.RLock()  # one connection serves worker threads; a write transaction is theirs in turn
        source = _where_from(self.path, bool(path))
        if readonly:
            if not self.path.is_file():
                what = "is not a file" if self.path.exists() else "does not exist"
                raise InputError(f"no store at {self.path} (it {what}); check {source}, or list runs where they are "
                                 "with: citefix runs --db PATH")
            try:
                conn = sqlite3.connect(f"{self.path.resolve().as_uri()}?mode=ro", uri=True,
                                       timeout=min(self.wait, _BUSY_TRY_S), check_same_thread=False)
                self.db = Database(conn)
                self.db.execute("select count(*) from sqlite_master").fetchall()
            except sqlite3.DatabaseError as exc:
                raise ConfigError(f"cannot read the store at {self.path} ({exc}); check {source}") from exc
            if "runs" not in self.db.table_names():
                what = "an empty file" if self.path.stat().st_size == 0 else "an SQLite file without citefix's tables"
                raise InputError(f"{self.path} is not a citefix store ({what}); check {source}, or point --db at a "
                                 "store that citefix check, refine or tui made")
            from .upgrade import upgrade_for_reading

            self.upgraded = upgrade_for_reading(self)
            return
        parent = self.path.parent
        for folder in [parent, *parent.parents]:
            if folder.exists():
                if not folder.is_dir():
                    raise ConfigError(f"{folder} is a file, not a folder, so the store {self.path} cannot be made "
                                      f"there; point {source} at a folder path")
                break
        try:
            parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(str(self.path), timeout=min(self.wait, _BUSY_TRY_S), check_same_thread=False)
            self.db = Database(conn)
            self._retry_busy(lambda: self.db.execute("PRAGMA journal_mode=WAL;"))
            self.db.execute("PRAGMA foreign_keys=ON;")
            self._migrate()
        except StoreBusyError:
            raise
        except (sqlite3.DatabaseError, OSError) as exc:
            if _is_readonly(exc) or isinstance(exc, PermissionError):
                raise ConfigError(f"the store at {self.path} is read-only ({exc}); make it writable or point {source} "
                                  "at a writable path") from exc
            raise ConfigError(f"cannot open the store at {self.path}: {exc}; check {source} or pass another path "
                              "with --db") from exc

    def _migrate(self) -> None:
        """Apply pending migrations inside one BEGIN IMMEDIATE transaction (two processes opening a new store at once
        take turns; the second finds nothing pending)."""
        from .migrations import apply, earlier_names
        from .migrations import pending as pending_migrations

        try:
            pending = bool(list(pending_migrations(self.db))) or earlier_names(self.db)
        except sqlite3.OperationalError as exc:
            if not _is_busy(exc):
                raise
            pending = True  # another process holds the lock (maybe migrating): take a turn and look again inside
        if not pending:
            return
        with self.write():
            apply(self.db)

    def _table(self, name: str) -> Table:
        """One of the store's tables, typed as a sqlite-utils Table (never a View)."""
        return table(self.db, name)

    def _retry_busy(self, fn: Callable[[], T]) -> T:
        """fn() retried with jitter while SQLite says busy, for at most self.wait seconds in all."""
        deadline = time.monotonic() + self.wait
        attempt = 0
        while True:
            try:
                return fn()
            except sqlite3.OperationalError as exc:
                if not _is_busy(exc):
                    raise
                attempt += 1
                if time.monotonic() >= deadline or attempt >= _MAX_BUSY_ATTEMPTS:
                    raise StoreBusyError(
                        f"the store at {self.path} stayed locked by another process for {self.wait:g} s; wait for it "
                        f"to finish and run again, or raise {STORE_WAIT_ENV} (seconds)") from exc
                time.sleep(min(max(0.0, deadline - time.monotonic()), random.uniform(0.02, 0.1) * min(attempt, 10)))

    @contextmanager
    def write(self) -> Iterator[Database]:
        """One write transaction: BEGIN IMMEDIATE (waits for the write lock, bounded and jittered), commit on success,
        roll back on any exception. Nested calls join the outer transaction."""
        if self.readonly:
            raise ConfigError(f"the store at {self.path} was opened read-only; this command cannot write to it")
        with self._wlock:
            if self.db.conn.in_transaction:
                with self.db.atomic():
                    yield self.db
                return
            try:
                self._retry_busy(lambda: self.db.conn.execute("BEGIN IMMEDIATE"))
            except sqlite3.OperationalError as exc:
                self._raise_if_readonly(exc)
                raise
            try:
                yield self.db
            except BaseException as exc:
                if self.db.conn.in_transaction:
                    self.db.conn.execute("ROLLBACK")
                self._raise_if_readonly(exc)
                raise
            try:
                self.db.conn.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                if self.db.conn.in_transaction:
                    self.db.conn.execute("ROLLBACK")
                self._raise_if_readonly(exc)
                raise

    def _raise_if_readonly(self, exc: BaseException) -> None:
        if _is_readonly(exc):
            raise ConfigError(f"the store at {self.path} is read-only; make it writable or pass a writable "
                              "path with --db") from exc

    def close(self) -> None:
        self.db.close()

    # -- cases and runs ----------------------------------------------------------------------------------------------
    def upsert_case(self, case: Case) -> int:
        h = case.content_hash()
        with self.write():  # the read and the insert in one IMMEDIATE transaction: no read-to-write upgrade
            row = next(self._table("cases").rows_where("content_hash = ?", [h], limit=1), None)
            if row:
                return int(row["id"])
            return _pk(self._table("cases").insert(
                {"case_id": case.id, "kind": case.kind, "content_hash": h, "data": case.model_dump_json(), "created": now()}
            ))

    def start_run(self, case: Case, command: str, *, input_path: str | None = None, llm: str | None = None,
                  judge_llm: str | None = None, decomposer: str | None = None, verifier: str | None = None,
                  strategy: str | None = None, settings: dict | None = None) -> int:
        with self.write():
            case_pk = self.upsert_case(case)
            return _pk(self._table("runs").insert(
                {
                    "case_pk": case_pk,
                    "command": command,
                    "status": "running",
                    "created": now(),
                    "input_path": input_path,
                    "llm": llm,
                    "judge_llm": judge_llm,
                    "decomposer": decomposer,
                    "verifier": verifier,
                    "strategy": strategy,
                    "settings": _j(settings or {}),
                    "pid": os.getpid(),
                    "host": _host(),
                    "heartbeat": now(),
                }
            ))

    def finish_run(self, run_id: int, status: str, *, best_round: int | None = None, stop_reason: str | None = None) -> None:
        with self.write():
            self._table("runs").update(run_id, {"status": status, "finished": now(), "best_round": best_round,
                                            "stop_reason": stop_reason})

    def claim_run(self, run_id: int) -> None:
        """Take a stored run for this process (running, its pid, host and a fresh heartbeat) in one write transaction,
        unless another live process works on it (RunBusyError, exit 4: liveness.refuse_if_held)."""
        self.run(run_id)  # a run that is not there: the InputError that says so
        with self.write():
            refuse_if_held(RunRow.from_row(self._table("runs").get(run_id)))
            self._table("runs").update(run_id, {"status": "running", "finished": None, "pid": os.getpid(),
                                                "host": _host(), "heartbeat": now()})

    def update_run(self, run_id: int, **fields: Any) -> None:
        if fields.get("status") == "running":  # (re)claimed by this process: its pid, host and a fresh heartbeat
            fields = {"pid": os.getpid(), "host": _host(), "heartbeat": now(), **fields}
        with self.write():
            self._table("runs").update(run_id, fields)

    def run(self, run_id: int) -> RunRow:
        from sqlite_utils.db import NotFoundError

        try:
            row = self._table("runs").get(run_id)
        except NotFoundError as exc:
            raise InputError(f"no run {run_id} in {self.path}; list stored runs with: citefix runs") from exc
        return _liveness(RunRow.from_row(row))

    def case_for_run(self, run_id: int) -> Case:
        run = self.run(run_id)
        return Case.model_validate_json(self._table("cases").get(run.case_pk)["data"])

    def list_runs(self, *, case: str | None = None, strategy: str | None = None, model: str | None = None,
                  command: str | None = None, limit: int = 50) -> list[RunListRow]:
        where: list[str] = []
        params: list[Any] = []
        if case:
            where.append("(c.case_id = ? OR c.case_id LIKE ?)")
            params += [case, f"%{case}%"]
        if strategy:
            where.append("r.strategy = ?")
            params.append(strategy)
        if model:
            where.append("(r.llm LIKE ? OR r.judge_llm LIKE ? OR r.verifier LIKE ?)")  # a substring, like --case
            params += [f"%{model}%"] * 3
        if command:
            where.append("r.command = ?")
            params.append(command)
        sql = (
            "select r.*, c.case_id, c.kind, "
            "(select count(*) from rounds x where x.run_id = r.id) as n_rounds, "
            # complete rounds' scores only; the last is the current text's (a rejected proposal is not the run's)
            "(select score from rounds x where x.run_id = r.id and coalesce(x.accepted, 1) = 1 and coalesce(x.status, "
            "'') != 'partial' order by n desc limit 1) as last_score, (select score from rounds x where x.run_id = r.id "
            "and coalesce(x.status, '') != 'partial' order by n asc limit 1) as first_score "
            "from runs r join cases c on c.id = r.case_pk"
            + (" where " + " and ".join(where) if where else "")
            + " order by r.id desc limit ?"
        )
        return [_liveness(RunListRow.from_row(r)) for r in self.db.query(sql, params + [limit])]

    # -- rounds -------------------------------------------------------------------------------------------------------
    def write_round(
        self,
        run_id: int,
        n: int,
        evaluation: Evaluation,
        *,
        calls: Iterable[CallRecord] = (),
        comment: str | None = None,
        judge: Evaluation | None = None,
        edit_prev: int | None = None,
        edit_orig: int | None = None,
        duration_s: float | None = None,
        status: str = "done",
        accepted: bool = True,
        parent: int | None = None,
        strategy: str | None = None,
    ) -> int:
        """Write one round, its units, verdicts, scores and calls in a single transaction; returns the round id.

        Refinement rounds also give `parent` (the round this one revised) and `strategy`; a proposal the writer rejected
        is kept with accepted=False."""
        calls = list(calls) + list(evaluation.calls) + (list(judge.calls) if judge else [])
        from citefix.costs import summarise_calls

        spent = summarise_calls(calls)  # cost None (unknown) when a paid call has no price, never a silent 0
        n_unsupported = len(evaluation.unsupported)
        with self.write():
            round_id = _pk(self._table("rounds").insert(
                {
                    "run_id": run_id,
                    "n": n,
                    "status": status,
                    "text": evaluation.text,
                    "comment": comment,
                    "score": evaluation.score,
                    "judge_score": judge.score if judge else None,
                    "n_units": len(evaluation.checked_units),
                    "n_unsupported": n_unsupported,
                    "edit_prev": edit_prev,
                    "edit_orig": edit_orig,
                    "prompt_tokens": sum(c.prompt_tokens or 0 for c in calls if not c.cached),
                    "completion_tokens": sum(c.completion_tokens or 0 for c in calls if not c.cached),
                    "cost": spent.cost,
                    "duration_s": duration_s if duration_s is not None else evaluation.duration_s,
                    "accepted": int(bool(accepted)),
                    "parent": parent,
                    "strategy": strategy,
                    "evaluation": evaluation.model_dump_json(),
                    "judge_evaluation": judge.model_dump_json() if judge else None,
                    "created": now(),
                }
            ))
            self.db.execute("update runs set heartbeat = ? where id = ?", [now(), run_id])
            for role, ev in (("primary", evaluation), ("judge", judge)):
                if ev is None:
                    continue
                self._write_units_verdicts(round_id, role, ev)
            self.write_calls(run_id, round_id, calls)
        return round_id

    def _write_units_verdicts(self, round_id: int, role: str, ev: Evaluation) -> None:
        unit_rows: dict[str, int] = {}
        if role == "primary":
            for idx, u in enumerate(ev.units):
                unit_rows[u.id] = _pk(self._table("units").insert(
                    {
                        "round_id": round_id,
                        "uid": u.id,
                        "idx": idx,
                        "text": u.text,
                        "kind": u.kind,
                        "decomposer": u.decomposer,
                        "start": u.start,
                        "end": u.end,
                        "note": u.note,
                        "cited": _j(u.cited),
                        "sentence": u.sentence,
                        "grp": u.group,
                        "meta": _j(u.meta),
                    }
                ))
        else:
            unit_rows = {r["uid"]: r["id"] for r in self._table("units").rows_where("round_id = ?", [round_id])}
        self._table("verdicts").insert_all(
            {
                "round_id": round_id,
                "unit_row": unit_rows.get(v.unit_id),
                "uid": v.unit_id,
                "role": role,
                "verifier": v.verifier,
                "score": v.score,
                "label": v.label,
                "discrete": int(v.discrete),
                "target": _j(v.target),
                "evidence_source": v.evidence.source_id if v.evidence else None,
                "evidence_start": v.evidence.start if v.evidence else None,
                "evidence_end": v.evidence.end if v.evidence else None,
                "evidence_text": v.evidence.text if v.evidence else None,
                "unsupported_spans": _j(v.unsupported_spans),
                "details": _j(v.details),
                "error": v.error,
            }
            for v in ev.verdicts
        )
        scores = dict(ev.scores)
        scores.setdefault("score", ev.score)
        self._table("scores").insert_all(
            {"round_id": round_id, "role": role, "name": k, "value": v} for k, v in scores.items() if v is not None
        )

    def write_calls(self, run_id: int | None, round_id: int | None, calls: Iterable[CallRecord]) -> None:
        from citefix.llm.failures import redact

        calls = list(calls)
        if not calls:
            return
        with self.write():
            self._insert_calls(run_id, round_id, calls, redact)

    def _insert_calls(self, run_id: int | None, round_id: int | None, calls: list[CallRecord],
                      redact: Callable[[str | None], str | None]) -> None:
        logged = [c for c in calls if c.logged_id is not None]  # written as they completed: attach them to the round
        for c in logged:
            self.db.execute("update calls set round_id = ?, run_id = coalesce(run_id, ?) where id = ?",
                            [round_id, run_id, c.logged_id])
        calls = [c for c in calls if c.logged_id is None]
        self._table("calls").insert_all(
            {
                "run_id": run_id,
                "round_id": round_id,
                "purpose": c.purpose,
                "model": c.model,
                "prompt_name": c.prompt_name,
                "prompt_version": c.prompt_version,
                "prompt_hash": c.prompt_hash,
                "messages": redact(_j(c.messages)),
                "response": redact(c.response),
                "logprobs": _j(c.logprobs),
                "prompt_tokens": c.prompt_tokens,
                "completion_tokens": c.completion_tokens,
                "latency_ms": c.latency_ms,
                "cost": c.cost,
                "cached": int(c.cached),
                "attempts": c.attempts,
                "error": redact(c.error),
                "created": now(),
                "status": c.status,
                "error_class": c.error_class,
                "attempt": c.attempt,
                "deployment": c.deployment,
                "api_base": redact(c.api_base),
                "router_fallbacks": c.router_fallbacks,
            }
            for c in calls
        )

    def call_logger(self, run_id: int | None) -> Callable[[CallRecord], None]:
        """A sink for LLMClient.bind_log: writes each call or failed attempt as it completes, in its own short
        transaction outside any round's, and remembers its row so the round can claim it later."""
        from citefix.llm.failures import redact

        def log(rec: CallRecord) -> None:
            with self.write():
                self._insert_calls(run_id, None, [rec], redact)
                rec.logged_id = int(self.db.execute("select last_insert_rowid()").fetchone()[0])

        return log

    def rounds(self, run_id: int) -> list[RoundRow]:
        return [RoundRow.from_row(r) for r in self._table("rounds").rows_where("run_id = ?", [run_id], order_by="n")]

    def load_rounds(self, run_id: int) -> list[LoadedRound]:
        """A run's rounds as a session resumes them (`Round(**r.as_dict())`), in order: evaluations parsed, `accepted` a
        bool (an old row's NULL is accepted), a missing parent (rows from before lineage was stored) the last accepted
        round."""
        out: list[LoadedRound] = []
        prev_n: int | None = None
        for r in self.rounds(run_id):
            ev = Evaluation.model_validate_json(r.evaluation)
            judge = Evaluation.model_validate_json(r.judge_evaluation) if r.judge_evaluation else None
            parent = r.parent
            if parent is None and r.n > 0:
                parent = prev_n
            out.append(LoadedRound(
                n=r.n, text=r.text, evaluation=ev, judge=judge, comment=r.comment, parent=parent,
                accepted=r.is_accepted, status=r.status or "done", strategy=r.strategy, edit_prev=r.edit_prev,
                edit_orig=r.edit_orig, prompt_tokens=r.prompt_tokens or 0, completion_tokens=r.completion_tokens or 0,
                cost=r.cost, duration_s=r.duration_s))
            if r.is_accepted:
                prev_n = r.n
        return out

    def evaluation(self, run_id: int, n: int | None = None, *, role: str = "primary") -> Evaluation:
        from citefix.errors import InputError  # one name for every branch below (a branch-local import shadows it)

        rows = self.rounds(run_id)
        if not rows:
            raise InputError(f"run {run_id} has no stored rounds")
        row: RoundRow | None
        if n is None:  # the run's current text: its last accepted round (a rejected or reverted round is not it)
            kept = [r for r in rows if r.is_accepted]
            row = (kept or rows)[-1]
        else:
            row = next((r for r in rows if r.n == n), None)
        if row is None:
            raise InputError(f"run {run_id} has no round {n}; it has rounds {[r.n for r in rows]}")
        blob = row.evaluation if role == "primary" else row.judge_evaluation
        if blob is None:
            raise InputError(f"run {run_id} round {row.n} has no {role} evaluation stored (it was not judged)")
        return Evaluation.model_validate_json(blob)

    def calls(self, run_id: int) -> list[CallRow]:
        return [CallRow.from_row(r) for r in self._table("calls").rows_where("run_id = ?", [run_id], order_by="id")]

    def set_lineage(self, run_id: int, accepted: Iterable[int]) -> None:
        """Mark the rounds numbered in `accepted` as accepted and every other round of the run as not (a revert)."""
        keep = set(accepted)
        with self.write():
            for r in self._table("rounds").rows_where("run_id = ?", [run_id], select="id, n, accepted"):
                flag = int(r["n"] in keep)
                if r["accepted"] != flag:
                    self._table("rounds").update(r["id"], {"accepted": flag})

    def find_runs(self, *, content_hash: str, command: str | None = None,
                  strategy: str | None = None) -> list[FoundRunRow]:
        """Runs of the case with this content hash (newest first), optionally of one command and strategy."""
        where, params = ["c.content_hash = ?"], [content_hash]
        if command:
            where.append("r.command = ?")
            params.append(command)
        if strategy:
            where.append("r.strategy = ?")
            params.append(strategy)
        sql = ("select r.*, c.case_id, c.content_hash from runs r join cases c on c.id = r.case_pk where "
               + " and ".join(where) + " order by r.id desc")
        return [FoundRunRow.from_row(r) for r in self.db.query(sql, params)]

    def delete_rounds_from(self, run_id: int, n: int) -> None:
        """Remove rounds >= n of a run (used when a writer reverts and continues from an earlier round)."""
        with self.write():
            ids = [r["id"] for r in self._table("rounds").rows_where("run_id = ? and n >= ?", [run_id, n])]
            for rid in ids:
                self.db.execute("delete from verdicts where round_id = ?", [rid])
                self.db.execute("delete from units where round_id = ?", [rid])
                self.db.execute("delete from scores where round_id = ?", [rid])
                self.db.execute("update calls set round_id = null where round_id = ?", [rid])
                self.db.execute("delete from rounds where id = ?", [rid])

    # -- meta-evaluation --------------------------------------------------------------------------------------------
    def save_metaeval(self, run: Mapping[str, Any], items: Iterable[Mapping[str, Any]]) -> int:
        """One meta-eval run and its per-item scores, in one transaction."""
        with self.write():
            run_id = _pk(self._table("metaeval_runs").insert(dict(run)))
            self._table("metaeval_items").insert_all({"metaeval_run_id": run_id, **row} for row in items)
        return run_id

    # -- caches -------------------------------------------------------------------------------------------------------
    def llm_cache(self) -> LLMCache:
        return LLMCache(self)

    def verdict_cache_get(self, key: str) -> dict | None:
        row = next(self._table("verdict_cache").rows_where("key = ?", [key], limit=1), None)
        return json.loads(row["value"]) if row else None

    def verdict_cache_put(self, key: str, verifier: str, value: dict) -> None:
        if self.readonly:
            return
        with self.write():
            self._table("verdict_cache").insert({"key": key, "verifier": verifier, "value": _j(value), "created": now()}, replace=True)


from .caches import LLMCache  # noqa: E402 - re-exported; defined beside the store, needs now() and _j()
