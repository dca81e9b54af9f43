"""Train citefix's small entailment model: the packaged all-MiniLM-L6-v2 as a cross-encoder, top layers fine-tuned.

Input: pairs from training/make_entail_pairs.py ({"evidence", "statement", "label"}); output: the fine-tuned top
``--layers`` transformer layers and a one-logit head, saved in fp16 as ``citefix/data/entail/entail.safetensors`` with
``entail.json`` (base model sha256, layers, max length, pooling, the file's own sha256, training provenance). The
lower layers and the embeddings stay the packaged MiniLM's, pinned by its sha256, so what ships is a small delta.

The statement goes first, the evidence second (``[CLS] statement [SEP] evidence [SEP]``, the evidence truncated);
the head reads the [CLS] vector and the mean of the statement's token vectors after the top layers. The frozen lower
layers run once per pair (their outputs are cached in memory), then only the top layers train.

Pages are split 90/10 by article for a validation figure on unseen pages (printed; the human-labelled sets are
measured by meta-eval, never here).

Run: nice -n 10 .venv/bin/python -m training.train_entail out/entail_pairs.jsonl [--layers 2] [--epochs 3]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def main(argv: list[str] | None = None) -> int:
    import torch

    from citefix.encoder import MINILM_SHA256, packaged_minilm_dir
    from citefix.verify.entail import save_delta

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pairs")
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-4)
    ap.add_argument("--max-length", type=int, default=160)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--device", default="cpu", help="cpu or cuda")
    ap.add_argument("--out", default=str(REPO / "citefix" / "data" / "entail"))
    ap.add_argument("--sources", nargs="*", default=None,
                    help="with the training pool as input: only these sources (e.g. fever fool_me_twice factcg)")
    args = ap.parse_args(argv)
    torch.set_num_threads(args.threads)
    rows = read_pairs(args.pairs, args.sources)
    from transformers import AutoModel, AutoTokenizer

    base_dir = packaged_minilm_dir()
    tok = AutoTokenizer.from_pretrained(str(base_dir))
    model = AutoModel.from_pretrained(str(base_dir))
    head, prov = train_head(tok, model, rows, layers=args.layers, epochs=args.epochs, batch=args.batch, lr=args.lr,
                            max_length=args.max_length, limit=args.limit, seed=args.seed, device=args.device)
    prov.update({"pairs": Path(args.pairs).name,
                 "command": " ".join(["python -m training.train_entail", Path(args.pairs).name, "--layers",
                                      str(args.layers), "--epochs", str(args.epochs)]
                                     + (["--sources", *args.sources] if args.sources else []))})
    path = save_delta(head, Path(args.out), base_sha256=MINILM_SHA256, max_length=args.max_length, provenance=prov)
    print(f"saved {path} ({path.stat().st_size / 1e6:.1f} MB)", flush=True)
    return 0


def read_pairs(path: str, sources: list[str] | None = None) -> list[dict]:
    """Training pairs from a JSON-lines file: training/make_entail_pairs.py's output or the training pool (as_pairs)."""
    with open(path, encoding="utf-8") as f:
        return as_pairs([json.loads(x) for x in f], sources)


def as_pairs(rows: list[dict], sources: list[str] | None = None) -> list[dict]:
    """Rows as training pairs ({"statement", "evidence", "label", "article_id"}). Rows of the training pool
    (../shared/data/train/pool.jsonl: a claim against its evidence) are converted, only those of `sources` when given;
    pairs sharing an evidence text get one article id, so they stay on one side of the validation split."""
    if rows and "claim" in rows[0]:
        rows = [{"statement": r["claim"], "evidence": r["evidence"], "label": int(r["label"]),
                 "article_id": f"{r['source']}:{hashlib.sha256(r['evidence'].encode()).hexdigest()[:16]}"}
                for r in rows if not sources or r["source"] in sources]
    return rows


