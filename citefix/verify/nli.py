"""Entailment verifier over transformers: NLI classifiers and T5-style judges (TRUE / AutoAIS), batched.

* A sequence-classification model (premise, hypothesis) → softmax over its labels; the score is the probability of
  the entailment label, whose index is read from `model.config.label2id` (the one key containing "entail" that is not
  a negation such as "not_entailment"; `entail_label` names it when the model's labels do not).
* A seq2seq judge (T5 TRUE, as used by ALCE and ALiiCE) reads "premise: … hypothesis: …"; the score is the
  probability of the first answer token being `true_token` ("1"), AutoAIS's P("1"); `seq2seq_score="normalized"`
  gives P("1") / (P("1") + P("0")) instead.

A premise longer than the model's window is cut into sentence-aligned chunks that fit with the hypothesis (token
counts from the model's own tokenizer; a sentence longer than a chunk is split at token boundaries). Every chunk is
scored, the unit's score is the maximum, and the best chunk is kept as the Verdict's evidence. Several target
passages are judged together: their chunks hold consecutive text of the passages in the order given (a short group
fits one chunk, so "the concatenation entails" is what is asked).

Models load lazily, once per instance, from a hub id or a local folder; a missing folder is a ConfigError that says
what to give instead. Runs under `torch.inference_mode()`; device "auto" takes CUDA when available.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Sequence, cast

from citefix.chunking import split_sentences
from citefix.errors import ConfigError
from citefix.models import Case, Evidence, Source, Unit, Verdict
from citefix.verify.base import label_for

_NEGATED = re.compile(r"(?:^|[\s_-])(?:not|non|no)[\s_-]*entail", re.IGNORECASE)
_SEP = "\n\n"


def entailment_index(label2id: dict[str, int], entail_label: str | None = None) -> int:
    """The index of the entailment class in a model's label2id (never hard-coded)."""
    if entail_label is not None:
        if entail_label not in label2id:
            raise ConfigError(f"entail_label {entail_label!r} is not one of the model's labels {sorted(label2id)}")
        return int(label2id[entail_label])
    keys = [k for k in label2id if "entail" in k.lower() and not _NEGATED.search(k)]
    if len(keys) != 1:
        raise ConfigError(
            f"cannot tell the entailment class from the model's labels {sorted(label2id)}; "
            "name it with entail_label (e.g. entail_label='ENTAILMENT')"
        )
    return int(label2id[keys[0]])


@dataclass(frozen=True)
class _Piece:
    source_id: str
    start: int  # offsets in the source text; the title piece has start = end = -1
    end: int
    text: str
    tokens: int

    @property
    def is_title(self) -> bool:
        return self.start < 0


@dataclass
class _Loaded:
    tokenizer: Any
    model: Any
    kind: Literal["classifier", "seq2seq"]
    device: Any
    max_length: int
    overhead: int  # tokens besides premise and hypothesis (special tokens, the T5 template)
    entail_index: int | None = None
    true_id: int | None = None
    false_id: int | None = None
    decoder_start: int | None = None


