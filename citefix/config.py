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
    "acu_granularity": "CITEFIX_ACU_GRANULARITY",
    "aggregation": "CITEFIX_AGGREGATION",
}

GRANULARITIES = ("sentence", "text")
AGGREGATIONS = ("mean", "all_supported", "min")


@dataclass
class Settings:
    llm: str | None = None  # litellm model string; None = offline default
    judge_llm: str | None = None  # a second model that scores rounds in refinement
    verifier: str = "auto"  # auto | offline | offline:lexical | offline:alignment | offline:similarity | llm | nli:<model>
    decomposer: str = "auto"  # auto | acu | clauses | aliice | sentence
    strategy: str = "acu"  # refinement feedback strategy
    concurrency: int = 8
    cache: bool = True
    window_words: int = 1500  # source window per LLM verification call
    nli_device: str = "auto"
    acu_granularity: str = "sentence"  # LLM ACUs written per sentence, or from the whole text (pronouns resolved)
    aggregation: str = "mean"  # unit scores → text score: mean (ACUEval) | all_supported (1 or 0) | min
    db: str | None = None

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
    path = config_path()
    if path.exists():
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{path}: not valid TOML ({exc}); fix or delete the file") from exc
        unknown = [k for k in data if k not in known]
        if unknown:
            raise ConfigError(f"{path}: unknown setting {unknown[0]!r}; known settings: {', '.join(known)}")
        values.update(data)
    for name, var in ENV.items():
        if os.environ.get(var):
            values[name] = os.environ[var]
    values.update({k: v for k, v in cli.items() if v is not None and k in known})
    try:
        values["concurrency"] = int(values.get("concurrency", 8))
        values["window_words"] = int(values.get("window_words", 1500))
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"concurrency and window_words must be whole numbers ({exc})") from exc
    if values["concurrency"] < 1:
        raise ConfigError("concurrency must be at least 1")
    if values.get("acu_granularity", "sentence") not in GRANULARITIES:
        raise ConfigError(f"acu_granularity {values['acu_granularity']!r}: use {' or '.join(GRANULARITIES)}")
    if values.get("aggregation", "mean") not in AGGREGATIONS:
        raise ConfigError(f"aggregation {values['aggregation']!r}: use one of {', '.join(AGGREGATIONS)}")
    return Settings(**values)


def save_settings(settings: Settings, path: Path | None = None) -> Path:
    """Write the settings that differ from the defaults to the config file."""
    path = path or config_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    default = Settings()
    lines = []
    for f in fields(Settings):
        v = getattr(settings, f.name)
        if v == getattr(default, f.name) or v is None:
            continue
        lines.append(f"{f.name} = {_toml(v)}")
    path.write_text("\n".join(lines) + ("\n" if lines else ""), encoding="utf-8")
    return path


def _toml(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'
