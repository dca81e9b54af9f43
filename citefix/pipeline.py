"""Settings → pipeline, in one place: every collaborator a run needs is built here and nowhere else.

`RunSettings` holds everything a run needs (the models, verifier and decomposer of `config.Settings`, plus the judge,
reviser, strategy, rounds, target and patience) and is rebuilt from a stored run with `RunSettings.from_stored`.
`build_run_pipeline` turns it into a `Pipeline`: the LLM client, the decomposer (per case kind), the verifier wrapped
in the verdict cache, the judge, and — per session — the feedback strategy and the reviser. `check`, `refine`,
`compare`, `meta-eval`, the TUI and the Python API (`citefix.api`) all build through this module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from citefix.config import DEFAULT_PATIENCE, DEFAULT_ROUNDS, Settings, load_settings
from citefix.errors import ConfigError, InputError
from citefix.llm.client import LLMClient

if TYPE_CHECKING:
    from citefix.decompose.base import Decomposer
    from citefix.revision.parts import RunRecord, SessionParts
    from citefix.store import Store
    from citefix.verify.base import Verifier

OFFLINE_SIGNALS = {"offline": "combined", "offline:lexical": "lexical", "lexical": "lexical",
                   "offline:alignment": "alignment", "alignment": "alignment",
                   "offline:similarity": "similarity", "similarity": "similarity",
                   "offline:entail": "entail", "entail": "entail"}


# --- single collaborators -------------------------------------------------------------------------------------------


def build_llm(model: str, settings: Settings, store=None, transport=None) -> LLMClient:
    cache = store.llm_cache() if (store is not None and settings.cache) else None
    if transport is None and settings.router:
        from citefix.llm.router import model_names, router_transport

        if model in model_names(settings.router):  # a model_name of the config's [router]: litellm's Router sends it
            transport = router_transport(cast(dict, settings.router))  # set: checked above
    if transport is None and settings.llm_transport == "direct":  # a Router's model name keeps the Router (above)
        from citefix.llm.direct import direct_transport_from_settings

        transport = direct_transport_from_settings()
    if transport is None:
        _require_api_key(model)
    client = LLMClient(model, transport=transport, cache=cache, concurrency=settings.concurrency,
                       timeout=settings.llm_timeout, max_attempts=settings.llm_attempts,
                       backoff_max=settings.llm_backoff_max, run_deadline=settings.run_deadline or None)
    client.budget = getattr(settings, "budget", None)  # --max-cost, set on the settings by the command
    return client


# Providers that always need an API key in the environment; others may take credentials elsewhere (cloud roles,
# profiles, tokens) or none (local servers), and are left to their first call.
_KEYED_PROVIDERS = frozenset(("openai", "anthropic", "groq", "mistral", "cohere", "together_ai", "deepseek",
                              "fireworks_ai", "openrouter", "gemini", "perplexity", "xai"))


def _require_api_key(model: str) -> None:
    """A settings mistake caught before any work: the provider's API key is missing from the environment (what
    litellm would look for on the first call)."""
    import os

    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    import litellm

    try:
        if litellm.get_llm_provider(model)[1] not in _KEYED_PROVIDERS:
            return
        missing = [k for k in litellm.validate_environment(model=model).get("missing_keys") or [] if k.endswith("_KEY")]
    except Exception:  # an unknown provider: litellm says so on the first call, with its own message
        return
    if missing:
        raise ConfigError(f"no API key for {model!r}: set {' or '.join(missing)} in the environment (any value for a "
                          "local OpenAI-compatible server), or run offline without --llm")


def build_verifier(name: str, settings: Settings, store=None, llm: LLMClient | None = None, transport=None) -> Verifier:
    """A verifier by name: offline[:signal] | llm | nli:<hub id or path>."""
    name = (name or "auto").strip()
    from citefix.device import use

    use(settings.device)  # where the local models this verifier loads will run
    if name == "auto":
        name = "llm" if (llm is not None or settings.llm) else "offline"
    if name in OFFLINE_SIGNALS:
        from citefix.verify.offline import OfflineVerifier

        return OfflineVerifier(signal=OFFLINE_SIGNALS[name], precision=settings.precision)
    if name == "llm" or name.startswith("llm:"):
        model = name.split(":", 1)[1] if name.startswith("llm:") else None
        if llm is None or (model and model != llm.model):
            model = model or settings.llm
            if not model:
                raise ConfigError("verifier 'llm' needs a model: pass --llm MODEL or set CITEFIX_LLM")
            llm = build_llm(model, settings, store, transport)
        from citefix.verify.llm_judge import LLMJudgeVerifier

        return LLMJudgeVerifier(llm, window_words=settings.window_words)
    if name.startswith("nli:"):
        from citefix.verify.nli import NLIVerifier

        device = settings.nli_device if settings.nli_device != "auto" else settings.device
        return NLIVerifier(name.split(":", 1)[1], device=device)
    raise ConfigError(f"unknown verifier {name!r}; use offline, offline:lexical, offline:alignment, offline:similarity, offline:entail, llm or nli:<model>")


def build_decomposer(name: str, settings: Settings, llm: LLMClient | None = None, *, kind: str = "summary") -> Decomposer:
    name = (name or "auto").strip()
    if name == "auto":
        if kind == "cited_answer":
            name = "aliice"
        else:
            name = "acu" if llm is not None else "clauses"
    if name == "acu":
        if llm is None:
            raise ConfigError("decomposer 'acu' needs an LLM: pass --llm MODEL or set CITEFIX_LLM")
        from citefix.decompose.acu_llm import ACUDecomposer

        return ACUDecomposer(llm, granularity=settings.acu_granularity)
    if name == "clauses":
        from citefix.decompose.clauses import ClauseDecomposer

        return ClauseDecomposer()
    if name == "aliice":
        from citefix.decompose.claims import ClaimDecomposer

        return ClaimDecomposer()
    if name == "sentence":
        from citefix.decompose.claims import SentenceDecomposer

        return SentenceDecomposer()
    raise ConfigError(f"unknown decomposer {name!r}; use acu, clauses, aliice or sentence")


def build_judge(settings: Settings, store=None, judge_verifier: str | None = None, transport=None):
    """The verifier that scores every round a second time (settings.judge_llm and/or a judge verifier), or None."""
    if not (settings.judge_llm or judge_verifier):
        return None
    judge_llm = build_llm(settings.judge_llm, settings, store, transport) if settings.judge_llm else None
    name = judge_verifier or "llm"
    if judge_llm is None and name == "llm":
        raise InputError("--judge-verifier llm needs --judge-llm MODEL")
    return build_verifier(name, settings, store, llm=judge_llm, transport=transport)


def wrap_cache(verifier, store=None, *, cache: bool = True):
    """The verifier with verdicts of unchanged units reused (in memory, and from the store when caching is on)."""
    from citefix.revision.incremental import CachingVerifier

    if verifier is None or isinstance(verifier, CachingVerifier):
        return verifier
    return CachingVerifier(verifier, store=store if (store is not None and cache) else None)


def build_strategy(strategy, llm=None):
    """A feedback strategy by name (an object passes through)."""
    if not isinstance(strategy, str):
        return strategy
    from citefix.revision.feedback import build_strategy as by_name

    return by_name(strategy, llm=llm)


def build_reviser(reviser, llm=None):
    """A reviser by name: auto (the LLM when one is configured, else offline; None = auto) | llm | offline. An object
    passes through."""
    if reviser is not None and not isinstance(reviser, str):
        return reviser
    name = (reviser or "auto").strip()
    if name == "auto":
        name = "llm" if llm is not None else "offline"
    if name == "llm":
        if llm is None:
            raise ConfigError("reviser 'llm' needs a model: pass --llm MODEL or set CITEFIX_LLM (or use --reviser offline)")
        from citefix.revision.revise import LLMReviser

        return LLMReviser(llm)
    if name == "offline":
        from citefix.revision.offline import OfflineReviser

        return OfflineReviser()
    raise ConfigError(f"unknown reviser {name!r}; use auto, llm or offline")


# --- settings -------------------------------------------------------------------------------------------------------


@dataclass
class RunSettings:
    """Everything one run needs; stored on the run row (`stored()`) and rebuilt from it (`from_stored`)."""

    settings: Settings = field(default_factory=Settings)
    reviser: str | None = None  # auto | llm | offline (None: auto)
    judge_verifier: str | None = None
    max_rounds: int = DEFAULT_ROUNDS
    target: float | None = None
    patience: int | None = DEFAULT_PATIENCE  # None or 0: off

    @property
    def strategy(self) -> str:
        return self.settings.strategy

    @property
    def reviser_name(self) -> str:
        return self.reviser or "auto"

    def stored(self) -> dict[str, Any]:
        """The settings a run row records (the caller's choices; a resumed run is rebuilt from them)."""
        s = self.settings
        return {"llm": s.llm, "judge_llm": s.judge_llm, "verifier": s.verifier, "judge_verifier": self.judge_verifier,
                "decomposer": s.decomposer, "reviser": self.reviser_name, "acu_granularity": s.acu_granularity,
                "aggregation": s.aggregation, "cache": s.cache,
                # recorded only when not the default, so runs stored before the setting keep their signatures
                **({"precision": s.precision} if s.precision != "fp32" else {})}

    def with_loop(self) -> dict[str, Any]:
        """stored() with the loop's limits, as `refine()` records them."""
        return {**self.stored(), "max_rounds": self.max_rounds, "target": self.target, "patience": self.patience or None}

    @classmethod
    def load(cls, *, saved: dict[str, Any] | None = None, reviser: str | None = None,
             judge_verifier: str | None = None, rounds: int | None = None, target: float | None = None,
             patience: int | None = None, concurrency: int | None = None, db: str | None = None,
             cache: bool | None = None, llm_options: dict[str, Any] | None = None, **given: Any) -> "RunSettings":
        """Settings from defaults < config file < environment < what a stored run saved < what was given.

        `given` holds the config.Settings values (llm, judge_llm, verifier, decomposer, strategy, acu_granularity,
        aggregation); `saved` is a stored run's settings (`stored_settings`); concurrency and db are never taken from
        a stored run."""
        saved = saved or {}
        pick = lambda name, value: value if value is not None else saved.get(name)  # noqa: E731
        names = ("llm", "judge_llm", "verifier", "decomposer", "strategy", "acu_granularity", "aggregation")
        unknown = set(given) - set(names)
        if unknown:
            raise TypeError(f"unknown setting(s) {sorted(unknown)}")
        settings = load_settings(**{n: pick(n, given.get(n)) for n in names}, concurrency=concurrency, db=db,
                                 cache=cache if cache is not None else saved.get("cache"), **(llm_options or {}))
        p = patience if patience is not None else saved.get("patience", DEFAULT_PATIENCE)
        return cls(settings=settings, reviser=reviser or saved.get("reviser"),
                   judge_verifier=judge_verifier or saved.get("judge_verifier"),
                   max_rounds=rounds if rounds is not None else saved.get("max_rounds", DEFAULT_ROUNDS),
                   target=target if target is not None else saved.get("target"), patience=p or None)

    @classmethod
    def from_stored(cls, store, run_id: int, **given: Any) -> "RunSettings":
        """The settings of a stored run, with what is given on top."""
        return cls.load(saved=stored_settings(store, run_id), **given)


def stored_settings(store: Store, run_id: int) -> dict[str, Any]:
    """A stored run's settings as saved, with the run row's model and strategy columns filled in."""
    import json

    run = store.run(run_id)
    try:
        saved = json.loads(run.settings or "{}")
    except json.JSONDecodeError:
        saved = {}
    saved.setdefault("llm", run.llm)
    saved.setdefault("judge_llm", run.judge_llm)
    saved.setdefault("strategy", run.strategy)
    return saved


# --- the pipeline ---------------------------------------------------------------------------------------------------


@dataclass
class Pipeline:
    """What one evaluation or refinement needs; built once per command, reused across cases."""

    settings: Settings
    llm: LLMClient | None
    verifier: Verifier
    store: Any | None = None
    transport: Any | None = None
    judge: Verifier | None = None
    run: RunSettings | None = None

    def decomposer_for(self, kind: str):
        return build_decomposer(self.settings.decomposer, self.settings, self.llm, kind=kind)

    def strategy_for(self, name: str | None = None):
        return build_strategy(name or self.settings.strategy, llm=self.llm)

    @property
    def reviser_name(self) -> str:
        return self.run.reviser_name if self.run is not None else "auto"

    def parts_for(self, kind: str | None, store=None, strategy: str | None = None) -> SessionParts:
        """A refinement session's collaborators for a text of this kind: this pipeline's, with the run's strategy
        (or `strategy`), reviser and judge."""
        run = self.run or RunSettings(self.settings)
        return session_parts(kind or "summary", pipeline=self, strategy=strategy or run.strategy,
                             reviser=run.reviser_name, store=store)

    def record(self, command: str = "refine", input_path: str | None = None, **extra: Any) -> RunRecord:
        """What a run row records of this pipeline: the command, the input and the run's settings (and `extra`)."""
        from citefix.revision.parts import RunRecord

        run = self.run or RunSettings(self.settings)
        return RunRecord(command=command, input_path=input_path, settings={**run.stored(), **extra})

    def compare_signature(self) -> dict[str, Any]:
        """What makes a stored compare run reusable: the stored settings with the verifier as built, whatever the
        cache setting (run_compare adds the case, strategy and stop rules)."""
        sig = {**self.record().settings, "verifier": self.verifier.name, "decomposer": self.settings.decomposer}
        sig.pop("cache", None)
        return sig

    @property
    def offline(self) -> bool:
        return self.llm is None

    def describe(self) -> dict:
        return {"llm": self.llm.model if self.llm else None, "verifier": self.verifier.name}


def build_pipeline(settings: Settings, store=None, transport=None) -> Pipeline:
    """LLM client and verifier (no verdict cache, no judge): what a check needs."""
    llm = build_llm(settings.llm, settings, store, transport) if settings.llm else None
    verifier = build_verifier(settings.verifier, settings, store, llm, transport)
    return Pipeline(settings=settings, llm=llm, verifier=verifier, store=store, transport=transport)


def build_run_pipeline(run: RunSettings, store=None, transport=None) -> Pipeline:
    """What a refinement needs: build_pipeline's, the judge, and both verifiers behind the verdict cache."""
    pipeline = build_pipeline(run.settings, store, transport)
    judge = build_judge(run.settings, store, run.judge_verifier, transport)
    pipeline.verifier = wrap_cache(pipeline.verifier, store, cache=run.settings.cache)
    pipeline.judge = wrap_cache(judge, store, cache=run.settings.cache)
    pipeline.run = run
    return pipeline


def session_parts(kind: str, *, pipeline: Pipeline | None = None, llm=None, verifier=None, decomposer=None,
                  strategy="acu", reviser=None, judge_verifier=None, store=None, cache: bool | None = None,
                  incremental: bool = True) -> SessionParts:
    """The collaborators of one refinement session (what RefineSession is given), from a pipeline and/or explicit
    ones: what is given explicitly wins over the pipeline's. With incremental, both verifiers sit behind the verdict
    cache (in `store` when one is given and `cache` is on).

    strategy=None builds neither strategy nor reviser: a session that only checks (zero revision rounds)."""
    from citefix.revision.parts import SessionParts

    if pipeline is not None:
        llm = llm if llm is not None else pipeline.llm
        verifier = verifier if verifier is not None else pipeline.verifier
        judge_verifier = judge_verifier if judge_verifier is not None else pipeline.judge
    if verifier is None:
        raise ConfigError("refine needs a verifier (or a pipeline)")
    if cache is None:
        cache = pipeline.settings.cache if pipeline is not None else True
    if incremental:
        verifier = wrap_cache(verifier, store, cache=cache)
        judge_verifier = wrap_cache(judge_verifier, store, cache=cache)
    if decomposer is None:
        decomposer = (pipeline.decomposer_for(kind) if pipeline is not None
                      else build_decomposer("auto", Settings(), llm, kind=kind or "summary"))
    if strategy is None:
        built_strategy = built_reviser = None
    else:
        built_strategy = build_strategy(strategy, llm=llm)
        if reviser is None and pipeline is not None and pipeline.run is not None:
            reviser = pipeline.run.reviser
        built_reviser = build_reviser(reviser, llm=llm)
    return SessionParts(verifier=verifier, decomposer=decomposer, llm=llm, strategy=built_strategy,
                        reviser=built_reviser, judge_verifier=judge_verifier,
                        aggregation=pipeline.settings.aggregation if pipeline is not None else "mean")
