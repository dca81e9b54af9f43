"""The interface every decomposer implements."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from citefix.models import Case, Unit


@runtime_checkable
class Decomposer(Protocol):
    """Cuts a case's text into units, each with its character span in case.text where it can be aligned."""

    name: str

    def units(self, case: Case) -> list[Unit]: ...
