"""Know the cost before paying it: `--dry-run` estimates and `--max-cost` enforces.

The estimate counts the model calls a command would make, from the real prompts rendered on the real inputs: ACU
generation (one call per sentence), verification (one call per unit and source window; for a cited answer the group,
and for a group of several citations each passage alone and the group without it), critique and revision per round.
The number of ACUs is not known before the LLM writes them: the offline clause splitter's count stands in for it.
Refinement counts a full re-check per round (an upper bound: unchanged sentences keep their verdicts). Tokens are
characters / 4; completions use the typical answer length. The price comes from litellm's local price table; a model
it has no price for gives "unknown", never $0.
"""

from __future__ import annotations

import math
import os
import threading
from dataclasses import dataclass, field
from typing import Any

from citefix.errors import LLMError

COMPLETION = {"acu_generate": 60, "acu_verify": 1, "critique": 150}


def tokens_of(messages: list[dict[str, Any]] | str) -> int:
    text = messages if isinstance(messages, str) else "".join(str(m.get("content", "")) for m in messages)
    return max(1, math.ceil(len(text) / 4))


def price(model: str, prompt_tokens: int, completion_tokens: int) -> float | None:
    """USD from litellm's local price table; None when it has no price for the model."""
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    try:
        import litellm

        from citefix.llm.unpriced import declared_free

        if declared_free(model):
            return None  # entered at $0 by citefix (a plain call or a Router) only to spare litellm's lookups
        p, c = litellm.cost_per_token(model=model, prompt_tokens=prompt_tokens, completion_tokens=completion_tokens)
        return float(p) + float(c)
    except Exception:  # litellm raises for a model it does not know
        return None


@dataclass
class Estimate:
    calls: dict[tuple[str, str], int] = field(default_factory=dict)  # (model, purpose) → calls
    prompt_tokens: dict[str, int] = field(default_factory=dict)  # model → tokens
    completion_tokens: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def add(self, model: str | None, purpose: str, prompt_tokens: int, completion_tokens: int, n: int = 1) -> None:
        if not model or n <= 0:
            return
        self.calls[(model, purpose)] = self.calls.get((model, purpose), 0) + n
        self.prompt_tokens[model] = self.prompt_tokens.get(model, 0) + prompt_tokens * n
        self.completion_tokens[model] = self.completion_tokens.get(model, 0) + completion_tokens * n

    def merge(self, other: "Estimate", times: int = 1) -> None:
        k: Any  # a (model, purpose) key, then a model name
        for k, v in other.calls.items():
            self.calls[k] = self.calls.get(k, 0) + v * times
        for k, v in other.prompt_tokens.items():
            self.prompt_tokens[k] = self.prompt_tokens.get(k, 0) + v * times
        for k, v in other.completion_tokens.items():
            self.completion_tokens[k] = self.completion_tokens.get(k, 0) + v * times
        self.notes += [n for n in other.notes if n not in self.notes]

    @property
    def total_calls(self) -> int:
        return sum(self.calls.values())

    def cost(self) -> tuple[float | None, list[str]]:
        total, unknown = 0.0, []
        for model in self.prompt_tokens:
            p = price(model, self.prompt_tokens[model], self.completion_tokens.get(model, 0))
            if p is None:
                unknown.append(model)
            else:
                total += p
        return (None if unknown else total), unknown

    def as_dict(self) -> dict[str, Any]:
        cost, unknown = self.cost()
        return {"calls": self.total_calls,
                "by_purpose": {f"{m} {p}": n for (m, p), n in self.calls.items()},
                "prompt_tokens": sum(self.prompt_tokens.values()),
                "completion_tokens": sum(self.completion_tokens.values()),
                "cost_usd": cost, "unpriced_models": unknown, "notes": self.notes}

    def line(self) -> str:
        from citefix.costs import format_cost

        cost, unknown = self.cost()
        if not self.total_calls:
            return "dry run: 0 model calls (offline: nothing to pay); no call was made"
        purposes: dict[str, int] = {}
        for (_, p), n in self.calls.items():
            purposes[p] = purposes.get(p, 0) + n
        models = ", ".join(dict.fromkeys(m for m, _ in self.calls))
        why = f"litellm's price table has no price for {', '.join(unknown)}" if unknown else None
        return (f"dry run: {self.total_calls} model calls ({', '.join(f'{n} {p}' for p, n in purposes.items())}) to "
                f"{models}; about {sum(self.prompt_tokens.values()):,} prompt + "
                f"{sum(self.completion_tokens.values()):,} completion tokens; estimated cost "
                f"{format_cost(cost, why)}; no call was made")


