"""Build citefix/data/antonyms.json: the single-word verb, adjective and adverb antonym pairs of WordNet 3.0.

    apt-get download wordnet-base && dpkg-deb -x wordnet-base_*.deb wn     # Debian's WordNet 3.0 database
    .venv/bin/python -m builders.build_antonyms --wordnet wn/usr/share/wordnet

WordNet's data files hold, for each synset, its words and pointers; a lexical antonym pointer ("!") names the target
synset and the source/target word numbers (wndb(5WN)). This script keeps the pairs where both words are one word (no
"_"), lower-cased, with the adjective position markers ("(a)", "(p)", "(ip)") removed, both directions, and writes them
sorted with WordNet's licence, which requires the notice to travel with every copy.

Antonymy holds between meanings, and WordNet draws the pointer between one word of each synset only ("approve" /
"disapprove"), so the synonyms that share those meanings are opposites too ("approve" / "reject": "disapprove, reject"
is the synset opposite "approve, sanction"). These synset pairs are added where the synset is one of the three most
frequent senses of each word (the order of index.verb / index.adj / index.adv, by tagged frequency): a rare sense ("cut" for
"abridge") would make a common word the opposite of words it does not oppose in ordinary text ("expound"). The offline verifier reads the
file to see an antonym predicate ("won" where the evidence says "lost") and an antonym modifier of the same noun or verb
("a slow recovery" / "a fast recovery", "flying strongly" / "flying weakly"); nothing is fitted to any dataset.
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


SENSES = 3  # a synonym's synset pair counts where the synset is one of its word's SENSES most frequent senses


def sense_ranks(index_file: Path) -> dict[tuple[str, str], int]:
    """{(lemma, synset offset): sense number} from a WordNet index file (senses listed most frequent first)."""
    ranks: dict[tuple[str, str], int] = {}
    for line in index_file.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line or line.startswith(" "):
            continue  # the licence header
        f = line.split()
        offsets = f[4 + int(f[3]) + 2:]
        for k, off in enumerate(offsets):
            ranks[(f[0], off)] = k + 1
    return ranks


def pairs(data_file: Path, ranks: dict[tuple[str, str], int] | None = None) -> list[tuple[str, str]]:
    """The (word, antonym) pairs of one WordNet data file, both one word: the words the pointer names, and (with
    `ranks`) the other words of the two synsets where the synset is one of their SENSES most frequent senses."""
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
        for x in synsets[src] if ranks is not None else []:
            for y in synsets[tgt]:
                if "_" in x or "_" in y or x == y:
                    continue
                if ranks.get((x, src), SENSES + 1) <= SENSES and ranks.get((y, tgt), SENSES + 1) <= SENSES:
                    out.add((x, y))
                    out.add((y, x))
    return sorted(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wordnet", default="/usr/share/wordnet", help="folder with WordNet 3.0's data and index files")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    wn = Path(args.wordnet)
    for name in ("data.verb", "data.adj", "data.adv", "index.verb", "index.adj", "index.adv"):
        if not (wn / name).is_file():
            raise SystemExit(f"build_antonyms: {wn / name} not found; give --wordnet the folder of WordNet 3.0's data files")
    table = {
        "source": "WordNet 3.0 (Debian package wordnet-base 1:3.0), antonym pointers of data.verb, data.adj and data.adv: the words "
                  "they name and the other words of both synsets where the synset is one of the word's three most frequent "
                  "senses; one-word pairs, both directions; built by builders/build_antonyms.py",
        "license": LICENSE,
        "verb": [list(p) for p in pairs(wn / "data.verb", sense_ranks(wn / "index.verb"))],
        "adj": [list(p) for p in pairs(wn / "data.adj", sense_ranks(wn / "index.adj"))],
        "adv": [list(p) for p in pairs(wn / "data.adv", sense_ranks(wn / "index.adv"))],
    }
    Path(args.out).write_text(json.dumps(table, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"build_antonyms: {len(table['verb'])} verb, {len(table['adj'])} adjective and {len(table['adv'])} adverb pairs "
          "(both directions) "
          f"written to {args.out}")


if __name__ == "__main__":
    main()
