"""Numbers as a summary rewrites them (real spaCy parses, the packaged MiniLM): a value bounded or said roughly
("more than two hundred" for 212, "roughly ninety thousand" for "around 90,000"), a share as a count of a whole
("seven in ten" for 71%), a span of time in another unit ("twelve months" for "its first year") and a range of months
written either way are the source's values; a bound the source does not bear out ("more than three hundred" for 212,
"nearly two hundred" for 212) and a span it does not name still are not."""

from __future__ import annotations

import pytest
from helpers import units_verdicts

from citefix.decompose.clauses import ClauseDecomposer
from citefix.verify.lexical import find_numbers, number_supported
from citefix.verify.offline import OfflineVerifier
from citefix.verify.times import canonical_step, duration_supported, durations, time_steps


@pytest.fixture(scope="module")
def tools():
    return ClauseDecomposer(), OfflineVerifier()


@pytest.mark.parametrize("text, value, approx", [
    ("more than two hundred coins", 200.0, "least"),
    ("nearly £4m", 4e6, "most"),
    ("roughly ninety thousand tests", 90000.0, "rough"),
    ("no fewer than 40 riders", 40.0, "least"),
    ("fewer than 40 riders", 40.0, "most"),
    ("40 riders or so", 40.0, "rough"),
    ("40 riders", 40.0, ""),
])
def test_a_bound_phrase_is_read_with_its_number(text, value, approx):
    (n,) = find_numbers(text)
    assert (n.value, n.approx) == (pytest.approx(value), approx)


@pytest.mark.parametrize("said, source, supported", [
    ("more than two hundred", 212, True),
    ("more than two hundred", 190, False),
    ("more than two hundred", 260, False),  # beyond what rounding down to "two hundred" gives
    ("nearly two hundred", 190, True),
    ("nearly two hundred", 212, False),
    ("about 60,000", 57000, True),
    ("about 60,000", 70000, False),
    ("more than 2004", 2010, False),  # a year is never rounded
])
def test_a_bounded_number_names_values_on_its_side_within_a_tenth(said, source, supported):
    (n,) = [x for x in find_numbers(said) if not x.soft]
    assert number_supported(n, [float(source)]) is supported


@pytest.mark.parametrize("text, value", [
    ("seven in ten patients", 70.0),
    ("one out of every five homes", 20.0),
    ("3 in 4 voters", 75.0),
    ("one-twentieth of the ridge", 5.0),
    ("a quarter of a century", 25.0),
])
def test_shares_said_as_counts_of_a_whole_are_percentages(text, value):
    (n,) = find_numbers(text)
    assert n.value == pytest.approx(value)


def test_a_ratio_of_times_or_of_a_percentage_is_no_share():
    assert [n.value for n in find_numbers("2 in 10 days")] == [2.0, 10.0]
    assert [n.value for n in find_numbers("won 5 in 2020")] == [5.0, 2020.0]


def test_a_span_of_time_is_one_value_in_any_unit():
    source = "It expects to carry out 90,000 tests in its first year, and the work took a fortnight."
    days = durations(source)
    for said, ok in (("over the first twelve months", True), ("within 14 days", True), ("in 52 weeks", True),
                     ("over the first eighteen months", False), ("within 10 days", False)):
        n = next(x for x in find_numbers(said) if not x.soft)
        assert duration_supported(n, said, days) is ok, said
    assert {canonical_step(n, u) for n, u, _, _ in time_steps("twelve months earlier")} == \
        {canonical_step(n, u) for n, u, _, _ in time_steps("the previous year")}


SOURCE = ("Frimley Valley NHS Trust said it expects to carry out around 90,000 tests in its first year. In February, "
          "71% of patients were seen within four hours. Among the finds are 212 coins and a carved stone altar. "
          "The tower is open from April to October; entry costs 4 euros.")


@pytest.mark.parametrize("text", [
    "The trust expects to perform roughly ninety thousand tests over the first twelve months.",
    "Just over seven in ten patients were seen within four hours in February.",
    "The finds include more than two hundred coins.",
    "The tower opens between April and October.",
])
def test_a_faithful_rewrite_of_the_numbers_is_not_unsupported(tools, text):
    verdicts = units_verdicts(tools, SOURCE, text)
    assert all(v.label != "unsupported" for v in verdicts.values()), {u: v.details.get("why") for u, v in verdicts.items()}


@pytest.mark.parametrize("text", [
    "The finds include more than three hundred coins.",
    "The finds include nearly two hundred coins.",
    "Just over eight in ten patients were seen within four hours in February.",
    "The trust expects to perform roughly ninety thousand tests over the first eighteen months.",
])
def test_a_bound_or_span_the_source_does_not_bear_out_is_flagged(tools, text):
    verdicts = units_verdicts(tools, SOURCE, text)
    assert any(v.label == "unsupported" for v in verdicts.values()), {u: (v.label, v.details.get("why"))
                                                                      for u, v in verdicts.items()}
