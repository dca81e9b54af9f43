"""Build citefix/data/antonyms.json: the single-word verb and adjective antonym pairs of WordNet 3.0.

    apt-get download wordnet-base && dpkg-deb -x wordnet-base_*.deb wn     # Debian's WordNet 3.0 database
    .venv/bin/python bench/build_antonyms.py --wordnet wn/usr/share/wordnet

WordNet's data files hold, for each synset, its words and pointers; a lexical antonym pointer ("!") names the target
synset and the source/target word numbers (wndb(5WN)). This script keeps the pairs where both words are one word (no
"_"), lower-cased, with the adjective position markers ("(a)", "(p)", "(ip)") removed, both directions, and writes them
sorted with WordNet's licence, which requires the notice to travel with every copy. The offline verifier reads the
file to see an antonym predicate ("won" where the evidence says "lost"); nothing is fitted to any dataset.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "citefix" / "data" / "antonyms.json"

LICENSE = (
    "WordNet 3.0 Copyright 2006 by Princeton University. All rights reserved. Permission to use, copy, modify and "
    "distribute this software and database and its documentation for any purpose and without fee or royalty is hereby "
    "granted, provided that you agree to comply with the following copyright notice and statements, including the "
    "disclaimer, and that the same appear on ALL copies of the software, database and documentation, including "
    "modifications that you make for internal use or for distribution. THIS SOFTWARE AND DATABASE IS PROVIDED \"AS IS\" "
    "AND PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES, EXPRESS OR IMPLIED. BY WAY OF EXAMPLE, BUT NOT "
    "LIMITATION, PRINCETON UNIVERSITY MAKES NO REPRESENTATIONS OR WARRANTIES OF MERCHANTABILITY OR FITNESS FOR ANY "
    "PARTICULAR PURPOSE OR THAT THE USE OF THE LICENSED SOFTWARE, DATABASE OR DOCUMENTATION WILL NOT INFRINGE ANY THIRD "
    "PARTY PATENTS, COPYRIGHTS, TRADEMARKS OR OTHER RIGHTS. The name of Princeton University or Princeton may not be "
    "used in advertising or publicity pertaining to distribution of the software and/or database. Title to copyright in "
    "this software, database and any associated documentation shall at all times remain with Princeton University and "
    "LICENSEE agrees to preserve same."
)


def _word(raw: str) -> str:
    return re.sub(r"\([a-z]+\)$", "", raw).lower()


def pairs(data_file: Path) -> list[tuple[str, str]]:
    """The (word, antonym) pairs of one WordNet data file, both one word."""
    synsets: dict[str, list[str]] = {}
    pointers: list[tuple[str, int, str, int]] = []  # (source synset, source word no., target synset, target word no.)
    for line in data_file.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line or line.startswith("  "):
            continue  # the licence header
        fields = line.split(" | ")[0].split()
        offset, n_words = fields[0], int(fields[3], 16)
        words = [_word(fields[4 + 2 * k]) for k in range(n_words)]
        synsets[offset] = words
        at = 4 + 2 * n_words
        for k in range(int(fields[at])):
            sym, target, _pos, st = fields[at + 1 + 4 * k : at + 5 + 4 * k]
            if sym == "!":
                pointers.append((offset, int(st[:2], 16), target, int(st[2:], 16)))
    out = set()
    for src, i, tgt, j in pointers:
        if i == 0 or j == 0 or tgt not in synsets:
            continue
        a, b = synsets[src][i - 1], synsets[tgt][j - 1]
        if "_" in a or "_" in b or a == b:
            continue
        out.add((a, b))
        out.add((b, a))
    return sorted(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wordnet", default="/usr/share/wordnet", help="folder with WordNet 3.0's data.verb and data.adj")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    wn = Path(args.wordnet)
    for name in ("data.verb", "data.adj"):
        if not (wn / name).is_file():
            raise SystemExit(f"build_antonyms: {wn / name} not found; give --wordnet the folder of WordNet 3.0's data files")
    table = {
        "source": "WordNet 3.0 (Debian package wordnet-base 1:3.0), lexical antonym pointers of data.verb and data.adj; "
                  "one-word pairs, both directions; built by bench/build_antonyms.py",
        "license": LICENSE,
        "verb": [list(p) for p in pairs(wn / "data.verb")],
        "adj": [list(p) for p in pairs(wn / "data.adj")],
    }
    Path(args.out).write_text(json.dumps(table, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"build_antonyms: {len(table['verb'])} verb and {len(table['adj'])} adjective pairs (both directions) "
          f"written to {args.out}")


if __name__ == "__main__":
    main()
