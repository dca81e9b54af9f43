"""The one interface every verifier implements, and the helpers they share."""

from __future__ import annotations

from typing import Protocol, Sequence, runtime_checkable

from citefix.models import Case, Label, Unit, Verdict


@runtime_checkable
class Verifier(Protocol):
    """Judges units against a case's sources.

    `targets`, when given, has one entry per unit: the source ids that unit is judged against (a citation group's
    passages); None or an empty list means all of the case's sources. Returns one Verdict per unit, in order.
    """

    name: str

    def verify(
        self, units: Sequence[Unit], case: Case, *, targets: Sequence[Sequence[str]] | None = None
    ) -> list[Verdict]: ...


def label_for(score: float, *, supported_at: float, partial_at: float | None = None) -> Label:
    """Map a score to a label: >= supported_at is supported; >= partial_at (if set) is partial."""
    if score >= supported_at:
        return "supported"
    if partial_at is not None and score >= partial_at:
        return "partial"
    return "unsupported"
