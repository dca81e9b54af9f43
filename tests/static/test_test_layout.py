"""The tests are laid out by what they test (tests/unit, offline, llm, refine, store, cli, tui); the shared helpers sit
in tests/ itself, and no test module imports another test module or conftest.py (a plugin pytest loads itself).

Run:  .venv/bin/python -m pytest -q -o addopts= tests/static
"""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).resolve().parent.parent
FOLDERS = {"unit", "offline", "llm", "refine", "store", "cli", "tui", "static"}
IMPORT = re.compile(r"^\s*(?:from\s+(test_\w+|conftest)\s+import|import\s+(test_\w+|conftest)\b)", re.M)


def imports_of_tests(root: Path = TESTS) -> list[str]:
    """Lines that import a test module or conftest, as "path: module"."""
    found = []
    for path in sorted(root.rglob("*.py")):
        for m in IMPORT.finditer(path.read_text(encoding="utf-8")):
            found.append(f"{path.relative_to(root).as_posix()}: {m[1] or m[2]}")
    return found



def test_every_test_module_sits_in_a_folder_named_for_what_it_tests():
    loose = sorted(p.name for p in TESTS.glob("test_*.py"))
    assert loose == [], f"move these into one of {sorted(FOLDERS)}: {loose}"
    folders = {p.parent.name for p in TESTS.rglob("test_*.py")}
    assert folders <= FOLDERS, folders - FOLDERS


def test_no_test_module_imports_another_or_conftest():
    assert imports_of_tests() == []


def test_the_import_check_finds_such_an_import(tmp_path):
    (tmp_path / "test_a.py").write_text("from conftest import helper\n", encoding="utf-8")
    (tmp_path / "test_b.py").write_text("import test_a\n", encoding="utf-8")
    assert imports_of_tests(tmp_path) == ["test_a.py: conftest", "test_b.py: test_a"]
