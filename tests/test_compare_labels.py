"""compare's charts stay readable where strategies meet: the "n running" and "n stopped" labels of two strategies at
one point do not overprint each other, and the y-axis label is not clipped."""

from __future__ import annotations

from citefix.models import Case, Evaluation, Source
from citefix.revision.compare_report import METRICS, collect, metric_figure

CASE = Case(id="a", text="The depot closed in 1987.", sources=[Source(id="1", text="The depot closed in 1987.")])


def _ended(store, scores, strategy, status, reason):
    run_id = store.start_run(CASE, "compare", strategy=strategy)
    for n, s in enumerate(scores):
        store.write_round(run_id, n, Evaluation(case_id="a", kind="summary", text=f"text {n}", score=s))
    store.finish_run(run_id, status, best_round=len(scores) - 1, stop_reason=reason)
    return run_id


def test_labels_of_strategies_at_one_point_do_not_overlap(store):
    # both strategies have the same scores: their marks and labels fall on the same points
    runs = {s: [_ended(store, [0.5, 0.7, 0.8], s, "finished", "max_rounds"),
                _ended(store, [0.5, 0.7], s, "finished", "target_reached")] for s in ("acu", "critique")}
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
