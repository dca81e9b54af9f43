"""Feedback strategies: turn an evaluation into the comment a reviser acts on.

One interface, `FeedbackStrategy.comment(case, evaluation) -> str | None`, and a registry by name. `feedback()` returns
the comment together with what it is made of (the flagged units, the citation problems, the critic's rating, the model
calls), so a deletion-only reviser can act on the same information an LLM reads in the comment — and a strategy that
gives no specifics (`none`, `critique`) gives it none. New strategies plug in with `@register_strategy("name")`.
"""

from __future__ import annotations

import re
from typing import Any, Callable, TypeVar, cast

from citefix.errors import ConfigError
from citefix.models import Case, Evaluation, Unit, Verdict
from citefix.prompting import load_prompt
from citefix.revision.vocabulary import CitationIssue, Feedback, noun, render_sources


class FeedbackStrategy:
    """Base class: subclasses implement feedback(); comment() is the one-line interface the loop and TUI need."""

    name = "base"
    needs_llm = False

    def feedback(self, case: Case, evaluation: Evaluation) -> Feedback:  # pragma: no cover - abstract
        raise NotImplementedError

    def comment(self, case: Case, evaluation: Evaluation) -> str | None:
        return self.feedback(case, evaluation).comment


_REGISTRY: dict[str, type[FeedbackStrategy]] = {}
_S = TypeVar("_S", bound=type[FeedbackStrategy])


def register_strategy(name: str) -> Callable[[_S], _S]:
    """Class decorator: make a strategy (a FeedbackStrategy subclass) available by name (CLI --strategy, TUI
    settings, compare)."""

    def deco(cls: _S) -> _S:
        cls.name = name
        _REGISTRY[name] = cls
        return cls

    return deco


def available_strategies() -> list[str]:
    return list(_REGISTRY)


def build_strategy(name: str, *, llm=None) -> FeedbackStrategy:
    """A strategy by name; `llm` is the client for strategies that ask a model (critique)."""
    cls = _REGISTRY.get((name or "").strip())
    if cls is None:
        raise ConfigError(f"unknown strategy {name!r}; use one of {', '.join(_REGISTRY)}")
    if cls.needs_llm:
        if llm is None:
            raise ConfigError(f"strategy {name!r} needs an LLM to write its feedback: pass --llm MODEL or set CITEFIX_LLM")
        return cast(Callable[[Any], FeedbackStrategy], cls)(llm)  # a strategy that needs an LLM takes it first
    return cls()


def _flagged(evaluation: Evaluation) -> tuple[list[Unit], dict[str, Verdict]]:
    """The units a reviser acts on: those judged unsupported. A partial verdict ("check this") is shown to the user,
    never handed to a reviser to cut."""
    units = [u for u in evaluation.unsupported if getattr(evaluation.verdict_for(u.id), "label", None) == "unsupported"]
    verdicts = {u.id: v for u in units if (v := evaluation.verdict_for(u.id)) is not None}
    return units, verdicts


@register_strategy("acu")
class ACUFeedback(FeedbackStrategy):
    """The units judged unsupported, listed, with the rule that nothing unsupported may stay (partial ones are shown to
    the user, not sent)."""

    def feedback(self, case: Case, evaluation: Evaluation) -> Feedback:
        units, verdicts = _flagged(evaluation)
        issues: list[CitationIssue] = []
        if case.kind == "cited_answer":
            # a cited answer's unsupported claims live on their citation groups; the offline reviser also reads the
            # citation issues (to re-cite a claim to the passage that supports it)
            issues = citation_issues(case, evaluation)
            if not units:
                units = list({id(i.unit): i.unit for i in issues if i.kind == "unsupported_claim" and i.unit}.values())
        statements = list(dict.fromkeys(u.text.strip() for u in units if u.text.strip()))
        if not statements:
            return Feedback(self.name, None, details={"why": "no unsupported units"})
        prompt = load_prompt("feedback_acu")
        text = prompt.render(statements=statements, noun=noun(case))[0]["content"]
        return Feedback(self.name, text, units=units, verdicts=verdicts, citations=issues,
                        details={"prompt": prompt.name, "version": prompt.version})


@register_strategy("none")
class NoFeedback(FeedbackStrategy):
    """The control: a generic request to be faithful to the source, naming nothing."""

    def feedback(self, case: Case, evaluation: Evaluation) -> Feedback:
        prompt = load_prompt("feedback_none")
        return Feedback(self.name, prompt.render(noun=noun(case))[0]["content"],
                        details={"prompt": prompt.name, "version": prompt.version})


