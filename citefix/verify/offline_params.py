"""The offline verifier's parameters: the packaged tuned values (citefix/data/offline_params.json) with an overlay
from $CITEFIX_OFFLINE_PARAMS, the defaults used when the file is missing, and the idf table of the token weights."""

from __future__ import annotations

import json
import os
from importlib import resources
from typing import Any

PARAMS_ENV = "CITEFIX_OFFLINE_PARAMS"
_PROFILE_KEYS = ("combined", "cap", "thresholds")  # what a calibration profile may set

# Used when citefix/data/offline_params.json is missing; the file holds the tuned values.
DEFAULT_PARAMS: dict[str, Any] = {
    "chunk_words": 150,
    "max_chunk_tokens": 254,
    "sentence_piece_words": 80,
    "window_words": 120,
    "window_margin": 0.03,
    "lexical": {"number": 1.2, "entity": 1.0, "date": 0.8, "word": 1.5, "neg_unit": 0.5, "neg_source": 0.1},
    "alignment": {"baseline": 0.35, "token_threshold": 0.55, "min_idf": 1.0},
    "similarity": {"baseline": 0.1},
    "combined": {"bias": -3.0, "lexical": 1.0, "alignment": 4.0, "similarity": 2.0},
    # A unit with an invented number, date or name (missing entity weight ≥ 1) is never scored above this, and its
    # combined verdict is "unsupported" (never "partial"); its own score is scaled into [0, score] (scale), so capped
    # units keep their order.
    "cap": {"enabled": True, "score": 0.4},
    # Calibration profiles by case kind, laid over the keys above (combined, thresholds, cap); see profile_for().
    "profiles": {},
    "thresholds": {
        "combined": {"supported": 0.5, "partial": 0.3},
        "lexical": {"supported": 0.6, "partial": 0.3},
        "alignment": {"supported": 0.6, "partial": 0.4},
        "similarity": {"supported": 0.6, "partial": 0.4},
    },
}


def load_params(path: str | None = None) -> dict[str, Any]:
    """The verifier's parameters: DEFAULT_PARAMS updated with the packaged (or given) JSON file.

    Per-domain calibration: when ``path`` is not given and ``CITEFIX_OFFLINE_PARAMS`` names a JSON file, that file is
    laid over the packaged parameters (section by section), so it may hold only what changes, e.g.
    ``{"thresholds": {"combined": {"supported": 0.42, "partial": 0.25}}}``.
    """
    params = json.loads(json.dumps(DEFAULT_PARAMS))
    try:
        if path is None:
            raw = resources.files("citefix").joinpath("data/offline_params.json").read_text(encoding="utf-8")
        else:
            with open(path, encoding="utf-8") as f:
                raw = f.read()
        _overlay(params, json.loads(raw))
    except (FileNotFoundError, OSError):
        pass
    user = os.environ.get(PARAMS_ENV, "").strip() if path is None else ""
    if user:
        from citefix.errors import ConfigError

        try:
            with open(os.path.expanduser(user), encoding="utf-8") as f:
                data = json.load(f)
        except (OSError, ValueError) as exc:
            raise ConfigError(f"{PARAMS_ENV}={user}: cannot read offline verifier parameters ({exc})") from exc
        if not isinstance(data, dict):
            raise ConfigError(f"{PARAMS_ENV}={user}: expected a JSON object")
        _overlay(params, data)
    return params


def _overlay(params: dict[str, Any], data: dict[str, Any]) -> None:
    """Lay `data` over `params` key by key, down to the leaves: an overlay holds only what it changes (e.g.
    ``{"profiles": {"cited_answer": {"thresholds": {"combined": {"supported": 0.5}}}}}`` keeps every other value)."""
    for k, v in data.items():
        if isinstance(v, dict) and isinstance(params.get(k), dict):
            _overlay(params[k], v)
        else:
            params[k] = v


def load_idf() -> dict[str, Any] | None:
    """The MiniLM word-piece idf table (see citefix/data/README.md), or None when it is missing."""
    try:
        raw = resources.files("citefix").joinpath("data/minilm_idf.json").read_text(encoding="utf-8")
    except (FileNotFoundError, OSError):
        return None
    data = json.loads(raw)
    return {"default": float(data["default"]), "idf": {int(k): float(v) for k, v in data["idf"].items()}}
