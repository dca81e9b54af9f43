"""Small adapters a refinement session hands to its collaborators: a decomposer that gives back units already cut (the
judge scores the primary verifier's units), a holder that lets `collect_calls` find the session's LLM client, and the
whitespace-blind comparison of two texts. Used by `citefix.revision.session`.
"""

from __future__ import annotations

from citefix.models import Case, Unit


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