_RATING = re.compile(r"(?:rating|score|consistency)\s*[:=\-]?\s*\**\s*([1-5](?:\.\d+)?)\b", re.I)
_BARE_RATING = re.compile(r"^\W*(?:rating\W*)?[1-5](?:\.\d+)?(?:\s*/\s*5)?\W*$", re.I)
_EXPLANATION = re.compile(r"^\s*\**\s*(?:explanation|reason(?:ing)?|critique|feedback)\s*\**\s*[:\-]\s*\**", re.I | re.M)


def parse_critique(answer: str) -> tuple[float | None, str | None]:
    """(rating 1-5 or None, explanation or None) from a critique answer."""
    text = (answer or "").strip()
    if not text:
        return None, None
    m = _RATING.search(text)
    rating = float(m.group(1)) if m else None
    if rating is None:
        first = re.match(r"\s*\**\s*([1-5])(?:\s*/\s*5)?\b", text)
        rating = float(first.group(1)) if first else None
    explanation: str | None
    e = _EXPLANATION.search(text)
    if e:
        explanation = text[e.end():].strip()
    else:
        lines = text.splitlines()
        # drop the rating line, keep the rest
        explanation = "\n".join(ln for ln in lines if not ((_RATING.search(ln) and len(ln.split()) <= 4)
                                                           or _BARE_RATING.match(ln))).strip()
    explanation = explanation.strip("* \n") or None
    return rating, explanation


@register_strategy("critique")
class CritiqueFeedback(FeedbackStrategy):
    """An LLM rates consistency 1-5 and explains; the explanation is the comment (the G-Eval-style baseline)."""

    needs_llm = True

    def __init__(self, llm, *, max_tokens: int = 400):
        self.llm = llm
        self.max_tokens = max_tokens
        self.prompt = load_prompt("critique")

    def feedback(self, case: Case, evaluation: Evaluation) -> Feedback:
        messages = self.prompt.render(source=render_sources(case), text=evaluation.text or case.text, noun=noun(case))
        comp = self.llm.complete(messages, purpose="critique", max_tokens=self.max_tokens, prompt=self.prompt)
        rating, explanation = parse_critique(comp.text)
        return Feedback(self.name, explanation, rating=rating,
                        details={"prompt": self.prompt.name, "version": self.prompt.version, "rating": rating,
                                 "answer": comp.text})


@register_strategy("citation")
class CitationFeedback(FeedbackStrategy):
    """Cited answers: unsupported claims (recall 0), redundant citations in METHODS' sense, the one `check` reports
    (ALiiCE precision 0: alone the citation does not entail the claim while the group without it still does), and
    marks naming missing passages. A citation that entails the claim alone is never called redundant, even when the
    rest of the group would do without it: dropping every such mark could leave the claim unsupported. On a summary
    it says what `acu` says."""

    def feedback(self, case: Case, evaluation: Evaluation) -> Feedback:
        if case.kind != "cited_answer":
            fb = ACUFeedback().feedback(case, evaluation)
            fb.strategy = self.name
            return fb
        issues = citation_issues(case, evaluation)
        if not issues:
            return Feedback(self.name, None, details={"why": "no citation problems"})

        def marks(ids):
            return "".join(f"[{i}]" for i in ids) or "no passage"

        unsupported = [{"claim": i.claim, "marks": marks(i.cited), "better": marks(i.supported_by) if i.supported_by
                        else ""} for i in issues if i.kind == "unsupported_claim"]
        redundant = [{"claim": i.claim, "source": i.source} for i in issues if i.kind == "redundant"]
        missing = list(dict.fromkeys(f"[{i.source}]" for i in issues if i.kind == "missing_passage"))
        prompt = load_prompt("feedback_citation")
        text = prompt.render(unsupported=unsupported, redundant=redundant, missing=missing,
                             passages=", ".join(f"[{s.id}]" for s in case.sources))[0]["content"]
        units = list({u.id: u for i in issues if i.kind == "unsupported_claim" and (u := i.unit) is not None}.values())
        verdicts = {u.id: v for u in units if (v := _group_verdict(evaluation, u)) is not None}
        return Feedback(self.name, text, units=units, verdicts=verdicts, citations=issues,
                        details={"prompt": prompt.name, "version": prompt.version})


