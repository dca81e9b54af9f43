"""An antonym said in another part of speech, of the same thing: "a 37% decrease in online sales" where the evidence
says online sales increased, "is decreasing its dividend" where it says "an increase in the dividend", read by
citefix.verify.relations.cross_flip (real spaCy parses, the packaged MiniLM)."""

from __future__ import annotations

import pytest
from helpers import unit_verdict as _verdict

from citefix.nlp import load_spacy
from citefix.verify.predicates import antonym_predicates
from citefix.verify.relations import cross_flip


@pytest.fixture(scope="module")
def verifier(offline_verifier):
    return offline_verifier


@pytest.fixture(scope="module")
def nlp():
    return load_spacy()


def _opposed(v) -> list[tuple[str, str]]:
    """(the unit's word, the evidence's word) of each antonym finding, read from the verdict's conflict records."""
    return [(c["text"], c.get("evidence", "")) for c in v.details.get("conflicts", []) if c["kind"] == "antonym"]


@pytest.mark.parametrize("source, text, pair", [
    ("Within six months of switching, one retail client increased its online sales by 37%, the company said.",
     "One retail client saw a 37% decrease in online sales within six months of switching.", ("decrease", "increased")),
    ("The board announced an increase in the quarterly dividend to 13 cents a share on Tuesday.",
     "The board is decreasing the quarterly dividend to 13 cents a share.", ("decreasing", "increase")),
    ("Like-for-like sales at the Harlow stores fell 1.1% in the eight weeks to February, the retailer said.",
     "The retailer reported a 1.1% rise in like-for-like sales at the Harlow stores.", ("rise", "fell")),
])
def test_an_antonym_in_another_part_of_speech_is_unsupported(verifier, source, text, pair):
    v = _verdict(verifier, text, source)
    assert (v.label, _opposed(v)) == ("unsupported", [pair]), v.details


@pytest.mark.parametrize("source, text", [
    # the same change said as a noun and as a verb
    ("Sales increased sharply in the second half, the retailer said.",
     "The retailer reported a sharp increase in sales in the second half."),
    ("There was a fall in running costs at the depot last year.", "Running costs at the depot fell last year."),
    # opposite changes of different things oppose nothing
    ("The council announced an increase in parking charges and said it would cut bus fares.",
     "The council is decreasing bus fares."),
])
def test_the_same_change_or_another_things_is_no_antonym(verifier, source, text):
    assert not _opposed(_verdict(verifier, text, source))


def test_a_negated_evidence_word_opposes_nothing(nlp):
    unit, region = nlp("Testers pointed out the lack of digits."), nlp("It has no digits at all, only a scroll wheel.")
    assert cross_flip(unit[4], [region]) is None  # "lack"
    assert not antonym_predicates(unit, [(0, len(unit.text))], [region], cross=True)


def test_two_verbs_are_left_to_the_predicate_check(nlp):
    # "rose" / "fell" of the same subject is the antonym predicate check's (citefix.verify.predicates.opposite_in); the
    # cross check reads only pairs with a noun
    unit, region = nlp("Sales rose 5% in May."), nlp("Sales fell 5% in May.")
    assert cross_flip(unit[1], [region]) is None
    assert [c["text"] for c in antonym_predicates(unit, [(0, len(unit.text))], [region])] == ["rose"]
