"""Searches of the whole source on behalf of one unit: whether a contradiction read on the evidence region is
explained elsewhere (the unit's verb with its polarity and words, the unit's name with its words, the unit's words
copied word for word). Used by citefix.verify.offline_signals."""

from __future__ import annotations

import bisect
import re
from typing import Any, Iterable

from citefix.verify.lexical import find_numbers
from citefix.verify.local import CLAUSE_REACH, region_words
from citefix.verify.negation import NEG_WORDS, source_negated, word_pauses
from citefix.verify.offline_sources import Host, _Pool
from citefix.verify.predication import predication_tokens, states_predication

# Heads too common to anchor a name or number to a sentence (light verbs and verbs of saying).
_LIGHT_HEADS = set(
    "be have do say tell add make take get go come give see know think claim state report announce warn insist "
    "argue explain confirm deny believe suggest write note reveal admit stress".split()
)
# A unit whose words stand, word for word and in order, in a source is a copy when it has at least this many: shorter
# runs ("he said that", "it was the") occur in every text and prove nothing.
COPY_MIN_WORDS = 5
# A compression leaves out at most two stretches inside the sentence (a light edit or two, besides whatever it drops
# before or after); words gathered from more places are a new sentence made of the source's words, not a compression.
COMPRESSION_RUNS = 3


def _piece_at(src: Any, pos: int) -> list[tuple[int, str, str]]:
    """The words (offset, lower, lemma) of the sentence piece of `src` that holds offset `pos`."""
    return region_words(src.words_at, *_piece_bounds(src, pos))


def _piece_bounds(src: Any, pos: int) -> tuple[int, int]:
    """The [start, end) offsets of the sentence piece of `src` that holds offset `pos`."""
    ps = src.piece_starts or [0]
    p = max(0, bisect.bisect_right(ps, pos) - 1)
    return ps[p], ps[p + 1] if p + 1 < len(ps) else len(src.text)


def polarity_elsewhere(doc, mismatch: dict[str, Any], pool: _Pool, parse=None) -> bool:
    """Does some source sentence piece hold the mismatched verb (by lemma) with the unit's polarity, together with
    every other content word of the unit (by form or lemma) within CLAUSE_REACH words of it? The same negation
    cues as the region check. With `parse` (texts → their spaCy docs), where the unit's verb has a predication of
    its own, the piece's verb must state that predication's words in its own (citefix.verify.predication
    ``states_predication``), as the region's occurrences are matched (``same_predication``)."""
    verb = next((t for t in doc if t.idx == mismatch["start"]), None)
    if verb is None:
        return False
    need = [(t.lower_, t.lemma_.lower()) for t in doc
            if t.i != verb.i and t.is_alpha and not t.is_stop and t.pos_ in ("NOUN", "PROPN", "ADJ", "VERB", "ADV")]
    if not need:
        return False  # "it rained": nothing beside the verb pins the sentence
    lemma, u_neg = verb.lemma_.lower(), bool(mismatch.get("unit_negated"))
    for src in pool.sources:
        words = src.words_at
        for k, (pos, _w, lem) in enumerate(words):
            if lem != lemma or source_negated(words, k, word_pauses(words, src.text, k - 2, k + 1)) != u_neg:
                continue
            if parse is not None and predication_tokens(verb):
                said = _said_on_parse(verb, src, pos, parse)
                if said is not None:
                    if said:
                        return True
                    continue
            piece = _piece_at(src, pos)
            # the verb's own clause: the unit's other words near it, not anywhere in a long sentence
            at = next((j for j, w in enumerate(piece) if w[0] == pos), 0)
            piece = piece[max(0, at - CLAUSE_REACH):at + CLAUSE_REACH + 1]
            forms = {w for _, w, _ in piece} | {lm for _, _, lm in piece}
            if all(w in forms or lm in forms for w, lm in need):
                return True
    return False


