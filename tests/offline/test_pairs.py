"""A unit's word pairs and the share of them found nowhere in the sources (citefix.verify.pairs), on real spaCy parses,
and the verifier's reading of them through the packaged MiniLM."""

from __future__ import annotations

import pytest

from citefix.models import Case, Source
from citefix.nlp import load_spacy
from citefix.verify.pairs import content_head, invented_pair_share, word_pairs


@pytest.fixture(scope="module")
def nlp():
    return load_spacy()


def _pairs(doc) -> set[tuple[str, str]]:
    return {(t.text, h.text) for t, h in word_pairs(doc)}


def test_each_content_word_pairs_with_the_content_word_it_hangs_on(nlp):
    doc = nlp("Ross Barkley also founded the company")
    pairs = _pairs(doc)
    assert ("company", "founded") in pairs
    assert ("Barkley", "founded") in pairs
    # function words and adverbs make no pair of their own, and the root hangs on nothing
    assert not any(w in ("the", "also") for pair in pairs for w in pair)
    assert content_head(next(t for t in doc if t.text == "founded")) is None


def test_a_pair_skips_the_function_words_between_its_words(nlp):
    doc = nlp("The plan was approved by the council of Harwick")
    assert ("council", "approved") in _pairs(doc)
    assert ("Harwick", "council") in _pairs(doc)


def test_the_share_counts_pairs_with_both_words_invented(nlp):
    doc = nlp("Ross Barkley also founded the company")
    at = {t.text: t.idx for t in doc}
    both = invented_pair_share(doc, [at["founded"], at["company"]])
    one = invented_pair_share(doc, [at["founded"]])  # a new verb with a source's object: a paraphrase's shape
    assert both == pytest.approx(1 / len(_pairs(doc)))
    assert one == 0.0
    assert invented_pair_share(doc, []) == 0.0
    assert invented_pair_share(nlp("Yes."), [0]) == 0.0  # no pair at all


def test_the_verifier_stores_the_share_a_new_fact_gets_and_a_paraphrase_does_not(offline_verifier):
    from citefix.decompose.clauses import ClauseDecomposer

    source = ("Opposition councillor Tom Leary voted against the plan. He said the council should have used the land "
              "for affordable housing.")
    case = Case(id="c", sources=[Source(id="1", text=source)], kind="summary",
                text="Tom Leary opposed the plan. Tom Leary chairs the housing committee.")
    units = ClauseDecomposer().units(case)
    feats = {u.text: f for u, f in zip(units, offline_verifier.features(units, case))}
    new = [f for t, f in feats.items() if "committee" in t]
    kept = [f for t, f in feats.items() if "opposed" in t]
    assert new and all(f["invented_pairs"] > 0 for f in new), feats
    assert kept and all(f["invented_pairs"] == 0 for f in kept), feats
