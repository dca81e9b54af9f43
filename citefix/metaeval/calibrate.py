"""Per-domain calibration: decision thresholds for the offline verifier fitted on a user's own labelled items.

`citefix meta-eval mine.jsonl --verifier offline --calibrate mine-params.json` scores the items, then writes the
thresholds that best separate the labels (balanced accuracy over all items) as an overlay for the packaged
parameters; `CITEFIX_OFFLINE_PARAMS=mine-params.json` makes every later offline verdict use them. Cited answers
(AttributionBench shape) are calibrated under the verifier's ``cited_answer`` profile, everything else under the
default one, so one file can hold both.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from citefix.errors import ConfigError
from citefix.metaeval import protocols as P
from citefix.pipeline import OFFLINE_SIGNALS  # verifier name -> the offline signal whose thresholds it uses

PARTIAL_SHARE = 0.8  # without partial labels, 'partial' starts at this share of the 'supported' threshold


def profile_for_shape(shape: str) -> str:
    return "cited_answer" if shape == "attributionbench" else "default"


def thresholds(result: Any) -> dict[str, dict[str, Any]]:
    """{signal: {"supported", "partial", "n", "balanced_accuracy"}} for each offline verifier of a meta-eval result.

    'supported': the threshold with the best balanced accuracy for supported-vs-not over every scored item (labels
    1/0, or full vs partial/none). 'partial': with full/partial/none labels, the best threshold for some-vs-none
    support (kept below 'supported'); else PARTIAL_SHARE × 'supported'.
    """
    out: dict[str, dict[str, Any]] = {}
    for name in result.verifiers:
        signal = OFFLINE_SIGNALS.get(name)
        if signal is None:
            continue
        rows = [r for r in result.scores if r.verifier == name and r.score is not None and np.isfinite(r.score)]
        levels = [r.level for r in rows]
        if rows and all(lv is not None for lv in levels):
            s = np.array([r.score for r in rows], dtype=float)
            lv = np.array(levels)
            sup = P.tune_threshold(s, (lv == 2).astype(int))
            part = P.tune_threshold(s, (lv >= 1).astype(int))
        else:
            rows = [r for r in rows if r.label is not None]
            s = np.array([r.score for r in rows], dtype=float)
            sup = P.tune_threshold(s, np.array([int(r.label) for r in rows])) if rows else None
            part = None
        if sup is None:
            continue
        t_sup = round(sup[0], 4)
        t_part = round(min(part[0], 0.9 * t_sup), 4) if part is not None else round(PARTIAL_SHARE * t_sup, 4)
        out[signal] = {"supported": t_sup, "partial": t_part, "n": len(rows), "balanced_accuracy": round(sup[1], 4)}
    return out


def _judged(profile: str) -> bool:
    """Whether the offline verifier's combination under `profile` is the learned judge (the parameters in force)."""
    from citefix.verify.offline_params import load_params

    params = load_params()
    method = params.get("combined", {}).get("method")
    prof = (params.get("profiles") or {}).get(profile) or {}
    return (prof.get("combined", {}).get("method") or method) == "judge"


def write_calibration(result: Any, path: str | Path, command: str) -> dict[str, Any]:
    """Merge the fitted thresholds into the overlay file at `path` (created if missing) and return what was written."""
    if not any(n in OFFLINE_SIGNALS for n in result.verifiers):
        raise ConfigError("--calibrate fits the offline verifier's thresholds: include an offline verifier, "
                          "e.g. --verifier offline (or offline,lexical,alignment,similarity)")
    found = thresholds(result)
    if not found:
        raise ConfigError("--calibrate: no thresholds could be fitted: the scored items need both supported and "
                          "unsupported labels")
    p = Path(path).expanduser()
    data: dict[str, Any] = {}
    if p.exists():
        try:
            data = json.loads(p.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"--calibrate {p}: the file exists but is not a JSON parameter file ({exc}); "
                              "name a new file or fix it") from exc
        if not isinstance(data, dict):
            raise ConfigError(f"--calibrate {p}: expected a JSON object; name a new file")
    profile = profile_for_shape(result.shape)
    th = {sig: {"supported": v["supported"], "partial": v["partial"]} for sig, v in found.items()}
    if "combined" in th and _judged(profile):
        # the scores were the learned judge's (1 - p): its decision points, kept apart from the rules' thresholds
        th["judge"] = th.pop("combined")
    if profile == "default":
        section = data.setdefault("thresholds", {})
    else:
        section = data.setdefault("profiles", {}).setdefault(profile, {}).setdefault("thresholds", {})
    section.update(th)
    data.setdefault("_calibration", {})[profile] = {
        "command": command,
        "file": str(result.path),
        "at": _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds"),
        "items": {sig: v["n"] for sig, v in found.items()},
        "balanced_accuracy_in_sample": {sig: v["balanced_accuracy"] for sig, v in found.items()},
    }
    p.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=p.name, dir=p.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f, indent=2)
            f.write("\n")
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return {"path": str(p), "profile": profile, "thresholds": found}
