"""Support levels (full / partial / none) of statement–citation pairs, and LLM support judgements (METHODS §3).

**From atomic units.** A statement (an answer sentence or claim) is cut into atomic units (ACUs or claims); each unit
is judged against one citation. With `supported_at` (default 0.5) deciding whether one unit's verdict supports it, the
pair's level is:

* **full** when the share of supported units is at least `full_at` (default 1.0: every unit);
* **none** when that share is at most `none_at` (default 0.0: no unit) and no unit was judged "partial";
* **partial** otherwise (some units supported, or a verifier said "partial").

Verdicts with an error are left out (and reported); a pair with no usable verdict has no level (`level=None`, with a
message) rather than a guess.

**From one score.** `level_from_score` maps a single score in [0, 1] to a level with `full_at` (default 0.75) and
`partial_at` (default 0.25). These cut-offs are for display only: the meta-evaluation protocols of METHODS §3
(correlation, one-vs-one ROC-AUC, NDCG) use the raw scores and need no threshold.

**LLM judgements.** Two prompts (prompts/support_discrete.txt, prompts/support_continuous.txt) ask a model to reason
first and then end with "Score: N" (0/1/2: none/partial/full) or "Score: X" (a number in [0, 1]). The parsers read the
last such line, tolerate Markdown emphasis and a trailing period, and report an error instead of guessing when the
answer has no score or one out of range. `LLMSupportJudge` is a Verifier over them: the discrete answer scores N / 2.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Iterable, Literal, Mapping, Sequence, cast

from pydantic import BaseModel, ConfigDict, Field

from citefix.models import Case, Label, Unit, Verdict

if TYPE_CHECKING:
    from citefix.llm.client import LLMClient

SupportLevel = Literal["full", "partial", "none"]
LEVEL_VALUE: dict[str, int] = {"none": 0, "partial": 1, "full": 2}
LEVELS: tuple[SupportLevel, ...] = ("none", "partial", "full")
_LABEL_FOR_LEVEL: dict[str, Label] = {"full": "supported", "partial": "partial", "none": "unsupported"}


class SupportSettings(BaseModel):
    model_config = ConfigDict(extra="forbid")

    supported_at: float = Field(default=0.5, ge=0.0, le=1.0, description="A unit score at or above this supports it.")
    full_at: float = Field(default=1.0, ge=0.0, le=1.0, description="Share of supported units needed for full.")
    none_at: float = Field(default=0.0, ge=0.0, le=1.0, description="Share of supported units at or below which: none.")


class PairSupport(BaseModel):
    """The support level of one statement–citation pair, with what it rests on."""

    statement_id: str | None = None
    citation: str | None = Field(default=None, description="The cited source id; None when judged against all.")
    level: SupportLevel | None
    value: int | None = Field(default=None, description="full=2, partial=1, none=0 (for correlations).")
    units: int = 0
    supported: int = 0
    partial: int = 0
    share: float | None = Field(default=None, description="Supported units / judged units.")
    unit_ids: list[str] = Field(default_factory=list)
    unsupported_ids: list[str] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    message: str | None = None


def support_from_verdicts(
    verdicts: Sequence[Verdict], settings: SupportSettings | None = None, *, statement_id: str | None = None,
    citation: str | None = None,
) -> PairSupport:
    """The level of one statement–citation pair from the verdicts of the statement's atomic units against it."""
    settings = settings or SupportSettings()
    errors = [v.error for v in verdicts if v.error or v.score is None]
    usable = [v for v in verdicts if not v.error and v.score is not None]
    base: dict[str, Any] = dict(statement_id=statement_id, citation=citation, unit_ids=[v.unit_id for v in verdicts],
                errors=[e or "no score" for e in errors])
    if not usable:
        msg = "no atomic units to judge" if not verdicts else "no usable verdict: every unit's judgement failed"
        return PairSupport(**base, level=None, message=msg)
    sup = [v for v in usable if cast(float, v.score) >= settings.supported_at]  # usable: scored
    part = [v for v in usable if v.label == "partial" and cast(float, v.score) < settings.supported_at]
    share = len(sup) / len(usable)
    if share >= settings.full_at:
        level: SupportLevel = "full"
    elif share <= settings.none_at and not part:
        level = "none"
    else:
        level = "partial"
    return PairSupport(
        **base, level=level, value=LEVEL_VALUE[level], units=len(usable), supported=len(sup), partial=len(part),
        share=share, unsupported_ids=[v.unit_id for v in usable if cast(float, v.score) < settings.supported_at],
    )