# --- citation problems ---------------------------------------------------------------------------------------------


def _supports(v: Verdict | None) -> bool | None:
    if v is None or v.label == "error" or v.score is None:
        return None
    return v.label == "supported"


def _group_verdict(ev: Evaluation, unit: Unit) -> Verdict | None:
    """The verdict of a unit against all the passages its group cites (ALiiCE recall), else its plain verdict."""
    cited = sorted(unit.cited)
    for v in ev.verdicts:
        if v.unit_id == unit.id and v.target and sorted(v.target) == cited:
            return v
    return ev.verdict_for(unit.id)


def _verdict_on(ev: Evaluation, unit: Unit, target: list[str]) -> Verdict | None:
    want = sorted(target)
    for v in ev.verdicts:
        if v.unit_id == unit.id and sorted(v.target) == want:
            return v
    return None


def citation_issues(case: Case, evaluation: Evaluation) -> list[CitationIssue]:
    """Citation problems of a cited answer, read from evaluation.metrics["citations"] when it lists them, else from
    the unit verdicts (a group verdict on all cited passages, and one verdict per cited passage alone)."""
    from_metrics = _issues_from_metrics(evaluation)
    if from_metrics is not None:
        return from_metrics
    known = {s.id for s in case.sources}
    issues: list[CitationIssue] = []
    for u in evaluation.units:
        if not u.cited:
            continue
        claim = u.text.strip()
        for sid in u.cited:
            if sid not in known:
                issues.append(CitationIssue("missing_passage", claim, list(u.cited), sid, u))
        group = _supports(_group_verdict(evaluation, u))
        if group is False:
            issues.append(CitationIssue("unsupported_claim", claim, list(u.cited), None, u))
            continue
        if len(u.cited) < 2 or group is None:
            continue
        for sid in u.cited:
            if sid not in known:
                continue
            alone = _supports(_verdict_on(evaluation, u, [sid]))
            rest = [x for x in u.cited if x != sid and x in known]
            without = _supports(_verdict_on(evaluation, u, rest)) if rest else None
            kind = _citation_kind(alone, without)
            if kind:
                issues.append(CitationIssue(kind, claim, list(u.cited), sid, u))
    return issues


def _citation_kind(alone: bool | None, without: bool | None) -> str | None:
    """METHODS' redundant citation (ALiiCE precision 0): alone it does not support the claim while the others do
    without it. Supporting alone, needed by the group, or unknown: no issue."""
    if alone is False and without is True:
        return "redundant"
    return None


def _issues_from_metrics(ev: Evaluation) -> list[CitationIssue] | None:
    """Read the per-group rows of evaluation.metrics["citations"] (citefix.cited.evaluate); None when they are not
    there."""
    m = ev.metrics.get("citations") if isinstance(ev.metrics, dict) else None
    if not isinstance(m, dict):
        return None
    groups = m.get("groups")
    if not isinstance(groups, list) or not all(isinstance(g, dict) for g in groups):
        return None
    by_id = {u.id: u for u in ev.units}
    issues: list[CitationIssue] = []
    for g in groups:
        unit = by_id.get(g.get("unit_id") or "")
        claim = g.get("claim") or g.get("text") or (unit.text if unit else "")
        cited = [str(x) for x in (g.get("ids") or g.get("cited") or (unit.cited if unit else []))]
        if not claim:
            continue
        for sid in g.get("missing") or []:
            issues.append(CitationIssue("missing_passage", claim, cited, str(sid), unit))
        recall = g.get("recall")
        if recall is not None and float(recall) < 0.5:
            issues.append(CitationIssue("unsupported_claim", claim, cited, None, unit,
                                        [str(x) for x in g.get("supported_by") or []]))
            continue
        for c in g.get("citations") or []:
            if not isinstance(c, dict):
                continue
            sid = str(c.get("id") or "")
            # one definition with the report (citefix.cited.metrics): the label the metrics gave, nothing recomputed
            if c.get("label") == "redundant" or c.get("redundant"):
                issues.append(CitationIssue("redundant", claim, cited, sid, unit))
    return issues


__all__ = [
    "ACUFeedback", "CitationFeedback", "CitationIssue", "CritiqueFeedback", "Feedback", "FeedbackStrategy", "NoFeedback",
    "available_strategies", "build_strategy", "citation_issues", "parse_critique", "register_strategy",
]