# --- what one check costs ------------------------------------------------------------------------------------------


def _resolve(settings, kind: str) -> tuple[str, str]:
    verifier = (settings.verifier or "auto").strip()
    if verifier == "auto":
        verifier = "llm" if settings.llm else "offline"
    decomposer = (settings.decomposer or "auto").strip()
    if decomposer == "auto":
        decomposer = "aliice" if kind == "cited_answer" else ("acu" if settings.llm else "clauses")
    return verifier, decomposer


def _verifier_model(verifier: str, settings) -> str | None:
    if verifier == "llm":
        return settings.llm
    if verifier.startswith("llm:"):
        return verifier.split(":", 1)[1]
    return None


def estimate_check(case, settings, *, verifier: str | None = None, model: str | None = None) -> Estimate:
    """Model calls of one check of `case` under `settings` (a different verifier / model for a judge)."""
    from citefix.chunking import split_sentences
    from citefix.nlp import strip_citations
    from citefix.prompting import load_prompt
    from citefix.verify.llm_judge import render_window, source_windows

    est = Estimate()
    v_name, d_name = _resolve(settings, case.kind)
    if verifier is not None:
        v_name = verifier
    v_model = model if (model and v_name == "llm") else _verifier_model(v_name, settings)
    gen_model = settings.llm if d_name == "acu" and case.kind != "cited_answer" else None
    if not v_model and not gen_model:
        return est
    if case.kind == "cited_answer":
        from citefix.decompose.claims import ClaimDecomposer

        units = ClaimDecomposer().units(case)
        ask = []
        for u in units:
            cited = [c for c in u.cited if case.source(c) is not None]
            if not cited:
                continue
            ask.append((u.text, cited))
            if len(cited) > 1:
                ask += [(u.text, [c]) for c in cited]
                ask += [(u.text, [x for x in cited if x != c]) for c in cited]
    else:
        from citefix.decompose.clauses import ClauseDecomposer

        units = ClauseDecomposer().units(case)
        ask = [(u.text, [s.id for s in case.sources]) for u in units]
        if gen_model:
            prompt = load_prompt("acu_generate")
            for s in split_sentences(case.text):
                piece = strip_citations(s.text).strip()
                if piece:
                    est.add(gen_model, "acu_generate", tokens_of(prompt.render(text=piece)), COMPLETION["acu_generate"])
            est.notes.append("the ACU count is estimated by the offline clause splitter")
    if v_model:
        prompt = load_prompt("acu_verify")
        for text, ids in ask:
            for window in source_windows(case, ids, settings.window_words):
                est.add(v_model, "acu_verify", tokens_of(prompt.render(passage=render_window(case, window),
                                                                         statement=text)), COMPLETION["acu_verify"])
    return est


