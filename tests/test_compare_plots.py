"""compare's charts: one PNG per metric, a title naming inputs, model and verifier, a y-axis that names the score, and
runs that stopped early marked rather than carried forward silently (from real store rows)."""

from __future__ import annotations

from citefix.models import Case, Evaluation, Source
from citefix.refine.compare import METRICS, collect, metric_figure, plots

CASE = Case(id="a", text="The depot closed in 1987.", sources=[Source(id="1", text="The depot closed in 1987.")])


def _run(store, scores, strategy):
    run_id = store.start_run(CASE, "compare", strategy=strategy)
    for n, s in enumerate(scores):
        store.write_round(run_id, n, Evaluation(case_id="a", kind="summary", text=f"text {n}", score=s),
                          edit_orig=n * 2)
    store.finish_run(run_id, "finished", best_round=len(scores) - 1, stop_reason="rounds")
    return run_id


def test_early_stops_are_marked_and_every_metric_gets_a_png(store, tmp_path):
    full = _run(store, [0.4, 0.6, 0.8], "acu")
    early = _run(store, [0.5, 0.9], "acu")  # stopped after round 1
    other = _run(store, [0.4, 0.5, 0.6], "none")
    data = collect(store, {"acu": [full, early], "none": [other]}, 2)
    assert data["strategies"]["acu"]["active_runs"] == [2, 2, 1]
    assert data["strategies"]["none"]["active_runs"] == [1, 1, 1]
    title = "cases.jsonl · LLM none (offline) · verifier offline · 2 cases"
    fig = metric_figure(data, "mean_score", METRICS["scores.png"][1], (0, 1.02), title=title)
    ax = fig.axes[0]
    assert ax.get_title() == title and ax.get_ylabel().startswith("score") and ax.get_xlabel().startswith("round")
    hollow = [ln for ln in ax.lines if ln.get_gid() == "early-stop"]
    assert len(hollow) == 1 and list(hollow[0].get_xdata())[0] != 2  # offset sideways from the other strategy
    assert any("1/2 running" in t.get_text() for t in ax.texts)
    styles = {(ln.get_marker(), ln.get_linestyle()) for ln in ax.lines if ln.get_gid() != "early-stop"}
    assert len(styles) == 2  # the two strategies look different even where they overlap
    paths = plots(data, tmp_path / "out", title=title)
    assert sorted(paths) == ["edits.png", "scores.png", "unsupported.png"]
    assert all(p.stat().st_size > 5000 for p in paths.values())
