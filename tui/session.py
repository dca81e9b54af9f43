"""What the TUI holds for the open case: settings, store, pipeline, the case's run and its rounds.

No Textual here and no pipeline logic: every method calls core (citefix.evaluate, citefix.refine, the store, the
history export) and returns plain data. The screens call these methods from worker threads only; `db_lock` keeps the
UI thread's short store reads and a worker's writes from interleaving on the one SQLite connection, and `busy` makes a
new job wait for a cancelled one that is still finishing in its thread.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from citefix.config import Settings
from citefix.errors import InputError, UserError
from citefix.models import Case, Evaluation

Event = Callable[[str, dict[str, Any]], None]


class Cancelled(Exception):
    """The user cancelled the running job; nothing of it is stored."""


@dataclass
class RoundRow:
    """One row of the rounds panel, as the store keeps it."""

    n: int
    score: float | None
    n_units: int
    n_unsupported: int
    cost: float | None
    comment: str | None
    text: str
    status: str
    accepted: bool = True
    edit_prev: int | None = None

    @classmethod
    def from_store(cls, r: dict) -> "RoundRow":
        return cls(n=r["n"], score=r["score"], n_units=r["n_units"] or 0, n_unsupported=r["n_unsupported"] or 0,
                   cost=r["cost"], comment=r["comment"], text=r["text"], status=r["status"] or "done",
                   accepted=bool(r["accepted"] if r["accepted"] is not None else 1), edit_prev=r["edit_prev"])


@dataclass
class Snapshot:
    """What a screen paints after a job: the case, the run's rounds and the evaluation of the round shown."""

    case: Case
    run_id: int | None
    rounds: list[RoundRow]
    current: int | None  # the round whose text is the working text
    evaluation: Evaluation | None  # evaluation of `current` (None before the first check)
    text: str  # the working text (may be edited and not yet checked)
    run: dict = field(default_factory=dict)
    proposal: Any = None  # a pending revision from the refine step API, if any


@dataclass
class Proposal:
    """A revision waiting for accept or reject (what the refine step API proposed)."""

    text: str
    evaluation: Evaluation | None
    comment: str | None = None
    handle: Any = None  # the refine package's own object, passed back on accept/reject


class Workbench:
    """What every open case shares: settings, the store, the pipeline (models load once), and the locks."""

    def __init__(self, settings: Settings, store, transport=None):
        self.settings = settings
        self.store = store
        self.transport = transport
        self._pipeline = None
        self.db_lock = threading.RLock()
        self.busy = threading.Lock()

    @property
    def pipeline(self):
        if self._pipeline is None:
            from citefix.factory import build_pipeline

            self._pipeline = build_pipeline(self.settings, self.store, self.transport)
        return self._pipeline

    def describe(self) -> dict[str, str]:
        s = self.settings
        verifier = getattr(self._pipeline.verifier, "name", s.verifier) if self._pipeline else s.verifier
        return {"llm": s.llm or "none (offline)", "judge": s.judge_llm or "—", "verifier": verifier,
                "strategy": s.strategy, "decomposer": s.decomposer, "store": str(self.store.path)}

    def apply_settings(self, new: Settings, *, save: bool = True) -> Path | None:
        """Validate by building the pipeline (cheap: models load on first use), then swap it in and save."""
        from citefix.config import save_settings
        from citefix.factory import build_pipeline

        check_strategy(new.strategy)
        pipeline = build_pipeline(new, self.store, self.transport)
        self.settings, self._pipeline = new, pipeline
        return save_settings(new) if save else None

    def recent_runs(self, limit: int = 30) -> list[dict]:
        with self.db_lock:
            return self.store.list_runs(limit=limit)

    def open_file(self, path: str, index: int = 0) -> "Session":
        from citefix.inputs import load_cases

        p = str(Path(path).expanduser())
        cases = load_cases(p)
        if not cases:
            raise InputError(f"{p}: no cases in the file")
        if not 0 <= index < len(cases):
            raise InputError(f"{p}: holds {len(cases)} cases; pick one from 1 to {len(cases)}")
        return Session(self, cases[index], input_path=p)

    def open_run(self, run_id: int) -> "Session":
        with self.db_lock:
            case = self.store.case_for_run(run_id)  # InputError when there is no such run
            run = self.store.run(run_id)
            rows = self.store.rounds(run_id)
        s = Session(self, case, input_path=run.get("input_path"))
        s.run_id = run_id
        if rows:
            accepted = [r for r in rows if r["accepted"] is None or r["accepted"]]
            last = (accepted or rows)[-1]
            s.current, s.text = last["n"], last["text"]
        return s


