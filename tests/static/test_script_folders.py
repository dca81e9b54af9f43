"""The script folders of the checkout: bench/ (benchmarks and measurements), training/ (training and calibration of
what ships fitted) and builders/ (builders of the shipped data files). Each is a package (it has an __init__.py), so
its scripts run as `python -m FOLDER.SCRIPT` from the repository root and import each other, and the test helpers, as
packages (`from training.judge import ...`, `from tests.loopback import ...`): none of their files touches `sys.path`.
None of them ships in the wheel.

Run:  .venv/bin/python -m pytest -q -o addopts= tests/static
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent.parent
FOLDERS = ("bench", "training", "builders")


def sys_path_mentions(root: Path, folders=FOLDERS) -> list[str]:
    """Every line of a .py file under ``folders`` of ``root`` that mentions sys.path, as "path:line"."""
    found = []
    for folder in folders:
        for path in sorted((root / folder).rglob("*.py")):
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if "sys.path" in line:
                    found.append(f"{path.relative_to(root).as_posix()}:{n}")
    return found


@pytest.mark.parametrize("folder", FOLDERS)
def test_each_script_folder_is_a_package(folder):
    init = ROOT / folder / "__init__.py"
    assert init.is_file(), f"{folder}/ has no __init__.py: its scripts cannot run as `python -m {folder}.NAME`"
    assert init.read_text(encoding="utf-8").strip().startswith('"""'), f"{folder}/__init__.py: say what lives there"


def test_no_script_touches_sys_path():
    """Cross-imports are package imports run from the repository root, never a sys.path edit."""
    found = sys_path_mentions(ROOT)
    assert not found, "sys.path in a script; import as a package and run with `python -m`:\n" + "\n".join(found)


def test_the_sys_path_check_can_fail(tmp_path):
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "ok.py").write_text("from tests.loopback import LoopbackLLM\n", encoding="utf-8")
    (tmp_path / "bench" / "bad.py").write_text("import sys\nsys.path.insert(0, 'tests')\n", encoding="utf-8")
    assert sys_path_mentions(tmp_path, folders=("bench",)) == ["bench/bad.py:2"]


def test_no_script_folder_ships_in_the_wheel():
    """pyproject's package list (and its package-dir) names none of the script folders."""
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    named = list(setuptools["packages"]) + list(setuptools.get("package-dir", {}).values())
    shipped = [n for n in named if n.split(".")[0] in FOLDERS]
    assert not shipped, f"pyproject.toml ships {shipped}"
