"""Relation words said the other way round: "three points *below* the zone" where the evidence says "*above* the
zone", "voted *for* the proposal" / "voted *against* it", "made *after* the end of the year" / "*before* it", "shares
were *up* 6%" / "*down* 6%", "wells in the *south* of the country" / "in the *north* of the country".

WordNet lists antonyms for verbs and adjectives (`antonyms`; citefix.verify.local reads predicates with it) but few
for the prepositions and adverbs that say where, when or which way: of these it has only above/below, inside/outside
and up/down (as adverbs), and the compass points as nouns and adjectives. They are a closed class, so the pairs are
listed here rather than learned; each pair names the two ends of one relation, so one said where the evidence says
the other, of the same thing, contradicts it. A comparative that says by how much or than what ("scored 12%
*higher*", "rose *faster* than wages") or qualifies a noun ("*fewer* seats") is a relation too, its opposite the
WordNet antonym of its lemma or form ("lower": low/high, "fewer": more); a predicate with neither ("prices were
lower") is left to the antonym check of citefix.verify.local, which reads a predicate of its subject. Verbs of an
amount changing are opposites across two listed classes (``CHANGE_UP`` / ``CHANGE_DOWN``). No parameter.

A relation word is compared only with the same word or its opposite *anchored on the same thing* (``anchor``): its
object ("above the old station" → station), the object of its "of" ("ahead of its rivals" → rival), the figure it
carries with what that is said of ("shares were down 6%" → share, 6), what it is compared with ("than expected" →
expect), the clause it opens ("after the company cut …" → cut), the thing a compass word picks a part of ("northern
Kenya" → kenya). Pure functions over spaCy docs.

A change said in the other part of speech is read here too (``cross_flip``): a verb or noun whose WordNet antonym the
evidence says as a noun or verb of the same thing ("a decrease in sales" / "sales increased", "is decreasing its
dividend" / "an increase in the dividend").
"""

from __future__ import annotations

import json
from functools import lru_cache
from importlib import resources
from typing import Any

from citefix.verify.negation import negated_unit
from citefix.verify.synonyms import derived_words


@lru_cache(maxsize=1)
def antonyms() -> dict[str, dict[str, frozenset[str]]]:
    """WordNet 3.0's one-word antonyms, {"verb": {lemma: antonyms}, "adj": {…}, "adv": {…}} (citefix/data/antonyms.json, built by
    builders/build_antonyms.py; WordNet's licence travels in the file)."""
    raw = json.loads(resources.files("citefix").joinpath("data/antonyms.json").read_text(encoding="utf-8"))
    out: dict[str, dict[str, frozenset[str]]] = {}
    for pos in ("verb", "adj", "adv"):
        table: dict[str, set[str]] = {}
        pairs = list(raw.get(pos, []))
        if pos == "verb":  # the two ways an amount changes (CHANGE_UP / CHANGE_DOWN, below)
            pairs += [(a, b) for a in CHANGE_UP for b in CHANGE_DOWN] + [(b, a) for a in CHANGE_UP for b in CHANGE_DOWN]
        for a, b in pairs:
            table.setdefault(a, set()).add(b)
        out[pos] = {k: frozenset(v) for k, v in table.items()}
    return out


# Verbs that say an amount changed, by which way: any of one list said where the evidence says one of the other of the
# same thing ("sales grew 18 percent" / "sales dropped 18 percent") turns the change round. WordNet pairs only some of
# them (rise/fall, increase/decrease); the two lists are the closed class news uses for a number going up or down.
CHANGE_UP = frozenset({"rise", "grow", "increase", "climb", "gain", "jump", "soar", "surge", "rebound", "expand",
                       "double", "triple"})
CHANGE_DOWN = frozenset({"fall", "drop", "decline", "decrease", "shrink", "slump", "plunge", "slide", "sink", "dip",
                         "tumble", "halve"})


_BRITISH = (("ise", "ize"), ("yse", "yze"), ("our", "or"))  # criticise, analyse, favourable: WordNet spells them -ize


def wordnet_lemma(lemma: str, pos: str) -> str:
    """The form WordNet's antonym table knows a lemma by: the American spelling of a British one ("criticise" →
    "criticize", "favourable" → "favorable") when only that is in the table for `pos` ("verb" / "adj"); else as is."""
    table = antonyms()[pos]
    if lemma in table:
        return lemma
    for brit, amer in _BRITISH:
        k = lemma.rfind(brit)
        if k > 0 and (cand := lemma[:k] + amer + lemma[k + len(brit):]) in table:
            return cand
    return lemma


