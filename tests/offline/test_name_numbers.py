"""A name with a number joined on ("COVID-19") is one name with its shorter spelling, and its number is no quantity:
real spaCy parses, the packaged MiniLM."""

from __future__ import annotations

import pytest
from helpers import rules_verifier, whole_unit_features

from citefix.nlp import load_spacy
from citefix.verify.lexical import find_numbers
from citefix.verify.names import _one_spelling, name_substitutions


@pytest.fixture(scope="module")
def nlp():
    return load_spacy()


@pytest.fixture(scope="module")
def verifier():
    return rules_verifier()


def _subs(nlp, text: str, evidence: str):
    return [(s["text"], s["evidence"]) for s in name_substitutions(nlp(text), [(0, len(text))], [nlp(evidence)])]


def test_a_name_and_its_numbered_spelling_are_one_name(nlp):
    assert _subs(nlp, "Sales fell because of the COVID-19 pandemic in most of our markets.",
                 "Sales fell because of the COVID pandemic in most of our markets.") == []


@pytest.mark.parametrize("text, evidence, swapped", [
    # two numbered names: the number tells them apart
    ("The air force ordered more F-16 jets from the maker last year.",
     "The air force ordered more F-15 jets from the maker last year.", "F-16"),
])
def test_two_numbered_names_stay_two(nlp, text, evidence, swapped):
    assert [a for a, _ in _subs(nlp, text, evidence)] == [swapped]


def test_one_spelling_wants_the_shorter_name_to_end_in_a_letter(nlp):
    assert _one_spelling(nlp("COVID-19"), nlp("COVID")) and _one_spelling(nlp("U.S."), nlp("u.s."))
    assert not _one_spelling(nlp("F-16"), nlp("F-1")) and not _one_spelling(nlp("F-16"), nlp("F-15"))


def test_a_names_number_is_no_quantity():
    numbers = find_numbers("The COVID-19 pandemic grounded the F-16 fleet for 19 days.")
    assert [(n.text, n.soft) for n in numbers] == [("19", True), ("16", True), ("19", False)]


def test_a_number_after_a_lower_case_word_and_a_hyphen_is_a_quantity():
    numbers = find_numbers("Prices rose in mid-19 weeks and the team won 3-2 on Sunday.")
    assert [n.text for n in numbers if not n.soft] == ["19", "3", "2"]


def test_a_names_number_the_source_lacks_is_not_a_missing_number(verifier):
    source = ("Revenue fell 12% in the second quarter as the COVID pandemic closed stores in most of our markets, "
              "the chief executive said on the call.")
    _, f = whole_unit_features(verifier, source, "Revenue fell 12% in the second quarter as the COVID-19 pandemic "
                                                 "closed stores.")
    assert f["missing_numbers"] == 0 and f["name_substitution"] == 0, f["structure"]
