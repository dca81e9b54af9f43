"""Settings: defaults < config file < environment < command line. Read when asked, never at import."""

from __future__ import annotations

import os
import tomllib
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from citefix.errors import ConfigError

ENV = {
    "llm": "CITEFIX_LLM",
    "judge_llm": "CITEFIX_JUDGE_LLM",
    "verifier": "CITEFIX_VERIFIER",
    "decomposer": "CITEFIX_DECOMPOSER",
    "strategy": "CITEFIX_STRATEGY",
    "concurrency": "CITEFIX_CONCURRENCY",
    "nli_device": "CITEFIX_NLI_DEVICE",
    "device": "CITEFIX_DEVICE",
    "precision": "CITEFIX_PRECISION",
    "llm_timeout": "CITEFIX_LLM_TIMEOUT",
    "llm_attempts": "CITEFIX_LLM_ATTEMPTS",
    "llm_backoff_max": "CITEFIX_LLM_BACKOFF_MAX",
    "run_deadline": "CITEFIX_RUN_DEADLINE",
    "acu_granularity": "CITEFIX_ACU_GRANULARITY",
    "aggregation": "CITEFIX_AGGREGATION",
    "llm_transport": "CITEFIX_LLM_TRANSPORT",
}

GRANULARITIES = ("sentence", "text")
DEFAULT_ROUNDS = 3  # a refinement's revision rounds, unless given (citefix.pipeline.RunSettings)
DEFAULT_PATIENCE = 2  # rounds without a better score before a refinement stops
AGGREGATIONS = ("mean", "all_supported", "min")
LLM_TRANSPORTS = ("litellm", "direct")  # a model call sent through litellm, or straight to an OpenAI-compatible server


@dataclass
class Settings:
    llm: str | None = None  # litellm model string; None = offline default
    judge_llm: str | None = None  # a second model that scores rounds in refinement
    verifier: str = "auto"  # auto | offline | offline:lexical | offline:alignment | offline:similarity | offline:entail | llm | nli:<model>
    decomposer: str = "auto"  # auto | acu | clauses | aliice | sentence
    strategy: str = "acu"  # refinement feedback strategy
    concurrency: int = 8
    cache: bool = True
    window_words: int = 1500  # source window per LLM verification call
    nli_device: str = "auto"  # the NLI verifier's device when it should differ from `device`
    device: str = "auto"  # auto | cpu | cuda | cuda:N for the local models (MiniLM encoder, NLI); citefix.device
    precision: str = "fp32"  # fp32 | bf16: the offline verifier's encoder arithmetic; citefix.device
    acu_granularity: str = "sentence"  # LLM ACUs written per sentence, or from the whole text (pronouns resolved)
    aggregation: str = "mean"  # unit scores → text score: mean (ACUEval) | all_supported (1 or 0) | min
    db: str | None = None
    llm_timeout: float = 60.0  # seconds one model call may take before it is abandoned (and retried)
    llm_attempts: int = 5  # attempts per model call on transient faults (rate limit, timeout, 5xx, malformed 200)
    llm_backoff_max: float = 20.0  # longest wait between attempts, in seconds (a Retry-After up to 60 s is honoured)
    run_deadline: float = 0.0  # seconds a run may spend on model calls before it stops with llm_error; 0: no limit
    llm_transport: str = "litellm"  # litellm | direct: straight to the OpenAI-compatible server at OPENAI_API_BASE
    router: dict | None = None  # the config file's [router] table (litellm Router), checked; see citefix.llm.router

    def replace(self, **overrides: Any) -> "Settings":
        data = asdict(self)
        data.update({k: v for k, v in overrides.items() if v is not None})
        return Settings(**data)


def config_path() -> Path:
    if os.environ.get("CITEFIX_CONFIG"):
        return Path(os.environ["CITEFIX_CONFIG"]).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "citefix" / "config.toml"


def load_settings(**cli: Any) -> Settings:
    known = {f.name: f for f in fields(Settings)}
    values: dict[str, Any] = {}
    origin: dict[str, str] = {}  # where each value came from, for messages: the file and key, the variable, the flag
    path = config_path()
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: not valid TOML ({exc}); fix or delete the file") from exc
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read the config file ({exc.strerror or exc}); fix it or point "
                              "CITEFIX_CONFIG at another file") from exc
        if "router" in data:  # a table, not a scalar setting: checked on its own, never from the environment or a flag
            from citefix.llm.router import validate_router

            values["router"] = validate_router(data.pop("router"), path)
        unknown = [k for k in data if k not in known]
        if unknown:
            raise ConfigError(f"{path}: unknown setting {unknown[0]!r}; known settings: {', '.join(known)}")
        values.update(data)
        origin.update({k: f"{path}: {k}" for k in data})
    for name, var in ENV.items():
        if os.environ.get(var):
            values[name] = os.environ[var]
            origin[name] = var
    for k, v in cli.items():
        if v is not None and k in known:
            values[k] = v
            origin[k] = f"--{k.replace('_', '-')}"
    default = Settings()
    for name, value in list(values.items()):
        if name == "router":
            continue
        values[name] = _typed(name, value, getattr(default, name), origin.get(name, name))
    for name in ("concurrency", "window_words", "llm_attempts"):
        if name in values and values[name] < 1:
            raise ConfigError(f"{origin.get(name, name)} = {values[name]}: must be at least 1; fix that value")
    _check_choices(values, origin)
    if values.get("llm_timeout") == 0:
        raise ConfigError(f"{origin.get('llm_timeout')} = 0: a model call needs some time; give seconds, e.g. 60")
    if values.get("acu_granularity", "sentence") not in GRANULARITIES:
        raise ConfigError(f"acu_granularity {values['acu_granularity']!r} (from {origin.get('acu_granularity')}): use "
                          f"{' or '.join(GRANULARITIES)}")
    if values.get("llm_transport", "litellm") not in LLM_TRANSPORTS:
        raise ConfigError(f"llm_transport {values['llm_transport']!r} (from {origin.get('llm_transport')}): use "
                          "litellm (the default) or direct (an OpenAI-compatible server at OPENAI_API_BASE, without "
                          "litellm)")
    if values.get("aggregation", "mean") not in AGGREGATIONS:
        raise ConfigError(f"aggregation {values['aggregation']!r} (from {origin.get('aggregation')}): use one of "
                          f"{', '.join(AGGREGATIONS)}")
    return Settings(**values)


