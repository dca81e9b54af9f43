"""A long offline check in the TUI says how far it got (k of n units verified), and `esc` stops the work itself, not
only the screen's wait for it: the check's thread ends within moments, nothing is stored, the run reads cancelled."""

from __future__ import annotations

import json
import re
import time

import pytest
from tui_helpers import make_app, settle

from citefix.config import Settings

# every sentence its own (numbered), so no verdict of another test or another sentence can be reused
TEXT = " ".join(f"Plan {k} was approved by the council of Harwick on Monday and costs {k} million pounds."
                for k in range(70))
SOURCE = " ".join(f"The council of Harwick approved plan {k} on Monday." for k in range(70))


@pytest.mark.asyncio
async def test_a_long_check_counts_units_and_esc_stops_the_work(store, tmp_path):
    path = tmp_path / "long.json"
    path.write_text(json.dumps({"id": "long", "sources": [{"id": "1", "title": "a", "text": SOURCE}], "text": TEXT}))
    app = make_app(store, path=path, settings=Settings(cache=False))  # offline: the verifier works through some 200 units
    async with app.run_test(size=(120, 34)) as pilot:
        await settle(pilot, app, until=lambda: app.main is not None)
        main = app.main
        seq = main._job_seq
        await pilot.press("c")
        deadline = time.monotonic() + 120
        status = ""
        while "units verified" not in status and time.monotonic() < deadline:
            if main._job_seq != seq and main._job is None:
                break  # the check ended before saying how far it got
            await pilot.pause(0.05)
            status = str(main.query_one("#status-job").render())
        counted = re.search(r"(\d+) of (\d+) units verified", status)
        assert counted and 0 < int(counted[1]) < int(counted[2]) and int(counted[2]) > 100, status
        job_thread = main.threads[-1]
        await pilot.press("escape")
        stopped = time.monotonic()
        while job_thread.is_alive() and time.monotonic() - stopped < 10:
            await pilot.pause(0.05)
        assert not job_thread.is_alive(), "the check kept working after esc"
        assert time.monotonic() - stopped < 5
        await settle(pilot, app)
        assert "cancelled" in str(main.query_one("#status-job").render())
        runs = store.list_runs()
        assert [(r.n_rounds, r.status) for r in runs] == [(0, "cancelled")]
