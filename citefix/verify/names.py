"""Name substitutions: a name of a unit standing, word for word, where a sentence of its evidence region has another
name ("developed by the BBC, has been" / "developed by the OU, has been"). One of the local evidence checks of the
offline verifier (citefix.verify.local); pure functions over spaCy docs.
"""

from __future__ import annotations

import difflib
from functools import lru_cache
from typing import Any, Container, Sequence

from citefix.lexicon import NAME_LABELS
from citefix.verify.local import copied_between, copies, in_focus, name_slot, one_anchor, same_value
from citefix.verify.times import date_words

SUBSTITUTION_CONTEXT = 3  # words copied around the slot, on both sides together (a sentence edge counts as a side)
_MAX_NAME_WORDS = 6


def _is_name(toks: Sequence[Any], known: Sequence[Container[str]] = ()) -> bool:
    """Are `toks` a name: proper nouns or words of a name entity, or capitalised words that the evidence writes as a
    name (`known`: the tagger read a sentence-initial "Brecon footage" as a common noun)?"""
    words = [t for t in toks if not t.is_punct]
    # a word with letters: a code such as "A36" or "M4" is a name, a number is not
    return (0 < len(words) <= _MAX_NAME_WORDS and any(c.isalpha() for t in words for c in t.text)
            and all(t.pos_ == "PROPN" or t.ent_type_ in NAME_LABELS or (t.text[:1].isupper() and any(t.text in k for k in known))
                    for t in words))


def _name_run(toks: Sequence[Any]) -> list[Any]:
    """The leading tokens that are name words (proper nouns or name entities), when the words after them carry
    content (the sentence goes on: "Dublin due to high winds"); else all of them, so that a name's own determiner
    still counts ("The Foxes" for "Leicester" stays a nickname, not a name put in another's place)."""
    run: list[Any] = []
    for t in toks:
        if t.pos_ == "PROPN" or t.ent_type_ in NAME_LABELS:
            run.append(t)
        else:
            break
    rest = toks[len(run):]
    # a conjunction is never part of a name ("And Ozil gave …" / "Liverpool gave …")
    if run and any((t.is_alpha and not t.is_stop) or t.pos_ in ("CCONJ", "SCONJ") for t in rest):
        return run
    return list(toks)


# titles that two different people share ("Mr Modi" / "Mr Jaitley"): not a word that makes two names one
_TITLES = set("mr mrs ms miss mx dr prof professor sir dame lord lady rev st".split())


def _abbreviates(short: Sequence[Any], full: Sequence[Any]) -> bool:
    """Is `short` the initials of `full` ("BBC" / "the British Broadcasting Corporation", "ASDF" / "Air Self Defense
    Force"): one name written two ways, not two names."""
    words = [t.text for t in short if t.is_alpha and not t.is_stop]
    if len(words) != 1 or not words[0].isupper() or len(words[0]) < 2:
        return False
    initials = "".join(t.text[0] for t in full if t.is_alpha and not t.is_stop and t.text[0].isupper())
    return words[0] == initials


def _name_words(toks: Sequence[Any]) -> set[str]:
    """The words that make a name this name: not titles, and not function words the entity takes in ("the", "of":
    "the UK Government" and "the EU … Committee" share no name word)."""
    return {t.lower_.rstrip(".") for t in toks
            if t.is_alpha and not t.is_stop and t.lower_.rstrip(".") not in _TITLES}


def _same_name(wa: Sequence[Any], wb: Sequence[Any]) -> bool:
    """Two whole names for one bearer: they share the last name word of one of them ("Mr Brown" / "David Brown",
    "Leicester" / "Leicester City"), or one abbreviates the other. A shared leading word alone is a title or a
    qualifier two bearers have in common ("Justice Minister Claire Sugden" / "Justice Minister Alan Turing", "Prince
    George" / "Prince Catherine", "Daily Mail Australia" / "Daily Mail Mexico")."""
    if _abbreviates(wa, wb) or _abbreviates(wb, wa):
        return True
    na, nb = _name_words(wa), _name_words(wb)
    shared = na & nb
    if not shared:
        return False
    heads = {_name_head(wa), _name_head(wb)} - {None}
    return not heads or bool(heads & shared)


def _letters(toks: Sequence[Any]) -> str:
    """A name's letters and digits, lower-cased: "u.s." and "U.S." (tokenised two ways) are one name."""
    return "".join(c for t in toks for c in t.lower_ if c.isalnum())


