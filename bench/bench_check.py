"""Benchmark `citefix check`: the offline default, and the LLM path against a loopback server with injected latency.

    .venv/bin/python -m bench.bench_check                 # both parts (from the repository root)
    .venv/bin/python -m bench.bench_check --data xsumfaith_val_balanced.jsonl   # the XSumFaith file to draw cases from
    .venv/bin/python -m bench.bench_check --skip-llm      # offline only
    .venv/bin/python -m bench.bench_check --skip-offline  # LLM path only
    OMP_NUM_THREADS=1 .venv/bin/python -m bench.bench_check   # torch on one thread (faster on a busy machine)

(a) Offline: model-load time (imports + spaCy + MiniLM), then the bundled example and N XSumFaith summaries checked
    the way `citefix check` does (evaluate + write the round to a store), per-case latency median and p95, one case of
    a ~500-word source with a ~60-word summary, and peak RSS. Goals: load <= 5 s, 500/60 case <= 2 s, RSS <= 1.5 GB.
    XSumFaith: --data PATH, else $CITEFIX_XSUMFAITH, else shared/data beside the checkout; without it (a fresh clone)
    only the bundled examples are checked, and the script says so.
(b) LLM: the LLM judge through litellm over HTTP to tests/loopback.py with a fixed latency per request (200 ms),
    ACUs verified per second at concurrency 1 and 16, and this process's CPU per call. Ideal at 16 is
    16 / 0.2 s = 80/s; goal >= 95% of it. A last line runs the same judge and client over the OpenAI SDK
    without litellm (--no-ceiling leaves it out): what citefix's own code allows on the machine at that moment.
    Measured (`bench_check.py --skip-offline`, 6 runs, 2 shared cores, load 1.3-2.8): 78-89% through litellm
    (83-88% before the async path, in the same runs), 94-96% without it; litellm's own CPU per call is the rest
    (README, "Many model servers"). With litellm's success logging skipped for calls nobody listens to
    (citefix/llm/unobserved.py), 3 runs alternating with the commit before it at load 3.8-4.6: 85-90% at 3.8-4.5 ms
    CPU a call, against 85-88% at 4.4-5.0 ms; the OpenAI SDK alone 93-95% in the same runs.
    With an unobserved call handed to litellm.acompletion on one background event loop instead of run by its worker
    thread in sync litellm.completion (citefix/llm/aio.py), and a model litellm has no entry for entered once at $0
    in its price table (citefix/llm/unpriced.py), 4 runs alternating with the commit before (7c0faff) at load
    2.8-3.8: 78-84% at 6.2-7.3 ms CPU a call, against 76-83% at 6.9-7.5 ms; the OpenAI SDK alone 88-93%. 160 calls
    are 2 s, as noisy as that; `python -m bench.bench_router --units 640` times 640 such calls (its "healthy server
    alone").
    The last line times the same 160 calls through litellm.acompletion alone, on one event loop with no citefix code
    around them: litellm's own ceiling at that moment. 4 runs on a quiet machine (load 0.4-0.8, 2026-11-24): citefix
    80% / 85% / 84% / 83%, litellm alone 83% / 83% / 80% / 82%, the OpenAI SDK alone 91% / 93% / 92% / 93%.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

XSUM = Path(os.environ.get("CITEFIX_XSUMFAITH", ROOT.parent / "shared" / "data" / "xsumfaith" / "xsumfaith_val_balanced.jsonl"))


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    k = (len(xs) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def xsum_cases(n: int):
    """The first n records of XSumFaith that load as cases (some have no document: NaN), and how many were skipped."""
    from citefix.errors import InputError
    from citefix.inputs import _adapt, _build  # noqa: PLC2701 - record-by-record, to skip the broken ones

    cases, skipped = [], 0
    if not XSUM.is_file():
        return cases, skipped
    with open(XSUM, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if len(cases) >= n:
                break
            try:
                cases.append(_build(_adapt(json.loads(line), str(XSUM), lineno, None), str(XSUM), lineno))
            except InputError:
                skipped += 1
    return cases, skipped


def words(text: str, n: int) -> str:
    """The first sentences of text with at most n words."""
    from citefix.chunking import split_sentences

    out, count = [], 0
    for s in split_sentences(text):
        k = len(s.text.split())
        if count + k > n:
            break
        out.append(s.text)
        count += k
    return " ".join(out)


def case_500_60(pool):
    """A ~500-word source and a ~60-word summary: the XSum document nearest 500 words, its summary plus two of its
    sentences lightly changed (a number and a name), so the summary has supported and unsupported parts."""
    from citefix.chunking import split_sentences
    from citefix.models import Case, Source

    best = min(pool, key=lambda c: abs(len(c.source_text.split()) - 560))
    src = words(best.source_text, 500)
    sents = [s.text for s in split_sentences(src) if 12 <= len(s.text.split()) <= 30][:3]
    summary = " ".join([best.text.strip().rstrip(".") + "."] + sents)
    summary = " ".join(summary.split()[:60])
    summary = summary.replace("the ", "the new ", 1)
    return Case(id="bench-500-60", sources=[Source(id="1", title="doc", text=src)], text=summary)


def offline(n: int) -> None:
    from citefix.config import Settings
    from citefix.inputs import example_path, load_cases
    from citefix.pipeline import build_pipeline

    print("== (a) offline default ==")
    t0 = time.perf_counter()
    import spacy  # noqa: F401 - the heavy imports, timed apart from loading the models
    import torch  # noqa: F401
    import transformers  # noqa: F401

    import_s = time.perf_counter() - t0
    pipeline = build_pipeline(Settings())
    decomposer = pipeline.decomposer_for("summary")
    verifier = pipeline.verifier
    for owner in (verifier, decomposer):  # force the lazy loads: spaCy, MiniLM, idf table
        for attr in ("nlp", "encoder", "idf"):
            if hasattr(type(owner), attr):
                getattr(owner, attr)
    load_s = time.perf_counter() - t0
    print(f"torch intra-op threads: {torch.get_num_threads()} (set OMP_NUM_THREADS to change; 1 is much faster on a busy "
          f"machine)")
    print(f"model load: {load_s:.2f} s (imports of spacy/torch/transformers {import_s:.2f} s + spaCy, MiniLM, idf "
          f"{load_s - import_s:.2f} s)   [goal <= 5 s]")
    print(f"verifier: {verifier.name}   decomposer: {decomposer.name}")

    from citefix.evaluate import evaluate
    from citefix.store import Store

    tmp = tempfile.mkdtemp(prefix="citefix-bench-")
    store = Store(Path(tmp) / "bench.db")

    def check(case):
        started = time.perf_counter()
        run_id = store.start_run(case, "check", verifier=verifier.name, decomposer=decomposer.name)
        ev = evaluate(case, decomposer=decomposer, verifier=verifier)
        store.write_round(run_id, 0, ev)
        store.finish_run(run_id, "finished", best_round=0, stop_reason=ev.status)
        return time.perf_counter() - started, ev

    example = load_cases(example_path("summary"))
    first_s, ev = check(example[0])
    print(f"bundled example: first check {first_s:.3f} s (score {ev.score:.2f}, {len(ev.units)} units)")
    cases, skipped = xsum_cases(n)
    if not cases:
        print(f"no XSumFaith cases at {XSUM} (give --data PATH or set CITEFIX_XSUMFAITH); per-case latency below is "
              "over the bundled examples only, and the 500-word case is left out")
        example += [example[0].model_copy(update={"id": f"example-{k}"}) for k in range(1, 5)]
    lat, units = [], []
    for c in example + cases:
        s, ev = check(c)
        lat.append(s)
        units.append(len(ev.units))
    print(f"cases: bundled example + {len(cases)} XSumFaith val summaries ({skipped} records skipped: no document)")
    print(f"per-case latency: median {statistics.median(lat) * 1000:.0f} ms   p95 {pct(lat, 0.95) * 1000:.0f} ms   "
          f"max {max(lat) * 1000:.0f} ms   mean units/case {statistics.mean(units):.1f}   "
          f"mean source words {statistics.mean(len(c.source_text.split()) for c in (cases or example)):.0f}")
    if not cases:
        print(f"peak RSS after the offline part: {rss_mb():.0f} MB   [goal <= 1536 MB]")
        store.close()
        return

    big = case_500_60(cases)
    times = []
    for _ in range(3):
        verifier._cache.clear() if hasattr(verifier, "_cache") else None  # no cross-run source cache: a cold case
        s, ev = check(big.model_copy(update={"id": f"bench-500-60-{_}"}))
        times.append(s)
    print(f"500-word source + {len(big.text.split())}-word summary ({len(big.source_text.split())} source words, "
          f"{len(ev.units)} units): median of 3 {statistics.median(times):.3f} s   [goal <= 2 s]")
    print(f"peak RSS after the offline part: {rss_mb():.0f} MB   [goal <= 1536 MB]")
    store.close()


def start_server(latency: float):
    """tests/loopback.py in its own process (as a real server would be), so its CPU does not share our GIL."""
    import subprocess

    proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "loopback.py"), "0", str(latency)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # exits when stdin closes
    line = proc.stdout.readline().strip()  # "serving on http://127.0.0.1:PORT/v1"
    if not line.startswith("serving on "):
        proc.kill()
        raise RuntimeError(f"loopback server did not start: {line!r}")
    return proc, line.removeprefix("serving on ")


def timed(judge, units, case, base):
    """Verify units at once: ACUs/s, seconds, this process's CPU ms per call, the server's stats; every unit must be
    scored from log-probs by exactly one request."""
    from tests.loopback import fetch_stats

    before = fetch_stats(base)["answered"]
    cpu0, started = time.process_time(), time.perf_counter()
    verdicts = judge.verify(units, case)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu0
    stats = fetch_stats(base)
    assert all(v.score is not None and not v.discrete for v in verdicts), "every unit scored from log-probs"
    assert stats["answered"] - before == len(units), (stats, before, len(units))
    return len(units) / elapsed, elapsed, 1000 * cpu / len(units), stats


def openai_sdk_transport(base: str):
    """A citefix transport over the OpenAI SDK alone (no litellm): for the ceiling line only."""
    import openai

    from citefix.llm.client import RawResponse

    sdk = openai.OpenAI(base_url=base, max_retries=0)

    def call(*, model, messages, max_tokens, temperature, top_logprobs, timeout):
        r = sdk.chat.completions.create(model=model.split("/", 1)[-1], messages=messages, max_tokens=max_tokens,
                                        temperature=temperature, logprobs=bool(top_logprobs),
                                        top_logprobs=top_logprobs or None, timeout=timeout)
        choice = r.choices[0]
        tops = [[(t.token, t.logprob) for t in tok.top_logprobs] for tok in (choice.logprobs.content or [])]
        return RawResponse(text=choice.message.content or "", top_logprobs=tops or None,
                           prompt_tokens=r.usage.prompt_tokens, completion_tokens=r.usage.completion_tokens)

    return call


def litellm_alone(base: str, n: int, conc: int) -> tuple[float, float]:
    """n chat completions through litellm.acompletion, `conc` at once on one event loop, with no citefix code around
    them (no worker threads, prompts, retries or call log): the ceiling litellm itself allows on this machine now.
    ACUs/s and this process's CPU ms per call."""
    import asyncio

    from citefix.llm.client import import_litellm
    from citefix.llm.unobserved import unobserved_call

    litellm = import_litellm()

    async def run(count: int) -> None:
        slots = asyncio.Semaphore(conc)

        async def one(i: int) -> None:
            async with slots:
                with unobserved_call(litellm):
                    await litellm.acompletion(model="openai/bench-model", api_base=base, max_tokens=5, temperature=0,
                                              messages=[{"role": "user", "content": f"Claim {i}: supported? Yes or No."}],
                                              logprobs=True, top_logprobs=20, timeout=60, num_retries=0, max_retries=0)

        await asyncio.gather(*(one(i) for i in range(count)))

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(run(conc))  # warm-up
        cpu0, started = time.process_time(), time.perf_counter()
        loop.run_until_complete(run(n))
        elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu0
    finally:
        loop.close()
    return n / elapsed, 1000 * cpu / n


