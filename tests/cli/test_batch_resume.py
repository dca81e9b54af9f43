"""Batch resume: `check cases.jsonl` reuses the stored result of a case already checked with the same settings (an
interrupted batch continues where it stopped); --fresh checks again; other settings never reuse."""

from __future__ import annotations

import json

import pytest
from cli_helpers import ARTICLE, cli
from helpers import rows

pytestmark = pytest.mark.slow

TEXTS = ["The depot closed in 1987.", "Councillors voted 9 to 4 in favour.", "The plan will cost £9 million."]


def test_a_batch_continues_where_it_stopped(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(json.dumps({"id": f"c{i}", "sources": [{"id": "1", "text": ARTICLE}], "text": t})
                              for i, t in enumerate(TEXTS)) + "\n")
    db = str(tmp_path / "b.db")
    first = cli("check", str(path), "--limit", "2", "--json", "--db", db, tmp_path=tmp_path)  # "interrupted" after 2
    assert first.returncode == 0, first.stderr
    done = [json.loads(ln) for ln in first.stdout.splitlines()]
    assert len(rows(tmp_path / "b.db", "select * from runs")) == 2

    again = cli("check", str(path), "--json", "--db", db, tmp_path=tmp_path)
    assert again.returncode == 0, again.stderr
    out = [json.loads(ln) for ln in again.stdout.splitlines()]
    assert [o["case_id"] for o in out] == ["c0", "c1", "c2"]
    assert [o["run_id"] for o in out[:2]] == [d["run_id"] for d in done]  # the stored results, not new runs
    assert [o["score"] for o in out[:2]] == [d["score"] for d in done]
    assert "2 of 3 cases reused" in again.stderr
    assert len(rows(tmp_path / "b.db", "select * from runs")) == 3

    fresh = cli("check", str(path), "--json", "--fresh", "--db", db, tmp_path=tmp_path)
    assert fresh.returncode == 0 and "reused" not in fresh.stderr
    assert len(rows(tmp_path / "b.db", "select * from runs")) == 6

    other = cli("check", str(path), "--json", "--verifier", "offline:lexical", "--db", db, tmp_path=tmp_path)
    assert other.returncode == 0 and "reused" not in other.stderr  # other settings: checked anew


def test_meta_eval_reuses_a_stored_result_with_the_same_file_and_settings(tmp_path):
    recs = [{"id": f"s{i}", "document": ARTICLE, "summary": s, "label": lab} for i, (s, lab) in enumerate(
        [("The depot closed in 1987.", 1), ("The depot closed in 1990.", 0), ("Councillors voted 9 to 4.", 1),
         ("The plan will cost £9 million.", 0)])]
    path = tmp_path / "labels.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    db = str(tmp_path / "m.db")
    args = ("meta-eval", str(path), "--verifier", "lexical", "--bootstrap", "50", "--json", "--db", db)
    first = cli(*args, tmp_path=tmp_path)
    assert first.returncode == 0, first.stderr
    second = cli(*args, tmp_path=tmp_path)
    assert second.returncode == 0 and "reused meta-eval run 1" in second.stderr
    a, b = json.loads(first.stdout), json.loads(second.stdout)
    assert b["stats"] == a["stats"] and b["scores"] == a["scores"]  # the stored result, items included
    assert len(rows(tmp_path / "m.db", "select * from metaeval_runs")) == 1
    assert "reused" not in cli(*args, "--fresh", tmp_path=tmp_path).stderr
    assert "reused" not in cli(*args, "--limit", "3", tmp_path=tmp_path).stderr  # other settings: scored anew
    assert len(rows(tmp_path / "m.db", "select * from metaeval_runs")) == 3
