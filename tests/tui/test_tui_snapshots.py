"""Snapshot tests (pytest-textual-snapshot) of the TUI at 80x24 and 120x34: the start screen, the main screen with
mixed verdicts (summary and cited answer), a pending proposal's inline diff, the diff view, help and settings. Update with `pytest tests/tui/test_tui_snapshots.py --snapshot-update`
after checking the new SVGs by eye (the report pytest writes shows old and new side by side)."""

from __future__ import annotations

import pytest
from refine_fakes import acu_responder

from citefix.config import Settings
from citefix.llm.fake import ScriptedTransport

SIZE = (120, 34)
SIZES = pytest.mark.parametrize("size", [(80, 24), (120, 34)], ids=["80x24", "120x34"])
CREATED = "2025-01-02T03:04:05+00:00"


def make_app(store, **kw):
    from citefix.tui.app import CitefixApp

    return CitefixApp(Settings(llm="fake/model"), store, transport=ScriptedTransport(acu_responder()),
                      store_label="test.db", **kw)


@pytest.fixture
def example():
    from citefix.inputs import example_path

    return example_path("summary")


async def _settle(pilot, until):
    for _ in range(500):
        await pilot.pause(0.02)
        if until():
            break
    else:
        raise AssertionError("the app did not settle")
    await pilot.app.workers.wait_for_complete()
    await pilot.pause()


async def _checked(pilot):
    """Open the example, check it (scripted judge: mixed verdicts), select the unsupported unit."""
    app = pilot.app
    await _settle(pilot, lambda: app.main is not None)
    await pilot.press("c")
    await _settle(pilot, lambda: app.main._job is None and app.main.snap.run_id is not None)
    main = app.main
    main.query_one("#status").set_job("idle", busy=False)  # the "done in N s" timing varies from run to run
    units = main.query_one("#units")
    ev = main.snap.evaluation
    bad = next(u for u in ev.units if ev.verdict_for(u.id).label == "unsupported")
    units.move_cursor(row=units.get_row_index(bad.id), animate=False)
    await pilot.pause()


def _fixed_times(store):
    for r in store.list_runs():
        store.update_run(r.id, created=CREATED)


def test_start_screen(snap_compare, store, example):
    from citefix.evaluate import evaluate
    from citefix.inputs import load_cases
    from citefix.pipeline import build_pipeline

    case = load_cases(example)[0]
    p = build_pipeline(Settings(llm="fake/model"), store, ScriptedTransport(acu_responder()))
    run_id = store.start_run(case, "check", llm="fake/model", verifier=p.verifier.name)
    store.write_round(run_id, 0, evaluate(case, decomposer=p.decomposer_for(case.kind), verifier=p.verifier))
    store.finish_run(run_id, "finished", best_round=0, stop_reason="ok")
    _fixed_times(store)

    async def before(pilot):
        await _settle(pilot, lambda: getattr(pilot.app.screen, "runs", None) is not None)
        pilot.app.screen.query_one("#open-path").cursor_blink = False

    assert snap_compare(make_app(store), terminal_size=SIZE, run_before=before)


@SIZES
def test_main_screen_mixed_verdicts(snap_compare, store, example, size):
    assert snap_compare(make_app(store, path=example), terminal_size=size, run_before=_checked)


@SIZES
def test_main_screen_cited_answer(snap_compare, store, size):
    from citefix.inputs import example_path

    async def before(pilot):
        app = pilot.app
        await _settle(pilot, lambda: app.main is not None)
        await pilot.press("c")
        await _settle(pilot, lambda: app.main._job is None and app.main.snap.run_id is not None)
        app.main.query_one("#status").set_job("idle", busy=False)
        units = app.main.query_one("#units")
        units.move_cursor(row=units.get_row_index("u2"), animate=False)
        await pilot.pause()

    assert snap_compare(make_app(store, path=example_path("cited_answer")), terminal_size=size, run_before=before)


def _reviser():
    from refine_fakes import acu_responder

    inner = acu_responder()

    def respond(messages):
        last = messages[-1]["content"]
        if "<<<FEEDBACK" in last:
            text = last.split("<<<TEXT")[1].split("TEXT>>>")[0].strip()
            return text.replace(" and take two years", "").replace(", who chairs the housing committee,", "")
        return inner(messages)

    return respond


@SIZES
def test_proposal_inline_diff(snap_compare, store, example, size):
    async def before(pilot):
        await _checked(pilot)
        main = pilot.app.main
        await pilot.press("r")
        await _settle(pilot, lambda: main._job is None and main.snap.proposal is not None)
        main.query_one("#status").set_job("idle", busy=False)
        await pilot.press("right_square_bracket", "space")
        await pilot.pause()

    from citefix.tui.app import CitefixApp

    app = CitefixApp(Settings(llm="fake/model"), store, transport=ScriptedTransport(_reviser()), store_label="test.db",
                     path=example)
    assert snap_compare(app, terminal_size=size, run_before=before)


def test_diff_view(snap_compare, store, example):
    async def before(pilot):
        await _checked(pilot)
        main = pilot.app.main
        main.session.edit(main.snap.text.replace(" and take two years", "").replace(", who chairs the housing committee,", ""))
        await pilot.press("c")
        await _settle(pilot, lambda: main._job is None and main.snap.current == 1)
        main.query_one("#status").set_job("idle", busy=False)
        await pilot.press("d")
        await pilot.pause()

    assert snap_compare(make_app(store, path=example), terminal_size=SIZE, run_before=before)


@SIZES
def test_help_screen(snap_compare, store, example, size):
    async def before(pilot):
        await _checked(pilot)
        await pilot.press("question_mark")
        await pilot.pause()

    assert snap_compare(make_app(store, path=example), terminal_size=size, run_before=before)


@SIZES
def test_settings_screen(snap_compare, store, example, size):
    async def before(pilot):
        await _checked(pilot)
        await pilot.press("s")
        await pilot.pause()
        for inp in pilot.app.screen.query("Input"):
            inp.cursor_blink = False

    assert snap_compare(make_app(store, path=example), terminal_size=size, run_before=before)
