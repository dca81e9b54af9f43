"""`--executor local --workers N`: cases evaluated in N worker processes on this machine (see citefix.executor).

The same interface as citefix.executor.RayEvaluator (map, score_records, refine_runs, close), on a
concurrent.futures process pool: each worker process holds one `_Worker` (the pipeline, a meta-eval's verifiers or a
compare's run pipelines, each built once) and runs one torch thread unless CITEFIX_TORCH_THREADS says otherwise.
Results come back in input order; an error raised in a worker is raised here."""

from __future__ import annotations

import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Iterable, Iterator

_worker: Any = None  # this worker process's _Worker


def _start(settings: dict, threads: int | None) -> None:
    from citefix.executor import _Worker

    global _worker
    os.environ.setdefault("CITEFIX_TORCH_THREADS", str(threads or 1))  # no measuring in each worker
    _worker = _Worker(settings, threads)


def _evaluate(case):
    return _worker.evaluate(case)


def _score_records(spec: dict, jobs, options: dict):
    return _worker.score_records(spec, jobs, options)


def _refine_run(case, spec: dict):
    return _worker.refine_run(case, spec)


class ProcessEvaluator:
    """Evaluations of many cases in `workers` local processes, yielded in input order."""

    def __init__(self, settings, *, workers: int):
        from citefix.executor import _portable_settings

        self.workers = workers
        threads = os.environ.get("CITEFIX_TORCH_THREADS")
        self.threads = int(threads) if threads and threads.isdigit() and int(threads) > 0 else 1
        self._settings = _portable_settings(settings)
        self._pool: ProcessPoolExecutor | None = None
        self.metaeval: dict = {}  # meta-eval: {"names": verifier names, "decomposer": its name or None}

    def _executor(self, n_jobs: int) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=max(1, min(self.workers, n_jobs)),
                                             mp_context=multiprocessing.get_context("spawn"),
                                             initializer=_start, initargs=(self._settings, self.threads))
        return self._pool

    def map(self, cases: Iterable) -> Iterator:
        """Each case's Evaluation, in input order, as soon as it and those before it are done. Every case is handed
        to the workers now."""
        cases = list(cases)
        if not cases:
            return iter(())
        return self._results(self._executor(len(cases)).map(_evaluate, cases))

    def score_records(self, jobs: list, options: dict) -> Iterator:
        """meta-eval: the records in contiguous chunks (four per worker), each chunk's outputs in order."""
        if not jobs:
            return iter(())
        n_chunks = min(len(jobs), 4 * self.workers)
        size = -(-len(jobs) // n_chunks)
        chunks = [jobs[i:i + size] for i in range(0, len(jobs), size)]
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
        try:
            for status, value in results:
                if status == "error":
                    raise value
                yield value
        except BaseException:
            self.close()
            raise

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None
