"""The interface every decomposer implements."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol, Sequence, runtime_checkable

from citefix.models import Case, Unit

if TYPE_CHECKING:
    from citefix.llm.client import LLMClient


@runtime_checkable
class Decomposer(Protocol):
    """Cuts a case's text into units, each with its character span in case.text where it can be aligned.

    Every implementation has these attributes (the core reads them directly; tests/unit/test_collaborator_protocols.py
    checks each one that citefix builds):

    - `name`: what evaluations and runs record as the decomposer.
    - `llm`: the LLM client it calls, or None; an evaluation drains its call log and records its model.
    - `errors`: what went wrong in the last `units()` call (a part of the text that could not be decomposed), reported
      with the evaluation; empty when nothing did.
    """

    name: str

    @property
    def llm(self) -> LLMClient | None: ...

    @property
    def errors(self) -> Sequence[str]: ...

    def units(self, case: Case) -> list[Unit]: ...