def _said_on_parse(verb, src: Any, pos: int, parse) -> bool | None:
    """Does the source's word at `pos`, read on the parse of its sentence piece, state the unit verb's predication?
    None where the parse splits the piece otherwise (no token starts at `pos`)."""
    a, b = _piece_bounds(src, pos)
    docs = parse([src.text[a:b]])
    tok = next((t for t in docs[0] if t.idx == pos - a), None) if docs else None
    return None if tok is None else states_predication(verb, tok)


def said_with_name(doc, sub: dict[str, Any], pool: _Pool) -> bool:
    """Does some source sentence piece holding the unit's own name hold all the unit's words, name included, in
    order (words only the source has may stand between)? Then the name stands where the source puts it, and the
    region sentence with another name is a look-alike ("Gus Mafuta (Gateshead) is shown the yellow card." beside "Simon
    Walton (Guiseley) is shown the yellow card.")."""
    words = [t.lower_ for t in doc if not (t.is_space or t.is_punct)]
    first = sub["text"].split()[0].lower() if sub["text"].split() else ""
    for src in pool.sources:
        for pos, w, _ in src.words_at:
            if w != first:
                continue
            piece = iter([x for _, x, _ in _piece_at(src, pos)])
            if all(any(x == u for x in piece) for u in words):  # a subsequence: the iterator is consumed
                return True
    return False


def one_bearer(finding: dict[str, Any], pool: _Pool, parse) -> bool:
    """Do the unit's name and the evidence's other name stand side by side as one name in a source ("Ashbury Rovers":
    "Rovers manager" where the evidence says "Ashbury manager"; "Clara Penhallow": "Clara" / "Penhallow")? Then they
    are two words of one bearer's name, not two bearers. One name in the parse of the source's sentence (`parse`:
    texts → their spaCy docs): one entity, or one word a compound of the other — not two names a lost full stop put
    side by side ("… chose Arsenal Sanchez has made …")."""
    a, b = str(finding.get("text") or "").strip(), str(finding.get("evidence") or "").strip()
    if not a or not b or a.lower() == b.lower() or not (a[:1].isupper() and b[:1].isupper()):
        return False
    pair = re.compile(rf"(?<!\w)(?:{re.escape(a)}\s+{re.escape(b)}|{re.escape(b)}\s+{re.escape(a)})(?!\w)")
    for src in pool.sources:
        for m in pair.finditer(src.text):
            lo, hi = next(((x, y) for x, y in src.sentence_bounds() if x <= m.start() < y), (0, len(src.text)))
            doc = parse([src.text[lo:hi]])[0]
            toks = [t for t in doc if m.start() - lo <= t.idx < m.end() - lo and not t.is_space]
            if len(toks) >= 2 and (any(all(e.start <= t.i < e.end for t in toks) for e in doc.ents)
                                   or all(t.dep_ in ("compound", "flat") and t.head.i in {x.i for x in toks}
                                          for t in toks[:-1])):
                return True
    return False


def copied(doc, pool: _Pool, min_words: int = COPY_MIN_WORDS) -> bool:
    """Does the unit's whole text (its words, punctuation left out; at least `min_words`) stand word for word in one
    of the sources?"""
    return copy_at(doc, pool, min_words) is not None


def copy_at(doc, pool: _Pool, min_words: int = COPY_MIN_WORDS) -> tuple[int, int] | None:
    """Where the unit's whole text (its words, punctuation left out; at least `min_words`) first stands word for word
    in a source: (source index, character offset of its first word), or None."""
    words = [t.lower_ for t in doc if not (t.is_space or t.is_punct)]
    if len(words) < min_words:
        return None
    needle = "\0" + "\0".join(words) + "\0"
    for si, src in enumerate(pool.sources):
        hay = src.joined()
        at = hay.find(needle)
        if at >= 0:
            return si, src.words_at[hay.count("\0", 0, at)][0]  # the k-th NUL opens the k-th word (from 0)
    return None


