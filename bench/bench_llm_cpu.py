"""CPU per LLM call in citefix's process: plain litellm and a litellm Router, one call at a time and at 16 in flight.

    .venv/bin/python -m bench.bench_llm_cpu [--calls 300] [--latency 0.02] [--concurrency 16] [--repeat 3]
                                            [--modes plain,router,router-priced]

The loopback servers (tests/loopback.py) run in their own processes, so the process CPU time measured here
(`time.process_time()` over the calls, warm-up excluded) is citefix's and litellm's own: unlike a throughput ratio it
hardly moves with the load other work puts on a shared machine. Modes: `plain` (litellm.completion to one server),
`router` (a Router over two servers, an unpriced model: cost unknown), `router-priced` (the same Router with
model_info declaring the deployments' price per token). Each figure is the median of `--repeat` measurements.
Measured (`--calls 300 --repeat 1 --modes plain,router`, 3 runs alternating with the commit before the Router's
unpriced deployments were declared free to litellm, citefix/llm/unpriced.py; 2 shared cores, load 3.8-4.6):
router 8.24/8.42/8.59 -> 6.87/6.47/7.84 ms one call at a time, 5.81/4.75/6.26 -> 4.27/3.85/4.76 ms at 16 in flight;
plain (unchanged code) 4.35-4.75 ms and 3.83-4.50 ms in both.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

MSG = [{"role": "user", "content": "Does the source support the claim? The depot closed in 1987."}]


def start_server(latency: float):
    import subprocess

    proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "loopback.py"), "0", str(latency)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # exits when stdin closes
    line = proc.stdout.readline().strip()
    if not line.startswith("serving on "):
        proc.kill()
        raise RuntimeError(f"loopback server did not start: {line!r}")
    return proc, line.removeprefix("serving on ")


def client_for(mode: str, urls: list[str], conc: int):
    from citefix.llm.client import LLMClient, litellm_transport
    from citefix.llm.router import router_transport, validate_router

    if mode == "plain":
        return LLMClient("openai/bench-model", transport=litellm_transport(api_base=urls[0]), concurrency=conc)
    price = {"input_cost_per_token": 1e-6, "output_cost_per_token": 2e-6} if mode == "router-priced" else {}
    table = validate_router({"cooldown_time": 30, "allowed_fails": 0, "model_list": [
        {"model_name": mode, "litellm_params": {"model": "openai/bench-model", "api_base": url,
                                                "api_key": "os.environ/OPENAI_API_KEY", "max_parallel_requests": conc},
         "model_info": {"id": f"{mode}-{i}", **price}} for i, url in enumerate(urls)]}, "bench")
    return LLMClient(mode, transport=router_transport(table), concurrency=conc)


def cpu_per_call(client, calls: int, conc: int) -> tuple[float, float]:
    """ms of process CPU per call and calls per second, `calls` calls at `conc` in flight (warm-up excluded)."""
    def one(i: int):
        return client.yes_probability([{"role": "user", "content": f"{MSG[0]['content']} ({i})"}], purpose="bench")

    client.map(one, range(max(conc, 4)))  # warm-up: imports, connections
    client.drain_calls()
    cpu0, t0 = time.process_time(), time.perf_counter()
    out = client.map(one, range(calls)) if conc > 1 else [one(i) for i in range(calls)]
    cpu, wall = time.process_time() - cpu0, time.perf_counter() - t0
    assert all(y.score is not None for y in out), "a call lost its score"
    recs = client.drain_calls()
    assert len(recs) == calls and all(r.status == "ok" for r in recs), "a call failed"
    return 1000 * cpu / calls, calls / wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--calls", type=int, default=300)
    ap.add_argument("--latency", type=float, default=0.02)
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--modes", default="plain,router,router-priced")
    args = ap.parse_args()
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-not-a-secret")
    print(f"python {sys.version.split()[0]}  cpus {os.cpu_count()}  load average {os.getloadavg()[0]:.1f}")
    servers = [start_server(args.latency) for _ in range(2)]
    urls = [u for _, u in servers]
    try:
        for mode in args.modes.split(","):
            for conc in (1, args.concurrency):
                client = client_for(mode, urls, conc)
                runs = [cpu_per_call(client, args.calls, conc) for _ in range(args.repeat)]
                cpu = statistics.median(r[0] for r in runs)
                rate = statistics.median(r[1] for r in runs)
                print(f"{mode:14s} {conc:2d} in flight: {cpu:.2f} ms CPU per call (runs "
                      f"{', '.join(f'{r[0]:.2f}' for r in runs)})   {rate:.0f} calls/s")
    finally:
        for proc, _ in servers:
            proc.stdin.close()
            proc.wait(timeout=10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
