"""The entailment model trained, exported and timed on a GPU machine in one run, for a machine that has a GPU,
PyTorch and transformers but no citefix install and no network.

Three steps:

    python -m training.entail_gpu pack --cache out/lodo_k --dest out/gpu          # here, in a citefix checkout
    python3 -m training.entail_gpu run --pack out/gpu --out OUT                    # there, from the repository root
    python -m training.entail_gpu unpack --results OUT --cache out/lodo_k --models out   # here again

``pack`` writes what the run needs into one small folder: the packaged MiniLM in fp16 with only the vocabulary rows
the texts use (the whole model is too large to travel), its tokenizer and config, the training pool's pairs less the
ones the judge's cache holds (those stay out-of-sample), the SummEdits summaries with their cached evidence regions,
and every (unit, evidence region) pair of the judge's cache.

``run`` trains two models (by default the top three layers fine-tuned, 3 epochs, input 256 tokens):

- ``gA``: the pool's FEVER, Fool Me Twice and FactCG pairs (``gS`` with ``--synthetic``: and the generator's
  synthetic pairs, packed with ``pack --synthetic``);
- ``gB``: the same plus the SummEdits summaries; and, so that no SummEdits summary is scored by a model that saw it,
  one more model per SummEdits domain with that domain left out, whose scores replace gB's on that domain.

It exports both deltas (``save_delta``), scores every cached pair with each, and times scoring on the GPU against the
machine's CPU, and citefix's encoder path (``citefix.encoder.load_encoder`` on ``cuda`` in fp32 and bf16, as
``--device cuda`` runs it) against the CPU (also alone: ``python3 -m training.entail_gpu bench --pack out/gpu --out
OUT``). ``unpack`` writes the scores beside the judge's cache (``entail-entail_gA.json``, read by
``python -m training.judge --cache out/lodo_k eval --entail-model out/entail_gA``), copies the deltas to
``out/entail_gA`` and ``out/entail_gB``, and checks them: the delta on the exact fp32 MiniLM must give the GPU's scores
on a sample of pairs (it was trained on the fp16 copy).
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import shutil
import sys
import time
from pathlib import Path

TOKENIZER_FILES = ("config.json", "tokenizer.json", "tokenizer_config.json", "vocab.txt", "special_tokens_map.json")
SOURCES = ("fever", "fool_me_twice", "factcg")
MAX_LENGTH = 256
LAYERS = 3
EPOCHS = 3


def _write_gz(path: Path, obj) -> None:
    with gzip.open(path, "wt", encoding="utf-8") as f:
        json.dump(obj, f)


def _read_gz(path: Path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def _cache_files(cache: Path) -> list[Path]:
    return [p for p in sorted(cache.glob("*.json")) if not p.name.startswith("entail-")]


def score_pairs(cache: Path) -> tuple[list[tuple[str, str]], list[str | None]]:
    """Every (unit, evidence region) pair of the judge's cache, in a fixed order, with the SummEdits domain of the
    item it comes from (None for any other set)."""
    pairs: dict[tuple[str, str], str | None] = {}
    for p in _cache_files(cache):
        for r in json.loads(p.read_text()):
            dom = r.get("group") if p.stem == "summedits" else None
            for f in [r["whole"], *r["units"]]:
                if "region_text" in f:
                    key = (f.get("unit_text") or "", f["region_text"])
                    if pairs.get(key) is None:
                        pairs[key] = dom
    keys = list(pairs)
    return keys, [pairs[k] for k in keys]


def pack(args) -> int:
    import torch
    from safetensors.torch import save_file
    from transformers import AutoModel, AutoTokenizer

    from citefix.encoder import MINILM_SHA256, packaged_minilm_dir

    cache, dest = Path(args.cache), Path(args.dest)
    dest.mkdir(parents=True, exist_ok=True)
    held = {r["id"] for r in json.loads((cache / "pool.json").read_text())}
    pool = [json.loads(x) for x in open(args.pool, encoding="utf-8")]
    train = [{"claim": r["claim"], "evidence": r["evidence"], "label": int(r["label"]), "source": r["source"]}
             for r in pool if r["source"] in SOURCES and r["id"] not in held]
    summ = []
    for r in json.loads((cache / "summedits.json").read_text()):
        w = r["whole"]
        if "region_text" in w and w.get("unit_text"):
            summ.append({"statement": w["unit_text"], "evidence": w["region_text"], "label": int(r["label"]),
                         "article_id": "summedits:" + str(r["id"]).rsplit("_", 1)[0], "domain": r["group"]})
    syn: list[dict] = []
    if args.synthetic:
        from training.train_entail import read_pairs

        syn = [{k: r[k] for k in ("statement", "evidence", "label", "article_id")} for r in read_pairs(args.synthetic)]
    keys, doms = score_pairs(cache)
    units = sorted({a for a, _ in keys})
    regions = sorted({b for _, b in keys})
    ui = {u: i for i, u in enumerate(units)}
    ri = {b: i for i, b in enumerate(regions)}
    _write_gz(dest / "pool_train.json.gz", train)
    _write_gz(dest / "summedits_train.json.gz", summ)
    if syn:
        _write_gz(dest / "synthetic.json.gz", syn)
    _write_gz(dest / "score_pairs.json.gz", {"units": units, "regions": regions,
                                             "pairs": [[ui[a], ri[b], d] for (a, b), d in zip(keys, doms)]})
    base_dir = packaged_minilm_dir()
    tok = AutoTokenizer.from_pretrained(str(base_dir))
    used: set[int] = set(tok.all_special_ids)
    texts = [r["claim"] for r in train] + [r["evidence"] for r in train] + [r["statement"] for r in summ] \
        + [r["evidence"] for r in summ] + [r[k] for r in syn for k in ("statement", "evidence")] + units + regions
    for k in range(0, len(texts), 4096):
        for ids in tok(texts[k : k + 4096], add_special_tokens=False)["input_ids"]:
            used.update(ids)
    model = AutoModel.from_pretrained(str(base_dir))
    state = {k: v.detach().half().contiguous() for k, v in model.state_dict().items()}
    ids = torch.tensor(sorted(used), dtype=torch.int64)
    name = "embeddings.word_embeddings.weight"
    state["vocab_rows"] = state[name][ids].contiguous()
    state["vocab_ids"] = ids
    state["vocab_size"] = torch.tensor([state[name].shape[0]], dtype=torch.int64)
    del state[name]
    save_file(state, str(dest / "base16.safetensors"))
    bdir = dest / "base"
    bdir.mkdir(exist_ok=True)
    for n in TOKENIZER_FILES:
        if (base_dir / n).exists():
            shutil.copy(base_dir / n, bdir / n)
    (dest / "manifest.json").write_text(json.dumps({"base_sha256": MINILM_SHA256, "n_pool_train": len(train),
                                                   "n_summedits": len(summ), "n_pairs": len(keys),
                                                   "vocab_rows": len(used)}, indent=1))
    size = sum(p.stat().st_size for p in dest.rglob("*") if p.is_file())
    print(f"{dest}: {len(train)} pool pairs, {len(summ)} SummEdits summaries, {len(keys)} pairs to score, "
          f"{len(used)} vocabulary rows; {size / 1e6:.1f} MB")
    return 0


def _load_base(pack_dir: Path, device: str):
    import torch
    from safetensors.torch import load_file
    from transformers import AutoConfig, AutoModel, AutoTokenizer

    tok = AutoTokenizer.from_pretrained(str(pack_dir / "base"))
    model = AutoModel.from_config(AutoConfig.from_pretrained(str(pack_dir / "base")))
    state = load_file(str(pack_dir / "base16.safetensors"))
    rows, ids = state.pop("vocab_rows"), state.pop("vocab_ids")
    n = int(state.pop("vocab_size")[0])
    emb = torch.zeros((n, rows.shape[1]), dtype=torch.float32)
    emb[ids] = rows.float()
    state = {k: v.float() for k, v in state.items()}
    state["embeddings.word_embeddings.weight"] = emb
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing = [k for k in missing if not k.endswith("position_ids")]
    if missing or unexpected:
        raise SystemExit(f"base weights do not fit the model: missing {missing}, unexpected {unexpected}")
    return tok, model.to(device).eval()


def run(args) -> int:
    import torch

    from citefix.verify.entail import EntailModel, save_delta
    from training.train_entail import as_pairs, train_head

    pack_dir, out = Path(args.pack), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    logf = open(out / "log.txt", "w", encoding="utf-8")

    def log(msg: str) -> None:
        line = f"[{time.strftime('%H:%M:%S')}] {msg}"
        print(line, flush=True)
        logf.write(line + "\n")
        logf.flush()

    device = args.device or ("cuda" if torch.cuda.is_available() else "cpu")
    log(f"device {device}" + (f" ({torch.cuda.get_device_name(0)})" if device == "cuda" else "")
        + f"; torch {torch.__version__}")
    manifest = json.loads((pack_dir / "manifest.json").read_text())
    tok, base = _load_base(pack_dir, device)
    pool = as_pairs(_read_gz(pack_dir / "pool_train.json.gz"))
    summ = _read_gz(pack_dir / "summedits_train.json.gz")
    sp = _read_gz(pack_dir / "score_pairs.json.gz")
    pairs = [(sp["units"][u], sp["regions"][r]) for u, r, _ in sp["pairs"]]
    doms = [d for _, _, d in sp["pairs"]]
    if args.limit:
        pool, pairs, doms = pool[: args.limit], pairs[: args.limit], doms[: args.limit]
    domains = sorted({r["domain"] for r in summ})
    epochs = args.epochs

    def fit(name: str, rows: list[dict]):
        log(f"{name}: training on {len(rows)} pairs")
        t0 = time.time()
        head, prov = train_head(tok, base, rows, layers=args.layers, epochs=epochs, batch=32, lr=args.lr,
                                max_length=args.max_length, seed=0, device=device, limit=args.limit,
                                log=lambda m: log(f"{name}: {m}"))
        prov["train_seconds"] = round(time.time() - t0, 1)
        return head, prov

    def scorer(head) -> EntailModel:
        return EntailModel(tok, base, head.to(device), args.max_length, name="citefix-entail")

    scores: dict[str, list[float]] = {}
    timing: dict[str, float] = {}

    def export(name: str, head, prov: dict, sources: str) -> None:
        prov.update({"sources": sources, "base_weights": "fp16 copy of the packaged MiniLM (training.entail_gpu pack)",
                     "command": "python -m training.entail_gpu run"})
        save_delta(head.to("cpu"), out / name, base_sha256=manifest["base_sha256"], max_length=args.max_length,
                   provenance=prov)

    # gA: pool only (gS: with the synthetic pairs as well)
    first, sources = "gA", "pool: fever, fool_me_twice, factcg (less the judge's cached sample)"
    if args.synthetic:
        synthetic = _read_gz(pack_dir / "synthetic.json.gz")
        pool = pool + synthetic
        first, sources = "gS", sources + f" and {len(synthetic)} synthetic pairs (training.make_entail_pairs)"
    head, prov = fit(first, pool)
    t0 = time.time()
    scores[first] = scorer(head).score(pairs, batch_size=128)
    timing[f"{first}_score_gpu_s"] = round(time.time() - t0, 2)
    log(f"{first}: scored {len(pairs)} pairs in {timing[f'{first}_score_gpu_s']} s")
    export(first, head, prov, sources)
    _write_gz(out / "scores.json.gz", scores)

    # the GPU path against the CPU: the same 1,024 pairs
    sample = random.Random(0).sample(pairs, min(1024, len(pairs)))
    if device == "cuda":
        m = scorer(head)
        torch.cuda.synchronize()
        t0 = time.time()
        gpu = m.score(sample, batch_size=128)
        torch.cuda.synchronize()
        timing["gpu_1024_s"] = round(time.time() - t0, 3)
        torch.set_num_threads(args.cpu_threads)
        head_cpu = head.to("cpu")
        base.to("cpu")
        t0 = time.time()
        cpu = EntailModel(tok, base, head_cpu, args.max_length, name="cpu").score(sample, batch_size=32)
        timing["cpu_1024_s"] = round(time.time() - t0, 3)
        timing["cpu_threads"] = args.cpu_threads
        timing["max_abs_diff_gpu_cpu"] = round(max(abs(a - b) for a, b in zip(gpu, cpu)), 5)
        base.to(device)
        log(f"bench: {timing}")

    if device == "cuda":
        timing["encoder"] = bench_encoder(pack_dir, out, log=log)
    if not args.with_summedits:
        (out / "bench.json").write_text(json.dumps(timing, indent=1))
        log("done")
        return 0
    # gB: pool + SummEdits, and one model per domain left out for that domain's scores
    srows = [{k: r[k] for k in ("statement", "evidence", "label", "article_id")} for r in summ]
    head, prov = fit("gB", pool + srows)
    gb = scorer(head).score(pairs, batch_size=128)
    export("gB", head, prov, "pool: fever, fool_me_twice, factcg (less the judge's cached sample) and SummEdits")
    for d in domains:
        idx = [i for i, x in enumerate(doms) if x == d]
        if not idx:
            continue
        rows = [{k: r[k] for k in ("statement", "evidence", "label", "article_id")} for r in summ if r["domain"] != d]
        h, _ = fit(f"gB-{d}", pool + rows)
        vals = scorer(h).score([pairs[i] for i in idx], batch_size=128)
        for i, v in zip(idx, vals):
            gb[i] = v
    scores["gB"] = gb
    _write_gz(out / "scores.json.gz", scores)
    (out / "bench.json").write_text(json.dumps(timing, indent=1))
    log("done")
    return 0


def bench_encoder(pack_dir: Path, out: Path, n: int = 1024, log=print) -> dict:
    """citefix's encoder path (citefix.encoder.load_encoder, as the offline verifier uses it) on CUDA in fp32 and bf16
    against the CPU in fp32: seconds to embed `n` cached texts (tokens and sentences) and the largest difference of a
    sentence embedding from the CPU's."""
    import tempfile

    import torch

    from citefix.encoder import load_encoder

    sp = _read_gz(pack_dir / "score_pairs.json.gz")
    texts = (sp["units"] + sp["regions"])[:n]
    tok, base = _load_base(pack_dir, "cpu")
    res: dict = {"texts": len(texts)}
    with tempfile.TemporaryDirectory() as folder:
        base.save_pretrained(folder)
        tok.save_pretrained(folder)
        ref = None
        for device, precision in (("cpu", "fp32"), ("cuda", "fp32"), ("cuda", "bf16")):
            if device == "cuda" and not torch.cuda.is_available():
                continue
            enc = load_encoder(folder, device=device, precision=precision)
            key = f"{device}_{precision}"
            for attempt in ("first", "again"):  # the first pass meets every batch shape for the first time
                if device == "cuda":
                    torch.cuda.synchronize()
                t0 = time.time()
                enc.encode_tokens(texts)
                sent = enc.encode_sentences(texts)
                if device == "cuda":
                    torch.cuda.synchronize()
                res[f"{key}_{attempt}_s"] = round(time.time() - t0, 3)
            sent = torch.as_tensor(sent).float()
            if ref is None:
                ref = sent
            else:
                res[f"{key}_max_diff"] = round(float((sent - ref).abs().max()), 5)
            log(f"encoder {key}: {res[f'{key}_first_s']} s, again {res[f'{key}_again_s']} s for {len(texts)} texts "
                "(tokens and sentences)")
    return res


