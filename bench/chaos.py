"""Chaos bench: `citefix compare` (cases × strategies, an LLM reviser and judge) against a loopback provider that
fails a share of requests (429 with Retry-After, 500, dropped connection, cut-off JSON, empty choices, no message),
then once more fault-free on a fresh store for the wall-time baseline. Prints: runs, finished after the first pass and
after at most one rerun, rounds lost, partial rounds, partial rounds scored as complete, calls logged vs served, faults
absorbed by class, and wall time vs the fault-free run.

    python -m bench.chaos [--cases 27] [--strategies acu,critique,none] [--rate 0.3] [--rounds 2] [--seed 1]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from tests.loopback import LoopbackLLM, messages_responder
from tests.refine_fakes import FLAGGED, make_case, refine_responder

PIECES = ["the plan costs 5 million", "work takes two years", "the mayor chairs the board", "the council approved the plan",
          "the plan was approved on Monday", "the board is chaired by Ann Lee"]


def cases(n: int) -> list:
    out = []
    for i in range(n):
        k = 1 + i % (len(PIECES) - 1)
        chosen = [PIECES[(i + j) % len(PIECES)] for j in range(k + 1)]
        text = ", ".join(chosen).capitalize() + "."
        out.append(make_case(text, f"case-{i:02d}"))
    return out


def q(db: Path, sql: str) -> list:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


def compare(argv: list[str]) -> int:
    from citefix.cli import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        return main(argv)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--cases", type=int, default=27)
    ap.add_argument("--strategies", default="acu,critique,none")
    ap.add_argument("--rate", type=float, default=0.3)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    os.environ["OPENAI_API_KEY"] = "sk-chaos-bench-0000"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        os.environ["CITEFIX_HOME"] = str(tmp / "home")
        os.environ["XDG_CONFIG_HOME"] = str(tmp / "config")
        path = tmp / "cases.jsonl"
        path.write_text("\n".join(c.model_dump_json() for c in cases(args.cases)) + "\n", encoding="utf-8")

        def argv(db: Path, out: str) -> list[str]:
            return ["compare", str(path), "--strategies", args.strategies, "--rounds", str(args.rounds), "--report",
                    str(tmp / out), "--llm", "openai/test-model", "--reviser", "llm", "--db", str(db),
                    "--llm-backoff-max", "0.05", "--llm-timeout", "10", "--concurrency", "4"]

        results = {}
        with LoopbackLLM(messages_responder(refine_responder(FLAGGED))) as srv:  # warm-up: imports, not timed
            os.environ["OPENAI_API_BASE"] = srv.base_url
            compare(argv(tmp / "warm.db", "warm-out")[:1] + [str(path), "--limit", "1"] + argv(tmp / "warm.db", "w")[2:])
        for label, rate in (("fault-free", 0.0), ("chaos", args.rate)):
            db = tmp / f"{label}.db"
            with LoopbackLLM(messages_responder(refine_responder(FLAGGED)), max_requests=10_000_000) as srv:
                os.environ["OPENAI_API_BASE"] = srv.base_url
                if rate:
                    srv.chaos(rate, seed=args.seed)
                started = time.monotonic()
                codes = [compare(argv(db, f"{label}-out"))]
                first_pass = q(db, "select count(*) from runs where status = 'finished'")[0][0]
                if codes[0] == 3:
                    codes.append(compare(argv(db, f"{label}-out")))
                wall = time.monotonic() - started
                results[label] = dict(codes=codes, wall=wall, served=srv.stats.requests, faults=len(srv.stats.faults),
                                      first_pass=first_pass, db=db)
        c, f = results["chaos"], results["fault-free"]
        db = c["db"]
        n_runs = q(db, "select count(*) from runs")[0][0]
        finished = q(db, "select count(*) from runs where status = 'finished'")[0][0]
        expected = args.cases * len(args.strategies.split(","))
        rounds_chaos = q(db, "select count(*) from rounds where accepted = 1")[0][0]
        rounds_free = q(f["db"], "select count(*) from rounds where accepted = 1")[0][0]
        gaps = sum(1 for (rid,) in q(db, "select id from runs")
                   if [n for (n,) in q(db, f"select n from rounds where run_id = {rid} order by n")]
                   != list(range(q(db, f"select count(*) from rounds where run_id = {rid}")[0][0])))
        partial = q(db, "select count(*) from rounds where status = 'partial'")[0][0]
        partial_scored = q(db, "select count(*) from runs r join rounds x on x.run_id = r.id and x.n = r.best_round "
                               "where x.status = 'partial'")[0][0]
        logged = q(db, "select count(*) from calls where cached = 0")[0][0]
        by_class = dict(q(db, "select error_class, count(*) from calls where status in ('retried', 'error') group by 1"))
        print(f"cases × strategies: {args.cases} × {args.strategies} = {expected} runs; fault rate {args.rate:.0%} "
              f"(seed {args.seed}); rounds {args.rounds}")
        print(f"runs stored: {n_runs}; finished after the first pass: {c['first_pass']}; after at most one rerun: "
              f"{finished}; exit codes: {c['codes']}")
        print(f"rounds: {rounds_chaos} accepted under chaos vs {rounds_free} fault-free; runs with a gap in their "
              f"rounds (rounds lost): {gaps}")
        print(f"partial rounds stored: {partial}; partial rounds scored as a run's best: {partial_scored}")
        print(f"calls logged (not cached): {logged}; requests served: {c['served']}; faults injected: {c['faults']}; "
              f"absorbed by class: {by_class}")
        print(f"wall time: {c['wall']:.1f} s under chaos vs {f['wall']:.1f} s fault-free "
              f"({c['wall'] / max(f['wall'], 1e-9):.2f}×); fault-free requests: {f['served']}")
        ok = finished == expected and gaps == 0 and partial_scored == 0 and logged == c["served"]
        return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
