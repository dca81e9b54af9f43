"""Values written the way a summary rounds them, and names read by where they stand (real spaCy parses, the packaged
MiniLM): a share as a fraction ("nearly two-thirds" for 64 percent), a span in decades ("more than four decades" for
41 years), an approximating word ("roughly") are not invented; a fraction the source does not bear out still is; a
name put on a noun or a speaker the source gives to another name is contradicted; the one who does what a
complement verb says is its head's subject."""

from __future__ import annotations

import pytest
from helpers import units_verdicts

from citefix.decompose.clauses import ClauseDecomposer
from citefix.verify.lexical import find_numbers, number_supported
from citefix.verify.local import name_slot, roles, same_value
from citefix.verify.offline import OfflineVerifier

VOTE = ("Union secretary Rosa Delgado said 78 percent of members who voted had backed strike action, on a turnout "
        "of 64 percent. The club reached its first cup final in 41 years. Sewage discharges into the river fell by a "
        "third last year. It was the driest spring in more than 50 years.")


@pytest.fixture(scope="module")
def tools():
    return ClauseDecomposer(), OfflineVerifier()


@pytest.mark.parametrize("text, value", [
    ("more than three-quarters of members", 75.0),
    ("a turnout of nearly two-thirds.", 200 / 3),
    ("declined by roughly one third", 100 / 3),
    ("fell by a third", 100 / 3),
    ("a quarter of new flats", 25.0),
    ("in more than four decades", 40.0),
    ("over half a century", 50.0),
])
def test_fractions_and_decades_are_read_as_the_values_they_name(text, value):
    (n,) = find_numbers(text)
    assert n.value == pytest.approx(value)


@pytest.mark.parametrize("text", ["the first half", "a third term", "in the second half."])
def test_what_is_no_fraction(text):
    assert not [n for n in find_numbers(text) if n.unit]


def test_a_rounded_value_names_what_lies_within_a_tenth_of_it():
    (two_thirds,) = find_numbers("nearly two-thirds of members")
    assert number_supported(two_thirds, [64.0]) and not number_supported(two_thirds, [50.0])
    assert same_value("over half a century", "more than 50 years")
    assert same_value("nearly two-thirds", "64 percent") and not same_value("two-thirds", "40 percent")
    assert same_value("just 23", "23")


@pytest.mark.parametrize("said, source, same", [
    ("about 4%", "four percent", True),  # the sign or the word, and a rough amount against the amount
    ("about 4%", "roughly 4 per cent", True),
    ("about 4%", "five percent", False),
    ("over a hundred years", "more than a century", True),  # an article before the scale word is no word of it
    ("over a hundred years", "nearly a century", False),  # a bound either side of it
    ("an estimated £600,000", "around £600,000", True),  # the article of a bound phrase is the phrase's
])
def test_one_value_said_with_its_sign_or_its_word(said, source, same):
    assert same_value(said, source) is same and same_value(source, said) is same


@pytest.mark.parametrize("text", [
    "More than three-quarters of voting union members backed strike action, on a turnout of nearly two-thirds.",
    "The club reached its first cup final in more than four decades.",
    "Sewage discharges into the river declined by roughly one third last year.",
    "It was the driest spring in over half a century.",
])
def test_a_value_rounded_as_a_writer_would_is_supported(tools, text):
    out = units_verdicts(tools, VOTE, text)
    assert all(not v.details["missing"] and not v.details["structure"] for v in out.values()), \
        {u: (v.details["missing"], v.details["structure"]) for u, v in out.items()}
    assert not any(w in ("roughly", "quarters", "decades") for v in out.values() for w in v.details["invented"])


def test_a_fraction_the_source_does_not_bear_out_is_still_missing(tools):
    out = units_verdicts(tools, VOTE, "Nine-tenths of members who voted backed strike action.")
    assert any("Nine-tenths" in v.details["missing"] for v in out.values()), \
        {u: v.details["missing"] for u, v in out.items()}


def test_where_a_name_stands():
    nlp = ClauseDecomposer().nlp
    a = nlp("Norvale will shut its Wakefield factory.")
    b = nlp("The company will close its factory in Doncaster and move production to its plant in Wakefield.")
    c = nlp("Opponents, led by the Civic Society, said they would ask the government to review the decision.")
    slot = lambda doc, name: next((w.lemma_, r) for w, r in [name_slot(e) for e in doc.ents if e.text == name])  # noqa: E731
    assert slot(a, "Wakefield") == ("factory", "modifier") == slot(b, "Doncaster")
    assert slot(b, "Wakefield") == ("plant", "modifier")
    assert slot(c, "the Civic Society") == ("say", "nsubj")


def test_a_speaker_the_source_gives_to_another_name_is_contradicted(tools):
    source = ("Councillors voted 7-4 to approve plans for 320 new homes proposed by Greystone Homes. Opponents, led by "
              "the Civic Society, said they would ask the government to review the decision.")
    out = units_verdicts(tools, source, "Greystone Homes said it would ask the government to review the decision.")
    assert any(s.startswith("conflict: Greystone Homes") for v in out.values() for s in v.details["structure"]), \
        {u: v.details["structure"] for u, v in out.items()}
    fine = units_verdicts(tools, source, "The Civic Society said it would ask the government to review the decision.")
    assert not any(s.startswith("conflict") for v in fine.values() for s in v.details["structure"])


def test_a_complement_verb_is_done_by_its_heads_subject_or_object():
    nlp = ClauseDecomposer().nlp
    buy = next(t for t in nlp("Pellham Brands has agreed to buy Nordvik.") if t.lemma_ == "buy")
    assert roles(buy)[0] == {"pellham", "brands"}
    resume = next(t for t in nlp("The minister urged Unison to resume talks.") if t.lemma_ == "resume")
    assert roles(resume)[0] == {"unison"}


@pytest.mark.parametrize("text, value", [
    ("the 25-million-crown emergency fund", 25e6),  # a scale word joined by a hyphen
    ("the women's 10,000m race", 10_000.0),  # metres: no one writes ten billion so
    ("a £45m deal", 45e6),
])
def test_scale_words_and_metres(text, value):
    assert [n.value for n in find_numbers(text)] == [value]


def test_a_change_said_the_other_way_round_is_an_antonym(tools):
    source = "Pellham's sales grew 18 percent last year to $640 million, while profits fell slightly."
    out = units_verdicts(tools, source, "Pellham's sales dropped 18 percent last year.")
    assert any(s == "antonym: dropped" for v in out.values() for s in v.details["structure"]), \
        {u: v.details["structure"] for u, v in out.items()}
    same = units_verdicts(tools, source, "Pellham's sales rose 18 percent last year, while its profits dropped.")
    assert not any(s.startswith("antonym") for v in same.values() for s in v.details["structure"])


def test_a_phrase_of_stop_words_is_no_detail_of_its_own(tools):
    dec, _ = tools
    from citefix.models import Case, Source

    case = Case(id="c", sources=[Source(id="1", text="x")],
                text="Kingsport captain Joel Mensah headed his side in front after 12 minutes.")
    assert [u.text for u in dec.units(case)] == ["Kingsport captain Joel Mensah headed his side in front",
                                                "Kingsport captain Joel Mensah headed his side in front after 12 minutes"]
