"""The TUI in use: verdicts visible in the text pane, nothing dropped, 80x24 usable, cited answers in full.

Pilot tests with the scripted fake LLM (no exact offline scores: the offline verifier changes under them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest
from refine_fakes import acu_responder
from tui_helpers import Recorder, make_app, reviser_responder, settle

SIZE = (120, 34)
SMALL = (80, 24)


def _gated_responder():
    """A scripted ACU responder that blocks every call until the returned gate is set."""
    gate = threading.Event()
    inner = acu_responder()

    def slow(messages):
        gate.wait(20)
        return inner(messages)

    return gate, slow


def _cells(widget):
    """(x, y, rich style) of every cell of a widget, read back from the screen."""
    for y in range(widget.size.height):
        for x in range(widget.size.width):
            yield x, y, widget.get_style_at(x, y)


def _ink(style):
    c = style.color
    return None if c is None else c.get_truecolor()


@pytest.mark.asyncio
async def test_text_pane_paints_verdict_colours_not_links(store, example_path):
    """Spans used to render as grey underlined links (the @click meta); now each unit has its verdict's
    colour, unsupported ones red and bold with a ✗ marker, and clicking still selects."""
    app = make_app(store, path=example_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        main = app.main
        await pilot.press("c")
        await settle(pilot, app)
        ev = main.snap.evaluation
        label = {u.id: ev.verdict_for(u.id).label for u in ev.units}
        body = main.query_one("#text-body")
        seen: dict[str, list] = {}
        for x, y, st in _cells(body):
            meta = st.meta
            assert "@click" not in meta
            uid = meta.get("citefix_unit")
            if uid:
                seen.setdefault(label[uid], []).append((x, y, st))
        assert {"supported", "unsupported"} <= set(seen)
        for _, _, st in seen["supported"]:
            r, g, b = _ink(st)
            assert g > r and g > b and not st.bold  # green, plain
        for _, _, st in seen["unsupported"]:
            r, g, b = _ink(st)
            assert r > g and r > b and st.bold  # red and bold
        from citefix.tui.render import painted_text

        assert "✗" in painted_text(ev.text, ev).plain
        # a click on an unsupported cell selects that unit
        x, y, st = seen["unsupported"][0]
        await pilot.click("#text-body", offset=(x, y))
        await pilot.pause()
        assert main.selected == st.meta["citefix_unit"]


def test_verdicts_distinguishable_without_colour():
    """NO_COLOR / colour-blind readers: strip every colour and the four kinds of text still differ."""
    from citefix.models import Evaluation, Unit, Verdict
    from citefix.tui.render import painted_text

    text = "Alpha is true. Beta is half. Gamma is false. Delta unchecked."
    spans = [(0, 14), (15, 28), (29, 44), (45, len(text))]
    units = [Unit(id=f"u{i}", text=text[a:b], kind="clause", decomposer="t", start=a, end=b) for i, (a, b) in enumerate(spans)]
    verdicts = [Verdict(unit_id="u0", label="supported", score=1.0, verifier="t"),
                Verdict(unit_id="u1", label="partial", score=0.5, verifier="t"),
                Verdict(unit_id="u2", label="unsupported", score=0.0, verifier="t", unsupported_spans=[[35, 40]])]
    ev = Evaluation(case_id="c", kind="summary", text=text, units=units, verdicts=verdicts)
    out = painted_text(text, ev)
    plain = out.plain
    assert "≈" in plain and "✗" in plain  # markers after the partial and the unsupported stretch

    def attrs(word):
        i = plain.index(word)
        st = _style_at(out, i)
        return (bool(st.bold), bool(st.italic), bool(st.underline), bool(st.dim))

    kinds = {w: attrs(w) for w in ("Alpha", "Beta", "Gamma", "false", "Delta")}
    assert len({kinds[w] for w in ("Alpha", "Beta", "Gamma", "Delta")}) == 4, kinds
    assert kinds["false"][2] and not kinds["Gamma"][2]  # only the named words are underlined


def _style_at(text, offset):
    from rich.style import Style

    style = Style.parse(str(text.style)) if text.style else Style()
    for span in text.spans:
        if span.start <= offset < span.end:
            st = span.style if isinstance(span.style, Style) else Style.parse(span.style)
            style = style + st
    return style


@pytest.mark.asyncio
async def test_quit_during_a_check_marks_the_run_and_leaves_no_thread_to_wait_for(store, example_path):
    """q while a model call hangs: the job runs in a daemon thread (nothing joins it at exit) and the run is stored
    as interrupted, not left running."""
    gate, slow = _gated_responder()

    from citefix.tui import messages as m

    rec = Recorder()
    app = make_app(store, path=example_path, responder=slow)
    async with app.run_test(size=SIZE, message_hook=rec) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        main = app.main
        await pilot.press("c")
        await settle(pilot, app, until=lambda: bool(rec.of(m.WorkProgress)))
        assert main._job is not None
        t0 = time.perf_counter()
        await pilot.press("q")
    took = time.perf_counter() - t0
    try:
        assert main.threads and all(t.daemon for t in main.threads)
        runs = store.list_runs()
        assert [r.status for r in runs] == ["interrupted"]
        assert took < 2.0, took
    finally:
        gate.set()
        for t in main.threads:  # let it end before the fixture closes the store under it
            t.join(20)


@pytest.mark.asyncio
async def test_quit_after_rounds_stores_finished_with_best_round(store, example_path):
    app = make_app(store, path=example_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        await pilot.press("c")
        await settle(pilot, app)
        run_id = app.main.snap.run_id
        await pilot.press("q")
    run = store.run(run_id)
    assert run.status == "finished" and run.best_round == 0


@pytest.mark.asyncio
async def test_rejected_proposal_is_not_the_runs_current_text(store, example_path, tmp_path):
    """After r then n, `citefix runs` / `show` present the accepted text (round 0), not the rejected one."""
    app = make_app(store, path=example_path, responder=reviser_responder())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        main = app.main
        await pilot.press("c")
        await settle(pilot, app)
        await pilot.press("r")
        await settle(pilot, app)
        assert main.snap.proposal is not None
        await pilot.press("n")
        await settle(pilot, app)
        run_id = main.snap.run_id
    rows = store.rounds(run_id)
    assert [(r.n, r.accepted) for r in rows] == [(0, 1), (1, 0)]
    assert rows[0].score != rows[1].score  # the scripted reviser removed an unsupported phrase
    assert store.evaluation(run_id).text == rows[0].text
    assert store.list_runs()[0].last_score == rows[0].score
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    r = subprocess.run([sys.executable, "-m", "citefix.cli", "show", str(run_id), "--json", "--db", str(store.path)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["text"] == rows[0].text


# -- 80x24 ------------------------------------------------------------------------------------------------------------

def _footer_text(screen):
    from textual.widgets import Footer

    footer = screen.query_one(Footer)
    return " ".join(str(k.render()) if hasattr(k, "render") else "" for k in footer.query("FooterKey"))


@pytest.mark.asyncio
async def test_80x24_narrow_layout_footer_and_panes(store, example_path):
    app = make_app(store, path=example_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        main = app.main
        await pilot.press("c")
        await settle(pilot, app)
        assert main.has_class("narrow")
        keys = [k.key for k in main.query("FooterKey")]
        assert keys[:2] == ["question_mark", "q"]  # ? help and q quit first: never cut off
        for k in main.query("FooterKey")[:2]:
            assert k.region.right <= 80 and k.region.width > 0
        units = main.query_one("#units")
        assert units.region.width >= 76  # the units pane has the full width
        score_col = units.columns["verdict"]
        assert units.region.x + sum(c.get_render_width(units) for c in list(units.columns.values())[:4]) <= 80, score_col
        # 2 shows the sources in place of the lower pane, 3 the rounds, 1 the units again
        await pilot.press("2")
        await pilot.pause()
        assert main.query_one("#sources").display and main.query_one("#sources").region.height > 3
        assert not main.query_one("#bottom").display
        await pilot.press("3")
        await pilot.pause()
        assert main.query_one("#rounds").region.height > 3 and not main.query_one("#units-box").display
        await pilot.press("1")
        await pilot.pause()
        # the whole text of a selected unit is readable in the detail pane, not just its cut table cell
        ev = main.snap.evaluation
        longest = max(ev.units, key=lambda u: len(u.text))
        units.move_cursor(row=units.get_row_index(longest.id))
        await pilot.pause()
        detail = main.query_one("#unit-detail")
        assert longest.text in str(detail.render()).replace("\n", " ") or longest.text in detail.render().plain


@pytest.mark.asyncio
async def test_80x24_help_and_settings_scroll_to_their_last_line(store, example_path):
    from citefix.tui.dialogs import HelpScreen, SettingsScreen

    app = make_app(store, path=example_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        body = app.screen.query_one("#help-body")
        assert body.region.bottom <= 24 and body.max_scroll_y > 0  # taller than the terminal: it scrolls
        await pilot.press("end")
        await pilot.pause()
        assert body.scroll_y == body.max_scroll_y
        await pilot.press("escape")
        await pilot.press("s")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        save = screen.query_one("#settings-save")
        screen.query_one("#settings-body").scroll_to_widget(save, animate=False)
        await pilot.pause()
        assert 0 <= save.region.y and save.region.bottom <= 24 and save.region.width > 0  # Save can be reached
        await pilot.click("#settings-save")
        await settle(pilot, app)
        assert app.screen is app.main


# -- nothing dropped ---------------------------------------------------------------------------------------------------

@pytest.mark.asyncio
async def test_settings_blocked_while_a_check_runs(store, example_path):
    from citefix.tui import messages as m
    from citefix.tui.dialogs import SettingsScreen

    gate, slow = _gated_responder()

    rec = Recorder()
    app = make_app(store, path=example_path, responder=slow)
    try:
        async with app.run_test(size=SIZE, message_hook=rec) as pilot:
            await settle(pilot, app, until=lambda: app.main is not None)
            main = app.main
            await pilot.press("c")
            await settle(pilot, app, until=lambda: bool(rec.of(m.WorkProgress)))
            await pilot.press("s")
            await pilot.pause()
            assert not isinstance(app.screen, SettingsScreen)
            assert any("job is running" in n.message for n in rec.notes("warning"))
            gate.set()
            await settle(pilot, app)
            assert rec.of(m.Checked) and store.rounds(main.snap.run_id)  # the check was not dropped
    finally:
        gate.set()


@pytest.mark.asyncio
async def test_settings_error_keeps_the_form_and_speaks_tui(store, example_path):
    """A settings error from the pipeline (strategy critique without an LLM) reopens the form with what was typed and
    the fix in TUI words, not "pass --llm MODEL"."""
    from citefix.config import Settings
    from citefix.tui.dialogs import SettingsScreen

    app = make_app(store, path=example_path, settings=Settings())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        await pilot.press("s")
        await pilot.pause()
        screen = app.screen
        screen.query_one("#set-judge").value = "fake/judge-model"
        screen.query_one("#set-strategy").value = "critique"
        await pilot.press("ctrl+s")
        await settle(pilot, app, until=lambda: isinstance(app.screen, SettingsScreen) and app.screen is not screen)
        again = app.screen
        assert again.query_one("#set-judge").value == "fake/judge-model"
        assert str(again.query_one("#set-strategy").value) == "critique"
        err = str(again.query_one("#settings-error").render())
        assert "LLM" in err and "--llm" not in err, err
        assert any(sev == "error" for _, sev, _, _ in app.main.messages_log)  # kept in the messages log


@pytest.mark.asyncio
async def test_editor_escape_and_quit_with_a_proposal_ask_first(store, example_path):
    from citefix.tui.dialogs import ConfirmScreen

    app = make_app(store, path=example_path, responder=reviser_responder())
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        main = app.main
        await pilot.press("c")
        await settle(pilot, app)
        await pilot.press("e")
        main.query_one("#text-edit").insert(" A new sentence.")
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, ConfirmScreen) and main.query_one("#text-panel").editing
        await pilot.press("n")  # keep
        await pilot.pause()
        assert main.query_one("#text-panel").editing and "A new sentence." in main.query_one("#text-edit").text
        await pilot.press("escape")
        await pilot.press("y")  # discard
        await pilot.pause()
        assert not main.query_one("#text-panel").editing
        await pilot.press("r")
        await settle(pilot, app)
        assert main.snap.proposal is not None
        for key in ("q", "o"):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, ConfirmScreen), key
            await pilot.press("n")
            await pilot.pause()
            assert app.is_running and app.screen is main and main.snap.proposal is not None
        await pilot.press("q")
        await pilot.press("y")
        await pilot.pause()
    assert not app.is_running


@pytest.mark.asyncio
async def test_failed_model_calls_show_a_failed_round(store, example_path):
    """A re-check whose model calls fail is shown as failed (status line, rounds table, messages log), not "done"."""
    state = {"fail": False}
    inner = acu_responder()

    class AuthenticationError(Exception):  # not retried: fails at once
        pass

    def flaky(messages):
        if state["fail"]:
            raise AuthenticationError("the key was revoked")
        return inner(messages)

    app = make_app(store, path=example_path, responder=flaky)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        main = app.main
        await pilot.press("c")
        await settle(pilot, app)
        state["fail"] = True
        main.session.edit(main.snap.text + " The park opens in 2030.")
        await pilot.press("c")
        await settle(pilot, app)
        status = str(main.query_one("#status-job").render())
        assert "done" not in status and ("failed" in status or "partial" in status), status
        table = main.query_one("#rounds-table")
        how = str(table.get_row(str(main.snap.current))[3])
        assert "failed" in how or "partial" in how, how
        assert any(sev in ("error", "warning") for _, sev, _, _ in main.messages_log)


# -- cited answers -----------------------------------------------------------------------------------------------------

@pytest.mark.asyncio
async def test_cited_answer_statements_citations_and_scores(store):
    """Statement rows show their support level (not "not checked"); a claim's detail lists each citation's verdict;
    the ALiiCE / ALCE figures are on screen."""
    from citefix.inputs import example_path as p

    app = make_app(store, path=p("cited_answer"))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        main = app.main
        await pilot.press("c")
        await settle(pilot, app)
        ev = main.snap.evaluation
        units = main.query_one("#units")
        statements = [u for u in ev.units if u.kind == "sentence"]
        assert statements
        levels = {s["statement_id"]: s["level"] for s in ev.metrics["support"]["statements"]}
        for s in statements:
            cell = str(units.get_row(s.id)[3])
            assert "not checked" not in cell and levels[s.id] in cell, cell
        summary = str(main.query_one("#cited-summary").render())
        assert "ALiiCE" in summary and "ALCE" in summary and "CVCP" in summary
        assert main.query_one("#cited-summary").region.height >= 1
        claim = next(u for u in ev.units if u.kind == "claim" and len(u.cited) > 1)
        units.move_cursor(row=units.get_row_index(claim.id))
        await pilot.pause()
        detail = str(main.query_one("#unit-detail").render())
        for c in claim.cited:
            assert f"[{c}] supported" in detail or f"[{c}] REDUNDANT" in detail or f"[{c}] unsupported" in detail, detail
        stmt = statements[0]
        units.move_cursor(row=units.get_row_index(stmt.id))
        await pilot.pause()
        assert "claims supported" in str(main.query_one("#unit-detail").render())


def test_citations_text_marks_redundant_and_missing():
    from citefix.tui.render import citations_text

    row = {"citations": [{"id": "2", "label": "supported", "alone": 0.9}, {"id": "3", "label": "redundant", "alone": 0.4},
                         {"id": "9", "label": "not_found"}]}
    assert citations_text(row).plain == "[2] supported 0.90  [3] REDUNDANT 0.40  [9] NOT FOUND"


def test_tui_example_cited_answer_opens_the_cited_example(tmp_path):
    """`citefix tui --example cited_answer` used to open the summary example: the parsed path is the cited one."""
    from citefix.cli import build_parser

    args = build_parser().parse_args(["tui", "--example", "cited_answer"])
    assert args.example == "cited_answer"
    args = build_parser().parse_args(["tui", "--example"])
    assert args.example == "summary"


@pytest.mark.asyncio
async def test_start_screen_ctrl_e_opens_the_example_and_q_quits(store):
    from citefix.tui.start_screen import StartScreen

    app = make_app(store)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, app, until=lambda: isinstance(app.screen, StartScreen) and app.screen.runs is not None)
        app.screen.query_one("#open-path").focus()  # ctrl+e is also the input's end-of-line key
        await pilot.press("ctrl+e")
        await settle(pilot, app, until=lambda: app.main is not None)
        assert app.main.snap.case.kind == "summary"
    app = make_app(store)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, app, until=lambda: isinstance(app.screen, StartScreen) and app.screen.runs is not None)
        keys = [k.key for k in app.screen.query("FooterKey")]
        assert "q" in keys and "question_mark" in keys
        await pilot.press("q")
        await pilot.pause()
    assert not app.is_running


@pytest.mark.asyncio
async def test_multi_case_file_asks_which_case(store, tmp_path):
    from citefix.tui.dialogs import CasePicker

    src = {"id": "1", "title": "t", "text": "The depot closed in 1987. It cost £2.4 million."}
    lines = [{"id": f"case-{k}", "sources": [src], "text": t}
             for k, t in enumerate(["The depot closed in 1987.", "It cost £2.4 million."])]
    path = tmp_path / "many.jsonl"
    path.write_text("\n".join(json.dumps(x) for x in lines))
    app = make_app(store, path=str(path), run_id=None)
    app.case_index = None  # as `citefix tui many.jsonl` without --case
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, until=lambda: isinstance(app.screen, CasePicker))
        assert app.screen.query_one("#case-list").row_count == 2
        await pilot.press("down", "enter")
        await settle(pilot, app, until=lambda: app.main is not None)
        assert app.main.snap.case.id == "case-1"


@pytest.mark.asyncio
async def test_path_completion_on_the_start_screen(store, tmp_path):
    from citefix.tui.start_screen import PathSuggester

    (tmp_path / "cases-folder").mkdir()
    (tmp_path / "cases-folder" / "answer.jsonl").write_text("")
    s = PathSuggester()
    assert await s.get_suggestion(str(tmp_path / "cases-f")) == str(tmp_path / "cases-folder") + "/"
    assert await s.get_suggestion(str(tmp_path / "cases-folder" / "an")) == str(tmp_path / "cases-folder" / "answer.jsonl")
    assert await s.get_suggestion(str(tmp_path / "nothing-like-this")) is None


# -- the proposal in place ---------------------------------------------------------------------------------------------

def test_proposal_hunks_kinds_and_partial_application():
    from citefix.tui.render import apply_hunks, inline_diff, proposal_hunks

    old = "The depot closed in 1987 and take two years [1]. It cost £2.4 million [2].\nLeary chairs the committee."
    new = "The depot closed in 1987 [1]. It cost £2.4 million [3].\nLeary chairs the housing committee."
    hunks = proposal_hunks(old, new)
    assert [h.kind for h in hunks] == ["deletion", "re-citation", "insertion"]
    assert apply_hunks(old, new, hunks, {h.k for h in hunks}) == new
    assert apply_hunks(old, new, hunks, set()) == old
    only_first = apply_hunks(old, new, hunks, {0})
    assert only_first == "The depot closed in 1987 [1]. It cost £2.4 million [2].\nLeary chairs the committee."
    shown = inline_diff(old, new, hunks, {0, 2}, current=1, feedback="Remove 'take two years'.")
    plain = shown.plain
    assert "⟨1⟩" in plain and "⟨3⟩" in plain and "✗ drop re-citation" in plain and "✓ keep deletion" in plain
    assert "Feedback that produced it: Remove 'take two years'." in plain
    struck = [shown.plain[sp.start:sp.end] for sp in shown.spans if getattr(sp.style, "strike", False)]
    assert any("take two years" in x for x in struck)


@pytest.mark.asyncio
async def test_pending_proposal_is_an_inline_diff_accepted_edit_by_edit(store, example_path):
    from citefix.tui.render import proposal_hunks

    both = reviser_responder(cuts=())
    inner = acu_responder()

    def respond(messages):  # one revision that makes both cuts: two edits
        last = messages[-1]["content"]
        if "<<<FEEDBACK" in last:
            text = last.split("<<<TEXT")[1].split("TEXT>>>")[0].strip()
            return text.replace(" and take two years", "").replace(", who chairs the housing committee,", "")
        return inner(messages)

    assert both  # (the shared helper, unused here)
    app = make_app(store, path=example_path, responder=respond)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        main = app.main
        await pilot.press("c")
        await settle(pilot, app)
        before = main.snap.text
        await pilot.press("r")
        await settle(pilot, app)
        prop = main.snap.proposal
        assert prop is not None and len(main.hunks) == 2
        body = main.query_one("#text-body").render()
        plain = str(body)
        assert "⟨1⟩" in plain and "⟨2⟩" in plain and "deletion" in plain and "Feedback that produced it" in plain
        assert "u" in plain.split("deletion", 1)[1]  # each edit names the flagged unit (its evidence)
        # drop the second edit, accept the first
        await pilot.press("right_square_bracket")
        await pilot.press("space")
        await pilot.pause()
        assert main.keep == {0}
        await pilot.press("a")
        await settle(pilot, app)
        run_id = main.snap.run_id
    rows = store.rounds(run_id)
    assert [r.n for r in rows] == [0, 1]
    expected = before.replace(" and take two years", "")
    assert rows[1].text == expected and "who chairs the housing committee" in rows[1].text
    assert "in part" in (rows[1].comment or "")
    assert len(proposal_hunks(before, expected)) == 1


@pytest.mark.asyncio
async def test_evidence_in_a_long_source_with_single_newlines_is_scrolled_into_view(store, tmp_path):
    """Paragraphs separated by one newline used to be one huge paragraph: its middle was centred, the evidence not."""
    filler = "\n".join(f"Line {k} says something unrelated about the weather in the valley." for k in range(80))
    source = filler + "\nThe depot closed in 1987 and has stood empty since.\n" + filler
    case = {"id": "long", "sources": [{"id": "1", "title": "long", "text": source}],
            "text": "The depot closed in 1987."}
    path = tmp_path / "long.json"
    path.write_text(json.dumps(case))
    app = make_app(store, path=str(path))
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        main = app.main
        await pilot.press("c")
        await settle(pilot, app)
        ev = main.snap.evaluation
        v = next(v for v in ev.verdicts if v.evidence is not None)
        units = main.query_one("#units")
        units.move_cursor(row=units.get_row_index(v.unit_id))
        await pilot.pause()
        await pilot.pause(0.1)
        sources = main.query_one("#sources")
        lit = [(p, w) for p, w in sources._paras if p.start <= v.evidence.start < p.end]
        assert lit, "the evidence paragraph"
        p, w = lit[0]
        y = w.virtual_region.y + sources._line_of(p, v.evidence.start - p.start, w)  # the evidence's own line
        top, bottom = sources.scroll_y, sources.scroll_y + sources.scrollable_content_region.height
        assert top <= y < bottom, (top, y, bottom)


# -- palette, progress, themes -----------------------------------------------------------------------------------------

@pytest.mark.asyncio
async def test_command_palette_lists_and_runs_every_action(store, example_path):
    from textual.command import CommandPalette

    from citefix.tui.main_screen import KEYS

    app = make_app(store, path=example_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        main = app.main
        titles = [c.title for c in app.get_system_commands(main)]
        for key, action, label, _ in KEYS:
            if action != "focus_next" and not action.startswith("app.") and main.check_action(action.split("(")[0], ()) is True:
                word = (label or action.split("(")[0].replace("_", " ")).lower()
                assert any(t.lower().startswith(word) for t in titles), action
        assert any("theme" in t.lower() for t in titles)  # Textual's themes are in the palette too
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press(*"check")
        await pilot.pause(0.5)
        await pilot.press("enter")
        await settle(pilot, app, until=lambda: main.snap.run_id is not None and main._job is None)
        assert store.rounds(main.snap.run_id)


@pytest.mark.asyncio
async def test_llm_check_shows_k_of_n_units(store, example_path):

    gate = threading.Event()
    inner = acu_responder()
    seen = []

    def slow(messages):  # verification calls (after the units are ready) wait for the gate
        if app.main is not None and app.main._unit_count is not None:
            gate.wait(20)
        seen.append(1)
        return inner(messages)

    rec = Recorder()
    app = make_app(store, path=example_path, responder=slow)
    try:
        async with app.run_test(size=SIZE, message_hook=rec) as pilot:
            await settle(pilot, app, until=lambda: app.main is not None)
            main = app.main
            await pilot.press("c")
            await settle(pilot, app, until=lambda: main._unit_count is not None)
            await pilot.pause(0.3)
            status = str(main.query_one("#status-job").render())
            assert " of " in status and "units" in status, status
            gate.set()
            await settle(pilot, app)
    finally:
        gate.set()


def test_one_value_is_one_edit_and_the_diff_reads_without_colour():
    """'£8.1 million' → '£6.3 million' is one correction (not '8 → 6' and '1 → 3', which kept apart could write a
    third value), and the inline form says what goes and what comes without colour."""
    from citefix.tui.render import apply_hunks, inline_diff, proposal_hunks

    old = "The bridge over the River Aln cost £8.1 million and opened in 2019."
    new = "The bridge over the River Aln cost £6.3 million and opened in 2019."
    hunks = proposal_hunks(old, new)
    assert [(h.kind, h.old, h.new) for h in hunks] == [("correction", "8.1", "6.3")]
    assert apply_hunks(old, new, hunks, set()) == old and apply_hunks(old, new, hunks, {0}) == new
    assert "£⟨1⟩[-8.1-]{+6.3+} million" in inline_diff(old, new, hunks, {0}).plain


@pytest.mark.asyncio
async def test_edit_mode_shows_how_to_save_in_the_footer(store, example_path):
    """In edit mode the footer shows ctrl+s (save and re-check) and esc, at 80x24 too; out of it, ctrl+s is hidden."""
    app = make_app(store, path=example_path)
    async with app.run_test(size=SMALL) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        main = app.main
        await pilot.press("c")
        await settle(pilot, app)
        assert "ctrl+s" not in [k.key for k in main.query("FooterKey")]
        await pilot.press("e")
        await pilot.pause()
        keys = main.query("FooterKey")
        save = [k for k in keys if k.key == "ctrl+s"]
        assert save, [k.key for k in keys]
        assert save[0].region.right <= 80 and save[0].region.width > 0  # on screen, not cut off
