"""The negation check reads which of the source's occurrences of a verb the unit restates on the two spaCy parses:
the occurrence whose own predication (its clause's words, and the subject it takes from the word it hangs on) shares
the unit verb's words, not the one that happens to stand near them. `local.predication` switches it off."""

from __future__ import annotations

import copy

import pytest

from citefix.models import Case, Source, Unit
from citefix.nlp import load_spacy
from citefix.verify.offline import OfflineVerifier, load_params
from citefix.verify.predication import predication_tokens, same_predication


@pytest.fixture(scope="module")
def verifiers():
    on = load_params()
    off = copy.deepcopy(on)
    off.setdefault("local", {})["predication"] = False
    return OfflineVerifier(params=on), OfflineVerifier(params=off)


@pytest.fixture(scope="module")
def nlp():
    return load_spacy()


def _negation(v: OfflineVerifier, source: str, text: str) -> int:
    case = Case(id="c", sources=[Source(id="s", text=source)], text=text, kind="summary")
    unit = Unit(id="u1", text=text, kind="sentence", decomposer="whole", start=0, end=len(text))
    return int(v.verify([unit], case)[0].details["features"]["polarity_negation"])


def _words(tokens) -> set[str]:
    return {t.lower_ for t in tokens}


def test_a_conjoined_verb_is_said_of_the_subject_it_shares(nlp):
    doc = nlp("Sales rose in May and then fell in June.")
    fell = next(t for t in doc if t.lower_ == "fell")
    assert {"sales", "june"} <= _words(predication_tokens(fell))


def test_a_verb_under_a_relative_clause_is_said_of_the_noun_the_clause_hangs_on(nlp):
    doc = nlp("Schools reported that children who aren't ready to learn cannot progress.")
    learn = next(t for t in doc if t.lower_ == "learn")
    assert "children" in _words(predication_tokens(learn))


def test_the_occurrence_with_the_units_predication_is_the_one_read(nlp):
    unit = nlp("The board approved the budget.")
    verb = next(t for t in unit if t.lemma_ == "approve")
    region = nlp("The council approved the plan, but the board did not approve the budget.")
    occurrences = [t for t in region if t.lemma_ == "approve"]
    assert same_predication(verb, occurrences, [t.i for t in occurrences]) == [occurrences[1].i]
    # another predication of the same verb, sharing no word with the unit's, says nothing of it
    other = nlp("The council did not approve the plan.")
    occ = [t for t in other if t.lemma_ == "approve"]
    assert same_predication(verb, occ, [t.i for t in occ]) == []


def test_a_negation_of_the_units_own_predication_is_found_where_the_words_near_it_tie(verifiers):
    on, off = verifiers
    source = "The council approved the plan, but the board did not approve the budget."
    # both occurrences stand near "board" and "budget": by the words near them the two polarities tie and nothing is
    # found; on the parse, the board's "approve" is the one the unit restates, and it is negated
    assert _negation(on, source, "The board approved the budget.") == 1
    assert _negation(off, source, "The board approved the budget.") == 0
    # the faithful statements of the same sentence stay unflagged either way
    for text in ("The council approved the plan.", "The board did not approve the budget."):
        assert _negation(on, source, text) == 0, text
        assert _negation(off, source, text) == 0, text


def test_a_verb_the_source_states_in_the_units_predication_elsewhere_is_not_contradicted(verifiers):
    on, _ = verifiers
    source = ("The board did not approve the budget in March. After a second vote in April, the board approved the "
              "budget, the council said.")
    assert _negation(on, source, "The board approved the budget.") == 0