def llm(latency: float, n_units: int, concurrencies: list[int], in_process: bool, skip_ceiling: bool = False) -> None:
    import subprocess

    from citefix.llm.client import LLMClient, litellm_transport
    from citefix.models import Case, Source, Unit
    from citefix.verify.llm_judge import LLMJudgeVerifier
    from tests.loopback import LoopbackLLM, yes_reply

    where = "in this process" if in_process else "in its own process"
    print(f"== (b) LLM judge over HTTP (litellm -> loopback server {where}, {latency * 1000:.0f} ms per request) ==")
    os.environ.setdefault("OPENAI_API_KEY", "sk-bench-not-a-secret")
    case = Case(id="bench-llm", sources=[Source(id="1", text="The depot closed in 1987. It will become a park.")],
                text="The depot closed in 1987.")
    units = [Unit(id=f"u{i + 1}", text=f"The depot closed in 1987 (claim {i + 1}).", kind="acu", decomposer="bench")
             for i in range(n_units)]
    if in_process:
        srv = LoopbackLLM(lambda req: yes_reply(0.9), latency=latency, max_requests=1_000_000).start()
        base, proc = srv.base_url, None
    else:
        proc, base = start_server(latency)
    try:
        for conc in concurrencies:
            client = LLMClient("openai/bench-model", transport=litellm_transport(api_base=base), concurrency=conc)
            judge = LLMJudgeVerifier(client)
            judge.verify(units[:conc], case)  # warm-up: litellm import, HTTP connections
            n = min(n_units, max(conc * 10, 20))
            rate, elapsed, cpu_ms, stats = timed(judge, units[:n], case, base)
            ideal = conc / latency
            print(f"concurrency {conc:>2}: {n} ACUs in {elapsed:.2f} s = {rate:.1f} ACUs/s   ideal {ideal:.0f}/s   "
                  f"{100 * rate / ideal:.0f}% of ideal   (server max in flight {stats['max_in_flight']}; this process "
                  f"{cpu_ms:.1f} ms CPU per call)" + ("   [goal >= 95%]" if conc == 16 else ""))
        if 16 in concurrencies and not skip_ceiling:
            # the same judge and client over the OpenAI SDK alone: what citefix's own code allows on this machine now
            client = LLMClient("openai/bench-model", transport=openai_sdk_transport(base), concurrency=16)
            judge = LLMJudgeVerifier(client)
            judge.verify(units[:16], case)
            n = min(n_units, 160)
            rate, elapsed, cpu_ms, _ = timed(judge, units[:n], case, base)
            print(f"concurrency 16 without litellm (the OpenAI SDK called directly, same judge and client): "
                  f"{100 * rate / (16 / latency):.0f}% of ideal   ({cpu_ms:.1f} ms CPU per call)")
            rate, cpu_ms = litellm_alone(base, n, 16)
            print(f"concurrency 16, litellm alone (litellm.acompletion on one event loop, no citefix code): "
                  f"{100 * rate / (16 / latency):.0f}% of ideal   ({cpu_ms:.1f} ms CPU per call)")
    finally:
        if proc is not None:
            proc.stdin.close()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
        else:
            srv.stop()


