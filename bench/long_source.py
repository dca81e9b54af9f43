"""Time `citefix check` (offline) on generated long sources: does the work grow linearly with the source?

Run: nice -n 10 .venv/bin/python -m bench.long_source --sizes 250000,500000,1000000 [--profile 1000000]
For each size (characters) it writes a source of varied news-style sentences (seeded, deterministic) and a short
summary to a temporary folder, runs `citefix check --source S --summary T --json --db X` as a subprocess and prints
size, words, wall seconds, seconds per 100k characters and the largest child's peak memory (sizes ascend). A
2,000-character run first measures the fixed cost (model loading), which the per-size rate subtracts. --profile SIZE
runs that size in-process under cProfile and prints the top functions by cumulative and by own time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NAMES = ["Anna Lee", "David Brown", "Maria Garcia", "Tom Okafor", "Priya Shah", "Jonas Berg", "Li Wei", "Sara Cohen"]
PLACES = ["the river", "the old depot", "the north bank", "the harbour", "the town centre", "the ring road", "the school"]
THINGS = ["bridge", "cycle lane", "library", "bus station", "flood wall", "market hall", "sports ground", "clinic"]
TEMPLATES = [
    "The council voted on {day} to approve a new {thing} near {place}, ending a debate that lasted {n} years.",
    "The {thing} will cost £{m}m and is expected to open in {month} {year}, according to {name}.",
    "{name} said the {thing} near {place} had been delayed by {n} months because of the weather.",
    "The project was approved by a vote of {n} to {k}, with {k} members absent.",
    "Critics led by {name} said the money for the {thing} should have been spent on {place}.",
    "Engineers plan to build the {thing} in {k} stages so that traffic near {place} is not interrupted.",
    "In {year}, {name} opened a smaller {thing} at {place}, which closed {n} years later.",
    "Local businesses near {place} said the {thing} would bring {m} thousand more visitors a year.",
]
MONTHS = ["January", "March", "May", "July", "September", "November"]
DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
SUMMARY = ("The council approved a new bridge near the river after a long debate. Anna Lee said it would open in "
           "March 2027 and cost £30m. Critics wanted the money spent on schools.")


def make_source(chars: int, seed: int = 0) -> str:
    rng = random.Random(seed)
    paras, para, size = [], [], 0
    while size < chars:
        s = rng.choice(TEMPLATES).format(day=rng.choice(DAYS), thing=rng.choice(THINGS), place=rng.choice(PLACES),
                                         n=rng.randint(2, 40), k=rng.randint(1, 9), m=rng.randint(2, 300),
                                         month=rng.choice(MONTHS), year=rng.randint(1950, 2030), name=rng.choice(NAMES))
        para.append(s)
        size += len(s) + 1
        if len(para) == 6:
            paras.append(" ".join(para))
            para = []
    if para:
        paras.append(" ".join(para))
    return "\n\n".join(paras)[:chars].rsplit(".", 1)[0] + "."


def write_inputs(folder: Path, chars: int) -> tuple[Path, Path]:
    src, summ = folder / f"source-{chars}.txt", folder / "summary.txt"
    src.write_text(make_source(chars), encoding="utf-8")
    summ.write_text(SUMMARY, encoding="utf-8")
    return src, summ


def time_check(src: Path, summ: Path, db: Path, extra: list[str] | None = None) -> tuple[float, dict, str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    env.pop("CITEFIX_LLM", None)
    cmd = [sys.executable, "-m", "citefix.cli", "check", "--source", str(src), "--summary", str(summ), "--json",
           "--db", str(db), *(extra or [])]
    t0 = time.perf_counter()
    r = subprocess.run(cmd, env=env, capture_output=True, text=True)
    took = time.perf_counter() - t0
    if r.returncode not in (0, 1):
        raise SystemExit(f"check failed (exit {r.returncode}): {r.stderr.strip()[-500:]}")
    return took, json.loads(r.stdout.splitlines()[0]), r.stderr


def profile(src: Path, summ: Path, db: Path, top: int = 25, dump: str | None = None) -> None:
    import cProfile
    import pstats

    from citefix.cli import main

    prof = cProfile.Profile()
    prof.enable()
    main(["check", "--source", str(src), "--summary", str(summ), "--json", "--db", str(db)])
    prof.disable()
    if dump:
        prof.dump_stats(dump)
    stats = pstats.Stats(prof, stream=sys.stderr)
    stats.sort_stats("cumulative").print_stats(top)
    stats.sort_stats("tottime").print_stats(top)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="250000,500000,1000000", help="source sizes in characters, comma-separated")
    ap.add_argument("--profile", type=int, metavar="SIZE", help="profile one size in-process instead")
    ap.add_argument("--dump", metavar="FILE", help="with --profile: also save the profile (pstats) here")
    ap.add_argument("--keep", metavar="DIR", help="write the inputs here (kept) instead of a temporary folder")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(args.keep or tmp)
        folder.mkdir(parents=True, exist_ok=True)
        if args.profile:
            src, summ = write_inputs(folder, args.profile)
            profile(src, summ, folder / "profile.db", dump=args.dump)
            return
        src, summ = write_inputs(folder, 2000)
        base, _, _ = time_check(src, summ, folder / "base.db")
        print(f"{'chars':>9} {'words':>8} {'wall s':>8} {'s/100k chars (wall - base)':>27} {'peak RSS MB':>12} score")
        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"{2000:>9} {len(src.read_text().split()):>8} {base:>8.1f} {'(base)':>27} {rss:>12.0f}")
        for chars in [int(x) for x in args.sizes.split(",")]:
            src, summ = write_inputs(folder, chars)
            took, res, _ = time_check(src, summ, folder / f"s{chars}.db")
            words = len(src.read_text(encoding="utf-8").split())
            rate = (took - base) / (chars / 100_000)
            rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the largest child so far: this one
            print(f"{chars:>9} {words:>8} {took:>8.1f} {rate:>27.2f} {rss:>12.0f} {res.get('score'):.3f}", flush=True)


if __name__ == "__main__":
    main()
