"""Where cases are evaluated: in this process (`--executor local`, the default), in N processes on this machine
(`--executor local --workers N`), or on a Ray cluster (`--executor ray`, the optional extra `citefix[ray]`).

Local worker processes (ProcessEvaluator) are started with `spawn` and each builds the same `_Worker` a Ray actor
builds, with one torch thread; they hand evaluations back in input order and this process alone writes the store,
exactly as with Ray. On a machine with free cores this is the cheapest way to use them: the offline verifier's
work per case is many small operations, which one process per core runs without the contention that several torch
threads in one process meet (citefix.threads).

With Ray, each worker is an actor that builds the pipeline (spaCy, MiniLM, the verifier, LLM clients) once and then
evaluates the cases it is handed; evaluations flow back to the driver in input order, and the driver alone writes the
SQLite store, each case in its usual transactions (run, round with its units, verdicts, scores and model calls), so
resume, reuse of finished runs and every report work unchanged. Workers have no store: they do not answer model
requests from the store's cache, and their model calls are written with the round rather than as each completes.
`compare` sends out whole refinement runs: a worker refines one (case, strategy) into a private temporary SQLite store
and returns it as plain rows (Store.export_run), which the driver writes into the real store in one transaction
(Store.import_run); a run to resume stays on the driver.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import sys
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, Iterable, Iterator

from citefix.errors import ConfigError

if TYPE_CHECKING:
    from citefix.verify.base import Verifier

EXECUTORS = ("local", "ray")
# Passed to the workers of a cluster (a local instance inherits the whole environment anyway); credentials are not:
# set provider keys in the cluster's own environment.
_WORKER_ENV_PREFIXES = ("CITEFIX_", "HF_", "TRANSFORMERS_", "LITELLM_")


def add_executor_options(p) -> None:
    """--executor, --ray-address, --ray-workers for a command that evaluates many cases."""
    p.add_argument("--executor", choices=EXECUTORS, default="local",
                   help="evaluate cases in this process (local, the default) or on Ray workers (pip install "
                        "'citefix[ray]'); the store is written here either way")
    p.add_argument("--ray-address", metavar="ADDR",
                   help="with --executor ray: the cluster to join (e.g. ray://head:10001, or auto); default: "
                        "$RAY_ADDRESS, else a local Ray instance")
    p.add_argument("--ray-workers", type=int, metavar="N",
                   help="with --executor ray: worker actors (default: the cluster's CPUs, at most one per case)")
    p.add_argument("--workers", type=int, metavar="N",
                   help="with --executor local: evaluate cases in N worker processes on this machine, each loading "
                        "the models once (default 1: in this process); the store is written here")


def check_options(args) -> None:
    """Flag combinations that cannot work, refused before anything is loaded."""
    executor = getattr(args, "executor", "local") or "local"
    workers = getattr(args, "workers", None)
    if workers is not None and workers < 1:
        raise ConfigError(f"--workers {workers}: must be 1 or more")
    if workers is not None and executor == "ray":
        raise ConfigError("--workers sets local worker processes; with --executor ray use --ray-workers N")
    if (workers or 1) > 1 and getattr(args, "max_cost", None) is not None:
        raise ConfigError("--max-cost counts spend in this process only; use it without --workers")
    if executor != "ray":
        for flag in ("ray_address", "ray_workers"):
            if getattr(args, flag, None) is not None:
                raise ConfigError(f"--{flag.replace('_', '-')} needs --executor ray")
        return
    if getattr(args, "ray_workers", None) is not None and args.ray_workers < 1:
        raise ConfigError(f"--ray-workers {args.ray_workers}: must be 1 or more")
    if getattr(args, "max_cost", None) is not None:
        raise ConfigError("--max-cost counts spend in this process only; use it with --executor local")
    require_ray()


def require_ray():
    try:
        import ray  # noqa: F401
    except ImportError:
        raise ConfigError("--executor ray needs Ray, which is not installed; install it with pip install "
                          "'citefix[ray]' (or pip install ray), or use --executor local") from None
    return ray


def _worker_threads() -> int:
    """Torch threads for each worker: $CITEFIX_TORCH_THREADS when it is a whole number (0: torch's default), else 1."""
    threads = os.environ.get("CITEFIX_TORCH_THREADS")
    return int(threads) if threads and threads.isdigit() else 1


def _chunks(jobs: list, workers: int) -> list[list]:
    """meta-eval records in contiguous chunks, four per worker (fewer when there are fewer records)."""
    n_chunks = min(len(jobs), 4 * workers)
    size = -(-len(jobs) // n_chunks)
    return [jobs[i:i + size] for i in range(0, len(jobs), size)]


def _portable_settings(settings) -> dict:
    data = asdict(settings)
    data.pop("db", None)  # workers have no store
    return data


class _Worker:
    """One Ray actor: the pipeline (or a meta-eval's verifiers) built once, then any number of cases evaluated."""

    def __init__(self, settings: dict, threads: int | None):
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        if threads:
            import torch

            torch.set_num_threads(threads)
        from citefix.config import Settings

        self.settings = Settings(**settings)
        self._pipeline = None
        self._metaeval: dict[str, Any] = {}
        self._refine: dict[tuple, Any] = {}  # compare: run pipelines by (reviser, judge verifier)

    def evaluate(self, case):
        from citefix.evaluate import evaluate

        try:
            if self._pipeline is None:
                from citefix.pipeline import build_pipeline

                self._pipeline = build_pipeline(self.settings, store=None)
            pipeline = self._pipeline
            decomposer = pipeline.decomposer_for(case.kind)
            return ("ok", evaluate(case, decomposer=decomposer, verifier=pipeline.verifier,
                                   aggregation=pipeline.settings.aggregation))
        except Exception as exc:  # noqa: BLE001 - carried back to the driver, which raises it in its own process
            return ("error", exc)

    def forget_sources(self, keys: list[str]) -> None:
        """Drop these analysed sources from the verifier's cache (a verifier without one has nothing to drop)."""
        forget = getattr(getattr(self._pipeline, "verifier", None), "forget_sources", None)
        if keys and forget is not None:
            forget(keys)

    def refine_run(self, case, spec: dict):
        """compare: one (case, strategy) refinement with the compare command's settings, into a private temporary
        store (a real SQLite file); the run read back as plain rows (Store.export_run) for the driver to import, and
        its RefineResult. spec: reviser, judge_verifier, strategy, signature, max_rounds, target, patience,
        input_path."""
        import tempfile
        from pathlib import Path

        from citefix.revision.parts import StopRules
        from citefix.revision.session import refine
        from citefix.store import Store

        try:
            key = (spec.get("reviser"), spec.get("judge_verifier"))
            pipeline = self._refine.get(key)
            if pipeline is None:  # built once per actor (spaCy, MiniLM, verifier, judge); caches in memory only
                from citefix.pipeline import RunSettings, build_run_pipeline

                run = RunSettings(settings=self.settings, reviser=spec.get("reviser"),
                                  judge_verifier=spec.get("judge_verifier"))
                pipeline = self._refine[key] = build_run_pipeline(run, None)
            record = pipeline.record("compare", spec.get("input_path"), signature=spec["signature"])
            rules = StopRules(max_rounds=spec["max_rounds"], target=spec.get("target"), patience=spec.get("patience"))
            with tempfile.TemporaryDirectory(prefix="citefix-ray-") as folder:
                store = Store(Path(folder) / "run.db")
                try:
                    parts = pipeline.parts_for(case.kind, store, spec["strategy"])
                    res = refine(case, parts, store=store, rules=rules, record=record)
                    if res.run_id is None:  # refine into a store always stores its run
                        raise RuntimeError("the worker's refinement stored no run to hand back")
                    bundle = store.export_run(res.run_id)
                finally:
                    store.close()
            return ("ok", (bundle, res))
        except Exception as exc:  # noqa: BLE001
            return ("error", exc)

    def score_records(self, spec: dict, jobs, options: dict):
        """meta-eval records scored with the verifiers (and decomposer) named in spec, built as the command does."""
        from citefix.metaeval.runner import score_records

        try:
            key = repr(sorted(spec.items()))
            if key not in self._metaeval:
                self._metaeval[key] = metaeval_parts(self.settings, spec)
            verifiers, decomposer = self._metaeval[key]
            return ("ok", score_records(jobs, verifiers, decomposer, options))
        except Exception as exc:  # noqa: BLE001
            return ("error", exc)


def metaeval_parts(settings, spec: dict):
    """A meta-eval's verifiers by display name and its decomposer, built from their names as `citefix meta-eval`
    builds them (a repeated verifier measured once)."""
    from citefix.pipeline import build_decomposer, build_llm, build_verifier

    llm = build_llm(settings.llm, settings) if settings.llm else None
    verifiers: dict[str, Verifier] = {}
    for name in spec["names"]:
        v = build_verifier(name, settings, None, llm)
        verifiers.setdefault(v.name or name, v)
    decomposer = build_decomposer(spec["decomposer"], settings, llm, kind="summary") if spec.get("decomposer") else None
    return verifiers, decomposer


class RayEvaluator:
    """Evaluations of many cases on Ray actors, yielded in input order."""

    def __init__(self, settings, *, address: str | None = None, workers: int | None = None):
        ray = require_ray()
        self.ray = ray
        env = {k: v for k, v in os.environ.items() if k.startswith(_WORKER_ENV_PREFIXES)}
        env.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        if not ray.is_initialized():
            kwargs: dict[str, Any] = dict(include_dashboard=False, log_to_driver=False, configure_logging=False,
                                          runtime_env={"env_vars": env})
            address = address or os.environ.get("RAY_ADDRESS") or None
            if address:
                kwargs["address"] = address
            elif workers:
                kwargs["num_cpus"] = workers
            try:
                ray.init(**kwargs)
            except ConnectionError as exc:
                raise ConfigError(f"--ray-address {address}: cannot reach the Ray cluster ({exc}); check the address "
                                  "(ray://HEAD:10001 or auto) and that the cluster is up") from None
        self.settings = _portable_settings(settings)
        self.workers = workers
        self.threads = _worker_threads()
        self._actors: list = []
        self.metaeval: dict = {}  # meta-eval: {"names": verifier names, "decomposer": its name or None}

    def _pool(self, n_cases: int):
        ray = self.ray
        if not self._actors:
            resources = ray.cluster_resources()
            n = self.workers or max(1, int(resources.get("CPU", 1)))
            n = max(1, min(n, n_cases))
            gpus = float(resources.get("GPU", 0) or 0)
            # GPU workers where the cluster has GPUs and the device setting allows them: each actor a share of them
            share = min(1.0, gpus / n) if gpus and self.settings.get("device", "auto") != "cpu" else 0
            actor = ray.remote(num_cpus=1, num_gpus=share)(_Worker)
            self._actors = [actor.remote(self.settings, self.threads) for _ in range(n)]
        from ray.util import ActorPool

        return ActorPool(self._actors)

    def map(self, cases: Iterable) -> Iterator:
        """Each case's Evaluation, in input order, as soon as it and those before it are done. Every case is handed
        to the workers now."""
        cases = list(cases)
        if not cases:
            return iter(())
        pool = self._pool(len(cases))
        return self._results(pool.map(lambda a, c: a.evaluate.remote(c), cases))

    def score_records(self, jobs: list, options: dict) -> Iterator:
        """meta-eval: the records in contiguous chunks on the workers (citefix.metaeval.runner.score_records), each
        chunk's outputs in order. `self.metaeval` names the verifiers and decomposer ({"names", "decomposer"})."""
        if not jobs:
            return iter(())
        pool = self._pool(len(jobs))
        chunks = _chunks(jobs, len(self._actors))
        spec = self.metaeval
        return self._results(pool.map(lambda a, c: a.score_records.remote(spec, c, options), chunks))

    def refine_runs(self, jobs: list[tuple], spec: dict) -> Iterator:
        """compare: each (case, per-run spec) refined on the workers (_Worker.refine_run), all handed out now; yields
        (bundle, RefineResult) in input order. `spec` holds what every run shares (reviser, judge verifier, loop
        limits, input path); a job's own dict its strategy and signature."""
        if not jobs:
            return iter(())
        self._pool(len(jobs))
        # every run is queued on an actor now (round robin; an actor runs its queue in order), so the workers keep
        # going while the driver imports results or resumes runs of its own
        refs = [self._actors[i % len(self._actors)].refine_run.remote(case, {**spec, **own})
                for i, (case, own) in enumerate(jobs)]
        return self._results(self.ray.get(ref) for ref in refs)

    @staticmethod
    def _results(results) -> Iterator:
        for status, value in results:
            if status == "error":
                raise value
            yield value

    def close(self, wait: bool = False) -> None:  # the local pool's signature; the actors are killed either way
        for a in self._actors:
            try:
                self.ray.kill(a)
            except Exception:  # noqa: BLE001 - already gone
                pass
        self._actors = []


# --- local worker processes (--executor local --workers N) ------------------------------------------------------
# The same interface as RayEvaluator, on a concurrent.futures process pool: each worker process holds one _Worker and
# runs one torch thread unless CITEFIX_TORCH_THREADS says otherwise; results come back in input order, and an error
# raised in a worker is raised here.

_worker: Any = None  # this worker process's _Worker


def _start(settings: dict, threads: int | None, cache_mb: float) -> None:
    import signal

    global _worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the driver's to handle: it stops the workers (close)
    os.environ.setdefault("CITEFIX_TORCH_THREADS", str(threads or 1))  # no measuring in each worker
    os.environ["CITEFIX_SOURCE_CACHE_MB"] = f"{cache_mb:g}"  # the workers share the memory budget for sources
    _worker = _Worker(settings, threads)


def _evaluate_group(cases: list, done_with: list[str]) -> list:
    out = []
    for case in cases:
        out.append(_worker.evaluate(case))
        _trim_heap()
    _worker.forget_sources(done_with)
    _trim_heap()
    return out


def _trim_heap() -> None:
    """Hand the C heap's free pages back to the system (glibc's malloc_trim; elsewhere nothing): blocks freed after a
    case (the encoder's activations) or a group (its sources) otherwise stay resident in the worker, and N workers
    hold N such high-water marks."""
    global _libc
    if _libc is None:
        import ctypes

        try:
            _libc = ctypes.CDLL("libc.so.6")
            _libc.malloc_trim  # noqa: B018 - glibc only
        except (OSError, AttributeError):
            _libc = False
    if _libc:
        _libc.malloc_trim(0)


_libc: Any = None  # glibc, once loaded; False where there is none


def _score_records(spec: dict, jobs, options: dict):
    try:
        return _worker.score_records(spec, jobs, options)
    finally:
        _trim_heap()  # after each chunk of meta-eval records, as after each case of a check


def _refine_run(case, spec: dict):
    try:
        return _worker.refine_run(case, spec)
    finally:
        _trim_heap()


def source_groups(cases: list) -> list[tuple[list[int], list[str]]]:
    """The cases (indices, in input order) grouped by their set of sources, each group with the sources (sha1 hex
    digests of their texts) that no other group has: a worker given the group can drop those from its cache when the
    group is done, so that its memory holds only sources that later groups share (the resident memory of many workers)."""
    groups: dict[tuple[str, ...], list[int]] = {}
    for i, case in enumerate(cases):
        key = tuple(sorted({hashlib.sha1(s.text.encode("utf-8")).hexdigest() for s in case.sources}))
        groups.setdefault(key, []).append(i)
    shared = Counter(k for key in groups for k in key)
    return [(members, [k for k in key if shared[k] == 1]) for key, members in groups.items()]


class ProcessEvaluator:
    """Evaluations of many cases in `workers` local processes, yielded in input order."""

    def __init__(self, settings, *, workers: int):
        self.workers = workers
        self.threads = _worker_threads() or 1
        self._settings = _portable_settings(settings)
        from citefix.verify.offline_sources import _cache_budget

        # the analysed-source cache's budget ($CITEFIX_SOURCE_CACHE_MB, 512 MB) split among the workers: cases with
        # the same sources go to one worker, so none needs the whole of it
        self._cache_mb = _cache_budget() / 2**20 / workers
        self._pool: ProcessPoolExecutor | None = None
        self.metaeval: dict = {}  # meta-eval: {"names": verifier names, "decomposer": its name or None}

    def _executor(self, n_jobs: int) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=max(1, min(self.workers, n_jobs)),
                                             mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_start, initargs=(self._settings, self.threads, self._cache_mb))
        return self._pool

    def map(self, cases: Iterable) -> Iterator:
        """Each case's Evaluation, in input order, as soon as it and those before it are done. Every case is handed
        to the workers now; cases with the same sources go to one worker together, so each worker analyses a source
        once (a source analysed by both would double the work a second worker is there to share)."""
        cases = list(cases)
        if not cases:
            return iter(())
        groups = source_groups(cases)
        pool = self._executor(len(groups))
        where: dict[int, tuple[Any, int]] = {}  # case index -> (its group's future, its place in the group)
        for members, done_with in groups:
            future = pool.submit(_evaluate_group, [cases[i] for i in members], done_with)
            where.update((i, (future, k)) for k, i in enumerate(members))
        return self._results(where[i][0].result()[where[i][1]] for i in range(len(cases)))

    def score_records(self, jobs: list, options: dict) -> Iterator:
        """meta-eval: the records in contiguous chunks (four per worker), each chunk's outputs in order."""
        if not jobs:
            return iter(())
        chunks = _chunks(jobs, self.workers)
        pool = self._executor(len(chunks))
        return self._results(pool.map(_score_records, [self.metaeval] * len(chunks), chunks,
                                      [options] * len(chunks)))

    def refine_runs(self, jobs: list[tuple], spec: dict) -> Iterator:
        """compare: each (case, per-run spec) refined in a worker (_Worker.refine_run), all handed out now; yields
        (bundle, RefineResult) in input order."""
        if not jobs:
            return iter(())
        pool = self._executor(len(jobs))
        futures = [pool.submit(_refine_run, case, {**spec, **own}) for case, own in jobs]
        return self._results(f.result() for f in futures)

    def _results(self, results) -> Iterator:
        from concurrent.futures.process import BrokenProcessPool

        try:
            yield from RayEvaluator._results(results)  # ("ok", value) or ("error", exc) from each _Worker call
            self.close(wait=True)
        except BrokenProcessPool:
            self.close()
            raise ConfigError(f"a worker process died (killed, or out of memory: each of the {self.workers} workers "
                              "holds its own models, about 0.8 GB); the cases finished before it are stored and a "
                              "rerun reuses them; run again with fewer --workers") from None
        except BaseException:
            self.close()
            raise

    def close(self, wait: bool = False) -> None:
        """Stop the workers now: queued work is dropped, running work is ended (nothing of it is stored). With `wait`
        (all work done), an orderly shutdown that joins the pool's threads and processes: a pool left to the
        interpreter's exit races its own clean-up there (on CPython 3.11 the exit hook of concurrent.futures wakes
        the pool's thread through a pipe that thread may be closing, unlocked: now and then "OSError: [Errno 9] Bad
        file descriptor" and a traceback after the output; later versions lock it, python/cpython#125492)."""
        if self._pool is None:
            return
        pool, self._pool = self._pool, None
        if wait:
            pool.shutdown(wait=True)
        else:
            processes = list((getattr(pool, "_processes", None) or {}).values())
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in processes:
                if proc.is_alive():
                    proc.terminate()


def make_evaluator(args, settings):
    """A RayEvaluator for --executor ray, a ProcessEvaluator for --workers N > 1, None for this process alone."""
    if (getattr(args, "executor", "local") or "local") != "ray":
        workers = getattr(args, "workers", None) or 1
        if workers < 2:
            return None
        print(f"citefix: starting {workers} worker processes", file=sys.stderr, flush=True)
        return ProcessEvaluator(settings, workers=workers)
    print("citefix: starting Ray workers" + (f" on {args.ray_address}" if getattr(args, "ray_address", None) else ""),
          file=sys.stderr, flush=True)
    return RayEvaluator(settings, address=getattr(args, "ray_address", None), workers=getattr(args, "ray_workers", None))
