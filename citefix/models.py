"""Typed data that flows through citefix: cases in, units and verdicts out.

Everything here is a pydantic model so it validates on the way in and serialises to JSON for the store and `--json`.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

CaseKind = Literal["summary", "cited_answer"]
Label = Literal["supported", "partial", "unsupported", "error"]

# A citation mark: [1], [1][2], [1, 2], [1-3], [ 2 ]. Used only to detect the kind of a case here;
# citefix.marks owns full parsing.
_CITATION_MARK = re.compile(r"\[\s*\d+(?:\s*(?:,|-|–)\s*\d+)*\s*\]")


class Source(BaseModel):
    """One source document or numbered passage."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Identifier; for a cited answer, the number its marks use ([1] → '1').")
    title: str = ""
    text: str

    @field_validator("id", mode="before")
    @classmethod
    def _id_to_str(cls, v: Any) -> Any:
        return str(v) if isinstance(v, int) else v

    @field_validator("text")
    @classmethod
    def _text_not_empty(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("source text is empty")
        return v


class Case(BaseModel):
    """A summary with its source document(s), or a cited answer with its numbered passages."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(description="Your identifier for this case.")
    sources: list[Source] = Field(min_length=1)
    text: str = Field(description="The summary or the cited answer to check.")
    question: str | None = None
    kind: CaseKind | None = Field(
        default=None, description="'summary' or 'cited_answer'; detected from citation marks when left out."
    )
    metadata: dict[str, Any] = Field(default_factory=dict, description="Anything else; kept, never interpreted.")

    @field_validator("id", mode="before")
    @classmethod
    def _id_to_str(cls, v: Any) -> Any:
        return str(v) if isinstance(v, int) else v

    @field_validator("text")
    @classmethod
    def _text_not_empty(cls, v: str) -> str:
        if not v.strip():
            raise ValueError("text is empty")
        return v

    def model_post_init(self, __context: Any) -> None:
        if self.kind is None:
            self.kind = "cited_answer" if _CITATION_MARK.search(self.text) else "summary"

    @property
    def source_text(self) -> str:
        """All sources joined, for single-document methods."""
        return "\n\n".join(s.text for s in self.sources)

    def source(self, source_id: str) -> Source | None:
        return next((s for s in self.sources if s.id == source_id), None)

    def with_text(self, text: str) -> "Case":
        return self.model_copy(update={"text": text})

    def content_hash(self) -> str:
        payload = json.dumps(
            {"sources": [s.model_dump() for s in self.sources], "text": self.text, "question": self.question},
            sort_keys=True,
        )
        return hashlib.sha256(payload.encode()).hexdigest()[:16]


class Unit(BaseModel):
    """An atomic unit to verify: an ACU, a clause, a citation claim or a whole sentence."""

    id: str = Field(description="Stable within one evaluation: u1, u2, …")
    text: str
    kind: Literal["acu", "clause", "claim", "sentence"]
    decomposer: str
    start: int | None = Field(default=None, description="Character span in the case text; None if not aligned.")
    end: int | None = None
    note: str | None = Field(default=None, description="Why the unit has no span, or how it was cut (fallback).")
    cited: list[str] = Field(default_factory=list, description="Source ids this unit cites (cited answers).")
    sentence: int | None = Field(default=None, description="Index of the sentence the unit comes from.")
    group: int | None = Field(default=None, description="Index of the citation group (cited answers).")
    meta: dict[str, Any] = Field(default_factory=dict)

    @property
    def has_span(self) -> bool:
        return self.start is not None and self.end is not None


class Evidence(BaseModel):
    source_id: str
    start: int = Field(description="Character offset in that source's text.")
    end: int
    text: str


class Verdict(BaseModel):
    """One verifier's judgement of one unit against one set of sources."""

    unit_id: str
    verifier: str
    score: float | None = Field(description="Support in [0, 1]; None only when error is set.")
    label: Label
    discrete: bool = Field(default=False, description="True when the score is a parsed 0/1 answer, not a probability.")
    evidence: Evidence | None = None
    target: list[str] = Field(
        default_factory=list, description="Source ids judged against; empty means all of the case's sources."
    )
    unsupported_spans: list[tuple[int, int]] = Field(
        default_factory=list, description="Character spans in the case text the verifier marks as unsupported."
    )
    details: dict[str, Any] = Field(default_factory=dict)
    error: str | None = None


class CallRecord(BaseModel):
    """One model call as the store keeps it."""

    purpose: str
    model: str
    prompt_name: str | None = None
    prompt_version: str | None = None
    prompt_hash: str | None = None
    messages: list[dict[str, Any]]
    response: str | None = None
    logprobs: list[dict[str, Any]] | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    latency_ms: float | None = None
    cost: float | None = None
    cached: bool = False
    error: str | None = None
    attempts: int = 1
    status: str = "ok"  # ok | cached | retried (a failed attempt that was retried) | error (the call failed)
    error_class: str | None = None  # rate_limit | timeout | connection | server_error | malformed_response | …
    attempt: int | None = None  # which attempt this row is (1-based)
    deployment: str | None = None  # the litellm Router deployment (model_info id) it went to, when a Router sent it
    api_base: str | None = None  # the base URL it went to
    router_fallbacks: int | None = None  # times a litellm Router moved it on (retry, fallback) before it was answered
    logged_id: int | None = Field(default=None, exclude=True)  # the calls row written as the call completed


class Evaluation(BaseModel):
    """The result of checking one text: units, verdicts, scores. Round 0 of every run is one of these."""

    case_id: str
    kind: CaseKind
    text: str
    status: Literal["ok", "no_units", "uncited", "error", "partial"] = Field(
        default="ok", description="'uncited': a cited answer without any citation mark (score None); 'partial': some "
                                  "unit could not be generated or verified (its score is never taken as whole).")
    message: str | None = None
    units: list[Unit] = Field(default_factory=list)
    verdicts: list[Verdict] = Field(default_factory=list)
    score: float | None = Field(default=None, description="Mean unit score; None when there are no checkable units.")
    scores: dict[str, float | None] = Field(default_factory=dict, description="Named scores (acueval, recall, …).")
    metrics: dict[str, Any] = Field(default_factory=dict, description="Structured metrics (citations, support).")
    decomposer: str = ""
    verifier: str = ""
    models: list[str] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    duration_s: float | None = None
    calls: list[CallRecord] = Field(default_factory=list, exclude=True)

    def verdict_for(self, unit_id: str, verifier: str | None = None) -> Verdict | None:
        """The unit's own verdict: the one flagged details["role"] == "unit" (a cited answer's claim judged against
        its group's passages), else the first judged against all sources (empty target)."""
        first = None
        for v in self.verdicts:
            if v.unit_id != unit_id or (verifier is not None and v.verifier != verifier):
                continue
            if v.details.get("role") == "unit":
                return v
            if first is None and not v.target:
                first = v
        return first

    @property
    def checked_units(self) -> list[Unit]:
        """The units the score rests on: a cited answer's ALiiCE claims, not the ALCE sentence units kept beside them
        for comparison. Every view counts these (check, the store's n_units, refine)."""
        return [u for u in self.units if u.meta.get("method") != "alce"]

    @property
    def unsupported(self) -> list[Unit]:
        out = []
        for u in self.units:
            v = self.verdict_for(u.id)
            if v is not None and v.label in ("unsupported", "partial"):
                out.append(u)
        return out