def train_head(tok, model, rows: list[dict], *, layers: int, epochs: int, batch: int, lr: float, max_length: int,
               limit: int | None = None, seed: int = 0, device: str = "cpu", log=print):
    """Fine-tune copies of ``model``'s top ``layers`` layers and a head on ``rows``; return (head on the CPU,
    provenance). Pages are split 90/10 by article id for a validation figure printed after each epoch. A statement
    longer than half the input is left out of training (counted in the provenance)."""
    import numpy as np
    import torch

    from citefix.verify.entail import EntailHead, lower_layers
    from training.tune_offline import auc

    torch.manual_seed(seed)
    rng = random.Random(seed)
    model = model.to(device)
    model.eval()
    half = max_length // 2
    lengths = tok([r["statement"] for r in rows], add_special_tokens=False)["input_ids"]
    long_out = sum(len(x) > half for x in lengths)
    rows = [r for r, x in zip(rows, lengths) if len(x) <= half]
    rows = sorted(rows, key=lambda r: (r["article_id"], r["statement"]))
    rng.shuffle(rows)
    if limit:
        rows = rows[:limit]
    arts = sorted({r["article_id"] for r in rows})
    val_arts = {a for a in arts if int(hashlib.sha256(a.encode()).hexdigest()[:8], 16) % 10 == 0}
    train = [r for r in rows if r["article_id"] not in val_arts]
    val = [r for r in rows if r["article_id"] in val_arts]
    log(f"pairs: train {len(train)} ({sum(r['label'] for r in train)} positive), val {len(val)}; "
        f"{long_out} with a statement over {half} tokens left out")
    split = len(model.encoder.layer) - layers

    def lower(batch_rows):
        h, mask, stmt = lower_layers(tok, model, split, [(r["statement"], r["evidence"]) for r in batch_rows],
                                     max_length)
        return h.half(), mask, stmt

    def batches(rs, bs):
        rs = sorted(rs, key=lambda r: len(r["statement"]) + len(r["evidence"]))
        return [rs[i : i + bs] for i in range(0, len(rs), bs)]

    def labels(b):
        return torch.tensor([r["label"] for r in b], dtype=torch.float32, device=device)

    t0 = time.time()
    cache_train = [(lower(b), labels(b)) for b in batches(train, batch)]
    cache_val = [(lower(b), labels(b)) for b in batches(val, 64)]
    log(f"lower {split} layers cached in {time.time() - t0:.0f}s")

    head = EntailHead.from_base(model, layers).to(device)
    params = [p for p in head.parameters() if p.requires_grad]
    opt = torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    steps = epochs * len(cache_train)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / max(1, steps // 10)) * max(0.0, 1 - s / steps))
    n_pos = sum(r["label"] for r in train)
    # both classes weigh the same in the loss
    lossf = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor((len(train) - n_pos) / max(1, n_pos), device=device))

    def evaluate():
        head.eval()
        ps, ys = [], []
        with torch.inference_mode():
            for (h, m, s), y in cache_val:
                ps += torch.sigmoid(head(h.float(), m, s)).tolist()
                ys += y.tolist()
        head.train()
        ps, ys = np.array(ps), np.array(ys)
        acc = float(((ps >= 0.5) == (ys == 1)).mean())
        return auc(ps, ys), acc

    val_auc, acc = evaluate()
    log(f"before training: val AUC {val_auc:.3f}")
    head.train()
    for ep in range(epochs):
        order = list(range(len(cache_train)))
        rng.shuffle(order)
        tot = 0.0
        t1 = time.time()
        for k in order:
            (h, m, s), y = cache_train[k]
            logit = head(h.float(), m, s)
            tot += optimizer_step(lossf(logit, y), opt, sched, params)
        val_auc, acc = evaluate()
        log(f"epoch {ep + 1}: loss {tot / len(order):.4f}  val AUC {val_auc:.3f}  acc {acc:.3f}  ({time.time() - t1:.0f}s)")
    head.eval()
    prov = {"n_train": len(train), "n_val": len(val), "left_out_long": long_out, "val_auc": round(val_auc, 4),
            "val_acc": round(acc, 4), "epochs": epochs, "lr": lr, "batch": batch, "seed": seed, "device": device}
    return head.to("cpu"), prov


def optimizer_step(loss, opt, sched, params) -> float:
    """One training step (gradients clipped at norm 1, then the scheduler's step); the loss as a float."""
    import torch

    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(params, 1.0)
    opt.step()
    sched.step()
    return float(loss.detach())


if __name__ == "__main__":
    raise SystemExit(main())
