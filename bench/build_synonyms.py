"""Build citefix/data/synonyms.json: WordNet 3.0's one-word synonyms, by shared sense, for nouns, verbs, adjectives and
adverbs.

    apt-get install wordnet-base      # or: apt-get download wordnet-base && dpkg-deb -x wordnet-base_*.deb wn
    .venv/bin/python bench/build_synonyms.py --wordnet /usr/share/wordnet

A WordNet synset is one meaning and the words that can say it ("remainder, balance, residual, residue, rest"). The
offline verifier reads two words as one meaning when they share a synset that is one of the three most frequent senses
of each (the order of index.POS, by tagged frequency; the same rule as the antonym table of bench/build_antonyms.py):
a rare sense would make a common word the synonym of words it does not mean in ordinary text ("rest" is also "stay",
"lie", "repose" in rarer senses). Only one-word members are kept (no "_"), lower-cased, adjective position markers
removed, names (a capitalised member) left out; a synset keeps the members for which it is such a sense, and is written only where two or more remain. The
licence of WordNet travels with the table. Nothing is fitted to any data set.

Words of one family are read as one meaning too: WordNet's derivation pointers ("+") link word senses across parts of
speech ("object" / "objection", "head" / "header"); a pair is kept under the same three-senses rule on both sides.

The table is a list of groups per part of speech and a list of derivation pairs; the verifier maps each word to the
groups it belongs to and to the words it derives from or to.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from build_antonyms import LICENSE, SENSES, sense_ranks  # noqa: E402  (one licence text, one sense rule)

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "citefix" / "data" / "synonyms.json"
POS = {"noun": "noun", "verb": "verb", "adj": "adj", "adv": "adv"}


def _word(raw: str) -> str:
    return re.sub(r"\([a-z]+\)$", "", raw).lower()


def groups(data_file: Path, ranks: dict[tuple[str, str], int]) -> list[list[str]]:
    """The synsets of one WordNet data file as lists of their one-word members for which the synset is one of their
    SENSES most frequent senses; only those with two or more such members."""
    out: list[list[str]] = []
    for line in data_file.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line or line.startswith("  "):
            continue  # the licence header
        fields = line.split(" | ")[0].split()
        offset, n_words = fields[0], int(fields[3], 16)
        words: list[str] = []
        for k in range(n_words):
            raw = fields[4 + 2 * k]
            w = _word(raw)
            if "_" in w or "-" in w or w in words or raw[:1].isupper():  # a phrase, or a name ("Interahamwe")
                continue
            if ranks.get((w, offset), SENSES + 1) <= SENSES:
                words.append(w)
        if len(words) >= 2:
            out.append(sorted(words))
    return sorted(out)


def derived(data_file: Path, ranks: dict[tuple[str, str], int], offsets: dict[str, dict[str, list[str]]]) -> set[tuple[str, str]]:
    """The one-word pairs of WordNet's derivation pointers ("+", between word senses: "object" / "objection", "head" /
    "header") from one data file, where the sense is one of the three most frequent of both words (the target's rank
    read from its own part of speech's index). `offsets` is {pos letter: {synset offset: raw words}} of every file."""
    out: set[tuple[str, str]] = set()
    for line in data_file.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line or line.startswith("  "):
            continue
        fields = line.split(" | ")[0].split()
        offset, n_words = fields[0], int(fields[3], 16)
        raws = [fields[4 + 2 * k] for k in range(n_words)]
        at = 4 + 2 * n_words
        for k in range(int(fields[at])):
            sym, target, pos, st = fields[at + 1 + 4 * k : at + 5 + 4 * k]
            if sym != "+" or st == "0000":
                continue
            i, j = int(st[:2], 16), int(st[2:], 16)
            tgt = offsets.get(pos, {}).get(target)
            if tgt is None or i > len(raws) or j > len(tgt[0]):
                continue
            ra, rb = raws[i - 1], tgt[0][j - 1]
            a, b = _word(ra), _word(rb)
            if "_" in a + b or "-" in a + b or a == b or ra[:1].isupper() or rb[:1].isupper():
                continue
            if ranks.get((a, offset), SENSES + 1) <= SENSES and tgt[1].get((b, target), SENSES + 1) <= SENSES:
                out.add((a, b) if a < b else (b, a))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--wordnet", default="/usr/share/wordnet", help="folder of WordNet 3.0's data.* and index.* files")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    wn = Path(args.wordnet)
    for pos in POS:
        for name in (f"data.{pos}", f"index.{pos}"):
            if not (wn / name).is_file():
                raise SystemExit(f"build_synonyms: {wn / name} not found; give --wordnet the folder of WordNet 3.0's files")
    table: dict[str, object] = {
        "source": "WordNet 3.0 (Debian package wordnet-base 1:3.0): synsets of data.noun, data.verb, data.adj and "
                  "data.adv, with the one-word members for which the synset is one of their three most frequent senses; "
                  "built by bench/build_synonyms.py",
        "license": LICENSE,
    }
    ranks = {pos: sense_ranks(wn / f"index.{pos}") for pos in POS}
    for pos, key in POS.items():
        table[key] = groups(wn / f"data.{pos}", ranks[pos])
    letters = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}
    offsets: dict[str, dict[str, tuple[list[str], dict]]] = {}
    for pos, letter in letters.items():
        got: dict[str, tuple[list[str], dict]] = {}
        for line in (wn / f"data.{pos}").read_text(encoding="utf-8", errors="replace").splitlines():
            if line and not line.startswith("  "):
                f = line.split(" | ")[0].split()
                got[f[0]] = ([f[4 + 2 * k] for k in range(int(f[3], 16))], ranks[pos])
        offsets[letter] = got
    offsets["s"] = offsets["a"]  # satellite adjectives live in data.adj
    pairs: set[tuple[str, str]] = set()
    for pos in POS:
        pairs |= derived(wn / f"data.{pos}", ranks[pos], offsets)  # type: ignore[arg-type]
    table["derived"] = sorted([a, b] for a, b in pairs)
    Path(args.out).write_text(json.dumps(table, separators=(",", ":"), ensure_ascii=False) + "\n", encoding="utf-8")
    print("build_synonyms: " + ", ".join(f"{len(table[k])} {k} groups" for k in POS.values())  # type: ignore[arg-type]
          + f", {len(table['derived'])} derivation pairs -> {args.out}")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
