"""The refine vocabulary: what strategies, revisers and the loop say to each other.

`Feedback` (a strategy's comment and what it is made of), `CitationIssue`, `Revision` (a reviser's answer),
`Reviser` (the reviser protocol), `noun` (what a text is called in prompts) and `render_sources` (the sources as a
model reads them). feedback.py, revise.py and offline.py import these from here, never from each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from citefix.models import CallRecord, Case, Evaluation, Unit, Verdict

NOUNS = {"summary": "summary", "cited_answer": "answer"}


def noun(case: Case) -> str:
    return NOUNS.get(case.kind or "summary", "text")


@dataclass
class CitationIssue:
    """One problem with a cited answer's citations."""

    kind: str  # unsupported_claim | redundant | missing_passage
    claim: str
    cited: list[str] = field(default_factory=list)  # the group's passage ids
    source: str | None = None  # the citation in question (redundant, missing_passage)
    unit: Unit | None = None
    supported_by: list[str] = field(default_factory=list)  # passages it does not cite that support the claim


@dataclass
class Feedback:
    """What a strategy says about one evaluated text."""

    strategy: str
    comment: str | None
    units: list[Unit] = field(default_factory=list)  # units the feedback names as unsupported
    verdicts: dict[str, Verdict] = field(default_factory=dict)  # their verdicts, by unit id
    citations: list[CitationIssue] = field(default_factory=list)
    rating: float | None = None  # critique: the 1-5 consistency rating
    calls: list[CallRecord] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class Revision:
    """A reviser's answer. `text` is None when there is none; `reason` then says why (it ends the run)."""

    text: str | None
    reason: str | None = None  # empty | refused | no_feedback | nothing_to_delete | ...
    message: str | None = None  # a readable account of `reason`
    raw: str | None = None  # the model's answer as written
    calls: list[CallRecord] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what was cleaned or cut (stripped preamble, removed marks, …)
    edits: list[dict[str, Any]] = field(default_factory=list)  # offline reviser: corrections and deletions, with why


def edit_kind(edit: dict[str, Any]) -> str:
    """The family of an offline edit: correction, deletion or citation."""
    kind = str(edit.get("kind", ""))
    if kind.startswith("correction"):
        return "correction"
    if kind == "citation":
        return "citation"
    return "deletion"


def edits_by_kind(edits: list[dict[str, Any]] | None) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in edits or []:
        if e.get("text") and e.get("kind") not in ("note", "skipped", "kept"):
            k = edit_kind(e)
            out[k] = out.get(k, 0) + 1
    return out


class Reviser(Protocol):
    name: str

    def revise(self, case: Case, feedback: Feedback, evaluation: Evaluation) -> Revision: ...


def render_sources(case: Case) -> str:
    """The sources as the model reads them: one document bare, several (or passages) numbered with their titles."""
    if len(case.sources) == 1 and case.kind != "cited_answer":
        return case.sources[0].text
    parts = []
    for s in case.sources:
        head = f"[{s.id}]" + (f" {s.title}" if s.title else "")
        parts.append(f"{head}\n{s.text}")
    return "\n\n".join(parts)
