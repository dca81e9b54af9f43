"""Many model servers: the LLM judge through a litellm Router over two loopback servers, one failing a share of its
requests, against the healthy server alone.

    .venv/bin/python -m bench.bench_router [--latency 0.2] [--fail 0.3] [--concurrency 16] [--units 320]

Both servers (tests/loopback.py, each in its own process) answer after `--latency` seconds; the second answers 500 to
`--fail` of its requests (reproducibly). citefix's client runs `--concurrency` calls at once; each deployment has
max_parallel_requests = concurrency, litellm cools a deployment down after a failure (allowed_fails 0, 30 s) and
citefix retries the failed call (its own backoff, defaults). Prints ACUs verified per second, the ratio to the ideal
of the healthy server alone (concurrency / latency), units lost (no score), and which deployment answered how many
calls, as the call log records them, and this process's CPU per call. Goal: >= 0.9 of the ideal, 0 lost.
Measured (6 runs, 2 shared cores, load 1.3-2.8): 0.78-0.86 through the Router, 0.87-0.90 for the healthy server alone
through plain litellm, 0 lost; litellm's own CPU per call is what is left (README, "Many model servers"). With the
deployments of a model litellm has no price for declared free to it (citefix/llm/unpriced.py), 3 runs alternating with
the commit before (load 2.9-3.4): 0.86-0.87 at 5.6-6.1 ms CPU a call, against 0.80-0.81 at 6.9-7.8 ms.
With plain calls on litellm's async path (citefix/llm/aio.py) and a model litellm has no entry for entered at $0 in
its price table (citefix/llm/unpriced.py), `bench_router.py --units 640`, 4 runs alternating with the commit before
(7c0faff), load 2.8-4.6: the healthy server alone 0.88-0.93 at 5.5-6.9 ms CPU a call, against 0.81-0.90 at
5.9-8.2 ms; through the Router (its code unchanged) 0.81-0.86 against 0.81-0.88, 0 lost in every run. No call here
waits for a slot (each deployment has `concurrency` of them): litellm refused none with "max_parallel_requests slots
in use" in 3 runs counted, so RouterTransport's 20 ms wait-and-ask-again costs nothing in this benchmark.
A second line times the same calls through litellm.acompletion alone (one event loop, no citefix code: no worker
threads, prompts, retries or call log), litellm's own ceiling at that moment; a last line does the same through a
fresh Router built from the same table. 4 runs on a quiet machine (load 0.2-0.7, 2026-11-24): citefix 0.89 / 0.92 /
0.89 / 0.89 of the ideal, litellm alone 0.91 / 0.93 / 0.89 / 0.89; through the Router citefix 0.87 / 0.88 / 0.84 /
0.83 and the Router alone (last 2 runs) 0.87 / 0.85, 0 lost. A raw aiohttp client (no litellm) reaches 0.98 against
the same server: litellm's 5-7 ms of CPU per call on one core, not citefix's code, keeps the plain path under 0.95
and the Router's under 0.9.
A third line times the healthy server alone through citefix's direct transport (citefix/llm/direct.py: one aiohttp
POST per call on citefix's event loop, no litellm), in the same run. `--units 640`, 2 runs (load 1.2-1.6): 0.96 / 0.97
of the ideal at 0.8 / 1.0 ms CPU a call, against 0.94 / 0.94 through litellm (4.0 ms) and 0.93 / 0.93 for litellm
alone; through the Router 0.91 / 0.92, the Router alone 0.91 / 0.90, 0 lost.
"""

from __future__ import annotations

import argparse
import collections
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def start_server(latency: float, fail: float):
    import subprocess

    proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "loopback.py"), "0", str(latency), str(fail)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # exits when stdin closes
    line = proc.stdout.readline().strip()
    if not line.startswith("serving on "):
        proc.kill()
        raise RuntimeError(f"loopback server did not start: {line!r}")
    return proc, line.removeprefix("serving on ")


def measure(client, units, case, n: int, conc: int):
    from citefix.verify.llm_judge import LLMJudgeVerifier

    logged = []  # every call and failed attempt, as the store's call log would get them
    client.bind_log(logged.append)
    judge = LLMJudgeVerifier(client)
    judge.verify(units[:conc], case)  # warm-up: imports, connections (its calls are counted below, not timed)
    cpu0, started = time.process_time(), time.perf_counter()
    verdicts = judge.verify(units[:n], case)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu0
    lost = sum(1 for v in verdicts if v.score is None)
    return n / elapsed, elapsed, lost, logged, 1000 * cpu / n


