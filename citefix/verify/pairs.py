"""A unit's word pairs: each content word and the nearest content word above it in the spaCy parse ("founded" and
"company" in "Ross Barkley also founded the company"; "Barkley" and "founded").

A paraphrase mostly says the source's facts in some new words: of each pair it keeps one word, or both, and puts a new
word beside it. A fact the source does not hold, told in words the source does not have, brings whole pairs that the
source has neither word of ("founded … company" where the article never names a company or a founding). The share of
a unit's pairs with both words found nowhere in the sources is one of the judge's features (``invented_pairs``;
citefix.verify.judge); a word found nowhere is the verifier's (``OfflineVerifier._invented_words``: not as a word, a
lemma, a WordNet synonym or a near token of the MiniLM). Pure functions over spaCy docs.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from citefix.decompose.details import SPEECH_VERBS
from citefix.lexicon import REPORT_VERBS

_REPORTING = SPEECH_VERBS | REPORT_VERBS
# the parts of speech a pair is made of (function words and adverbs carry no fact of their own)
PAIR_POS = frozenset({"NOUN", "PROPN", "VERB", "ADJ", "NUM"})


def _content(t: Any) -> bool:
    return t.pos_ in PAIR_POS and not t.is_stop


def content_head(t: Any) -> Any | None:
    """The nearest content word above `t` in its parse; None at the root, or where that word has `t`'s lemma."""
    h = t.head
    while h.i != h.head.i and not _content(h):
        h = h.head
    if h.i == t.i or not _content(h) or h.lemma_.lower() == t.lemma_.lower():
        return None
    return h


def word_pairs(doc: Iterable[Any]) -> Iterator[tuple[Any, Any]]:
    """(word, the content word it hangs on) for each content word of `doc` that has one."""
    for t in doc:
        if _content(t):
            h = content_head(t)
            if h is not None:
                yield t, h


def invented_pair_share(doc: Iterable[Any], invented: Iterable[int]) -> float:
    """The share of the doc's word pairs with both words found nowhere in the sources (`invented`: those words' start
    offsets in the text); 0 for a doc with no pair."""
    starts = set(invented)
    if not starts:
        return 0.0
    pairs = both = 0
    for t, h in word_pairs(doc):
        pairs += 1
        both += t.idx in starts and h.idx in starts
    return both / pairs if pairs else 0.0


def frames_report(t: Any) -> bool:
    """Does the word frame a report rather than state a fact: a verb of saying or discussing (lexicon.REPORT_VERBS,
    decompose.details.SPEECH_VERBS), or the common noun that is its subject ("The group discussed the costs": "group",
    "discussed")? A summary of a meeting or a call tells who said what in words its transcript never uses; the fact is
    in what hangs below the verb."""
    def reports(v: Any) -> bool:
        return v.pos_ in ("VERB", "AUX") and v.lemma_.lower() in _REPORTING

    if reports(t):
        return True
    return t.pos_ == "NOUN" and t.dep_ in ("nsubj", "nsubjpass") and reports(t.head)
