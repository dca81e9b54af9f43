"""Figures a summary derives or a transcript says in words (real spaCy parses, the packaged MiniLM): the difference
of two figures of one source sentence ("climbed five percentage points" for "risen from 88% to 93%"), and numbers
as speech is written down ("one point four million", "a dollar fifty", "two thousand five hundred", "the second of
June") are the source's values; a difference or a figure the source does not give is still flagged."""

from __future__ import annotations

import pytest
from helpers import units_verdicts

from citefix.decompose.clauses import ClauseDecomposer
from citefix.verify.lexical import derived_supported, differences, find_numbers, number_supported
from citefix.verify.offline import OfflineVerifier


@pytest.fixture(scope="module")
def tools():
    return ClauseDecomposer(), OfflineVerifier()


@pytest.mark.parametrize("text, value, precision", [
    ("they'd lose about one point four million this year", 1.4e6, 5e4),
    ("the meters are going up from a dollar fifty to two dollars", 1.5, 0.005),
    ("if the pilot run is at least two thousand five hundred units", 2500.0, 0.5),
    ("The 14A starts on the second of June", 2.0, 1e-9),
    ("this is the review, Tuesday the fourteenth of March", 14.0, 1e-9),
    ("on March the twenty-first", 21.0, 1e-9),
])
def test_a_number_said_as_speech_is_written_down_is_one_value(text, value, precision):
    nums = [n for n in find_numbers(text) if n.value == pytest.approx(value)]
    assert len(nums) == 1 and nums[0].precision == pytest.approx(precision), [(n.text, n.value) for n in find_numbers(text)]


@pytest.mark.parametrize("text", ["two thousand people came and five hundred left", "a second term", "the second of the two"])
def test_words_that_only_look_like_one_spoken_number_are_left_apart(text):
    assert all(n.value not in (2500.0, 2.0) or n.precision != 1e-9 for n in find_numbers(text))
    assert 2500.0 not in [n.value for n in find_numbers(text)]


def test_the_difference_of_two_figures_of_one_sentence_is_a_derived_figure():
    src = ("Attendance has since risen from 88% to 93%. Repairs cost £2.3 million, of which £1.6 million came from "
           "the fund. The bridge opened in 1998 and was shut in 2023.")
    values = [d.value for d in differences(src)]
    said = {"five percentage points": True, "the remaining £700,000": True, "seven percentage points": False,
            "25 years": False}  # two years make a span of time, which the time checks read, not a difference
    for text, ok in said.items():
        assert number_supported(find_numbers(text)[0], values) is ok, text
    # a relative change is a rate the source states, never a difference of its percentages; points are
    rates = differences("Revenue was up 19%, EBITDA was up 21% and earnings per share rose 38%.")
    for text, ok in {"grew by 17%": False, "rose by 17 percentage points": True, "by 17 points": True}.items():
        assert derived_supported(find_numbers(text)[0], text, rates) is ok, text
    # figures of different sentences are no pair; a table row's many figures give none
    assert 88 - 2.3 not in values and not differences(" ".join(f"{k} units," for k in range(10, 20)))


SOURCE = ("Ofsted inspectors had criticised the school for low attendance, which has since risen from 88% to 93%. "
          "The trust said 41 chicks fledged last year, up from 29 the year before.")

TRANSCRIPT = ("Host: And the operator? Councillor: Northline told us they'd lose about one point four million this "
              "year on the evening services if nothing changed. The 14A starts on the second of June, and it'll run "
              "every thirty minutes to begin with. Caller: The meters are going up from a dollar fifty to two dollars "
              "an hour, and my customers are already complaining.")


@pytest.mark.parametrize("source, text", [
    (SOURCE, "Attendance at the school has climbed five percentage points, from 88% to 93%."),
    (SOURCE, "Forty-one chicks fledged last year, a dozen more than the previous year's 29."),
    (TRANSCRIPT, "The councillor said Northline expected to lose about 1.4 million on the evening services."),
    (TRANSCRIPT, "The councillor said the 14A would start on 2 June."),
    (TRANSCRIPT, "A caller said the meters were going up from $1.50 to $2 an hour."),
])
def test_a_derived_or_spoken_figure_is_not_unsupported(tools, source, text):
    verdicts = units_verdicts(tools, source, text)
    assert all(v.label != "unsupported" for v in verdicts.values()), {u: v.details.get("why") for u, v in verdicts.items()}


@pytest.mark.parametrize("source, text", [
    (SOURCE, "Attendance at the school has climbed eight percentage points, from 88% to 93%."),
    (SOURCE, "Forty-one chicks fledged last year, twenty more than the previous year's 29."),
    (TRANSCRIPT, "The councillor said Northline expected to lose about 2.4 million on the evening services."),
    (TRANSCRIPT, "A caller said the meters were going up from $1.75 to $2 an hour."),
    (TRANSCRIPT, "The councillor said the 14A would start on 4 June."),
])
def test_a_figure_the_source_does_not_give_or_derive_is_flagged(tools, source, text):
    verdicts = units_verdicts(tools, source, text)
    assert any(v.label == "unsupported" for v in verdicts.values()), {u: (v.label, v.details.get("why"))
                                                                      for u, v in verdicts.items()}
