"""Sentence-aligned chunks of a source, so no verifier ever truncates a document silently."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import cast

# Sentence boundary: end punctuation followed by space and an upper-case letter, digit or quote; or a newline.
_BOUNDARY = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])|\n+")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    text: str


_ABBREV = re.compile(r"(?:\b(?:Mr|Mrs|Ms|Dr|Prof|St|Jr|Sr|Gen|Col|Lt|Sgt|Rev|Gov|Sen|Rep|No|v|vs|etc|Inc|Ltd|Co|Corp|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec|e\.g|i\.e)|\b[A-Z](?:\.[A-Z])*)\.$")


def split_sentences(text: str) -> list[Span]:
    """Cheap, offset-keeping sentence split (no model). Empty pieces are dropped; 'Dr. Smith' and 'Roe v. Wade' stay
    whole."""
    spans: list[Span] = []
    pos = 0
    for m in _BOUNDARY.finditer(text):
        if "\n" not in m.group(0) and _ABBREV.search(text[pos : m.start()]):
            continue
        _add(spans, text, pos, m.start())
        pos = m.end()
    _add(spans, text, pos, len(text))
    return spans


def _add(spans: list[Span], text: str, start: int, end: int) -> None:
    piece = text[start:end]
    stripped = piece.strip()
    if not stripped:
        return
    lead = len(piece) - len(piece.lstrip())
    start += lead
    spans.append(Span(start, start + len(stripped), stripped))


def word_count(text: str) -> int:
    return len(_WORD.findall(text))


def chunk_text(text: str, max_words: int, sentences: list[Span] | None = None) -> list[Span]:
    """Group whole sentences into chunks of at most max_words words (a longer sentence is split at word bounds)."""
    if max_words <= 0:
        raise ValueError("max_words must be positive")
    sentences = sentences if sentences is not None else split_sentences(text)
    pieces: list[Span] = []
    for s in sentences:  # split over-long sentences into word windows
        words = list(_WORD.finditer(s.text))
        if len(words) <= max_words:
            pieces.append(s)
            continue
        for i in range(0, len(words), max_words):
            w = words[i : i + max_words]
            a, b = s.start + w[0].start(), s.start + w[-1].end()
            pieces.append(Span(a, b, text[a:b]))
    chunks: list[Span] = []
    cur_start = cur_end = None
    cur_words = 0
    for p in pieces:
        n = word_count(p.text)
        if cur_start is not None and cur_words + n > max_words:
            chunks.append(Span(cur_start, cast(int, cur_end), text[cur_start:cur_end]))  # set with cur_start
            cur_start, cur_words = None, 0
        if cur_start is None:
            cur_start = p.start
        cur_end = p.end
        cur_words += n
    if cur_start is not None:
        chunks.append(Span(cur_start, cast(int, cur_end), text[cur_start:cur_end]))  # set with cur_start
    return chunks
