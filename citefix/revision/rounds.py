"""The records of a refinement run: a stored `Round`, a `Proposal` not stored yet, and the `RefineResult` of a run.

`citefix.revision.session` builds and keeps them (and re-exports them under its own name).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from citefix.models import CallRecord, Evaluation
from citefix.revision.vocabulary import Feedback, Revision

# Stop reasons that mean something failed (the CLI exits 3 on them).
FAILURE_REASONS = {"evaluation_error", "llm_error", "revision_empty", "revision_refused"}

@dataclass(eq=False)
class Round:
    """One stored round (its evaluation kept in memory)."""

    n: int
    text: str
    evaluation: Evaluation
    judge: Evaluation | None = None
    comment: str | None = None
    parent: int | None = None
    accepted: bool = True
    status: str = "done"
    strategy: str | None = None
    edit_prev: int | None = None
    edit_orig: int | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost: float | None = 0.0  # None: a call had no price (unknown, not free)
    duration_s: float | None = None

    @property
    def score(self) -> float | None:
        return self.evaluation.score

    @property
    def judge_score(self) -> float | None:
        return self.judge.score if self.judge is not None else None

    @property
    def n_units(self) -> int:
        return len(self.evaluation.checked_units)

    @property
    def n_unsupported(self) -> int:
        return len(self.evaluation.unsupported)

    def summary(self) -> dict[str, Any]:
        return {"round": self.n, "score": self.score, "judge_score": self.judge_score, "n_units": self.n_units,
                "n_unsupported": self.n_unsupported, "edit_prev": self.edit_prev, "edit_orig": self.edit_orig,
                "parent": self.parent, "accepted": self.accepted, "status": self.status,
                "tokens": self.prompt_tokens + self.completion_tokens, "cost": self.cost, "duration_s": self.duration_s}


@dataclass(eq=False)
class Proposal:
    """A revision of round `parent`, not stored yet. `text` is None when the reviser gave none (`reason` says why)."""

    parent: int
    text: str | None
    comment: str | None
    feedback: Feedback
    revision: Revision | None
    reason: str | None = None
    message: str | None = None
    edit_prev: int | None = None
    calls: list[CallRecord] = field(default_factory=list)
    duration_s: float = 0.0
    evaluation: Evaluation | None = None
    judge: Evaluation | None = None
    settled: bool = False  # accepted or rejected already

    @property
    def notes(self) -> list[str]:
        """What the reviser said about its revision (dropped marks, unchanged parts)."""
        return list(self.revision.notes) if self.revision is not None else []


@dataclass
class RefineResult:
    run_id: int | None
    case_id: str
    status: str  # finished | cancelled | interrupted | failed
    stop_reason: str
    best_round: int
    best_score: float | None
    best_judge_score: float | None
    best_text: str
    original_text: str
    rounds: list[dict[str, Any]]
    message: str | None = None

    @property
    def failed(self) -> bool:
        return self.status == "failed" or self.stop_reason in FAILURE_REASONS

    def as_dict(self) -> dict[str, Any]:
        return {"run_id": self.run_id, "case_id": self.case_id, "status": self.status, "stop_reason": self.stop_reason,
                "message": self.message, "best_round": self.best_round, "best_score": self.best_score,
                "best_judge_score": self.best_judge_score, "text": self.best_text, "rounds": self.rounds}