def _one_spelling(a: Sequence[Any], b: Sequence[Any]) -> bool:
    """Two names written one way: the same letters and digits ("u.s." / "U.S."), or one the other with a number
    joined on after its last letter ("COVID-19" / "COVID"). Two numbered names ("F-16" / "F-15", "F-16" / "F-1")
    stay two names: the shorter must end in a letter."""
    la, lb = _letters(a), _letters(b)
    if la == lb:
        return True
    short, long_ = sorted((la, lb), key=len)
    return (bool(short) and short[-1].isalpha() and long_.startswith(short)
            and long_[len(short):].isdigit())


def _name_head(toks: Sequence[Any]) -> str | None:
    """A name's last name word (the surname, the noun a proper name ends on), None when it has none."""
    for t in reversed(toks):
        w = t.lower_.rstrip(".")
        if t.is_alpha and not t.is_stop and w not in _TITLES:
            return w
    return None


def _whole_name(toks: Sequence[Any], i: int, j: int) -> list[Any]:
    """toks[i:j] widened over the name words right next to it: written as a name (capitalised) or inside a name
    entity; a lower-case word the tagger took for a proper noun ("The England international") is not a name word."""
    def name_word(t) -> bool:
        return _is_name([t]) and (t.text[:1].isupper() or t.ent_type_ in NAME_LABELS)

    while i > 0 and name_word(toks[i - 1]):
        i -= 1
    while j < len(toks) and name_word(toks[j]):
        j += 1
    return list(toks[i:j])


_ASIDE_MARKS = {",": ",", "-": "-", "–": "–", "—": "—", ")": "("}


def _drop_aside(toks: Sequence[Any]) -> list[Any]:
    """`toks` without what trails a name: an aside set off by commas, dashes or brackets, and a relative pronoun
    with its punctuation ("Carpenter - who usually wears a kilt … -" and "Carpenter - who" both end at
    "Carpenter"), which the unit's wording leaves out when it restates the name ("Derbyshire usually wears …")."""
    out = list(toks)
    while out:
        last = out[-1].text
        opener = _ASIDE_MARKS.get(last)
        p = next((m for m in range(len(out) - 2, 0, -1) if out[m].text == opener), None) if opener else None
        if p is not None:
            out = out[:p]
        elif out[-1].tag_ in ("WP", "WDT") or out[-1].is_punct:
            out = out[:-1]
        else:
            break
    return out


def _copied_around(ops: Sequence[tuple[str, int, int, int, int]], k: int) -> list[int]:
    """The positions of the unit's words around opcode k that are copied: the equal stretches right next to it, or,
    when every other word of the unit is copied in order, all of them (the summary left out words only the evidence
    has: "X said that [in the workshops,] children were taught")."""
    if _all_copied_but(ops, k):
        return [i for op in ops if op[0] == "equal" for i in range(op[1], op[2])]
    return [i for m in (k - 1, k + 1) if 0 <= m < len(ops) and ops[m][0] == "equal" for i in range(ops[m][1], ops[m][2])]


def _all_copied_but(ops: Sequence[tuple[str, int, int, int, int]], k: int) -> bool:
    """Is every word of the unit outside opcode k copied, in order (the evidence may hold more words)?"""
    return all(op[0] in ("equal", "insert") for m, op in enumerate(ops) if m != k)


def _in_parentheses(toks: Sequence[Any], j: int) -> bool:
    """Does token j open a bracket, or stand inside one opened before it in the same sentence?"""
    if j < len(toks) and toks[j].text.startswith("("):
        return True
    depth = 0
    for t in toks[:j]:
        depth += t.text.count("(") - t.text.count(")")
    return depth > 0


@lru_cache(maxsize=4096)
def _opcodes(a: tuple[str, ...], b: tuple[str, ...]) -> Sequence[tuple[str, int, int, int, int]]:
    """difflib's opcodes of two word sequences, kept: the name and the value checks of a unit align it to the same
    region sentences."""
    return difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes()


def _copy_slots(utoks: Sequence[Any], region_docs: Sequence[Any], context: int):
    """(sentence tokens, opcodes, k) for each replaced stretch k of the unit's words against a region sentence
    (difflib on lower-cased tokens) that the copy pins: the words next to it on each side copied unchanged (a sentence
    edge counts as a side, not both), and at least `context` copied words around it, one a content word."""
    uw = [t.lower_ for t in utoks]
    for rd in region_docs:
        for sent in getattr(rd, "sents", [rd]):
            stoks = [t for t in sent if not t.is_space]
            ops = _opcodes(tuple(uw), tuple(t.lower_ for t in stoks))
            for k, op in enumerate(ops):
                left = ops[k - 1] if k > 0 else None
                right = ops[k + 1] if k + 1 < len(ops) else None
                if op[0] != "replace" or (left is None and right is None) or any(
                        n is not None and n[0] != "equal" for n in (left, right)):
                    continue
                # enough words (punctuation is no word: "their son, Bear, was" / "and a son, Joe, with" copies "son"
                # alone), and a content word among them ("of … at the" is in every other sentence: "Curator of
                # Chinese Art at the Freer" / "Keeper of Asia (…) at the British")
                ctx = [i for i in _copied_around(ops, k) if not utoks[i].is_punct]  # words: commas pin nothing
                if len(ctx) >= context and any(utoks[i].is_alpha and not utoks[i].is_stop for i in ctx):
                    yield stoks, ops, k


