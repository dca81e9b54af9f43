"""Modal screens: help, diff between rounds, settings, export, and the auto-refine round count."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Grid, Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.validation import Integer
from textual.widgets import Button, Input, Label, RadioButton, RadioSet, Select, Static

from citefix.config import Settings
from citefix.tui import render

_MODAL_CSS = """
{name} {{ align: center middle; }}
{name} > Vertical, {name} > VerticalScroll {{ width: {w}; max-width: 100%; height: auto; max-height: 100%;
    border: thick $accent; background: $surface; padding: 0 1; }}
{name} .title {{ text-style: bold; margin-bottom: 1; }}
{name} .buttons {{ height: auto; margin-top: 1; align-horizontal: right; }}
{name} .buttons Button {{ margin-left: 1; }}
{name} .hint {{ color: $text-muted; }}
"""


def _key_name(k: str) -> str:
    return {"question_mark": "?", "escape": "esc", "R": "R (shift+r)", "left_square_bracket": "[",
            "right_square_bracket": "]"}.get(k, k)


class HelpScreen(ModalScreen[None]):
    DEFAULT_CSS = _MODAL_CSS.format(name="HelpScreen", w=96)
    BINDINGS = [Binding("escape,q,question_mark,f1", "dismiss", "Close")]
    AUTO_FOCUS = "#help-body"

    def __init__(self, keys: list[tuple[str, str, str, str]]) -> None:
        super().__init__()
        self.keys = keys

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold cyan", no_wrap=True)
        table.add_column()
        for k, _, _, text in self.keys:
            table.add_row(_key_name(k), text)
        table.add_row("↑ ↓ / click", "select a unit: its span is highlighted in the text, its evidence in the sources")
        table.add_row("click a span", "select the unit that span belongs to")
        with VerticalScroll(id="help-body"):  # scrolls at 80x24: every line reachable with ↑ ↓ / pgdn
            yield Label("citefix · keys", classes="title")
            yield Static(table)
            yield Static(render.legend(), classes="hint")
            yield Label("esc closes this help", classes="hint")

    def action_dismiss(self) -> None:
        self.dismiss(None)


class DiffScreen(ModalScreen[None]):
    """A word diff between any two of the given texts (rounds, a proposal, the working text)."""

    DEFAULT_CSS = _MODAL_CSS.format(name="DiffScreen", w="90%") + """
    DiffScreen #pickers { height: auto; }
    DiffScreen Select { width: 1fr; }
    DiffScreen #diff-body { height: auto; max-height: 24; border: round $primary; padding: 0 1; }
    """
    BINDINGS = [Binding("escape,q,d", "dismiss", "Close"), Binding("s", "swap", "Swap")]

    def __init__(self, options: list[tuple[str, str]], a: int, b: int) -> None:
        super().__init__()
        self.options = options
        self.a, self.b = min(a, len(options) - 1), min(b, len(options) - 1)

    def compose(self) -> ComposeResult:
        choices = [(label, i) for i, (label, _) in enumerate(self.options)]
        with Vertical():
            yield Label("Diff between rounds", classes="title")
            with Horizontal(id="pickers"):
                yield Select(choices, value=self.a, allow_blank=False, id="diff-a", prompt="from")
                yield Label(" → ")
                yield Select(choices, value=self.b, allow_blank=False, id="diff-b", prompt="to")
            yield Static("", id="diff-counts", classes="hint")
            with VerticalScroll(id="diff-body"):
                yield Static("", id="diff-text")
            yield Label("red struck = removed · green underlined = added · s swaps · esc closes", classes="hint")

    def on_mount(self) -> None:
        self._show()

    @on(Select.Changed)
    def _changed(self, event: Select.Changed) -> None:
        if event.select.id == "diff-a" and isinstance(event.value, int):
            self.a = event.value
        elif event.select.id == "diff-b" and isinstance(event.value, int):
            self.b = event.value
        self._show()

    def _show(self) -> None:
        (la, ta), (lb, tb) = self.options[self.a], self.options[self.b]
        removed, added = render.diff_counts(ta, tb)
        self.query_one("#diff-counts", Static).update(f"{la} → {lb}: {removed} words removed, {added} added")
        body = render.word_diff(ta, tb) if ta != tb else Text("(the two texts are the same)", style="dim")
        self.query_one("#diff-text", Static).update(body)

    def action_swap(self) -> None:
        self.a, self.b = self.b, self.a
        self.query_one("#diff-a", Select).value = self.a
        self.query_one("#diff-b", Select).value = self.b
        self._show()

    def action_dismiss(self) -> None:
        self.dismiss(None)


VERIFIERS = ["auto", "offline", "offline:lexical", "offline:alignment", "offline:similarity", "llm"]
DECOMPOSERS = ["auto", "acu", "clauses", "aliice", "sentence"]


def strategies() -> list[str]:
    """The refine package's feedback strategies (its registry when it has one)."""
    from citefix.tui.session import strategy_names

    return strategy_names()


