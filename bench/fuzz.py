"""Fuzz citefix's inputs: N generated bad inputs across every command and input kind (tests/fuzzgen.py), each run
through the real CLI entry point. Prints: inputs, exit codes, tracebacks, hangs past the limit, exit-2 messages that
name no input, the slowest input, and each problem (at most 20).

    python -m bench.fuzz [N=10000] [--seed 0] [--limit-s 60]

In-process (citefix.cli.main, one interpreter, models loaded once) so 10,000 inputs take minutes, not hours; the
per-input limit is a SIGALRM, so a hang is reported, not waited out.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from tests.fuzzgen import generate, run_in_process


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("n", nargs="?", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--limit-s", type=int, default=60)
    args = ap.parse_args()
    import citefix.llm.client as client

    client.ALLOW_REMOTE_REQUESTS = False  # a fuzzed model string never reaches a remote provider
    for var in ("CITEFIX_LLM", "CITEFIX_VERIFIER", "CITEFIX_DECOMPOSER", "OPENAI_API_BASE", "OPENAI_BASE_URL"):
        os.environ.pop(var, None)
    codes, kinds, problems = Counter(), Counter(), []
    tracebacks = hangs = unnamed = 0
    slowest = (0.0, None)
    started = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["XDG_CONFIG_HOME"] = str(Path(tmp) / "config")
        for i, inp in enumerate(generate(args.n, seed=args.seed)):
            folder = Path(tmp) / f"f{i}"
            folder.mkdir()
            out = run_in_process(inp, folder, limit_s=args.limit_s)
            codes[out.rc] += 1
            kinds[inp.kind] += 1
            if out.seconds > slowest[0]:
                slowest = (out.seconds, inp.argv)
            why = out.problem(inp)
            if out.rc == -1:
                hangs += 1
            if why == "traceback":
                tracebacks += 1
            if why and why.startswith("exit-2 message"):
                unnamed += 1
            if why:
                problems.append(f"{inp.kind} {inp.argv} {inp.env}: {why} | {out.stderr.strip().splitlines()[-1:]}")
            if (i + 1) % 1000 == 0:
                print(f"… {i + 1} inputs, {len(problems)} problems, {time.monotonic() - started:.0f} s", file=sys.stderr)
    print(f"inputs: {args.n} (seed {args.seed}) in {time.monotonic() - started:.0f} s; kinds: {dict(sorted(kinds.items()))}")
    print(f"exit codes: {dict(sorted(codes.items()))}")
    print(f"tracebacks: {tracebacks}; hangs past {args.limit_s} s: {hangs}; exit-2 messages naming no input: {unnamed}; "
          f"undocumented exit codes: {sum(v for k, v in codes.items() if k not in (0, 1, 2, 3, 4))}")
    print(f"slowest input: {slowest[0]:.1f} s {slowest[1]}")
    for p in problems[:20]:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