def name_substitutions(doc, focus: Sequence[tuple[int, int]], region_docs: Sequence[Any],
                       context: int = SUBSTITUTION_CONTEXT, known: Container[str] = frozenset()) -> list[dict]:
    """Names of the focus that stand where a region sentence, copied word for word around them, has another name.

    The unit's words are aligned to each region sentence (difflib on lower-cased tokens); a replaced stretch counts
    when both sides are names (proper nouns or name entities) of two bearers (``_same_name``: "Mr Brown" / "David
    Brown" is the same man named two ways), the words next to it on each side are copied unchanged (a sentence edge
    counts as a side), and at least `context` copied words, one of them a content word, surround it: right next to
    it, or anywhere in the unit when all its other words are copied in order (words only the evidence has, which the
    summary left out, do not break the copy). This catches an entity taken from elsewhere in the article and put in another's place, which the
    region-level checks miss when the verb or role gives no handle. A unit's word counts as a name also when it is
    capitalised and the evidence writes it as a name or `known` holds it (words the source capitalises inside a
    sentence): the tagger often reads a sentence-initial name as a common noun ("Brecon footage showed …")."""
    utoks = [t for t in doc if not t.is_space]
    uw = [t.lower_ for t in utoks]
    out: list[dict] = []
    seen: set[int] = set()
    # words the evidence writes as names (`known`: the ones the source capitalises inside a sentence)
    in_region = {t.text for rd in region_docs for t in rd if t.pos_ == "PROPN" or t.ent_type_ in NAME_LABELS}
    names_known = (in_region, known)
    for stoks, ops, k in _copy_slots(utoks, region_docs, context):
        _, i1, i2, j1, j2 = ops[k]
        left = ops[k - 1] if k > 0 else None
        right = ops[k + 1] if k + 1 < len(ops) else None
        # an aside after the evidence's name, which the unit left out ("Nick Brown, London Underground's
        # chief operating officer, said" / "Val Shawcross said"): the name is the slot, unless the unit's
        # name is the one the aside gives ("London Underground said")
        kept = _drop_aside(stoks[j1:j2])
        if len(kept) < j2 - j1:
            if _name_words(utoks[i1:i2]) & _name_words(stoks[j1 + len(kept):j2]):
                continue
            j2 = j1 + len(kept)
        # a unit cut off right after (or before) the name: the sentence goes on past its name, so only the
        # name next to the copied words is the slot ("… between Holyhead and Wrexham" / "… and Dublin due to")
        if right is None and i2 == len(uw):
            j2 = j1 + len(_name_run(stoks[j1:j2]))
        elif left is None and i1 == 0:
            j1 = j2 - len(_name_run(stoks[j1:j2][::-1]))
        elif _all_copied_but(ops, k):
            # the summary left out what follows the evidence's name ("Senator [John Kerry] as US secretary
            # of state, Sheikh Salman said" / "Senator Hamad Sheikh Salman said"): the name is the slot
            j2 = j1 + len(_name_run(stoks[j1:j2]))
        a, b = utoks[i1:i2], stoks[j1:j2]
        if _in_parentheses(stoks, j1):
            continue  # the evidence's slot is an aside in brackets the unit left out ("Verve Records (Richie …)")
        if any(all(t.tag_ == "POS" or t.is_punct for t in side) for side in (a, b)):
            continue  # a possessive's "'s" stands in no name's place ("Fenwick & Hale's offices" / "Fenwick & Hale LLP")
        if not (_is_name(a, names_known) and _is_name(b)) or _one_spelling(a, b):
            continue  # not two names, or one name written two ways ("u.s." / "U.S.", "COVID-19" / "COVID")
        # the whole names: a copied name word next to the stretch belongs to it ("Mr Brown" / "David Brown")
        wa, wb = _whole_name(utoks, i1, i2), _whole_name(stoks, j1, j2)
        if _same_name(wa, wb):
            continue
        start, end = a[0].idx, a[-1].idx + len(a[-1].text)
        if start in seen or not in_focus(start, end, focus):
            continue
        seen.add(start)
        es, ee = b[0].idx, b[-1].idx + len(b[-1].text)  # in the region doc's text
        out.append({"kind": "substitution", "text": doc.text[start:end], "start": start, "end": end,
                    "evidence": b[0].doc.text[es:ee], "evidence_start": es, "evidence_end": ee})
    return out


