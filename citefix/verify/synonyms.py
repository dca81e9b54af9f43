"""Words of one meaning: WordNet 3.0's synonyms by shared sense (citefix/data/synonyms.json, built by
bench/build_synonyms.py; WordNet's licence travels in the file).

Two words are read as one meaning when they share a synset that is one of the three most frequent senses of each
("rest" / "remainder", "shut" / "close", "plan" / "design"), and words of one family as WordNet derives them
("object" / "objection"). The offline verifier uses it for one question only: is a
content word of a unit, which no source word matches in form, a word the sources say in other words? A paraphrase
("council reserves covering the rest" for "the remainder coming from council reserves") is then no invented word.
Nothing here is fitted to any data set.
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources

# spaCy's coarse part of speech → the table's part of speech (WordNet has no others)
_POS = {"NOUN": "noun", "VERB": "verb", "AUX": "verb", "ADJ": "adj", "ADV": "adv"}


@lru_cache(maxsize=1)
def _raw() -> dict:
    """citefix/data/synonyms.json, read once."""
    return json.loads(resources.files("citefix").joinpath("data/synonyms.json").read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _table() -> dict[str, dict[str, frozenset[int]]]:
    """{part of speech: {word: the ids of its groups}}; group ids are unique across parts of speech."""
    raw = _raw()
    out: dict[str, dict[str, frozenset[int]]] = {}
    gid = 0
    for pos in ("noun", "verb", "adj", "adv"):
        table: dict[str, set[int]] = {}
        for group in raw[pos]:
            for w in group:
                table.setdefault(w, set()).add(gid)
            gid += 1
        out[pos] = {w: frozenset(g) for w, g in table.items()}
    return out


def senses(word: str, pos: str | None = None) -> frozenset[int]:
    """The synonym groups of a lower-cased word (a lemma or a form), in one spaCy part of speech or (None) in any."""
    table = _table()
    if pos is None:
        found: set[int] = set()
        for part in table.values():
            found |= part.get(word, frozenset())
        return frozenset(found)
    key = _POS.get(pos)
    return table[key].get(word, frozenset()) if key else frozenset()


def senses_of(words: set[str]) -> frozenset[int]:
    """Every synonym group of any of these lower-cased words, in any part of speech (a source's words and lemmas)."""
    out: set[int] = set()
    for w in words:
        out |= senses(w)
    return frozenset(out)


@lru_cache(maxsize=1)
def _derived() -> dict[str, frozenset[str]]:
    """{word: the words of its family}: WordNet's derivation pairs ("object" / "objection"), both ways."""
    out: dict[str, set[str]] = {}
    for a, b in _raw().get("derived", []):
        out.setdefault(a, set()).add(b)
        out.setdefault(b, set()).add(a)
    return {w: frozenset(x) for w, x in out.items()}


def said_otherwise(token, pool) -> bool:
    """Do the sources hold this spaCy token's meaning in other words: a synonym of its lemma or form (in its part of
    speech), or a word of its family ("objecting" / "objections")? `pool` has `senses()` (the sources' synonym
    groups) and `words` / `lemmas` (their lower-cased forms and lemmas)."""
    lemma, form = token.lemma_.lower(), token.lower_
    if (senses(lemma, token.pos_) | senses(form, token.pos_)) & pool.senses():
        return True
    derived = _derived()
    family = derived.get(lemma, frozenset()) | derived.get(form, frozenset())
    return any(w in pool.lemmas or w in pool.words for w in family)