DECOMPOSERS = ("auto", "acu", "clauses", "aliice", "sentence")
VERIFIERS = ("auto", "offline", "offline:lexical", "offline:alignment", "offline:similarity", "offline:entail",
             "lexical", "alignment", "similarity", "entail", "llm")


def _check_choices(values: dict[str, Any], origin: dict[str, str]) -> None:
    """Values with a fixed set of choices, and the pairs that need each other, checked where their origin is known."""
    for name in ("llm", "judge_llm"):
        if isinstance(values.get(name), str) and not values[name].strip():
            raise ConfigError(f"{origin.get(name, name)} is empty; give a litellm model string such as "
                              "openai/gpt-4o-mini, or unset it to run offline")
    if values.get("device") is not None:
        from citefix.device import check

        values["device"] = check(values["device"], origin.get("device", "device"))
    if values.get("precision") is not None:
        from citefix.device import check_precision

        values["precision"] = check_precision(values["precision"], origin.get("precision", "precision"))
    dec = values.get("decomposer")
    if dec is not None and dec.strip() not in DECOMPOSERS:
        raise ConfigError(f"unknown decomposer {dec!r} (from {origin.get('decomposer', 'decomposer')}); use "
                          f"{', '.join(DECOMPOSERS)}")
    ver = values.get("verifier")
    if ver is not None:
        v = ver.strip()
        ok = v in VERIFIERS or (v.startswith("nli:") and len(v) > 4) or (v.startswith("llm:") and len(v) > 4)
        if not ok:
            raise ConfigError(f"unknown verifier {ver!r} (from {origin.get('verifier', 'verifier')}); use offline, "
                              "offline:lexical, offline:alignment, offline:similarity, offline:entail, llm or nli:<model>")
        if v == "llm" and not values.get("llm"):
            raise ConfigError(f"{origin.get('verifier', 'verifier')} = 'llm' needs a model: pass --llm MODEL or set "
                              "CITEFIX_LLM")
    if dec is not None and dec.strip() == "acu" and not values.get("llm"):
        raise ConfigError(f"{origin.get('decomposer', 'decomposer')} = 'acu' needs an LLM: pass --llm MODEL or set "
                          "CITEFIX_LLM")


def _typed(name: str, value: Any, default: Any, where: str) -> Any:
    """A setting checked against its default's type; a wrong type is a ConfigError naming where the value came from."""
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("1", "true", "yes", "0", "false", "no"):
            return value.strip().lower() in ("1", "true", "yes")
        raise ConfigError(f"{where} = {value!r}: must be true or false; fix that value")
    if isinstance(default, int):
        if isinstance(value, bool) or not isinstance(value, (int, str)):
            raise ConfigError(f"{where} = {value!r}: must be a whole number; fix that value")
        try:
            return int(value)
        except ValueError:
            raise ConfigError(f"{where} = {value!r}: must be a whole number; fix that value") from None
    if isinstance(default, float):
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise ConfigError(f"{where} = {value!r}: must be a number; fix that value")
        try:
            number = float(value)
        except ValueError:
            raise ConfigError(f"{where} = {value!r}: must be a number; fix that value") from None
        if not (0 <= number < float("inf")):
            raise ConfigError(f"{where} = {value!r}: must be a finite number of 0 or more; fix that value")
        return number
    # text settings (model strings, verifier, paths): None stays None
    if value is None:
        return None
    if not isinstance(value, str):
        raise ConfigError(f"{where} = {value!r}: must be text (in TOML, quoted: {name} = \"...\"); fix that value")
    return value


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write the settings that differ from the defaults to the config file."""
    path = path or config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    default = Settings()
    lines = []
    for f in fields(Settings):
        v = getattr(settings, f.name)
        if v == getattr(default, f.name) or v is None or f.name == "router":
            continue
        lines.append(f"{f.name} = {_toml(v)}")
    text = "\n".join(lines) + ("\n" if lines else "")
    path.write_text(text + _router_section(path), encoding="utf-8")
    return path


def _router_section(path: Path) -> str:
    """The file's [router] tables as written (the only tables a config file has, so they run to its end), kept when
    the other settings are saved over it."""
    try:
        old = path.read_text(encoding="utf-8").splitlines(keepends=True)
    except OSError:
        return ""
    for i, line in enumerate(old):
        if line.lstrip().startswith(("[router", "[[router")):
            return "\n" + "".join(old[i:])
    return ""


def _toml(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'