class Session:
    """One open case: its run in the store, the working text, the round it comes from, a pending proposal."""

    def __init__(self, bench: Workbench, case: Case, *, input_path: str | None = None):
        self.bench = bench
        self.case = case
        self.input_path = input_path
        self.run_id: int | None = None
        self.current: int | None = None
        self.text: str = case.text
        self.proposal: Proposal | None = None
        self.refiner = None  # the refine package's step object for this run, built on first use

    @property
    def store(self):
        return self.bench.store

    @property
    def settings(self) -> Settings:
        return self.bench.settings

    @property
    def pipeline(self):
        return self.bench.pipeline

    @property
    def db_lock(self):
        return self.bench.db_lock

    def describe(self) -> dict[str, str]:
        return self.bench.describe()

    def apply_settings(self, new: Settings, *, save: bool = True) -> Path | None:
        path = self.bench.apply_settings(new, save=save)
        self.refiner = None
        return path

    # -- reading ------------------------------------------------------------------------------------------------------
    def rounds(self) -> list[RoundRow]:
        if self.run_id is None:
            return []
        with self.db_lock:
            return [RoundRow.from_store(r) for r in self.store.rounds(self.run_id)]

    def evaluation(self, n: int) -> Evaluation:
        with self.db_lock:
            return self.store.evaluation(self.run_id, n)

    def snapshot(self, n: int | None = None) -> Snapshot:
        assert self.case is not None
        n = self.current if n is None else n
        ev = self.evaluation(n) if (self.run_id is not None and n is not None) else None
        with self.db_lock:
            run = self.store.run(self.run_id) if self.run_id is not None else {}
        return Snapshot(case=self.case, run_id=self.run_id, rounds=self.rounds(), current=self.current, evaluation=ev,
                        text=self.text, run=run, proposal=self.proposal)

    def round_text(self, n: int) -> str:
        for r in self.rounds():
            if r.n == n:
                return r.text
        raise InputError(f"run {self.run_id} has no round {n}")

    def export(self, fmt: str, path: str | None = None) -> tuple[str, str]:
        """Export the run with citefix.commands.history.export_run; returns (path written, format)."""
        from citefix.commands.history import export_run

        if self.run_id is None:
            raise InputError("nothing to export yet: check the text first (c)")
        fmt = {"markdown": "md", "md": "md", "json": "json"}.get(fmt.lower())
        if fmt is None:
            raise InputError("export format is json or md")
        with self.db_lock:
            text = export_run(self.store, self.run_id, fmt)
        out = Path(path or f"citefix-run-{self.run_id}.{fmt}").expanduser()
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write {out}: {exc.strerror or exc}; pick another path") from exc
        return str(out), fmt

    # -- jobs (called from worker threads) ------------------------------------------------------------------------------
    def _ensure_run(self) -> int:
        if self.run_id is None:
            p = self.pipeline
            assert self.case is not None
            with self.db_lock:
                self.run_id = self.store.start_run(
                    self.case, "tui", input_path=self.input_path, llm=self.settings.llm, judge_llm=self.settings.judge_llm,
                    decomposer=self.settings.decomposer, verifier=getattr(p.verifier, "name", self.settings.verifier),
                    strategy=self.settings.strategy,
                    settings={"verifier": self.settings.verifier, "decomposer": self.settings.decomposer})
        return self.run_id

    def check(self, text: str | None = None, *, cancel: threading.Event | None = None, on_event: Event | None = None,
              comment: str | None = None) -> Snapshot:
        """Evaluate the working text (or `text`) and store it as the run's next round."""
        from citefix.evaluate import evaluate

        assert self.case is not None
        on_event = on_event or (lambda e, d: None)
        text = self.text if text is None else text

        def events(name: str, data: dict[str, Any]) -> None:
            if cancel is not None and cancel.is_set():
                raise Cancelled()
            on_event(name, data)

        with self.bench.busy:
            _raise_if(cancel)
            events("loading", {"what": "pipeline"})
            p = self.pipeline
            case = self.case.with_text(text)
            decomposer = p.decomposer_for(case.kind)
            ev = evaluate(case, decomposer=decomposer, verifier=p.verifier, on_event=events)
            _raise_if(cancel)
            run_id = self._ensure_run()
            with self.db_lock:
                rows = self.store.rounds(run_id)
                n = (rows[-1]["n"] + 1) if rows else 0
                if comment is None and n > 0:
                    comment = "checked in the TUI" if text == rows[-1]["text"] else "edited in the TUI"
                self.store.write_round(run_id, n, ev, comment=comment if n > 0 else None)
                self.store.finish_run(run_id, "finished" if ev.status != "error" else "failed", best_round=_best(self.store.rounds(run_id)),
                                      stop_reason="tui")
            self.current, self.text, self.proposal = n, text, None
            on_event("stored", {"run_id": run_id, "round": n})
            return self.snapshot()

    def edit(self, text: str) -> None:
        if not text.strip():
            raise InputError("the text is empty; write something to check")
        self.text = text

    # -- refinement: the refine package's step API ---------------------------------------------------------------------
    def _refine_api(self):
        try:
            import citefix.refine as refine
        except ImportError as exc:  # pragma: no cover - the package ships with citefix
            raise UserError(f"refinement is not available in this install ({exc})") from exc
        if not hasattr(refine, "RefineSession"):
            raise UserError("refinement is not available in this build yet (citefix.refine has no step API)")
        return refine

    def propose(self, *, cancel=None, on_event: Event | None = None) -> Snapshot:
        self._refine_api()
        raise NotImplementedError

    def accept(self, *, cancel=None, on_event: Event | None = None) -> Snapshot:
        self._refine_api()
        raise NotImplementedError

    def reject(self) -> Snapshot:
        self._refine_api()
        raise NotImplementedError

    def revert(self, n: int) -> Snapshot:
        self._refine_api()
        raise NotImplementedError

    def auto_refine(self, rounds: int, *, cancel=None, on_event: Event | None = None) -> Snapshot:
        self._refine_api()
        raise NotImplementedError


def _raise_if(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled()


def _best(rows: list[dict]) -> int | None:
    scored = [r for r in rows if r["score"] is not None]
    return max(scored, key=lambda r: (r["score"], -r["n"]))["n"] if scored else None


def strategy_names() -> list[str]:
    """Feedback strategies, from the refine package's registry when it has one."""
    try:
        from citefix.refine.feedback import available_strategies

        names = available_strategies()
    except ImportError:  # the refine package not built yet: the documented names
        names = None
    return list(names) if names else ["acu", "critique", "none", "citation"]


def check_strategy(name: str) -> None:
    names = strategy_names()
    if name not in names:
        raise InputError(f"unknown strategy {name!r}; use one of {', '.join(names)}")