_PAIRS = (("above", "below"), ("over", "under"), ("before", "after"), ("up", "down"), ("for", "against"),
          ("inside", "outside"), ("ahead", "behind"), ("earlier", "later"),
          # the compass: "the north of the country" / "the south of the country", "northern Kenya" / "southern Kenya"
          ("north", "south"), ("east", "west"), ("northern", "southern"), ("eastern", "western"))
OPPOSITE_RELATIONS: dict[str, frozenset[str]] = {}
for _a, _b in _PAIRS:
    OPPOSITE_RELATIONS[_a] = frozenset({_b})
    OPPOSITE_RELATIONS[_b] = frozenset({_a})

_BARE = {"advmod", "prt", "quantmod", "npadvmod", "acomp", "amod"}  # a relation word with no object of its own
_COMPARATIVE = {"JJR", "RBR"}


def _keys(tok) -> frozenset[str]:
    """What two relation words are compared by: the word, or a comparative's lemma and form ("higher" → high; the
    tagger lemmatises "fewer" as few but leaves "more" as it is, and WordNet pairs more/fewer and few/many)."""
    if tok.lower_ in OPPOSITE_RELATIONS:
        return frozenset({tok.lower_})
    return frozenset({tok.lemma_.lower(), tok.lower_})


def _attributive(tok) -> bool:
    """A comparative that qualifies a noun ("longer trains", "fewer seats", "higher fares")."""
    return tok.dep_ == "amod" and tok.head.pos_ in ("NOUN", "PROPN")


def opposites(tok) -> frozenset[str]:
    """The keys (``_keys``) of the words that say the opposite relation of `tok`; empty if `tok` is none."""
    if tok.lower_ in OPPOSITE_RELATIONS:
        return OPPOSITE_RELATIONS[tok.lower_]
    if tok.tag_ in _COMPARATIVE and (tok.dep_ != "amod" or _figures(tok) or _attributive(tok)):
        table = antonyms()["adj"]
        return frozenset().union(*(table.get(k, frozenset()) for k in _keys(tok)))
    return frozenset()


def _kin(x, tok) -> bool:
    """x is a word of tok's kind: a listed relation word, or a comparative for a comparative."""
    return x.lower_ in OPPOSITE_RELATIONS if tok.lower_ in OPPOSITE_RELATIONS else x.tag_ in _COMPARATIVE


def _figures(tok) -> set[str]:
    return {t.lower_ for t in tok.subtree if t.like_num}


def _than(words) -> Any | None:
    """The comparison among `words`: a "than" phrase ("than average") or a clause "than" opens ("than expected")."""
    return next((c for c in words if c.lower_ == "than" and c.dep_ == "prep"), None) or next(
        (c for c in words if c.dep_ == "advcl" and any(g.lower_ == "than" and g.dep_ == "mark" for g in c.children)),
        None)


def anchor(tok) -> frozenset[str]:
    """What a relation word relates: the lemmas it hangs on (empty when the parse gives it nothing to hang on). In
    this order: its object; the figure it carries with what that is said of; what it is compared with; the clause it
    opens; the thing a compass word picks a part of."""
    kids = list(tok.children)
    # its object; at a text's end the small parser may hang it on as a modifier ("be below average.")
    obj = next((c for c in kids if c.dep_ == "pobj"), None) or next(
        (c for c in kids if c.dep_ in ("amod", "compound") and c.i > tok.i and c.pos_ in ("NOUN", "ADJ")), None)
    of = next((c for c in kids if c.dep_ == "prep" and c.lower_ == "of"), None)
    if obj is None and of is not None:
        obj = next((c for c in of.children if c.dep_ == "pobj"), None)
    if obj is not None:
        return frozenset({obj.lemma_.lower()})
    figures = _figures(tok) if tok.dep_ in _BARE else set()
    # what the figure is said of: the verb's subject, or the noun an adjective qualifies ("a 30% higher risk")
    of_what = tok.head if tok.dep_ == "amod" else next(
        (c for c in tok.head.children if c.dep_ in ("nsubj", "nsubjpass")), None)
    if figures and of_what is not None:
        return frozenset({of_what.lemma_.lower()} | figures)
    # "than average", "than at present", "than expected": the content words of what it is compared with
    than = _than(kids) or _than([c for c in tok.head.children if c.i > tok.i])  # or on the word it qualifies
    # a "than" phrase: the head of what it is compared with ("than any other women's match (at the tournament)");
    # a clause: its content words ("than expected")
    head = next((c for c in than.children if c.dep_ == "pobj"), None) if than is not None else None
    words = {head.lemma_.lower()} if head is not None and head.is_alpha else \
        {t.lemma_.lower() for t in than.subtree if t.is_alpha and not t.is_stop} if than is not None else set()
    if words:
        return frozenset(words)
    if tok.tag_ in _COMPARATIVE and _attributive(tok):
        return frozenset({tok.head.lemma_.lower()})  # "fewer seats": the thing there are fewer of
    if tok.dep_ == "mark":
        return frozenset({tok.head.lemma_.lower()})
    if tok.dep_ in ("amod", "compound") and tok.is_lower and tok.lower_ in OPPOSITE_RELATIONS:
        return frozenset({tok.head.lemma_.lower()})  # "northern Kenya", "the north side": the thing it picks a part of
    return frozenset()