def copy_host(doc, pool: _Pool) -> Host | None:
    """``copy_at`` as a Host: the source sentence holding the copy's first word (a copy may run on past it) and whether
    the copy keeps that sentence's negations; a copy leaves no number out."""
    at = copy_at(doc, pool)
    if at is None:
        return None
    src = pool.sources[at[0]]
    a, b = _sentence_of(src, at[1])
    first = bisect.bisect_left(src.words_at, at[1], key=lambda w: w[0])
    n = sum(1 for t in doc if not (t.is_space or t.is_punct))
    return Host(at[0], at[1], a, b, keeps_negations(src, a, b, range(first, first + n)), True)


def compression_at(doc, pool: _Pool, min_words: int = COPY_MIN_WORDS, max_runs: int = COMPRESSION_RUNS
                   ) -> Host | None:
    """Where the unit's words (punctuation left out; at least `min_words`) all stand, in order, inside one source
    sentence, in at most `max_runs` unbroken runs, with no more words left out between the first and the last than
    kept: a compression of that sentence ("Whitney Houston took home …" from "Whitney Houston also took home …", "X is
    seen in this photo" from "X, the second governor, is seen in this photo"), or None. The Host says too whether every
    negation of the sentence is among the words kept, and whether no number was left out between the first word kept
    and the last. A word-for-word copy is the one-run case."""
    words = [t.lower_ for t in doc if not (t.is_space or t.is_punct)]
    if len(words) < min_words:
        return None
    for si, src in enumerate(pool.sources):
        wa = src.words_at
        for k, (pos, w, _) in enumerate(wa):
            if w != words[0]:
                continue
            a, b = _sentence_of(src, pos)
            matched = _subsequence(words, wa, k, b)
            if matched is None:
                continue
            runs = 1 + sum(1 for x, y in zip(matched, matched[1:]) if y != x + 1)
            kept = set(matched)
            dropped = [wa[m][1] for m in range(matched[0], matched[-1] + 1) if m not in kept]
            if runs <= max_runs and len(dropped) <= len(matched):
                return Host(si, pos, a, b, keeps_negations(src, a, b, kept),
                            not any(not n.soft for n in find_numbers(" ".join(dropped))))
    return None


BAG_SHARE = 0.8  # of a text sentence's content words that one source sentence must hold to locate it


def bag_host(doc, pool: _Pool, min_words: int = COPY_MIN_WORDS, share: float = BAG_SHARE) -> Host | None:
    """The one source sentence that holds nearly all (`share`) of the content words of the unit's text sentence
    (names included; at least `min_words`), in any order ("Stanford attended Cofounder Jon Kraft and holds a B.A. in
    human biology." / "Cofounder Jon Kraft also attended Stanford and holds …"), when no other holds as many: a Host
    that locates the units cut from that text sentence there, where their own few words ("attended", names left out)
    align as well to any sentence that says "attended". It vouches for nothing: the order of the words, and so who did
    what, may be the very change the checks of that sentence are there to find (keeps_negations, keeps_numbers
    False)."""
    from spacy.lang.en.stop_words import STOP_WORDS

    words = {t.lower_ for t in doc if (t.is_alpha or t.like_num) and t.lower_ not in STOP_WORDS}
    if len(words) < min_words:
        return None
    hits = [(len(words & sw), si, a, b) for si, src in enumerate(pool.sources) for a, b, sw in src.sentence_words()]
    hits = sorted((h for h in hits if h[0] >= share * len(words)), reverse=True)
    if not hits or (len(hits) > 1 and hits[1][0] == hits[0][0]):
        return None  # none, or two sentences alike: the words do not tell which
    _, si, a, b = hits[0]
    src = pool.sources[si]
    first = bisect.bisect_left(src.words_at, a, key=lambda w: w[0])
    at = src.words_at[first][0] if first < len(src.words_at) else a
    return Host(si, at, a, b, False, False)


def _sentence_of(src: Any, pos: int) -> tuple[int, int]:
    """Start and end of the source sentence (``sentence_starts``) holding offset `pos`."""
    starts = src.sentence_starts or [0]
    s = max(0, bisect.bisect_right(starts, pos) - 1)
    return starts[s], starts[s + 1] if s + 1 < len(starts) else len(src.text)


