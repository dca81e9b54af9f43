"""How `citefix check` scales with the number of cases: per-case time, peak RSS and encoder work, for 1, 10, 100 and
1,000 cases, one case at a time (serial), with the sources of 16 cases analysed in one batched pass (batched, the
default), in local worker processes (workers: `--workers N`) and on Ray workers (ray).

    .venv/bin/python -m bench.bench_scale                                  # sizes 1,10,100,1000; serial, batched
    .venv/bin/python -m bench.bench_scale --sizes 1,10,100 --modes serial,batched,ray
    .venv/bin/python -m bench.bench_scale --sizes 100,1000 --modes batched,workers --workers 2 --precision bf16
    .venv/bin/python -m bench.bench_scale --data a.jsonl --data b.jsonl    # other case files (any format check reads)

Each (mode, size) is one `citefix check FILE --json --fresh` in a fresh process with its own store, run through this
script's --child wrapper, which counts the encoder's calls (each a list of texts encoded in length-sorted batches) and
the texts it encodes (the product code is not changed); the time per case includes loading the models once;
peak RSS is that process's (os.wait4); "all processes" is the peak of the summed RSS of the process and everything it
started (sampled from /proc every 0.2 s: the driver, its worker processes, Ray's processes). workers and Ray: no
encoder counts (the encoders live in the workers). `--precision` passes the setting to every mode. Cases come from the summary sets beside the checkout (XSumFaith val, SummEval:
538 distinct cases; ../shared/data, or --data); past their number, cases repeat under new ids (their sources then come from the
source cache, so the largest size is a lower bound on the per-case time of distinct cases; the script says how many
were distinct). Without data files (a fresh clone without ../shared/data) the bundled examples are repeated, and the
script says so. Speed is a ratio in one run: compare the rows, not machines.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
DEFAULT_DATA = [DATA / "xsumfaith" / "xsumfaith_val_balanced.jsonl", DATA / "summeval" / "summeval_balanced_300.jsonl"]
MODES = ("serial", "batched", "workers", "ray")


def load_cases(paths: list[Path]) -> tuple[list[dict], str]:
    """Distinct cases from the files (records that do not load as cases are left out), and where they came from."""
    from citefix.errors import InputError
    from citefix.inputs import _adapt, _build  # noqa: PLC2701 - record by record, skipping the broken ones

    out: list[dict] = []
    used = []
    for path in paths:
        if not path.is_file():
            continue
        used.append(path.name)
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                try:
                    case = _build(_adapt(json.loads(line), str(path), lineno, None), str(path), lineno)
                except (InputError, ValueError):
                    continue
                out.append(case.model_dump(mode="json"))
    if out:
        return out, ", ".join(used)
    from importlib import resources

    ex = json.loads(resources.files("citefix").joinpath("examples/summary.json").read_text())
    return [ex], "the bundled summary example (no data files found: give --data)"


def write_cases(pool: list[dict], n: int, path: Path) -> int:
    """n cases cycled from the pool under distinct ids; returns how many distinct (text, sources) there are."""
    seen = set()
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            c = dict(pool[i % len(pool)])
            c["id"] = f"scale-{i:05d}-{c.get('id', '')}"
            seen.add(hashlib.sha256(json.dumps([c["text"], c["sources"]], sort_keys=True).encode()).hexdigest())
            f.write(json.dumps(c, ensure_ascii=False) + "\n")
    return len(seen)


def child(argv: list[str]) -> None:
    """Run `citefix check ARGV` in this process with the encoder's calls counted; the counts go to $BENCH_STATS."""
    stats_path = os.environ["BENCH_STATS"]
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import citefix.encoder as enc
    import citefix.verify.offline as off

    if os.environ.get("BENCH_SERIAL") == "1":
        off.PREFETCH_WINDOW = 1  # each case's sources analysed on their own (read by `check` at call time)
    counts = {"calls": 0, "texts": 0, "distinct": set()}

    def counted(fn):
        def wrap(self, texts, *a, **kw):
            if texts:
                counts["calls"] += 1  # one encoder call: the texts go through MiniLM in length-sorted batches
                counts["texts"] += len(texts)
                counts["distinct"].update(hashlib.sha1(t.encode()).hexdigest() for t in texts)
            return fn(self, texts, *a, **kw)
        return wrap

    # the offline verifier's own encoding path (sources, units) and the Encoder's public methods (other callers)
    off.OfflineVerifier._encode = counted(off.OfflineVerifier._encode)
    enc.Encoder.encode_tokens = counted(enc.Encoder.encode_tokens)
    enc.Encoder.encode_sentences = counted(enc.Encoder.encode_sentences)
    from citefix.cli import main as cli_main

    rc = 0
    t0 = time.perf_counter()
    try:
        rc = int(cli_main(["check", *argv]) or 0)
    except SystemExit as exc:
        rc = int(exc.code or 0)
    wall = time.perf_counter() - t0
    Path(stats_path).write_text(json.dumps({"rc": rc, "wall": wall, "calls": counts["calls"], "texts": counts["texts"],
                                            "distinct": len(counts["distinct"])}))
    sys.exit(rc)


