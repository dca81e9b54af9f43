"""What a refinement session is given, and small adapters it hands to its collaborators.

Given: `SessionParts` (the built collaborators: verifier, decomposer, LLM client, feedback strategy, reviser, judge;
`citefix.pipeline.session_parts` builds them from a pipeline), `StopRules` (max rounds, target, patience) and
`RunRecord` (what the run row records: the command, the input path and the caller's settings).

Adapters: a decomposer that gives back units already cut (the judge scores the primary verifier's units), a holder
that lets `collect_calls` find the session's LLM client, and the whitespace-blind comparison of two texts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from citefix.models import Case, Unit

if TYPE_CHECKING:
    from citefix.decompose.base import Decomposer
    from citefix.llm.client import LLMClient
    from citefix.revision.feedback import FeedbackStrategy
    from citefix.revision.vocabulary import Reviser
    from citefix.verify.base import Verifier


@dataclass
class SessionParts:
    """The collaborators of one session, built. strategy None: a session that only checks (no revision round)."""

    verifier: Verifier
    decomposer: Decomposer
    llm: LLMClient | None = None
    strategy: FeedbackStrategy | None = None
    reviser: Reviser | None = None
    judge_verifier: Verifier | None = None  # a second verifier that scores each round and picks the best
    judge_decomposer: Decomposer | None = None
    aggregation: str = "mean"  # how unit scores make the text's score


@dataclass(frozen=True)
class StopRules:
    """When the loop stops (besides all supported, an unchanged text and the other stop reasons): after max_rounds
    revision rounds, once the score reaches target, or after patience rounds without improvement (None: off)."""

    max_rounds: int | None = 3
    target: float | None = None
    patience: int | None = None

    def as_settings(self) -> dict[str, Any]:
        return {"max_rounds": self.max_rounds, "target": self.target, "patience": self.patience}


@dataclass
class RunRecord:
    """What the run row records besides the collaborators' names: the command, the input's path, and the caller's
    settings (a resumed run is rebuilt from them)."""

    command: str = "refine"
    input_path: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)


class _FixedUnits:
    """A decomposer that hands back units already cut (the judge scores the primary's units)."""

    llm = None

    def __init__(self, units: list[Unit], name: str):
        self._units = units
        self.name = name
        self.errors: list[str] = []

    def units(self, case: Case, *args, **kwargs) -> list[Unit]:
        return [u.model_copy(deep=True) for u in self._units]


class _Holder:
    def __init__(self, llm):
        self.llm = llm


def _norm(text: str) -> str:
    return " ".join(text.split())
