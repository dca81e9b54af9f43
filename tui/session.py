"""What the TUI holds for the open case: settings, store, pipeline, and the case's refinement session.

No Textual here and no pipeline logic: the pipeline is built by citefix.pipeline.build_run_pipeline from a RunSettings
(as `citefix refine` builds it, so the TUI can use every setting the CLI can); checks, revisions, accept/reject and
revert are steps of citefix.revision.session.RefineSession (the same object `citefix refine` loops over); export is
citefix.export.export_run. Jobs run in worker threads and return a Snapshot, plain data the screen paints,
so the UI thread never waits on a model. `busy` makes a new job wait for a cancelled one still finishing in its thread.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from citefix.events import Event
from citefix.config import Settings
from citefix.errors import Cancelled, InputError  # noqa: F401 - Cancelled: what a cancelled job raises

if TYPE_CHECKING:  # pydantic models load with the first case, after the first paint
    from citefix.models import Case, Evaluation
    from citefix.revision.session import Proposal
    from citefix.pipeline import RunSettings
    from citefix.store.rows import RoundRow as StoredRound
    from citefix.store.rows import RunListRow, RunRow



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
    parent: int | None = None
    strategy: str | None = None
    edit_prev: int | None = None
    judge_score: float | None = None

    @classmethod
    def from_store(cls, r: StoredRound) -> "RoundRow":
        return cls(n=r.n, score=r.score, n_units=r.n_units or 0, n_unsupported=r.n_unsupported or 0,
                   cost=r.cost, comment=r.comment, text=r.text, status=r.status or "done",
                   accepted=r.is_accepted, parent=r.parent, strategy=r.strategy, edit_prev=r.edit_prev,
                   judge_score=r.judge_score)


@dataclass
class Snapshot:
    """What a screen paints after a job: the case, the run's rounds with their evaluations, the working text."""

    case: Case
    run_id: int | None
    rounds: list[RoundRow]
    current: int | None  # the round whose text the working text comes from
    evaluation: Evaluation | None  # evaluation of `current` (None before the first check)
    text: str  # the working text (may be edited and not yet checked)
    run: RunRow | None = None  # the stored run (None before the first check)
    proposal: Proposal | None = None  # a revision waiting for accept or reject (evaluated), as the session made it
    evaluations: dict[int, Evaluation] = field(default_factory=dict)  # every stored round's, for viewing and diffs
    info: str | None = None  # something to tell the user (why there was no revision, why auto-refine stopped)
    warning: str | None = None  # the same, when the work stopped on a fault (a model failed, a round checked in part)


