"""Build citefix/data/synonyms.json: WordNet 3.0's synonyms (words and short phrases), by shared sense, for nouns, verbs, adjectives and
adverbs.

    apt-get install wordnet-base      # or: apt-get download wordnet-base && dpkg-deb -x wordnet-base_*.deb wn
    .venv/bin/python -m builders.build_synonyms --wordnet /usr/share/wordnet

A WordNet synset is one meaning and the words that can say it ("remainder, balance, residual, residue, rest"). The
offline verifier reads two words as one meaning when they share a synset that is one of the three most frequent senses
of each (the order of index.POS, by tagged frequency; the same rule as the antonym table of builders/build_antonyms.py):
a rare sense would make a common word the synonym of words it does not mean in ordinary text ("rest" is also "stay",
"lie", "repose" in rarer senses). One-word members are kept, and phrases of two to four plain words ("let down" in
"disappoint, let down", "by chance" in "by chance, accidentally", "carry on" in "continue, go on, carry on", written
with spaces; the verifier looks them up as runs of words in the text and in the sources), lower-cased, adjective
position markers removed, names (a capitalised member) and hyphenated members left out; a synset keeps the members for which it is such a sense, and is written only where two or more remain. The
licence of WordNet travels with the table. Nothing is fitted to any data set.

Words of one family are read as one meaning too: WordNet's derivation pointers ("+") link word senses across parts of
speech ("object" / "objection", "head" / "header"); a pair is kept under the same three-senses rule on both sides.

The table is a list of groups per part of speech and a list of derivation pairs; the verifier maps each word to the
groups it belongs to and to the words it derives from or to.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Iterator

from builders.build_antonyms import LICENSE, SENSES, _word, sense_ranks  # one licence, one word form, one sense rule

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "citefix" / "data" / "synonyms.json"
POS = ("noun", "verb", "adj", "adv")
LETTERS = {"noun": "n", "verb": "v", "adj": "a", "adv": "r"}  # the part-of-speech letters of WordNet's pointers


def synsets(data_file: Path) -> Iterator[tuple[str, list[str], list[tuple[str, str, str, str]]]]:
    """(offset, raw member words, pointers as (symbol, target offset, target pos letter, source/target numbers)) of
    each synset line of one WordNet data file."""
    for line in data_file.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line or line.startswith("  "):
            continue  # the licence header
        fields = line.split(" | ")[0].split()
        n_words = int(fields[3], 16)
        at = 4 + 2 * n_words
        pointers = [tuple(fields[at + 1 + 4 * k : at + 5 + 4 * k]) for k in range(int(fields[at]))]
        yield fields[0], [fields[4 + 2 * k] for k in range(n_words)], pointers  # type: ignore[misc]


def _kept(raw: str) -> bool:
    """A one-word member that is no name ("Interahamwe") and no phrase."""
    w = _word(raw)
    return "_" not in w and "-" not in w and not raw[:1].isupper()


MAX_PHRASE = 4  # words in a phrase member ("come to light", "by chance", "let down", "carry on")


def _phrase(raw: str) -> bool:
    """A member of two to MAX_PHRASE plain words ("let_down", "by_chance"), no name, no hyphen or other mark."""
    w = _word(raw)
    parts = w.split("_")
    return 2 <= len(parts) <= MAX_PHRASE and all(p.isalpha() for p in parts) and not raw[:1].isupper()


def groups(data_file: Path, ranks: dict[tuple[str, str], int]) -> list[list[str]]:
    """The synsets of one WordNet data file as lists of their one-word and phrase members for which the synset is one of their
    SENSES most frequent senses; only those with two or more such members."""
    out: list[list[str]] = []
    for offset, raws, _ in synsets(data_file):
        words: list[str] = []
        for raw in raws:
            w = _word(raw)
            if (_kept(raw) or _phrase(raw)) and ranks.get((w, offset), SENSES + 1) <= SENSES:
                w = w.replace("_", " ")
                if w not in words:
                    words.append(w)
        if len(words) >= 2:
            out.append(sorted(words))
    return sorted(out)


def derived(data_file: Path, ranks: dict[tuple[str, str], int],
            members: dict[str, dict[str, tuple[list[str], dict[tuple[str, str], int]]]]) -> set[tuple[str, str]]:
    """The one-word pairs of WordNet's derivation pointers ("+", between word senses: "object" / "objection", "head" /
    "header") from one data file, where the sense is one of the three most frequent of both words (the target's rank
    read from its own part of speech's index). `members` is {pos letter: {offset: (raw words, that pos's ranks)}}."""
    out: set[tuple[str, str]] = set()
    for offset, raws, pointers in synsets(data_file):
        for sym, target, pos, st in pointers:
            if sym != "+" or st == "0000":
                continue
            i, j = int(st[:2], 16), int(st[2:], 16)
            tgt = members.get(pos, {}).get(target)
            if tgt is None or i > len(raws) or j > len(tgt[0]):
                continue
            ra, rb = raws[i - 1], tgt[0][j - 1]
            a, b = _word(ra), _word(rb)
            if not (_kept(ra) and _kept(rb)) or a == b:
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
                  "data.adv, with the one-word and phrase members (two to four words) for which the synset is one of their three most frequent senses; "
                  "built by builders/build_synonyms.py",
        "license": LICENSE,
    }
    ranks = {pos: sense_ranks(wn / f"index.{pos}") for pos in POS}
    for pos in POS:
        table[pos] = groups(wn / f"data.{pos}", ranks[pos])
    members = {LETTERS[pos]: {off: (raws, ranks[pos]) for off, raws, _ in synsets(wn / f"data.{pos}")} for pos in POS}
    members["s"] = members["a"]  # satellite adjectives live in data.adj
    pairs: set[tuple[str, str]] = set()
    for pos in POS:
        pairs |= derived(wn / f"data.{pos}", ranks[pos], members)
    table["derived"] = sorted([a, b] for a, b in pairs)
    Path(args.out).write_text(json.dumps(table, separators=(",", ":"), ensure_ascii=False) + "\n", encoding="utf-8")
    print("build_synonyms: " + ", ".join(f"{len(table[k])} {k} groups" for k in POS)  # type: ignore[arg-type]
          + f", {len(table['derived'])} derivation pairs -> {args.out}")  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
