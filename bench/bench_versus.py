"""Time `citefix check CASES --json --fresh` of this checkout against an earlier commit, in one run, as a ratio.

    .venv/bin/python -m bench.bench_versus --ref 8bd246d --cases cases.jsonl [--repeats 2]

The earlier commit's tree is taken with `git archive` and laid out as the package installs (tui/, store/ and prompts/
inside citefix/), then each side runs in a fresh process with this venv's Python — the ref through PYTHONPATH, this
checkout through its editable install — alternately (ref, head, ref, head, …) so that both share the machine's noise.
Printed: per side and run the wall time of the whole file and of its first case alone (`--limit 1`: start-up, model
loading and one case), the time per further case, (wall(N) − wall(1)) / (N − 1), and the median ratio ref / head.
(Progress lines cannot mark the end of loading: this checkout analyses the sources of 16 cases in one pass first.) Nothing is set for threads: each side does what it does by
default (this checkout measures its torch thread count, citefix/threads.py; an earlier commit may not).

`--head-args '--workers 2'` (repeatable) adds this checkout run with those check options as one more side, timed in the
same alternation. 8bd246d is the last commit with the serial path (before the async model calls, worker processes and
lower precision), the reference the speed goal ("≥ 2× faster per case") is measured against.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _tree(ref: str, dest: Path) -> Path:
    """The ref's package laid out as it installs, under dest/tree."""
    src = dest / "src"
    src.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", ref], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    tree = dest / "tree"
    shutil.copytree(src / "citefix", tree / "citefix")
    for sub in ("tui", "store", "prompts"):
        if (src / sub).is_dir():
            shutil.copytree(src / sub, tree / "citefix" / sub)
    return tree


def _run(cases: Path, db: Path, tree: Path | None, limit: int | None = None,
         extra: list[str] | None = None) -> tuple[float, int]:
    """(wall seconds, cases checked) of one fresh check process."""
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    if tree is not None:
        env["PYTHONPATH"] = str(tree)
    code = ("import sys, citefix; sys.stderr.write('citefix from ' + citefix.__file__ + '\\n'); "
            "from citefix.cli import main; sys.argv = ['citefix'] + sys.argv[1:]; main()")
    argv = [sys.executable, "-c", code, "check", str(cases), "--json", "--fresh", "--db", str(db)]
    if limit:
        argv += ["--limit", str(limit)]
    argv += extra or []
    t0 = time.perf_counter()
    proc = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=db.parent)
    wall = time.perf_counter() - t0
    lines = proc.stderr.splitlines()
    origin = next((x for x in lines if x.startswith("citefix from ")), "")
    n = sum(1 for x in lines if x.startswith("[") and "/" in x.split("]")[0])
    if limit == 1 and proc.returncode == 0:
        n = 1  # one case prints no progress line
    if proc.returncode != 0 or n == 0:
        raise SystemExit(f"bench_versus: the check exited {proc.returncode} after {n} cases ({origin}): {lines[-1:]}")
    expected = str(tree) if tree is not None else str(ROOT)
    if expected not in origin:
        raise SystemExit(f"bench_versus: ran the wrong code ({origin}, expected under {expected})")
    return wall, n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ref", required=True, help="the earlier commit to compare with")
    ap.add_argument("--cases", required=True, type=Path, help="a case file (.jsonl), e.g. 100 XSumFaith records")
    ap.add_argument("--repeats", type=int, default=2, help="runs per side (alternating; default 2)")
    ap.add_argument("--head-args", action="append", default=[], metavar="ARGS",
                    help="also time this checkout with these extra check options (e.g. '--workers 2' or "
                         "'--precision bf16'), as one more side; repeatable")
    args = ap.parse_args()
    cases = args.cases.resolve()
    with tempfile.TemporaryDirectory(prefix="citefix-versus-") as tmp:
        tree = _tree(args.ref, Path(tmp) / "ref")
        sides: list[tuple[str, Path | None, list[str]]] = [("ref", tree, []), ("head", None, [])]
        sides += [(f"head {a}", None, shlex.split(a)) for a in args.head_args]
        per: dict[str, list[float]] = {name: [] for name, _, _ in sides}
        for k in range(args.repeats):
            for j, (side, t, extra) in enumerate(sides):
                one, _ = _run(cases, Path(tmp) / f"{j}-{k}-one.db", t, limit=1, extra=extra)
                wall, n = _run(cases, Path(tmp) / f"{j}-{k}.db", t, extra=extra)
                if n < 2:
                    raise SystemExit("bench_versus: the case file needs at least 2 cases")
                per_case = (wall - one) / (n - 1)
                per[side].append(per_case)
                print(f"{side} run {k + 1}: {n} cases, wall {wall:.1f} s, first case alone {one:.1f} s, "
                      f"{per_case:.3f} s per further case", flush=True)
        ref = statistics.median(per["ref"])
        print(f"\nmedian s per further case: ref {args.ref} {ref:.3f}")
        for side, _, _ in sides[1:]:
            head = statistics.median(per[side])
            print(f"  {side}: {head:.3f}; ref / {side} = {ref / head:.2f}")


if __name__ == "__main__":
    main()
