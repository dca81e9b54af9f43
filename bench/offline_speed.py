"""Time the offline pipeline: a ~500-word source against a ~60-word summary, after the models are loaded.

Run: .venv/bin/python -m bench.offline_speed [--threads 2]
Prints model load time, then per-run time of ClauseDecomposer().units + OfflineVerifier().verify on a fresh verifier
(cold source cache) and on the same verifier again (warm cache).
"""

from __future__ import annotations

import argparse
import statistics
import time

SOURCE_SENTS = [
    "The city council voted on Monday to approve a new bridge across the river, ending a debate that lasted three years.",
    "The bridge will cost £30m and is expected to open in March 2027, according to the council's transport director.",
    "Mayor Anna Lee said she was delighted with the decision and thanked residents for their patience.",
    "The project was approved by a vote of 12 to 3, with two members absent.",
    "Critics said the money should have been spent on schools and on repairing existing roads.",
    "A spokesman for the opposition group, David Brown, said the cost had risen by a third since the first estimate.",
    "Engineers plan to build the bridge in two stages so that river traffic is not interrupted.",
    "The first stage will include the foundations and the northern approach road.",
    "Local businesses have welcomed the plan, saying it will bring more shoppers into the town centre.",
    "The council has also promised a new cycle lane and wider pavements on both sides.",
]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0: leave the default)")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    from citefix.decompose.clauses import ClauseDecomposer
    from citefix.models import Case, Source
    from citefix.verify.offline import OfflineVerifier

    source = ""
    k = 0
    while len(source.split()) < 500:
        source += (" " if source else "") + SOURCE_SENTS[k % len(SOURCE_SENTS)].replace("three", str(3 + k // 10))
        k += 1
    summary = (
        "The council approved a £30m bridge by 12 votes to 3, and Mayor Anna Lee, who was delighted, said it would open "
        "in March 2027. Critics, led by David Brown, said the money should go to schools, while businesses welcomed the "
        "plan because it would bring shoppers into the centre."
    )
    case = Case(id="speed", sources=[Source(id="1", text=source)], text=summary)
    t0 = time.perf_counter()
    dec, ver = ClauseDecomposer(), OfflineVerifier()
    ver.verify(dec.units(case), case)
    print(f"source {len(source.split())} words, summary {len(summary.split())} words, torch threads {torch.get_num_threads()}")
    print(f"first call (loads spaCy and MiniLM): {time.perf_counter() - t0:.2f} s")
    cold, warm = [], []
    for _ in range(args.runs):
        v = OfflineVerifier(encoder=ver.encoder, nlp=ver.nlp)
        t = time.perf_counter()
        units = dec.units(case)
        v.verify(units, case)
        cold.append(time.perf_counter() - t)
        t = time.perf_counter()
        v.verify(dec.units(case), case)
        warm.append(time.perf_counter() - t)
    print(f"{len(units)} units; cold source cache: median {statistics.median(cold):.2f} s (max {max(cold):.2f}); "
          f"warm cache: median {statistics.median(warm):.2f} s")


if __name__ == "__main__":
    main()