class Workbench:
    """What every open case shares: settings, the store, the pipeline (models load once), the busy lock.

    The store opens on first use (in a worker: sqlite-utils is not needed for the first paint)."""

    def __init__(self, settings: Settings | RunSettings, store=None, transport=None):
        # everything a run needs (judge verifier, reviser, loop limits besides config.Settings): citefix.pipeline,
        # where the pipeline is built too; a plain Settings gets the loop defaults
        self.run_settings = settings if not isinstance(settings, Settings) else _run_settings(settings)
        self._store = store
        self.transport = transport
        self._pipeline = None
        self.generation = 0  # bumped when settings change: sessions rebuild their refiner
        self.busy = threading.Lock()
        self._store_lock = threading.Lock()

    @property
    def settings(self) -> Settings:
        return self.run_settings.settings

    @property
    def store(self):
        if self._store is None:
            with self._store_lock:
                if self._store is None:
                    from citefix.store import Store

                    self._store = Store(self.settings.db)
        return self._store

    @property
    def store_opened(self) -> bool:
        return self._store is not None

    @property
    def pipeline(self):
        """The run pipeline (citefix.pipeline.build_run_pipeline): the same one `citefix refine` builds."""
        if self._pipeline is None:
            from citefix.pipeline import build_run_pipeline

            self._pipeline = build_run_pipeline(self.run_settings, self.store, self.transport)
        return self._pipeline

    def needs_warm_up(self) -> bool:
        return not self._warmed

    _warmed = False

    def warm_up_label(self) -> str:
        if self.settings.llm is None:
            return "loading the models (spaCy, MiniLM) in the background"
        return "loading the LLM client (litellm) in the background"

    def warm_up(self, kind: str = "summary") -> list[str]:
        """Load now, in the background, what the first check would otherwise load while the writer waits.

        Offline: touches the lazy model attributes (`nlp`, `encoder`) the decomposer and verifier expose; their
        loaders keep one copy per process, so every later decomposer and verifier shares them. With an LLM: imports
        litellm (about a second) unless a scripted transport stands in. Both: the refinement loop's modules.
        Returns what was loaded."""
        loaded = []
        with self.busy:  # a check started meanwhile waits here instead of loading the same things twice
            import citefix.revision.session  # noqa: F401 - the module every job runs

            p = self.pipeline
            if p.llm is not None and self.transport is None:
                import os

                os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # as the client does: no network
                import litellm  # noqa: F401

                loaded.append("litellm")
            from citefix.revision.incremental import unwrap

            for obj in (p.decomposer_for(kind), unwrap(p.verifier)):
                for attr in ("nlp", "encoder"):
                    if isinstance(getattr(type(obj), attr, None), property):
                        getattr(obj, attr)
                        loaded.append(f"{type(obj).__name__}.{attr}")
            self._warmed = True
        return loaded

    def judge_verifier(self):
        """The judge that scores rounds a second time (settings.judge_llm, a judge verifier), or None."""
        return self.pipeline.judge

    def describe(self) -> dict[str, str]:
        s = self.settings
        if self._pipeline is not None:
            verifier = self._pipeline.verifier.name
        else:  # what "auto" will pick (citefix.pipeline.build_verifier's rule), before the pipeline is built
            verifier = f"auto ({'llm' if s.llm else 'offline'})" if s.verifier == "auto" else s.verifier
        return {"llm": s.llm or "none (offline)", "judge": s.judge_llm or "—", "verifier": verifier,
                "strategy": s.strategy, "decomposer": s.decomposer,
                "store": str(self._store.path) if self._store is not None else "(opening)"}

    def apply_settings(self, new: Settings, *, save: bool = True) -> Path | None:
        """Validate by building what the settings name (cheap: models load on first use), swap it in, save."""
        from citefix.config import save_settings
        from citefix.pipeline import build_run_pipeline

        run = replace(self.run_settings, settings=new)
        pipeline = build_run_pipeline(run, self.store, self.transport)
        pipeline.strategy_for(new.strategy)
        self.run_settings, self._pipeline = run, pipeline
        self.generation += 1
        return save_settings(new) if save else None

    def recent_runs(self, limit: int = 30) -> list[RunListRow]:
        return self.store.list_runs(limit=limit)

    def open_file(self, path: str, index: int = 0) -> "Session":
        from citefix.inputs import load_cases

        p = str(Path(path).expanduser())
        cases = load_cases(p)
        if not 0 <= index < len(cases):
            raise InputError(f"{p}: holds {len(cases)} case(s); pick one from 1 to {len(cases)} (--case N)")
        return Session(self, cases[index], input_path=p)

    def open_run(self, run_id: int) -> "Session":
        case = self.store.case_for_run(run_id)  # InputError when there is no such run
        run = self.store.run(run_id)
        rows = self.store.rounds(run_id)
        s = Session(self, case, input_path=run.input_path)
        s.run_id = run_id
        if rows:
            accepted = [r for r in rows if r.is_accepted]
            last = (accepted or rows)[-1]
            s.current, s.text = last.n, last.text
        return s


def _run_settings(settings: Settings) -> "RunSettings":
    from citefix.pipeline import RunSettings  # imports pydantic models: not before the first paint

    return RunSettings(settings)


