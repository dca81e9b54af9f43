"""How many intra-op threads torch uses for the local models: measured once per process, not guessed.

The offline verifier encodes short texts in small batches. On a machine whose cores are busy, torch's default (one
thread per core) can be several times slower than one thread (2 shared cores: a 40-case check took 81.0 s with 2
threads and 16.7 s with 1), while a large matrix product on the same machine still runs faster on 2: the cost is in
the many small operations of a forward pass. So when the encoder has loaded, citefix times the real thing — the
model's forward pass on a small batch of short sentences — with one thread and with torch's default, and keeps the
faster — more threads only when they at least halve the time. The margin has two reasons: one thread never contends
with other work on a shared machine, and more threads change the order of floating-point sums, so scores differ from a
one-thread run in the 8th decimal; a choice that flips with timing noise would make reruns differ. (On this project's
2-core machine the forward pass measured 1.2–1.6× faster on 2 threads: one thread is kept; on an idle many-core
machine more threads pass the margin.) ``CITEFIX_TORCH_THREADS=N`` skips the measurement (0: torch's default).
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any, Callable

from citefix.errors import ConfigError

THREADS_ENV = "CITEFIX_TORCH_THREADS"
MARGIN = 2.0  # more threads must be this much faster than one
_lock = threading.Lock()
_decision: dict[str, Any] | None = None


def choose(one_thread_s: float, many_threads_s: float, many: int) -> int:
    """The thread count to use, from the two timings."""
    if many <= 1 or many_threads_s * MARGIN >= one_thread_s:
        return 1
    return many


def _time(torch, probe: Callable[[], Any], threads: int, repeat: int = 3) -> float:
    torch.set_num_threads(threads)
    probe()  # warm up
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        probe()
        best = min(best, time.perf_counter() - t)
    return best


def _matmul_probe(torch) -> Callable[[], Any]:
    a = torch.randn(16 * 48, 384)
    b = torch.randn(384, 1536)
    return lambda: (a @ b).relu_() @ b.T


def apply(probe: Callable[[], Any] | None = None) -> dict[str, Any]:
    """Set torch's intra-op threads once per process; return what was decided and why. `probe`: the workload to time
    (the encoder's forward pass on a small batch); without one, a matrix product of that size stands in."""
    global _decision
    with _lock:
        if _decision is not None:
            return _decision
        try:
            import torch
        except ImportError:
            _decision = {"threads": None, "why": "torch is not installed"}
            return _decision
        raw = os.environ.get(THREADS_ENV)
        if raw is not None and raw.strip():
            try:
                n = int(raw.strip())
            except ValueError:
                raise ConfigError(f"{THREADS_ENV}={raw!r}: expected a whole number of threads (0: torch's default)") from None
            if n < 0:
                raise ConfigError(f"{THREADS_ENV}={raw!r}: expected 0 or more threads (0: torch's default)")
            if n > 0:
                torch.set_num_threads(n)
            _decision = {"threads": torch.get_num_threads(), "why": f"{THREADS_ENV}={raw.strip()}"}
            return _decision
        many = torch.get_num_threads()
        if many <= 1:
            _decision = {"threads": 1, "why": "one core"}
            return _decision
        work = probe or _matmul_probe(torch)
        with torch.inference_mode():
            one_s = _time(torch, work, 1)
            many_s = _time(torch, work, many)
        n = choose(one_s, many_s, many)
        torch.set_num_threads(n)
        _decision = {"threads": n, "why": f"measured: 1 thread {one_s * 1e3:.2f} ms, {many} threads {many_s * 1e3:.2f} ms",
                     "one_thread_s": one_s, "many_threads_s": many_s}
        return _decision
