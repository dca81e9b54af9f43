"""Citation marks in a cited answer: find them, group them, give each group to its sentence, and clean the sentence.

A mark is `[1]`, `[1, 2]`, `[1-3]`, `[ 2 ]` (a list of numbers and ranges in brackets). Marks separated only by spaces
or tabs form one *group* (`[1][2]`, `[4] [5]`). Every group belongs to one sentence; a group written after the
sentence's final punctuation (`... plastic. [2]`, `... plastic.[2][3]`) belongs to the sentence it follows, not to the
next one (ALCE's evaluator gets this wrong when it splits sentences before looking at marks).

Each sentence is also given *cleaned* (marks removed, together with the spaces before them; nothing else is touched, so
"3.08 million" and the final "." survive), with a map from every cleaned character back to the original text and, for
each group, its character position in the cleaned sentence and in the original text.

Problems never raise: a mark naming a passage that is not in the case is kept on its group (`missing`) and reported
("passage [7] not found"); a bracket that looks like a botched mark (`[1-]`, `[a]`, `[]`, `[3-1]`) stays in the text as
text and is reported as a warning. An answer without marks parses to a structure whose `cited` is False.
"""

from __future__ import annotations

import re
from typing import Iterable, Literal, cast

from pydantic import BaseModel, ConfigDict, Field

from citefix.chunking import split_sentences

# A well-formed mark: numbers and ranges separated by commas, spaces allowed anywhere inside the brackets.
_MARK = re.compile(r"\[\s*\d+(?:\s*[-–]\s*\d+)?(?:\s*,\s*\d+(?:\s*[-–]\s*\d+)?)*\s*\]")
# Anything short in brackets: checked to tell a botched mark from ordinary bracketed text ("[sic]").
_BRACKET = re.compile(r"\[([^\[\]\n]{0,20})\](?!\()")
_RANGE = re.compile(r"^(\d+)\s*[-–]\s*(\d+)$")
_WORD = re.compile(r"\S+")
_ALNUM = re.compile(r"\w")
# Marks closer than this (spaces or tabs only between them) belong to one group.
_GROUP_GAP = re.compile(r"[ \t]*")
_BULLET = re.compile(r"(?<=[.!?:;])[ \t]+(?=[-*•][ \t]+\S)")
_MARKER = re.compile(r"[-*•][ \t]+(?=\S)")
MAX_RANGE = 100  # a range naming more passages than this is treated as malformed ("[1-2000]")

