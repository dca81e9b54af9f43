"""Progress of a long `citefix check` on stderr, so a big source does not look like a hang.

A case whose sources hold LONG_WORDS words or more (or whose text holds LONG_TEXT_WORDS) shows its stages (splitting
the text into units, verifying them against the source) with the time spent: on a terminal as a spinner line that
updates (rich, as `refine` and `compare` show theirs, erased when done), and with `--progress` as plain lines on any
stderr. `--no-progress` turns it off. Nothing is written to stdout, so `--json` output is the same with or without it.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Callable

LONG_WORDS = 10_000  # source words from which a check shows progress by itself (~10 s of offline verification)
LONG_TEXT_WORDS = 1_000  # … or words of the checked text (a hundred units and more)


def source_words(case) -> int:
    return sum(len(s.text.split()) for s in case.sources)


class CheckProgress:
    """mode: 'auto' (long cases, stderr a terminal), 'always' (every case, plain lines off a terminal), 'never'."""

    def __init__(self, mode: str = "auto", stream=None):
        self.mode = mode
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._progress: Any = None  # a rich Progress while a spinner shows
        self._task = None
        self._started = 0.0
        self._stage_started = 0.0

    def wants(self, case) -> bool:
        if self.mode == "never":
            return False
        if self.mode == "always":
            return True
        return self.tty and (source_words(case) >= LONG_WORDS or len(case.text.split()) >= LONG_TEXT_WORDS)

    def start(self, case, i: int = 1, total: int = 1) -> Callable[[str, dict[str, Any]], None] | None:
        """Begin showing one case; returns the on_event callback for the check, or None when not shown."""
        if not self.wants(case):
            return None
        self._started = self._stage_started = time.monotonic()
        self.words = source_words(case)
        head = f"[{i}/{total}] " if total > 1 else ""
        self.head = f"{head}{case.id}"
        self._show(f"checking {self.head}: {self.words:,} source words, {len(case.text.split()):,} words of text")
        return self.on_event

    def on_event(self, event: str, data: dict[str, Any]) -> None:
        if event == "decompose_started":
            self._show(f"{self.head}: splitting the text into units ({data.get('decomposer') or 'default'})")
        elif event == "units_ready":
            self._show(f"{self.head}: verifying {data.get('n', 0)} units against {self.words:,} source words")
        elif event == "units_verified" and self.tty and self._progress is not None:  # the spinner line only
            self._progress.update(self._task, description=f"{self.head}: verified {data.get('done', 0):,} of "
                                                          f"{data.get('n', 0):,} units against {self.words:,} source words")
        elif event == "units_scored":
            took = time.monotonic() - self._stage_started
            self._show(f"{self.head}: {data.get('n', 0)} units verified in {took:.0f} s")
        elif event == "round_retried":
            self._show(f"{self.head}: some units could not be checked; checking the text once more")

    def finish(self) -> None:
        if not self._started:
            return
        took = time.monotonic() - self._started
        self._started = 0.0
        if self._progress is not None:
            self._progress.stop()  # transient: the spinner line is erased
            self._progress = None
            self._task = None
        else:
            self._line(f"checked {self.head} in {took:.0f} s")

    def _show(self, text: str) -> None:
        self._stage_started = time.monotonic()
        if not self.tty:
            self._line(text)
            return
        if self._progress is None:
            from rich.console import Console
            from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            self._progress = Progress(SpinnerColumn(), TextColumn("citefix: {task.description}"), TimeElapsedColumn(),
                                      console=Console(file=self.stream), transient=True)
            self._progress.start()
            self._task = self._progress.add_task(text, total=None)
        else:
            self._progress.update(self._task, description=text)

    def _line(self, text: str) -> None:
        print(f"citefix: {text}", file=self.stream, flush=True)
