"""Build citefix/data/minilm_idf.json: idf of MiniLM word pieces over the source documents of the development data.

Corpus: the distinct source documents of shared/data (xsumfaith val, summeval balanced, wice claim dev, attributionbench
grouped dev passages). Only the derived statistic (document frequency → idf per word-piece id) is written; no text.
idf(t) = ln((N + 1) / (df(t) + 1)); word pieces never seen get ln(N + 1).

Run: .venv/bin/python -m builders.build_idf [--data ../shared/data]
"""

from __future__ import annotations

import argparse
import json
import math
from collections import Counter
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "citefix" / "data" / "minilm_idf.json"


def documents(data: Path) -> list[str]:
    docs: list[str] = []
    for line in open(data / "xsumfaith" / "xsumfaith_val_balanced.jsonl", encoding="utf-8"):
        docs.append(json.loads(line)["document"])
    for line in open(data / "summeval" / "summeval_balanced_300.jsonl", encoding="utf-8"):
        docs.append(json.loads(line)["document"])
    for line in open(data / "wice" / "wice_claim_dev.jsonl", encoding="utf-8"):
        docs.append(json.loads(line)["citation_text"])
    for line in open(data / "attributionbench" / "ab_grouped_answers_dev.jsonl", encoding="utf-8"):
        docs.extend(p["text"] for p in json.loads(line)["passages"])
    return list(dict.fromkeys(d for d in docs if isinstance(d, str) and d.strip()))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default=str(Path(__file__).resolve().parent.parent.parent / "shared" / "data"),
                    help="the shared data folder (default: shared/data beside the checkout)")
    args = ap.parse_args()
    from citefix.encoder import load_encoder

    tok = load_encoder().tokenizer
    docs = documents(Path(args.data))
    df: Counter[int] = Counter()
    for d in docs:
        ids = tok(d, add_special_tokens=False, truncation=False, verbose=False)["input_ids"]
        df.update(set(ids))
    n = len(docs)
    # pieces seen in one document only are left out: they get the default, which is within 0.7 of their idf
    idf = {str(i): round(math.log((n + 1) / (c + 1)), 2) for i, c in sorted(df.items()) if c > 1}
    out = {
        "_provenance": (
            "builders/build_idf.py: document frequencies of all-MiniLM-L6-v2 word-piece ids over the "
            f"{n} distinct source documents of the development sets in shared/data (xsumfaith val, summeval balanced, "
            "wice claim dev, attributionbench grouped dev passages). Derived statistics only; no text is stored. "
            "idf = ln((N+1)/(df+1)); pieces seen in at most one document get 'default' = ln(N+1)."
        ),
        "n_docs": n,
        "default": round(math.log(n + 1), 3),
        "idf": idf,
    }
    OUT.write_text(json.dumps(out, separators=(",", ":")) + "\n", encoding="utf-8")
    print(f"{n} documents, {len(idf)} word pieces → {OUT} ({OUT.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
