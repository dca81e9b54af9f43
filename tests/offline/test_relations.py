"""Relation words said the other way round (citefix.verify.relations) on real spaCy parses: caught as a contradiction
of the unit's evidence, put back by the offline reviser, and not read into text that says the same relation, another
relation of another thing, or the opposite under a negation."""

from __future__ import annotations

import pytest
from helpers import offline_revision, units_verdicts

from citefix.decompose.clauses import ClauseDecomposer
from citefix.verify.offline import OfflineVerifier
from citefix.verify.relations import OPPOSITE_RELATIONS, anchor

SOURCE = ("Shares in Northwind Energy were down 6% on Tuesday after the company cut its profit forecast. "
          "The board voted against a proposal to split the company into two businesses. "
          "Chief executive Laura Chen said the cuts would be made before the end of the year. "
          "Its new headquarters will sit above the old railway station in Leeds. "
          "Analysts said the company had fallen behind its rivals in offshore wind.")


@pytest.fixture(scope="module")
def tools():
    return ClauseDecomposer(), OfflineVerifier()


_check = units_verdicts


def _flips(out) -> set[str]:
    return {s for v in out.values() for s in v.details["structure"] if s.startswith("antonym")}


@pytest.mark.parametrize("text, word", [
    ("Shares in Northwind Energy were up 6% on Tuesday.", "up"),
    ("The board voted for a proposal to split the company.", "for"),
    ("Laura Chen said the cuts would be made after the end of the year.", "after"),
    ("Its new headquarters will sit below the old railway station in Leeds.", "below"),
    ("Analysts said the company had moved ahead of its rivals in offshore wind.", "ahead"),
])
def test_a_relation_said_the_other_way_round_is_unsupported(tools, text, word):
    out = _check(tools, SOURCE, text)
    assert f"antonym: {word}" in _flips(out), {u: v.details["structure"] for u, v in out.items()}
    assert any(v.label == "unsupported" for v in out.values()), {u: (v.label, v.score) for u, v in out.items()}


@pytest.mark.parametrize("text", [
    "Shares in Northwind Energy were down 6% on Tuesday.",  # the same relation
    "The board voted against splitting the company.",
    "Chen said the cuts would come before the end of the year.",
    "The board did not vote for the proposal to split the company.",  # negated: agrees with "against"
    "The new headquarters will sit below a hotel.",  # below another thing: not what the source relates
])
def test_what_is_no_relation_flip(tools, text):
    out = _check(tools, SOURCE, text)
    assert not _flips(out), {u: v.details["structure"] for u, v in out.items()}


def test_a_region_saying_both_relations_of_different_things():
    """"above A and below B": "below B" is said, "below A" is the flip."""
    from citefix.nlp import load_spacy
    from citefix.verify.relations import relation_flip

    nlp = load_spacy()
    region = nlp("The club is two points above Wigan and one point below Bolton.")
    said = nlp("The club is one point below Bolton.")
    flipped = nlp("The club is two points below Wigan.")
    assert relation_flip(next(t for t in said if t.lower_ == "below"), [region]) is None
    r = relation_flip(next(t for t in flipped if t.lower_ == "below"), [region])
    assert r is not None and r.lower_ == "above"
    assert anchor(next(t for t in region if t.lower_ == "above")) == frozenset({"wigan"})


def test_the_pairs_are_symmetric():
    for a, opp in OPPOSITE_RELATIONS.items():
        for b in opp:
            assert a in OPPOSITE_RELATIONS[b]


def test_the_reviser_puts_the_evidence_relation_back(tools):
    text = ("Shares in Northwind Energy were up 6% on Tuesday. The board voted for a proposal to split the company "
            "into two businesses. Its new headquarters will sit below the old railway station in Leeds.")
    r = offline_revision(tools, SOURCE, text)
    assert r.text == ("Shares in Northwind Energy were down 6% on Tuesday. The board voted against a proposal to split "
                      "the company into two businesses. Its new headquarters will sit above the old railway station "
                      "in Leeds."), r.edits
    assert {(e["text"], e["new"]) for e in r.edits} == {("up", "down"), ("for", "against"), ("below", "above")}


TRIAL = ("Patients who took the drug, amlodipine, scored 12% higher on memory tests than those given a placebo. "
         "Inflation rose faster than wages last year. Prices were 5% lower than a year before.")


AID = ("The UK will send a team of engineers to repair wells in the north of the country. Fighting has spread to "
       "southern Sudan, officials said.")


