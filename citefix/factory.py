"""Build the collaborators (LLM clients, decomposer, verifier) from settings. The CLI and the TUI both use this."""

from __future__ import annotations

from dataclasses import dataclass

from citefix.config import Settings
from citefix.errors import ConfigError
from citefix.llm.client import LLMClient

OFFLINE_SIGNALS = {"offline": "combined", "offline:lexical": "lexical", "lexical": "lexical",
                   "offline:alignment": "alignment", "alignment": "alignment",
                   "offline:similarity": "similarity", "similarity": "similarity"}


def build_llm(model: str, settings: Settings, store=None, transport=None) -> LLMClient:
    cache = store.llm_cache() if (store is not None and settings.cache) else None
    if transport is None and getattr(settings, "router", None):
        from citefix.llm.router import model_names, router_transport

        if model in model_names(settings.router):  # a model_name of the config's [router]: litellm's Router sends it
            transport = router_transport(settings.router)
    client = LLMClient(model, transport=transport, cache=cache, concurrency=settings.concurrency,
                       timeout=settings.llm_timeout, max_attempts=settings.llm_attempts,
                       backoff_max=settings.llm_backoff_max, run_deadline=settings.run_deadline or None)
    client.budget = getattr(settings, "budget", None)  # --max-cost, set on the settings by the command
    return client


def build_verifier(name: str, settings: Settings, store=None, llm: LLMClient | None = None, transport=None):
    """A verifier by name: offline[:signal] | llm | nli:<hub id or path>."""
    name = (name or "auto").strip()
    from citefix.device import use

    use(getattr(settings, "device", "auto"))  # where the local models this verifier loads will run
    if name == "auto":
        name = "llm" if (llm is not None or settings.llm) else "offline"
    if name in OFFLINE_SIGNALS:
        from citefix.verify.offline import OfflineVerifier

        return OfflineVerifier(signal=OFFLINE_SIGNALS[name])
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

        device = settings.nli_device if settings.nli_device != "auto" else getattr(settings, "device", "auto")
        return NLIVerifier(name.split(":", 1)[1], device=device)
    raise ConfigError(f"unknown verifier {name!r}; use offline, offline:lexical, offline:alignment, offline:similarity, llm or nli:<model>")


def build_decomposer(name: str, settings: Settings, llm: LLMClient | None = None, *, kind: str = "summary"):
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

        return ACUDecomposer(llm, granularity=getattr(settings, "acu_granularity", "sentence"))
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


@dataclass
class Pipeline:
    """What one evaluation needs; built once per command, reused across cases."""

    settings: Settings
    llm: LLMClient | None
    verifier: object
    store: object | None = None
    transport: object | None = None

    def decomposer_for(self, kind: str):
        return build_decomposer(self.settings.decomposer, self.settings, self.llm, kind=kind)

    @property
    def offline(self) -> bool:
        return self.llm is None

    def describe(self) -> dict:
        return {"llm": self.llm.model if self.llm else None, "verifier": getattr(self.verifier, "name", "?")}


def build_pipeline(settings: Settings, store=None, transport=None) -> Pipeline:
    llm = build_llm(settings.llm, settings, store, transport) if settings.llm else None
    verifier = build_verifier(settings.verifier, settings, store, llm, transport)
    return Pipeline(settings=settings, llm=llm, verifier=verifier, store=store, transport=transport)
