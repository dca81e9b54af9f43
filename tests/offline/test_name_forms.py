"""A name the sources write in another of its forms (real spaCy parses): the plural a place takes ("Highland" / "the
Highlands") and the place a people's adjective names ("Scottish" / "Scotland", "American" / "America") count as the
sources' names; an adjective of a place the sources never name, or a person's name that only shares letters with one
they give ("Julian" / "Julia"), does not."""

import pytest

from citefix.decompose.clauses import ClauseDecomposer
from citefix.models import Case, Source
from citefix.verify.names import name_form_of

SOURCE = (
    "Researchers at a university in Scotland have found an enzyme that breaks down plastic. The work was funded by a "
    "charity based in America, and a council in the Highlands has offered land for a trial plant. Julia Marsh, who "
    "led the team, said the results were promising."
)


@pytest.mark.parametrize("word, people, found", [
    ("highland", False, True),
    ("scottish", True, True),
    ("american", True, True),
    ("welsh", True, False),
    ("kenyan", True, False),
    ("julian", False, False),  # a person's name: no people's adjective
    ("scottish", False, False),
])
def test_a_name_form_is_read_against_the_sources_words(word, people, found):
    words = {w.strip(".,").lower() for w in SOURCE.split()}
    assert name_form_of(word, words, people) is found


def _missing_names(verifier, text):
    case = Case(id="c", sources=[Source(id="1", text=SOURCE)], text=text, kind="summary")
    units = ClauseDecomposer().units(case)
    return [m["text"] for f in verifier.features(units, case) for m in f.get("missing", []) if m["kind"] == "entity"]


def test_a_demonym_of_a_named_place_is_not_a_missing_name(offline_verifier):
    assert _missing_names(offline_verifier, "Scottish researchers found an enzyme, with American funding.") == []
    assert _missing_names(offline_verifier, "A Highland council has offered land for a trial plant.") == []


def test_a_demonym_of_a_place_the_sources_never_name_is_missing(offline_verifier):
    assert "Welsh" in _missing_names(offline_verifier, "Welsh researchers found an enzyme that breaks down plastic.")
    assert any("Julian" in m for m in _missing_names(offline_verifier, "Julian Marsh led the team."))