@pytest.mark.parametrize("source, text, word", [
    # comparatives with a figure or a "than"
    (TRIAL, "Patients who took the drug scored 12% lower on memory tests.", "lower"),
    (TRIAL, "Inflation rose slower than wages last year.", "slower"),
    # the compass
    (AID, "Engineers will repair wells in the south of the country.", "south"),
    (AID, "Officials said fighting has spread to northern Sudan.", "northern"),
])
def test_a_comparative_or_compass_point_said_the_other_way_round(tools, source, text, word):
    out = _check(tools, source, text)
    assert f"antonym: {word}" in _flips(out), {u: v.details["structure"] for u, v in out.items()}


@pytest.mark.parametrize("source, text", [
    (TRIAL, "Patients who took the drug scored 12% higher on memory tests."),
    (TRIAL, "Inflation rose faster than wages."),
    (TRIAL, "Patients who took the drug scored lower on sleep tests."),  # no figure and no "than": nothing to hang on
    (AID, "Engineers will repair wells in the north of the country."),
    (AID, "Officials said fighting has spread to southern Sudan."),
    (AID, "Officials said fighting has spread to South Sudan."),  # a name, not a part of one: the name checks' business
])
def test_what_is_no_comparative_or_compass_flip(tools, source, text):
    out = _check(tools, source, text)
    assert not _flips(out), {u: v.details["structure"] for u, v in out.items()}


def test_the_reviser_puts_the_evidence_comparative_back(tools):
    r = offline_revision(tools, TRIAL,
                         "Patients who took the drug scored 12% lower on memory tests than those given a placebo.")
    assert r.text == "Patients who took the drug scored 12% higher on memory tests than those given a placebo.", r.edits


@pytest.mark.parametrize("source, text, word", [
    # a comparative that is the predicate, with its figure: "four minutes slower" / "four minutes faster"
    ("Claire Watts said journeys would be four minutes faster than at present, taking 22 minutes.",
     "Claire Watts said journeys would be four minutes slower than at present.", "slower"),
    # one that qualifies a noun, with its figure ("a 30% higher risk")
    ("The study found that people walking 7,000 steps a day had a 30% lower risk of heart disease.",
     "People walking 7,000 steps a day had a 30% higher risk of heart disease.", "higher"),
    # compared with a clause the parser hangs on the verb ("later than expected")
    ("Dr Helen Marsh said the benefits appeared earlier than expected, with differences visible after two years.",
     "Dr Helen Marsh said the benefits appeared later than expected.", "later"),
    # the object hung on as a modifier at the text's end ("below average.")
    ("Temperatures are expected to be above average for the rest of the week, forecasters said.",
     "Temperatures are forecast to be below average", "below"),
    # a compass word as a compound ("the north side")
    ("The museum's new glass wing sits on the south side of the original 1930s building.",
     "The museum's new glass wing sits on the north side of the original building.", "north"),
])
def test_relations_in_the_shapes_the_parser_gives_them(tools, source, text, word):
    out = _check(tools, source, text)
    assert f"antonym: {word}" in _flips(out), {u: v.details["structure"] for u, v in out.items()}


def test_higher_fares_with_no_figure_or_comparison_is_no_relation(tools):
    out = _check(tools, "Fares will not increase as part of the changes, Watts added. Prices were lower last year.",
                 "The changes would not bring higher fares.")
    assert not _flips(out)


TRAINS = ("The company said the change would allow it to run longer trains with more seats at peak times. "
          "The match lasted two hours and 41 minutes, longer than any other women's match at the tournament this year.")


@pytest.mark.parametrize("text, word", [
    # a comparative that qualifies a noun, said the other way round of the same noun ("more seats" / "fewer seats")
    ("The operator said the change would let it run longer trains with fewer seats at peak times.", "fewer"),
    ("The operator will run shorter trains with more seats.", "shorter"),
    # compared with the same thing, whatever else the "than" phrase holds
    ("At two hours and 41 minutes, the match was shorter than any other women's match at this year's tournament.",
     "shorter"),
])
def test_a_comparative_of_a_noun_or_against_the_same_thing_said_the_other_way_round(tools, text, word):
    out = _check(tools, TRAINS, text)
    assert f"antonym: {word}" in _flips(out), {u: v.details["structure"] for u, v in out.items()}


@pytest.mark.parametrize("text", [
    "The operator will run longer trains with more seats at peak times.",
    "The match was longer than any other women's match at the tournament.",
    "The operator will run fewer buses.",  # another noun: the source says nothing of buses
])
def test_what_is_no_flip_of_a_comparative_of_a_noun(tools, text):
    out = _check(tools, TRAINS, text)
    assert not _flips(out), {u: v.details["structure"] for u, v in out.items()}


def test_the_reviser_puts_the_evidence_comparative_of_a_noun_back(tools):
    r = offline_revision(tools, TRAINS,
                         "The company said the change would allow it to run longer trains with fewer seats at peak times.")
    assert r.text == TRAINS.split(". ")[0] + ".", r.edits
