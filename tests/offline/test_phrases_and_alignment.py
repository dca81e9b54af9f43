"""Phrases of one meaning (WordNet's "let down" for "disappoint") are read as runs of words in the unit and in the
sources, never across a preposition's object; and a word the evidence holds in other words is not scored as unaligned
(real spaCy parses, the packaged MiniLM)."""

from __future__ import annotations

import json

import pytest
from helpers import unit_verdict as _verdict

from citefix.verify.offline import OfflineVerifier
from citefix.verify.synonyms import senses


@pytest.fixture(scope="module")
def verifier(offline_verifier):
    return offline_verifier


def test_the_table_holds_phrases_with_spaces():
    assert senses("let down", "VERB") & senses("disappoint", "VERB")
    assert senses("by chance", "ADV") & senses("accidentally", "ADV")
    assert senses("carry on") & senses("continue")
    assert not senses("let_down")  # written with spaces, as the words stand in a text


@pytest.mark.parametrize("source, text, word", [
    # a phrase in the unit, its one-word synonym in the source
    ("Derek Alston said members of the group were disappointed by the decision.",
     "Derek Alston said members of the group were let down by the decision.", "let"),
    # a one-word synonym in the unit, the phrase in the source
    ("The council leader said he would carry on governing as a minority administration.",
     "The council leader said he would continue governing as a minority administration.", "continue"),
])
def test_a_phrase_of_the_same_meaning_is_no_invented_or_missing_word(verifier, source, text, word):
    v = _verdict(verifier, text, source)
    assert word not in v.details["invented"], v.details
    assert word not in v.details["missing_words"], v.details


def test_a_phrase_does_not_end_on_a_preposition(verifier):
    """"born on the island" is no "bear on" (concern), though the source says "concerns": a preposition (tagged IN)
    takes its own object, a particle ("let down", "carry on") does not."""
    source = "The report concerns the eagles released on Marrow Island. Dr Elena Hart leads the project."
    v = _verdict(verifier, "Dr Elena Hart, who was born on Marrow Island, leads the project.", source)
    assert "born" in v.details["missing_words"], v.details
    # (the price: a phrase that does end on one, "the report bears on the eagles", is not read either)


def test_a_phrase_does_not_run_over_punctuation_in_the_source(verifier):
    """"let. Down" in the source is not "let down"."""
    source = "The club said the players would not be let. Down the road, the new stadium opens in May."
    v = _verdict(verifier, "The club said the players were disappointed.", source)
    assert "disappointed" in v.details["missing_words"], v.details


def test_a_word_the_evidence_holds_otherwise_is_aligned(verifier, monkeypatch, tmp_path):
    """"objecting" against "objections": its word pieces align poorly ("##ing" to nothing), but the evidence holds
    the word's family; with `synonyms.alignment` the pieces count as aligned (the token threshold), without it not."""
    source = ("Plans for a solar farm near the village were approved by the planning committee on 3 June, despite "
              "objections from more than 300 residents.")
    text = "More than 300 residents were objecting."
    on = _verdict(verifier, text, source)
    overlay = tmp_path / "p.json"
    overlay.write_text(json.dumps({"synonyms": {"alignment": False}}))
    monkeypatch.setenv("CITEFIX_OFFLINE_PARAMS", str(overlay))
    off = _verdict(OfflineVerifier(), text, source)
    assert on.details["alignment"] > off.details["alignment"], (on.details, off.details)
    assert on.details["local_alignment"] > off.details["local_alignment"]
    # what the evidence does not hold gets no floor: an invented word scores the same either way
    invented = "More than 300 residents were celebrating."
    monkeypatch.delenv("CITEFIX_OFFLINE_PARAMS")
    a = _verdict(verifier, invented, source)
    monkeypatch.setenv("CITEFIX_OFFLINE_PARAMS", str(overlay))
    b = _verdict(OfflineVerifier(), invented, source)
    assert a.details["alignment"] == pytest.approx(b.details["alignment"])
