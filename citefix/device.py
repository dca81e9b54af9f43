"""Where the local models (the MiniLM encoder, an NLI verifier) run: the `device` setting (`--device`, `CITEFIX_DEVICE`,
config key `device`): auto (CUDA when torch sees a GPU, else the CPU), cpu, cuda or cuda:N. Resolved once per process,
when the first model is loaded; asking for CUDA where there is none is a settings error (exit 2), found when the
settings are read.

The `precision` setting (`--precision`, `CITEFIX_PRECISION`, config key `precision`) is the arithmetic of the MiniLM
encoder's forward pass in the offline verifier: fp32 (as trained, the default: every threshold was chosen on it) or
bf16 (matrix products in bfloat16 under torch autocast, hidden states handed back in float32; fast on a CPU with
AVX512-BF16 or AMX; no faster than fp32 on a GPU for this small model; slow elsewhere). bf16 moves scores in the
third decimal (docs/quality.md, "Lower precision and the GPU"); a stored check is reused only by a check with the same precision. int8 (torch's dynamic
quantization) was measured and left out: it moved the example's score from 0.625 to 0.582 under thresholds chosen in
fp32 (python -m bench.bench_encoder_precision --precision int8), and torch 2.13 deprecates that API."""

from __future__ import annotations

import os
import re
import threading

from citefix.errors import ConfigError

DEVICES = ("auto", "cpu", "cuda")
ENV = "CITEFIX_DEVICE"
PRECISIONS = ("fp32", "bf16")
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


def check_precision(value: str, origin: str) -> str:
    """`value` checked against PRECISIONS."""
    value = (value or "fp32").strip().lower()
    if value not in PRECISIONS:
        raise ConfigError(f"{origin} = {value!r}: not a precision; use fp32 (the default) or bf16")
    return value


class _Autocast:
    """A transformers encoder whose forward pass runs under torch autocast in bfloat16; float32 hidden states out."""

    def __init__(self, model, device_type: str):
        self.model, self.config, self.device_type = model, model.config, device_type

    def __call__(self, **batch):
        import torch

        with torch.autocast(self.device_type, dtype=torch.bfloat16):
            out = self.model(**batch)
        out.last_hidden_state = out.last_hidden_state.float()
        return out


def lower_precision(model, precision: str, device: str):
    """`model` (on `device`, in float32) set up to run at `precision` (bf16)."""
    if precision == "bf16":
        # oneDNN keeps a compiled bf16 primitive per input shape, up to 1,024 of them, and a batch has many sequence
        # lengths: with 8 kept, `python -m bench.bench_scale --sizes 1000 --modes workers --workers 2 --precision bf16`
        # peaked at 1,074 MB a worker instead of 1,263 (2,249 MB for all processes instead of 2,645), at the same
        # speed. oneDNN reads it when it first builds one, so it is set before the first forward pass; a value the
        # user set is kept.
        os.environ.setdefault("ONEDNN_PRIMITIVE_CACHE_CAPACITY", "8")
        return _Autocast(model, "cuda" if str(device).startswith("cuda") else "cpu")
    raise ConfigError(f"precision {precision!r}: use fp32 or bf16")
