"""Words of one meaning: WordNet 3.0's synonyms by shared sense (citefix/data/synonyms.json, built by
builders/build_synonyms.py; WordNet's licence travels in the file).

Two words are read as one meaning when they share a synset that is one of the three most frequent senses of each
("rest" / "remainder", "shut" / "close", "plan" / "design"), and words of one family as WordNet derives them
("object" / "objection"). A group may hold short phrases ("disappoint, let down", "continue, carry on"): they are
looked up as runs of words, by form or by lemma, in the unit and in the sources. The offline verifier asks one
question of it: is a content word of a unit, which no source word matches in form, a word the sources say in other
words (alone, or in a phrase it stands in)? A paraphrase ("council reserves covering the rest" for "the remainder
coming from council reserves", "members were let down" for "members were disappointed") is then no invented word, no
missing word, and not an unaligned one (``floor_held``). Nothing here is fitted to any data set.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
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


def derived_words(word: str) -> frozenset[str]:
    """The words of `word`'s WordNet family ("reduction" → {"reduce", …}); empty for a word with none."""
    return _derived().get(word, frozenset())


def load_tables() -> None:
    """Read and index the table now (each part is read once per process)."""
    _table()
    _derived()
    _longest()


@lru_cache(maxsize=1)
def _longest() -> int:
    """The most words of a phrase member of the table ("come to light": 3)."""
    return max((w.count(" ") + 1 for part in _table().values() for w in part), default=1)


def _phrases(seq: Sequence[tuple[str, str]], joined: Sequence[bool] | None = None,
             prep: Sequence[bool] | None = None) -> dict[int, frozenset[int]]:
    """{word index: the synonym groups of the table's phrases that cover it} for a run of words given as (lower form,
    lemma); a phrase matches on its forms or on its lemmas ("were let down": "let down"; "came to light": "come to
    light"). `joined[i]` False: word i and word i + 1 stand apart (punctuation between them), and no phrase spans them.
    `prep[i]` True: word i is a preposition (tagged IN, not a particle), and no phrase ends on it: "born on Marrow
    Island" is no "bear on" (concern), "let down" and "carry on" end on a particle."""
    out: dict[int, set[int]] = {}
    longest = _longest()
    for i in range(len(seq)):
        for k in range(2, longest + 1):
            if i + k > len(seq) or (joined is not None and not all(joined[i:i + k - 1])):
                break
            if prep is not None and prep[i + k - 1]:
                continue
            run = seq[i:i + k]
            found = senses(" ".join(w for w, _ in run)) | senses(" ".join(lem for _, lem in run))
            if found:
                for j in range(i, i + k):
                    out.setdefault(j, set()).update(found)
    return {j: frozenset(g) for j, g in out.items()}


def source_phrases(words_at: Sequence[tuple[int, str, str]], text: str, preps: set[int]) -> frozenset[int]:
    """The synonym groups of every phrase member of the table that a source (its words as (offset, lower form, lemma),
    punctuation left out, and the offsets of its prepositions) holds; a phrase does not run over punctuation between
    two words of `text`, nor end on a preposition."""
    seq = [(w, lem) for _, w, lem in words_at]
    joined = [not text[a + len(w):b].strip() for (a, w, _), (b, _, _) in zip(words_at, words_at[1:])]
    found: set[int] = set()
    for g in _phrases(seq, joined, [a in preps for a, _, _ in words_at]).values():
        found |= g
    return frozenset(found)


def _doc_phrases(doc) -> dict[int, frozenset[int]]:
    """``_phrases`` of a spaCy doc (its punctuation breaks a phrase), computed once per doc."""
    got = doc.user_data.get("citefix_phrases")
    if got is None:
        got = doc.user_data["citefix_phrases"] = _phrases([(t.lower_, t.lemma_.lower()) for t in doc],
                                                          prep=[t.tag_ == "IN" for t in doc])
    return got


def phrase_senses_at(token) -> frozenset[int]:
    """The synonym groups of the table's phrases that a spaCy token stands in ("put" of "put off")."""
    return _doc_phrases(token.doc).get(token.i, frozenset())


def said_otherwise(token, pool) -> bool:
    """Do the sources hold this spaCy token's meaning in other words: a synonym of its lemma or form (in its part of
    speech), or a word of its family ("objecting" / "objections")? `pool` has `senses()` (the sources' synonym
    groups) and `words` / `lemmas` (their lower-cased forms and lemmas)."""
    lemma, form = token.lemma_.lower(), token.lower_
    if (senses(lemma, token.pos_) | senses(form, token.pos_)) & pool.senses():
        return True
    if phrase_senses_at(token) & pool.senses():
        return True  # a phrase it stands in: "let down" where the sources say "disappointed"
    derived = _derived()
    family = derived.get(lemma, frozenset()) | derived.get(form, frozenset())
    return any(w in pool.lemmas or w in pool.words for w in family)


class Bag:
    """The words and lemmas of a stretch of source text (an evidence region), with their synonym groups, in the shape
    `said_otherwise` reads."""

    def __init__(self, seq, phrases: frozenset[int] = frozenset()) -> None:
        self.words = {w for _, w, _ in seq}
        self.lemmas = {lem for _, _, lem in seq}
        self.phrases = phrases  # the synonym groups of its phrases (``source_phrases``)
        self._senses: frozenset[int] | None = None

    def senses(self) -> frozenset[int]:
        if self._senses is None:
            self._senses = senses_of(self.words | self.lemmas) | self.phrases
        return self._senses


def floor_held(cos: list[float], offsets, tokens, held, floor: float) -> list[float]:
    """Each word piece's best cosine to the source tokens, raised to `floor` (the token threshold: the cosine at which
    a piece counts as aligned) for the pieces of the content words `tokens` for which `held(token)` is true: words the
    sources (or the evidence region) hold in the same form, lemma or family, or as a synonym. The contextual embedding
    of a word piece is a noisy proxy for the word being there ("objecting" against "objections": "##ing" aligns to
    nothing); where the words say it is there, the piece is not scored as unaligned."""
    spans = [(t.idx, t.idx + len(t.text)) for t in tokens if held(t)]
    if not spans:
        return cos
    return [max(c, floor) if e > s and any(s < b and e > a for a, b in spans) else c
            for (s, e), c in zip(offsets, cos)]
