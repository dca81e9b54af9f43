"""The static house rules, run as their own step of .ci/run (not in the README's test command, which they would slow
by minutes): `ruff check`, `mypy` on the core and the store (once over the package as installed; each test that it
can fail re-checks only what it changed, with the same cache), and the import-linter contracts in pyproject.toml,
each with a test that the check can fail.

The contracts (core never imports Textual; decompose and verify never import revision; only citefix.store imports
sqlite_utils; the entry point above the commands, the commands above the TUI, both above core, and every module of
the package placed in a layer) are checked on the package as it is installed: citefix.tui and citefix.store live in
tui/ and store/ in this checkout, so the test lays the installed tree out in a temporary folder first and runs
`lint-imports` on that.

Run:  .venv/bin/python -m pytest -q -o addopts= tests/static
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
BIN = Path(sys.executable).parent


def _tool(name: str) -> str:
    path = BIN / name
    if not path.exists():
        found = shutil.which(name)
        if found is None:
            pytest.fail(f"{name} is not installed: pip install -e '.[test]' installs it")
        return found
    return str(path)


def test_ruff_check_passes():
    out = subprocess.run([_tool("ruff"), "check", "citefix", "store", "tui", "--output-format", "concise"], cwd=ROOT,
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def installed_tree(dest: Path) -> Path:
    """The package laid out as it installs (pyproject's package-dir): citefix/ with tui/, store/ and prompts/ in it."""
    skip = shutil.ignore_patterns("__pycache__", "*.json", "*.txt", "*.md")
    pkg = dest / "citefix"
    shutil.copytree(ROOT / "citefix", pkg, ignore=skip)
    for sub in ("tui", "store", "prompts"):
        shutil.copytree(ROOT / sub, pkg / sub, ignore=skip)
    return dest


@pytest.fixture(scope="module")
def typed_tree(tmp_path_factory):
    """The installed layout with pyproject's [tool.mypy] settings as a mypy.ini, and one mypy cache for every run
    below: mypy checks the whole package once, and each "can fail" run after it re-checks only what it changed.

    Run from the repo root, mypy cannot follow the editable install to `citefix.store`, so there the core would see
    the store as untyped; laid out as it installs, the core is checked against the store's typed rows too
    (citefix.tui, not checked yet, is skipped)."""
    import tomllib

    base = tmp_path_factory.mktemp("typed")
    tree = installed_tree(base / "tree")
    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    config = base / "mypy.ini"
    config.write_text(f"[mypy]\npython_version = {mypy['python_version']}\n"
                      f"ignore_missing_imports = {mypy['ignore_missing_imports']}\n\n"
                      "[mypy-citefix.tui,citefix.tui.*]\nfollow_imports = skip\n"
                      + "".join(f"\n[mypy-{','.join(o['module'])}]\ndisable_error_code = {','.join(o['disable_error_code'])}\n"
                                for o in mypy.get("overrides", [])), encoding="utf-8")

    def run(*targets: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "mypy", "--config-file", str(config), "--exclude", "/tui/",
                               "--cache-dir", str(base / "cache"), *(targets or ("citefix",))],
                              cwd=tree, capture_output=True, text=True)

    return tree, run


def _changed(path: Path, edits: tuple[tuple[str, str], ...]):
    """`path` with `edits` made (each old text must be there); gives back the original text to restore."""
    text = path.read_text(encoding="utf-8")
    changed = text
    for old, new in edits:
        assert old in changed, old
        changed = changed.replace(old, new)
    path.write_text(changed, encoding="utf-8")
    return text


def test_mypy_core_passes(typed_tree):
    """`mypy` with the [tool.mypy] settings in pyproject.toml on the core package and the store, as installed, reports
    no error."""
    _, run = typed_tree
    out = run()
    assert out.returncode == 0, out.stdout + out.stderr
    assert "Success: no issues found" in out.stdout, out.stdout + out.stderr


