"""Moving between units repaints the text, the detail line and the evidence in the sources without a layout pass:
on a long source (hundreds of paragraphs) one pass per key was what made selection slow. Speed itself is measured
by `python -m bench.bench_tui --part selection`, not here."""

from __future__ import annotations

import pytest
from textual.widget import Widget
from tui_helpers import make_app, open_and_check, settle

SIZE = (120, 34)


@pytest.mark.asyncio
async def test_moving_between_units_needs_no_layout_pass(store, example_path, monkeypatch):
    app = make_app(store, path=example_path)
    async with app.run_test(size=SIZE) as pilot:
        main = await open_and_check(pilot, app)
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


@pytest.mark.asyncio
async def test_the_sources_pane_opens_at_the_evidence_in_the_narrow_layout(store, tmp_path):
    """At 80x24 the sources are a pane of their own, hidden while the units pane shows: the evidence of the unit
    selected meanwhile is scrolled into view when the pane is opened (2), not left at the top of the source."""
    import json

    from citefix.inputs import example_path as bundled
    from citefix.inputs import load_cases

    case = load_cases(bundled("summary"))[0]
    filler = "\n\n".join(f"Paragraph {k} of the council's minutes records routine business about bins and lamps."
                         for k in range(40))
    path = tmp_path / "far.json"
    path.write_text(json.dumps({"id": "far", "sources": [{"id": "1", "title": "minutes",
                                                          "text": filler + "\n\n" + case.sources[0].text}],
                                "text": case.text}))
    app = make_app(store, path=path)
    async with app.run_test(size=(80, 24)) as pilot:
        main = await open_and_check(pilot, app)
        ev = main.snap.evaluation
        unit = next(u for u in ev.units if ev.verdict_for(u.id) and ev.verdict_for(u.id).evidence)
        units = main.query_one("#units")
        units.focus()
        units.move_cursor(row=units.get_row_index(unit.id))
        await pilot.pause()
        assert main.selected == unit.id
        await pilot.press("2")
        await settle(pilot, app, until=lambda: main.query_one("#sources").scroll_offset.y > 0)
        sources = main.query_one("#sources")
        lit = [w for k, (p, w) in enumerate(sources._paras) if k in sources._lit]
        assert lit, "no paragraph highlighted"
        top, height = sources.scroll_offset.y, sources.scrollable_content_region.height
        assert any(top <= w.virtual_region.y < top + height for w in lit), (top, height, [w.virtual_region for w in lit])


@pytest.mark.asyncio
async def test_the_selection_stays_on_its_words_after_an_edit_is_checked(store, example_path):
    """Unit ids belong to one evaluation; after an edit elsewhere is saved and checked, the unit that states the same
    words is selected again (the writer keeps their place), and the detail line is about it."""
    app = make_app(store, path=example_path)
    async with app.run_test(size=SIZE) as pilot:
        main = await open_and_check(pilot, app)
        ev = main.snap.evaluation
        units = main.query_one("#units")
        units.focus()
        target = ev.units[-1]
        units.move_cursor(row=units.get_row_index(target.id))
        await pilot.pause()
        assert main.selected == target.id
        # an edit to the first sentence: the last unit's words are untouched
        first = main.snap.text.split(". ")[0]
        assert target.text not in first
        await pilot.press("e")
        main.query_one("#text-edit").load_text(main.snap.text.replace(first, first + " on Monday", 1))
        await pilot.press("ctrl+s")
        await settle(pilot, app)
        assert main.snap.current == 1
        now = main.snap.evaluation
        kept = next(u for u in now.units if u.id == main.selected)
        assert kept.text == target.text
        assert units.cursor_row == units.get_row_index(kept.id)
        assert kept.id in str(main.query_one("#unit-detail").render())
        # a unit whose words are gone: the cursor is back on the first row, as for a text checked afresh
        last = main.snap.text.rstrip().rsplit(". ", 1)
        assert kept.text in last[-1]
        await pilot.press("e")
        main.query_one("#text-edit").load_text(last[0] + ".")
        await pilot.press("ctrl+s")
        await settle(pilot, app)
        assert main.snap.current == 2
        assert all(u.text != kept.text for u in main.snap.evaluation.units)
        assert main.selected == main.snap.evaluation.units[0].id and units.cursor_row == 0
