"""Local evidence checks of the offline verifier: is each element of a unit found *where the unit's evidence is*?

A unit's evidence region is the source sentence window most similar to it (or to each of its sentences) widened by a
few neighbouring sentence pieces. Every content-bearing element of the unit's own words (its focus: a detail's words,
not the context copied in to make it checkable) must be found there:

* a number, date or name that the source holds elsewhere but not in the region is *misplaced* (an entity swapped in
  from another part of the article, "eight" where this sentence says nine, a year from another event);
* a content word found elsewhere but not in the region counts as missing locally;
* a verb whose lemma the region holds with the opposite polarity ("was not approved" / "was approved") is a
  *polarity mismatch*;
* a verb or predicative adjective the region does not say of its subject, where the region says its WordNet antonym
  of that subject (and object) ("The SNP lost 56 seats" / "The SNP won 56 seats"), is an *antonym predicate*; so is a
  relation word said the other way round of the same thing ("below the zone" / "above the zone";
  citefix.verify.relations), and a change the region says the other way in the other part of speech ("a decrease in
  sales" / "sales increased"; `local.cross_antonyms`) — read in citefix.verify.predicates;
* a verb whose subject and object the region holds the other way round ("A beat B" / "B beat A", passives read as
  such) is a *role swap*;
* a number, date or name of the unit that the region does not hold, where the region holds a *different* value of the
  same kind hanging on the same word ("take two years" / "take about eighteen months"; "Smith joined" / "Jones
  joined" in the same role), is a *value conflict*: the evidence contradicts the value, not merely omits it;
* a name of the unit standing, word for word, where a sentence of the region has another name ("developed by the BBC,
  has been" / "developed by the OU, has been"), with no word shared by the two names, is a *name substitution*
  (citefix.verify.names).

Pure functions over spaCy docs and the verifier's per-source word lists; no model of their own.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from citefix.decompose.details import SPEECH_VERBS
from citefix.lexicon import NAME_KINDS, NUMBER_BOUNDS, VALUE_LABELS
from citefix.verify.lexical import (
    Number,
    change_kinds_in,
    currency,
    differences,
    find_numbers,
    spoken_decimals,
    value_tokens,
    within_bound,
)
from citefix.verify.negation import negated_unit, source_negated
from citefix.verify.predication import _clause_tokens, _words_of, another_complement, same_predication
from citefix.verify.slots import same_predicate, same_slot
from citefix.verify.times import same_length, time_grains

_AGENT = {"nsubj", "csubj"}
_PATIENT = {"dobj", "nsubjpass", "csubjpass"}


@dataclass
class Region:
    """A stretch of one source: [start, end) character offsets."""

    source: int  # index in the pool's sources
    start: int
    end: int


def focus_ranges(unit: Any) -> list[tuple[int, int]]:
    """The unit-text ranges of the unit's own words: meta["focus"] when the decomposer set it, else the whole text."""
    f = (unit.meta or {}).get("focus") if unit.meta else None
    if f:
        return [(int(a), int(b)) for a, b in f]
    return [(0, len(unit.text))]


def in_focus(a: int, b: int, ranges: Sequence[tuple[int, int]]) -> bool:
    return any(a < e and s < b for s, e in ranges)


def widen(piece_starts: Sequence[int], text_len: int, start: int, end: int, spread: int,
          min_chars: int = 0) -> tuple[int, int]:
    """The window [start, end) widened to whole sentence pieces plus `spread` pieces on each side, and then by a piece
    on each side at a time until it spans at least `min_chars` characters (a transcript's pieces are short turns)."""
    if not piece_starts:
        return 0, text_len
    k0 = max(0, bisect.bisect_right(piece_starts, start) - 1)
    k1 = max(0, bisect.bisect_right(piece_starts, max(start, end - 1)) - 1)
    n = len(piece_starts)
    lo, hi = max(0, k0 - spread), min(n, k1 + spread + 1)  # pieces lo … hi - 1
    end_at = lambda k: piece_starts[k] if k < n else text_len  # noqa: E731
    while end_at(hi) - piece_starts[lo] < min_chars and (lo > 0 or hi < n):
        lo, hi = max(0, lo - 1), min(n, hi + 1)
    return piece_starts[lo], end_at(hi)


