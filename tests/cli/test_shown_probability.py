"""The judge's probability as the report shows it stands on the same side of the decision points as the verdict beside
it: cut to two decimals, never rounded up across a point (a unit at p = 0.658, partial under "unsupported at
p >= 0.66", reads p=0.65)."""

from __future__ import annotations

import json

import pytest
from cli_helpers import cli
from helpers import write

from citefix.report import probability_text
from citefix.verify.judge import load_judge


def _points() -> list[float]:
    j = load_judge()
    points = [j.unsupported_at, j.partial_at]
    if j.profiles:
        points += [p for c in j.profiles.values() for p in (c.unsupported_at, c.partial_at)]
    return points


def test_a_probability_just_under_a_decision_point_reads_under_it():
    for t in _points():
        assert float(probability_text(t)) == pytest.approx(t)
        for below in (t - 0.0001, t - 0.004, t - 0.0099):
            assert float(probability_text(below)) < t, (below, t)
        assert float(probability_text(t + 0.0049)) >= t
    assert probability_text(0.0) == "0.00" and probability_text(1.0) == "1.00" and probability_text(0.999) == "0.99"


@pytest.mark.slow
def test_the_report_shows_each_units_probability_on_its_verdicts_side(tmp_path):
    j = load_judge()
    source = ("The council did not approve the budget on Monday, after a long debate. Residents had asked for more "
              "money for the library. The mayor said she would present a new budget in the spring.")
    cases = [{"id": "neg", "document": source, "summary": "The council approved the budget on Monday.", "label": 0},
             {"id": "mix", "document": source, "summary": "The mayor promised a new budget in the spring, after "
              "residents asked for more library money. The council approved a cut of £2 million.", "label": 0}]
    p = write(tmp_path, "cases.jsonl", "\n".join(json.dumps(c) for c in cases) + "\n")
    db = tmp_path / "p.db"
    r = cli("check", p, "--json", "--db", str(db), tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    seen = 0
    for o in map(json.loads, r.stdout.splitlines()):
        shown = cli("show", str(o["run_id"]), "--db", str(db), tmp_path=tmp_path)
        assert shown.returncode == 0, shown.stderr
        for v in o["verdicts"]:
            prob = (v.get("details") or {}).get("p_unsupported")
            if prob is None:
                continue
            text = probability_text(prob)
            assert f"p={text}" in shown.stdout, (text, shown.stdout)
            want = ("unsupported" if float(text) >= j.unsupported_at - 1e-9 else
                    "partial" if float(text) >= j.partial_at - 1e-9 else "supported")
            assert v["label"] == want, (v["label"], prob, text)
            seen += 1
    assert seen >= 3
