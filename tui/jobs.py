"""The main screen's jobs: a check, a refine, a decision, an export or a settings change, each run in a daemon thread
that calls the Session (core) and posts messages; the handlers here keep the status line and the job state, and hand
the results to the screen's painting. Mixed into `MainScreen` (`citefix.tui.main_screen`), whose attributes it uses.
"""

from __future__ import annotations

import threading
import time
import traceback
from typing import Any, Callable

from citefix.errors import LLMError, UserError
from citefix.tui import messages as m
from citefix.tui.session import Cancelled, Snapshot
from citefix.tui.widgets import RoundsPanel, StatusLine

SPINNER = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
STAGES = {  # events of citefix.evaluate and citefix.revision.session, as the status line words them
    "decompose_started": "splitting the text into units (models load on first use)",
    "units_ready": "verifying {n} units",
    "units_scored": "round {round}: scored",
    "round_started": "round {round}: checking",
    "round_stored": "round {round}: stored",
    "revision_proposed": "round {round}: revision proposed",
    "reverted": "reverted to round {round}",
    "run_finished": "finished: {stop_reason}",
}
STEP = {"feedback": "writing feedback", "revise": "revising", "evaluate": "checking", "judge": "judge scoring"}


class JobsMixin:
    """Starting, running and finishing the main screen's jobs (and the model warm-up), and their messages."""

    # -- warm-up ----------------------------------------------------------------------------------------------------
    _warming = False

    def warm_up(self, kind: str) -> None:
        self._spawn("warm-up", self._warm_up, kind, job=False)

    def _warm_up(self, kind: str) -> None:
        """Model loading in the background: the first check then starts with the models in memory."""
        try:
            loaded = self.session.bench.warm_up(kind)
        except Exception as exc:  # the check will load (and report) again; say what happened
            self.post_message(m.WarmedUp([], f"{type(exc).__name__}: {exc}"))
            return
        self.post_message(m.WarmedUp(loaded, None))

    def on_warmed_up(self, msg: m.WarmedUp) -> None:
        self._warming = False
        if msg.error:
            self.notify(f"loading the models failed: {msg.error}", title="Models", severity="warning", markup=False)
        if self._job is None:
            self.query_one("#status", StatusLine).set_job("ready", busy=False)

    # -- jobs -------------------------------------------------------------------------------------------------------------
    def _begin(self, job: str, label: str, total: int | None) -> str:
        self._job_seq += 1
        job_id = f"{job}#{self._job_seq}"
        self._job, self._job_label, self._job_started = job_id, label, time.perf_counter()
        self._job_total, self._job_done = total, 0
        self.query_one("#status", StatusLine).set_job(label, busy=True, total=total)
        self.refresh_bindings()
        return job_id

    def _spawn(self, name: str, target: Callable[..., Any], *args: Any, job: bool = True) -> threading.Thread:
        """Start a job in a daemon thread. Not a Textual thread worker: those run in asyncio's default executor, whose
        threads the interpreter joins at exit, so `q` during a check would leave a blank terminal until the model
        call returned. A daemon thread is abandoned at exit; what it had stored stays stored."""
        if job:
            self._cancel = threading.Event()
            args = (self._cancel, *args)
        t = threading.Thread(target=target, args=args, name=f"citefix-{name}", daemon=True)
        self.threads.append(t)
        t.start()
        return t

    def _run(self, cancel: threading.Event, job_id: str, fn: Callable[[Any, Callable], Any],
             done: Callable[[Any], Any]) -> None:
        """Body of every job thread: run fn(cancel, on_event), post what happened."""

        def on_event(name: str, data: dict[str, Any]) -> None:
            step = data.get("step") if name == "progress" else name
            if step == "units_ready" and data.get("n"):
                self._unit_count = (int(data["n"]), self._llm_calls())  # "k of n units" counts model calls from here
            elif step == "units_verified":  # a verifier that says how far it got (offline)
                self._units_verified = (int(data.get("done") or 0), int(data.get("n") or 0))
            elif step in ("units_scored", "round_stored", "revision_proposed"):
                self._unit_count = self._units_verified = None
            advance = 1 if (name == "round_stored" and data.get("accepted", True)) else 0
            self.post_message(m.WorkProgress(job_id, name, _stage(name, data), advance=advance))

        self.post_message(m.WorkStarted(job_id, self._job_label, self._job_total))
        try:
            result = fn(cancel, on_event)
        except Cancelled:
            self.post_message(m.WorkCancelled(job_id))
            return
        except LLMError as exc:
            self.post_message(m.WorkFailed(job_id, f"Model call failed: {exc}"))
            return
        except UserError as exc:
            self.post_message(m.WorkFailed(job_id, str(exc)))
            return
        except Exception as exc:  # a bug: report it, keep the app alive
            try:
                self.log.error(traceback.format_exc())
            except Exception:  # the app has gone (quit while this thread ran): nobody to tell
                return
            self.post_message(m.WorkFailed(job_id, f"{type(exc).__name__}: {exc}", internal=True))
            return
        self.post_message(done(result))  # stored work is shown even when a cancel came late, and said to be kept
        if cancel.is_set():
            done_at = result.current if isinstance(result, Snapshot) else None
            last = f"stored as round {done_at}" if done_at is not None else "kept"
            self.post_message(m.WorkCancelled(job_id, kept=f"it finished before the cancel reached it; {last}"))
        else:
            self.post_message(m.WorkFinished(job_id))

    def run_check(self, job_id: str, text: str | None) -> None:
        self._spawn("check", self._run, job_id, lambda cancel, ev: self.session.check(text, cancel=cancel, on_event=ev),
                    m.Checked)

    def run_refine(self, job_id: str, rounds: int) -> None:
        if rounds <= 0:
            self._spawn("refine", self._run, job_id, lambda cancel, ev: self.session.propose(cancel=cancel, on_event=ev),
                        m.RevisionProposed)
        else:
            self._spawn("refine", self._run, job_id,
                        lambda cancel, ev: self.session.auto_refine(rounds, cancel=cancel, on_event=ev),
                        lambda s: m.RoundsChanged(s, "auto_refine"))

    def run_decision(self, job_id: str, what: str, n: int | None = None, *, text: str | None = None,
                     comment: str | None = None) -> None:
        if what == "accept_part":
            fn = lambda cancel, ev: self.session.accept(text=text, comment=comment, cancel=cancel, on_event=ev)  # noqa: E731
        elif what == "accept":
            fn = lambda cancel, ev: self.session.accept(cancel=cancel, on_event=ev)  # noqa: E731
        elif what == "reject":
            fn = lambda cancel, ev: self.session.reject(cancel=cancel, on_event=ev)  # noqa: E731
        else:
            fn = lambda cancel, ev: self.session.revert(n, cancel=cancel, on_event=ev)  # noqa: E731
        self._spawn(what, self._run, job_id, fn, lambda s: m.RoundsChanged(s, what))

    def run_export(self, job_id: str, fmt: str, path: str | None) -> None:
        self._spawn("export", self._run, job_id, lambda cancel, ev: self.session.export(fmt, path),
                    lambda r: m.Exported(*r))

    def run_settings(self, job_id: str, settings) -> None:
        def fn(cancel, ev):
            path = self.session.apply_settings(settings)
            return self.session.describe(), (str(path) if path else None)

        self._spawn("settings", self._run, job_id, fn, lambda r: m.SettingsApplied(*r))

    def warn(self, title: str, text: str) -> None:
        """A warning: notified, and kept in the messages log (m)."""
        self.log_message("warning", title, text)
        self.notify(text, title=title, severity="warning", markup=False, timeout=12)

    # -- message handlers -----------------------------------------------------------------------------------------------
    def _stale(self, job_id: str) -> bool:
        return job_id != self._job

    def on_work_progress(self, msg: m.WorkProgress) -> None:
        if self._stale(msg.job):
            return
        self._job_done += msg.advance
        self._job_label = msg.detail or self._job_label
        self.query_one("#status", StatusLine).set_job(self._job_line(), busy=True,
                                                      progress=self._job_done if self._job_total else None)

    def _end(self, text: str) -> None:
        self._job = None
        self._unit_count = self._units_verified = None
        self.query_one("#status", StatusLine).set_job(text, busy=False)
        self.refresh_bindings()

    def on_work_finished(self, msg: m.WorkFinished) -> None:
        if not self._stale(msg.job):
            took = f"{time.perf_counter() - self._job_started:.1f} s"
            health = RoundsPanel.health(self._last_eval) if self._last_eval is not None else None
            self._last_eval = None
            if health == "failed":
                self._end(f"failed: the model calls failed, round stored without verdicts ({took}) · m: messages")
            elif health == "partial":
                self._end(f"partial: some units could not be checked ({took}) · m: messages")
            else:
                self._end(f"done in {took}")

    _last_eval = None  # the evaluation the finishing job produced (a check's or a proposal's)

    def on_work_cancelled(self, msg: m.WorkCancelled) -> None:
        if msg.kept:  # the status line said the result would be dropped: it was not
            if self._job is None or not self._stale(msg.job):
                self._end(f"not cancelled: {msg.kept}")
            self.warn("Cancel came too late", msg.kept)
            return
        if not self._stale(msg.job):
            self._end("cancelled")

    def on_work_failed(self, msg: m.WorkFailed) -> None:
        title = "Internal error (please report it)" if msg.internal else "Could not finish"
        text = m.tui_wording(msg.message)
        if not self._stale(msg.job):
            self._end("failed")
        if msg.job.startswith("settings#") and self._settings_attempt is not None and not msg.internal:
            # the form comes back with everything typed and the reason, instead of closing and losing it
            self.log_message("error", "Settings not applied", text)
            self.action_settings(self._settings_attempt, error=text)
            return
        self.notify(text, title=title, severity="error", timeout=12, markup=False)

    def on_checked(self, msg: m.Checked) -> None:
        self._apply(msg.snapshot)
        self._last_eval = msg.snapshot.evaluation
        self._report(msg.snapshot.evaluation)

    def _report(self, ev) -> None:
        """Errors inside an evaluation (a model refused, a unit could not be verified) as a notification."""
        if ev is None:
            return
        if ev.status == "error" or (ev.status == "no_units" and ev.errors):
            self.notify(ev.message or ev.errors[0], title="Check failed", severity="error", timeout=12, markup=False)
        elif ev.errors:
            findings = set((ev.metrics.get("citations") or {}).get("not_found") or [])
            failed = [e for e in ev.errors if e not in findings]
            shown = failed or ev.errors
            more = f" (and {len(shown) - 1} more)" if len(shown) > 1 else ""
            title = "Some units could not be checked" if failed else "Citations to passages that do not exist"
            self.notify(shown[0] + more, title=title, severity="warning", timeout=10, markup=False)

    def on_revision_proposed(self, msg: m.RevisionProposed) -> None:
        self._apply(msg.snapshot)
        if msg.snapshot.proposal is not None:
            self._last_eval = msg.snapshot.proposal.evaluation
            self._report(msg.snapshot.proposal.evaluation)

    def on_rounds_changed(self, msg: m.RoundsChanged) -> None:
        self._apply(msg.snapshot)

    def on_exported(self, msg: m.Exported) -> None:
        self.notify(f"wrote {msg.path}", title=f"Exported ({msg.fmt})", markup=False)

    def on_settings_applied(self, msg: m.SettingsApplied) -> None:
        self._refresh_status()
        where = f" to {msg.path}" if msg.path else ""
        self.notify(f"settings saved{where}", title="Settings", markup=False)

    _unit_count: tuple[int, int | None] | None = None  # (units to verify, model calls logged when they were ready)
    _units_verified: tuple[int, int] | None = None  # (units verified, units) as the verifier reports them

    def _llm_calls(self) -> int | None:
        llm = getattr(self.session.bench._pipeline, "llm", None)
        calls = getattr(llm, "_calls", None)
        return len(calls) if calls is not None else None

    def _job_line(self) -> str:
        elapsed = time.perf_counter() - self._job_started
        label = self._job_label
        uc = self._unit_count
        if self._units_verified is not None:
            label = f"{label} · {self._units_verified[0]:,} of {self._units_verified[1]:,} units verified"
        elif uc is not None and uc[1] is not None:  # an LLM verifier: one call per unit, counted as they come back
            now = self._llm_calls()
            if now is not None:
                label = f"{label} · {min(uc[0], max(0, now - uc[1]))} of {uc[0]} units"
        return f"{SPINNER[self._spin % len(SPINNER)]} {label} ({elapsed:.1f} s) · esc cancels"

    def _tick(self) -> None:
        if self._job is not None:
            self._spin += 1
            self.query_one("#status", StatusLine).set_job(self._job_line(), busy=True)
        elif self._warming:
            self._spin += 1
            self.query_one("#status", StatusLine).set_job(
                f"{SPINNER[self._spin % len(SPINNER)]} {self.session.bench.warm_up_label()}", busy=False)

    # -- actions ----------------------------------------------------------------------------------------------------------
    def action_check(self) -> None:
        if self.snap is None or self._job is not None:
            return
        job = self._begin("check", "checking (once loading is done)" if self._warming else "checking", None)
        self.run_check(job, None)

    def action_refine(self) -> None:
        if self.snap is None or self._job is not None:
            return
        job = self._begin("refine", "refining one round", None)
        self.run_refine(job, 0)

    def action_auto_refine(self) -> None:
        from citefix.tui.dialogs import AskRounds

        def go(n: int | None) -> None:
            if n:
                job = self._begin("auto_refine", f"auto-refining {n} rounds", n)
                self.run_refine(job, n)

        self.app.push_screen(AskRounds(), go)



def _stage(name: str, data: dict[str, Any]) -> str:
    if name == "progress":  # a refine step: {round, stage, step?, n?}
        what = STEP.get(data.get("stage", ""), data.get("stage", ""))
        inner = STAGES.get(data.get("step", "")) if data.get("step") in ("decompose_started", "units_ready") else None
        detail = _stage(data["step"], data) if inner else what
        return f"round {data.get('round', '?')}: {detail}"
    tpl = STAGES.get(name)
    if tpl is None:
        return name.replace("_", " ")
    try:
        return tpl.format(**data)
    except (KeyError, IndexError):
        return tpl.split("{")[0].strip()
