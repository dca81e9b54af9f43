"""Pilot tests of the TUI's main flows with the scripted fake LLM: messages posted and rows in the store."""

from __future__ import annotations

import json
import threading

import pytest
from refine_fakes import acu_responder
from tui_helpers import Recorder, auto_refine, make_app, reviser_responder, settle

from citefix.config import Settings

pytestmark = pytest.mark.asyncio

SIZE = (120, 40)


async def test_open_check_paints_units_and_stores_round(store, example_path):
    from citefix.tui import messages as m

    rec = Recorder()
    app = make_app(store, path=example_path)
    async with app.run_test(size=SIZE, message_hook=rec) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        assert rec.names("CaseOpened") == ["CaseOpened"]
        main = app.main
        assert main.snap.current is None and main.snap.run_id is None
        await pilot.press("c")
        await settle(pilot, app)
        assert rec.names("Work", "Checked") [:1] == ["WorkStarted"]
        assert "Checked" in rec.names() and "WorkFinished" in rec.names()
        stages = [p.stage for p in rec.of(m.WorkProgress)]
        assert stages[0] == "round_started" and "units_scored" in stages and stages[-1] == "round_stored"
        assert any("verifying" in p.detail for p in rec.of(m.WorkProgress))
        snap = main.snap
        assert snap.run_id is not None and snap.current == 0
        run = store.run(snap.run_id)
        assert run.command == "tui" and run.llm == "fake/model"
        rows = store.rounds(snap.run_id)
        assert [r.n for r in rows] == [0]
        labels = {v.label for v in snap.evaluation.verdicts}
        assert "unsupported" in labels and "supported" in labels  # mixed verdicts from the scripted judge
        units = main.query_one("#units")
        assert units.row_count == len(snap.evaluation.units) == rows[0].n_units
        # selecting a unsupported unit highlights its span and its evidence
        bad = next(u for u in snap.evaluation.units if snap.evaluation.verdict_for(u.id).label == "unsupported")
        units.focus()
        units.move_cursor(row=units.get_row_index(bad.id))
        await pilot.pause()
        assert main.selected == bad.id
        assert bad.id in str(main.query_one("#unit-detail").render())


async def test_edit_recheck_diff_export(store, example_path, tmp_path):
    from citefix.tui import messages as m
    from citefix.tui.dialogs import DiffScreen, ExportScreen

    rec = Recorder()
    app = make_app(store, path=example_path)
    async with app.run_test(size=SIZE, message_hook=rec) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        await pilot.press("c")
        await settle(pilot, app)
        main = app.main
        # edit in place: the TextArea replaces the painted text; ctrl+s saves and re-checks
        await pilot.press("e")
        area = main.query_one("#text-edit")
        assert main.query_one("#text-panel").editing and area.has_focus
        new_text = main.snap.text.replace(" and take two years", "")
        area.load_text(new_text)
        await pilot.press("ctrl+s")
        await settle(pilot, app)
        assert not main.query_one("#text-panel").editing
        rows = store.rounds(main.snap.run_id)
        assert [r.n for r in rows] == [0, 1]
        assert rows[1].text == new_text and rows[1].comment == "edited in the TUI"
        assert main.snap.current == 1 and len(rec.of(m.Checked)) == 2
        # diff between the two rounds
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, DiffScreen)
        assert "removed" in str(app.screen.query_one("#diff-counts").render())
        await pilot.press("escape")
        await pilot.pause()
        # export as Markdown through the export dialog
        out = tmp_path / "run.md"
        await pilot.press("x")
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen)
        app.screen.query_one("#fmt-md").value = True
        await pilot.pause()
        app.screen.query_one("#export-path").value = str(out)
        await pilot.press("enter")
        await settle(pilot, app)
        assert [e.path for e in rec.of(m.Exported)] == [str(out)]
        text = out.read_text()
        assert "## Round 0" in text and "## Round 1" in text
        # and JSON
        out_json = tmp_path / "run.json"
        await pilot.press("x")
        await pilot.pause()
        app.screen.query_one("#export-path").value = str(out_json)
        await pilot.press("enter")
        await settle(pilot, app)
        data = json.loads(out_json.read_text())
        assert [r["n"] for r in data["rounds"]] == [0, 1]