def unpack(args) -> int:
    from citefix.verify.entail import load_entail

    res, cache, models = Path(args.results), Path(args.cache), Path(args.models)
    scores = _read_gz(res / "scores.json.gz")
    keys, _ = score_pairs(cache)
    rng = random.Random(0)
    for name, vals in scores.items():
        if len(vals) != len(keys):
            raise SystemExit(f"{name}: {len(vals)} scores for {len(keys)} pairs: the cache changed since `pack`")
        folder = models / f"entail_{name}{args.suffix}"
        if (res / name / "entail.safetensors").exists():
            folder.mkdir(parents=True, exist_ok=True)
            for f in ("entail.safetensors", "entail.json"):
                shutil.copy(res / name / f, folder / f)
        (cache / f"entail-{folder.name}.json").write_text(json.dumps([[a, b, s] for (a, b), s in zip(keys, vals)]))
        if name in ("gA", "gS") and folder.exists():
            idx = rng.sample(range(len(keys)), min(args.check, len(keys)))
            here = load_entail(folder).score([keys[i] for i in idx])
            diff = max(abs(here[j] - vals[i]) for j, i in enumerate(idx))
            print(f"{name}: the delta on the fp32 MiniLM here against the GPU's scores, {len(idx)} pairs: "
                  f"max |difference| {diff:.4f}")
        print(f"{name}: {len(vals)} scores -> {cache / ('entail-' + folder.name + '.json')}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack")
    p.add_argument("--cache", required=True)
    p.add_argument("--dest", required=True)
    p.add_argument("--pool", default=str(Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "train"
                                         / "pool.jsonl"))
    p.add_argument("--synthetic", default=None, help="synthetic pairs (training/make_entail_pairs.py) to pack too")
    r = sub.add_parser("run")
    r.add_argument("--pack", required=True)
    r.add_argument("--out", required=True)
    r.add_argument("--device", default=None)
    r.add_argument("--epochs", type=int, default=EPOCHS)
    r.add_argument("--layers", type=int, default=LAYERS, help="top layers fine-tuned (6: all)")
    r.add_argument("--lr", type=float, default=1e-4)
    r.add_argument("--max-length", type=int, default=MAX_LENGTH)
    r.add_argument("--no-summedits", dest="with_summedits", action="store_false",
                   help="train and score gA only (the pool without SummEdits)")
    r.add_argument("--synthetic", action="store_true",
                   help="the first model (then named gS) also trains on the packed synthetic pairs")
    r.add_argument("--limit", type=int, default=None, help="a quick trial: this many pairs of each kind")
    r.add_argument("--cpu-threads", type=int, default=16)
    b = sub.add_parser("bench", help="citefix's encoder path on CUDA (fp32, bf16) against the CPU")
    b.add_argument("--pack", required=True)
    b.add_argument("--out", required=True)
    b.add_argument("--texts", type=int, default=1024)
    u = sub.add_parser("unpack")
    u.add_argument("--results", required=True)
    u.add_argument("--cache", required=True)
    u.add_argument("--models", default="out")
    u.add_argument("--check", type=int, default=300)
    u.add_argument("--suffix", default="", help="appended to the models' names (a run with other settings)")
    args = ap.parse_args(argv)
    if args.cmd == "bench":
        res = bench_encoder(Path(args.pack), Path(args.out), n=args.texts)
        Path(args.out).mkdir(parents=True, exist_ok=True)
        (Path(args.out) / "bench_encoder.json").write_text(json.dumps(res, indent=1))
        print(json.dumps(res, indent=1))
        return 0
    return {"pack": pack, "run": run, "unpack": unpack}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