def main() -> None:
    global XSUM
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=50, help="XSumFaith summaries to check offline (default 50)")
    ap.add_argument("--data", type=Path, default=None,
                    help=f"XSumFaith JSONL to draw the cases from (default: $CITEFIX_XSUMFAITH, else {XSUM})")
    ap.add_argument("--latency", type=float, default=0.2, help="loopback latency per request, seconds (default 0.2)")
    ap.add_argument("--units", type=int, default=160, help="ACUs to verify per concurrency level (default 160)")
    ap.add_argument("--skip-offline", action="store_true")
    ap.add_argument("--skip-llm", action="store_true")
    ap.add_argument("--in-process-server", action="store_true", help="run the loopback server in this process")
    ap.add_argument("--no-ceiling", action="store_true",
                    help="leave out the LLM part's last line (the same calls through the OpenAI SDK without litellm)")
    args = ap.parse_args()
    if args.data is not None:
        XSUM = args.data.expanduser().resolve()
        if not XSUM.is_file():
            ap.error(f"--data {args.data}: no such file; give the XSumFaith JSONL (or leave --data out)")
    print(f"python {sys.version.split()[0]}  cpus {os.cpu_count()}  platform {sys.platform}  "
          f"load average {os.getloadavg()[0]:.1f} (other work on the machine inflates every figure)")
    if not args.skip_offline:
        offline(args.n)
    if not args.skip_llm:
        llm(args.latency, args.units, [1, 16], args.in_process_server, args.no_ceiling)
    print(f"peak RSS of the whole benchmark: {rss_mb():.0f} MB")


if __name__ == "__main__":
    main()
