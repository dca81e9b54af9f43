"""`citefix check` on cited answers through a subprocess: the offline report, `show` reprinting it, --json, files of
many answers with their summary, bad marks / unknown passages / uncited answers reported (exit 0), and --nli with a
tiny NLI model built here."""

from __future__ import annotations

import json

import pytest
from cli_helpers import cli
from helpers import write

pytestmark = pytest.mark.slow

PASSAGES = [{"id": "1", "title": "Drinking vessels", "text": "Glass cups are common in homes."},
            {"id": "2", "title": "Plastics", "text": "Disposable cups are usually made of plastic or paper."}]


def _record(rid, answer):
    return {"id": rid, "question": "What are cups made of?", "answer": answer, "passages": PASSAGES}


def test_example_offline_report_and_show_reprints_it(tmp_path):
    db = str(tmp_path / "c.db")
    r = cli("check", "--example", "cited_answer", "--db", db, "--color", "never", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    out = r.stdout
    assert '[2] "paper cups were invented in 1908" @114-146' in out and "NOT SUPPORTED" in out
    assert "ALiiCE (per citation group): recall 0.75  precision 0.75  F1 0.75" in out
    assert "ALCE (per sentence):         recall 0.50  precision 0.50  F1 0.50" in out
    assert "support: partial" in out and "Fallbacks to the whole sentence: 0" in out
    assert "Stored as run 1" in out
    s = cli("show", "1", "--db", db, "--color", "never", tmp_path=tmp_path)
    assert s.returncode == 0, s.stderr
    assert s.stdout == out

    j = cli("show", "1", "--db", db, "--json", tmp_path=tmp_path)
    data = json.loads(j.stdout)
    c = data["metrics"]["citations"]
    assert [g["claim"] for g in c["groups"]] == ["Cups can be made of glass", "Cups can be made of plastic",
                                                 "Ceramic mugs keep drinks hot for longer than thin glass",
                                                 "paper cups were invented in 1908"]
    assert c["groups"][3]["citations"][0]["label"] == "unsupported"
    assert {u["kind"] for u in data["units"]} == {"claim", "sentence"}
    roles = [(v["unit_id"], v["target"], v["details"]["role"]) for v in data["verdicts"]]
    assert ("u2", ["2"], "citation") in roles and ("u2", ["2", "3"], "unit") in roles


def test_file_of_answers_with_problems_is_reported_not_crashed_on(tmp_path):
    path = write(tmp_path, "answers.jsonl", "\n".join(json.dumps(r) for r in [
        _record("ok", "Cups can be made of glass [1] or plastic [2]."),
        _record("unknown", "Cups can be made of glass [1] or plastic [7]."),
        _record("uncited", "Cups can be made of glass or plastic."),
        _record("botched", "Cups can be made of glass [1-] or plastic [a]. Disposable cups are made of paper [2]."),
    ]) + "\n")
    db = str(tmp_path / "c.db")
    r = cli("check", path, "--db", db, "--color", "never", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    out = r.stdout
    assert "not found: passage [7] not found" in out and "NOT FOUND" in out
    assert "Uncited answer: it carries no citation marks, so no claim can be checked" in out
    assert "warning: malformed citation mark '[1-]'" in out
    summary = out.split("=" * 100)[1]
    assert "Cited answers: 4  scored 3  uncited 1" in summary
    assert "passages not found 1 (in 1 answers)" in summary and "Uncited answers: uncited" in summary
    assert "ALiiCE macro (mean over answers)" in summary and "Fallbacks to the whole sentence: 0" in summary
    assert "[3/4] uncited: score — recall - precision - cvcp - [uncited]" in r.stderr

    j = cli("check", path, "--db", db, "--json", "--fresh", tmp_path=tmp_path)  # --fresh: not reused
    assert j.returncode == 0, j.stderr
    lines = [json.loads(x) for x in j.stdout.splitlines()]
    assert len(lines) == 5 and list(lines[-1]) == ["summary"]
    assert [x["status"] for x in lines[:4]] == ["ok", "ok", "uncited", "ok"]
    assert lines[2]["score"] is None and "uncited" in lines[2]["message"]
    assert lines[1]["metrics"]["citations"]["not_found"] == ["passage [7] not found"]
    s = lines[-1]["summary"]
    assert s["answers"] == 4 and s["uncited_answers"] == 1 and s["not_found"] == 1
    assert set(s) >= {"aliice_macro", "aliice_micro", "alce_macro", "alce_micro", "cvcp", "fallbacks",
                      "fallback_count"}
    runs = cli("runs", "--db", db, "--json", tmp_path=tmp_path)
    assert len(runs.stdout.splitlines()) == 8  # every answer of both checks stored


def test_alce_results_file(tmp_path):
    data = {"args": {}, "data": [
        {"question": "What are cups made of?", "output": "Cups can be made of glass [1] or plastic [2].",
         "docs": [{"title": p["title"], "text": p["text"]} for p in PASSAGES]},
        {"question": "Q", "output": "Glass cups are common in homes [1].", "docs": [{"title": "t", "text": "x y"}]},
    ]}
    path = write(tmp_path, "alce_results.json", json.dumps(data))
    r = cli("check", path, "--json", "--db", str(tmp_path / "c.db"), tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["kind"] for x in lines[:2]] == ["cited_answer", "cited_answer"]
    assert lines[-1]["summary"]["answers"] == 2


# --- an NLI model built here -----------------------------------------------------------------------------------------


def test_nli_option_end_to_end(tmp_path):
    pytest.importorskip("transformers")
    from tiny_models import build_bert

    # classifier weights zeroed, bias favouring ENTAILMENT: every pair entails
    model = build_bert(tmp_path / "nli", bias=[-4.0, 4.0, -4.0], max_positions=128)
    db = str(tmp_path / "c.db")
    r = cli("check", "--example", "cited_answer", "--nli", str(model), "--json", "--db", db, tmp_path=tmp_path,
            extra_env={"CITEFIX_NLI_DEVICE": "cpu"})
    assert r.returncode == 0, r.stderr
    data = json.loads(r.stdout)
    assert data["verifier"] == f"nli:{model}"
    assert data["scores"]["aliice_recall"] == 1.0 and data["scores"]["aliice_precision"] == 1.0
    assert data["metrics"]["citations"]["threshold"] == 0.5
    assert all(v["verifier"] == f"nli:{model}" for v in data["verdicts"])
    assert data["score"] == pytest.approx(0.999, abs=0.01)

    show = cli("show", "1", "--db", db, "--color", "never", tmp_path=tmp_path)
    assert f"verifier: nli:{model}" in show.stdout and "support: full" in show.stdout

    both = cli("check", "--example", "cited_answer", "--nli", str(model), "--verifier", "offline", tmp_path=tmp_path)
    assert both.returncode == 2 and "--nli and --verifier" in both.stderr
    missing = cli("check", "--example", "cited_answer", "--nli", str(tmp_path / "nope"), tmp_path=tmp_path)
    assert missing.returncode == 2 and "does not exist" in missing.stderr and "Traceback" not in missing.stderr