def region_words(words_at: Sequence[tuple[int, str, str]], start: int, end: int) -> list[tuple[int, str, str]]:
    lo = bisect.bisect_left(words_at, (start, "", ""))
    hi = bisect.bisect_left(words_at, (end, "", ""))
    return list(words_at[lo:hi])


CLAUSE_REACH = 10  # words on each side of a verb that count as its clause when matching it to the unit's other words
SENTENCE_REACH = 60  # words on each side that still count as the verb's sentence, when its clause holds none of them


def _content_words(doc, verb) -> set[str]:
    """The content words of `verb`'s own clause in the unit, besides the verb (forms and lemmas, lower-cased)."""
    return _words_of(_clause_tokens(verb))


def _aligned_hits(hits: list[int], seq: Sequence[tuple[int, str, str]], words: set[str],
                  pauses: Mapping[int, bool]) -> list[int]:
    """The occurrences of the unit's verb that stand among the most of its clause's content words in the unit (within
    CLAUSE_REACH words, in the same sentence): the predicate the unit restates, not another clause's "be" or "do"
    ("It shouldn't be down to …" beside "Gosling's goal was their first"); failing that, in the same sentence (a long
    subject: "Concerns over … centre were raised"). None when the unit's verb has clause words and no occurrence's
    sentence holds any of them: another predication of the same verb ("do not prioritize cost" says nothing of
    "prioritize the well-being of …"). All of them when the unit's verb has no clause words."""
    if not hits or not words:
        return hits

    def near(k: int, reach: int) -> int:
        lo, hi = max(0, k - reach), min(len(seq), k + reach + 1)
        for i in range(k, lo, -1):
            if pauses.get(i):  # a sentence's end
                lo = i
                break
        for i in range(k + 1, hi):
            if pauses.get(i):
                hi = i
                break
        return len({w for _, w, lem in seq[lo:hi] if w in words or lem in words})

    for reach in (CLAUSE_REACH, SENTENCE_REACH):
        counts = [near(k, reach) for k in hits]
        best = max(counts)
        if best:
            return [k for k, c in zip(hits, counts) if c == best]
    return []


def _both_ways(tok) -> bool:
    """A copula whose coordinated complement carries a negation of its own ("is unconscious or not breathing", "was
    tired but not hungry"): the unit says "be" both ways, so neither polarity of a source's "be" contradicts it."""
    if tok.lemma_.lower() != "be":
        return False
    parts = [cj for c in tok.children if c.dep_ in ("acomp", "attr") for cj in c.conjuncts]
    parts += [cj for cj in tok.conjuncts if cj.pos_ not in ("VERB", "AUX")]  # "hungry" shares the copula "was"
    return any(g.dep_ == "neg" for cj in parts for g in cj.children)


def polarity_mismatches(doc, focus: Sequence[tuple[int, int]], seq: Sequence[tuple[int, str, str]],
                        align: Sequence[Sequence[int]] | None = None, pauses: Mapping[int, bool] | None = None,
                        parsed: Sequence[Any] | None = None) -> list[dict]:
    """Verbs of the unit's focus whose every occurrence (by lemma) in the region that stands among the most of the
    verb's clause words in the unit has the other polarity. `align` maps the unit's text to the text it was cut from
    (meta["align"]), so that a gap is not read across; `pauses` marks punctuation in `seq` (``word_pauses``).
    `parsed`, where given, holds for each word of `seq` its token in the region's parse (or None): an occurrence is
    then matched to the unit's verb by the words of its own predication (``same_predication``), not by the words
    standing near it; and a copula is not contradicted by occurrences of "be" that each say another complement of
    their subject (``another_complement``)."""
    out = []
    pauses = pauses or {}
    for t in doc:
        main = t.pos_ == "VERB" or (t.pos_ == "AUX" and t.dep_ not in ("aux", "auxpass"))  # "is not its teacher"
        # a participle modifying a noun states no predicate of its own ("a cheating scandal")
        if not main or t.dep_ in ("amod", "compound") or not in_focus(t.idx, t.idx + len(t.text), focus):
            continue
        if _both_ways(t):
            continue
        lemma = t.lemma_.lower()
        found = [k for k, (_, _, lem) in enumerate(seq) if lem == lemma]
        if parsed and found and all(parsed[k] is not None for k in found):
            hits = same_predication(t, [parsed[k] for k in found], found)
        else:
            hits = _aligned_hits(found, seq, _content_words(doc, t), pauses)
        if not hits:
            continue
        src_neg = [source_negated(seq, k, pauses) for k in hits]
        u_neg = negated_unit(t, align)
        if all(n != u_neg for n in src_neg) and not (
                parsed and all(parsed[k] is not None and another_complement(t, parsed[k]) for k in hits)):
            out.append({"kind": "polarity", "text": t.text, "start": t.idx, "end": t.idx + len(t.text),
                        "unit_negated": u_neg})
    return out


