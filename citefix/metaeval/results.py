"""A meta-eval run's result: per-item scores, decompositions, statistics, and the run's facts (typed, pydantic)."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, Field, SerializeAsAny, field_validator

from citefix.metaeval import protocols as P
from citefix.metaeval.loaders import Shape, SkippedRecord
from citefix.version import __version__

Aggregate = Literal["min", "mean"]


class ItemScore(BaseModel):
    """One verifier's score for one evaluation item, with the human labels beside it (one store row)."""

    item_id: str
    index: int = Field(description="Position in the ordered list of evaluation items (drives the BAcc split).")
    line: int
    group: str | None = Field(default=None, description="The record the item comes from, when it holds several.")
    verifier: str
    score: float | None
    error: str | None = None
    label: int | None = None
    level: int | None = None
    rating: float | None = None
    unit_scores: list[float | None] = Field(default_factory=list)
    unit_labels: list[str] = Field(default_factory=list)
    predicted_spans: list[tuple[int, int]] = Field(default_factory=list)
    chunk_scores: list[float | None] | None = None
    chunk_relevance: list[int] | None = None
    chunk_error: str | None = None
    seconds: float = 0.0
    by: dict[str, Any] = Field(default_factory=dict, description="The item's values of the --by fields.")


class DecompositionScore(BaseModel):
    item_id: str
    index: int
    line: int
    units: list[str]
    gold: list[str]
    rouge1: float | None = None
    coverage: float | None = None
    error: str | None = None


class Performance(BaseModel):
    system: str
    items: int
    seconds: float
    items_per_s: float | None
    items_per_s_after_first: float | None = Field(
        default=None, description="Throughput without the first item, which pays for loading models.")
    peak_rss_mb: float = Field(description="Peak resident memory of the whole process after this system ran.")


class MetaEvalResult(BaseModel):
    path: str
    shape: Shape
    records: int = Field(description="Records read from the file.")
    items: int = Field(description="Evaluation items (records, or labelled sentences for cited answers).")
    skipped: list[SkippedRecord] = Field(default_factory=list)
    unscorable: list[dict[str, Any]] = Field(
        default_factory=list, description="Labelled sentences that could not be scored: {item_id, line, index, text, "
                                          "problem} (cited answers whose mark names a passage the record lacks).")
    limit: int | None = None
    aggregate: Aggregate = "min"
    decomposer: str | None = None
    verifiers: list[str] = Field(default_factory=list)
    seed: int = 0
    bootstrap: int = 1000
    chunk_words: int | None = None
    by: list[str] = Field(default_factory=list, description="Record fields the statistics are also grouped by.")
    stats: list[SerializeAsAny[P.Stat]] = Field(default_factory=list)
    scores: list[ItemScore] = Field(default_factory=list)
    decompositions: list[DecompositionScore] = Field(default_factory=list)
    performance: list[Performance] = Field(default_factory=list)
    peak_rss_mb: float = 0.0
    started_at: str = ""
    duration_s: float = 0.0
    cancelled: bool = False
    notes: list[str] = Field(default_factory=list)
    version: str = __version__

    @field_validator("stats", mode="before")
    @classmethod
    def _typed_stats(cls, v: Any) -> Any:
        # JSON read back: a statistic with a threshold is a ThresholdStat again.
        if isinstance(v, list):
            return [P.ThresholdStat.model_validate(x) if isinstance(x, dict) and "threshold" in x else x for x in v]
        return v

    def stat(self, protocol: str, name: str, system: str, group: str | None = None,
             by: str | None = None) -> P.Stat | None:
        """An overall statistic, or with ``group`` that of one group (of ``by``, default the first --by field)."""
        if group is not None and by is None:
            by = self.by[0] if self.by else None
        return next((s for s in self.stats if s.protocol == protocol and s.name == name and s.system == system
                     and s.group == group and s.by == (by if group is not None else None)), None)

    def protocols(self) -> list[str]:
        return list(dict.fromkeys(s.protocol for s in self.stats if s.by is None))

    def groups(self, by: str) -> list[str]:
        return list(dict.fromkeys(s.group for s in self.stats if s.by == by and s.group is not None))


MISSING_GROUP = "(missing)"


def group_value(v: Any) -> str:
    """The group key of a field value: strings as they are, anything else as JSON; absent → "(missing)"."""
    if v is None:
        return MISSING_GROUP
    if isinstance(v, str):
        return v
    return json.dumps(v, sort_keys=True, ensure_ascii=False)