def support_table(
    atoms: Mapping[str, Sequence[str]], verdicts: Iterable[Verdict], settings: SupportSettings | None = None
) -> list[PairSupport]:
    """Levels for every statement–citation pair.

    `atoms` maps each statement id to the ids of its atomic units; each verdict judges one unit against one citation
    (its `target`, usually one source id; an empty target means all sources). Pairs come out in statement order, then
    citation order of first appearance.
    """
    owner = {u: s for s, units in atoms.items() for u in units}
    groups: dict[tuple[str, str | None], list[Verdict]] = {}
    for v in verdicts:
        s = owner.get(v.unit_id)
        if s is None:
            continue
        cit = ",".join(v.target) if v.target else None
        groups.setdefault((s, cit), []).append(v)
    out = []
    for s in atoms:
        for (gs, cit), vs in groups.items():
            if gs == s:
                out.append(support_from_verdicts(vs, settings, statement_id=s, citation=cit))
    return out


def level_from_score(score: float, *, full_at: float = 0.75, partial_at: float = 0.25) -> SupportLevel:
    """A display level for one score in [0, 1] (see the module doc: protocols use raw scores)."""
    if score >= full_at:
        return "full"
    if score >= partial_at:
        return "partial"
    return "none"


def level_from_value(value: int) -> SupportLevel:
    """0/1/2 → none/partial/full."""
    if value not in (0, 1, 2):
        raise ValueError(f"a support value is 0, 1 or 2, not {value!r}")
    return LEVELS[value]


# --- parsing LLM answers ----------------------------------------------------------------------------------------------

_SCORE_LINE = re.compile(
    r"(?:score|rating|answer|support(?:\s+level)?|final(?:\s+answer)?)\s*[:=]\s*[*_`\"']*\s*(?P<val>[-+]?\d*\.?\d+)\s*(?P<pct>%)?",
    re.IGNORECASE,
)
_BARE = re.compile(r"^[*_`\s\"']*(?P<val>[-+]?\d*\.?\d+)\s*(?P<pct>%)?[*_`\s\"'.]*$")
_LEVEL_WORD = re.compile(r"\b(full|partial|none|no)\s+support\b|\bsupport\s*[:=]\s*(full|partial|none)\b", re.IGNORECASE)


class DiscreteJudgement(BaseModel):
    value: int | None = Field(description="0, 1 or 2; None when the answer could not be read.")
    level: SupportLevel | None
    reasoning: str = ""
    raw: str = ""
    error: str | None = None


class ContinuousJudgement(BaseModel):
    score: float | None = Field(description="In [0, 1]; None when the answer could not be read.")
    reasoning: str = ""
    raw: str = ""
    error: str | None = None


def _last_score(text: str) -> tuple[str, bool, int] | None:
    """The last "Score: x" in the answer (or a bare number on the last line): (number, has %, where it starts)."""
    m: re.Match[str] | None
    hits = list(_SCORE_LINE.finditer(text))
    if hits:
        m = hits[-1]
        return m.group("val"), bool(m.group("pct")), m.start()
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    if lines:
        m = _BARE.match(lines[-1])
        if m:
            return m.group("val"), bool(m.group("pct")), text.rfind(lines[-1])
    return None


def parse_discrete(text: str) -> DiscreteJudgement:
    """Read a 0/1/2 support judgement whose reasoning comes before the final "Score: N"."""
    found = _last_score(text or "")
    if found is None:
        words = list(_LEVEL_WORD.finditer(text or ""))
        if words:
            w = (words[-1].group(1) or words[-1].group(2)).lower()
            level: SupportLevel = "none" if w in ("none", "no") else w  # type: ignore[assignment]
            return DiscreteJudgement(value=LEVEL_VALUE[level], level=level, reasoning=text[: words[-1].start()].strip(),
                                     raw=text)
        return DiscreteJudgement(value=None, level=None, raw=text or "", reasoning=(text or "").strip(),
                                 error="no 'Score: N' line in the answer")
    val, pct, at = found
    try:
        num = float(val)
    except ValueError:
        num = -1.0
    if pct or num not in (0.0, 1.0, 2.0):
        return DiscreteJudgement(value=None, level=None, raw=text, reasoning=text[:at].strip(),
                                 error=f"score {val}{'%' if pct else ''} is not 0, 1 or 2")
    value = int(num)
    return DiscreteJudgement(value=value, level=LEVELS[value], reasoning=text[:at].strip(), raw=text)


def parse_continuous(text: str) -> ContinuousJudgement:
    """Read a [0, 1] support score whose reasoning comes before the final "Score: X" (a percentage is divided by 100)."""
    found = _last_score(text or "")
    if found is None:
        return ContinuousJudgement(score=None, raw=text or "", reasoning=(text or "").strip(),
                                   error="no 'Score: X' line in the answer")
    val, pct, at = found
    score = float(val) / (100.0 if pct else 1.0)
    if not 0.0 <= score <= 1.0:
        return ContinuousJudgement(score=None, raw=text, reasoning=text[:at].strip(),
                                   error=f"score {val}{'%' if pct else ''} is outside [0, 1]")
    return ContinuousJudgement(score=score, reasoning=text[:at].strip(), raw=text)


