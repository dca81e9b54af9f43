"""The words that frame a report ("the group discussed …", "the team mentioned that …") are not counted as found
nowhere in the sources; the facts the report carries still are: the offline verifier on real spaCy parses and the
packaged MiniLM."""

from __future__ import annotations

import pytest
from helpers import rules_verifier, whole_unit_features

from citefix.nlp import load_spacy
from citefix.verify.pairs import frames_report

MEETING = ("Project Manager: Okay, so the next thing is the cost of the remote. "
           "Industrial Designer: The solar cell and the speech recognition push the production cost over twelve euros. "
           "Marketing: That's too high for what we sell it at, we need it under twelve fifty.")


@pytest.fixture(scope="module")
def verifier():
    return rules_verifier()


@pytest.fixture(scope="module")
def nlp():
    return load_spacy()


def _invented(verifier, source: str, text: str) -> list[str]:
    _, f = whole_unit_features(verifier, source, text)
    return [w["text"] for w in f["invented"]]


@pytest.mark.parametrize("text, frame", [
    ("The group discussed the production costs of the product.", ["group", "discussed"]),
    ("The team mentioned that the costs were too high.", ["team", "mentioned"]),
    ("Marketing agreed to the plan.", ["Marketing", "agreed"]),  # a speaker named by the role
    ("The designers were asked about the costs.", ["designers", "asked"]),
])
def test_the_verb_of_a_report_and_its_subject_frame_it(nlp, text, frame):
    assert [t.text for t in nlp(text) if frames_report(t)] == frame


def test_a_fact_told_in_other_words_is_no_frame(nlp):
    doc = nlp("Opposition councillor Tom Leary chairs the housing committee.")
    assert not any(frames_report(t) for t in doc)


def test_a_meeting_summary_frames_its_facts_in_words_the_transcript_lacks(verifier):
    invented = _invented(verifier, MEETING, "The group discussed the production cost of the remote.")
    assert "group" not in invented and "discussed" not in invented


def test_what_the_report_says_is_still_read(verifier):
    """The frame is excused; a fact the transcript lacks, hung below it, is not."""
    invented = _invented(verifier, MEETING, "The group discussed hiring a celebrity ambassador for the launch.")
    assert {"celebrity", "ambassador"} <= set(invented)
    assert "discussed" not in invented


def test_the_frame_can_be_switched_off():
    from helpers import rules_params

    from citefix.verify.offline import OfflineVerifier

    p = rules_params()
    p.setdefault("local", {})["report_frames"] = False
    invented = _invented(OfflineVerifier(params=p), MEETING, "The group discussed the production cost of the remote.")
    assert {"group", "discussed"} <= set(invented)
