"""--executor ray: cases evaluated on Ray worker actors (a local 2-CPU instance), the store written by the
driver alone; the same scores and stored results as --executor local. Skipped when Ray is not installed."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from cli_helpers import cli, cli_process
from executor_helpers import TEXTS, cases_file, labels_file, stored_runs, without_timings
from helpers import rows


@pytest.mark.slow
def test_ray_executor_prints_and_stores_what_the_local_executor_does(tmp_path):
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'citefix[ray]'); the Ray executor is optional")
    path = cases_file(tmp_path)
    # one torch thread, as each Ray worker has (one CPU per actor): with two, sums run in another order and scores
    # differ in the 8th decimal
    local = cli("check", str(path), "--json", "--db", str(tmp_path / "local.db"), tmp_path=tmp_path,
                extra_env={"OMP_NUM_THREADS": "1"})
    assert local.returncode == 0, local.stderr
    ray_run = cli("check", str(path), "--json", "--executor", "ray", "--ray-workers", "2",
                  "--db", str(tmp_path / "ray.db"), tmp_path=tmp_path, extra_env={"RAY_ADDRESS": ""})
    assert ray_run.returncode == 0, ray_run.stderr
    assert "starting Ray workers" in ray_run.stderr and "Traceback" not in ray_run.stderr
    a = [json.loads(ln) for ln in local.stdout.splitlines()]
    b = [json.loads(ln) for ln in ray_run.stdout.splitlines()]
    assert len(b) == len(TEXTS) and [r["case_id"] for r in b] == [r["case_id"] for r in a]
    assert [r["score"] for r in b] == [r["score"] for r in a]
    assert [[(v["unit_id"], v["score"], v["label"]) for v in r["verdicts"]] for r in b] == \
        [[(v["unit_id"], v["score"], v["label"]) for v in r["verdicts"]] for r in a]
    # the driver wrote the same runs, rounds, units and verdicts (the twin case c4 reuses c0's stored result both ways)
    assert stored_runs(tmp_path / "ray.db") == stored_runs(tmp_path / "local.db")
    assert len(rows(tmp_path / "ray.db", "select * from runs")) == len(TEXTS) - 1
    # a batch run again with Ray reuses every stored result, as the local executor does
    again = cli("check", str(path), "--json", "--executor", "ray", "--ray-workers", "2",
                "--db", str(tmp_path / "ray.db"), tmp_path=tmp_path, extra_env={"RAY_ADDRESS": ""})
    assert again.returncode == 0, again.stderr
    assert f"{len(TEXTS)} of {len(TEXTS)} cases reused" in again.stderr
    assert [json.loads(ln)["score"] for ln in again.stdout.splitlines()] == [r["score"] for r in a]


def _ray_blocker(tmp_path):
    """A folder whose sitecustomize.py hides Ray from every Python started with it on PYTHONPATH."""
    blocker = tmp_path / "noray"
    blocker.mkdir()
    (blocker / "sitecustomize.py").write_text(
        "import sys\n"
        "class _NoRay:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'ray' or name.startswith('ray.'):\n"
        "            raise ImportError('No module named ray')\n"
        "sys.meta_path.insert(0, _NoRay())\n")
    return blocker


def test_executor_ray_without_ray_is_a_clear_error(tmp_path):
    """With Ray hidden (a module finder that refuses it), --executor ray exits 2 with one line saying how to get it."""
    path = cases_file(tmp_path)
    blocker = _ray_blocker(tmp_path)
    env = {"PYTHONPATH": os.pathsep.join([str(blocker), os.environ.get("PYTHONPATH", "")])}
    r = cli_process("check", str(path), "--executor", "ray", "--db", str(tmp_path / "x.db"), tmp_path=tmp_path, extra_env=env)
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "citefix[ray]" in lines[0] and "--executor local" in lines[0]
    assert not (tmp_path / "x.db").exists()  # refused before anything was loaded or stored


@pytest.mark.parametrize("args, needle", [
    (["--ray-address", "auto"], "--ray-address needs --executor ray"),
    (["--ray-workers", "2"], "--ray-workers needs --executor ray"),
])
def test_ray_flags_need_the_ray_executor(tmp_path, args, needle):
    r = cli("check", str(cases_file(tmp_path)), *args, "--db", str(tmp_path / "x.db"), tmp_path=tmp_path)
    assert r.returncode == 2 and needle in r.stderr, r.stderr


def test_sitecustomize_blocker_really_hides_ray(tmp_path):
    """The blocker above must hide an installed Ray too, or the no-Ray test would prove nothing where Ray exists."""
    blocker = _ray_blocker(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(blocker)}
    r = subprocess.run([sys.executable, "-c", "import ray"], capture_output=True, text=True, env=env)
    assert r.returncode != 0 and "No module named ray" in r.stderr


@pytest.mark.slow
def test_ray_meta_eval_gives_the_local_statistics(tmp_path):
    pytest.importorskip("ray", reason="Ray is not installed (pip install 'citefix[ray]'); the Ray executor is optional")
    path, n = labels_file(tmp_path)
    common = ["meta-eval", str(path), "--verifier", "offline,lexical", "--bootstrap", "50", "--json", "--no-store"]
    local = cli(*common, tmp_path=tmp_path)
    ray_run = cli(*common, "--executor", "ray", "--ray-workers", "2", tmp_path=tmp_path, extra_env={"RAY_ADDRESS": ""})
    assert local.returncode == 0, local.stderr
    assert ray_run.returncode == 0, ray_run.stderr
    assert "starting Ray workers" in ray_run.stderr and "Traceback" not in ray_run.stderr
    a, b = without_timings(local.stdout), without_timings(ray_run.stdout)
    assert b["scores"] == a["scores"] and b["stats"] == a["stats"] and b == a
    assert len(b["scores"]) == 2 * n