def router_alone(table: dict, n: int, conc: int) -> tuple[float, float, int]:
    """n calls through a fresh litellm Router built from the same table (citefix's RouterTransport builds it), `conc`
    at once on its event loop, with no citefix code around them: no worker threads, prompts, call log, or citefix
    retries (a failed call is sent again at once). The ceiling litellm's Router allows here now: ACUs/s, this
    process's CPU ms per call, and the failed attempts."""
    import asyncio

    from citefix.llm.router import RouterTransport

    router, loop = RouterTransport(table)._start()
    failed = 0

    async def run(count: int) -> None:
        nonlocal failed
        slots = asyncio.Semaphore(conc)

        async def one(i: int) -> None:
            nonlocal failed
            async with slots:
                while True:
                    try:
                        await router.acompletion(model="bench", max_tokens=5, temperature=0, timeout=60,
                                                 messages=[{"role": "user", "content": f"Claim {i}: Yes or No?"}],
                                                 logprobs=True, top_logprobs=20, max_retries=0)
                        return
                    except Exception:  # noqa: BLE001 - a 500 from the flaky server: send it again
                        failed += 1

        await asyncio.gather(*(one(i) for i in range(count)))

    asyncio.run_coroutine_threadsafe(run(conc), loop).result()  # warm-up
    failed = 0
    cpu0, started = time.process_time(), time.perf_counter()
    asyncio.run_coroutine_threadsafe(run(n), loop).result()
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu0
    return n / elapsed, 1000 * cpu / n, failed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--latency", type=float, default=0.2)
    ap.add_argument("--fail", type=float, default=0.3, help="share of the second server's requests answered 500")
    ap.add_argument("--concurrency", type=int, default=16)
    ap.add_argument("--units", type=int, default=320)
    args = ap.parse_args()
    from citefix.llm.client import LLMClient, litellm_transport
    from citefix.llm.direct import openai_compatible_transport
    from citefix.llm.router import router_transport, validate_router
    from citefix.models import Case, Source, Unit
    from tests.loopback import fetch_stats

    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-not-a-secret")
    print(f"python {sys.version.split()[0]}  cpus {os.cpu_count()}  load average {os.getloadavg()[0]:.1f} "
          "(other work on the machine inflates every figure)")
    case = Case(id="bench-router", sources=[Source(id="1", text="The depot closed in 1987. It will become a park.")],
                text="The depot closed in 1987.")
    units = [Unit(id=f"u{i + 1}", text=f"The depot closed in 1987 (claim {i + 1}).", kind="acu", decomposer="bench")
             for i in range(args.units)]
    conc, ideal = args.concurrency, args.concurrency / args.latency
    (good, good_url), (flaky, flaky_url) = start_server(args.latency, 0.0), start_server(args.latency, args.fail)
    try:
        alone = LLMClient("openai/bench-model", transport=litellm_transport(api_base=good_url), concurrency=conc)
        rate, elapsed, lost, _, cpu_ms = measure(alone, units, case, args.units, conc)
        print(f"healthy server alone: {args.units} ACUs in {elapsed:.2f} s = {rate:.1f}/s   ideal {ideal:.0f}/s   "
              f"{rate / ideal:.2f} of ideal   lost {lost}   ({cpu_ms:.1f} ms CPU per call in this process)")
        direct = LLMClient("openai/bench-model", transport=openai_compatible_transport(good_url), concurrency=conc)
        rate, elapsed, lost, _, cpu_ms = measure(direct, units, case, args.units, conc)
        print(f"healthy server alone through the direct transport (citefix/llm/direct.py, no litellm): {args.units} "
              f"ACUs in {elapsed:.2f} s = {rate:.1f}/s   {rate / ideal:.2f} of ideal   lost {lost}   ({cpu_ms:.1f} ms "
              "CPU per call)   [goal >= 0.95]")
        from bench.bench_check import litellm_alone  # the same calls with no citefix code: litellm's own ceiling now

        top, top_cpu = litellm_alone(good_url, args.units, conc)
        print(f"healthy server, litellm alone (acompletion on one event loop, no citefix code): {top / ideal:.2f} of "
              f"ideal   ({top_cpu:.1f} ms CPU per call)")
        table = validate_router({
            "cooldown_time": 30, "allowed_fails": 0,
            "model_list": [
                {"model_name": "bench", "litellm_params": {"model": "openai/bench-model", "api_base": url,
                                                           "api_key": "os.environ/OPENAI_API_KEY",
                                                           "max_parallel_requests": conc},
                 "model_info": {"id": name}}
                for name, url in (("healthy", good_url), ("flaky", flaky_url))]}, "bench")
        routed = LLMClient("bench", transport=router_transport(table), concurrency=conc)
        before = {u: fetch_stats(u) for u in (good_url, flaky_url)}
        rate, elapsed, lost, calls, cpu_ms = measure(routed, units, case, args.units, conc)
        after = {u: fetch_stats(u) for u in (good_url, flaky_url)}
        answered = collections.Counter(c.deployment for c in calls if c.status == "ok")
        moved = sum(c.router_fallbacks or 0 for c in calls if c.status == "ok")
        failed = collections.Counter(c.deployment for c in calls if c.status != "ok")
        flaky_faults = len(after[flaky_url]["faults"]) - len(before[flaky_url]["faults"])
        print(f"router over healthy + flaky ({args.fail:.0%} of its requests fail): {args.units} ACUs in "
              f"{elapsed:.2f} s = {rate:.1f}/s   {rate / ideal:.2f} of the healthy server's ideal ({ideal:.0f}/s)   "
              f"lost {lost}   ({cpu_ms:.1f} ms CPU per call)   [goal >= 0.9, 0 lost]")
        print(f"answered by (call log): {dict(answered)}; calls the Router moved on (router_fallbacks): {moved}; "
              f"citefix retries logged: {dict(failed) or 'none'}; the flaky server answered 500 {flaky_faults} "
              f"times ({conc} warm-up calls included)")
        top, top_cpu, again = router_alone(table, args.units, conc)
        print(f"router, litellm alone (a fresh Router, its event loop, no citefix code; a failed call sent again at "
              f"once): {top / ideal:.2f} of the healthy server's ideal   ({top_cpu:.1f} ms CPU per call; {again} sent "
              f"again)")
    finally:
        for proc in (good, flaky):
            proc.stdin.close()
            proc.wait(timeout=10)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
