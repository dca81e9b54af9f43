"""Driving the TUI in Pilot tests with the scripted fake LLM: the app, a recorder of its messages, a wait for its
workers, and a scripted reviser (tests/ is on sys.path, so `from tui_helpers import ...`)."""

from __future__ import annotations

from refine_fakes import acu_responder

from citefix.config import Settings
from citefix.llm.fake import ScriptedTransport


def make_app(store, *, path=None, run_id=None, responder=None, settings=None):
    from citefix.tui.app import CitefixApp

    transport = ScriptedTransport(responder or acu_responder())
    return CitefixApp(settings or Settings(llm="fake/model"), store, transport=transport, path=path, run_id=run_id,
                      store_label="test.db")


class Recorder:
    """message_hook: keeps every message the app dispatches."""

    def __init__(self):
        self.messages = []

    def __call__(self, msg):
        self.messages.append(msg)

    def names(self, *prefixes):
        return [type(m).__name__ for m in self.messages if type(m).__name__.startswith(prefixes or ("",))]

    def of(self, cls):
        return [m for m in self.messages if isinstance(m, cls)]

    def notes(self, severity=None):
        from textual.notifications import Notify

        return [m.notification for m in self.of(Notify) if severity is None or m.notification.severity == severity]


async def settle(pilot, app, *, until=None, steps=200):
    """Let workers finish and their messages land (threads post; the loop must turn)."""
    for _ in range(steps):
        await pilot.pause(0.02)
        busy = app.main is not None and app.main._job is not None
        if until is not None:
            if until():
                await pilot.pause()
                return
        elif not busy and not any(w.is_running for w in app.workers):
            await pilot.pause()
            return
    raise AssertionError("the app did not settle")


async def open_and_check(pilot, app):
    """The case opened and checked once; the main screen."""
    await settle(pilot, app, until=lambda: app.main is not None)
    await pilot.press("c")
    await settle(pilot, app)
    return app.main


def reviser_responder(cuts=(" and take two years", ", who chairs the housing committee,")):
    """The scripted LLM plus a reviser: the revision drops the first flagged phrase still in the text."""
    inner = acu_responder()

    def respond(messages):
        last = messages[-1]["content"]
        if "<<<FEEDBACK" in last:
            text = last.split("<<<TEXT")[1].split("TEXT>>>")[0].strip()
            for cut in cuts:
                if cut in text:
                    return text.replace(cut, "" if cut.startswith(" and") else "", 1)
            return text
        return inner(messages)

    return respond


async def auto_refine(pilot, app, rounds: int) -> None:
    """Press R, ask for `rounds` rounds in the dialog, and let the job finish."""
    from citefix.tui.dialogs import AskRounds

    await pilot.press("R")
    await pilot.pause()
    assert isinstance(app.screen, AskRounds)
    app.screen.query_one("#rounds-n").value = str(rounds)
    await pilot.press("enter")
    await settle(pilot, app)
