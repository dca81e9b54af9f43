"""The main screen: the painted text, the sources, the units, the rounds, the status line, and every action's key.

Actions start thread workers that call the Session (core) and post messages (the jobs and their handlers are in
`citefix.tui.jobs`, mixed in; the keys in `citefix.tui.keys`); the handlers here repaint. Nothing here touches the
pipeline directly.
"""

from __future__ import annotations

import threading
import time
from typing import Any, Callable

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Static

from citefix.errors import UserError
from citefix.report import probability_text
from citefix.tui import render
from citefix.tui.jobs import JobsMixin
from citefix.tui.keys import KEYS
from citefix.tui.render import VERDICT_STYLE
from citefix.tui.session import Session, Snapshot
from citefix.tui.shown import ShownMixin
from citefix.tui.widgets import DetailLine, RoundsPanel, SourcesPanel, StatusLine, TextBody, TextPanel, UnitsTable

NARROW = 100  # below this many columns the panes stack: the text on top, one of units / sources / rounds below


class MainScreen(JobsMixin, ShownMixin, Screen):
    DEFAULT_CSS = """
    MainScreen #top { height: 3fr; }
    MainScreen #bottom { height: 2fr; }
    MainScreen TextPanel { width: 1fr; }
    MainScreen SourcesPanel { width: 1fr; }
    MainScreen #units-box { width: 1fr; border: round $primary; padding: 0 1; }
    MainScreen #units-box:focus-within { border: round $accent; }
    MainScreen #unit-detail { height: 6; color: $text-muted; overflow-y: auto; }
    MainScreen RoundsPanel { width: 48; }
    MainScreen #pane-tabs { display: none; height: 1; padding: 0 1; background: $panel; }
    MainScreen.narrow #pane-tabs { display: block; }
    MainScreen.narrow #top { layout: vertical; height: 1fr; }
    MainScreen.narrow #bottom { height: 1fr; }
    MainScreen.narrow TextPanel { width: 100%; height: 1fr; }
    MainScreen.narrow SourcesPanel { width: 100%; height: 1fr; display: none; }
    MainScreen.narrow.pane-sources SourcesPanel { display: block; }
    MainScreen.narrow.pane-sources #bottom { display: none; }
    MainScreen.narrow #units-box { width: 100%; }
    MainScreen.narrow RoundsPanel { width: 100%; display: none; }
    MainScreen.narrow.pane-rounds RoundsPanel { display: block; }
    MainScreen.narrow.pane-rounds #units-box { display: none; }
    MainScreen.narrow #unit-detail { height: 4; }
    """

    # The footer shows `? help` and `q quit` first, so they are on screen at any width.
    BINDINGS = [
        Binding(k, a, label or a, show=bool(label), key_display="?" if k == "question_mark" else None)
        for k, a, label, _ in KEYS if a != "focus_next" and not a.startswith("app.")
    ] + [Binding("f1", "help", "help", show=False)]

    AUTO_FOCUS = "#units"

    def __init__(self, session: Session, snapshot: Snapshot | None = None) -> None:
        super().__init__()
        self.session = session
        self.snap: Snapshot | None = snapshot
        self.view_n: int | None = None  # the round shown (None: the working text)
        self.show_proposal = False
        self.selected: str | None = None
        self._last_unit: Any = None  # the unit last selected (its words are looked for in a new evaluation)
        self._job: str | None = None
        self._job_label = ""
        self._job_started = 0.0
        self._job_total: int | None = None
        self._job_done = 0
        self._job_seq = 0
        self._spin = 0
        self._pending_check = False
        self._cancel: threading.Event | None = None  # the running job's cancel flag
        self.threads: list[threading.Thread] = []  # every job thread started (tests wait on them)
        self.messages_log: list[tuple[str, str, str, str]] = []  # (time, severity, title, message)

    # -- layout -----------------------------------------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        yield Header(show_clock=False, icon="✓")
        with Horizontal(id="top"):
            yield TextPanel(id="text-panel")
            yield SourcesPanel(id="sources")
        with Horizontal(id="bottom"):
            with Vertical(id="units-box"):
                yield UnitsTable(id="units")
                yield DetailLine("", id="unit-detail")
            yield RoundsPanel(id="rounds")
        yield Static("", id="pane-tabs")
        yield StatusLine(id="status")
        yield Footer(compact=True)

    # -- narrow layout -------------------------------------------------------------------------------------------------
    pane = "units"

    def on_resize(self, event) -> None:
        self._layout(event.size.width)

    def _layout(self, width: int) -> None:
        self.set_class(width < NARROW, "narrow")
        try:  # at 80 columns the footer's palette key would sit on top of the last keys
            self.query_one(Footer).show_command_palette = width >= NARROW
        except Exception:  # not composed yet
            pass
        for p in ("units", "sources", "rounds"):
            self.set_class(self.pane == p, f"pane-{p}")
        tabs = Text()
        for k, p in enumerate(("units", "sources", "rounds"), 1):
            tabs.append(f" {k} {p} ", style="reverse bold" if p == self.pane else "")
            tabs.append(" ")
        self.query_one("#pane-tabs", Static).update(tabs)

    def action_pane(self, which: str) -> None:
        """1 / 2 / 3: the units, the sources or the rounds (the pane below the text in the narrow layout)."""
        self.pane = which
        self._layout(self.size.width)
        target = {"units": "#units", "sources": "#sources", "rounds": "#rounds-table"}[which]
        self.query_one(target).focus()

    def on_mount(self) -> None:
        self._layout(self.app.size.width)
        self.query_one("#sources", SourcesPanel).border_title = "Sources"
        self.query_one("#units-box").border_title = "Units"
        self.query_one("#rounds", RoundsPanel).border_title = "Rounds"
        self._refresh_status()
        self.set_interval(0.1, self._tick)
        if self.snap is not None:
            self._apply(self.snap, reload_sources=True)
        self.query_one("#units", UnitsTable).focus()
        if self.session.bench.needs_warm_up():
            self._warming = True
            self.warm_up(self.session.case.kind or "summary")

    def on_unmount(self) -> None:
        """Leaving the case (quit, or another case opened): cancel the job (its thread is a daemon: nothing waits for
        it), record the run's best round and stop reason, or mark it interrupted when a job still holds it."""
        if self._cancel is not None:
            self._cancel.set()
        try:
            self.session.close()
        except Exception as exc:  # closing must never keep the user in the app
            self.log.error(f"closing the session: {exc}")

    # -- painting -----------------------------------------------------------------------------------------------------
    def _apply(self, snap: Snapshot, *, reload_sources: bool = False) -> None:
        # the unit selected, or the last one selected before an edit emptied the table, to be found again
        before = self._selected_unit() or self._last_unit
        self.snap = snap
        if snap.info:
            self.notify(snap.info, title="citefix", markup=False, timeout=8)
        if snap.warning:
            self.warn("Stopped on a fault", snap.warning)
        if reload_sources:
            self.query_one("#sources", SourcesPanel).load(snap.case)
        self.view_n = None
        self.show_proposal = snap.proposal is not None
        # unit ids are per evaluation: the selection moves to the unit of the same words in the one shown now, if any
        self.selected = self._same_unit(before)
        self._diff_hunks()
        self.query_one("#rounds", RoundsPanel).fill(snap.rounds, current=snap.current, run=snap.run, proposal=snap.proposal,
                                                    evaluations=snap.evaluations)
        self._paint()
        self._refresh_status()
        self.refresh_bindings()

    # -- a pending proposal, edit by edit ------------------------------------------------------------------------------
    hunks: list = []
    keep: set = set()
    edit_cur: int | None = None

    def _diff_hunks(self) -> None:
        """The edits of the pending proposal against the working text (all kept at first)."""
        prop = self.snap.proposal if self.snap is not None else None
        if prop is None:
            self.hunks, self.keep, self.edit_cur = [], set(), None
            return
        reasons = list(prop.revision.edits if prop.revision is not None else [])
        self.hunks = render.proposal_hunks(self.snap.text, prop.text, self.snap.evaluation, reasons)
        self.keep = {h.k for h in self.hunks}
        self.edit_cur = 0 if self.hunks else None

    def action_edit_step(self, step: int) -> None:
        if not self.hunks:
            return
        self.edit_cur = ((self.edit_cur or 0) + step) % len(self.hunks)
        self._paint()

    def action_toggle_edit(self) -> None:
        if self.edit_cur is None:
            return
        self.keep ^= {self.edit_cur}
        self._paint()

    def _show_text(self, text: str, ev, what: str) -> None:
        """The text pane: a pending proposal as its inline diff, anything else painted by verdict."""
        panel = self.query_one("#text-panel", TextPanel)
        if what == "proposed revision":
            panel.show_rich(render.inline_diff(self.snap.text, text, self.hunks, self.keep, self.edit_cur,
                                               self.snap.proposal.comment), note=self._note(what, ev))
        else:
            panel.show(text, ev, self.selected, note=self._note(what, ev))

    def _paint(self) -> None:
        if self.snap is None:
            return
        text, ev, what = self._shown()
        panel = self.query_one("#text-panel", TextPanel)
        self._show_text(text, ev, what)
        score = "" if ev is None or ev.score is None else f" · score {ev.score:.2f}"
        panel.border_title = f"Text · {what}{score}"
        units = self.query_one("#units", UnitsTable)
        units.fill(ev if (ev is not None and ev.text == text) else None)
        if self.selected is not None and self.selected in (units.rows or {}):
            units.move_cursor(row=units.get_row_index(self.selected), animate=False)
        else:
            self.selected = None
        self._detail(ev)
        self.title = "citefix"
        run = f" · run {self.snap.run_id}" if self.snap.run_id is not None else ""
        self.sub_title = f"{self.snap.case.id} · {self.snap.case.kind.replace('_', ' ')}{run}"

    def _detail(self, ev) -> None:
        box = self.query_one("#unit-detail", DetailLine)
        if ev is None or self.selected is None:
            box.say(Text("Select a unit (↑/↓ or click) to see its evidence in the sources.", style="dim")
                    if ev is not None and ev.units else Text(""))
            self.query_one("#sources", SourcesPanel).highlight(None)
            return
        unit = next((u for u in ev.units if u.id == self.selected), None)
        v = ev.verdict_for(self.selected)
        if unit is None:
            return
        t = Text()
        t.append(f"{unit.id} ", style="bold")
        t.append(f"“{unit.text}” ")  # the whole unit, wrapped (the table cell is cut to its column)
        statement = render.statement_support(ev).get(unit.id) if ev.kind == "cited_answer" else None
        group = render.citation_groups(ev).get(unit.id) if ev.kind == "cited_answer" else None
        if v is None and unit.kind == "sentence" and ev.kind == "cited_answer":
            t.append_text(render.statement_cell(statement))
            if statement is not None:
                t.append(f" · {statement.get('supported', 0)} of {statement.get('units', 0)} claims supported"
                         + (f", {statement['partial']} partial" if statement.get("partial") else ""))
                if statement.get("message"):
                    t.append(f" · {statement['message']}", style="magenta")
            box.say(t)
            self.query_one("#sources", SourcesPanel).highlight(None)
            return
        if group is not None:
            t.append(f"claim of {' '.join('[' + c + ']' for c in unit.cited)}: ", style="dim")
            t.append_text(render.citations_text(group))
            for c in group.get("citations") or []:
                if c.get("label") == "redundant":
                    t.append(f" · [{c.get('id')}] redundant: the other passages support the claim", style="yellow")
            for msg in (group.get("messages") or []) + [f"passage [{x}] not found" for x in unit.meta.get("missing") or []]:
                t.append(f" · {msg}", style="magenta")
            if group.get("supported_by"):  # passages it does not cite that support it
                t.append(" · supported by " + "".join(f"[{x}]" for x in group["supported_by"]), style="green")
            if group.get("fallback"):
                t.append(f" · whole sentence used: {group['fallback']}", style="yellow")
            t.append(" · ")
        if v is None:
            t.append("not checked")
        else:
            t.append(v.label, style=VERDICT_STYLE.get(v.label, ""))
            t.append(f" {'—' if v.score is None else f'{v.score:.2f}'} by {v.verifier}")
            details = v.details or {}
            if isinstance(details.get("p_unsupported"), (int, float)):
                t.append(f" · p(unsupported) {probability_text(details['p_unsupported'])}")
            if details.get("why") and v.label != "supported":
                t.append(f" · why: {details['why']}", style=VERDICT_STYLE.get(v.label, ""))
            if v.error:
                t.append(f" · error: {v.error}", style="magenta")
            if v.evidence is not None:
                snippet = v.evidence.text.replace("\n", " ")
                t.append(f" · evidence [{v.evidence.source_id}] ", style="dim")
                t.append(snippet[:160] + ("…" if len(snippet) > 160 else ""), style="italic")
            if v.unsupported_spans and ev.text:
                words = ", ".join(repr(ev.text[a:b]) for a, b in v.unsupported_spans[:4])
                t.append(f" · unsupported words: {words}", style="red")
        if not unit.has_span and unit.note:
            t.append(f" · no span: {unit.note}", style="dim")
        box.say(t)
        found = self.query_one("#sources", SourcesPanel).highlight(v.evidence if v else None,
                                                                  weak=bool(v and v.label != "supported"))
        if v is not None and v.evidence is not None and not found:
            box.say(Text.assemble(t, (" (evidence span not in the sources shown)", "dim")))

    def _refresh_status(self) -> None:
        d = self.session.describe()
        self.query_one("#status", StatusLine).set_info(d, getattr(self.app, "store_label", None))

    # -- selection ----------------------------------------------------------------------------------------------------
    @on(DataTable.RowHighlighted, "#units")
    def _unit_highlighted(self, event: DataTable.RowHighlighted) -> None:
        uid = event.row_key.value if event.row_key is not None else None
        if uid != self.selected:
            self.selected = uid
            self._last_unit = self._selected_unit()
            text, ev, what = self._shown()
            self._show_text(text, ev, what)
            self._detail(ev)

    @on(TextBody.UnitClicked)
    def _span_clicked(self, event: TextBody.UnitClicked) -> None:
        self.action_select_unit(event.unit_id)

    def action_select_unit(self, uid: str) -> None:
        """A click on a unit's span in the text selects its row."""
        units = self.query_one("#units", UnitsTable)
        if uid in units.rows:
            units.move_cursor(row=units.get_row_index(uid), animate=False)
            units.focus()

    @on(DataTable.RowHighlighted, "#rounds-table")
    def _round_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if self.snap is None or event.row_key is None:
            return
        key = event.row_key.value
        view = (None, True) if key == "proposal" else ((None if int(key) == self.snap.current else int(key)), False)
        if view != (self.view_n, self.show_proposal):
            before = self._selected_unit() or self._last_unit
            self.view_n, self.show_proposal = view
            self.selected = self._same_unit(before)  # the same words in the round now shown, if it has them
            self._paint()
        self.refresh_bindings()

    # -- bindings -------------------------------------------------------------------------------------------------------
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """True: shown and live; None: shown dimmed (a job runs, wait or esc); False: hidden (not applicable now),
        so the footer keeps room for what can be done."""
        editing = self.query_one("#text-panel", TextPanel).editing if self.is_mounted else False
        has_case = self.snap is not None
        busy = self._job is not None
        if action == "save_edit":
            return True if editing else False
        if editing and action not in ("cancel", "quit", "help", "save_edit", "messages"):
            return False
        if action in ("check", "refine", "auto_refine", "edit"):
            return None if (busy or not has_case) else True
        if action in ("edit_step", "toggle_edit"):
            return True if (has_case and self.snap.proposal is not None and self.show_proposal and not busy
                            and self.hunks) else False
        if action in ("accept", "reject"):
            if not (has_case and self.snap.proposal is not None):
                return False
            return None if busy else True
        if action == "revert":
            if not (has_case and self._revert_target() is not None):
                return False
            return None if busy else True
        if action == "diff":
            return True if has_case and (len(self.snap.rounds) + (self.snap.proposal is not None)) >= 1 else False
        if action == "export":
            if not (has_case and self.snap.run_id is not None):
                return False
            return None if busy else True
        # settings stays live while a job runs: action_settings refuses with a message (a dimmed key would say nothing)
        if action == "cancel":
            return True if (busy or editing or self.show_proposal or self.view_n is not None) else False
        return True

    def _revert_target(self) -> int | None:
        n = self.query_one("#rounds", RoundsPanel).selected_round() if self.is_mounted else None
        if n is None or self.snap is None or n == self.snap.current:
            return None
        return n

    # -- actions ----------------------------------------------------------------------------------------------------------
    def _draft_changed(self) -> bool:
        panel = self.query_one("#text-panel", TextPanel)
        return panel.editing and self.snap is not None and panel.edited_text() != self.snap.text

    def _leave_edit(self) -> None:
        panel = self.query_one("#text-panel", TextPanel)
        panel.stop_edit()
        self.query_one("#units", UnitsTable).focus()
        self.refresh_bindings()

    def _confirm(self, question: str, then: Callable[[], Any], yes: str = "Discard") -> None:
        from citefix.tui.dialogs import ConfirmScreen

        self.app.push_screen(ConfirmScreen(question, yes=yes), lambda ok: then() if ok else None)

    def _what_would_be_lost(self) -> str | None:
        lost = []
        if self._draft_changed():
            lost.append("your unsaved edit")
        if self.snap is not None and self.snap.proposal is not None:
            lost.append("the pending proposal (not accepted or rejected)")
        return " and ".join(lost) or None

    def action_cancel(self) -> None:
        panel = self.query_one("#text-panel", TextPanel)
        if panel.editing:
            if self._draft_changed():
                def drop() -> None:
                    self._leave_edit()
                    self.notify("edit discarded", markup=False)

                self._confirm("Discard your edit? The text you typed is lost.", drop)
            else:
                self._leave_edit()
            return
        if self._job is None:
            if self.show_proposal or self.view_n is not None:
                self.view_n, self.show_proposal = None, False
                self._paint()
            return
        if self._cancel is not None:
            self._cancel.set()
        self._end("cancelled (the current step finishes in the background; its result is dropped)")

    def action_diff(self) -> None:
        from citefix.tui.dialogs import DiffScreen

        if self.snap is None:
            return
        options = [(f"round {r.n}" + (f" ({r.score:.2f})" if r.score is not None else ""), r.text) for r in self.snap.rounds]
        if self.snap.proposal is not None:
            options.append(("proposed revision", self.snap.proposal.text))
        if self.snap.current is None or (self.snap.rounds and self.snap.text != self._round_text(self.snap.current)):
            options.append(("working text", self.snap.text))
        if not options:
            return
        cur = next((i for i, r in enumerate(self.snap.rounds) if r.n == self.snap.current), 0)
        if self.snap.proposal is not None:
            a, b = cur, len(self.snap.rounds)
        elif self.view_n is not None:
            a = next((i for i, r in enumerate(self.snap.rounds) if r.n == self.view_n), 0)
            b = cur
        else:
            a, b = max(0, cur - 1), cur
        self.app.push_screen(DiffScreen(options, a, b))

    def action_accept(self) -> None:
        if self.snap is None or self.snap.proposal is None or self._job is not None:
            return
        if self.hunks and self.keep != {h.k for h in self.hunks}:
            if not self.keep:
                self.notify("every edit is dropped: n rejects the proposal, or keep an edit (space)", title="Accept")
                return
            text = render.apply_hunks(self.snap.text, self.snap.proposal.text, self.hunks, self.keep)
            kept = ", ".join(str(k + 1) for k in sorted(self.keep))
            job = self._begin("accept", f"accepting edits {kept} of {len(self.hunks)} (re-checking)", None)
            self.run_decision(job, "accept_part", text=text,
                              comment=f"proposal accepted in part: edits {kept} of {len(self.hunks)}")
            return
        job = self._begin("accept", "accepting the revision", None)
        self.run_decision(job, "accept")

    def action_reject(self) -> None:
        if self.snap is None or self.snap.proposal is None or self._job is not None:
            return
        job = self._begin("reject", "rejecting the revision", None)
        self.run_decision(job, "reject")

    def action_revert(self) -> None:
        n = self._revert_target()
        if n is None or self._job is not None:
            self.notify("select an earlier round in the rounds table first", title="Revert")
            return
        job = self._begin("revert", f"reverting to round {n}", None)
        self.run_decision(job, "revert", n)

    def action_edit(self) -> None:
        if self.snap is None or self._job is not None:
            return
        self.view_n, self.show_proposal = None, False
        self._paint()
        self.query_one("#text-panel", TextPanel).start_edit(self.snap.text)
        self.refresh_bindings()

    def action_save_edit(self) -> None:
        panel = self.query_one("#text-panel", TextPanel)
        if not panel.editing or self.snap is None:
            return
        text = panel.edited_text()
        try:
            self.session.edit(text)
        except UserError as exc:
            self.notify(str(exc), title="Edit", severity="error", markup=False)
            return
        panel.stop_edit()
        self.snap.text = text
        self._paint()
        self.query_one("#units", UnitsTable).focus()
        job = self._begin("check", "re-checking the edit", None)
        self.run_check(job, text)

    def action_settings(self, settings=None, error: str | None = None) -> None:
        from citefix.tui.dialogs import SettingsScreen

        if self._job is not None:  # the new settings would swap the pipeline under the running job
            self.notify("a job is running: wait for it or press esc to cancel it, then change the settings",
                        title="Settings", severity="warning", markup=False)
            return

        def go(new) -> None:
            if new is not None:
                self._settings_attempt = new
                job = self._begin("settings", "validating settings", None)
                self.run_settings(job, new)

        self.app.push_screen(SettingsScreen(settings or self.session.settings, error=error), go)

    _settings_attempt = None

    def action_export(self) -> None:
        from citefix.tui.dialogs import ExportScreen

        if self.snap is None or self.snap.run_id is None:
            self.notify("check the text first (c): there is no run to export yet", title="Export")
            return

        def go(choice) -> None:
            if choice is not None:
                job = self._begin("export", "exporting", None)
                self.run_export(job, *choice)

        self.app.push_screen(ExportScreen(self.snap.run_id), go)

    def action_open(self) -> None:
        lost = self._what_would_be_lost()
        if lost:
            self._confirm(f"Open another case and drop {lost}?", self.app.action_open, yes="Drop and open")
            return
        self.app.action_open()

    def action_help(self) -> None:
        from citefix.tui.dialogs import HelpScreen

        self.app.push_screen(HelpScreen(KEYS))

    async def action_quit(self) -> None:
        """Quit at once: the running job is cancelled and abandoned (its thread dies with the process), completed
        rounds stay stored, the run is marked finished or interrupted (on_unmount). Asks first only when something
        not stored would be lost."""
        lost = self._what_would_be_lost()
        if lost:
            self._confirm(f"Quit and drop {lost}?", self.app.exit, yes="Drop and quit")
            return
        if self._cancel is not None:
            self._cancel.set()
        self.app.exit()

    # -- messages log -------------------------------------------------------------------------------------------------
    def notify(self, message: str, *, title: str = "", severity="information", **kw) -> None:
        """Every notification also goes to the messages log (m), where it stays after the toast fades."""
        self.log_message(severity, title, message)
        super().notify(message, title=title, severity=severity, **kw)

    def log_message(self, severity: str, title: str, message: str) -> None:
        self.messages_log.append((time.strftime("%H:%M:%S"), severity, title, message))
        n = sum(1 for _, sev, _, _ in self.messages_log if sev in ("warning", "error"))
        if self.is_mounted:
            self.query_one("#status", StatusLine).set_messages(n)

    def action_messages(self) -> None:
        from citefix.tui.dialogs import MessagesScreen

        self.app.push_screen(MessagesScreen(list(self.messages_log)))
