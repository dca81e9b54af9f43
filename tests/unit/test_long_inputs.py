"""A long source is processed in linear time. The full check is timed by bench/long_source.py (figures in
docs/input-format.md); here the pure-Python steps every check runs on the whole source (reading and validating the
input, the sentence split, chunking) are timed at 250,000 and 1,000,000 characters: 4 times the text may take at
most ~8 times as long (linear is 4, quadratic 16), the best of three runs each to ride out a busy machine."""

from __future__ import annotations

import time

from long_source_helpers import SUMMARY, long_source

from citefix.chunking import chunk_text, split_sentences
from citefix.inputs import load_pair


def _best_of(fn, n=3) -> float:
    best = float("inf")
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def test_reading_splitting_and_chunking_a_source_grow_linearly(tmp_path):
    summ = tmp_path / "summary.txt"
    summ.write_text(SUMMARY, encoding="utf-8")
    times = {}
    for chars in (250_000, 1_000_000):
        text = long_source(chars // 5)[:chars]
        src = tmp_path / f"s{chars}.txt"
        src.write_text(text, encoding="utf-8")

        def steps():
            case = load_pair([str(src)], str(summ))
            body = case.sources[0].text
            sents = split_sentences(body)
            chunk_text(body, 200, sentences=sents)
            chunk_text(body, 120)

        times[chars] = _best_of(steps)
    ratio = times[1_000_000] / max(times[250_000], 1e-3)
    assert ratio < 8, (times, ratio)
    assert times[1_000_000] < 30, times  # and in seconds, not minutes