async def test_view_an_earlier_round(store, example_path):
    app = make_app(store, path=example_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        await pilot.press("c")
        await settle(pilot, app)
        main = app.main
        main.session.edit(main.snap.text + " It will open in 2030.")
        await pilot.press("c")
        await settle(pilot, app)
        assert main.snap.current == 1
        table = main.query_one("#rounds-table")
        table.focus()
        table.move_cursor(row=0)
        await pilot.pause()
        assert main.view_n == 0
        assert "round 0" in main.query_one("#text-panel").border_title
        assert main.check_action("revert", ()) is True


async def test_bad_file_is_a_notification_not_a_crash(store, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    rec = Recorder()
    app = make_app(store, path=str(bad))
    async with app.run_test(size=SIZE, message_hook=rec) as pilot:
        await settle(pilot, app, until=lambda: bool(rec.notes("error")))
        await pilot.pause()
        note = rec.notes("error")[0]
        assert "malformed JSON" in note.message and "bad.json" in note.message
        from citefix.tui.start_screen import StartScreen

        assert isinstance(app.screen, StartScreen)  # the user can open another file
        assert app.is_running


async def test_missing_api_key_is_a_notification(store, example_path):
    class AuthenticationError(Exception):
        pass

    def refuse(messages):
        raise AuthenticationError("no API key given")

    rec = Recorder()
    app = make_app(store, path=example_path, responder=refuse)
    async with app.run_test(size=SIZE, message_hook=rec) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        await pilot.press("c")
        await settle(pilot, app)
        notes = rec.notes("error")
        assert notes, rec.names()
        assert any("API key" in n.message for n in notes)
        assert app.is_running and app.main._job is None
        await pilot.press("question_mark")  # still answering keys
        await pilot.pause()
        from citefix.tui.dialogs import HelpScreen

        assert isinstance(app.screen, HelpScreen)


async def test_keys_answered_while_checking_and_cancel(store, example_path):
    """A check blocked in the model call: the UI still opens help, and esc cancels; nothing is stored."""
    from citefix.tui import messages as m
    from citefix.tui.dialogs import HelpScreen

    gate = threading.Event()
    inner = acu_responder()

    def slow(messages):
        gate.wait(10)
        return inner(messages)

    rec = Recorder()
    app = make_app(store, path=example_path, responder=slow)
    async with app.run_test(size=SIZE, message_hook=rec) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        await pilot.press("c")
        await settle(pilot, app, until=lambda: bool(rec.of(m.WorkProgress)))
        main = app.main
        assert main._job is not None
        assert main.check_action("check", ()) is None  # no second check while one runs
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("escape")  # cancel
        await pilot.pause()
        assert main._job is None
        gate.set()
        for t in main.threads:  # the cancelled check's thread runs on until its model call returns
            t.join(10)
        await pilot.pause()
        assert rec.of(m.WorkCancelled) and not rec.of(m.Checked)
        runs = store.list_runs()  # the cancelled check stored no round; its run says it was cancelled
        assert [(r.n_rounds, r.status) for r in runs] == [(0, "cancelled")]


async def test_reopen_stored_run(store, example_path):
    app = make_app(store, path=example_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        await pilot.press("c")
        await settle(pilot, app)
        run_id = app.main.snap.run_id
    app2 = make_app(store, run_id=run_id)
    async with app2.run_test(size=SIZE) as pilot:
        await settle(pilot, app2, until=lambda: app2.main is not None)
        snap = app2.main.snap
        assert snap.run_id == run_id and snap.current == 0 and snap.evaluation is not None
        assert app2.main.query_one("#units").row_count == len(snap.evaluation.units)


async def test_start_screen_lists_runs_and_opens_one(store, example_path):
    from citefix.tui.start_screen import StartScreen

    app = make_app(store, path=example_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        await pilot.press("c")
        await settle(pilot, app)
        run_id = app.main.snap.run_id
        await pilot.press("o")
        await settle(pilot, app, until=lambda: isinstance(app.screen, StartScreen) and app.screen.runs is not None)
        runs = app.screen.query_one("#runs")
        assert runs.row_count == 1
        runs.focus()
        await pilot.press("enter")
        await settle(pilot, app, until=lambda: app.main is not None and app.main.snap.run_id == run_id and app.screen is app.main)


async def test_settings_validated_and_saved(store, example_path):
    from citefix.config import config_path, load_settings
    from citefix.tui.dialogs import SettingsScreen

    rec = Recorder()
    app = make_app(store, path=example_path)
    async with app.run_test(size=SIZE, message_hook=rec) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        await pilot.press("s")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SettingsScreen)
        screen.query_one("#set-llm").value = ""
        screen.query_one("#set-verifier").value = "llm"
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert app.screen is screen  # refused: verifier llm needs an LLM
        assert "needs an LLM" in str(screen.query_one("#settings-error").render())
        screen.query_one("#set-verifier").value = "offline:lexical"
        screen.query_one("#set-decomposer").value = "clauses"
        screen.query_one("#set-strategy").value = "none"
        await pilot.press("ctrl+s")
        await settle(pilot, app)
        assert app.screen is app.main
    saved = load_settings()
    assert (saved.llm, saved.verifier, saved.strategy) == (None, "offline:lexical", "none")
    assert config_path().exists()
    assert "offline:lexical" in str(app.main.session.describe()["verifier"])


async def test_refine_accept_reject_revert_edit_recheck_export(store, example_path, tmp_path):
    """The whole writer's loop: open → check → refine → accept → refine → reject → revert → edit → re-check → export."""
    from citefix.tui import messages as m

    rec = Recorder()
    app = make_app(store, path=example_path, responder=reviser_responder())
    async with app.run_test(size=SIZE, message_hook=rec) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        main = app.main
        await pilot.press("c")
        await settle(pilot, app)
        run_id = main.snap.run_id
        assert main.snap.evaluation.unsupported  # something to fix
        assert not main.check_action("accept", ())  # nothing proposed yet (hidden from the footer)
        # refine one round: a proposal, evaluated, nothing stored yet
        await pilot.press("r")
        await settle(pilot, app)
        assert len(rec.of(m.RevisionProposed)) == 1
        prop = main.snap.proposal
        assert prop is not None and "two years" not in prop.text and prop.evaluation is not None
        assert [r.n for r in store.rounds(run_id)] == [0]
        assert main.show_proposal and "proposed" in main.query_one("#text-panel").border_title
        # accept: round 1
        await pilot.press("a")
        await settle(pilot, app)
        rows = store.rounds(run_id)
        assert [(r.n, r.accepted, r.parent) for r in rows] == [(0, 1, None), (1, 1, 0)]
        assert rows[1].text == prop.text and main.snap.current == 1 and main.snap.proposal is None
        # refine again and reject: kept in the store as not accepted
        await pilot.press("r")
        await settle(pilot, app)
        assert main.snap.proposal is not None and "chairs" not in main.snap.proposal.text
        await pilot.press("n")
        await settle(pilot, app)
        rows = store.rounds(run_id)
        assert [(r.n, r.accepted, r.status) for r in rows][-1] == (2, 0, "rejected")
        assert main.snap.current == 1
        # the score trail charts the text's history: the rejected proposal is listed, not charted
        kept = [r.score for r in rows if r.accepted]
        assert list(main.query_one("#rounds-spark").data) == kept, (main.query_one("#rounds-spark").data, rows)
        # revert to round 0: pick it in the rounds table, press v
        table = main.query_one("#rounds-table")
        table.focus()
        table.move_cursor(row=table.get_row_index("0"))
        await pilot.pause()
        await pilot.press("v")
        await settle(pilot, app)
        assert main.snap.current == 0 and main.snap.text == store.rounds(run_id)[0].text
        assert [r.accepted for r in store.rounds(run_id)] == [1, 0, 0]
        assert [msg.action for msg in rec.of(m.RoundsChanged)] == ["accept", "reject", "revert"]
        # edit in place and re-check: round 3, whose parent is round 0
        await pilot.press("e")
        edited = main.snap.text.replace("Councillors voted 9 to 4 in favour. ", "")
        main.query_one("#text-edit").load_text(edited)
        await pilot.press("ctrl+s")
        await settle(pilot, app)
        last = store.rounds(run_id)[-1]
        assert (last.n, last.text, last.parent, last.status) == (3, edited, 0, "edited")
        # export
        out = tmp_path / "r.json"
        await main.run_action("export")
        await pilot.pause()
        app.screen.query_one("#export-path").value = str(out)
        await pilot.press("enter")
        await settle(pilot, app)
        assert [r["n"] for r in json.loads(out.read_text())["rounds"]] == [0, 1, 2, 3]
    assert store.run(run_id).status == "finished"  # quitting records the best round
    assert store.run(run_id).best_round is not None


async def test_auto_refine_n_rounds(store, example_path):
    from citefix.tui import messages as m

    rec = Recorder()
    app = make_app(store, path=example_path, responder=reviser_responder())
    async with app.run_test(size=SIZE, message_hook=rec) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        main = app.main
        await auto_refine(pilot, app, 3)
        rows = store.rounds(main.snap.run_id)
        # two flagged phrases: two revisions fix both, then nothing is unsupported and the loop stops
        assert [r.n for r in rows] == [0, 1, 2]
        assert rows[-1].n_unsupported == 0 and main.snap.current == 2
        assert rec.of(m.RoundsChanged)[-1].action == "auto_refine"
        infos = [n.message for n in rec.notes() if "auto-refine" in n.message]
        assert infos and "all supported" in infos[0]
        progress = [p for p in rec.of(m.WorkProgress) if p.advance]
        assert len(progress) == 3  # one step per stored round


async def test_refine_with_nothing_to_fix_says_why(store, example_path):
    app = make_app(store, path=example_path, responder=reviser_responder())
    rec = Recorder()
    async with app.run_test(size=SIZE, message_hook=rec) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        main = app.main
        main.session.edit("Councillors voted 9 to 4 in favour.")
        await pilot.press("c")
        await settle(pilot, app)
        await pilot.press("r")
        await settle(pilot, app)
        assert main.snap.proposal is None
        assert any(n.message.startswith(("no revision", "nothing to revise")) for n in rec.notes())


@pytest.mark.slow
async def test_offline_flow_with_real_models(store, example_path):
    """No LLM: models load in the background, the offline pipeline checks, the offline reviser revises."""
    from citefix.tui import messages as m

    rec = Recorder()
    app = make_app(store, path=example_path, settings=Settings())
    async with app.run_test(size=SIZE, message_hook=rec) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        main = app.main
        assert main._warming or rec.of(m.WarmedUp)  # models already loaded by an earlier test warm up at once
        await pilot.press("c")  # waits for the background model loading, then checks
        await settle(pilot, app, until=lambda: main._job is None and main.snap.run_id is not None, steps=3000)
        assert rec.of(m.WarmedUp) and rec.of(m.WarmedUp)[0].error is None
        ev = main.snap.evaluation
        assert ev.verifier.startswith("offline") and ev.unsupported
        await pilot.press("r")
        await settle(pilot, app, until=lambda: main._job is None and main.snap.proposal is not None, steps=3000)
        # the offline reviser corrects from the source: the changed duration gets the source's value
        assert main.snap.proposal.text != main.snap.text and "take about eighteen months" in main.snap.proposal.text
        await pilot.press("a")
        await settle(pilot, app, until=lambda: main._job is None and main.snap.current == 1, steps=3000)
        rows = store.rounds(main.snap.run_id)
        assert [r.n for r in rows] == [0, 1] and rows[1].n_unsupported < rows[0].n_unsupported
        assert rows[1].strategy == "acu"


async def test_mouse_click_on_a_span_selects_its_unit(store, example_path):
    from citefix.tui.render import unit_at_chars

    app = make_app(store, path=example_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        main = app.main
        await pilot.press("c")
        await settle(pilot, app)
        ev = main.snap.evaluation
        units = main.query_one("#units")
        units.move_cursor(row=units.row_count - 1)  # select the last unit first, so the click must change it
        await pilot.pause()
        # the text starts at the body's top-left corner: the character at (2, 0) is text[2]
        await pilot.click("#text-body", offset=(2, 0))
        await pilot.pause()
        assert main.selected == unit_at_chars(ev)[2] is not None
        assert units.cursor_row == units.get_row_index(main.selected)
        # and a click on a row of the rounds table shows that round
        await pilot.click("#rounds-table", offset=(2, 1))
        await pilot.pause()
        assert main.view_n is None and main.snap.current == 0


async def test_auto_refine_stopped_by_a_model_fault_stays_on_the_best_complete_round(store, example_path):
    """The model server dies during round 2's check: that round is checked in part. The working text stays on the
    best complete round, the stop is a warning, and the run ends with the CLI's llm_error status."""
    from citefix.tui import messages as m

    inner = reviser_responder()
    revisions = []

    def dying(messages):
        last = messages[-1]["content"]
        if "<<<FEEDBACK" in last:
            revisions.append(1)
        elif len(revisions) >= 2 and "<<<STATEMENT" in last and "Leary" in last.split("<<<STATEMENT")[-1]:
            raise ConnectionError("the server went away")
        return inner(messages)

    rec = Recorder()
    app = make_app(store, path=example_path, responder=dying)
    async with app.run_test(size=SIZE, message_hook=rec) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        main = app.main
        await auto_refine(pilot, app, 5)
        rows = store.rounds(main.snap.run_id)
        assert rows[-1].status == "partial", [(r.n, r.status, r.accepted) for r in rows]
        complete = [r for r in rows if r.status != "partial"]
        assert main.snap.current == complete[-1].n and main.snap.text == complete[-1].text
        assert "round 2" not in (main.query_one("#text-panel").border_title or "")
        assert list(main.query_one("#rounds-spark").data) == [r.score for r in complete]
        warnings = [n.message for n in rec.notes("warning") if "auto-refine" in n.message]
        assert warnings and "llm error" in warnings[0], [n.message for n in rec.notes()]
        assert rec.of(m.RoundsChanged)[-1].action == "auto_refine"
        run_id = main.snap.run_id
    run = store.run(run_id)  # closing the app keeps the ending the fault gave the run
    assert (run.status, run.stop_reason) == ("failed", "llm_error") and run.best_round == complete[-1].n