class Session:
    """One open case: its run, the working text, the round it comes from, a pending proposal."""

    def __init__(self, bench: Workbench, case: Case, *, input_path: str | None = None):
        self.bench = bench
        self.case = case
        self.input_path = input_path
        self.run_id: int | None = None
        self.current: int | None = None
        self.text: str = case.text
        self.proposal: Proposal | None = None
        self.refiner = None  # citefix.revision.session.RefineSession of this run, built on the first job
        self._generation = -1  # the workbench settings generation the refiner was built with
        self._generation_checked = -1  # … and the one the current round was last checked with
        self._closed = False

    @property
    def store(self):
        return self.bench.store

    @property
    def settings(self) -> Settings:
        return self.bench.settings

    def describe(self) -> dict[str, str]:
        return self.bench.describe()

    def apply_settings(self, new: Settings, *, save: bool = True) -> Path | None:
        path = self.bench.apply_settings(new, save=save)
        if self.proposal is not None and self.refiner is not None:  # proposed under the old settings: drop it
            self.refiner.reject(self.proposal)
            self.proposal = None
        return path

    # -- reading ------------------------------------------------------------------------------------------------------
    def snapshot(self, info: str | None = None, *, warning: str | None = None) -> Snapshot:
        from citefix.models import Evaluation

        rows = self.store.rounds(self.run_id) if self.run_id is not None else []
        evals: dict[int, Evaluation] = {}
        mem = {r.n: r.evaluation for r in self.refiner.rounds} if self.refiner is not None else {}
        for r in rows:
            evals[r.n] = mem.get(r.n) or Evaluation.model_validate_json(r.evaluation)
        run = self.store.run(self.run_id) if self.run_id is not None else None
        return Snapshot(case=self.case, run_id=self.run_id, rounds=[RoundRow.from_store(r) for r in rows],
                        current=self.current, evaluation=evals.get(self.current) if self.current is not None else None,
                        text=self.text, run=run, proposal=self.proposal, evaluations=evals, info=info,
                        warning=warning)

    def edit(self, text: str) -> None:
        """Replace the working text (the editor's save); the next check stores it as a round."""
        if not text.strip():
            raise InputError("the text is empty; write something to check")
        self.text = text

    def export(self, fmt: str, path: str | None = None) -> tuple[str, str]:
        """Export the run with citefix.export.export_run; returns (path written, format)."""
        from citefix.export import export_run

        if self.run_id is None:
            raise InputError("nothing to export yet: check the text first (c)")
        fmt = {"markdown": "md", "md": "md", "json": "json"}.get(fmt.lower())
        if fmt is None:
            raise InputError("export format is json or md")
        text = export_run(self.store, self.run_id, fmt)
        out = Path(path or f"citefix-run-{self.run_id}.{fmt}").expanduser()
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write {out}: {exc.strerror or exc}; pick another path") from exc
        return str(out), fmt

    # -- the refinement session ----------------------------------------------------------------------------------------
    def _refiner(self, cancel: threading.Event | None, on_event: Event | None):
        """This run's RefineSession (new run on the first check, resumed for a stored run or after a settings change)."""
        from citefix.revision.parts import RunRecord
        from citefix.revision.session import RefineSession

        if self.refiner is None or self._generation != self.bench.generation:
            pipeline = self.bench.pipeline
            parts = pipeline.parts_for(self.case.kind, self.store)
            record = RunRecord("tui", self.input_path, self.bench.run_settings.with_loop())
            if self.run_id is None:
                self.refiner = RefineSession(self.case, parts, store=self.store, record=record)
                self.run_id = self.refiner.run_id
            else:
                self.refiner = RefineSession.resume(self.store, self.run_id, parts, record=record)
            self._generation = self.bench.generation
        elif self.store.run(self.run_id).status != "running":  # finished by an earlier auto-refine: going on
            self.store.claim_run(self.run_id)
        self.refiner.cancel = cancel
        self.refiner.on_event = on_event or (lambda e, d: None)
        return self.refiner

    def _job(self, cancel, fn):
        """Run one step under the busy lock (a cancelled step raises citefix.errors.Cancelled)."""
        with self.bench.busy:
            if cancel is not None and cancel.is_set():
                raise Cancelled()
            return fn()

    def _sync(self) -> None:
        cur = self.refiner.current
        self.current = cur.n if cur is not None else None
        if cur is not None:
            self.text = cur.text

    def check(self, text: str | None = None, *, cancel=None, on_event: Event | None = None) -> Snapshot:
        """Check the working text (or `text`): round 0 first, then an edited text as the next round."""
        text = self.text if text is None else text

        def step() -> Snapshot:
            r = self._refiner(cancel, on_event)
            first = r.current is None
            if first:
                try:
                    r.evaluate_current()  # round 0: the text as it came
                except Cancelled as exc:
                    r.finish("cancelled", "cancelled", "cancelled before the first round was stored")
                    raise exc
            info = None
            if text.strip() != r.current.text.strip():
                r.accept(text=text, comment="edited in the TUI")
            elif not first:
                if self._generation_checked != self.bench.generation:  # new settings (or a reopened run): re-check
                    r.accept(text=text, comment=f"re-checked with {self.bench.describe()['verifier']}")
                else:
                    info = f"round {r.current.n} already checks this text: edit it (e) or refine it (r)"
            self._generation_checked = self.bench.generation
            self.proposal = None
            self._sync()
            return self.snapshot(info)

        return self._job(cancel, step)

    def propose(self, *, cancel=None, on_event: Event | None = None) -> Snapshot:
        """Feedback on the current round and the reviser's text, evaluated; nothing stored until accept or reject."""

        def step() -> Snapshot:
            r = self._refiner(cancel, on_event)
            if self.current is not None and self.text.strip() != r.current.text.strip():
                r.accept(text=self.text, comment="edited in the TUI")  # revise what the writer sees
            r.evaluate_current()
            self._generation_checked = self.bench.generation
            prop = r.propose_revision(evaluate=True)
            self._sync()
            if prop.text is None:
                r.reject(prop)  # stores its model calls
                self.proposal = None
                if prop.reason == "no_feedback" and r.current.n_unsupported == 0:
                    return self.snapshot(f"nothing to revise: no unit of round {r.current.n} is unsupported")
                return self.snapshot(f"no revision: {prop.message or prop.reason}")
            self.proposal = prop
            return self.snapshot()

        return self._job(cancel, step)

    def accept(self, *, text: str | None = None, comment: str | None = None, cancel=None,
               on_event: Event | None = None) -> Snapshot:
        """Accept the proposal; with `text`, only some of its edits (the text with those applied, checked anew)."""
        if self.proposal is None:
            raise InputError("no revision to accept: refine first (r)")

        def step() -> Snapshot:
            r = self._refiner(cancel, on_event)
            if text is not None:
                r.accept(self.proposal, text=text, comment=comment)
            else:
                r.accept(self.proposal)
            self.proposal = None
            self._sync()
            return self.snapshot()

        return self._job(cancel, step)

    def reject(self, *, cancel=None, on_event: Event | None = None) -> Snapshot:
        if self.proposal is None:
            raise InputError("no revision to reject")

        def step() -> Snapshot:
            r = self._refiner(cancel, on_event)
            r.reject(self.proposal)
            self.proposal = None
            self._sync()
            return self.snapshot()

        return self._job(cancel, step)

    def revert(self, n: int, *, cancel=None, on_event: Event | None = None) -> Snapshot:
        """Make round n current again; later rounds stay stored, marked not accepted."""

        def step() -> Snapshot:
            r = self._refiner(cancel, on_event)
            r.revert_to(n)
            self.proposal = None
            self._sync()
            return self.snapshot()

        return self._job(cancel, step)

    def auto_refine(self, rounds: int, *, cancel=None, on_event: Event | None = None) -> Snapshot:
        """Up to `rounds` more rounds of propose-and-accept with the refine loop's stop rules."""
        if rounds < 1:
            raise InputError("auto-refine needs at least one round")
        from citefix.revision.parts import StopRules

        def step() -> Snapshot:
            r = self._refiner(cancel, on_event)
            if self.proposal is not None:
                r.reject(self.proposal)
                self.proposal = None
            if r.current is not None and self.text.strip() != r.current.text.strip():
                r.accept(text=self.text, comment="edited in the TUI")
            r.evaluate_current()
            self._generation_checked = self.bench.generation
            depth = len(r.lineage()) - 1
            res = r.run(StopRules(max_rounds=depth + rounds))
            done = len(r.lineage()) - 1 - depth
            cut_short = r.current is not None and r.current.evaluation.status == "partial"
            if cut_short and res.best_round is not None and res.best_round != r.current.n:
                # a round checked only in part is no result: the working text goes back to the best complete round
                # (the partial round stays stored, not accepted; the run keeps the failure the loop recorded)
                r.revert_to(res.best_round)
            self._sync()
            why = res.stop_reason.replace("_", " ")
            note = f"auto-refine: {done} round(s), stopped: {why}" + (f" ({res.message})" if res.message else "")
            note += f"; best round {res.best_round}" + (f" ({res.best_score:.2f})" if res.best_score is not None else "")
            if res.status == "failed":
                return self.snapshot(warning=note + ("; the text is back on that round" if cut_short else ""))
            return self.snapshot(note)

        return self._job(cancel, step)

    def close(self) -> None:
        """Record the best round and a stop reason on the run row (the TUI was closed or another case opened).

        Never waits: when a job still holds the run (a check blocked in a model call while the user quits), the run
        is stored as `interrupted` with the best of the rounds completed so far, and the job's thread is left to die
        with the process. A run is never left `running`."""
        if self._closed or self.run_id is None:
            return
        self._closed = True
        got = self.bench.busy.acquire(blocking=False)
        try:
            if got and self.store.run(self.run_id).status == "failed":
                return  # the last work stopped on a fault and nothing ran since: the run keeps that ending
            if got and self.refiner is not None and self.refiner.current is not None:
                self.refiner.finish("closed")
                return
            if self.store.run(self.run_id).status != "running":
                return
            best = None
            if self.refiner is not None and self.refiner.current is not None:
                try:
                    best = self.refiner.best_round().n
                except Exception:  # the job thread is changing the rounds right now
                    best = self.refiner.current.n
            self.store.finish_run(self.run_id, "interrupted", best_round=best,
                                  stop_reason="closed while a job ran" if not got else "closed")
        finally:
            if got:
                self.bench.busy.release()


def strategy_names() -> list[str]:
    """Feedback strategies, from the refine package's registry."""
    from citefix.revision.feedback import available_strategies

    return list(available_strategies())
