"""The wheel: built from this checkout offline (`pip wheel --no-deps --no-build-isolation`, the venv's setuptools),
it holds what the installed package needs at run time, under the names it is imported by: the prompts
(citefix/prompts/*.txt), the bundled examples, the data files (offline parameters, MiniLM IDF table, the entailment
model) and the store, TUI and prompts packages, which live in store/, tui/ and prompts/ in this checkout but install as
citefix.store, citefix.tui and citefix.prompts. Installed into a folder of its own, the package then loads a prompt, an
example and its data through its own loaders.

The build runs on a copy of the checkout's sources in a temporary folder, so it leaves no build/ or egg-info behind.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# checkout folder -> the package folder it installs as (pyproject's [tool.setuptools] package-dir)
PACKAGE_DIRS = {"citefix": "citefix", "store": "citefix/store", "tui": "citefix/tui", "prompts": "citefix/prompts"}


def _sources(dest: Path) -> Path:
    skip = shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, dest / name)
    for folder in PACKAGE_DIRS:
        shutil.copytree(ROOT / folder, dest / folder, ignore=skip)
    return dest


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    if importlib.util.find_spec("setuptools") is None:
        pytest.skip("setuptools is not installed in this environment, so the wheel cannot be built offline "
                    "(pip install setuptools)")
    src = _sources(tmp_path_factory.mktemp("src"))
    dist = tmp_path_factory.mktemp("dist")
    out = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                          "-w", str(dist), str(src)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    wheels = list(dist.glob("citefix-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_holds_prompts_examples_and_data(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = ([f"citefix/prompts/{p.name}" for p in (ROOT / "prompts").glob("*.txt")]
                + [f"citefix/examples/{p.name}" for p in (ROOT / "citefix" / "examples").glob("*.json")]
                + [f"citefix/data/{p.name}" for p in (ROOT / "citefix" / "data").glob("*.json")]
                + ["citefix/data/entail/entail.json", "citefix/data/entail/entail.safetensors"])
    # the checkout has them all (so the globs above cannot come up empty and pass)
    assert {"citefix/prompts/revise.txt", "citefix/examples/summary.json", "citefix/examples/cited_answer.json",
            "citefix/data/offline_params.json", "citefix/data/minilm_idf.json"} <= set(expected)
    missing = sorted(set(expected) - names)
    assert not missing, f"the wheel lacks {missing}"
    with zipfile.ZipFile(wheel) as zf:
        for name in ("citefix/data/entail/entail.safetensors", "citefix/examples/summary.json"):
            assert zf.getinfo(name).file_size == (ROOT / name).stat().st_size, name


def test_wheel_holds_every_module_under_its_installed_name(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f"{PACKAGE_DIRS[folder]}/{p.relative_to(ROOT / folder).as_posix()}"
                for folder in PACKAGE_DIRS for p in (ROOT / folder).rglob("*.py") if "__pycache__" not in p.parts}
    assert {"citefix/store/__init__.py", "citefix/store/migrations.py", "citefix/tui/__init__.py",
            "citefix/tui/app.py", "citefix/prompts/__init__.py"} <= expected
    missing = sorted(expected - names)
    assert not missing, f"the wheel lacks {missing}"
    checkout_only = ("store/", "tui/", "prompts/", "tests/", "bench/", "training/", "builders/")
    assert not any(n.startswith(checkout_only) for n in names), \
        "checkout folders must install under citefix.*, not as top-level packages (bench/, training/, builders/: never)"
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    assert "citefix = citefix.cli:main" in zipfile.ZipFile(wheel).read(entry_points).decode()


def test_installed_wheel_loads_its_prompts_examples_and_data(wheel, tmp_path):
    """Installed into a folder of its own (dependencies from this venv), citefix imports from there and finds its files
    through its own loaders, not through the checkout."""
    target = tmp_path / "site"
    out = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "--no-index", "--target", str(target),
                          str(wheel)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    probe = """
import json, sys
from importlib import resources
import citefix, citefix.store.migrations, citefix.tui, citefix.prompts
from citefix.inputs import example_path
from citefix.prompting import load_prompt
print(citefix.__file__)
print(citefix.store.migrations.__file__)
print(load_prompt("revise").name, bool(load_prompt("revise").messages))
print(example_path("summary").startswith(sys.argv[1]), bool(json.load(open(example_path("summary")))["text"]))
print(len(resources.files("citefix").joinpath("data/offline_params.json").read_text()) > 0)
print(resources.files("citefix").joinpath("data/entail/entail.safetensors").is_file())
"""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(target)
    out = subprocess.run([sys.executable, "-c", probe, str(target)], cwd=tmp_path, env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert lines[0].startswith(str(target)) and lines[1].startswith(str(target)), lines
    assert lines[2:] == ["revise True", "True True", "True", "True"], lines
