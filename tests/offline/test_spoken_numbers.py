"""Numbers said in words, as transcripts of speech write them ("twelve dot fifty Euros", "twelve Euros and fifty"):
the source states the figure a summary writes in digits ("12.50 Euros"), and another figure is still caught."""

from __future__ import annotations

import pytest

from citefix.decompose.clauses import ClauseDecomposer
from citefix.models import Case, Source
from citefix.verify.lexical import find_numbers

TRANSCRIPT = ("Project Manager: We have to design a new remote control. Marketing: And you have to keep it under twelve "
              "Euros and fifty , so . Project Manager: Yeah , you have to keep in mind that the product cost won't be "
              "more than twelve dot fifty Euros . User Interface: Ah , yeah .")


@pytest.mark.parametrize("text, value, precision", [
    ("more than twelve dot fifty Euros .", 12.5, 0.005),
    ("keep it under twelve Euros and fifty , so .", 12.5, 0.005),
    ("It weighs two point one five kilos.", 2.15, 0.005),
    ("The rate is three point five percent.", 3.5, 0.05),
    ("It costs 12.50 Euros.", 12.5, 0.005),
])
def test_a_decimal_said_in_words_is_one_number(text, value, precision):
    nums = find_numbers(text)
    assert [(n.value, n.precision) for n in nums] == [(value, precision)], [(n.text, n.value) for n in nums]


@pytest.mark.parametrize("text", ["She gave twelve euros and fifty people came.", "one point in the match",
                                  "At one point two men were seen at the gate."])
def test_words_that_only_look_like_a_decimal_are_left_apart(text):
    nums = find_numbers(text)
    assert nums and all(n.value == int(n.value) for n in nums), [(n.text, n.value) for n in nums]  # no decimal read


def test_a_summary_of_a_transcript_in_digits(offline_verifier):
    def verdicts(text):
        case = Case(id="c", sources=[Source(id="1", text=TRANSCRIPT)], text=text, kind="summary")
        units = ClauseDecomposer().units(case)
        return offline_verifier.verify(units, case)

    assert all(v.label != "unsupported" for v in verdicts("They need to keep the product cost under 12.50 Euros."))
    wrong = verdicts("They need to keep the product cost under 15.50 Euros.")
    assert any(v.label == "unsupported" for v in wrong), [(v.label, v.score) for v in wrong]