def _names(tok) -> set[str]:
    """The lemmas and forms that name an argument: its head and compound/flat parts ("Josh Strauss" → {josh,
    strauss}); the form too, since the tagger lemmatises one name two ways ("the Soviets": "soviet" or "soviets")."""
    parts = [tok] + [c for c in tok.children if c.dep_ in ("compound", "flat")]
    out = {t.lemma_.lower() for t in parts} | {t.lower_ for t in parts}
    # an abbreviation names an argument too ("his B.S.", "the U.N."): its letters without the stops
    return {w for w in out if w.replace(".", "").isalpha() and len(w.replace(".", "")) > 1}


ARG_POS = {"NOUN", "PROPN"}
NOT_ARG = {"prep", "advmod", "punct", "cc", "conj", "aux", "auxpass", "neg", "mark", "advcl", "ccomp", "xcomp", "prt",
            "relcl", "acl", "appos", "det", "amod", "compound"}


def roles(verb) -> tuple[set[str], set[str]]:
    """(agent names, patient names) of a verb, passives read as such ("B was beaten by A": agent A, patient B).

    The parser's arcs first (nsubj, dobj, nsubjpass, agent); a noun attached to the verb by another arc (the small
    model often reads "beat Arsenal 2-1" as an adverbial) counts by its side of the verb: before it the subject's
    side, after it the object's."""
    agent: set[str] = set()
    patient: set[str] = set()
    passive = any(c.dep_ == "auxpass" for c in verb.children)
    for c in verb.children:
        if c.dep_ in _AGENT:
            agent |= _names(c)
        elif c.dep_ in _PATIENT:
            patient |= _names(c)
        elif c.dep_ == "agent":
            for g in c.children:
                if g.dep_ == "pobj":
                    agent |= _names(g)
        elif c.pos_ in ARG_POS and c.dep_ not in NOT_ARG and c.ent_type_ not in ("DATE", "TIME"):
            if c.i < verb.i:
                (patient if passive else agent).update(_names(c))
            else:
                patient.update(_names(c))
    if not agent and not passive and verb.dep_ == "xcomp" and verb.head.i != verb.i:
        # the one who does what a complement verb says is its head's object ("urged the union to resume") or else
        # its subject ("Pellham has agreed to buy Nordvik")
        head = verb.head
        ctrl = next((c for c in head.children if c.dep_ == "dobj"), None) or next(
            (c for c in head.children if c.dep_ == "nsubj"), None)
        if ctrl is not None:
            agent |= _names(ctrl)
    return agent, patient


def _passive(verb) -> bool:
    """A verb with its passive auxiliary ("was greeted"): its subject is plainly the patient. Not a bare participle
    ("wanted the land used") nor an inverted report ("…, says a new report"), where the parser's subject is unsure."""
    return verb.tag_ == "VBN" and any(c.dep_ == "auxpass" for c in verb.children)


def role_swaps(doc, focus: Sequence[tuple[int, int]], region_docs: Sequence[Any]) -> list[dict]:
    """Verbs of the focus whose agent and patient (or, for a passive, the one of them the unit has) the region's same
    verb holds the other way round, and nowhere the unit's way."""
    out = []
    for t in doc:
        if t.pos_ != "VERB" or not in_focus(t.idx, t.idx + len(t.text), focus):
            continue
        ua, up = roles(t)
        if not (ua or up) or (not (ua and up) and not _passive(t)):
            continue
        swapped = right = False
        for rd in region_docs:
            for s in rd:
                if s.pos_ != "VERB" or not same_predicate(s, t):  # the same verb or a synonym ("bought" / "acquired")
                    continue
                sa, sp = roles(s)
                if (ua & sa) or (up & sp):
                    right = True
                elif (ua & sp or not ua) and (up & sa or not up) and sa and sp:
                    # one argument is enough for a passive when the region's verb has both and the unit's stands on
                    # the other side ("Ferguson was greeted" where "Jak was greeted by Ferguson")
                    swapped = True
        if swapped and not right:
            out.append({"kind": "role", "text": t.text, "start": t.idx, "end": t.idx + len(t.text)})
    return out