WarningCode = Literal["malformed", "missing", "orphan"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Mark(_Frozen):
    """One mark as written, e.g. `[1-3]`, with the passage ids it names."""

    raw: str
    start: int = Field(description="Character offset in the original text.")
    end: int
    ids: list[str]


class CitationGroup(_Frozen):
    """Adjacent marks, e.g. `[2][3]`: cite one stretch of text together."""

    index: int = Field(description="Index of the group in the answer, in text order (0-based).")
    sentence: int = Field(description="Index of the sentence the group belongs to.")
    ids: list[str] = Field(description="Passage ids in the order written, without duplicates.")
    missing: list[str] = Field(default_factory=list, description="Ids not among the case's sources.")
    marks: list[Mark]
    start: int = Field(description="Start of the group in the original text.")
    end: int
    clean_offset: int = Field(description="Character position of the group in the cleaned sentence.")
    word_position: int = Field(description="Number of words of the cleaned sentence before the group.")
    sentence_words: int = Field(description="Number of words in the cleaned sentence.")
    at_end: bool = Field(description="Only punctuation follows the group in its sentence.")

    @property
    def relative_position(self) -> float:
        """word_position / sentence_words (1.0 at the end of the sentence); 0.0 for an empty sentence."""
        return self.word_position / self.sentence_words if self.sentence_words else 0.0

    @property
    def messages(self) -> list[str]:
        return [f"passage [{m}] not found" for m in self.missing]


class Sentence(_Frozen):
    """One sentence of the answer, with its groups and its cleaned text."""

    index: int
    start: int = Field(description="Span in the original text, covering the sentence's groups.")
    end: int
    text: str = Field(description="The original text of the span, marks included.")
    clean: str = Field(description="The sentence with citation marks removed.")
    groups: list[CitationGroup] = Field(default_factory=list)
    offsets: list[int] = Field(
        default_factory=list,
        exclude=True,
        repr=False,
        description="For each character of `clean`, its offset in the original text (-1 for an inserted space).",
    )

    @property
    def cited(self) -> bool:
        return bool(self.groups)

    @property
    def word_count(self) -> int:
        return len(_WORD.findall(self.clean))

    @property
    def cited_ids(self) -> list[str]:
        """All ids the sentence cites, in order, without duplicates."""
        return list(dict.fromkeys(i for g in self.groups for i in g.ids))

    def original_pieces(self, start: int, end: int) -> list["Piece"]:
        """The stretches of the original text behind cleaned characters [start, end), split where marks were removed."""
        spans: list[tuple[int, int]] = []
        a = b = None  # current piece, original offsets [a, b)
        for k in range(max(0, start), min(end, len(self.offsets))):
            o = self.offsets[k]
            if o < 0:  # an inserted space: a hard break
                if a is not None:
                    spans.append((a, cast(int, b)))  # b is set with a
                a = b = None
                continue
            if a is not None and o == b:
                b = o + 1
                continue
            if a is not None:
                spans.append((a, cast(int, b)))  # b is set with a
            a, b = o, o + 1
        if a is not None:
            spans.append((a, cast(int, b)))  # b is set with a
        return [p for p in (_strip_piece(self, x, y) for x, y in spans) if p is not None]


class Piece(_Frozen):
    """An exact stretch of the original text."""

    start: int
    end: int
    text: str


def _strip_piece(sentence: Sentence, a: int, b: int) -> Piece | None:
    # Sentence.text starts at sentence.start; recover the original substring from it.
    raw = sentence.text[a - sentence.start : b - sentence.start]
    lead = len(raw) - len(raw.lstrip())
    stripped = raw.strip()
    if not stripped:
        return None
    return Piece(start=a + lead, end=a + lead + len(stripped), text=stripped)


class CitationWarning(_Frozen):
    code: WarningCode
    message: str
    start: int | None = None
    end: int | None = None


class ParsedAnswer(_Frozen):
    """A cited answer cut into sentences, each with its citation groups."""

    text: str
    sentences: list[Sentence]
    warnings: list[CitationWarning] = Field(default_factory=list)

    @property
    def groups(self) -> list[CitationGroup]:
        return [g for s in self.sentences for g in s.groups]

    @property
    def cited(self) -> bool:
        """False when the answer carries no well-formed citation mark at all."""
        return any(s.groups for s in self.sentences)

    @property
    def missing(self) -> list[str]:
        return list(dict.fromkeys(m for g in self.groups for m in g.missing))

    @property
    def messages(self) -> list[str]:
        return [w.message for w in self.warnings]


def parse_mark(raw: str) -> list[str] | None:
    """The ids a mark names (`[1-3]` → ['1', '2', '3']), or None when it is malformed (reversed or huge range)."""
    inner = raw.strip()[1:-1]
    ids: list[str] = []
    for part in inner.split(","):
        part = part.strip()
        m = _RANGE.match(part)
        if m:
            a, b = int(m.group(1)), int(m.group(2))
            if b < a or b - a + 1 > MAX_RANGE:
                return None
            ids.extend(str(x) for x in range(a, b + 1))
        elif part.isdigit():
            ids.append(part)
        else:
            return None
    return ids


def _normalise_id(raw: str, known: set[str] | None) -> str:
    """'07' stays '07' when a source is called that; otherwise ids are compared as numbers ('07' → '7')."""
    if known is not None and raw in known:
        return raw
    return str(int(raw))


def _looks_like_mark(inner: str) -> bool:
    s = inner.strip()
    return s == "" or any(c.isdigit() for c in s) or (len(s) <= 2 and s.isalpha())


def find_marks(text: str, source_ids: Iterable[str] | None = None) -> tuple[list[Mark], list[CitationWarning]]:
    """Well-formed marks in text order, and warnings for botched ones (left in the text)."""
    known = set(source_ids) if source_ids is not None else None
    marks: list[Mark] = []
    warnings: list[CitationWarning] = []
    for m in _BRACKET.finditer(text):
        raw = m.group(0)
        ids = parse_mark(raw) if _MARK.fullmatch(raw) else None
        if ids is not None:
            ids = list(dict.fromkeys(_normalise_id(i, known) for i in ids))
            marks.append(Mark(raw=raw, start=m.start(), end=m.end(), ids=ids))
        elif _looks_like_mark(m.group(1)):
            warnings.append(
                CitationWarning(
                    code="malformed",
                    message=f"malformed citation mark {raw!r} at offset {m.start()} left as text",
                    start=m.start(),
                    end=m.end(),
                )
            )
    return marks, warnings


def _group_marks(text: str, marks: list[Mark]) -> list[list[Mark]]:
    groups: list[list[Mark]] = []
    for mk in marks:
        if groups:
            prev = groups[-1][-1]
            gap = text[prev.end : mk.start]
            if _GROUP_GAP.fullmatch(gap):
                groups[-1].append(mk)
                continue
        groups.append([mk])
    return groups


def parse_citations(text: str, source_ids: Iterable[str] | None = None) -> ParsedAnswer:
    """Parse a cited answer. `source_ids` (the case's passage ids) lets unknown ids be reported as missing."""
    known = list(source_ids) if source_ids is not None else None
    marks, warnings = find_marks(text, known)
    raw_groups = _group_marks(text, marks)

    # Split sentences on a copy where marks are blanked out, so "plastic. [2] Next" splits after the group and
    # "plastic.[2][3] Next" splits at all; offsets are unchanged.
    masked = list(text)
    for mk in marks:
        masked[mk.start : mk.end] = " " * (mk.end - mk.start)
    masked_text = "".join(masked)
    spans = [list(sp) for s in split_sentences(masked_text) for sp in _split_bullets(masked_text, s.start, s.end)]

    # Give every group to the sentence that contains it, or else to the sentence before it (the first if none).
    owner: list[int] = []
    for grp in raw_groups:
        g_start, g_end = grp[0].start, grp[-1].end
        k = None
        for idx, (a, b) in enumerate(spans):
            if a <= g_start < b:
                k = idx
                break
            if a <= g_start:
                k = idx
        if k is None and spans:
            k = 0
        if k is None:
            warnings.append(
                CitationWarning(
                    code="orphan",
                    message=f"citation group {text[g_start:g_end]!r} at offset {g_start} cites no text",
                    start=g_start,
                    end=g_end,
                )
            )
            owner.append(-1)
            continue
        spans[k][0] = min(spans[k][0], g_start)
        spans[k][1] = max(spans[k][1], g_end)
        owner.append(k)

    known_set = set(known) if known is not None else None
    sentences: list[Sentence] = []
    g_index = 0
    for s_idx, (a, b) in enumerate(spans):
        mine = [grp for grp, o in zip(raw_groups, owner) if o == s_idx]
        clean, offsets, positions = _clean(text, a, b, [(g[0].start, g[-1].end) for g in mine])
        n_words = len(_WORD.findall(clean))
        groups: list[CitationGroup] = []
        for grp, pos in zip(mine, positions):
            ids = list(dict.fromkeys(i for mk in grp for i in mk.ids))
            missing = [i for i in ids if known_set is not None and i not in known_set]
            for i in missing:
                warnings.append(
                    CitationWarning(
                        code="missing", message=f"passage [{i}] not found", start=grp[0].start, end=grp[-1].end
                    )
                )
            groups.append(
                CitationGroup(
                    index=g_index,
                    sentence=s_idx,
                    ids=ids,
                    missing=missing,
                    marks=grp,
                    start=grp[0].start,
                    end=grp[-1].end,
                    clean_offset=pos,
                    word_position=len(_WORD.findall(clean[:pos])),
                    sentence_words=n_words,
                    at_end=not _ALNUM.search(clean[pos:]),
                )
            )
            g_index += 1
        sentences.append(
            Sentence(index=s_idx, start=a, end=b, text=text[a:b], clean=clean, groups=groups, offsets=offsets)
        )
    warnings.sort(key=lambda w: (w.start if w.start is not None else -1))
    return ParsedAnswer(text=text, sentences=sentences, warnings=warnings)


def _split_bullets(text: str, a: int, b: int) -> list[tuple[int, int]]:
    """Split a span where a list item starts inline after a sentence end ("... logbook. - Conduct ..."), and leave
    list markers ("- ", "* ", "• ") out of the sentences."""
    m: re.Match[str] | None
    out, pos = [], a
    for m in _BULLET.finditer(text, a, b):
        out.append((pos, m.start()))
        pos = m.end()
    out.append((pos, b))
    trimmed = []
    for x, y in out:  # the item's marker is not part of its sentence
        m = _MARKER.match(text, x, y)
        x = m.end() if m else x
        if text[x:y].strip():
            trimmed.append((x, y))
    return trimmed


def parse_case(case) -> ParsedAnswer:
    """parse_citations(case.text) with the case's source ids."""
    return parse_citations(case.text, [s.id for s in case.sources])


def _clean(text: str, a: int, b: int, groups: list[tuple[int, int]]) -> tuple[str, list[int], list[int]]:
    """Text[a:b] without the group spans (and the spaces before each; after it at the sentence start).

    Returns the cleaned text, the original offset of each cleaned character, and each group's cleaned position.
    """
    out: list[str] = []
    offs: list[int] = []
    positions: list[int] = []
    pos = a
    for gs, ge in groups:
        seg_end = gs
        out_seg = text[pos:seg_end]
        # drop the whitespace right before the group
        trimmed = out_seg.rstrip(" \t")
        out.extend(trimmed)
        offs.extend(range(pos, pos + len(trimmed)))
        pos = ge
        if not out or not "".join(out).strip():
            # group at the sentence start: also drop the whitespace after it
            while pos < b and text[pos] in " \t":
                pos += 1
            positions.append(len(out))
            continue
        positions.append(len(out))
        # "glass[1]or": keep the two words apart with one inserted space
        if pos < b and out and _ALNUM.match(out[-1]) and _ALNUM.match(text[pos]):
            out.append(" ")
            offs.append(-1)
    out.extend(text[pos:b])
    offs.extend(range(pos, b))
    clean = "".join(out)
    # The sentence may start with whitespace left by a removed leading group; drop it and shift positions.
    lead = len(clean) - len(clean.lstrip())
    if lead:
        clean, offs = clean[lead:], offs[lead:]
        positions = [max(0, p - lead) for p in positions]
    tail = len(clean.rstrip())
    clean, offs = clean[:tail], offs[:tail]
    positions = [min(p, len(clean)) for p in positions]
    return clean, offs, positions
