"""How a summary restates names and figures, on real spaCy parses: two words of one name, a possessive, a range
written with one scale word."""

from __future__ import annotations

import pytest
from helpers import units_verdicts

from citefix.decompose.clauses import ClauseDecomposer
from citefix.verify.lexical import find_numbers
from citefix.verify.offline import OfflineVerifier


@pytest.fixture(scope="module")
def tools():
    return ClauseDecomposer(), OfflineVerifier()


def _structure(out) -> list[str]:
    return [s for v in out.values() for s in v.details["structure"]]


@pytest.mark.parametrize("source, text, flagged", [
    # two words of one name that the source writes side by side: one bearer named two ways
    ('The Ashbury Rovers won the cup on Saturday. Ashbury manager Phil Garside later admitted his side had been '
     '"hanging on".', 'Rovers manager Phil Garside admitted his players had been "hanging on".', False),
    ("The novel follows Isidro and Clara Penhallow. The reviewer praises the tender relationship between Isidro and "
     "Penhallow.", "The reviewer praises the tender relationship between Isidro and Clara.", False),
    # … but another bearer's name in the slot is still put in another's place
    ("The Ashbury Rovers won the cup on Saturday. Kellington manager Andrea Vogt said she was proud.",
     "Ashbury manager Andrea Vogt said she was proud.", True),
    # a possessive is the name it is said of
    ("The Executive Committee has approved several changes to the policies of the UK offices of Fenwick & Hale LLP.",
     "The committee approved changes to the policies of Fenwick & Hale's UK offices.", False),
])
def test_a_name_restated(tools, source, text, flagged):
    out = units_verdicts(tools, source, text)
    found = [s for s in _structure(out) if s.startswith(("substitution", "conflict"))]
    assert bool(found) == flagged, found


def test_a_range_with_one_scale_word_reads_both_figures_on_it():
    got = [(n.text, n.value) for n in find_numbers("guidance of $718–$721 million, up from $705 to $712 million")]
    assert got == [("$718", 718e6), ("$721 million", 721e6), ("$705", 705e6), ("$712 million", 712e6)]
    # not where the first figure would then exceed the second ("won 2 to 1 million viewers" is no range)
    assert [n.value for n in find_numbers("a 2 to 1 million vote")] == [2.0, 1e6]


def test_a_range_restated_with_one_scale_word_is_supported(tools):
    source = ("For the full year, the company raised its revenue guidance to a range of $718 million to $721 million, "
              "from a previous range of $705 million to $712 million.")
    out = units_verdicts(tools, source, "The company raised its full-year revenue guidance to $718–$721 million.")
    assert not any(v.details.get("missing_numbers") for v in out.values()) and \
        all(v.label == "supported" for v in out.values()), {u: (v.label, v.details["structure"]) for u, v in out.items()}

