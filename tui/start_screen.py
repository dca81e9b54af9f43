"""The start screen: open a case file (or the bundled example), or pick one of the recent runs in the store."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import Screen
from textual.suggester import Suggester
from textual.widgets import Button, DataTable, Footer, Header, Input, Label, Static

if TYPE_CHECKING:
    from citefix.store.rows import RunListRow


class PathSuggester(Suggester):
    """Completes a path on the start screen: the first directory entry that starts with what was typed (→ takes it)."""

    def __init__(self) -> None:
        super().__init__(use_cache=False, case_sensitive=True)

    async def get_suggestion(self, value: str) -> str | None:
        import os

        if not value:
            return None
        head, tail = os.path.split(value)
        folder = os.path.expanduser(head or ".")
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            return None
        for name in names:
            if name.startswith(tail) and name != tail and (tail.startswith(".") or not name.startswith(".")):
                full = os.path.join(head, name)
                return full + ("/" if os.path.isdir(os.path.join(folder, name)) else "")
        return None


class StartScreen(Screen):
    DEFAULT_CSS = """
    StartScreen #start-box { padding: 1 2; }
    StartScreen .title { text-style: bold; margin-bottom: 1; }
    StartScreen #open-row { height: auto; }
    StartScreen #open-path { width: 1fr; }
    StartScreen #open-row Button { margin-left: 1; }
    StartScreen #runs { height: 1fr; border: round $primary; }
    StartScreen #runs:focus { border: round $accent; }
    StartScreen .hint { color: $text-muted; margin-top: 1; }
    """
    # ctrl+e is the path input's "end of line": the screen's binding takes priority so the example opens from anywhere.
    # q quits unless the path input has the focus (there it types a q); the runs list has the focus at first.
    BINDINGS = [
        Binding("question_mark", "help", "help", key_display="?"),
        Binding("q", "app.quit", "quit"),
        Binding("escape", "back", "back"),
        Binding("ctrl+o,slash", "focus_path", "path", key_display="ctrl+o"),
        Binding("ctrl+r", "focus_runs", "runs"),
        Binding("ctrl+e", "example", "example", priority=True),
        Binding("ctrl+q", "app.quit", "quit", show=False, priority=True),
        Binding("f1", "help", "help", show=False),
    ]

    AUTO_FOCUS = "#runs"

    def __init__(self, runs: list[RunListRow] | None = None, *, can_go_back: bool = False) -> None:
        super().__init__()
        self.runs = runs  # None until the app's worker has read them from the store
        self.can_go_back = can_go_back

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False, icon="✓")
        with Vertical(id="start-box"):
            yield Label("Open a summary or cited answer with its sources", classes="title")
            with Horizontal(id="open-row"):
                yield Input(placeholder="path to a case file (.json / .jsonl), → completes, enter opens", id="open-path",
                            suggester=PathSuggester())
                yield Button("Open", variant="primary", id="open-go")
                yield Button("Bundled example", id="open-example")
            yield Label("… or reopen a stored run (enter or double-click):", classes="hint")
            yield DataTable(id="runs", cursor_type="row", zebra_stripes=True)
            yield Static("", id="start-store", classes="hint")
        yield Footer()

    def on_mount(self) -> None:
        self.title, self.sub_title = "citefix", "start"
        table = self.query_one("#runs", DataTable)
        self._columns(table)
        if self.runs is not None:
            self.fill(self.runs)
        else:
            table.add_row("", "", "", Text("reading the store …", style="dim"), "", "", "", "", "", key="none")

    def fill(self, runs: list[RunListRow]) -> None:
        self.runs = runs
        self.query_one("#start-store", Static).update(f"store: {self.app.store_label}")
        table = self.query_one("#runs", DataTable)
        table.clear()
        f = lambda x: "—" if x is None else f"{x:.2f}"  # noqa: E731
        for r in runs:
            table.add_row(str(r.id), (r.created or "")[:19].replace("T", " "), r.command, (r.case_id or "")[:32],
                          (r.kind or "").replace("_", " "), str(r.n_rounds), f(r.first_score), f(r.last_score),
                          r.status or "", key=str(r.id))
        if not runs:
            table.add_row("", "", "", Text("no runs stored yet", style="dim"), "", "", "", "", "", key="none")

    @staticmethod
    def _columns(table: DataTable) -> None:
        for col, width in (("run", 5), ("created", 19), ("command", 7), ("case", 26), ("kind", 12), ("rounds", 6),
                           ("first", 5), ("last", 5), ("status", 11)):
            table.add_column(col, key=col, width=width)

    @on(Input.Submitted, "#open-path")
    @on(Button.Pressed, "#open-go")
    def _open_path(self) -> None:
        path = self.query_one("#open-path", Input).value.strip()
        if not path:
            self.notify("type the path of a case file, or pick a run below", severity="warning")
            return
        self.app.open_target(path=path, index=None)  # several cases: the app asks which

    @on(Button.Pressed, "#open-example")
    def action_example(self) -> None:
        from citefix.inputs import example_path

        self.app.open_target(path=example_path("summary"))

    @on(DataTable.RowSelected, "#runs")
    def _open_run(self, event: DataTable.RowSelected) -> None:
        key = event.row_key.value
        if key and key.isdigit():
            self.app.open_target(run_id=int(key))

    def action_help(self) -> None:
        from citefix.tui.dialogs import HelpScreen

        self.app.push_screen(HelpScreen([
            ("enter", "", "", "open the run under the cursor (or the path typed in the path field)"),
            ("ctrl+o", "", "", "type the path of a case file (.json / .jsonl): tab completes it"),
            ("ctrl+e", "", "", "open the bundled example"),
            ("ctrl+r", "", "", "back to the list of stored runs"),
            ("q", "", "", "quit (ctrl+q from the path field)"),
        ]))

    def action_focus_path(self) -> None:
        self.query_one("#open-path", Input).focus()

    def action_focus_runs(self) -> None:
        self.query_one("#runs", DataTable).focus()

    def action_back(self) -> None:
        if self.can_go_back:
            self.app.pop_screen()
