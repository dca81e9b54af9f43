"""A change's values and a relative time read as the source means them: where a change ends ("improved to $3.69")
is not contradicted by where it started ("improved from $3.41"), an amount said on a clause of its own is not said on
the verb before it, and "last year" is the time the source calls "a year ago" (the offline verifier on real spaCy
parses, the packaged MiniLM)."""

from __future__ import annotations

import pytest
from helpers import whole_unit_features

from citefix.nlp import load_spacy
from citefix.verify.times import time_steps
from citefix.verify.local import anchor_lemma, change_prep
from citefix.verify.offline import OfflineVerifier

EPS = ("Diluted earnings per share were $3.69 for the third quarter, improved from $3.41 in the second quarter and "
       "$2.75 in the third quarter of 2020. Net interest income was $971 million in the third quarter.")


@pytest.fixture(scope="module")
def verifier():
    return OfflineVerifier()


def _conflicts(f) -> list[str]:
    return [s["text"] for s in f["structure"] if s.get("kind") == "conflict"]


def test_the_end_of_a_change_is_not_contradicted_by_its_start(verifier):
    _, f = whole_unit_features(verifier, EPS, "Diluted earnings per share improved to $3.69.")
    assert _conflicts(f) == [], f["structure"]


def test_a_value_at_the_same_end_still_contradicts(verifier):
    source = "Quarterly revenue rose to $5.2 million from $4.8 million, the company said."
    _, f = whole_unit_features(verifier, source, "Quarterly revenue rose to $6.1 million, the company said.")
    assert _conflicts(f) == ["$6.1 million"], f["structure"]
    # a value with no preposition stands in every slot of its word
    _, f = whole_unit_features(verifier, source, "Quarterly revenue rose $6.1 million, the company said.")
    assert "$6.1 million" in _conflicts(f), f["structure"]


def test_listed_values_share_their_preposition():
    doc = load_spacy()(EPS)
    preps = {e.text: change_prep(e) for e in doc.ents if e.label_ == "MONEY"}
    assert preps["3.41"] == "from" and preps["2.75"] == "from", preps


def test_an_amount_on_a_clause_of_its_own():
    doc = load_spacy()("Earnings per share improved to $3.69 and net interest income was $971 million.")
    amount = next(e for e in doc.ents if "971" in e.text)
    assert anchor_lemma(amount) == "be"
    _, f = whole_unit_features(OfflineVerifier(), EPS,
                               "Diluted earnings per share improved to $3.69 and net interest income was $971 million.")
    assert _conflicts(f) == [], f["structure"]


def test_relative_times_as_steps():
    assert [s[:2] for s in time_steps("compared to last year, up from a year ago and the prior quarter")] == [
        (-1, "year"), (-1, "year"), (-1, "quarter")]
    assert [s[:2] for s in time_steps("three weeks ago, next month, two years later, this year")] == [
        (-3, "week"), (1, "month"), (2, "year"), (0, "year")]


def test_last_year_is_a_year_ago(verifier):
    source = "On a GAAP basis, earnings per share was $0.21 in the first quarter versus $0.02 a year ago."
    _, f = whole_unit_features(verifier, source, "Earnings per share rose compared to last year.")
    assert not [m for m in f["missing"] if m["kind"] == "date"], f["missing"]
    # another step back is still a time the source does not give
    _, f = whole_unit_features(verifier, source, "Earnings per share rose compared to two years ago.")
    assert [m["text"] for m in f["missing"] if m["kind"] == "date"] == ["two years ago"]


def test_the_number_of_a_cited_text_or_a_list_item_is_no_quantity():
    from citefix.verify.lexical import find_numbers

    soft = {n.text: n.soft for n in find_numbers("The authors of Passage ID 3 declare no conflict, as source [2] says.")}
    assert soft == {"3": True, "2": True}
    assert [n.soft for n in find_numbers("You can suggest these strategies:\n\n1\n")] == [True]
    assert [n.soft for n in find_numbers("There were 3 sources, and Route 1 is long.")] == [False, False]


def test_a_value_joined_to_another_hangs_where_that_one_does():
    doc = load_spacy()("Copa reported a net profit of $8.2 million or $0.19 per share.")
    per_share = next(e for e in doc.ents if e.text.endswith("0.19"))
    assert anchor_lemma(per_share) == "profit"


def test_the_value_written_in_the_units_own_words_is_no_conflict(verifier):
    source = ("During the quarter, we agreed with Boeing to accelerate the delivery of 12 737 MAX 9 that were "
              "originally intended to be delivered in 2025, for a total of seven MAX 9 deliveries next year.")
    _, f = whole_unit_features(verifier, source, "The company agreed to accelerate 12 737 MAX 9 aircraft deliveries.")
    assert _conflicts(f) == [], f["structure"]


def test_a_time_on_the_noun_or_on_its_verb(verifier):
    source = ("Fourth-quarter revenue of $3.636 billion grew 10.2%. For the first quarter, our revenue is expected to "
              "be between $3.515 billion and $3.575 billion.")
    _, f = whole_unit_features(verifier, source, "Their revenue for the first quarter of the year is expected to be "
                                                 "between $3.515 billion and $3.575 billion.")
    assert _conflicts(f) == [], f["structure"]
    # a quarter the source does not give for it still contradicts it
    _, f = whole_unit_features(verifier, source, "Their revenue for the third quarter of the year is expected to be "
                                                 "between $3.515 billion and $3.575 billion.")
    assert "the third quarter of the year" in _conflicts(f), f["structure"]


def test_an_acronym_the_source_spells_out(verifier):
    source = "Organic revenues in the second quarter were up 19% year-over-year, and earnings per share rose 38%."
    _, f = whole_unit_features(verifier, source, "Revenues rose 19% YoY in the second quarter.")
    assert not [m for m in f["missing"] if m["kind"] == "entity"], f["missing"]
    _, f = whole_unit_features(verifier, source, "Revenues rose 19% at IBM in the second quarter.")
    assert [m["text"] for m in f["missing"] if m["kind"] == "entity"] == ["IBM"]