_MAX_VALUE_WORDS = 3  # a value's slot: "five", "11", "September", "$4.5 million"


def _value_kind(toks: Sequence[Any]) -> str | None:
    """"date" when every word of the stretch names a month or a weekday, "number" when every word is a number (digits,
    number or ordinal words, with a currency or per-cent sign); else None (a stretch of more than a value)."""
    words = [t for t in toks if not t.is_punct]
    if not 0 < len(words) <= _MAX_VALUE_WORDS:
        return None
    text = words[0].doc.text[words[0].idx : words[-1].idx + len(words[-1].text)]
    if len(date_words(text)) == len(words):
        return "date"
    if any(t.like_num for t in words) and all(t.like_num or t.is_currency or t.text == "%" for t in words):
        return "number"
    return None


def value_substitutions(doc, focus: Sequence[tuple[int, int]], region_docs: Sequence[Any],
                        context: int = SUBSTITUTION_CONTEXT) -> list[dict]:
    """Numbers and dates of the focus that stand where a region sentence, copied word for word around them, has
    another value of the same kind: "won him six England caps" / "which won him five England caps", "over 13 years" /
    "over 11 years", "Friday, September 14" / "Friday, August 14". The same copy as for names (``_copy_slots``) pins
    the slot, so the parse need not hang both values on the same word (the tagger read "six England caps" as a
    compound, "five" as the number of "caps"), which the value-conflict check needs. One value written two ways
    ("5" / "five") is no substitution. Reported as a conflict with the evidence's value."""
    utoks = [t for t in doc if not t.is_space]
    out: list[dict] = []
    seen: set[int] = set()
    for stoks, ops, k in _copy_slots(utoks, region_docs, context):
        _, i1, i2, j1, j2 = ops[k]
        a, b = utoks[i1:i2], stoks[j1:j2]
        kind = _value_kind(a)
        if kind is None or _value_kind(b) != kind:
            continue
        start, end = a[0].idx, a[-1].idx + len(a[-1].text)
        es, ee = b[0].idx, b[-1].idx + len(b[-1].text)  # in the region doc's text
        old, new = doc.text[start:end], b[0].doc.text[es:ee]
        if start in seen or not in_focus(start, end, focus) or same_value(old, new):
            continue
        if copied_between(doc, a[0].i, a[-1].i + 1, region_docs, content=False):
            continue  # the region also writes the unit's value in the unit's words ("or $0.19 per share")
        seen.add(start)
        out.append({"kind": "conflict", "value_kind": kind, "text": old, "start": start, "end": end,
                    "evidence": new, "evidence_start": es, "evidence_end": ee})
    return out


def name_said_in_slot(doc, conflict: dict[str, Any], sentences: Sequence[str], parse) -> bool:
    """Does a source sentence say the unit's name of a value conflict (``local.value_conflicts``, a name kind) where
    the unit says it: on a word of the same lemma, in the same role (``local.name_slot``)? `parse` turns sentence
    texts into spaCy docs. A name the source says only in another slot of the same sentence ("its factory in
    Doncaster … its plant in Wakefield" for "its Wakefield factory", "accounts controlled by Doyle" for "Doyle
    diverted") is not said there; a unit whose name the parse hangs on nothing cannot be told, and counts as said.
    The same words around the name stand for the same place only in a sentence that has the unit's word too
    ("opposition leader Tomas Werner argued …" does not say what "… introduced by opposition leader Tomas Werner"
    says)."""
    span = doc.char_span(conflict["start"], conflict["end"], alignment_mode="expand")
    slot = name_slot(span) if span is not None else (None, None)
    if slot[0] is None:
        return True
    lemma, role = slot[0].lemma_.lower(), slot[1]
    needle = conflict["text"].lower()
    for sd in parse([s for s in sentences if needle in s.lower()]):
        for e in [e for e in sd.ents if same_value(conflict["text"], e.text)] + copies(conflict["text"], sd):
            word, there = name_slot(e)
            if (one_anchor(word.lemma_.lower() if word is not None else None, lemma) and there == role
                    or _same_words_around(span, e) and any(t.lemma_.lower() == lemma for t in sd)):
                return True
    return False


def _same_words_around(a, b, n: int = 2) -> bool:
    """Do two name spans have the same `n` words right before them, or right after ("company Wheelabrator
    Technologies" in both)? Then they stand in one place, whatever the two parses hang them on."""
    def words(span, before: bool) -> list[str]:
        doc = span.doc
        toks = doc[max(0, span.start - n):span.start] if before else doc[span.end:span.end + n]
        return [t.lower_ for t in toks if not t.is_punct]
    return any(len(w := words(a, side)) == n and w == words(b, side) for side in (True, False))