def _tree_rss(pid: int) -> int:
    """Summed RSS (bytes) of process `pid` and all its descendants, from /proc (0 where /proc cannot be read)."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            fields = stat[stat.rindex(")") + 2:].split()
            children.setdefault(int(fields[1]), []).append(int(entry.name))
            rss[int(entry.name)] = int(fields[21]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, ValueError, IndexError):
            continue
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += rss.get(p, 0)
        todo.extend(children.get(p, []))
    return total


def run_one(mode: str, cases: Path, n: int, tmp: Path, workers: int, precision: str | None = None) -> dict:
    stats = tmp / f"stats-{mode}-{n}.json"
    db = tmp / f"store-{mode}-{n}.db"
    out = tmp / f"out-{mode}-{n}.jsonl"
    argv = [str(cases), "--json", "--fresh", "--no-progress", "--db", str(db)]
    if mode == "ray":
        argv += ["--executor", "ray", "--ray-workers", str(workers)]
    if mode == "workers":
        argv += ["--workers", str(workers)]
    if precision:
        argv += ["--precision", precision]
    env = dict(os.environ, BENCH_STATS=str(stats), BENCH_SERIAL="1" if mode == "serial" else "0")
    t0 = time.perf_counter()
    with open(out, "w") as fo, open(tmp / f"err-{mode}-{n}.txt", "w") as fe:
        proc = subprocess.Popen([sys.executable, "-m", "bench.bench_scale", "--child", *argv], stdout=fo,
                                stderr=fe, env=env, cwd=ROOT)
        peak = 0
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            peak = max(peak, _tree_rss(proc.pid))
            time.sleep(0.2)
    wall = time.perf_counter() - t0
    rc = os.waitstatus_to_exitcode(status)
    st = json.loads(stats.read_text()) if stats.is_file() else {}
    scores = [json.loads(line).get("score") for line in out.read_text().splitlines() if line.strip().startswith("{")]
    return {"mode": mode, "n": n, "rc": rc, "process_s": wall, "check_s": st.get("wall"), "rss_mb": usage.ru_maxrss / 1024,
            "tree_rss_mb": peak / 2**20,
            "calls": st.get("calls"), "texts": st.get("texts"), "distinct_texts": st.get("distinct"), "scores": scores,
            "stderr_tail": (tmp / f"err-{mode}-{n}.txt").read_text()[-400:] if rc else ""}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2:])
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1,10,100,1000")
    ap.add_argument("--modes", default="serial,batched", help=f"comma-separated, of {', '.join(MODES)}")
    ap.add_argument("--data", action="append", type=Path, help="case files (default: XSumFaith val, SummEval)")
    ap.add_argument("--ray-workers", "--workers", dest="workers", type=int, default=2,
                    help="worker processes (workers) or Ray actors (ray); default 2")
    ap.add_argument("--precision", choices=("fp32", "bf16"), help="the encoder's precision in every mode")
    ap.add_argument("--json", type=Path, help="also write the rows to this file")
    args = ap.parse_args()
    modes = [m for m in args.modes.split(",") if m]
    bad = [m for m in modes if m not in MODES]
    if bad:
        ap.error(f"--modes: unknown {', '.join(bad)}; use {', '.join(MODES)}")
    sizes = [int(x) for x in args.sizes.split(",") if x]
    pool, origin = load_cases(args.data or DEFAULT_DATA)
    print(f"cases from {origin}: {len(pool)} distinct")
    print(f"torch threads: {os.environ.get('CITEFIX_TORCH_THREADS', 'citefix policy')}, python {sys.version.split()[0]}")
    rows = []
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        print("| mode | cases | distinct | s per case (check) | process s | peak RSS MB | all processes MB | "
              "encoder calls per case | texts encoded per distinct text | rc |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        for n in sizes:
            path = tmp / f"cases-{n}.jsonl"
            distinct = write_cases(pool, n, path)
            for mode in modes:
                r = run_one(mode, path, n, tmp, args.workers, args.precision)
                r["distinct_cases"] = distinct
                rows.append(r)
                per = f"{r['check_s'] / n:.3f}" if r["check_s"] else "—"
                local = mode in ("serial", "batched")
                calls = f"{r['calls'] / n:.2f}" if r["calls"] is not None and local else "—"
                ratio = (f"{r['texts'] / r['distinct_texts']:.2f}" if r["texts"] and r["distinct_texts"] and local
                         else "—")
                print(f"| {mode} | {n} | {distinct} | {per} | {r['process_s']:.1f} | {r['rss_mb']:.0f} | "
                      f"{r['tree_rss_mb']:.0f} | {calls} | {ratio} | {r['rc']} |", flush=True)
                if r["rc"] not in (0, 1):
                    print(f"  {mode} {n}: exit {r['rc']}: {r['stderr_tail']}", flush=True)
        for n in sizes:
            by = {r["mode"]: r for r in rows if r["n"] == n}
            by = {m: r for m, r in by.items() if r["rc"] in (0, 1)}  # a failed run has no time to compare
            if "serial" in by and "batched" in by and by["serial"]["check_s"] and by["batched"]["check_s"]:
                print(f"{n} cases: batched / serial time {by['batched']['check_s'] / by['serial']['check_s']:.2f}")
            for other in ("workers", "ray"):
                if other in by and "batched" in by and by[other]["check_s"] and by["batched"]["check_s"]:
                    a, b = by[other]["scores"], by["batched"]["scores"]
                    diff = (max((abs(x - y) for x, y in zip(a, b) if x is not None and y is not None), default=0.0)
                            if len(a) == len(b) else float("inf"))
                    print(f"{n} cases: {other} / local (batched) time "
                          f"{by[other]['check_s'] / by['batched']['check_s']:.2f}; {len(a)} vs {len(b)} scores, "
                          f"largest difference {diff:.1e}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