class NLIVerifier:
    """Entailment probability from a transformers NLI model or T5-style judge (see module doc)."""

    llm = None  # runs its own model (model_name), calls no LLM

    def __init__(
        self,
        model: str,
        *,
        batch_size: int = 16,
        device: str = "auto",
        max_length: int | None = None,
        kind: Literal["auto", "classifier", "seq2seq"] = "auto",
        entail_label: str | None = None,
        threshold: float = 0.5,
        true_token: str = "1",
        false_token: str = "0",
        seq2seq_score: Literal["p_true", "normalized"] = "p_true",
        include_titles: bool = True,
        dtype: Literal["float32", "float16", "bfloat16"] = "float32",
    ):
        if batch_size < 1:
            raise ConfigError("batch_size must be at least 1")
        if device not in ("auto", "cpu", "cuda") and not device.startswith("cuda:"):
            raise ConfigError(f"device {device!r} is not one of auto, cpu, cuda")
        self.model_name = model
        self.name = f"nli:{model}"
        self.batch_size = batch_size
        self.device = device
        self.max_length = max_length
        self.kind = kind
        self.entail_label = entail_label
        self.threshold = threshold
        self.true_token = true_token
        self.false_token = false_token
        self.seq2seq_score = seq2seq_score
        self.include_titles = include_titles
        self.dtype = dtype
        self._loaded: _Loaded | None = None
        self._lock = threading.Lock()

    def supported_at(self, profile: str) -> float:
        """Its threshold, under every profile."""
        return self.threshold

    # -- loading -------------------------------------------------------------------------------------------------------

    def _source(self) -> str:
        name = os.path.expanduser(self.model_name)
        if os.path.exists(name):
            if not Path(name, "config.json").is_file():
                raise ConfigError(f"NLI model folder {name!r} has no config.json; give a folder saved with save_pretrained")
            return name
        looks_local = name.startswith(("/", ".", "~")) or name.count("/") > 1 or "\\" in name
        if looks_local:
            raise ConfigError(
                f"NLI model path {name!r} does not exist; give a local folder saved with save_pretrained "
                "or a Hugging Face hub id such as 'org/model'"
            )
        return name

    def load(self) -> _Loaded:
        """Load tokenizer and model once (thread-safe)."""
        with self._lock:
            if self._loaded is None:
                self._loaded = self._load()
            return self._loaded

    def _load(self) -> _Loaded:
        source = self._source()
        try:
            import torch
            from transformers import (
                AutoConfig,
                AutoModelForSeq2SeqLM,
                AutoModelForSequenceClassification,
                AutoTokenizer,
            )
        except ImportError as exc:  # pragma: no cover - dependencies of the package
            raise ConfigError(f"the NLI verifier needs torch and transformers: {exc}") from exc
        try:
            config = AutoConfig.from_pretrained(source)
            tokenizer = AutoTokenizer.from_pretrained(source)
        except (OSError, ValueError) as exc:
            raise ConfigError(
                f"cannot load NLI model {source!r}: {str(exc).splitlines()[0]}. Give a local folder or a hub id "
                "reachable from here (offline: download it first, then give its folder)"
            ) from exc
        kind = self.kind if self.kind != "auto" else _detect_kind(config)
        device = _pick_device(self.device, torch)
        dtype = {"float32": torch.float32, "float16": torch.float16, "bfloat16": torch.bfloat16}[self.dtype]
        cls = AutoModelForSeq2SeqLM if kind == "seq2seq" else AutoModelForSequenceClassification
        try:
            model = cls.from_pretrained(source, **_dtype_kwarg(dtype))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot load NLI model {source!r} as a {kind}: {str(exc).splitlines()[0]}") from exc
        model.to(device)
        model.eval()
        max_length = _max_length(config, tokenizer, self.max_length)
        loaded = _Loaded(tokenizer=tokenizer, model=model, kind=kind, device=device, max_length=max_length, overhead=0)
        if kind == "classifier":
            loaded.entail_index = entailment_index(dict(config.label2id or {}), self.entail_label)
            if loaded.entail_index >= int(config.num_labels):
                raise ConfigError(f"label2id puts entailment at {loaded.entail_index}, beyond the model's {config.num_labels} labels")
            loaded.overhead = tokenizer.num_special_tokens_to_add(pair=True)
        else:
            loaded.true_id = _first_token_id(tokenizer, self.true_token)
            loaded.false_id = _first_token_id(tokenizer, self.false_token)
            loaded.decoder_start = config.decoder_start_token_id
            if loaded.decoder_start is None:
                loaded.decoder_start = config.pad_token_id if config.pad_token_id is not None else 0
            template = len(tokenizer("premise: hypothesis:", add_special_tokens=False)["input_ids"])
            loaded.overhead = template + tokenizer.num_special_tokens_to_add(pair=False)
        return loaded

    # -- scoring -------------------------------------------------------------------------------------------------------

    def score_pairs(self, premises: Sequence[str], hypotheses: Sequence[str]) -> list[float]:
        """Entailment scores for (premise, hypothesis) pairs, batch_size at a time, longest first."""
        if len(premises) != len(hypotheses):
            raise ValueError("premises and hypotheses differ in length")
        if not premises:
            return []
        import torch

        ld = self.load()
        order = sorted(range(len(premises)), key=lambda k: -(len(premises[k]) + len(hypotheses[k])))
        out: list[float] = [0.0] * len(premises)
        with torch.inference_mode():
            for b in range(0, len(order), self.batch_size):
                idx = order[b : b + self.batch_size]
                scores = self._forward(ld, [premises[k] for k in idx], [hypotheses[k] for k in idx])
                for k, s in zip(idx, scores):
                    out[k] = s
        return out

    def _forward(self, ld: _Loaded, premises: list[str], hypotheses: list[str]) -> list[float]:
        import torch

        tok = ld.tokenizer
        if ld.kind == "classifier":
            enc = tok(premises, hypotheses, padding=True, truncation="longest_first", max_length=ld.max_length,
                      return_tensors="pt")
            enc = {k: v.to(ld.device) for k, v in enc.items()}
            logits = ld.model(**enc).logits.float()
            return torch.softmax(logits, dim=-1)[:, ld.entail_index].tolist()
        texts = [f"premise: {p} hypothesis: {h}" for p, h in zip(premises, hypotheses)]
        enc = tok(texts, padding=True, truncation=True, max_length=ld.max_length, return_tensors="pt")
        enc = {k: v.to(ld.device) for k, v in enc.items() if k in ("input_ids", "attention_mask")}
        start = torch.full((len(texts), 1), cast(int, ld.decoder_start), dtype=torch.long, device=ld.device)
        logits = ld.model(**enc, decoder_input_ids=start).logits[:, 0, :].float()
        probs = torch.softmax(logits, dim=-1)
        p_true = probs[:, ld.true_id]
        if self.seq2seq_score == "normalized":
            p_false = probs[:, ld.false_id]
            return (p_true / (p_true + p_false).clamp_min(1e-12)).tolist()
        return p_true.tolist()

    # -- chunking ------------------------------------------------------------------------------------------------------

    def _count(self, ld: _Loaded, texts: list[str]) -> list[int]:
        if not texts:
            return []
        return [len(x) for x in ld.tokenizer(texts, add_special_tokens=False)["input_ids"]]

    def _source_pieces(self, ld: _Loaded, case: Case, sid: str, budget: int) -> list[_Piece]:
        src = case.source(sid)
        assert src is not None
        sents = split_sentences(src.text)
        counts = self._count(ld, [s.text for s in sents])
        pieces: list[_Piece] = []
        if self.include_titles and src.title.strip():
            title = src.title.strip()
            pieces.append(_Piece(sid, -1, -1, title, self._count(ld, [title])[0]))
        for s, n in zip(sents, counts):
            if n <= budget:
                pieces.append(_Piece(sid, s.start, s.end, s.text, n))
            else:
                pieces.extend(self._split_long(ld, sid, src.text, s.start, s.text, budget))
        return pieces

    def _split_long(self, ld: _Loaded, sid: str, full: str, offset: int, text: str, budget: int) -> list[_Piece]:
        """A sentence longer than a chunk, cut at token boundaries into windows of at most `budget` tokens."""
        tok = ld.tokenizer
        if getattr(tok, "is_fast", False):
            enc = tok(text, add_special_tokens=False, return_offsets_mapping=True)
            spans = [o for o in enc["offset_mapping"] if o[1] > o[0]]
            out = []
            for k in range(0, len(spans), budget):
                w = spans[k : k + budget]
                a, b = offset + w[0][0], offset + w[-1][1]
                out.append(_Piece(sid, a, b, full[a:b], len(w)))
            return out
        words = list(re.finditer(r"\S+", text))  # slow tokenizers: words, a third of the budget to be safe
        step = max(1, budget // 3)
        out = []
        for k in range(0, len(words), step):
            w = words[k : k + step]
            a, b = offset + w[0].start(), offset + w[-1].end()
            out.append(_Piece(sid, a, b, full[a:b], self._count(ld, [full[a:b]])[0]))
        return out

    @staticmethod
    def _pack(pieces: list[_Piece], budget: int) -> list[list[_Piece]]:
        chunks: list[list[_Piece]] = []
        cur: list[_Piece] = []
        used = 0
        for p in pieces:
            cost = p.tokens + (2 if cur else 0)  # a separator between pieces
            if cur and used + cost > budget:
                chunks.append(cur)
                cur, used, cost = [], 0, p.tokens
            cur.append(p)
            used += cost
        if cur:
            chunks.append(cur)
        return chunks

    @staticmethod
    def _render(case: Case, chunk: list[_Piece]) -> str:
        parts: list[str] = []
        prev: _Piece | None = None
        run_start = None
        for p in chunk:
            src = cast(Source, case.source(p.source_id))  # passages come from the case's sources
            same_run = (prev is not None and not prev.is_title and not p.is_title and prev.source_id == p.source_id
                        and p.start >= prev.end)
            if same_run:
                parts[-1] = src.text[run_start : p.end]
            else:
                if parts:
                    parts.append("\n" if prev is not None and prev.is_title and prev.source_id == p.source_id else _SEP)
                parts.append(p.text)
                run_start = p.start
            prev = p
        return "".join(parts)

    @staticmethod
    def _evidence(case: Case, chunk: list[_Piece]) -> Evidence | None:
        by_source: dict[str, list[_Piece]] = {}
        for p in chunk:
            if not p.is_title:
                by_source.setdefault(p.source_id, []).append(p)
        if not by_source:
            return None
        sid, ps = max(by_source.items(), key=lambda kv: sum(p.end - p.start for p in kv[1]))
        a, b = min(p.start for p in ps), max(p.end for p in ps)
        text = cast(Source, case.source(sid)).text[a:b]
        return Evidence(source_id=sid, start=a, end=b, text=text)

    # -- the Verifier interface ----------------------------------------------------------------------------------------

    def verify(self, units: Sequence[Unit], case: Case, *, targets: Sequence[Sequence[str]] | None = None) -> list[Verdict]:
        if targets is not None and len(targets) != len(units):
            raise ValueError("targets must have one entry per unit")
        if not units:
            return []
        ld = self.load()
        all_ids = [s.id for s in case.sources]
        hyp_tokens = self._count(ld, [u.text for u in units])
        longest_hyp = min(max(hyp_tokens), ld.max_length // 2)
        budget = max(16, ld.max_length - ld.overhead - longest_hyp - 4)

        piece_cache: dict[str, list[_Piece]] = {}
        chunk_cache: dict[tuple[str, ...], list[list[_Piece]]] = {}
        plans: list[tuple[tuple[str, ...], str | None]] = []  # (ids, error)
        for k, u in enumerate(units):
            ids = tuple(dict.fromkeys(targets[k])) if targets is not None and targets[k] else tuple(all_ids)
            missing = [i for i in ids if case.source(i) is None]
            if missing:
                plans.append((ids, "; ".join(f"passage [{m}] not found" for m in missing)))
                continue
            if ids not in chunk_cache:
                pieces = []
                for sid in ids:
                    if sid not in piece_cache:
                        piece_cache[sid] = self._source_pieces(ld, case, sid, budget)
                    pieces.extend(piece_cache[sid])
                chunk_cache[ids] = self._pack(pieces, budget)
            plans.append((ids, None))

        premises: list[str] = []
        hyps: list[str] = []
        owners: list[tuple[int, int]] = []
        rendered: dict[tuple[str, ...], list[str]] = {}
        for k, (ids, err) in enumerate(plans):
            if err:
                continue
            if ids not in rendered:
                rendered[ids] = [self._render(case, c) for c in chunk_cache[ids]]
            for c_idx, text in enumerate(rendered[ids]):
                premises.append(text)
                hyps.append(units[k].text)
                owners.append((k, c_idx))
        scores = self.score_pairs(premises, hyps)

        per_unit: dict[int, list[tuple[int, float]]] = {}
        for (k, c_idx), s in zip(owners, scores):
            per_unit.setdefault(k, []).append((c_idx, s))

        verdicts: list[Verdict] = []
        for k, (u, (ids, err)) in enumerate(zip(units, plans)):
            target = list(ids) if targets is not None and targets[k] else []
            if err:
                verdicts.append(Verdict(unit_id=u.id, verifier=self.name, score=None, label="error", target=target,
                                        error=err))
                continue
            got = per_unit.get(k, [])
            if not got:
                verdicts.append(Verdict(unit_id=u.id, verifier=self.name, score=None, label="error", target=target,
                                        error="no source text to judge against"))
                continue
            best_idx, best = max(got, key=lambda t: t[1])
            chunk = chunk_cache[ids][best_idx]
            verdicts.append(
                Verdict(
                    unit_id=u.id,
                    verifier=self.name,
                    score=float(best),
                    label=label_for(float(best), supported_at=self.threshold),
                    evidence=self._evidence(case, chunk),
                    target=target,
                    details={
                        "chunks": len(got),
                        "best_chunk": best_idx,
                        "chunk_scores": [round(s, 6) for _, s in sorted(got)],
                        "hypothesis_truncated": hyp_tokens[k] > ld.max_length // 2,
                    },
                )
            )
        return verdicts


def _detect_kind(config) -> Literal["classifier", "seq2seq"]:
    archs = list(getattr(config, "architectures", None) or [])
    if any("SequenceClassification" in a for a in archs):
        return "classifier"
    if any("ConditionalGeneration" in a or "Seq2SeqLM" in a for a in archs):
        return "seq2seq"
    return "seq2seq" if getattr(config, "is_encoder_decoder", False) else "classifier"


def _pick_device(device: str, torch):
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.startswith("cuda") and not torch.cuda.is_available():
        raise ConfigError("device 'cuda' was asked for but CUDA is not available here; use device='auto' or 'cpu'")
    return torch.device(device)


def _max_length(config, tokenizer, wanted: int | None) -> int:
    limits = [wanted or 512]
    tml = getattr(tokenizer, "model_max_length", None)
    if isinstance(tml, int) and 0 < tml < 100_000:
        limits.append(tml)
    mpe = getattr(config, "max_position_embeddings", None)
    if isinstance(mpe, int) and mpe > 0:
        # RoBERTa-style models reserve padding_idx + 1 positions
        offset = 2 if getattr(config, "model_type", "") in ("roberta", "xlm-roberta", "camembert", "longformer") else 0
        limits.append(mpe - offset)
    return min(limits)


def _dtype_kwarg(dtype) -> dict[str, Any]:
    """transformers >= 4.56 calls it `dtype`; older releases `torch_dtype`."""
    import transformers

    major, minor = (int(x) for x in transformers.__version__.split(".")[:2])
    return {"dtype": dtype} if (major, minor) >= (4, 56) else {"torch_dtype": dtype}


def _first_token_id(tokenizer, word: str) -> int:
    ids = tokenizer(word, add_special_tokens=False)["input_ids"]
    if len(ids) > 1:  # sentencepiece may emit a lone "▁" first
        lone = tokenizer.convert_ids_to_tokens(ids[0])
        if lone in ("▁", "Ġ", " "):
            ids = ids[1:]
    if not ids:
        raise ConfigError(f"the judge's tokenizer cannot encode the answer token {word!r}")
    return int(ids[0])
