"""What a lower-precision MiniLM would buy and cost: time, ROC-AUC on a labelled file, the example's score.

    .venv/bin/python -m bench.bench_encoder_precision --precision int8 [--data xsumfaith_val_balanced.jsonl]

Run once per precision (each in a fresh process, so every model is loaded the same way): fp32 is citefix as it ships;
int8 quantizes the encoder's Linear layers dynamically (torch.ao.quantization.quantize_dynamic, int8 weights,
activations quantized per batch); bf16 runs the encoder's forward pass under CPU autocast in bfloat16 (on a CPU with
AVX512-BF16 its matrix products run several times faster) and hands float32 hidden states back. Nothing here changes
citefix: the encoder is swapped in this process only, after citefix loaded it. Printed: the meta-eval of the offline
verifier over the file (`citefix meta-eval FILE --verifier offline --no-store`: its ROC-AUC, and seconds per record
with the models loaded), and the score of `citefix check --example summary`. Compare the lines of two runs.

Measured on the shared 2-core machine (XSumFaith val, 238 records with a document; two runs of each, load 3.3-4.5):
fp32 0.177-0.181 s a record, ROC-AUC 0.8323, example 0.6480; int8 0.088-0.092 s (2.0x), ROC-AUC 0.8314, example
0.6064; bf16 0.102-0.105 s (1.7x), ROC-AUC 0.8336, example 0.6484. bf16 has since become a setting
(`--precision bf16`, citefix/device.py: it enters the verifier's fingerprint and leaves the entailment model's fp32 base
alone); int8 was left out (the example's unit scores moved by up to 0.15, and torch 2.13 deprecates
quantize_dynamic). This script still swaps the encoder itself, so it measures int8 too.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
XSUM = ROOT.parent / "shared" / "data" / "xsumfaith" / "xsumfaith_val_balanced.jsonl"


class _Bf16:
    """The encoder's model with its forward pass under bfloat16 autocast; float32 hidden states out."""

    def __init__(self, model):
        self.model, self.config = model, model.config

    def __call__(self, **batch):
        import torch

        with torch.autocast("cpu", dtype=torch.bfloat16):
            out = self.model(**batch)
        out.last_hidden_state = out.last_hidden_state.float()
        return out


def swap(precision: str) -> None:
    """Load citefix's encoder (cached for the process) and change its model in place."""
    import torch

    from citefix.encoder import load_encoder

    enc = load_encoder()
    if precision == "int8":
        enc.model = torch.ao.quantization.quantize_dynamic(enc.model, {torch.nn.Linear}, dtype=torch.qint8)
    elif precision == "bf16":
        enc.model = _Bf16(enc.model)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--precision", choices=("fp32", "int8", "bf16"), default="fp32")
    ap.add_argument("--data", type=Path, default=XSUM, help=f"a labelled file for meta-eval (default {XSUM})")
    ap.add_argument("--limit", type=int, default=None, help="records of the file (default: all)")
    args = ap.parse_args()
    import tempfile

    import citefix
    from citefix.inputs import example_path

    swap(args.precision)
    citefix.meta_eval(args.data, "offline", store=False, bootstrap=0, limit=2)  # warm-up: spaCy, idf, first batches
    t0 = time.perf_counter()
    result = citefix.meta_eval(args.data, "offline", store=False, bootstrap=0, limit=args.limit)
    seconds = time.perf_counter() - t0
    auc = next(s.value for s in result.stats if s.name == "roc_auc" and s.system == "offline")
    with tempfile.TemporaryDirectory() as tmp:
        example = citefix.check(str(example_path("summary")), db=Path(tmp) / "x.db")
    ex = example[0] if isinstance(example, list) else example
    print(f"precision {args.precision}: meta-eval {result.items} records in {seconds:.1f} s = "
          f"{seconds / max(1, result.items):.3f} s a record; ROC-AUC {auc:.4f}; example summary score {ex.score:.4f}; "
          f"load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
