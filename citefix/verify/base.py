"""The one interface every verifier implements, and the helpers they share."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, Sequence, runtime_checkable

from citefix.models import Case, Label, Unit, Verdict

if TYPE_CHECKING:
    from citefix.llm.client import LLMClient


@runtime_checkable
class Verifier(Protocol):
    """Judges units against a case's sources.

    `targets`, when given, has one entry per unit: the source ids that unit is judged against (a citation group's
    passages); None or an empty list means all of the case's sources. Returns one Verdict per unit, in order.

    Every implementation has these attributes (the core reads them directly; tests/unit/test_collaborator_protocols.py
    checks each one that citefix builds):

    - `name`: what verdicts, runs and reports record as the verifier.
    - `llm`: the LLM client it calls, or None. An evaluation drains its call log and records its model; a cited-answer
      evaluation with one asks in stages (fewer calls).
    - `model_name`: a model the verifier runs itself and that the user named (`nli:<model>`), recorded among an
      evaluation's models; None otherwise.
    - `supported_at(profile)`: the score at which it labels a unit supported under a calibration profile
      (`cited_answer` for cited answers; only the offline verifier has profiles), so cited-answer metrics and labels
      agree; 0.5 when the verifier has no threshold of its own.
    """

    name: str

    @property
    def llm(self) -> LLMClient | None: ...

    @property
    def model_name(self) -> str | None: ...

    def supported_at(self, profile: str) -> float: ...

    def verify(
        self, units: Sequence[Unit], case: Case, *, targets: Sequence[Sequence[str]] | None = None
    ) -> list[Verdict]: ...


@runtime_checkable
class ReadsContext(Protocol):
    """A verifier that reads each unit in the context of the whole text it was cut from (the offline judge): its
    verdicts of the units alone depend on each unit, its sources and the sentence that holds it (ReadsSetting), and
    `in_context` reads a text's verdicts in that text's context. The verdict cache keeps the first and applies the
    second on every call."""

    def verify_alone(
        self, units: Sequence[Unit], case: Case, *, targets: Sequence[Sequence[str]] | None = None
    ) -> list[Verdict]: ...

    def in_context(self, verdicts: Sequence[Verdict], units: Sequence[Unit], case: Case) -> list[Verdict]: ...


@runtime_checkable
class ReadsSetting(Protocol):
    """A verifier whose verdict of a unit alone reads, beyond the unit's words and its sources, the stretch of the
    checked text around the unit (the offline verifier: the sentence that holds it). The verdict cache keys a verdict
    by that stretch too, so that a reused verdict is the one a fresh check would give."""

    def setting(self, unit: Unit, case: Case) -> str: ...


@runtime_checkable
class Wrapping(Protocol):
    """A verifier that hands its work to another (the verdict cache; a signal view of a shared offline pass)."""

    @property
    def inner(self) -> Verifier: ...


def label_for(score: float, *, supported_at: float, partial_at: float | None = None) -> Label:
    """Map a score to a label: >= supported_at is supported; >= partial_at (if set) is partial."""
    if score >= supported_at:
        return "supported"
    if partial_at is not None and score >= partial_at:
        return "partial"
    return "unsupported"
