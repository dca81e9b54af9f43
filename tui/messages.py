"""Messages the worker threads post; widgets change only in their handlers, on the UI thread."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.message import Message as _Message

if TYPE_CHECKING:
    from citefix.store.rows import RunListRow


class Message(_Message, bubble=False):
    """Job messages go to the screen that started the job and stop there (no double notifications)."""

    def __init_subclass__(cls, **kwargs) -> None:
        kwargs.setdefault("bubble", False)
        super().__init_subclass__(**kwargs)


class WorkStarted(Message):
    def __init__(self, job: str, label: str, total: int | None = None) -> None:
        super().__init__()
        self.job, self.label, self.total = job, label, total


class WorkProgress(Message):
    """A stage of a running job (loading models, decomposing, verifying, storing)."""

    def __init__(self, job: str, stage: str, detail: str = "", advance: int = 1) -> None:
        super().__init__()
        self.job, self.stage, self.detail, self.advance = job, stage, detail, advance


class WorkFinished(Message):
    def __init__(self, job: str, summary: str = "") -> None:
        super().__init__()
        self.job, self.summary = job, summary


class WorkCancelled(Message):
    """A job cancelled. `kept`: it finished before the cancel reached it, and what it did is stored (said so)."""

    def __init__(self, job: str, kept: str | None = None) -> None:
        super().__init__()
        self.job = job
        self.kept = kept


class WorkFailed(Message):
    """A job ended with an error a user can act on (bad file, no API key, rate limit after retries, …)."""

    def __init__(self, job: str, message: str, *, internal: bool = False) -> None:
        super().__init__()
        self.job, self.message, self.internal = job, message, internal


class CasesListed(Message):
    """A file with several cases was opened without saying which: the app asks (the case picker)."""

    def __init__(self, path: str, cases: list[tuple[str, str, str]]) -> None:
        super().__init__()
        self.path, self.cases = path, cases  # (id, kind, first words of the text)


class CaseOpened(Message):
    """A case (from a file or a stored run) is open; carries a Snapshot."""

    def __init__(self, snapshot: Any) -> None:
        super().__init__()
        self.snapshot = snapshot


class Checked(Message):
    """A check (or re-check after an edit) finished and was stored as a round."""

    def __init__(self, snapshot: Any) -> None:
        super().__init__()
        self.snapshot = snapshot


class RevisionProposed(Message):
    """The reviser proposed a revision (the snapshot's proposal), waiting for accept or reject."""

    def __init__(self, snapshot: Any) -> None:
        super().__init__()
        self.snapshot = snapshot


class RoundsChanged(Message):
    """Rounds were added, accepted, rejected or reverted; carries a Snapshot."""

    def __init__(self, snapshot: Any, action: str) -> None:
        super().__init__()
        self.snapshot, self.action = snapshot, action


class SettingsApplied(Message):
    def __init__(self, describe: dict, path: str | None) -> None:
        super().__init__()
        self.describe, self.path = describe, path


class Exported(Message):
    def __init__(self, path: str, fmt: str) -> None:
        super().__init__()
        self.path, self.fmt = path, fmt


class RunsLoaded(Message):
    """The start screen's list of recent runs, read from the store in a worker."""

    def __init__(self, runs: list[RunListRow]) -> None:
        super().__init__()
        self.runs = runs


class WarmedUp(Message):
    """The background model loading finished (or failed: the first check then loads and reports again)."""

    def __init__(self, loaded: list[str], error: str | None) -> None:
        super().__init__()
        self.loaded, self.error = loaded, error


_CLI_WORDS = [  # CLI advice → what to do in the TUI
    ("pass --llm MODEL or set CITEFIX_LLM (or use --reviser offline)", "fill in the LLM field in settings (s)"),
    ("pass --llm MODEL or set CITEFIX_LLM", "fill in the LLM field in settings (s)"),
    ("pass --llm MODEL or drop it", "fill in the LLM field or pick another strategy in settings (s)"),
    ("--llm MODEL", "the LLM field in settings (s)"),
]


def tui_wording(message: str) -> str:
    """A core error message reworded where it gives command-line advice."""
    for cli, tui in _CLI_WORDS:
        message = message.replace(cli, tui)
    return message