def _negated(tok) -> bool:
    """A negation on the relation word's verb ("did not vote for" agrees with "voted against")."""
    head = tok.head if tok.dep_ != "mark" else tok.head.head
    return any(c.dep_ == "neg" for c in head.children) or any(c.dep_ == "neg" for c in tok.children)


def _same(anchor_a: frozenset[str], anchor_b: frozenset[str]) -> bool:
    return bool(anchor_a) and anchor_a == anchor_b if len(anchor_a) > 1 else bool(anchor_a & anchor_b)


def opposite_relation(tok, region_doc) -> Any | None:
    """The first word of `region_doc` that says the opposite of the relation word `tok` of the same thing, unless
    the region also says `tok`'s own word of it; None if there is none (or `tok` is no relation word)."""
    opposite = opposites(tok)
    if not opposite or _negated(tok):
        return None
    own = anchor(tok)
    if not own or _says(tok, own, [region_doc]):
        return None
    return next((x for x in region_doc if _kin(x, tok) and _keys(x) & opposite and not _negated(x)
                 and _same(own, anchor(x))), None)


def _says(tok, own: frozenset[str], region_docs) -> bool:
    """Does some region doc say tok's own relation of the same thing?"""
    keys = _keys(tok)
    return any(_kin(x, tok) and _keys(x) & keys and _same(own, anchor(x)) for rd in region_docs for x in rd)


def relation_flip(tok, region_docs) -> Any | None:
    """The opposite of relation word `tok` that some region doc says of the same thing, when no region doc says `tok`
    itself of it; None otherwise."""
    own = anchor(tok) if opposites(tok) else frozenset()
    if not own or _says(tok, own, region_docs):
        return None
    return next((r for r in (opposite_relation(tok, rd) for rd in region_docs) if r is not None), None)


def patient_lemma(verb) -> str | None:
    """The lemma of what a verb is done to, read across voice: a passive verb's subject ("the plans were approved"),
    an active one's direct object ("the committee rejected the plans"); None for a verb without one."""
    arg = next((c for c in verb.children if c.dep_ == ("nsubjpass" if passive_voice(verb) else "dobj")), None)
    return arg.lemma_.lower() if arg is not None else None


def agentless(verb) -> bool:
    """A passive verb that does not say who did it ("the plans were approved"): what it says can be matched with
    an active verb by what was done to, not by who did it."""
    return passive_voice(verb) and not any(c.dep_ == "agent" for c in verb.children)


def passive_voice(verb) -> bool:
    """A verb with a passive auxiliary or subject."""
    return any(c.dep_ in ("auxpass", "nsubjpass") for c in verb.children)


_GRADED = {"JJR", "JJS", "RBR", "RBS"}  # comparatives (relation words, above) and superlatives (they pick one out)


def _modified(tok) -> tuple[str, Any] | None:
    """("adj", the noun) for an attributive adjective of the positive degree ("a slow recovery"), ("adv", the verb or
    adjective) for an adverb of manner or time on one ("flying strongly", "arrived early"); None for anything else
    (comparatives are relation words, above, and superlatives pick one out; spaCy's stop words are function words)."""
    if tok.tag_ in _GRADED or tok.is_stop:
        return None  # a stop word ("other", "same", "last", "next", "often") picks a thing out; it says nothing of it
    if tok.pos_ == "ADJ" and _attributive(tok):
        return "adj", tok.head
    if tok.pos_ in ("ADV", "ADJ") and tok.dep_ == "advmod" and tok.head.pos_ in ("VERB", "ADJ", "AUX"):
        return "adv", tok.head  # (the tagger takes some adverbs for adjectives: "flying weakly")
    return None


def _describes(x, pos: str, lemmas: frozenset[str], head: str) -> bool:
    """Does region word `x` say one of `lemmas` (a modifier of part of speech `pos`) of the thing whose lemma is `head`:
    as its modifier, or (an adjective) as the predicate of its subject ("the recovery was slow")?"""
    if (x.pos_ != "ADJ" if pos == "adj" else x.dep_ != "advmod") or wordnet_lemma(x.lemma_.lower(), pos) not in lemmas:
        return False
    if x.tag_ in _GRADED:
        return False  # "replace the city's oldest trams" picks some trams out; it does not call the new ones old
    if x.head.lemma_.lower() == head and x.head.i != x.i:
        return True
    return pos == "adj" and x.dep_ in ("acomp", "attr") and any(
        c.dep_ in ("nsubj", "nsubjpass") and c.lemma_.lower() == head for c in x.head.children)


