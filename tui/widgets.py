"""The panes of the main screen. Each paints core data it is handed; none calls core or the store."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.style import Style
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.message import Message
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.widgets import DataTable, ProgressBar, Sparkline, Static, TextArea

from citefix.models import Case, Evaluation, Evidence
from citefix.tui import render

if TYPE_CHECKING:
    from citefix.store.rows import RunRow

_SOURCE_TITLE_MAX = 70


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


class TextBody(Static):
    """The painted text. A click selects the unit under the mouse, read from the span's meta (render.UNIT_META):
    no "@click" meta, which would make Textual draw every span as a grey link and hide the verdict colours."""

    class UnitClicked(Message):
        def __init__(self, unit_id: str) -> None:
            super().__init__()
            self.unit_id = unit_id

    def on_click(self, event: events.Click) -> None:
        uid = event.style.meta.get(render.UNIT_META) if event.style else None
        if uid:
            event.stop()
            self.post_message(self.UnitClicked(uid))


class TextPanel(Vertical):
    """The working text, painted by verdict; swaps to a TextArea for editing in place."""

    DEFAULT_CSS = """
    TextPanel { border: round $primary; border-title-color: $text; padding: 0 1; }
    TextPanel:focus-within { border: round $accent; }
    TextPanel #text-scroll { height: 1fr; }
    TextPanel #text-edit { height: 1fr; display: none; }
    TextPanel.editing #text-edit { display: block; }
    TextPanel.editing #text-scroll { display: none; }
    TextPanel #legend { height: auto; color: $text-muted; }
    TextPanel #cited-summary { height: auto; display: none; }
    TextPanel.cited #cited-summary { display: block; }
    """

    _shown: tuple[str, int, str] | None = None  # the text, evaluation and note last painted

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="text-scroll", can_focus=True):
            yield TextBody("", id="text-body")
        yield TextArea("", id="text-edit", soft_wrap=True, show_line_numbers=False)
        yield Static("", id="cited-summary")
        yield Static(render.legend(), id="legend")

    def show(self, text: str, ev: Evaluation | None, selected: str | None = None, *, note: str = "") -> None:
        body = render.painted_text(text, ev, selected=selected)
        if note:
            body = Text.assemble(body, "\n\n", (note, "italic dim"))
        shown = (text, id(ev), note)
        if shown == self._shown:  # another unit selected in the same text: only styles change, never the size,
            self.query_one("#text-body", Static).update(body, layout=False)  # so no layout pass over the screen
            return
        self._shown = shown
        summary = render.cited_summary(ev) if ev is not None and ev.text == text else None
        self.set_class(summary is not None, "cited")
        self.query_one("#cited-summary", Static).update(summary or "")
        self.query_one("#legend", Static).update(render.legend())
        self.query_one("#text-body", Static).update(body)

    def show_rich(self, body: Text, *, note: str = "") -> None:
        """A prebuilt text (the proposal's inline diff) in place of the painted text."""
        self._shown = None
        self.set_class(False, "cited")
        if note:
            body = Text.assemble(body, "\n\n", (note, "italic dim"))
        self.query_one("#text-body", Static).update(body)
        self.query_one("#legend", Static).update(render.diff_legend())

    @property
    def editing(self) -> bool:
        return self.has_class("editing")

    def start_edit(self, text: str) -> None:
        area = self.query_one("#text-edit", TextArea)
        area.load_text(text)
        area.move_cursor(area.document.end)  # typing goes on at the end of the text
        self.add_class("editing")
        area.focus()

    def edited_text(self) -> str:
        return self.query_one("#text-edit", TextArea).text

    def stop_edit(self) -> None:
        self.remove_class("editing")


class DetailLine(Static):
    """The selected unit's verdict, evidence and reason, in a box of fixed height (scrolled when longer). Said again
    for every unit selected, so its size never changes: no layout pass, which would run over every source paragraph
    on screen (moving between units on a long source took over half a second)."""

    def say(self, content: Text) -> None:
        self.update(content, layout=False)
        self.scroll_home(animate=False)


class SourcesPanel(VerticalScroll):
    """The source document or the numbered passages, one Static per paragraph so evidence can be scrolled to."""

    DEFAULT_CSS = """
    SourcesPanel { border: round $primary; padding: 0 1; }
    SourcesPanel:focus-within { border: round $accent; }
    SourcesPanel .source-title { text-style: bold; color: $accent; margin-top: 1; }
    SourcesPanel .source-title.first { margin-top: 0; }
    SourcesPanel .para { margin-bottom: 1; }
    """

    can_focus = True

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self._paras: list[tuple[render.Paragraph, Static]] = []
        self._lit: list[int] = []

    def load(self, case: Case) -> None:
        self.remove_children()
        self._paras, self._lit = [], []
        widgets = []
        for k, src in enumerate(case.sources):
            title = src.title or ""
            if len(title) > _SOURCE_TITLE_MAX:
                title = title[: _SOURCE_TITLE_MAX - 1] + "…"
            label = f"[{src.id}] {title}".rstrip() if (case.kind == "cited_answer" or len(case.sources) > 1) else (title or "Source")
            widgets.append(Static(Text(label), classes="source-title" + (" first" if k == 0 else "")))
            for p in render.paragraphs(src.id, src.text):
                w = Static(render.painted_paragraph(p), classes="para")
                self._paras.append((p, w))
                widgets.append(w)
        self.mount_all(widgets)
        self.scroll_home(animate=False)

    def highlight(self, evidence: Evidence | None, *, weak: bool = False) -> bool:
        """Highlight the evidence span and scroll it into view; returns whether it was found."""
        # a highlight changes styles, never a paragraph's size: repaint the paragraphs, no layout pass (with hundreds
        # of paragraphs, a layout pass per selected unit is what made moving between units slow)
        for i in self._lit:
            p, w = self._paras[i]
            w.update(render.painted_paragraph(p), layout=False)
        self._lit = []
        self._evidence_at = None
        if evidence is None:
            return False
        first = None
        for i, (p, w) in enumerate(self._paras):
            if p.source_id == evidence.source_id and p.start < evidence.end and evidence.start < p.end:
                w.update(render.painted_paragraph(p, (evidence.start, evidence.end), weak=weak), layout=False)
                self._lit.append(i)
                first = (p, w) if first is None else first
        if first is not None:
            p, w = first
            self._evidence_at = (p, w, max(evidence.start, p.start) - p.start)
            self.call_after_refresh(self._reveal)
            return True
        return False

    _evidence_at: tuple[render.Paragraph, Static, int] | None = None  # the highlighted evidence: paragraph, offset

    def _reveal(self) -> None:
        """Scroll to the evidence's own line, not the paragraph's middle (a long paragraph is taller than the pane)."""
        if self._evidence_at is not None and self.size.height:
            p, w, offset = self._evidence_at
            self._scroll_to_line(w, self._line_of(p, offset, w))

    def on_show(self) -> None:
        """Shown again (the narrow layout's sources pane): at the evidence highlighted while it was hidden."""
        self.call_after_refresh(self._reveal)

    @staticmethod
    def _line_of(p: render.Paragraph, offset: int, w: Static) -> int:
        """The wrapped line of the paragraph that holds character `offset`."""
        from rich.console import Console

        width = max(10, (w.content_region.width or w.size.width or 60))
        lines = Text(p.text[:offset + 1]).wrap(Console(width=width), width)
        return max(0, len(lines) - 1)

    def _scroll_to_line(self, w: Static, line: int) -> None:
        from textual.geometry import Region

        y = w.virtual_region.y + line
        self.scroll_to_region(Region(0, y, 1, 1), animate=False, center=True, force=True)


class UnitsTable(DataTable):
    """One row per unit (ACU, clause or claim): unit, score, verdict, verifier. Row keys are unit ids."""

    DEFAULT_CSS = """
    UnitsTable { height: 1fr; }
    """

    WIDTHS = {"id": 4, "score": 5, "verdict": 11, "verifier": 14}  # fixed, so the layout does not depend on timing
    FIXED = sum(WIDTHS.values()) + 2 * 5 + 2  # every column but the unit's, with cell padding and the scrollbar

    def on_mount(self) -> None:
        self.cursor_type = "row"
        self.zebra_stripes = True
        self._ev: Evaluation | None = None
        self._unit_width = 30
        self._add_columns()

    def _add_columns(self) -> None:
        self.add_column("#", key="id", width=self.WIDTHS["id"])
        self.add_column("unit", key="unit", width=self._unit_width)
        self.add_column("score", key="score", width=self.WIDTHS["score"])
        self.add_column("verdict", key="verdict", width=self.WIDTHS["verdict"])
        self.add_column("verifier", key="verifier", width=self.WIDTHS["verifier"])

    def on_resize(self) -> None:
        width = max(16, self.size.width - self.FIXED)
        if width != self._unit_width:
            self._unit_width = width
            cursor = self.cursor_row
            self.clear(columns=True)
            self._add_columns()
            self.fill(self._ev)
            if self.row_count:
                self.move_cursor(row=min(cursor, self.row_count - 1), animate=False)

    def fill(self, ev: Evaluation | None) -> None:
        self._ev = ev
        self.clear()
        if ev is None:
            return
        unit_width = self._unit_width
        statements = render.statement_support(ev)
        groups = render.citation_groups(ev)
        for u in ev.units:
            v = ev.verdict_for(u.id)
            label = v.label if v is not None else None
            text = u.text if u.has_span else f"{u.text} (no span)"
            if u.cited and u.kind == "claim":  # a cited answer's claim: its group's marks first
                text = "".join(f"[{c}]" for c in u.cited) + " " + text
            if len(text) > unit_width:
                text = text[: unit_width - 1] + "…"
            if v is None and u.kind == "sentence" and ev.kind == "cited_answer":
                # a statement: its support level from its claims (what `citefix show` reports), not "not checked"
                row = statements.get(u.id)
                level = render.LEVEL_LABEL.get((row or {}).get("level"))
                self.add_row(Text(u.id, style="bold"), Text(text, style=render.VERDICT_STYLE[level] + Style(bold=True)),
                             render.score_cell((row or {}).get("share")), render.statement_cell(row),
                             "statement", key=u.id)
                continue
            cell = render.verdict_cell(label)
            g = groups.get(u.id)
            if g is not None and any(c.get("label") in ("redundant", "not_found") for c in g.get("citations") or []):
                cell.append(" !", style="bold yellow")  # a redundant or missing citation: see the detail
            self.add_row(u.id, Text(text, style=render.VERDICT_STYLE[label] if label else ""),
                         render.score_cell(v.score if v else None), cell,
                         _clip((v.verifier if v else ev.verifier) or "—", self.WIDTHS["verifier"]), key=u.id)


class RoundsPanel(Vertical):
    """Score per round (a sparkline and a text chart), and one row per round: score, unsupported units, how the round
    came about (strategy, edit, rejected, reverted), cost. The run's model and total cost are in the border."""

    DEFAULT_CSS = """
    RoundsPanel { border: round $primary; padding: 0 1; }
    RoundsPanel:focus-within { border: round $accent; }
    RoundsPanel Sparkline { height: 1; margin-bottom: 0; }
    RoundsPanel #rounds-chart { height: 1; }
    RoundsPanel DataTable { height: 1fr; }
    """

    def compose(self) -> ComposeResult:
        yield Sparkline([], id="rounds-spark", summary_function=max)
        yield Static("", id="rounds-chart")
        yield DataTable(id="rounds-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        t = self.query_one("#rounds-table", DataTable)
        for name, width in (("round", 5), ("score", 5), ("uns", 3), ("how", 14), ("cost", 7)):
            t.add_column(name, key=name, width=width)

    @staticmethod
    def health(ev) -> str | None:
        """'failed' when the round's model calls all failed, 'partial' when some units could not be checked (the
        CLI exits 3 on either); None for a whole round."""
        if ev is None:
            return None
        if ev.status == "error" or (ev.status == "no_units" and ev.errors):
            return "failed"
        # (a citation left unjudged because its group cites a passage that does not exist is not a failed check)
        findings = set((ev.metrics.get("citations") or {}).get("not_found") or [])  # "[3]" with no passage 3
        if any(e not in findings for e in ev.errors) or any(
                v.label == "error" and (v.details or {}).get("citation") != "not_judged" for v in ev.verdicts):
            return "partial"
        return None

    @staticmethod
    def how(r) -> str:
        """How a round came about, in a word or two."""
        if r.n == 0:
            base = "original"
        elif r.strategy:
            base = r.strategy
        elif (r.comment or "").startswith("re-checked"):
            base = "re-check"
        else:
            base = "edit"
        if r.status == "rejected":
            return f"{base} · rejected"
        if not r.accepted:
            return f"{base} · reverted"
        return base

    def fill(self, rounds, *, current: int | None, run: RunRow | None, proposal=None, evaluations=None) -> None:
        # the score trail follows the text's own history: a rejected or reverted proposal is listed, not charted
        scores = [r.score for r in rounds if getattr(r, "accepted", True)]
        spark = self.query_one("#rounds-spark", Sparkline)
        spark.data = [s for s in scores if s is not None] or [0.0]
        spark.display = sum(s is not None for s in scores) >= 2
        chart = render.text_chart(scores)
        if scores:
            chart.append("  " + " → ".join("—" if s is None else f"{s:.2f}" for s in scores[-5:]), style="bold")
        else:
            chart = Text("no rounds yet: c checks the text", style="dim")
        self.query_one("#rounds-chart", Static).update(chart)
        t = self.query_one("#rounds-table", DataTable)
        t.clear()
        for r in rounds:
            marker = "▶ " if r.n == current else "  "
            health = self.health((evaluations or {}).get(r.n))
            how = Text(self.how(r))
            if health:
                how = Text(f"{health} · {self.how(r)}", style="bold red" if health == "failed" else "bold magenta")
            t.add_row(Text(f"{marker}{r.n}", style="bold" if r.n == current else ""), render.score_cell(r.score),
                      Text(str(r.n_unsupported), justify="right"), how,
                      ("unknown" if r.cost is None else "—" if not r.cost else f"${r.cost:.4f}"), key=str(r.n))
        if proposal is not None:
            ev = proposal.evaluation
            t.add_row(Text("  new", style="bold yellow"), render.score_cell(ev.score if ev else None),
                      Text(str(len(ev.unsupported)) if ev else "—", justify="right"),
                      Text(f"{(run.strategy if run else None) or '?'} · a/n", style="yellow"), "—", key="proposal")
        total = sum(r.cost or 0.0 for r in rounds)
        spent = " · cost unknown (no price)" if any(r.cost is None for r in rounds) else (f" · ${total:.4f}" if total else "")
        self.border_subtitle = f"model {run.llm or 'offline'}" + spent if run else ""
        focus_key = "proposal" if proposal is not None else (str(current) if current is not None else None)
        if focus_key is not None:
            try:
                t.move_cursor(row=t.get_row_index(focus_key), animate=False)
            except Exception:  # the row is not there (no rounds yet)
                pass

    def selected_round(self) -> int | None:
        t = self.query_one("#rounds-table", DataTable)
        if t.row_count == 0:
            return None
        key = t.coordinate_to_cell_key(t.cursor_coordinate).row_key.value
        return int(key) if key and key.isdigit() else None


class StatusLine(Horizontal):
    """LLM, verifier, strategy, store path, and the running job with its progress."""

    DEFAULT_CSS = """
    StatusLine { height: 1; background: $panel; padding: 0 1; }
    StatusLine #status-info { width: 1fr; }
    StatusLine #status-job { width: auto; max-width: 60; color: $warning; padding-right: 1; }
    StatusLine #status-messages { width: auto; color: $error; padding-right: 1; }
    StatusLine ProgressBar { width: 22; display: none; }
    StatusLine.busy ProgressBar { display: block; }
    """

    def compose(self) -> ComposeResult:
        yield Static("", id="status-info")
        yield Static("", id="status-messages")
        yield Static("idle", id="status-job")
        yield ProgressBar(id="status-progress", show_eta=False, show_percentage=False)

    def set_info(self, d: dict, store_label: str | None = None) -> None:
        self.query_one("#status-info", Static).update(Text.assemble(
            ("LLM ", "dim"), d["llm"], ("  verifier ", "dim"), d["verifier"], ("  strategy ", "dim"), d["strategy"],
            ("  store ", "dim"), store_label or d["store"]))

    def set_messages(self, n: int) -> None:
        """How many warnings and errors the messages log (m) holds."""
        self.query_one("#status-messages", Static).update(f"⚠ {n} (m)" if n else "")

    def set_job(self, text: str, *, busy: bool, total: int | None | type(...) = ..., progress: float | None = None) -> None:
        """total: a count of steps, None for an indeterminate bar, ... to leave the bar as it is."""
        # the spinner ticks 10 times a second while a job runs: re-layout the screen only when the width changes
        same = len(text) == getattr(self, "_job_len", -1)
        self._job_len = len(text)
        self.query_one("#status-job", Static).update(text, layout=not same)
        self.set_class(busy, "busy")
        bar = self.query_one("#status-progress", ProgressBar)
        if total is not ...:
            bar.update(total=total, progress=0)
        if progress is not None:
            bar.update(progress=progress)
