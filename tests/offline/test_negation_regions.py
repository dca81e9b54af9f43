"""A negation in a text of several sentences is looked for where each of its sentences is read: the offline verifier
on real spaCy parses (the packaged MiniLM)."""

from __future__ import annotations

import pytest
from helpers import whole_unit_features

REPORT = (
    "The council approved a new budget for the town's libraries on Tuesday evening after a long debate. "
    "The budget adds two mobile libraries and extends opening hours at the central branch. "
    "Councillors said the extra hours would begin in the spring. "
    "The plan was drawn up after a public consultation last year. "
    "Residents had asked for longer weekend hours at the central branch. "
    "The library service employs forty people across six sites. "
    "A spokesman for the union said its members had not been consulted about the new rota. "
    "The council will publish the full budget next month."
)


def test_a_negation_its_own_sentence_holds_is_not_read_as_invented(offline_verifier):
    # the text's best evidence window is the budget's first sentences, which hold no negation; the second sentence's
    # "not" stands in the union's sentence, the region that sentence is read against
    text = ("The council approved a new budget for the town's libraries on Tuesday evening after a long debate. "
            "A spokesman for the union said its members had not been consulted about the new rota.")
    score, f = whole_unit_features(offline_verifier, REPORT, text)
    assert f["neg_unit_only"] == 0
    assert f["lexical"] == pytest.approx(1.0)
    assert score > offline_verifier.supported_at("default")


def test_a_negation_no_region_holds_still_counts(offline_verifier):
    text = ("The council approved a new budget for the town's libraries on Tuesday evening after a long debate. "
            "The budget does not add mobile libraries.")
    _, f = whole_unit_features(offline_verifier, REPORT, text)
    assert f["neg_unit_only"] == 1
    assert f["lexical"] < 1.0
