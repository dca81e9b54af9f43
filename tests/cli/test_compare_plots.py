"""compare's charts: one PNG per metric, a title naming inputs, model and verifier, a y-axis that names the score, and
runs that stopped early marked rather than carried forward silently (from real store rows); labels of strategies
that meet at one point do not overprint, and the y-axis label is never clipped."""

from __future__ import annotations

from citefix.models import Case, Evaluation, Source
from citefix.revision.compare_report import METRICS, collect, metric_figure, plots

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
    styles = {(ln.get_marker(), ln.get_linestyle()) for ln in ax.lines
              if ln.get_gid() not in ("early-stop", "stopped-here", "failed-here")}
    assert len(styles) == 2  # the two strategies look different even where they overlap
    paths = plots(data, tmp_path / "out", title=title)
    assert sorted(paths) == ["edits.png", "scores.png", "unsupported.png"]
    assert all(p.stat().st_size > 5000 for p in paths.values())


def _stopped(store, scores, strategy, status, reason):
    run_id = store.start_run(CASE, "compare", strategy=strategy)
    for n, s in enumerate(scores):
        store.write_round(run_id, n, Evaluation(case_id="a", kind="summary", text=f"text {n}", score=s))
    store.finish_run(run_id, status, best_round=len(scores) - 1, stop_reason=reason)
    return run_id


def test_the_round_a_run_stopped_on_is_marked_with_its_kind_in_the_legend(store, tmp_path):
    """compare marks early stops in the plot — a star where a run stopped early on its own (target,
    all supported), a red cross where one failed or was interrupted, each counted and named in the legend."""
    import matplotlib.image

    full = _stopped(store, [0.4, 0.6, 0.8], "acu", "finished", "max_rounds")
    target = _stopped(store, [0.5, 0.9], "acu", "finished", "target_reached")  # ended on round 1
    failed = _stopped(store, [0.3, 0.5], "none", "failed", "llm_error")  # ended on round 1, model failure
    killed = _stopped(store, [0.2], "none", "interrupted", "interrupted")  # ended on round 0
    data = collect(store, {"acu": [full, target], "none": [failed, killed]}, 2)
    acu, none = data["strategies"]["acu"], data["strategies"]["none"]
    assert acu["stopped_at"] == [0, 1, 0] and acu["failed_at"] == [0, 0, 0]
    assert none["stopped_at"] == [0, 0, 0] and none["failed_at"] == [1, 1, 0]
    fig = metric_figure(data, "mean_score", METRICS["scores.png"][1], (0, 1.02))
    ax = fig.axes[0]
    stars = [ln for ln in ax.lines if ln.get_gid() == "stopped-here"]
    crosses = [ln for ln in ax.lines if ln.get_gid() == "failed-here"]
    assert len(stars) == 1 and stars[0].get_marker() == "*"
    assert round(stars[0].get_xdata()[0]) == 1 and stars[0].get_ydata()[0] == (0.6 + 0.9) / 2
    assert sorted(round(ln.get_xdata()[0]) for ln in crosses) == [0, 1] and {ln.get_marker() for ln in crosses} == {"X"}
    assert {ln.get_color() for ln in crosses} != {ln.get_color() for ln in stars}  # told apart by colour too
    texts = [t.get_text() for t in ax.texts]
    assert "1 stopped" in texts and texts.count("1 failed") == 2
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(t.startswith("run(s) stopped early here") for t in legend)
    assert any(t.startswith("run(s) failed or interrupted here") for t in legend)
    assert len(legend) == 4  # two strategies and the two kinds of stop, no duplicates
    paths = plots(data, tmp_path / "out")  # the written PNG carries the red of the failure marks
    img = matplotlib.image.imread(paths["scores.png"])
    red = ((img[..., 0] > 0.78) & (img[..., 1] < 0.25) & (img[..., 2] < 0.25)).sum()
    assert red > 20


def test_runs_that_all_reach_their_rounds_get_no_stop_marks(store):
    full = _stopped(store, [0.4, 0.6, 0.8], "acu", "finished", "max_rounds")
    data = collect(store, {"acu": [full]}, 2)
    fig = metric_figure(data, "mean_score", METRICS["scores.png"][1], (0, 1.02))
    ax = fig.axes[0]
    assert not [ln for ln in ax.lines if ln.get_gid() in ("stopped-here", "failed-here")]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["acu (n=1)"]


def test_labels_of_strategies_at_one_point_do_not_overlap(store):
    # both strategies have the same scores: their marks and labels fall on the same points
    runs = {s: [_stopped(store, [0.5, 0.7, 0.8], s, "finished", "max_rounds"),
                _stopped(store, [0.5, 0.7], s, "finished", "target_reached")] for s in ("acu", "critique")}
    fig = metric_figure(collect(store, runs, 2), "mean_score", METRICS["scores.png"][1], (0, 1.02))
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in ax.texts]
    assert len(boxes) >= 4, [b[0] for b in boxes]
    for i, (a, ba) in enumerate(boxes):
        for b, bb in boxes[i + 1:]:
            assert not ba.overlaps(bb), (a, b)
    label = ax.yaxis.label.get_window_extent(renderer)
    assert label.x0 >= 0 and label.y0 >= 0 and label.y1 <= fig.bbox.height  # inside the figure, whole
