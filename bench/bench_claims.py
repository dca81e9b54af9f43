"""Throughput of ALiiCE claim extraction and of the NLI verifier (batched vs one pair at a time).

    .venv/bin/python -m bench.bench_claims [--data PATH] [--repeat 3] [--nli-pairs 256] [--hidden 64 --layers 2]

Data: --data PATH (AttributionBench grouped answers JSONL), else $CITEFIX_ATTRIBUTIONBENCH, else shared/data beside
the checkout; without any (a fresh clone) the bundled cited-answer example, and the script says so.

Claims: the headline is the parser's real speed: every cited sentence parsed by spaCy and cut into claims, in
sentences/s (goal: 200/s on a 2-core machine). Then, apart, citefix's end-to-end claim extraction over all answers,
which parses only the sentences with several citation groups (6 of AttributionBench dev's 1,005): that figure is
not a parsing speed. Peak RSS after each. NLI: a small BERT classifier built here (random weights, WordPiece vocabulary from
the data's words; nothing is downloaded) judges real (claim, cited passages) pairs through NLIVerifier.verify, with
batch_size 16 and with batch_size 1; prints pairs/s (a pair is one premise chunk with one hypothesis).
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("CITEFIX_ATTRIBUTIONBENCH",
                           ROOT.parent / "shared" / "data" / "attributionbench" / "ab_grouped_answers_dev.jsonl"))


def load_cases(path: Path | None):
    from citefix.models import Case, Source

    if path is None:  # a fresh clone: the bundled cited answer
        from citefix.inputs import example_path
        from citefix.inputs import load_cases as bundled

        return bundled(example_path("cited_answer"))
    cases = []
    for line in path.read_text().splitlines():
        d = json.loads(line)
        srcs = [Source(id=str(p["id"]), title=p.get("title") or "", text=p["text"]) for p in d["passages"] if p["text"].strip()]
        if srcs:
            cases.append(Case(id=d["id"], text=d["answer"], question=d.get("question"), sources=srcs, kind="cited_answer"))
    return cases


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def bench_claims(cases, repeat: int):
    from citefix.decompose.claims import ClaimDecomposer
    from citefix.marks import parse_case
    from citefix.nlp import load_spacy

    t0 = time.perf_counter()
    load_spacy()
    load_s = time.perf_counter() - t0
    times, units = [], None
    dec = None
    for _ in range(repeat):
        dec = ClaimDecomposer()
        t = time.perf_counter()
        parsed = [parse_case(c) for c in cases]
        units = dec.units_many(cases, parsed)
        times.append(time.perf_counter() - t)
    st = dec.stats
    best = min(times)
    several = sum(1 for p in parsed for s in p.sentences if len(s.groups) > 1)

    # The parser's speed: every cited sentence parsed and cut, as if each had several groups (most have one, which
    # citefix does not parse). The marks of single-group sentences are treated as groups at their real positions.
    from citefix.decompose.claims import cut_claims

    sents = [s for p in parsed for s in p.sentences if s.groups]
    parse_times = []
    for _ in range(repeat):
        t = time.perf_counter()
        toks = dec.parse([s.clean for s in sents])
        for s, tk in zip(sents, toks):
            cut_claims(tk, [g.clean_offset for g in s.groups])
        parse_times.append(time.perf_counter() - t)
    words = sum(s.word_count for s in sents)
    print(f"claims: {len(sents) / min(parse_times):.0f} sentences/s parsed and cut ({len(sents)} cited sentences, "
          f"{words} words, every one parsed by spaCy; best of {repeat}: {min(parse_times):.3f}s; spaCy load "
          f"{load_s:.2f}s; peak RSS {peak_rss_mb():.0f} MB)   [goal >= 200/s]")
    print(f"claim extraction end to end: {len(cases)} answers, {st.sentences} sentences ({st.cited_sentences} cited), "
          f"{st.groups} groups -> {sum(len(u) for u in units)} units ({st.claims} claims, {st.whole_sentences} whole "
          f"sentences; fallbacks {dict(st.fallbacks) or 'none'}); only the {several} sentence(s) with several "
          f"citation groups need a parse, so its rate, {st.sentences / best:.0f} sentences/s (best of {repeat}: "
          f"{best:.3f}s), is not a parsing speed")
    return units


def build_tiny_bert(path: Path, cases, hidden: int, layers: int):
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    counts = collections.Counter(
        w for c in cases for t in [c.text] + [s.text for s in c.sources] for w in re.findall(r"\w+|[^\w\s]", t.lower())
    )
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + [w for w, _ in counts.most_common(8000)]
    (path / "vocab.txt").write_text("\n".join(vocab) + "\n")
    tok = BertTokenizerFast(vocab_file=str(path / "vocab.txt"), do_lower_case=True)
    label2id = {"CONTRADICTION": 0, "NEUTRAL": 1, "ENTAILMENT": 2}
    cfg = BertConfig(vocab_size=len(vocab), hidden_size=hidden, num_hidden_layers=layers,
                     num_attention_heads=max(1, hidden // 32), intermediate_size=hidden * 4,
                     max_position_embeddings=512, num_labels=3, label2id=label2id,
                     id2label={v: k for k, v in label2id.items()})
    torch.manual_seed(0)
    BertForSequenceClassification(cfg).save_pretrained(path)
    tok.save_pretrained(path)


def bench_nli(cases, units, n_pairs: int, hidden: int, layers: int, threads: int | None):
    import torch

    from citefix.verify.nli import NLIVerifier

    if threads:
        torch.set_num_threads(threads)
    jobs = []  # (case, units, targets), real claims with their cited passages
    for case, us in zip(cases, units):
        us = [u for u in us if u.cited and not u.meta.get("missing")]
        if us:
            jobs.append((case, us, [u.cited for u in us]))
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    with tempfile.TemporaryDirectory() as tmp:
        build_tiny_bert(Path(tmp), cases, hidden, layers)
        results = {}
        for bs in (16, 1):
            v = NLIVerifier(tmp, device="cpu", batch_size=bs)
            v.load()
            v.verify(jobs[0][1][:1], jobs[0][0], targets=jobs[0][2][:1])  # warm-up
            pairs, scores = 0, []
            t = time.perf_counter()
            for case, us, tg in jobs:
                verdicts = v.verify(us, case, targets=tg)
                pairs += sum(x.details.get("chunks", 0) for x in verdicts)
                scores += [x.score for x in verdicts]
                if pairs >= n_pairs:
                    break
            dt = time.perf_counter() - t
            results[bs] = (pairs, dt, scores)
            print(f"nli: batch_size {bs:2d}: {pairs} pairs in {dt:.2f}s = {pairs / dt:.1f} pairs/s "
                  f"(BERT hidden {hidden}, {layers} layers, max_length {v.load().max_length}, cpu, "
                  f"{torch.get_num_threads()} torch threads)")
        a, b = results[16][2], results[1][2]
        diff = max(abs(x - y) for x, y in zip(a, b))
        print(f"nli: batched speed-up x{(results[16][0] / results[16][1]) / (results[1][0] / results[1][1]):.1f}; "
              f"max score difference batched vs one-at-a-time {diff:.1e}; peak RSS {peak_rss_mb():.0f} MB")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=None,
                    help=f"AttributionBench grouped answers JSONL (default: $CITEFIX_ATTRIBUTIONBENCH, else {DATA}, "
                         "else the bundled cited-answer example)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--nli-pairs", type=int, default=256)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--threads", type=int, default=None, help="torch threads (default: torch's own choice)")
    ap.add_argument("--skip-nli", action="store_true")
    args = ap.parse_args(argv)
    data = args.data
    if data is not None and not data.is_file():
        print(f"bench_claims: --data {data}: no such file; give AttributionBench's grouped answers JSONL or leave "
              "--data out", file=sys.stderr)
        return 2
    if data is None:
        data = DATA if DATA.is_file() else None
        if data is None:
            print(f"no AttributionBench file at {DATA} (give --data PATH or set CITEFIX_ATTRIBUTIONBENCH): measuring on "
                  "the bundled cited-answer example only")
    cases = load_cases(data)
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs (figures are noisy on a busy machine)")
    units = bench_claims(cases, args.repeat)
    if not args.skip_nli:
        bench_nli(cases, units, args.nli_pairs, args.hidden, args.layers, args.threads)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