_ACTORS = {"person", "org"}  # told apart by NER, often wrongly ("built by Westline Rail" read as a person)
_AMOUNT_TYPES = {"MONEY", "PERCENT", "CARDINAL", "QUANTITY"}  # entity types of a value another value may be joined to


def anchor(span) -> Any:
    """The content word a span hangs on: its head outside the span, past prepositions and auxiliaries — not past a
    copula that opens a clause of its own ("… improved to $3.69 and net income was $971 million": the amount is said
    on "was", not on "improved")."""
    inside = {t.i for t in span}
    head = next((t.head for t in span if t.head.i not in inside), None)
    # a value joined to another value hangs where that one does ("a net profit of $8.2 million or $0.19 per share":
    # both on "profit")
    while head is not None and span.root.dep_ == "conj" and head.head.i != head.i \
            and head.i not in inside and (head.like_num or head.ent_type_ in _AMOUNT_TYPES):
        inside |= {t.i for t in head.subtree if t.i <= head.i}
        head = head.head
    while head is not None and head.pos_ in ("ADP", "AUX", "DET", "PART") and head.head.i != head.i \
            and not (head.pos_ == "AUX" and head.dep_ == "conj"):
        head = head.head
    return None if head is None or head.i in inside else head


def anchor_lemma(span) -> str | None:
    a = anchor(span)
    return a.lemma_.lower() if a is not None else None


# the prepositions that tell a change's three values apart: where it ends ("rose to $3.69"), where it started ("up from
# $3.41") and by how much ("cut by 5%")
CHANGE_PREPS = frozenset({"to", "from", "by"})


def change_prep(span) -> str | None:
    """The preposition of CHANGE_PREPS that a value hangs on its word through ("improved to $3.69": "to"), else None.
    Values listed after one preposition share it: a conjunct takes the preposition of the value it is joined to, or,
    joined to the word itself (as the parser reads "improved from $3.41 … and $2.75"), the last such preposition of
    that word before it."""
    tok = span.root
    while tok.dep_ == "conj" and tok.head.i != tok.i:
        if tok.head.pos_ in ("VERB", "AUX", "ADJ"):
            preps = [c for c in tok.head.children if c.dep_ == "prep" and c.lower_ in CHANGE_PREPS and c.i < tok.i]
            return preps[-1].lower_ if preps else None
        tok = tok.head
    inside = {t.i for t in span}
    head = next((t.head for t in span if t.head.i not in inside), None) if tok.i in inside else tok.head
    while head is not None and head.pos_ in ("ADP", "AUX", "DET", "PART") and head.head.i != head.i:
        if head.pos_ == "ADP" and head.lower_ in CHANGE_PREPS:
            return head.lower_
        head = head.head
    return None


def other_end(a, b) -> bool:
    """Do two values on one word stand at different ends of a change: one where it ends, the other where it started or
    by how much ("improved to $3.69" / "improved from $3.41")? Then neither contradicts the other."""
    pa, pb = change_prep(a), change_prep(b)
    return pa is not None and pb is not None and pa != pb


def arg_role(span) -> str | None:
    """The dependency label of the span's root (nsubj, dobj, pobj …)."""
    inside = {t.i for t in span}
    root = next((t for t in span if t.head.i not in inside or t.head.i == t.i), None)
    return root.dep_ if root is not None else None


_MODIFIER_PREPS = {"in", "at", "of"}  # "the factory in Doncaster" names the factory as "the Doncaster factory" does
_IN_SPEAKER = {"compound", "poss", "pobj", "prep", "agent", "acl", "appos"}  # arcs inside a speaker's noun phrase


