"""Issue 13: verdicts visible in the text pane, nothing dropped, 80x24 usable, cited answers in full.

Pilot tests with the scripted fake LLM (no exact offline scores: the offline verifier changes under them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time

import pytest
from test_tui_flows import Recorder, make_app, reviser_responder, settle

from conftest import acu_responder

pytestmark = pytest.mark.asyncio

SIZE = (120, 34)
SMALL = (80, 24)


@pytest.fixture
def example_path():
    from citefix.commands.check import example_path as p

    return p("summary")


def _cells(widget):
    """(x, y, rich style) of every cell of a widget, read back from the screen."""
    for y in range(widget.size.height):
        for x in range(widget.size.width):
            yield x, y, widget.get_style_at(x, y)


def _ink(style):
    c = style.color
    return None if c is None else c.get_truecolor()


async def test_text_pane_paints_verdict_colours_not_links(store, example_path):
    """Issue item 1: spans used to render as grey underlined links (the @click meta); now each unit has its verdict's
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


@pytest.mark.filterwarnings("ignore::pytest.PytestWarning")
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


async def test_quit_during_a_check_marks_the_run_and_leaves_no_thread_to_wait_for(store, example_path):
    """q while a model call hangs: the job runs in a daemon thread (nothing joins it at exit) and the run is stored
    as interrupted, not left running."""
    gate = threading.Event()
    inner = acu_responder()

    def slow(messages):
        gate.wait(20)
        return inner(messages)

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
        assert [r["status"] for r in runs] == ["interrupted"]
        assert took < 2.0, took
    finally:
        gate.set()
        for t in main.threads:  # let it end before the fixture closes the store under it
            t.join(20)


async def test_quit_after_rounds_stores_finished_with_best_round(store, example_path):
    app = make_app(store, path=example_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        await pilot.press("c")
        await settle(pilot, app)
        run_id = app.main.snap.run_id
        await pilot.press("q")
    run = store.run(run_id)
    assert run["status"] == "finished" and run["best_round"] == 0


async def test_rejected_proposal_is_not_the_runs_current_text(store, example_path, tmp_path):
    """Issue item 7: after r then n, `citefix runs` / `show` present the accepted text (round 0), not the rejected one."""
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
    assert [(r["n"], r["accepted"]) for r in rows] == [(0, 1), (1, 0)]
    assert rows[0]["score"] != rows[1]["score"]  # the scripted reviser removed an unsupported phrase
    assert store.evaluation(run_id).text == rows[0]["text"]
    assert store.list_runs()[0]["last_score"] == rows[0]["score"]
    env = {**os.environ, "PYTHONPATH": os.getcwd()}
    r = subprocess.run([sys.executable, "-m", "citefix.cli", "show", str(run_id), "--json", "--db", str(store.path)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["text"] == rows[0]["text"]
