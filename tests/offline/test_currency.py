"""An amount in another currency than the source's ("$4 million" where the source says "€4 million"): the number is
the source's, the amount is not. Caught by the offline verifier, put right by the offline reviser, on real parses."""

from __future__ import annotations

import pytest
from helpers import rules_verifier

from citefix.decompose.clauses import ClauseDecomposer
from citefix.evaluate import evaluate
from citefix.models import Case, Source
from citefix.revision.feedback import build_strategy
from citefix.revision.offline import OfflineReviser
from citefix.verify.lexical import currency, currency_conflict, find_numbers
from citefix.verify.local import same_value

SOURCE = ("The trial was funded by the European Research Council and cost €4 million. It was carried out at six "
          "hospitals in Lyon.")


@pytest.fixture(scope="module")
def tools():
    return ClauseDecomposer(), rules_verifier()


@pytest.mark.parametrize("text, want", [
    ("it cost £45m", "pound"), ("$4 million", "dollar"), ("A$4 million", "dollar"), ("4 million euros", "euro"),
    ("50,000 sterling", "pound"), ("4 million people", None), ("120 yen", "yen"),
])
def test_the_currency_of_an_amount(text, want):
    n = find_numbers(text)[0]
    assert currency(text, n) == want


def test_a_conflict_needs_the_value_stated_only_in_other_currencies():
    n = find_numbers("$4 million")[0]
    assert currency_conflict(n, "$4 million", [(4e6, "euro")])
    assert not currency_conflict(n, "$4 million", [(4e6, "euro"), (4e6, None)])  # said bare too: not contradicted
    assert not currency_conflict(n, "$4 million", [(4e6, "dollar")])
    assert not currency_conflict(n, "$4 million", [(5e6, "euro")])  # another value: the number check's business
    assert not same_value("$4 million", "€4 million") and same_value("$4 million", "$4m")


def test_an_amount_in_another_currency_is_unsupported_and_put_right(tools):
    dec, ver = tools
    case = Case(id="c", sources=[Source(id="1", text=SOURCE)], text="The trial cost $4 million.")
    ev = evaluate(case, decomposer=dec, verifier=ver)
    assert min(v.score for v in ev.verdicts) < 0.29, [v.details.get("missing") for v in ev.verdicts]
    r = OfflineReviser().revise(case, build_strategy("acu").feedback(case, ev), ev)
    assert r.text == "The trial cost €4 million.", r.edits
    same = Case(id="c", sources=[Source(id="1", text=SOURCE)], text="The trial cost €4 million.")
    assert min(v.score for v in evaluate(same, decomposer=dec, verifier=ver).verdicts) >= 0.29


@pytest.mark.parametrize("a, b, same", [
    ("as much as €5,000", "up to €5,000", True),  # one bound, worded two ways
    ("in excess of €5,000", "more than €5,000", True),
    ("upwards of €5,000", "fewer than €5,000", False),
    ("about 5,000", "more than 5,000", True),  # a rough figure is no other amount
    ("more than 60,000", "fewer than 60,000", False),  # bounds of opposite directions
    ("nearly 200", "more than 200", False),
    ("5,000 people", "5,000 homes", False),  # other words than a bound: as before
])
def test_a_number_bounded_the_same_way_is_one_value(a, b, same):
    assert same_value(a, b) is same


def test_a_speaker_named_on_another_verb_of_speech_is_no_conflict(tools):
    """"Claire Watts said …" where the region says "…, Watts added" beside "Kevin Ortiz said …"."""
    source = ("Union official Kevin Ortiz said staff would ballot for strike action if the closures went ahead. "
              "Fares will not increase as part of the changes, Watts added.")
    dec, ver = tools
    case = Case(id="c", sources=[Source(id="1", text="Managing director Claire Watts runs the line. " + source)],
                text="Claire Watts said the changes would not bring higher fares.")
    units = dec.units(case)
    for v in ver.verify(units, case):
        assert not [s for s in v.details["structure"] if s.startswith("conflict")], v.details["structure"]
    # a speaker the region does not have on any verb of speech still conflicts
    other = Case(id="c", sources=case.sources, text="Laura Chen said staff would ballot for strike action.")
    assert any(s.startswith("conflict") or s.startswith("substitution")
               for v in ver.verify(dec.units(other), other) for s in v.details["structure"]) or \
        min(v.score for v in ver.verify(dec.units(other), other)) < 0.29