def name_slot(span) -> tuple[Any, str | None]:
    """Where a name stands: (the word it hangs on, its role). A name inside the subject of a verb of speech stands on
    that verb as its subject ("Opponents, led by the Civic Society, said …": the Civic Society speaks); a name that
    says where or whose a common noun is stands on that noun as its modifier, however written ("its Wakefield
    factory", "its factory in Wakefield", "Wakefield's factory")."""
    tok = span.root
    for _ in range(8):
        if tok.dep_ in ("nsubj", "nsubjpass") and tok.head.lemma_.lower() in SPEECH_VERBS:
            if tok.i != span.root.i or anchor(span) is tok.head:
                return tok.head, "nsubj"
            break
        if tok.dep_ not in _IN_SPEAKER or tok.head.i == tok.i:
            break
        tok = tok.head
    role, head = arg_role(span), span.root.head
    if role in ("compound", "poss") and head.pos_ == "NOUN":
        return head, "modifier"
    if role == "pobj" and head.lower_ in _MODIFIER_PREPS and head.head.pos_ == "NOUN":
        return head.head, "modifier"
    return anchor(span), role


def _norm(s: str) -> str:
    return " ".join(s.lower().split())


def same_value(a: str, b: str, one_way: bool = False) -> bool:
    """One value written two ways or one inside the other: "253.5km" / "253.5 km", "2013" / "2013-14", "April 15" /
    "April 15, 2013", "fourth" / "4th". With `one_way`, only `a` inside `b` ("May" does not state "10 May")."""
    if "".join(a.lower().split()) == "".join(b.lower().split()):
        return True
    if _currencies_differ(a, b):
        return False  # "$4 million" / "€4 million": one number, two amounts
    ta, tb = value_tokens(a), value_tokens(b)
    if ta == tb or _one_number(a, b) or same_length(a, b):
        return True
    short, long_ = (ta, tb) if one_way else sorted((ta, tb), key=len)
    return bool(short) and any(long_[k:k + len(short)] == short for k in range(len(long_) - len(short) + 1))


def _currencies_differ(a: str, b: str) -> bool:
    """Both values name a currency, and no currency of one is the other's (lexical.currency)."""
    ca, cb = ({currency(x, n) for n in find_numbers(x)} - {None} for x in (a, b))
    return bool(ca) and bool(cb) and not ca & cb


def _one_number(a: str, b: str) -> bool:
    """Both values are one number each, and the same one in digits or words ("100" / "one hundred", "£50,000" /
    "fifty thousand pounds" is not: a currency is no word of the other)."""
    # a scale word alone is one of it: spaCy's entity "dozen" of "a dozen sessions"
    na, nb = (find_numbers("a " + s if s.strip().lower() in ("dozen", "hundred", "thousand") else s) for s in (a, b))
    if len(na) != 1 or len(nb) != 1:
        return False
    x, y = na[0], nb[0]
    # a rounded value (a fraction, decades) names what lies within its rounding: "over half a century" / "more than
    # 50 years", "nearly two-thirds" / "64 percent"; the other side's word for what it counts goes with it
    rounded = x.unit or y.unit
    if x.value != y.value and not (rounded and abs(x.value - y.value) <= max(x.precision, y.precision)) \
            and not (within_bound(x, y.value) or within_bound(y, x.value)):
        return False
    # a percentage is one whether its sign or its word is written ("about 4%" / "roughly four percent")
    drop = _COUNTED.get(rounded, set()) | _FOCUS_WORDS | (_COUNTED["%"] if "%" in a + b else set())

    def rest(s: str, n) -> list[str]:
        # an article right before the number is no word of the value ("over a hundred years" / "more than a
        # century"); one before a bound phrase is ("an estimated")
        before = _ARTICLE_BEFORE.sub("", s[: n.start])
        return [w for w in value_tokens(before + " " + s[n.end :]) if w not in drop]

    ra, rb = rest(a, x), rest(b, y)
    if ra == rb:
        return True
    # what both say of the number ("tonnes") leaves the words that differ: "about" / "around" is one rough amount
    ra, rb = [w for w in ra if w not in rb], [w for w in rb if w not in ra]
    bounds = {_bound(" ".join(ra)), _bound(" ".join(rb))}
    return None not in bounds and bounds != {"most", "least"}


_COUNTED = {"%": {"percent", "per", "cent"}, "year": {"year", "years"}}
_FOCUS_WORDS = {"just", "only", "exactly", "precisely", "merely"}  # "just 23 individuals" is 23 individuals
_ARTICLE_BEFORE = re.compile(r"\b(?:a|an)\s*$", re.IGNORECASE)


# the bound phrases (citefix.lexicon.NUMBER_BOUNDS) as value_tokens writes them ("in excess of" without its "of"),
# which is how _one_number reads a value's words
_BOUND_WORDS = {k: {" ".join(value_tokens(p)) for p in phrases} for k, phrases in NUMBER_BOUNDS.items()}


