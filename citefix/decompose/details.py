"""Details of a clause: the atomic facts that hang on it, each its own unit of the offline decomposer.

A detail is a modifier phrase carrying a time, place, number, duration, manner or condition ("on a three-year deal",
"from next season", "if the plan is approved"), a participle phrase describing an entity (one detail with its
phrases), or the content of a reported statement ("X said that …"). `_details` finds them on one clause of
`citefix.decompose.clauses`; that module cuts the units and renders their texts.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

_SUBJ = {"nsubj", "nsubjpass", "csubj", "csubjpass", "expl"}
_TRIM_POS = {"PUNCT", "CCONJ", "SPACE"}


def _content(tokens) -> bool:
    return any((t.is_alpha or t.like_num or any(ch.isalnum() for ch in t.text)) and t.pos_ not in _TRIM_POS for t in tokens)



SPEECH_VERBS = frozenset(
    "say tell add claim state report announce warn insist argue explain confirm deny believe think suggest write note "
    "reveal admit stress estimate predict promise describe caution".split()
)
_DETAIL_ENTS = {"DATE", "TIME", "CARDINAL", "MONEY", "QUANTITY", "PERCENT", "ORDINAL", "GPE", "LOC", "ORG", "PERSON",
                "FAC", "NORP", "EVENT"}
_RANGE_WORDS = {"to", "from", "and", "or", "-", "–"}
_MEASURE_ENTS = {"DATE", "TIME", "QUANTITY", "MONEY", "PERCENT", "CARDINAL"}
_TIME_WORDS = {"year", "years", "month", "months", "week", "weeks", "day", "days", "season", "spring", "summer",
               "autumn", "winter", "morning", "evening", "night", "today", "yesterday", "tomorrow", "ago", "hour", "hours"}
_CONDITION = {"if", "unless", "because", "after", "before", "when", "until", "although", "though", "since", "once"}
_VERB_HEAD = {"VERB", "AUX"}
_NOUN_HEAD = {"NOUN", "PROPN", "NUM"}
_CONTENT_POS_D = {"NOUN", "PROPN", "NUM", "ADJ", "VERB"}
MAX_DETAILS = 4  # per clause: more than this and a sentence is shredded, not made atomic


@dataclass
class _Detail:
    root: Any  # spaCy Token: the head of the detail's subtree
    role: str  # modifier | condition | content
    own: list[int] = field(default_factory=list)  # token indices the detail owns (nested details excluded)
    ancestors: list["_Detail"] = field(default_factory=list)


_DETAIL_DEPS = frozenset(("ccomp", "acl", "advcl", "npadvmod", "prep", "agent"))


def _detail_role(t) -> str | None:
    """Whether a token heads a detail of its clause, and which kind: a modifier phrase carrying a time, place, number,
    duration, manner or condition, or the content of a reported statement ("X said that …")."""
    dep, head = t.dep_, t.head
    if dep not in _DETAIL_DEPS or t.is_punct:
        return None  # only these arcs head a detail; read before the subtree, which is long on a deep parse
    sub = list(t.subtree)
    # a phrase whose only words are stop words ("in front", "for now", "at all") states nothing to check on its own
    content = [x for x in sub if x.pos_ in _CONTENT_POS_D and (x.like_num or (x.is_alpha and not x.is_stop))]
    if dep == "ccomp" and head.pos_ == "VERB" and head.lemma_.lower() in SPEECH_VERBS and t.pos_ in _VERB_HEAD:
        return "content" if any(c.dep_ in _SUBJ for c in t.children) else None
    if not content:
        return None
    if dep == "acl" and t.pos_ == "VERB" and head.pos_ in _NOUN_HEAD and t.tag_ in ("VBN", "VBG"):
        return "attribute"  # "the company, founded in 1990 by two brothers, …": one detail with its phrases
    if dep == "advcl" and any(c.dep_ == "mark" and c.lower_ in _CONDITION for c in t.children):
        return "condition"
    if dep == "npadvmod" and (t.pos_ == "PROPN" or not any(
            x.ent_type_ in _MEASURE_ENTS or x.like_num or x.lower_ in _TIME_WORDS for x in sub)):
        return None  # "beat Arsenal 2-1": the small model's adverbial reading of an argument; keep it in the core
    if dep in ("prep", "agent", "npadvmod") and head.pos_ in _VERB_HEAD:
        rest = [x for x in sub if x.i != t.i] if dep == "prep" else sub
        if rest and all(x.like_num or x.is_punct or x.lower_ in _RANGE_WORDS for x in rest) and (
                dep == "npadvmod" or t.lower_ in _RANGE_WORDS):
            return None  # a count or a range ("voted 9 to 4") stays with the verb
        return "modifier"
    if dep == "prep" and head.pos_ in _NOUN_HEAD and head.dep_ not in _SUBJ and head.dep_ != "compound":
        if any(x.ent_type_ in _DETAIL_ENTS or x.like_num for x in sub if x.i != t.i) and not _opens_range(t):
            return "modifier"
    return None


def _opens_range(t) -> bool:
    """Is the phrase `t` heads the first end of a range whose other end the parse hung elsewhere ("growth of 4.8% to
    6.6%", its "to 6.6%" on the verb)? Cut off alone it would leave the other end as the whole value."""
    doc, after = t.doc, t.right_edge.i + 1
    if after + 1 >= len(doc) or doc[after].lower_ not in ("to", "-", "–"):
        return False
    nxt = doc[after + 1]
    return nxt.like_num or (nxt.is_currency and after + 2 < len(doc) and doc[after + 2].like_num)


def _details(clause: Any) -> list[_Detail]:
    """The clause's details, outermost first; each owns its subtree's clause tokens minus nested details."""
    owned = {t.i for t in clause.tokens}
    found: list[_Detail] = []
    for t in clause.tokens:
        if t.i == clause.head.i:
            continue
        role = _detail_role(t)
        if role:
            found.append(_Detail(t, role))
    if not found:
        return []
    # no details inside an attribute phrase: it is judged as one
    attrs = [d for d in found if d.role == "attribute"]
    found = [d for d in found if not any(a is not d and d.root.i in {x.i for x in a.root.subtree} for a in attrs)]
    roots = {d.root.i: d for d in found}
    for d in found:
        anc = d.root.head
        while anc.i != anc.head.i and anc.i in owned:
            if anc.i in roots:
                d.ancestors.append(roots[anc.i])
            anc = anc.head
        if anc.i in roots and anc.i != d.root.i and roots[anc.i] not in d.ancestors:
            d.ancestors.append(roots[anc.i])
    if len(found) > MAX_DETAILS:
        keep = sorted(found, key=lambda d: (not any(x.ent_type_ in _DETAIL_ENTS or x.like_num for x in d.root.subtree),
                                            d.root.i))[:MAX_DETAILS]
        found = [d for d in found if d in keep]
        for d in found:
            d.ancestors = [a for a in d.ancestors if a in keep]
    for d in found:
        nested = {x.i for n in found if n is not d and d in n.ancestors for x in n.root.subtree}
        d.own = [x.i for x in d.root.subtree if x.i in owned and x.i not in nested]
    # a detail that would leave its clause with no content of its own is no detail
    inside = {i for d in found for i in d.own}
    core = [t for t in clause.tokens if t.i not in inside]
    if not _content(core) or clause.head.i in inside:
        return []
    return found
