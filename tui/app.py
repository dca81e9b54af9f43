"""The citefix TUI application: wires the workbench, the start screen and the main screen. It owns no logic.

First paint comes before anything slow: the store (sqlite-utils), the case (pydantic) and the models all load in
worker threads after the first frame.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from pathlib import Path

from textual import events, work
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import Static

from citefix.config import Settings
from citefix.errors import UserError
from citefix.tui import messages as m
from citefix.tui.session import Workbench


def short_path(path: str | Path) -> str:
    p, home = str(path), str(Path.home())
    return "~" + p[len(home):] if home != "/" and p.startswith(home + "/") else p


def leave_a_core_for_the_ui() -> None:
    """Keep the UI thread responsive while models run in a worker thread.

    Torch's intra-op threads take every core (and spin between operations): on a small machine they starve the UI
    thread, and the worker itself, so one core is left free (before torch loads, through OMP_NUM_THREADS unless the
    user set it; after, with torch.set_num_threads). A shorter GIL switch interval lets the UI thread in sooner
    while the worker runs Python code (spaCy, the offline verifier)."""
    n = max(1, (os.cpu_count() or 2) - 1)
    torch = sys.modules.get("torch")
    if torch is not None:
        if torch.get_num_threads() > n and "OMP_NUM_THREADS" not in os.environ:
            torch.set_num_threads(n)
    else:
        os.environ.setdefault("OMP_NUM_THREADS", str(n))
    sys.setswitchinterval(min(sys.getswitchinterval(), 0.002))


class CitefixApp(App):
    TITLE = "citefix"
    CSS = """
    #splash { width: 100%; height: 100%; content-align: center middle; color: $text-muted; }
    """
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", show=False, priority=True)]
    ENABLE_COMMAND_PALETTE = True  # ctrl+p: every action of the screen, themes, quit

    def get_system_commands(self, screen):
        """The palette: Textual's own (themes, keys, quit …) and every key of the main screen, live ones first."""
        from textual.app import SystemCommand

        from citefix.tui.main_screen import KEYS, MainScreen

        if isinstance(screen, MainScreen):
            for key, action, label, text in KEYS:
                if action in ("focus_next",) or action.startswith("app."):
                    continue
                name = action.split("(")[0]
                if screen.check_action(name, ()) is not True:
                    continue
                shown = {"question_mark": "?", "escape": "esc", "left_square_bracket": "[",
                         "right_square_bracket": "]"}.get(key, key)
                word = label or name.replace("_", " ")
                title = word[:1].upper() + word[1:] + f" ({shown})"
                yield SystemCommand(title, text, lambda a=action, s=screen: self.call_later(s.run_action, a))
        yield from super().get_system_commands(screen)

    def __init__(self, settings: Settings, store=None, *, transport=None, path: str | None = None,
                 run_id: int | None = None, case_index: int | None = 0, store_label: str | None = None) -> None:
        super().__init__()
        leave_a_core_for_the_ui()
        self.bench = Workbench(settings, store, transport)
        self.start_path, self.start_run, self.case_index = path, run_id, case_index
        self._store_label = store_label
        self.main = None  # the MainScreen of the open case

    # -- keys typed while a dialog closes ------------------------------------------------------------------------------
    # A key that closes a dialog (its escape, or another key bound to closing it) reaches the dialog through its own
    # message queue; keys typed right behind it would follow it into the dialog (into its input field) and be lost.
    # They are held until the dialog is gone and then given to the screen below, or, if it stayed open (say its
    # input was refused), given back to it.
    _dialog_closing = None  # the dialog a closing key was sent to
    _closing_sent = 0.0
    _keys_held: list = []
    CLOSING_ACTIONS = ("dismiss", "cancel", "answer")

    def _closes_dialog(self, key: str) -> bool:
        screen = self.screen
        if not isinstance(screen, ModalScreen):
            return False
        bound = screen._bindings.key_to_bindings.get(key, [])
        return any(b.action.split("(")[0] in self.CLOSING_ACTIONS for b in bound)

    async def on_event(self, event) -> None:
        if isinstance(event, events.Key) and not event.is_forwarded:  # as typed, not bubbling back up
            if self._dialog_closing is not None and self.screen is self._dialog_closing:
                self._keys_held = [*self._keys_held, events.Key(event.key, event.character)]
                return
            self._dialog_closing = None
            if self._closes_dialog(event.key):
                self._dialog_closing, self._closing_sent = self.screen, time.monotonic()
                self.set_timer(0.01, self._release_keys)
        await super().on_event(event)

    def _release_keys(self) -> None:
        if self._dialog_closing is not None and self.screen is self._dialog_closing and \
                time.monotonic() - self._closing_sent < 0.5:
            self.set_timer(0.01, self._release_keys)  # still closing
            return
        self._dialog_closing, held, self._keys_held = None, self._keys_held, []
        for key in held:
            self.post_message(key)

    @property
    def store_label(self) -> str:
        if self._store_label:
            return self._store_label
        return short_path(self.bench.store.path) if self.bench.store_opened else "(opening)"

    @property
    def session(self):
        """The open case's session (the workbench before any case is open); screens read settings through it."""
        return self.main.session if self.main is not None else self.bench

    def compose(self) -> ComposeResult:
        what = self.start_path or (f"run {self.start_run}" if self.start_run is not None else "")
        yield Static(f"citefix · opening {what} …" if what else "citefix", id="splash")

    def on_mount(self) -> None:
        # workers start after the first frame: their imports (pydantic, sqlite-utils) would compete with it for the GIL
        if self.start_path or self.start_run is not None:
            self.call_after_refresh(self.open_target, path=self.start_path, run_id=self.start_run, index=self.case_index)
        else:
            self.show_start()

    # -- the start screen -------------------------------------------------------------------------------------------
    def show_start(self, *, can_go_back: bool = False) -> None:
        from citefix.tui.start_screen import StartScreen

        self.push_screen(StartScreen(can_go_back=can_go_back))
        self.call_after_refresh(self.load_runs)

    def action_open(self) -> None:
        self.show_start(can_go_back=self.main is not None)

    @work(thread=True, exclusive=True, exit_on_error=False, group="runs")
    def load_runs(self) -> None:
        try:
            runs = self.bench.recent_runs()
        except Exception as exc:  # a broken store must not keep the start screen from working
            self.post_message(m.WorkFailed("runs", f"cannot list the stored runs: {exc}"))
            runs = []
        self.post_message(m.RunsLoaded(runs))

    def on_runs_loaded(self, msg: m.RunsLoaded) -> None:
        from citefix.tui.start_screen import StartScreen

        for screen in self.screen_stack:
            if isinstance(screen, StartScreen):
                screen.fill(msg.runs)

    # -- opening a case ---------------------------------------------------------------------------------------------
    @work(thread=True, exclusive=True, exit_on_error=False, group="open")
    def open_target(self, path: str | None = None, run_id: int | None = None, index: int | None = 0) -> None:
        """Open a stored run or a case file; index None: a file with several cases asks which (the case picker)."""
        job = f"open {path or run_id}"
        try:
            if index is None and run_id is None:
                from citefix.inputs import load_cases

                cases = load_cases(str(Path(path).expanduser()))
                if len(cases) > 1:
                    self.post_message(m.CasesListed(path, [(c.id, c.kind, " ".join(c.text.split()[:12]))
                                                           for c in cases]))
                    return
                index = 0
            session = self.bench.open_run(run_id) if run_id is not None else self.bench.open_file(path, index)
            snap = session.snapshot()
        except UserError as exc:
            self.post_message(m.WorkFailed(job, str(exc)))
            return
        except Exception as exc:  # a bug: report it, keep the app alive
            self.log.error(traceback.format_exc())
            self.post_message(m.WorkFailed(job, f"{type(exc).__name__}: {exc}", internal=True))
            return
        self.post_message(m.CaseOpened((session, snap)))

    def on_cases_listed(self, msg: m.CasesListed) -> None:
        from citefix.tui.dialogs import CasePicker

        def go(k: int | None) -> None:
            if k is not None:
                self.open_target(path=msg.path, index=k)
            elif len(self.screen_stack) <= 1:
                self.show_start()

        self.push_screen(CasePicker(msg.path, msg.cases), go)

    async def on_case_opened(self, msg: m.CaseOpened) -> None:
        from citefix.tui.main_screen import MainScreen

        session, snap = msg.snapshot
        while len(self.screen_stack) > 1:
            await self.pop_screen()
        self.main = MainScreen(session, snap)
        await self.push_screen(self.main)

    def on_work_failed(self, msg: m.WorkFailed) -> None:
        title = "Internal error (please report it)" if msg.internal else "Could not open"
        self.notify(msg.message, title=title, severity="error", timeout=12, markup=False)
        if len(self.screen_stack) <= 1:
            self.show_start()

    async def action_quit(self) -> None:
        self.exit()  # the main screen's unmount records the run's best round
