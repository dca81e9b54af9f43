"""The LLM judge (ACUEval step 2): the model reads the source and one unit, never the summary; score = P(Yes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from citefix.chunking import Span, chunk_text, split_sentences
from citefix.decompose.align import content_tokens
from citefix.errors import LLMError
from citefix.llm.client import LLMClient
from citefix.models import Case, Evidence, Unit, Verdict
from citefix.prompting import load_prompt
from citefix.verify.base import label_for


@dataclass(frozen=True)
class Segment:
    source_id: str
    span: Span


def source_windows(case: Case, source_ids: Sequence[str], max_words: int) -> list[list[Segment]]:
    """The chosen sources cut into windows of at most max_words words, each a list of sentence-aligned segments."""
    windows: list[list[Segment]] = []
    current: list[Segment] = []
    words = 0
    for sid in source_ids:
        src = case.source(sid)
        if src is None:
            continue
        for chunk in chunk_text(src.text, max_words):
            n = len(chunk.text.split())
            if current and words + n > max_words:
                windows.append(current)
                current, words = [], 0
            current.append(Segment(sid, chunk))
            words += n
    if current:
        windows.append(current)
    return windows


def render_window(case: Case, window: list[Segment]) -> str:
    multi = len(case.sources) > 1
    parts = []
    for seg in window:
        src = case.source(seg.source_id)
        head = f"[{seg.source_id}] {src.title}\n" if multi and src is not None and src.title else (f"[{seg.source_id}]\n" if multi else "")
        parts.append(head + seg.span.text)
    return "\n\n".join(parts)


def best_sentence(unit_text: str, case: Case, window: list[Segment]) -> Evidence | None:
    """The window's sentence sharing most content words with the unit: a readable evidence snippet."""
    want = {t for t, _, _ in content_tokens(unit_text)}
    best, best_hits = None, -1
    for seg in window:
        for s in split_sentences(seg.span.text):
            hits = len(want & {t for t, _, _ in content_tokens(s.text)})
            if hits > best_hits:
                a = seg.span.start + s.start
                best, best_hits = Evidence(source_id=seg.source_id, start=a, end=a + len(s.text), text=s.text), hits
    return best


class LLMJudgeVerifier:
    """P(Yes) per unit from an LLM, the maximum over source windows, the best window's best sentence as evidence."""

    model_name = None  # its model is the LLM's (llm.model)

    def __init__(self, llm: LLMClient, *, window_words: int = 1500, threshold: float = 0.5):
        self.llm = llm
        self.window_words = window_words
        self.threshold = threshold
        self.prompt = load_prompt("acu_verify")
        self.name = f"llm:{llm.model}"

    def supported_at(self, profile: str) -> float:
        """Its threshold, under every profile."""
        return self.threshold

    def verify(self, units: Sequence[Unit], case: Case, *, targets: Sequence[Sequence[str]] | None = None) -> list[Verdict]:
        all_ids = [s.id for s in case.sources]
        jobs = []  # (unit index, window index, window)
        per_unit_windows: list[list[list[Segment]]] = []
        for i, u in enumerate(units):
            ids = list(targets[i]) if targets is not None and targets[i] else all_ids
            windows = source_windows(case, ids, self.window_words)
            per_unit_windows.append(windows)
            for w_i, w in enumerate(windows):
                jobs.append((i, w_i, w))

        def ask(job):
            i, _, window = job
            messages = self.prompt.render(passage=render_window(case, window), statement=units[i].text)
            try:
                return self.llm.yes_probability(messages, purpose="acu_verify", prompt=self.prompt)
            except LLMError as exc:
                return exc

        answers = self.llm.map(ask, jobs)
        results: dict[int, list] = {}
        for (i, w_i, _), ans in zip(jobs, answers):
            results.setdefault(i, []).append((w_i, ans))
        verdicts = []
        for i, u in enumerate(units):
            target = list(targets[i]) if targets is not None and targets[i] else []
            got = results.get(i, [])
            if not got:
                verdicts.append(Verdict(unit_id=u.id, verifier=self.name, score=None, label="error", target=target,
                                        error="no source text to judge against (unknown or empty sources)"))
                continue
            errors = [a for _, a in got if isinstance(a, Exception) or a.score is None]
            scored = [(w_i, a) for w_i, a in got if not isinstance(a, Exception) and a.score is not None]
            if not scored:
                e = errors[0]
                msg = str(e) if isinstance(e, Exception) else e.error
                verdicts.append(Verdict(unit_id=u.id, verifier=self.name, score=None, label="error", target=target, error=msg))
                continue
            w_best, best = max(scored, key=lambda t: t[1].score)
            window = per_unit_windows[i][w_best]
            verdicts.append(
                Verdict(
                    unit_id=u.id,
                    verifier=self.name,
                    score=best.score,
                    label=label_for(best.score, supported_at=self.threshold),
                    discrete=best.discrete,
                    evidence=best_sentence(u.text, case, window),
                    target=target,
                    details={"answer": best.answer, "windows": len(got), "window": w_best,
                             "errors": [str(e) if isinstance(e, Exception) else e.error for e in errors]},
                )
            )
        return verdicts
