"""The Python API: docs/python-api.md's code blocks run as written (offline), results are the typed models the CLI
prints and land in the same store; `import citefix` stays light."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[2] / "docs" / "python-api.md"

pytestmark = pytest.mark.slow


def test_the_documented_examples_run(tmp_path, monkeypatch):
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(blocks) >= 5
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    for i, code in enumerate(blocks):
        exec(compile(code, f"{DOC.name}[block {i + 1}]", "exec"), namespace)  # noqa: S102 - the page is ours


def test_check_stores_a_run_the_cli_can_show(tmp_path):
    import citefix
    from citefix.store import Store

    db = tmp_path / "api.db"
    r = citefix.check("The depot closed in 1987.", sources=["The depot closed in 1987."], db=db, id="one")
    assert isinstance(r, citefix.CheckResult) and r.case_id == "one" and r.score is not None
    store = Store(db)
    assert store.run(r.run_id).command == "check"
    assert store.evaluation(r.run_id).score == r.score
    store.close()
    out = subprocess.run([sys.executable, "-m", "citefix.cli", "show", str(r.run_id), "--db", str(db), "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and '"case_id": "one"' in out.stdout


def test_bad_input_is_one_clear_error(tmp_path):
    import citefix
    from citefix.errors import InputError

    with pytest.raises(InputError, match="no such case file"):
        citefix.check(str(tmp_path / "missing.json"))
    with pytest.raises(InputError, match="sources is empty"):
        citefix.check("A text.", sources=[])


def test_import_citefix_loads_no_heavy_library():
    code = ("import sys, citefix; heavy = [m for m in ('torch', 'spacy', 'litellm', 'transformers', 'pydantic', "
            "'textual') if m in sys.modules]; print(heavy); assert callable(citefix.check)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_refine_is_the_api_function_even_after_the_refine_package_is_imported(tmp_path):
    import citefix
    import citefix.revision.session  # noqa: F401 - the package now shadows the lazy attribute

    r = citefix.refine("The depot closed in 1987.", sources=["The depot closed in 1987."], db=tmp_path / "r.db",
                       rounds=1)
    assert isinstance(r, citefix.RefineReport) and r.best_text and r.run_id >= 1
    assert callable(citefix.revision.session.refine)  # the package is still the package


def test_compare_from_python_reuses_the_runs_of_the_same_compare_from_the_command_line(tmp_path):
    """One signature of a comparable run (the pipeline's): the API's compare finds the command line's runs and
    reuses them instead of refining again."""
    from cli_helpers import cli

    import citefix
    from citefix.inputs import example_path

    db = tmp_path / "c.db"
    r = cli("compare", example_path("summary"), "--strategies", "acu,none", "--rounds", "1", "--report",
            tmp_path / "report", "--db", db, tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    report = citefix.compare(example_path("summary"), strategies=("acu", "none"), rounds=1, db=db)
    assert {run["reused"] for run in report.runs} == {True}, report.runs
