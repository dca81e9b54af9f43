"""Golden files for the reports of a stored offline check of the bundled summary example: the text report
(`citefix show RUN`, the same text `check` printed) and the Markdown export (`citefix export RUN --format md`).

A real run: `citefix check --example summary` offline (spaCy parse, MiniLM, the default verifier) into a fresh store,
then both reports read back from the store alone, through the CLI in subprocesses. Before comparing, what changes from
run to run is normalised: run ids (`run <RUN>`, `show <RUN>`), ISO timestamps (`<TIME>`), the store path (`<STORE>`),
the temporary folder (`<TMP>`) and trailing spaces. Scores stay as the reports print them (two decimals in the text
report, three in Markdown), and the test checks that they are the stored round score rounded that way.

When a report changes on purpose (or the offline verifier's scores do), regenerate the files and review the diff:

    CITEFIX_UPDATE_GOLDEN=1 .venv/bin/python -m pytest -q tests/cli/test_golden_reports.py
    .venv/bin/python -m pytest -q tests/cli/test_golden_reports.py --update-golden      # the same, as a pytest flag
"""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

import pytest
from cli_helpers import run_main

GOLDEN = Path(__file__).resolve().parent / "golden"
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d(?::\d\d(?:\.\d+)?)?(?:Z|[+-]\d\d:?\d\d)?")


def normalise(text: str, folder: Path, store: str) -> str:
    text = text.replace(str(folder / store), "<STORE>").replace(str(folder), "<TMP>")
    text = re.sub(rf"(?<![\w/.-]){re.escape(store)}\b", "<STORE>", text)
    text = TIMESTAMP.sub("<TIME>", text)
    text = re.sub(r"\b(run|show|export) \d+\b", r"\1 <RUN>", text)
    return "\n".join(line.rstrip() for line in text.splitlines()) + "\n"


def cli(folder: Path, *args: str) -> str:
    # built once per module, before conftest's per-test isolation applies: so the same isolation here (no config
    # file, no CITEFIX_* setting from the caller's shell, one torch thread)
    drop = ("FORCE_COLOR", "COLUMNS", "OPENAI_API_BASE", "OPENAI_BASE_URL")
    env = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("CITEFIX_")}
    env.update(CITEFIX_HOME=str(folder / "home"), XDG_CONFIG_HOME=str(folder / "config"), CITEFIX_TORCH_THREADS="1",
               LITELLM_LOCAL_MODEL_COST_MAP="True", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    out = run_main(list(args), env=env, cwd=folder)
    assert out.returncode == 0 and "Traceback" not in out.stderr, (args, out.stderr[-3000:])
    return out.stdout


@pytest.fixture(scope="module")
def stored_check(tmp_path_factory):
    folder = tmp_path_factory.mktemp("golden")
    store = "reports.db"
    checked = cli(folder, "check", "--example", "summary", "--db", store, "--color", "never")
    with sqlite3.connect(folder / store) as conn:
        (run_id, score), = conn.execute("select r.id, x.score from runs r join rounds x on x.run_id = r.id "
                                        "and x.n = r.best_round where r.command = 'check'").fetchall()
    text = cli(folder, "show", str(run_id), "--db", store, "--color", "never")
    md = cli(folder, "export", str(run_id), "--format", "md", "--db", store)
    return {"folder": folder, "store": store, "checked": checked, "score": score,
            "txt": normalise(text, folder, store), "md": normalise(md, folder, store)}


def _update_requested(request) -> bool:
    return bool(request.config.getoption("--update-golden", default=False)) or \
        os.environ.get("CITEFIX_UPDATE_GOLDEN", "") not in ("", "0")


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["txt", "md"])
def test_report_matches_its_golden_file(stored_check, kind, request):
    path = GOLDEN / f"check_summary_offline.{kind}"
    got = stored_check[kind]
    if _update_requested(request):
        path.write_text(got, encoding="utf-8")
    assert path.exists(), f"{path} is missing; make it with CITEFIX_UPDATE_GOLDEN=1 (see this module's docstring)"
    want = path.read_text(encoding="utf-8")
    assert got == want, (f"the {kind} report differs from {path.name}; if the change is intended, regenerate with "
                         "CITEFIX_UPDATE_GOLDEN=1 and review the diff")


@pytest.mark.slow
def test_golden_reports_print_the_stored_score_rounded(stored_check):
    """The scores in the reports are the stored round's score, rounded as each report prints it."""
    score = stored_check["score"]
    assert f"Score: {score:.2f} " in stored_check["txt"]
    assert f"| 0 | {score:.3f} |" in stored_check["md"]


@pytest.mark.slow
def test_text_report_from_the_store_is_what_check_printed(stored_check):
    assert normalise(stored_check["checked"], stored_check["folder"], stored_check["store"]) == stored_check["txt"]


def test_normalise_hides_what_changes_between_runs(tmp_path):
    raw = (f"Stored as run 12 in {tmp_path}/x.db  (reprint: citefix show 12)   \n"
           "- created: 2026-11-23T10:27:28+00:00\n# citefix run 7: a\nScore: 0.63\n"
           "path x.db\n")
    assert normalise(raw, tmp_path, "x.db") == ("Stored as run <RUN> in <STORE>  (reprint: citefix show <RUN>)\n"
                                                "- created: <TIME>\n# citefix run <RUN>: a\nScore: 0.63\n"
                                                "path <STORE>\n")
