"""What the main screen shows: which text and evaluation (a pending proposal, a round viewed, or the working text),
the note under it, and the selected unit found again by its words in another evaluation. Mixed into `MainScreen`
(`citefix.tui.main_screen`), whose attributes it reads."""

from __future__ import annotations

from typing import Any


class ShownMixin:
    snap: Any
    selected: str | None
    view_n: int | None
    show_proposal: bool
    keep: set
    hunks: list

    def _round_text(self, n: int) -> str:
        return next(r.text for r in self.snap.rounds if r.n == n)

    def _eval(self, n: int):
        return self.snap.evaluations.get(n)

    def _selected_unit(self) -> Any:
        """The unit selected in the evaluation shown, or None."""
        if self.snap is None or self.selected is None:
            return None
        ev = self._shown()[1]
        return next((u for u in ev.units if u.id == self.selected), None) if ev is not None else None

    def _same_unit(self, unit: Any) -> str | None:
        """The id of the unit of the evaluation shown that states the same words as `unit` (the nearest to its old
        place when several do), or None."""
        ev = self._shown()[1] if unit is not None and self.snap is not None else None
        same = [u for u in ev.units if u.text == unit.text] if ev is not None else []
        if not same:
            return None
        return min(same, key=lambda u: abs((u.start or 0) - (unit.start or 0))).id

    def _shown(self) -> tuple[str, Any, str]:
        """(text, evaluation, what) for the text shown: a proposal, a viewed round, or the working text."""
        snap = self.snap
        assert snap is not None
        if self.show_proposal and snap.proposal is not None:
            return snap.proposal.text, snap.proposal.evaluation, "proposed revision"
        if self.view_n is not None and self.view_n != snap.current:
            return self._round_text(self.view_n), self._eval(self.view_n), f"round {self.view_n}"
        if snap.current is None:
            return snap.text, None, "not checked yet"
        ev = snap.evaluation
        edited = ev is not None and ev.text != snap.text
        return snap.text, ev, ("edited, not checked" if edited else f"round {snap.current}")

    def _note(self, what: str, ev) -> str:
        """The line under the text: what is shown and what the writer can do with it."""
        note = ""
        if what == "proposed revision":
            kept = len(self.keep)
            note = (f"Proposed revision, {len(self.hunks)} edit(s), {kept} kept: a accepts the kept edits · "
                    "n rejects all · [ ] pick an edit · space keeps/drops it · the units below are the proposal's")
        elif what.startswith("round") and self.view_n is not None and self.view_n != self.snap.current:
            note = f"Viewing {what}; the working text is round {self.snap.current}. v reverts to {what}."
        elif what == "edited, not checked":
            note = "Edited since the last check: c checks it."
        elif what == "not checked yet":
            note = "Not checked yet: press c to check."
        if ev is not None and ev.status == "no_units":
            note = (note + "\n" if note else "") + (ev.message or "no checkable units")
        return note
