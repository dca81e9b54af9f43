"""Build citefix/data/common_words.json: WordNet 3.0's one-word lemmas that WordNet never writes with a capital.

    apt-get download wordnet-base && dpkg-deb -x wordnet-base_*.deb wn     # Debian's WordNet 3.0 database
    .venv/bin/python -m builders.build_common_words --wordnet wn/usr/share/wordnet

WordNet writes a proper noun's lemma with its capital in the data files ("Paris", "British", "Smith") and a common
word in lower case ("cinema", "develop"); a word with both kinds of sense ("smith" and "Smith", "china" and "China")
is left out. The offline verifier reads the list to tell a common word that the tagger took for a name from a name the
entity recogniser missed: "Develop" opening a list item ("Develop data governance policies: …"), "cinema" in a
lower-cased summary ("cinema giant imax …"). Such a word is then checked like any other content word (in form or in
meaning) instead of capping the unit as an invented name. Nothing is fitted to any dataset.
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from builders.build_antonyms import LICENSE

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "citefix" / "data" / "common_words.json"


def lemmas(data_file: Path) -> tuple[set[str], set[str]]:
    """(lemmas written in lower case, lemmas written with a capital, lower-cased) of one WordNet data file."""
    low: set[str] = set()
    cap: set[str] = set()
    for line in data_file.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line or line.startswith("  "):
            continue  # the licence header
        fields = line.split(" | ")[0].split()
        for k in range(int(fields[3], 16)):
            word = re.sub(r"\([a-z]+\)$", "", fields[4 + 2 * k])
            if not re.fullmatch(r"[A-Za-z]+", word):
                continue  # multi-word lemmas ("_"), hyphens, digits, abbreviations with dots
            (low if word == word.lower() else cap).add(word.lower())
    return low, cap


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--wordnet", default="/usr/share/wordnet", help="folder with WordNet 3.0's data.* files")
    ap.add_argument("--out", default=str(OUT))
    args = ap.parse_args()
    wn = Path(args.wordnet)
    low: set[str] = set()
    cap: set[str] = set()
    for pos in ("noun", "verb", "adj", "adv"):
        path = wn / f"data.{pos}"
        if not path.is_file():
            raise SystemExit(f"build_common_words: {path} not found; give --wordnet the folder of WordNet 3.0's data files")
        lo, ca = lemmas(path)
        low |= lo
        cap |= ca
    words = sorted(w for w in low - cap if len(w) > 1)
    table = {
        "source": "WordNet 3.0 (Debian package wordnet-base 1:3.0): one-word lemmas of data.noun, data.verb, data.adj and "
                  "data.adv written only in lower case (no sense written with a capital); built by "
                  "builders/build_common_words.py",
        "license": LICENSE,
        "words": words,
    }
    Path(args.out).write_text(json.dumps(table, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"build_common_words: {len(words)} words written to {args.out}")


if __name__ == "__main__":
    main()