def _bound(words: str) -> str | None:
    """The direction of a number's bound phrase ("most", "least", "rough"; "" for none), None for other words."""
    if not words:
        return ""
    return next((k for k, phrases in _BOUND_WORDS.items() if words in phrases), None)


def slot_lemma(span, kind: str) -> str | None:
    a = name_slot(span)[0] if kind in NAME_KINDS else anchor(span)
    return a.lemma_.lower() if a is not None else None


def one_anchor(found: str | None, lemma: str) -> bool:
    """A value found on `found` stands where the unit's stands on `lemma`: the same word, none, or two verbs of speech
    (the speaker of "Claire Watts said the changes would not bring higher fares" is the region's "…, Watts added")."""
    return found is None or found == lemma or (found in SPEECH_VERBS and lemma in SPEECH_VERBS)


def _said_on(value: str, lemma: str, region_docs: Sequence[Any]) -> bool:
    """Does a region sentence write `value` word for word on a word of lemma `lemma` (or on none), whether or not its
    entity recogniser marked it ("Russian Lt Gen Viktor Poznikhir said", unmarked in the article)?"""
    return any(anchor_lemma(span) in (None, lemma) for rd in region_docs for span in copies(value, rd))


def copies(value: str, doc) -> list[Any]:
    """The spans of `doc` that write `value` word for word (case aside), whether or not its recogniser marked them."""
    needle, hay = value.lower(), doc.text.lower()
    out = []
    at = hay.find(needle)
    while at >= 0:
        span = doc.char_span(at, at + len(needle), alignment_mode="expand")
        if span is not None:
            out.append(span)
        at = hay.find(needle, at + 1)
    return out


def _runs(seq: Sequence[str], needle: Sequence[str]) -> Iterator[int]:
    """Where `needle` stands in `seq` word for word: each start index."""
    n = len(needle)
    return (i for i in range(len(seq) - n + 1) if seq[i:i + n] == needle)


def _copied_with_words(ent, lemma: str, region_docs: Sequence[Any], reach: int = 3) -> bool:
    """Does a region doc write the value with the unit's `reach` words right before it, or right after it, a content
    word among them, word for word, and the word the unit hangs the value on (`lemma`) within 2 × `reach` words of it
    ("tremor took place 1.2 miles (2km) away" for "the April tremor took place 1.2 miles away")? Then it says the
    unit's value whatever its parse hangs the value on (there "take", in the unit "away"). Not "injuries and a
    five-year-old boy …" for "… injuries and a five-year-old girl": the value's own noun is another."""
    doc = ent.doc
    words = [t.lower_ for t in ent]
    sides = (doc[max(0, ent.start - reach):ent.start], doc[ent.end:ent.end + reach])
    needles = []
    for k, side in enumerate(sides):
        if len(side) == reach and any(t.is_alpha and not t.is_stop for t in side):
            ctx = [t.lower_ for t in side]
            needles.append((ctx + words, reach) if k == 0 else (words + ctx, 0))
    for rd in region_docs:
        toks = [t for t in rd if not t.is_space]
        seq = [t.lower_ for t in toks]
        for needle, lead in needles:
            for i in _runs(seq, needle):
                a, b = i + lead, i + lead + len(words)  # the value's own tokens in the region
                near = toks[max(0, a - 2 * reach):a] + toks[b:b + 2 * reach]  # "(5 km) away": a bracket between
                if any(t.lemma_.lower() == lemma or t.lower_ == lemma for t in near):
                    return True
    return False


def copied_between(doc, start: int, end: int, region_docs: Sequence[Any], content: bool = True) -> bool:
    """Does a region doc write the unit's tokens doc[start:end] (a value) between the unit's own next words on both
    sides, word for word ("accelerate 12 737 MAX 9 aircraft deliveries" / "the delivery of 12 737 MAX 9")? With
    `content`, one of the two must be a content word or a number. Then it is the unit's value in the unit's place,
    whatever either parse hangs it on."""
    if start == 0 or end >= len(doc):
        return False
    before, after = doc[start - 1], doc[end]
    if content and not any((t.is_alpha and not t.is_stop) or t.like_num for t in (before, after)):
        return False
    needle = [before.lower_, *(t.lower_ for t in doc[start:end]), after.lower_]
    for rd in region_docs:
        seq = [t.lower_ for t in rd if not t.is_space]
        if next(_runs(seq, needle), None) is not None:
            return True
    return False