class SettingsScreen(ModalScreen[Settings | None]):
    """Strategy, LLM, judge, verifier and decomposer; checked here for form, validated by building the pipeline."""

    DEFAULT_CSS = _MODAL_CSS.format(name="SettingsScreen", w=84) + """
    SettingsScreen Grid { grid-size: 2; grid-columns: 16 1fr; grid-rows: auto; grid-gutter: 0 1; height: auto; }
    SettingsScreen Grid Label { padding-top: 1; }
    SettingsScreen #settings-error { color: $error; height: auto; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel"), Binding("ctrl+s", "save", "Save")]

    def __init__(self, settings: Settings, error: str | None = None) -> None:
        super().__init__()
        self.settings = settings
        self.error = error  # reopened after a failed apply: the form keeps what was typed and says what to fix

    def compose(self) -> ComposeResult:
        s = self.settings
        verifier_opts = list(dict.fromkeys(VERIFIERS + [s.verifier]))
        strategy_opts = list(dict.fromkeys(strategies() + [s.strategy]))
        with VerticalScroll(id="settings-body"):  # scrolls where the terminal is short: Save stays reachable
            yield Label("Settings (saved to the config file)", classes="title")
            yield Label("ctrl+s saves · esc cancels · tab moves on · Save is at the bottom", classes="hint")
            with Grid():
                yield Label("strategy")
                yield Select([(x, x) for x in strategy_opts], value=s.strategy, allow_blank=False, id="set-strategy")
                yield Label("LLM")
                yield Input(s.llm or "", placeholder="litellm model, e.g. openai/gpt-4o-mini (empty: offline)", id="set-llm")
                yield Label("judge LLM")
                yield Input(s.judge_llm or "", placeholder="optional second model that scores rounds", id="set-judge")
                yield Label("verifier")
                yield Select([(x, x) for x in verifier_opts] + [("nli:<model> …", "nli")], value=s.verifier,
                             allow_blank=False, id="set-verifier")
                yield Label("NLI model")
                yield Input(s.verifier.split(":", 1)[1] if s.verifier.startswith("nli:") else "",
                            placeholder="with verifier nli: a hub id or a local path", id="set-nli")
                yield Label("decomposer")
                yield Select([(x, x) for x in dict.fromkeys(DECOMPOSERS + [s.decomposer])], value=s.decomposer,
                             allow_blank=False, id="set-decomposer")
            yield Static(self.error or "", id="settings-error")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="settings-cancel")
                yield Button("Save", variant="primary", id="settings-save")
            yield Label("ctrl+s saves · esc cancels · the LLM's API key comes from the environment", classes="hint")

    def on_mount(self) -> None:
        if self.settings.verifier.startswith("nli:"):
            self.query_one("#set-verifier", Select).value = "nli"

    def collect(self) -> Settings:
        """The form as Settings, or ValueError naming the field to fix."""
        llm = self.query_one("#set-llm", Input).value.strip() or None
        judge = self.query_one("#set-judge", Input).value.strip() or None
        verifier = str(self.query_one("#set-verifier", Select).value)
        if verifier == "nli":
            model = self.query_one("#set-nli", Input).value.strip()
            if not model:
                raise ValueError("verifier nli needs a model: fill in the NLI model field")
            verifier = f"nli:{model}"
        decomposer = str(self.query_one("#set-decomposer", Select).value)
        strategy = str(self.query_one("#set-strategy", Select).value)
        for name, value in (("LLM", llm), ("judge LLM", judge)):
            if value and (" " in value or "/" not in value and ":" not in value and not value.replace("-", "").replace(".", "").isalnum()):
                raise ValueError(f"{name} {value!r} does not look like a litellm model string (provider/model)")
        if verifier == "llm" and not llm:
            raise ValueError("verifier llm needs an LLM: fill in the LLM field or pick an offline verifier")
        if decomposer == "acu" and not llm:
            raise ValueError("decomposer acu needs an LLM: fill in the LLM field or pick clauses")
        from dataclasses import replace

        return replace(self.settings, llm=llm, judge_llm=judge, verifier=verifier, decomposer=decomposer, strategy=strategy)

    def action_save(self) -> None:
        try:
            new = self.collect()
        except ValueError as exc:
            self.query_one("#settings-error", Static).update(str(exc))
            return
        self.dismiss(new)

    def action_cancel(self) -> None:
        self.dismiss(None)

    @on(Button.Pressed, "#settings-save")
    def _save(self) -> None:
        self.action_save()

    @on(Button.Pressed, "#settings-cancel")
    def _cancel(self) -> None:
        self.action_cancel()


class ExportScreen(ModalScreen[tuple[str, str] | None]):
    """Pick JSON or Markdown and a path; the export itself runs in a worker (citefix.export.export_run)."""

    DEFAULT_CSS = _MODAL_CSS.format(name="ExportScreen", w=72)
    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    AUTO_FOCUS = "#export-path"  # type a path and press enter

    def __init__(self, run_id: int) -> None:
        super().__init__()
        self.run_id = run_id

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(f"Export run {self.run_id}", classes="title")
            with RadioSet(id="export-format"):
                yield RadioButton("JSON (everything: rounds, units, verdicts, calls)", value=True, id="fmt-json")
                yield RadioButton("Markdown (a readable report)", id="fmt-md")
            yield Input(f"citefix-run-{self.run_id}.json", id="export-path")
            with Horizontal(classes="buttons"):
                yield Button("Cancel", id="export-cancel")
                yield Button("Export", variant="primary", id="export-go")
            yield Label("enter exports · esc cancels", classes="hint")

    def _fmt(self) -> str:
        return "md" if self.query_one("#fmt-md", RadioButton).value else "json"

    @on(RadioSet.Changed)
    def _fmt_changed(self) -> None:
        inp = self.query_one("#export-path", Input)
        if inp.value.lower().endswith((".md", ".markdown", ".json")):
            stem = inp.value.rsplit(".", 1)[0] if "." in inp.value else inp.value
            wanted = f"{stem}.{self._fmt()}"
            if inp.value != wanted:
                inp.value = wanted

    @on(Input.Changed, "#export-path")
    def _path_changed(self, event: Input.Changed) -> None:
        """A path ending in .md or .json picks the format."""
        v = event.value.lower()
        target = "fmt-md" if v.endswith((".md", ".markdown")) else "fmt-json" if v.endswith(".json") else None
        if target and not self.query_one(f"#{target}", RadioButton).value:
            self.query_one(f"#{target}", RadioButton).value = True

    @on(Input.Submitted)
    @on(Button.Pressed, "#export-go")
    def _go(self) -> None:
        path = self.query_one("#export-path", Input).value.strip()
        if not path:
            self.notify("give a file path", severity="warning")
            return
        self.dismiss((self._fmt(), path))

    @on(Button.Pressed, "#export-cancel")
    def action_cancel(self) -> None:
        self.dismiss(None)


class AskRounds(ModalScreen[int | None]):
    DEFAULT_CSS = _MODAL_CSS.format(name="AskRounds", w=56)
    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    AUTO_FOCUS = "#rounds-n"

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label("Auto-refine: how many rounds?", classes="title")
            yield Input("3", id="rounds-n", validators=[Integer(minimum=1, maximum=20)])
            yield Label("1–20 · each revision is checked and accepted; stops early when nothing is unsupported",
                        classes="hint")

    @on(Input.Submitted)
    def _go(self, event: Input.Submitted) -> None:
        if event.validation_result is not None and not event.validation_result.is_valid:
            self.notify("give a whole number from 1 to 20", severity="warning")
            return
        self.dismiss(int(event.value))

    def action_cancel(self) -> None:
        self.dismiss(None)


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question before something is dropped (an unsaved edit, a pending proposal)."""

    DEFAULT_CSS = _MODAL_CSS.format(name="ConfirmScreen", w=64)
    BINDINGS = [Binding("y", "answer(True)", "yes"), Binding("n,escape", "answer(False)", "no")]
    AUTO_FOCUS = "#confirm-no"

    def __init__(self, question: str, yes: str = "Discard", no: str = "Keep") -> None:
        super().__init__()
        self.question, self.yes, self.no = question, yes, no

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(self.question, classes="title")
            with Horizontal(classes="buttons"):
                yield Button(f"{self.no} (n)", id="confirm-no")
                yield Button(f"{self.yes} (y)", variant="error", id="confirm-yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "confirm-yes")


class MessagesScreen(ModalScreen[None]):
    """Every notification of this session, newest last: warnings and errors stay here after their toast fades."""

    DEFAULT_CSS = _MODAL_CSS.format(name="MessagesScreen", w=100)
    BINDINGS = [Binding("escape,q,m", "dismiss", "Close")]
    AUTO_FOCUS = "#messages-body"
    COLOURS = {"error": "red", "warning": "yellow"}

    def __init__(self, entries: list[tuple[str, str, str, str]]) -> None:
        super().__init__()
        self.entries = entries

    def compose(self) -> ComposeResult:
        body = Text()
        for when, sev, title, msg in self.entries:
            body.append(f"{when} ", style="dim")
            body.append(f"{sev:<11}", style=self.COLOURS.get(sev, "cyan"))
            if title:
                body.append(f"{title}: ", style="bold")
            body.append(msg + "\n")
        if not self.entries:
            body = Text("no messages yet", style="dim")
        with VerticalScroll(id="messages-body"):
            yield Label("Messages (this session)", classes="title")
            yield Static(body)
            yield Label("esc closes", classes="hint")

    def action_dismiss(self) -> None:
        self.dismiss(None)


class CasePicker(ModalScreen[int | None]):
    """Pick one case of a multi-case file (JSONL or a JSON list): enter opens the highlighted one."""

    DEFAULT_CSS = _MODAL_CSS.format(name="CasePicker", w=100) + """
    CasePicker DataTable { height: auto; max-height: 16; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]
    AUTO_FOCUS = "#case-list"

    def __init__(self, path: str, cases: list[tuple[str, str, str]]) -> None:
        super().__init__()
        self.path, self.cases = path, cases

    def compose(self) -> ComposeResult:
        from textual.widgets import DataTable

        with Vertical():
            yield Label(f"{self.path} holds {len(self.cases)} cases: pick one", classes="title")
            yield DataTable(id="case-list", cursor_type="row", zebra_stripes=True)
            yield Label("enter opens · esc cancels", classes="hint")

    def on_mount(self) -> None:
        from textual.widgets import DataTable

        t = self.query_one("#case-list", DataTable)
        t.add_columns("#", "case", "kind", "text")
        for k, (cid, kind, words) in enumerate(self.cases):
            t.add_row(str(k + 1), cid, kind.replace("_", " "), words + " …", key=str(k))

    def on_data_table_row_selected(self, event) -> None:
        self.dismiss(int(event.row_key.value))

    def action_cancel(self) -> None:
        self.dismiss(None)
