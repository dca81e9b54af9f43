"""Align free-written units (ACUs) to the character span of the text they come from.

Exact matches win; otherwise the sentence sharing most of the unit's content words, spanning its first to last matched
word. Repeated phrases go to distinct occurrences, left to right. A unit with too little overlap keeps no span.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from citefix.chunking import split_sentences
from citefix.lexicon import STOPWORDS

_TOKEN = re.compile(r"[A-Za-z0-9£$€%]+(?:[.,'][A-Za-z0-9]+)*")


def stem(word: str) -> str:
    w = word.lower().replace("'s", "")
    for suffix in ("ing", "ed", "es", "s"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix):
            return w[: -len(suffix)]
    return w


def content_tokens(text: str) -> list[tuple[str, int, int]]:
    """(stem, start, end) of each non-stopword token."""
    return [(stem(m.group()), m.start(), m.end()) for m in _TOKEN.finditer(text) if m.group().lower() not in STOPWORDS]


@dataclass
class Alignment:
    start: int | None
    end: int | None
    note: str | None = None


def align_units(text: str, units: list[str], *, min_overlap: float = 0.5) -> list[Alignment]:
    sentences = split_sentences(text) or []
    sent_tokens = [content_tokens(s.text) for s in sentences]
    lowered = text.lower()
    taken: dict[str, list[int]] = {}  # exact unit text → occurrence starts already used
    cursor = 0  # sentence index the previous unit aligned to
    out: list[Alignment] = []
    for unit in units:
        u = unit.strip().rstrip(".").strip()
        if not u:
            out.append(Alignment(None, None, "empty unit"))
            continue
        # 1. exact (case-insensitive) occurrence, distinct per repeat, preferring ones at or after the cursor
        occ = [m.start() for m in re.finditer(re.escape(u.lower()), lowered)]
        used = taken.setdefault(u.lower(), [])
        free = [o for o in occ if o not in used]
        if free:
            cur_start = sentences[cursor].start if sentences else 0
            pick = next((o for o in free if o >= cur_start), free[0])
            used.append(pick)
            out.append(Alignment(pick, pick + len(u)))
            cursor = _sentence_of(sentences, pick, cursor)
            continue
        # 2. best sentence by share of content words
        toks = content_tokens(u)
        if not toks or not sentences:
            out.append(Alignment(None, None, "no content words to align"))
            continue
        want = [t for t, _, _ in toks]
        best, best_share, best_span = None, 0.0, None
        order = list(range(cursor, len(sentences))) + list(range(0, cursor))
        for i in order:
            stems: dict[str, list[tuple[int, int]]] = {}
            for t, a, b in sent_tokens[i]:
                stems.setdefault(t, []).append((a, b))
            hits = _in_order(want, stems)
            share = len(hits) / len(want)
            if share > best_share + 1e-9:
                s = sentences[i]
                best, best_share = i, share
                best_span = (s.start + min(a for a, _ in hits), s.start + max(b for _, b in hits)) if hits else None
        if best is None or best_share < min_overlap or best_span is None:
            out.append(Alignment(None, None, f"could not align: only {best_share:.0%} of its words occur in one sentence"))
            continue
        cursor = best
        out.append(Alignment(best_span[0], best_span[1]))
    return out


def _in_order(want: list[str], stems: dict[str, list[tuple[int, int]]]) -> list[tuple[int, int]]:
    """One occurrence per wanted word, read left to right: each the first at or after the previous pick (a word
    that also occurs earlier in the sentence, like "housing" in "the housing committee … affordable housing", then
    takes its later occurrence), else its first occurrence."""
    hits: list[tuple[int, int]] = []
    pos = 0
    for t in want:
        occ = stems.get(t)
        if not occ:
            continue
        pick = next((o for o in occ if o[0] >= pos), occ[0])
        hits.append(pick)
        pos = max(pos, pick[1])
    return hits


def _sentence_of(sentences, pos: int, default: int) -> int:
    for i, s in enumerate(sentences):
        if s.start <= pos < s.end + 1:
            return i
    return default