def modifier_flip(tok, region_docs) -> Any | None:
    """The word of a region doc that says the WordNet antonym of modifier `tok` (``_modified``) of the same noun or
    verb, when no region doc says `tok` itself of it: "a slow recovery" where the region says "a fast recovery" or
    "the recovery was fast", "flying strongly" where it says "flying weakly". None otherwise. The same noun or verb
    is what makes two modifiers comparable: "new trains" and "old stations" oppose nothing."""
    got = _modified(tok)
    if got is None:
        return None
    pos, head = got
    lemma = wordnet_lemma(tok.lemma_.lower(), pos)
    opposite = antonyms()[pos].get(lemma)
    hl = head.lemma_.lower()
    if not opposite or any(_describes(x, pos, frozenset({lemma}), hl) for rd in region_docs for x in rd):
        return None
    return next((x for rd in region_docs for x in rd if _describes(x, pos, opposite, hl)), None)


# --- an antonym said in another part of speech -------------------------------------------------------------------------

_ABOUT = {"of", "in", "for", "to", "by"}  # "a rise in sales", "the increase of 207%", "a cut to the budget"


def verb_forms(tok) -> frozenset[str]:
    """The verbs of WordNet's antonym table that a word says: a verb's own lemma; a noun's lemma said as a verb ("an
    increase", "a fall") or a verb of its WordNet family ("reduction": reduce, "growth": grow). Empty for any other
    word."""
    table = antonyms()["verb"]
    lemma = tok.lemma_.lower()
    if tok.pos_ == "VERB":
        w = wordnet_lemma(lemma, "verb")
        return frozenset({w}) if w in table else frozenset()
    if tok.pos_ != "NOUN":
        return frozenset()
    return frozenset(w for w in {lemma} | derived_words(lemma) if w in table)


def thing_tokens(x) -> list[Any]:
    """The words naming what a change is said of: a verb's subject and object (a verb conjoined or a complement
    without a subject of its own: its head's), a noun's object after of/in/for/to/by, its compound or possessor (not
    the subject of a verb a noun is the object of: "the side played in the 2-0 win" says nothing of what was won).
    Nouns and names only (a pronoun says nothing here); dates and times left out."""
    def words(toks) -> list[Any]:
        return [t for t in toks if t.pos_ in ("NOUN", "PROPN") and t.ent_type_ not in ("DATE", "TIME")]

    kids = list(x.children)
    out: list[Any] = []
    if x.pos_ == "VERB":
        out += words(c for c in kids if c.dep_ in ("nsubj", "nsubjpass", "dobj"))
        if x.dep_ in ("xcomp", "conj") and not any(c.dep_ in ("nsubj", "nsubjpass") for c in kids):
            out += words(c for c in x.head.children if c.dep_ in ("nsubj", "nsubjpass"))
    else:
        out += words(c for c in kids if c.dep_ in ("compound", "poss"))
    for c in kids:
        if c.dep_ == "prep" and c.lower_ in _ABOUT:
            out += words(g for g in c.children if g.dep_ == "pobj")
    return out


def _thing_words(x) -> frozenset[str]:
    """The lemmas of ``thing_tokens``."""
    return frozenset(t.lemma_.lower() for t in thing_tokens(x))


def cross_flip(tok, region_docs) -> Any | None:
    """The word of a region doc that says a WordNet antonym of `tok` in another part of speech, of the same thing,
    when no region word says `tok`'s own verb of it: "a 37% decrease in online sales" where the region says online
    sales increased 37%, "the company is decreasing its dividend" where it says "an increase in the dividend". One of
    the two words is a noun (two verbs are read by their subject and object, ``citefix.verify.predicates.opposite_in``),
    and the region's word is not negated ("it has no digits" does not oppose "the lack of digits"). None otherwise."""
    forms = verb_forms(tok)
    if not forms:
        return None
    table = antonyms()["verb"]
    opposite = frozenset().union(*(table.get(f, frozenset()) for f in forms))
    about = _thing_words(tok)
    if not opposite or not about:
        return None
    words = [x for rd in region_docs for x in rd]
    if any(verb_forms(x) & forms and _thing_words(x) & about for x in words):
        return None
    return next((x for x in words if "NOUN" in (tok.pos_, x.pos_) and verb_forms(x) & opposite
                 and _thing_words(x) & about and not negated_unit(x)), None)