def keeps_negations(src: Any, a: int, b: int, kept: Iterable[int]) -> bool:
    """Are all the negation words of the source sentence [a, b) among the words kept (indices into src.words_at)?
    Then a copy or compression of it cannot have turned a predicate's polarity round."""
    keep = set(kept)
    wa = src.words_at
    lo = bisect.bisect_left(wa, a, key=lambda w: w[0])
    hi = bisect.bisect_left(wa, b, key=lambda w: w[0])
    return not any(wa[k][1] in NEG_WORDS for k in range(lo, hi) if k not in keep)


def _subsequence(words: list[str], wa: list[tuple[int, str, str]], k: int, end: int) -> list[int] | None:
    """Indices into `wa` (from k, offsets below `end`) of `words` matched in order, leftmost first, or None."""
    out, j, m = [k], 1, k + 1
    while j < len(words) and m < len(wa) and wa[m][0] < end:
        if wa[m][1] == words[j]:
            out.append(m)
            j += 1
        m += 1
    return out if j == len(words) else None


def anchored_test(doc, pool: _Pool):
    """A test for a stretch of the unit: does some source sentence piece hold both its words and the content word it
    hangs on in the unit's parse (its head, or the head's head past a preposition)? "a £2.4 million plan" is anchored
    by "… the plan, which will cost £2.4 million" even when that sentence is not the unit's evidence; a name swapped
    in from an unrelated sentence is not. A number must stand within CLAUSE_REACH words of that word with no other
    number between them: "three ferries and two cargo boats" does not anchor "three freight boats"."""
    pieces: list[list[tuple[str, str]]] = []
    for src in pool.sources:
        ps = src.piece_starts or [0]
        per: list[list[tuple[str, str]]] = [[] for _ in ps]
        for pos, w, lem in src.words_at:
            per[max(0, bisect.bisect_right(ps, pos) - 1)].append((w, lem))
        pieces.extend(per)
    sets = [({w for w, _ in p}, {lm for _, lm in p}) for p in pieces]

    def test(a: int, b: int) -> bool:
        toks = [t for t in doc if t.idx < b and t.idx + len(t.text) > a and not t.is_punct]
        if not toks:
            return False
        inside = {t.i for t in toks}
        head = next((t.head for t in toks if t.head.i not in inside), None)
        while head is not None and head.pos_ in ("ADP", "AUX", "DET", "PART") and head.head.i != head.i:
            head = head.head
        if head is None or head.i in inside or not head.is_alpha:
            return False
        hw, hl = head.lower_, head.lemma_.lower()
        if hl in _LIGHT_HEADS:
            return False  # "X said", "X is": every other sentence has one; they anchor nothing
        need = [(t.lower_, t.lemma_.lower()) for t in toks if t.is_alpha or t.like_num]
        nums = {t.lower_ for t in toks if t.like_num}
        for (words, lemmas), piece in zip(sets, pieces):
            if not ((hw in words or hl in lemmas) and all(w in words or lem in lemmas for w, lem in need)):
                continue
            if not nums or _number_near(piece, nums, hw, hl):
                return True
        return False

    return test


def _number_near(piece: list[tuple[str, str]], nums: set[str], hw: str, hl: str) -> bool:
    """Does one of the numbers `nums` stand within CLAUSE_REACH words of the head word in `piece`, with no other
    number between them?"""
    heads = [k for k, (w, lm) in enumerate(piece) if w == hw or lm == hl]
    for k, (w, _) in enumerate(piece):
        if w not in nums:
            continue
        for h in heads:
            lo, hi = sorted((k, h))
            if hi - lo <= CLAUSE_REACH and not any(_like_num(x) and x not in nums for x, _ in piece[lo + 1:hi]):
                return True
    return False


def _like_num(word: str) -> bool:
    from spacy.lang.en.lex_attrs import like_num

    return bool(like_num(word))
