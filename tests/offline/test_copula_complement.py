"""A negated copula denies only its own complement: a source's "it's not very expensive" does not contradict a unit's
"the price was reasonable" (whether "reasonable" is supported is for the words found in the sources to say), while
"is not expensive" against "was expensive", and "is not American" against "is an American bounty hunter", are still
read as the other polarity. Real parses and the packaged offline verifier."""

from __future__ import annotations

import pytest

from citefix.models import Case, Source, Unit
from citefix.nlp import load_spacy
from citefix.verify.offline import OfflineVerifier
from citefix.verify.predication import another_complement


@pytest.fixture(scope="module")
def nlp():
    return load_spacy()


@pytest.fixture(scope="module")
def verifier():
    return OfflineVerifier()


def _be(nlp, text: str):
    return next(t for t in nlp(text) if t.lemma_ == "be")


def _negation(v: OfflineVerifier, source: str, text: str) -> int:
    case = Case(id="c", sources=[Source(id="s", text=source)], text=text, kind="summary")
    unit = Unit(id="u1", text=text, kind="sentence", decomposer="whole", start=0, end=len(text))
    return int(v.verify([unit], case)[0].details["features"]["polarity_negation"])


@pytest.mark.parametrize("unit, source", [
    ("The price was reasonable for a remote control.", "Well, it's not very expensive for a remote control."),
    ("The hall was empty.", "The hall was not full."),
    ("The plan was popular with residents.", "The plan was not approved by residents."),
    ("The costs were too high for the luxury model.", "The costs are not under."),
])
def test_a_copula_with_another_complement_is_another_predication(nlp, unit, source):
    assert another_complement(_be(nlp, unit), _be(nlp, source))


@pytest.mark.parametrize("unit, source", [
    ("The price was expensive for a remote control.", "Well, it's not very expensive for a remote control."),
    # the unit's complement said inside the source's ("an American bounty hunter")
    ("Duane Chapman is not American.", "Duane Lee Chapman is an American bounty hunter."),
    # a WordNet synonym is the same complement
    ("The answer was correct.", "The answer was not right."),
])
def test_the_same_complement_is_the_same_predication(nlp, unit, source):
    assert not another_complement(_be(nlp, unit), _be(nlp, source))


def test_a_negated_copula_is_no_contradiction_of_another_complement(verifier):
    source = ("Industrial Designer: well, it's not it's not very expensive for a remote control that has this "
              "functionality.")
    assert _negation(verifier, source, "The price was reasonable for a remote control with this functionality.") == 0
    assert _negation(verifier, source, "The price was expensive for a remote control with this functionality.") == 1


@pytest.mark.parametrize("text, source", [
    ("The bridge was open to traffic in May.", "The bridge was not open to traffic in May, the council said."),
    ("Chile is not a nation.", "Chile is today one of South America's most stable and prosperous nations."),
    ("Duane Chapman is not American.",
     'Duane Lee "Dog" Chapman (born February 2, 1953) is an American bounty hunter and a former bail bondsman.'),
])
def test_a_negation_of_the_same_complement_is_still_found(verifier, text, source):
    assert _negation(verifier, source, text) == 1