def test_mypy_config_catches_a_type_error(typed_tree):
    """The same settings report a wrong type (a core name used wrongly), so the check above can fail."""
    tree, run = typed_tree
    bad = tree / "bad.py"
    bad.write_text("from citefix.models import Unit\n\nu: Unit = 'not a unit'\n")
    try:
        out = run("bad.py")
    finally:
        bad.unlink()
    assert out.returncode == 1, out.stdout + out.stderr
    assert "Incompatible types in assignment" in out.stdout, out.stdout + out.stderr


def test_mypy_covers_the_store():
    """The store is in the configured files (`mypy` run from the repo root checks store/ with the core)."""
    import tomllib

    files = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]["files"]
    assert "citefix" in files and "store" in files, files


def test_mypy_config_catches_a_type_error_in_the_store(typed_tree):
    """The same settings report a wrong annotation in the store, and a table read as `db[name]` (which sqlite-utils
    types as Table | View) instead of through the typed `_table`, so the store's check can fail."""
    tree, run = typed_tree
    init = tree / "citefix" / "store" / "__init__.py"
    original = _changed(init, (("def run(self, run_id: int) -> RunRow:", "def run(self, run_id: int) -> RoundRow:"),
                               ('self._table("runs").update(run_id, fields)', 'self.db["runs"].update(run_id, fields)')))
    try:
        out = run()
    finally:
        init.write_text(original, encoding="utf-8")
    assert out.returncode == 1, out.stdout + out.stderr
    store_errors = [line for line in out.stdout.splitlines() if ": error:" in line and "store/__init__.py" in line]
    text = "\n".join(store_errors)
    assert 'Incompatible return value type (got "RunRow", expected "RoundRow")' in text, out.stdout
    assert 'Item "View" of "Table | View" has no attribute "update"' in text, out.stdout
    assert '"RoundRow" has no attribute "case_pk"' in text, out.stdout  # case_for_run reads the wrong row
    assert len(store_errors) == 3, out.stdout  # and the unchanged rest of the store passes


def test_mypy_checks_the_core_against_the_store_rows(typed_tree):
    """A row column misspelt in a core module is an error: the core is checked against the store's typed rows."""
    tree, run = typed_tree
    export = tree / "citefix" / "export.py"
    original = _changed(export, (('f"- command: {run.command}"', 'f"- command: {run.commands}"'),))
    try:
        out = run()
    finally:
        export.write_text(original, encoding="utf-8")
    assert out.returncode == 1, out.stdout + out.stderr
    errors = [line for line in out.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 1 and 'export.py' in errors[0] and '"RunRow" has no attribute "commands"' in errors[0], \
        out.stdout


def test_import_contracts_hold(tmp_path):
    tree = installed_tree(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([_tool("lint-imports"), "--config", str(ROOT / "pyproject.toml"), "--no-cache"], cwd=tree,
                         env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
    assert "5 kept, 0 broken" in out.stdout


def test_import_contracts_catch_a_breach(tmp_path):
    """The contracts can fail: a core module that imports the TUI, Textual or sqlite_utils, a verifier that imports
    revision and revision that imports the pipeline builder break all five."""
    tree = installed_tree(tmp_path)
    (tree / "citefix" / "errors.py").write_text((ROOT / "citefix" / "errors.py").read_text()
                                                + "\nfrom citefix.tui import render  # noqa\nimport textual  # noqa\n"
                                                + "import sqlite_utils  # noqa\n")
    (tree / "citefix" / "verify" / "lexical.py").write_text((ROOT / "citefix" / "verify" / "lexical.py").read_text()
                                                            + "\nimport citefix.revision  # noqa\n")
    (tree / "citefix" / "revision" / "rounds.py").write_text((ROOT / "citefix" / "revision" / "rounds.py").read_text()
                                                             + "\nimport citefix.pipeline  # noqa\n")
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([_tool("lint-imports"), "--config", str(ROOT / "pyproject.toml"), "--no-cache"], cwd=tree,
                         env=env, capture_output=True, text=True)
    assert out.returncode != 0
    assert "0 kept, 5 broken" in out.stdout, out.stdout[-3000:]
    assert "citefix.revision.rounds -> citefix.pipeline" in out.stdout
