"""Claims made surer or wider than their source says them: a hedged predicate stated as certain ("could arrive" /
"will hit", "hoped to reopen" / "will reopen") and a part stated as the whole ("postponed some planned operations" /
"postponed all of its planned operations").

Both read the spaCy parse of the unit and of its evidence region. A predicate is hedged when a modal of possibility
governs it (may, might, could), an adverb of likelihood qualifies it (possibly, probably …), or it is what a verb or
adjective of hope, attempt or likelihood reaches for ("hopes to", "is trying to", "is likely to"). The unit is
contradicted when every occurrence of its verb in the region, said of the same subject, is hedged and the unit's is
not; saying less than the source (a hedge the source lacks, "some" where it says "all") is no error.
"""

from __future__ import annotations

import re
from typing import Any, Sequence

from citefix.verify.local import in_focus
from citefix.verify.predicates import object_lemma

HEDGE_MODALS = frozenset({"may", "might", "could"})
HEDGE_ADVERBS = frozenset({"possibly", "perhaps", "potentially", "probably", "maybe", "likely"})
# words whose complement is not (yet) a fact: a hope, a wish, an attempt, a proposal, a likelihood. Not "expected
# to", "plans to", "intends to": news writes them for what is scheduled, and a summary's "will" for them is usual
HEDGE_HEADS = frozenset({"hope", "aim", "want", "seek", "propose", "consider", "try", "attempt", "likely", "possible",
                         "unlikely", "hopeful"})
_ALL = frozenset({"all", "every", "each"})
PART_WORDS = frozenset({"some", "several", "many", "most", "few"})
_SKIP = frozenset({"be", "have", "do", "say"})


def hedged(tok) -> bool:
    """Is the predicate `tok` hedged (module docstring)? A conjoined or complement verb shares its head's hedge ("could
    rise and fall", "could start to rise")."""
    t = tok
    for _ in range(4):
        kids = list(t.children)
        # "could not hire" says the ability was lacking, not that hiring may happen
        if any(c.dep_ == "aux" and c.lower_ in HEDGE_MODALS for c in kids) and not any(c.dep_ == "neg" for c in kids):
            return True
        if any(c.dep_ == "advmod" and c.lower_ in HEDGE_ADVERBS for c in kids):
            return True
        if t.dep_ in ("xcomp", "ccomp") and _hedge_head(t.head):
            return True
        if t.dep_ not in ("conj", "xcomp") or t.head.i == t.i:
            return False
        if t.dep_ == "conj" and any(c.dep_ in ("aux", "auxpass") for c in kids):
            return False  # "may have been acquired, or is being withheld": a conjunct with its own auxiliaries
        t = t.head
    return False


_SENTENCE_END = re.compile(r"[.!?;:]\s")


def clause_start(text: str, pos: int) -> int:
    """Where the stretch of `text` that `pos` lies in begins: just after the last sentence end, semicolon or colon
    before it (what ``hedged_in_text`` reads back to)."""
    return max((m.end() for m in _SENTENCE_END.finditer(text, 0, pos)), default=0)


def hedged_in_text(text: str, pos: int, reach: int = 15) -> bool:
    """Does a hedge word stand in `text` before `pos`, in the same sentence and within `reach` words? A unit cut from a
    longer sentence ("… might want to live there but could not afford to" → "people could not afford to") loses the
    hedge its parse would carry; the text it was cut from keeps it."""
    start = clause_start(text, pos)
    words = re.findall(r"[a-z]+", text[start:pos].lower())[-reach:]
    return any(w in HEDGE_MODALS or w in HEDGE_ADVERBS or _forms(w) & HEDGE_HEADS for w in words)


def _forms(w: str) -> set[str]:
    """A word and what it may be with an ending taken off ("hoped" → hope, "trying" → try, "hopefully" → hopeful)."""
    return {w, w[:-1], w[:-2], w[:-3], w[:-3] + "e"}


