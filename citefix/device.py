"""Where the local models (the MiniLM encoder, an NLI verifier) run: the `device` setting (`--device`, `CITEFIX_DEVICE`,
config key `device`): auto (CUDA when torch sees a GPU, else the CPU), cpu, cuda or cuda:N. Resolved once per process,
when the first model is loaded; asking for CUDA where there is none is a settings error (exit 2), found when the
settings are read."""

from __future__ import annotations

import os
import re
import threading

from citefix.errors import ConfigError

DEVICES = ("auto", "cpu", "cuda")
ENV = "CITEFIX_DEVICE"
_lock = threading.Lock()
_requested: str | None = None  # set by the command's settings (use()); else $CITEFIX_DEVICE; else auto
_resolved: str | None = None


def valid(value: str) -> bool:
    return value in DEVICES or re.fullmatch(r"cuda:\d+", value) is not None


def check(value: str, origin: str) -> str:
    """`value` checked: one of the choices, and CUDA really there when it is asked for by name."""
    value = (value or "auto").strip().lower()
    if not valid(value):
        raise ConfigError(f"{origin} = {value!r}: not a device; use auto, cpu, cuda or cuda:N")
    if value.startswith("cuda"):
        _need_cuda(value, origin)
    return value


def _need_cuda(value: str, origin: str) -> None:
    import torch

    if not torch.cuda.is_available():
        raise ConfigError(f"{origin} = {value!r}: CUDA is not available here (torch {torch.__version__} sees no GPU); "
                          "use auto (the GPU when there is one) or cpu")
    if ":" in value and int(value.split(":", 1)[1]) >= torch.cuda.device_count():
        raise ConfigError(f"{origin} = {value!r}: this machine has {torch.cuda.device_count()} CUDA device(s), "
                          "numbered from 0; pick one of them or use cuda")


def use(value: str | None) -> None:
    """The device the settings ask for (checked by citefix.config); models loaded from now on go there."""
    global _requested, _resolved
    value = (value or "auto").strip().lower()
    with _lock:
        if value != _requested:
            _requested, _resolved = value, None


def resolve() -> str:
    """The torch device name for local models: resolved once (auto: cuda when available, else cpu)."""
    global _resolved
    with _lock:
        if _resolved is not None:
            return _resolved
        want = _requested or check(os.environ.get(ENV, "auto"), ENV)
        if want == "auto":
            import torch

            want = "cuda" if torch.cuda.is_available() else "cpu"
        _resolved = want
        return want
