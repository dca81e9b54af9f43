"""`citefix refine`'s progress lines say a round's score once the round is stored: an interrupt that comes between
the scoring and the store leaves no line for a round that was lost."""

from __future__ import annotations

import io

from citefix.commands.refine import HumanProgress


def test_a_round_score_line_is_printed_once_the_round_is_stored():
    out = io.StringIO()
    p = HumanProgress(out, max_rounds=2)
    scored = {"round": 0, "score": 0.61, "n_units": 5, "n_unsupported": 2, "status": "ok"}
    p("round_started", {"round": 0})
    p("units_scored", scored)
    assert "round 0: score" not in out.getvalue()  # an interrupt here: nothing claims round 0 exists
    p("round_stored", {"round": 0, "accepted": True})
    assert "round 0: score 0.610; 2 of 5 units unsupported or partial" in out.getvalue()
    # a scored round that is never stored (a cancel, or an interrupt) never gets its line
    p("units_scored", {**scored, "round": 1})
    p("run_finished", {"run_id": 1, "status": "interrupted", "stop_reason": "interrupted", "best_round": 0,
                       "best_score": 0.61})
    assert "round 1: score" not in out.getvalue() and "run 1 interrupted" in out.getvalue()
