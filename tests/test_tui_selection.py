"""Moving between units repaints the text, the detail line and the evidence in the sources without a layout pass:
on a long source (hundreds of paragraphs) one pass per key was what made selection slow. Speed itself is measured
by `python -m bench.bench_tui --part selection`, not here."""

from __future__ import annotations

import pytest
from textual.widget import Widget
from tui_helpers import make_app, settle

SIZE = (120, 34)


@pytest.mark.asyncio
async def test_moving_between_units_needs_no_layout_pass(store, example_path, monkeypatch):
    app = make_app(store, path=example_path)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        main = app.main
        await pilot.press("c")
        await settle(pilot, app)
        main.query_one("#units").focus()
        await pilot.press("home")
        await settle(pilot, app)

        passes: list[str] = []
        real = Widget.refresh

        def refresh(self, *a, **kw):
            if kw.get("layout"):
                passes.append(type(self).__name__)
            return real(self, *a, **kw)

        monkeypatch.setattr(Widget, "refresh", refresh)
        seen = []
        for _ in range(4):
            await pilot.press("down")
            seen.append(main.selected)
            detail = str(main.query_one("#unit-detail").render())
            assert main.selected in detail  # the detail line names the unit just selected
        assert len(set(seen)) == 4, seen  # four different units were selected and shown
        assert passes == [], passes