def _hedge_head(tok) -> bool:
    """A word of hope, attempt or likelihood, by lemma or by its form (the tagger lemmatises "hoped" as "hop")."""
    return bool(({tok.lemma_.lower()} | _forms(tok.lower_)) & HEDGE_HEADS)


def _subject(tok) -> str | None:
    """The lemma of what a verb is said of: its subject, a conjoined verb's shared one, or (a complement) its head's."""
    t = tok
    for _ in range(4):
        arg = next((c for c in t.children if c.dep_ in ("nsubj", "nsubjpass")), None)
        if arg is not None:
            return arg.lemma_.lower()
        if t.dep_ not in ("conj", "xcomp") or t.head.i == t.i:
            return None
        t = t.head
    return None


def _noun_content(tok) -> bool:
    """A clause that gives a noun's content ("the idea that the glow helps"), or a gerund a preposition takes
    ("instead of attending", "without waiting"): the unit does not assert it as a fact of its own."""
    return tok.dep_ == "pcomp" or (
        tok.dep_ == "acl" and any(c.dep_ == "mark" and c.lower_ in ("that", "whether", "if") for c in tok.children))


def _predicates(doc) -> list[Any]:
    return [t for t in doc if t.pos_ == "VERB" and t.dep_ not in ("amod", "compound")
            and t.lemma_.lower() not in _SKIP]


def surer_than_source(doc, focus: Sequence[tuple[int, int]], region_docs: Sequence[Any]) -> list[dict]:
    """Verbs of the unit's focus, not hedged, whose every occurrence in the region said of the same subject (or of
    none the parse names; or with the unit's subject as its object: "the library will reopen" / "hoped to reopen the
    library") is hedged; with the region's hedged verb as evidence."""
    out = []
    region = [x for rd in region_docs for x in _predicates(rd)]
    for t in _predicates(doc):
        if not in_focus(t.idx, t.idx + len(t.text), focus) or hedged(t) or _noun_content(t):
            continue
        lemma, who = t.lemma_.lower(), _subject(t)
        same = [x for x in region if x.lemma_.lower() == lemma
                and (who is None or who in (_subject(x), object_lemma(x)) or _subject(x) is None)]
        if same and all(hedged(x) for x in same):
            out.append({"kind": "certainty", "text": t.text, "start": t.idx, "end": t.idx + len(t.text),
                        "evidence": same[0].text})
    return out


def quantifiers(noun) -> list[Any]:
    """The words that may say how much of `noun` is meant: its determiners and the word an "of" hangs it on ("all of
    its planned operations")."""
    words = [c for c in noun.children if c.dep_ in ("det", "predet", "amod", "nummod")]
    if noun.dep_ == "pobj" and noun.head.lower_ == "of":
        words.append(noun.head.head)
    return words


def scope(noun) -> str | None:
    """"all" / "part" when a quantifier picks out how much of `noun` is meant ("all planned operations", "all of its
    planned operations", "some planned operations"), else None."""
    for w in quantifiers(noun):
        if w.lower_ in _ALL:
            return "all"
        if w.lower_ in PART_WORDS:
            return "part"
    return None


def wider_than_source(doc, focus: Sequence[tuple[int, int]], region_docs: Sequence[Any]) -> list[dict]:
    """Nouns of the focus said of all ("all planned operations") where the region says the same noun only of a part
    ("some planned operations") and nowhere of all."""
    out = []
    for n in doc:
        if n.pos_ != "NOUN" or not in_focus(n.idx, n.idx + len(n.text), focus) or scope(n) != "all":
            continue
        lemma = n.lemma_.lower()
        scopes = [(x, scope(x)) for rd in region_docs for x in rd if x.pos_ == "NOUN" and x.lemma_.lower() == lemma]
        part = next((x for x, s in scopes if s == "part"), None)
        if part is not None and not any(s == "all" for _, s in scopes):
            out.append({"kind": "certainty", "text": n.text, "start": n.idx, "end": n.idx + len(n.text),
                        "evidence": part.text})
    return out
