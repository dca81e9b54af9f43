"""Word-level edit distance between two texts: how much a revision changed."""

from __future__ import annotations


def words(text: str) -> list[str]:
    """The words of a text as the diff view shows them: whitespace-separated, punctuation attached."""
    return text.split()


def word_edit_distance(a: str, b: str) -> int:
    """Levenshtein distance over words (insertions, deletions and substitutions of whole words each cost 1)."""
    x, y = words(a), words(b)
    # common prefix and suffix cost nothing and are most of a light revision
    lo = 0
    while lo < len(x) and lo < len(y) and x[lo] == y[lo]:
        lo += 1
    hi_x, hi_y = len(x), len(y)
    while hi_x > lo and hi_y > lo and x[hi_x - 1] == y[hi_y - 1]:
        hi_x -= 1
        hi_y -= 1
    x, y = x[lo:hi_x], y[lo:hi_y]
    if not x or not y:
        return len(x) + len(y)
    prev = list(range(len(y) + 1))
    for i, wx in enumerate(x, 1):
        cur = [i] + [0] * len(y)
        for j, wy in enumerate(y, 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (wx != wy))
        prev = cur
    return prev[-1]
