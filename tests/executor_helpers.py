"""What the executor tests compare: the cases and labels a batch is run on, what the store holds of its runs, and
an equality with float scores equal to 1e-6, for checking that another executor (local worker processes, Ray
workers) gives what one process gives (tests/ is on sys.path, so `from executor_helpers import ...`)."""

from __future__ import annotations

import json

import pytest
from cli_helpers import ARTICLE
from helpers import rows

TEXTS = ["The depot closed in 1987.", "Councillors voted 9 to 4 in favour.", "The plan will cost £9 million.",
         "The council approved a plan to turn the depot into a car park.", "The depot closed in 1987."]

RECS = [
    {"id": "a", "document": "The council approved the plan on Monday. Work will take eighteen months.",
     "summary": "The council, which met in secret, approved the plan on Monday."},
    {"id": "b", "document": "Marta Ruiz finished the Lisbon marathon in under three hours.",
     "summary": "Marta Ruiz, a nurse from Porto, finished the Lisbon marathon in under three hours."},
    {"id": "c", "document": "Shares in Nordlite fell 8% on Tuesday.", "summary": "Shares in Nordlite fell 8% on Tuesday."},
]


def cases_file(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(json.dumps({"id": f"c{i}", "sources": [{"id": "1", "text": ARTICLE}], "text": t})
                              for i, t in enumerate(TEXTS)) + "\n")
    return path


def stored_runs(db):
    """What the store holds per run, ids and times left out."""
    out = []
    for run in rows(db, "select r.id, c.case_id, r.status, r.best_round, r.stop_reason, r.verifier, r.decomposer, "
                        "r.settings from runs r join cases c on c.id = r.case_pk order by r.id"):
        rounds = rows(db, "select score, n_units, n_unsupported, status from rounds where run_id = ?", [run["id"]])
        units = rows(db, "select u.uid, u.text, u.start, u.\"end\", v.score, v.label, v.evidence_text from units u "
                         "join verdicts v on v.unit_row = u.id join rounds x on x.id = u.round_id where x.run_id = ? "
                         "order by u.id", [run["id"]])
        out.append({**{k: v for k, v in run.items() if k != "id"}, "rounds": rounds, "units": units})
    return out


def labels_file(tmp_path):
    """Six labelled summaries of ARTICLE, for meta-eval."""
    recs = [{"id": f"s{i}", "document": ARTICLE, "summary": s, "label": lab} for i, (s, lab) in enumerate(
        [("The depot closed in 1987.", 1), ("The depot closed in 1990.", 0), ("Councillors voted 9 to 4.", 1),
         ("The plan will cost £9 million.", 0), ("The council approved a plan for a park.", 1),
         ("The council rejected the plan.", 0)])]
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    return path, len(recs)


def without_timings(stdout: str) -> dict:
    """A meta-eval's JSON output with its timings and memory left out (they differ from run to run)."""
    out = json.loads(stdout)
    for timing in ("performance", "peak_rss_mb", "started_at", "duration_s"):
        out.pop(timing)
    for row in out["scores"]:
        row.pop("seconds", None)
    return out


def compare_runs(db) -> list[dict]:
    """Each stored run of a compare, by case and strategy: its outcome and every round's text, score and counts."""
    out = []
    for run in rows(db, "select r.id, c.case_id, r.strategy, r.status, r.stop_reason, r.best_round, r.verifier, "
                        "r.decomposer, r.settings from runs r join cases c on c.id = r.case_pk order by c.case_id, "
                        "r.strategy"):
        rounds = rows(db, "select id, n, text, score, judge_score, n_units, n_unsupported, accepted, parent, strategy "
                          "from rounds where run_id = ? order by n", [run["id"]])
        for r in rounds:
            rid = r.pop("id")
            r["units"] = rows(db, "select count(*) as n from units where round_id = ?", [rid])[0]["n"]
            r["verdicts"] = rows(db, "select uid, role, score, label from verdicts where round_id = ? order by id", [rid])
            r["scores"] = {s["name"]: s["value"] for s in rows(db, "select name, value from scores where round_id = ? "
                                                                   "and role = 'primary'", [rid])}
        out.append({**{k: v for k, v in run.items() if k != "id"}, "rounds": rounds})
    return out


def assert_same(a, b) -> None:
    """Equal, with float scores equal to 1e-6."""
    if isinstance(a, float) or isinstance(b, float):
        assert a == pytest.approx(b, abs=1e-6)
    elif isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), (a, b)
        for k in a:
            assert_same(a[k], b[k])
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), (a, b)
        for x, y in zip(a, b):
            assert_same(x, y)
    else:
        assert a == b
