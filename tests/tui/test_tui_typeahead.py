"""Keys typed right behind the key that closes a dialog reach the screen below once the dialog is gone, instead of
following the closing key into the dialog (into its input field) and being lost; typing into an open dialog is
untouched."""

from __future__ import annotations

import asyncio

import pytest
from textual import events
from tui_helpers import make_app, open_and_check, settle

SIZE = (120, 34)


@pytest.mark.asyncio
@pytest.mark.parametrize("opener,character", [("question_mark", "?"), ("s", "s"), ("x", "x")])
async def test_a_key_typed_as_a_dialog_closes_reaches_the_main_screen(store, example_path, opener, character):
    app = make_app(store, path=example_path)
    async with app.run_test(size=SIZE) as pilot:
        main = await open_and_check(pilot, app)  # a checked run: something to export
        app.post_message(events.Key(opener, character))
        await settle(pilot, app, until=lambda: app.screen is not main)
        dialog = app.screen
        seq = main._job_seq
        app.post_message(events.Key("escape", None))  # closes the dialog …
        app.post_message(events.Key("c", "c"))  # … and, typed at once behind it, starts a check on the main screen
        await settle(pilot, app, until=lambda: main._job_seq != seq)
        assert app.screen is main and main._job_seq != seq, type(app.screen).__name__
        for field in dialog.query("Input"):
            assert "c" not in field.value.replace("citefix-run", ""), field.value
        await settle(pilot, app)


@pytest.mark.asyncio
async def test_typing_into_an_open_dialog_is_untouched(store, example_path):
    app = make_app(store, path=example_path)
    async with app.run_test(size=SIZE) as pilot:
        await open_and_check(pilot, app)
        app.post_message(events.Key("x", "x"))
        await settle(pilot, app, until=lambda: app.screen is not app.main)
        field = app.screen.query_one("#export-path")
        field.focus()
        field.value = ""
        await pilot.pause()
        for ch in "out.md":
            app.post_message(events.Key({".": "full_stop"}.get(ch, ch), ch))
        await asyncio.sleep(0.2)
        await pilot.pause()
        assert field.value == "out.md"
