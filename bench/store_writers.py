"""Many processes writing one new store at once: TUI sessions, CLI checks and a holder of the write lock.

Run: nice -n 10 .venv/bin/python -m bench.store_writers --tui 4 --cases 20 --cli 2 --hold 5
Starts, at the same moment on one new SQLite file: `--tui` processes that each drive the TUI's session code
(tui/session.py Workbench and Session: check, edit, check, propose, accept, auto-refine, close) over `--cases` cases
with the scripted model of tests/refine_fakes.py; `--cli` offline `citefix check --example summary` processes; and a
connection that takes the write lock (BEGIN IMMEDIATE) once the schema exists and holds it for `--hold` seconds.
Prints: processes that crashed (non-zero exit or a traceback), runs stored and finished, runs with all their rounds,
PRAGMA integrity_check, and the wall time.
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

# the writer and lock-holder scripts are the suite's own (tests/store_helpers.py), run here at scale
from tests.store_helpers import HOLDER, TUI_WRITER

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tui", type=int, default=4, help="processes driving the TUI session code")
    ap.add_argument("--cases", type=int, default=20, help="cases (runs of 4 rounds) per TUI process")
    ap.add_argument("--cli", type=int, default=1, help="offline `citefix check` processes")
    ap.add_argument("--hold", type=float, default=5.0, help="seconds the lock holder keeps the write lock")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "shared.db"
        env = {**os.environ, "CITEFIX_HOME": str(Path(tmp) / "home"), "XDG_CONFIG_HOME": str(Path(tmp) / "config"),
               "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
        for var in ("CITEFIX_LLM", "CITEFIX_VERIFIER", "CITEFIX_DECOMPOSER", "CITEFIX_CONFIG"):
            env.pop(var, None)
        t0 = time.perf_counter()
        procs = [("holder", subprocess.Popen([sys.executable, "-c", HOLDER, str(db), str(args.hold)], env=env,
                                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))]
        procs += [(f"cli{k}", subprocess.Popen([sys.executable, "-m", "citefix.cli", "check", "--example", "summary",
                                                "--json", "--db", str(db)], env=env, stdout=subprocess.PIPE,
                                               stderr=subprocess.PIPE, text=True)) for k in range(args.cli)]
        procs += [(f"tui{k}", subprocess.Popen([sys.executable, "-c", TUI_WRITER, str(db), f"t{k}", str(args.cases),
                                                str(ROOT / "tests")], env=env, stdout=subprocess.PIPE,
                                               stderr=subprocess.PIPE, text=True)) for k in range(args.tui)]
        crashed, tui_runs = [], []
        for name, p in procs:
            out, err = p.communicate()
            if name == "holder" and "holding" not in out:
                crashed.append("holder: never took the write lock")
            if p.returncode != 0 or "Traceback" in err:
                crashed.append(f"{name}: exit {p.returncode}: {err.strip().splitlines()[-1] if err.strip() else ''}")
            elif name.startswith("tui"):
                tui_runs += json.loads(out)["runs"]
        wall = time.perf_counter() - t0
        with sqlite3.connect(db) as conn:
            n_runs, n_finished = conn.execute("select count(*), sum(status = 'finished') from runs").fetchone()
            complete = conn.execute(
                "select count(*) from (select r.id from runs r join rounds o on o.run_id = r.id where r.command = 'tui' "
                "group by r.id having count(*) = 4 and sum(o.status in ('done', 'edited') and o.score is not null) = 4)"
            ).fetchone()[0]
            integrity = conn.execute("pragma integrity_check").fetchone()[0]
    want = args.tui * args.cases + args.cli
    print(f"processes: {args.tui} TUI sessions × {args.cases} cases, {args.cli} CLI checks, a {args.hold:g} s lock holder")
    print(f"crashed: {len(crashed)}" + "".join(f"\n  {c}" for c in crashed))
    print(f"runs stored: {n_runs} of {want}; finished: {n_finished}; TUI runs with all 4 rounds complete: {complete} "
          f"of {args.tui * args.cases}")
    print(f"integrity_check: {integrity}; wall time: {wall:.1f} s")
    sys.exit(1 if crashed or n_finished != want or complete != args.tui * args.cases or integrity != "ok" else 0)


if __name__ == "__main__":
    main()