def _said_shorter(value: str, other: str) -> bool:
    """Is a time the region gives (`other`) the unit's time without words that fix no further grain ("the first
    quarter" for "the first quarter of the year"; not "May" for "10 May", nor for "May 2019")?"""
    short, long_ = value_tokens(other), value_tokens(value)
    if not short or len(short) >= len(long_):
        return False
    for k in range(len(long_) - len(short) + 1):
        if long_[k:k + len(short)] == short:
            return not time_grains(" ".join(long_[:k] + long_[k + len(short):]))
    return False


def _said_in_words(value: str, spoken: Sequence[Number]) -> bool:
    """Is the value's number one of the region's decimals said in words (`spoken`: "twelve dot fifty euros" for
    "12.50 euros"), which its entity recogniser cuts short ("twelve"), or a figure derived from two of its figures?"""
    return any(abs(n.value - w.value) <= n.precision for n in spoken for w in find_numbers(value))


def value_conflicts(doc, focus: Sequence[tuple[int, int]], region_docs: Sequence[Any]) -> list[dict]:
    """Values of the focus that the region contradicts: the region lacks the value but holds another of the same
    kind on a word with the same lemma as the value's anchor (a name also in the same role). Region docs need NER."""
    whole = _norm(doc.text)
    spoken = [n for rd in region_docs for n in spoken_decimals(rd.text)]
    # the figures a summary derives from two of one region sentence ("five points" of "from 88% to 93%"), for a value
    # stated as a change
    derived = [n for rd in region_docs for n in differences(rd.text)]
    out = []
    for ent in doc.ents:
        kind = VALUE_LABELS.get(ent.label_)
        if kind is None or not in_focus(ent.start_char, ent.end_char, focus):
            continue
        a = name_slot(ent)[0] if kind in NAME_KINDS else anchor(ent)
        if a is None or a.lemma_.lower() in ("be", "have"):
            continue
        lemma = a.lemma_.lower()
        grains = time_grains(ent.text) if kind == "time" else set()
        # a time may hang on a noun or on the verb that noun hangs on with one meaning ("their revenue for the first
        # quarter is expected" / "for the first quarter, our revenue is expected")
        on = {lemma, a.head.lemma_.lower()} if kind == "time" and a.pos_ == "NOUN" else {lemma}
        kinds = change_kinds_in(doc.text, ent.start_char, ent.end_char) if derived else set()
        # the region states the value on the same word (or on none): no conflict. The value on another word of the
        # region ("three" of another sentence) does not excuse "three freight boats" where it says "two freight boats"
        # (a name also when the unit's is the longer: "Russian Lt Gen Viktor Poznikhir" / "Viktor Poznikhir")
        if any((same_value(ent.text, c.text, one_way=kind not in NAME_KINDS)
                or (kind == "time" and _said_shorter(ent.text, c.text)))
               and any(one_anchor(slot_lemma(c, kind), w) for w in on)
               for rd in region_docs for c in rd.ents) or _said_on(ent.text, lemma, region_docs) or \
                _copied_with_words(ent, lemma, region_docs) or copied_between(ent.doc, ent.start, ent.end, region_docs) or \
                _said_in_words(ent.text, spoken + [d for d in derived if d.unit in kinds]):
            continue
        for rd in region_docs:
            hit = None
            for cand in rd.ents:
                ck = VALUE_LABELS.get(cand.label_)
                if (not (ck == kind or {ck, kind} <= _ACTORS) or _norm(cand.text) in whole
                        or same_value(cand.text, ent.text)):
                    continue
                if kind == "time" and not grains & time_grains(cand.text):
                    continue  # "fall 2016" / "this year", "2018" / "Thursday": times that cannot be told apart
                # a name on the same predicate or a synonym, in the same role across voice; a value on the same word
                if not (same_slot(ent, cand, name_slot) if kind in NAME_KINDS
                        else anchor_lemma(cand) == lemma and not other_end(ent, cand)):
                    continue
                hit = cand
                break
            if hit is not None:
                out.append({"kind": "conflict", "value_kind": kind, "text": ent.text, "start": ent.start_char,
                            "end": ent.end_char, "evidence": hit.text})
                break
    return out


# entity labels of names (for a substitution both sides must be names: proper nouns or tokens of these entities)
