"""The scripts of bench/, training/ and builders/ run as `python -m FOLDER.SCRIPT` from the repository root, with their
data as arguments and defaults that work from a fresh clone; bench_claims' headline is the parser's real speed."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _run(module, *args, tmp_path, env=None):
    """`python -m MODULE ARGS` from the repository root, its temporary files and home folder under tmp_path."""
    full = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
            "TMPDIR": str(tmp_path), "CITEFIX_HOME": str(tmp_path / "home"), **(env or {})}
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, env=full,
                          cwd=ROOT, timeout=600)


@pytest.mark.parametrize("module", ["training.judge", "bench.lodo", "builders.build_idf"])
def test_a_script_of_each_folder_runs_as_a_module_from_the_repository_root(module, tmp_path):
    """One script of each kind answers --help when run as a module (no sys.path edits needed to find its imports)."""
    r = _run(module, "--help", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "usage:" in r.stdout


def test_bench_claims_headline_counts_every_sentence_it_parsed(tmp_path):
    answers = [
        {"id": "a1", "question": "q", "answer": "Cups are made of glass [1] or plastic [2]. They hold drinks [1].",
         "passages": [{"id": "1", "title": "", "text": "Cups are made of glass. They hold drinks."},
                      {"id": "2", "title": "", "text": "Cups are made of plastic."}]},
        {"id": "a2", "question": "q", "answer": "Mugs are ceramic [1]. Nobody knows why.",
         "passages": [{"id": "1", "title": "", "text": "Mugs are ceramic."}]},
    ]
    data = tmp_path / "answers.jsonl"
    data.write_text("\n".join(json.dumps(a) for a in answers) + "\n")
    r = _run("bench.bench_claims", "--data", str(data), "--repeat", "1", "--skip-nli", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    claims = [ln for ln in r.stdout.splitlines() if ln.startswith("claims")]
    # the headline: all 3 cited sentences parsed (not the 1 with several groups the end-to-end path parses)
    assert re.match(r"claims: \d+ sentences/s parsed and cut \(3 cited sentences, ", claims[0]), claims
    end_to_end = next(ln for ln in r.stdout.splitlines() if ln.startswith("claim extraction end to end"))
    assert "only the 1 sentence(s) with several citation groups need a parse" in end_to_end
    assert "is not a parsing speed" in end_to_end


def test_bench_claims_without_data_uses_the_bundled_example(tmp_path):
    r = _run("bench.bench_claims", "--repeat", "1", "--skip-nli", tmp_path=tmp_path,
             env={"CITEFIX_ATTRIBUTIONBENCH": str(tmp_path / "none.jsonl")})
    assert r.returncode == 0, r.stderr
    assert "measuring on the bundled cited-answer example only" in r.stdout
    assert "sentences/s parsed and cut (2 cited sentences" in r.stdout
    missing = _run("bench.bench_claims", "--data", str(tmp_path / "nowhere.jsonl"), tmp_path=tmp_path)
    assert missing.returncode == 2 and "--data" in missing.stderr and "no such file" in missing.stderr


@pytest.mark.slow
def test_bench_check_runs_without_the_data(tmp_path):
    r = _run("bench.bench_check", "--skip-llm", tmp_path=tmp_path,
             env={"CITEFIX_XSUMFAITH": str(tmp_path / "none.jsonl")})
    assert r.returncode == 0, r.stderr
    assert "no XSumFaith cases at" in r.stdout and "bundled examples only" in r.stdout
    assert "per-case latency: median" in r.stdout and "peak RSS of the whole benchmark" in r.stdout
    bad = _run("bench.bench_check", "--skip-llm", "--data", str(tmp_path / "nowhere.jsonl"), tmp_path=tmp_path)
    assert bad.returncode == 2 and "no such file" in bad.stderr


def test_reuse_fresh_counts_kept_verdicts_against_fresh_ones(tmp_path):
    """bench.reuse_fresh edits each summary, checks it behind the verdict cache and afresh, and says how many units
    differ (none: exit 0); a missing file is named with the fix."""
    src = ("Dayna Dobias was born with cerebral palsy. She hopes to inspire others with her enthusiastic videos. "
           "The teenager says her motivation was to counteract stereotypes about disabilities.")
    rows = [{"id": "s1", "document": src, "summary": src.replace("The teenager", "The girl")},
            {"id": "s2", "document": src, "summary": "Dayna Dobias was born with cerebral palsy."}]
    data = tmp_path / "summaries.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    r = _run("bench.reuse_fresh", str(data), "--edit", "drop", tmp_path=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"(\d+) summaries edited \(drop\), (\d+) units, (\d+) verdicts reused, 0 differ", r.stdout)
    assert m and m.group(1) == "1" and int(m.group(3)) >= 1, r.stdout  # the one-sentence summary is left out
    r = _run("bench.reuse_fresh", str(tmp_path / "absent.jsonl"), tmp_path=tmp_path)
    assert r.returncode == 2 and "absent.jsonl: no such file" in r.stderr


def test_reuse_fresh_compares_a_cited_answers_verdicts_too(tmp_path):
    passages = [{"id": "1", "text": "Cups are made of glass. They hold hot drinks."},
                {"id": "2", "text": "Many cups are made of plastic, which is light."}]
    rows = [{"id": "a1", "answer": "Cups are made of glass [1]. Some are plastic [2]. They hold hot drinks [1].",
             "passages": passages}]
    data = tmp_path / "answers.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    r = _run("bench.reuse_fresh", str(data), "--cited", "--edit", "drop", tmp_path=tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    m = re.search(r"1 cited answers edited \(drop\), (\d+) verdicts, (\d+) reused, 0 differ", r.stdout)
    assert m and int(m.group(1)) >= 2 and int(m.group(2)) >= 1, r.stdout


def test_bench_flagged_names_each_unsupported_unit_and_counts_why(tmp_path):
    """bench.flagged on a two-statement file: the faithful one has none flagged, the one with an invented figure is
    flagged for a figure the source lacks, and the counts say so."""
    doc = "The new bridge over the River Aln cost £6.3 million. It opened to traffic in May after two years of work."
    rows = [{"id": "ok", "document": doc, "summary": "The bridge over the Aln cost £6.3 million.", "label": 1},
            {"id": "bad", "document": doc, "summary": "The bridge over the Aln cost £9.8 million.", "label": 0}]
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    r = _run("bench.flagged", str(path), "--faithful", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip().endswith("0 of 1 statements with a unit unsupported; 0 units:")
    r = _run("bench.flagged", str(path), "--errors", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "== bad:" in r.stdout and "£9.8 million" in r.stdout
    last = r.stdout.strip().splitlines()[-1]
    assert last.startswith("1 of 1 statements with a unit unsupported") and ("not in the source" in last
                                                                             or "said otherwise" in last), last