def estimate_refine(case, settings, *, strategy: str, rounds: int, reviser: str | None = None,
                    judge_llm: str | None = None, judge_verifier: str | None = None) -> Estimate:
    """Round 0 plus, per round, the feedback, the revision and a full re-check (an upper bound)."""
    from citefix.prompting import load_prompt
    from citefix.revision.vocabulary import render_sources

    est = Estimate()
    check = estimate_check(case, settings)
    judge = None
    if judge_llm or judge_verifier:
        judge = estimate_check(case, settings, verifier=judge_verifier or "llm", model=judge_llm)
    est.merge(check, rounds + 1)
    if judge is not None:
        est.merge(judge, rounds + 1)
    uses_llm = (reviser in (None, "auto", "llm")) and settings.llm
    noun = "answer" if case.kind == "cited_answer" else "summary"
    if uses_llm:
        revise = load_prompt("revise")
        text_tokens = tokens_of(case.text)
        sources = render_sources(case)
        try:
            msgs = revise.render(source=sources, text=case.text, comment="x" * 400, noun=noun,
                                 cited=case.kind == "cited_answer", passages=", ".join(s.id for s in case.sources))
        except Exception:  # a template variable this estimate does not know: count the parts instead
            msgs = sources + case.text + "x" * 1200
        est.add(settings.llm, "revise", tokens_of(msgs), text_tokens, rounds)
    if strategy == "critique" and settings.llm:
        crit = load_prompt("critique")
        est.add(settings.llm, "critique", tokens_of(crit.render(source=render_sources(case), text=case.text, noun=noun)),
                COMPLETION["critique"], rounds)
    if rounds:
        est.notes.append("refinement rounds count a full re-check each (unchanged sentences are reused in practice)")
    return est


def estimate_meta_eval(path: str, names: list[str], settings, *, limit: int | None, format: str = "auto",
                       decomposer: str | None = None) -> Estimate:
    from citefix.metaeval.loaders import load
    from citefix.prompting import load_prompt
    from citefix.verify.llm_judge import render_window, source_windows

    est = Estimate()
    loaded = load(path, format=format, limit=limit, skip_invalid=True)
    llm_names = [n for n in names if _verifier_model(n, settings)]
    if loaded.shape == "rose" and settings.llm and (decomposer or "acu") == "acu":
        gen = load_prompt("acu_generate")
        from citefix.chunking import split_sentences

        for item in loaded.items:
            for s in split_sentences(item.case.text):
                est.add(settings.llm, "acu_generate", tokens_of(gen.render(text=s.text)), COMPLETION["acu_generate"])
        return est
    if not llm_names:
        return est
    prompt = load_prompt("acu_verify")
    for name in llm_names:
        model = _verifier_model(name, settings)
        for item in loaded.items:
            asks = ([(s.unit_text, s.cited) for s in item.sentences] if item.shape == "attributionbench"
                    else [(item.case.text, [s.id for s in item.case.sources])])
            for text, ids in asks:
                for window in source_windows(item.case, ids, settings.window_words):
                    est.add(model, "acu_verify", tokens_of(prompt.render(passage=render_window(item.case, window),
                                                                           statement=text)), COMPLETION["acu_verify"])
    return est


# --- --max-cost -------------------------------------------------------------------------------------------------------


class CostLimitReached(LLMError):
    """The next model call would take the spend past --max-cost."""


class Budget:
    """Spend so far across every client of one command; refuses a call that would pass the limit."""

    def __init__(self, limit: float):
        self.limit = float(limit)
        self.spent = 0.0
        self.reached = False
        self._lock = threading.Lock()

    def before(self, model: str, messages: list[dict[str, Any]], max_tokens: int) -> None:
        est = price(model, tokens_of(messages), max_tokens) or 0.0
        with self._lock:
            if self.spent + est > self.limit:
                self.reached = True
                raise CostLimitReached(
                    f"--max-cost ${self.limit:.4f} reached: spent ${self.spent:.4f}, the next call would cost about "
                    f"${est:.4f}; completed rounds are kept (raise --max-cost to go on)")

    def after(self, cost: float | None) -> None:
        with self._lock:
            self.spent += float(cost or 0.0)

    def message(self) -> str:
        return (f"stopped at --max-cost ${self.limit:.4f} (spent ${self.spent:.4f}); completed rounds are kept in the "
                "store")
