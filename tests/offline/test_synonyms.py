"""Words the sources say in other words (WordNet synonyms and word families) are no invented words, and the table
they come from is WordNet's, with its licence; what is truly invented stays capped (real spaCy parses, the packaged
MiniLM)."""

from __future__ import annotations

import json
from importlib import resources

import pytest
from helpers import rules_verifier
from helpers import unit_verdict as _verdict

from citefix.verify.offline import OfflineVerifier, load_params
from citefix.verify.synonyms import senses


@pytest.fixture(scope="module")
def verifier(offline_verifier):
    return offline_verifier


def test_the_table_is_wordnets_with_its_licence():
    raw = json.loads(resources.files("citefix").joinpath("data/synonyms.json").read_text(encoding="utf-8"))
    assert "WordNet 3.0 Copyright 2006 by Princeton University" in raw["license"]
    assert senses("rest", "NOUN") & senses("remainder", "NOUN")
    assert senses("shut", "VERB") & senses("close", "VERB")
    assert not senses("rest", "NOUN") & senses("remainder", "VERB")  # one part of speech at a time
    assert not senses("far", "ADJ")  # a name's synset ("FAR", a rebel group) is not taken
    assert ["object", "objection"] in raw["derived"]
    assert all("_" not in w and w == w.lower() for g in raw["noun"] for w in g)


@pytest.mark.parametrize("source, text, word", [
    # a synonym in a most frequent sense: "rest" / "remainder"
    ("The project will be funded partly through a £1.8 million grant, with the remainder coming from council reserves.",
     "Council reserves will pay for the rest of the renovation.", "rest"),
    # a word of the same family: "objecting" / "objections"
    ("The committee approved the solar farm despite objections from more than 300 residents.",
     "The committee approved the solar farm although over 300 residents were objecting.", "objecting"),
])
def test_a_word_the_source_says_otherwise_is_not_invented(verifier, source, text, word):
    v = _verdict(verifier, text, source)
    assert word not in v.details["invented"], v.details


def test_the_same_words_are_invented_with_the_synonyms_turned_off(monkeypatch, tmp_path):
    overlay = tmp_path / "p.json"
    overlay.write_text(json.dumps({"synonyms": {"invented": False, "lexical": False}}))
    monkeypatch.setenv("CITEFIX_OFFLINE_PARAMS", str(overlay))
    off = OfflineVerifier()
    source = ("The project will be funded partly through a £1.8 million grant, with the remainder coming from council "
              "reserves.")
    v = _verdict(off, "Council reserves will pay for the rest of the renovation.", source)
    assert "rest" in v.details["invented"]
    assert "rest" in v.details["missing_words"]


def test_a_synonym_counts_as_the_sources_word_in_the_lexical_signal(verifier):
    source = "The factory will shut in March, the company said."
    v = _verdict(verifier, "The company said the factory will close in March.", source)
    assert "close" not in v.details["missing_words"], v.details
    assert v.details["lexical"] == pytest.approx(1.0)


def test_an_invented_detail_stays_invented(verifier):
    """Synonyms do not excuse what the source never says: 'chairs the housing committee'."""
    source = ("Opposition councillor Tom Leary voted against the plan. He said the council should have used the land "
              "for affordable housing.")
    v = _verdict(verifier, "Opposition councillor Tom Leary chairs the housing committee", source)
    assert sorted(v.details["invented"]) == ["chairs", "committee"]
    ruled = _verdict(rules_verifier(), "Opposition councillor Tom Leary chairs the housing committee", source)
    assert ruled.label == "unsupported" and ruled.score <= load_params()["cap"]["score"] + 1e-9