# --- the LLM judge as a Verifier --------------------------------------------------------------------------------------


class LLMSupportJudge:
    """Support judgements from an LLM (discrete 0/1/2 or continuous [0, 1]); a Verifier, max over source windows.

    `llm` is a citefix.llm.client.LLMClient. Long sources are cut into windows of `window_words` words (METHODS §3
    used 150-word chunks); the best window's score is the unit's.
    """

    model_name = None  # its model is the LLM's (llm.model)

    def __init__(self, llm: LLMClient, *, mode: Literal["discrete", "continuous"] = "discrete", window_words: int = 150,
                 max_tokens: int = 512, threshold: float = 0.5):
        from citefix.prompting import load_prompt

        self.llm = llm
        self.mode = mode
        self.window_words = window_words
        self.max_tokens = max_tokens
        self.threshold = threshold
        self.prompt = load_prompt(f"support_{mode}")
        self.name = f"support-{mode}:{llm.model}"

    def supported_at(self, profile: str) -> float:
        """Its threshold, under every profile."""
        return self.threshold

    def judge(self, statement: str, passage: str) -> DiscreteJudgement | ContinuousJudgement:
        messages = self.prompt.render(passage=passage, statement=statement)
        comp = self.llm.complete(messages, purpose=f"support_{self.mode}", prompt=self.prompt, max_tokens=self.max_tokens)
        return parse_discrete(comp.text) if self.mode == "discrete" else parse_continuous(comp.text)

    def _score(self, j: DiscreteJudgement | ContinuousJudgement) -> float | None:
        if isinstance(j, DiscreteJudgement):
            return None if j.value is None else j.value / 2
        return j.score

    def verify(self, units: Sequence[Unit], case: Case, *, targets: Sequence[Sequence[str]] | None = None) -> list[Verdict]:
        from citefix.errors import LLMError
        from citefix.verify.llm_judge import render_window, source_windows

        all_ids = [s.id for s in case.sources]
        jobs: list[tuple[int, int, str]] = []
        missing: dict[int, list[str]] = {}
        for k, u in enumerate(units):
            ids = list(targets[k]) if targets is not None and targets[k] else all_ids
            gone = [i for i in ids if case.source(i) is None]
            if gone:
                missing[k] = gone
                continue
            for w_i, w in enumerate(source_windows(case, ids, self.window_words)):
                jobs.append((k, w_i, render_window(case, w)))

        def ask(job):
            k, _, passage = job
            try:
                return self.judge(units[k].text, passage)
            except LLMError as exc:
                return exc

        answers = self.llm.map(ask, jobs)
        per_unit: dict[int, list[tuple[int, Any]]] = {}
        for (k, w_i, _), a in zip(jobs, answers):
            per_unit.setdefault(k, []).append((w_i, a))
        out = []
        for k, u in enumerate(units):
            target = list(targets[k]) if targets is not None and targets[k] else []
            if k in missing:
                out.append(Verdict(unit_id=u.id, verifier=self.name, score=None, label="error", target=target,
                                   error="; ".join(f"passage [{m}] not found" for m in missing[k])))
                continue
            got = per_unit.get(k, [])
            scored = cast("list[tuple[Any, Any, float]]",  # only the judgements with a score
                          [(w, a, self._score(a)) for w, a in got if not isinstance(a, Exception) and self._score(a) is not None])
            if not scored:
                errs = [str(a) if isinstance(a, Exception) else a.error for _, a in got] or ["no source text to judge"]
                out.append(Verdict(unit_id=u.id, verifier=self.name, score=None, label="error", target=target,
                                   error=errs[0]))
                continue
            w_best, best, score = max(scored, key=lambda t: t[2])
            if isinstance(best, DiscreteJudgement):
                label: Label = _LABEL_FOR_LEVEL[best.level]  # type: ignore[index]
            else:
                label = "supported" if score >= self.threshold else "unsupported"
            out.append(Verdict(unit_id=u.id, verifier=self.name, score=score, label=label,
                               discrete=isinstance(best, DiscreteJudgement), target=target,
                               details={"reasoning": best.reasoning, "windows": len(got), "window": w_best,
                                        "mode": self.mode}))
        return out


__all__ = [
    "LEVELS", "LEVEL_VALUE", "ContinuousJudgement", "DiscreteJudgement", "LLMSupportJudge", "PairSupport",
    "SupportLevel", "SupportSettings", "level_from_score", "level_from_value", "parse_continuous", "parse_discrete",
    "support_from_verdicts", "support_table",
]
