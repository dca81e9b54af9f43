"""An amount read in its own text: the number a span writes, with the words around it that bound or scale it, and
whether two such amounts name one value (a figure rounded or bounded against the source's exact one)."""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import Any

from citefix.verify.lexical import Number, currency, find_numbers, is_year, number_supported
from citefix.verify.times import duration_supported


def number_at(text: str, start: int, end: int) -> Number | None:
    """The number of `text` that the span text[start:end] writes, read with the words around it (its bound phrase,
    its scale): "close to 10,000" where an entity recogniser marked only "10,000"."""
    for n in _numbers_of(text):
        if n.start < end and start < n.end:
            return n
    return None


@lru_cache(maxsize=512)
def _numbers_of(text: str) -> tuple[Number, ...]:
    return tuple(find_numbers(text))


def agree_in_context(text: str, start: int, end: int, other: str, o_start: int, o_end: int) -> bool:
    """Does the number that text[start:end] writes, read in its own text, name the value other[o_start:o_end] writes
    (as rounded or bounded: "about £214 million" / "£214.3 million", "close to 10,000" / "9,870")? Not for a year,
    nor across currencies or what the two count (a share and a count)."""
    a, b = number_at(text, start, end), number_at(other, o_start, o_end)
    if a is None or b is None or a.soft or is_year(a) or is_year(b) or a.unit != b.unit:
        return False
    ca, cb = currency(text, a), currency(other, b)
    if ca and cb and ca != cb:
        return False
    return number_supported(a, [b.value])


def span_held(text: str, start: int, end: int, durations: list[float]) -> bool:
    """Does every number of the time text[start:end] count a span the sources name in some unit (`durations`, in
    days: "in ten years" where they say "a decade ago")? Then no other time of the evidence contradicts it."""
    # each span as exact as its unit: "two years" is no rounding of "eighteen months" here
    nums = [replace(n, precision=1e-9, approx="") for n in find_numbers(text) if start <= n.start < end and not n.soft]
    return bool(nums) and all(duration_supported(n, text, durations) for n in nums)


def conflict_span_held(text: str, conflict: dict[str, Any], pool: Any) -> bool:
    """span_held for a value conflict (local.value_conflicts) of a time that the sources (`pool`, an offline_sources
    pool) do not write in the unit's own words: the span said in another unit ("ten years" / "a decade ago"). A
    value they do write so ("a five-year-old girl" where they say "a five-year-old boy") is decided where it stands."""
    return (conflict.get("value_kind") == "time" and " ".join(conflict["text"].lower().split()) not in pool.lower_text()
            and span_held(text, conflict["start"], conflict["end"], pool.durations()))
