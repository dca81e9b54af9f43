"""The run page follows the round shown: its Citations table is the shown round's, and the Rounds table shows each
round's feedback as written (bullets kept) with the edits the offline reviser made, each with its evidence."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from citefix.html_report import render_run_html
from citefix.models import Case, Evaluation, Source, Unit, Verdict
from citefix.store import Store


def _dump(page: Path, fragment: str, tmp_path: Path) -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if exe is None:
        pytest.skip("no headless Chromium found; install Debian's chromium package to run the browser checks")
    r = subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                        f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=3000", "--dump-dom",
                        page.as_uri() + fragment], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and "<html" in r.stdout, r.stderr[-2000:]
    return r.stdout


def _cited(text: str, cited: str, recall: float) -> Evaluation:
    u = Unit(id="u1", text=text, kind="claim", decomposer="d", start=0, end=len(text), cited=[cited])
    v = Verdict(unit_id="u1", verifier="v", score=recall, label="supported" if recall else "unsupported")
    groups = [{"unit_id": "u1", "claim": text, "ids": [cited], "recall": recall, "precision": recall,
               "citations": [{"id": cited, "label": "supported" if recall else "unsupported"}]}]
    return Evaluation(case_id="c", kind="cited_answer", text=f"{text} [{cited}]", units=[u], verdicts=[v],
                      score=recall, metrics={"citations": {"groups": groups, "aliice": {"recall": recall}}},
                      decomposer="d", verifier="v")


def test_the_citations_table_and_feedback_follow_the_round_shown(tmp_path):
    case = Case(id="c", kind="cited_answer", text="Plastic cups are cheap [1]",
                sources=[Source(id="1", text="Glass cups last."), Source(id="2", text="Plastic cups are cheap.")])
    store = Store(tmp_path / "s.db")
    run = store.start_run(case, "refine")
    store.write_round(run, 0, _cited("Plastic cups are cheap", "1", 0.0))
    second = _cited("Plastic cups are cheap", "2", 1.0)
    second.metrics["edits"] = [{"kind": "citation", "text": "[1]", "new": "[2]",
                                "evidence": {"source_id": "2", "text": "Plastic cups are cheap."}}]
    store.write_round(run, 1, second, parent=0,
                      comment="The cited passages do not support this claim:\n- \"Plastic cups are cheap\" (cites [1])")
    store.finish_run(run, "finished", best_round=1)
    page = tmp_path / "run.html"
    page.write_text(render_run_html(store, run), encoding="utf-8")
    store.close()

    def shown_citations(html: str) -> list[str]:
        return re.findall(r'<section class="citations" data-round="(\d+)">', html)  # the ones not hidden

    assert shown_citations(_dump(page, "", tmp_path)) == ["1"]  # the best round's
    html = _dump(page, "#round=0", tmp_path)
    assert shown_citations(html) == ["0"]
    # the feedback keeps its lines; the edit says what changed and on what evidence
    assert re.search(r'<div class="feedback">The cited passages do not support this claim:\n- ', html)
    assert "citation: “[1]” → “[2]”" in html and "evidence: “Plastic cups are cheap.”" in html
