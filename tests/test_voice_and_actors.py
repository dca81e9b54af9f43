"""An antonym predicate read across voice ("the plans were approved" / "the committee rejected the plans"), and a
name put where the source names another actor when the tagger reads one as a person and the other as an
organisation (real spaCy parses, the packaged MiniLM)."""

from __future__ import annotations

import pytest

from citefix.decompose.clauses import ClauseDecomposer
from citefix.models import Case, Source


@pytest.fixture(scope="module")
def tools():
    from citefix.verify.offline import OfflineVerifier

    return ClauseDecomposer(), OfflineVerifier()


def _flags(tools, text: str, source: str) -> list[tuple[str, str, list]]:
    dec, ver = tools
    case = Case(id="c", sources=[Source(id="1", text=source)], text=text)
    units = dec.units(case)
    return [(u.text, v.label, v.details.get("structure", [])) for u, v in zip(units, ver.verify(units, case))]


@pytest.mark.parametrize("source, text", [
    # active in the source, passive without an agent in the text
    ("The planning committee rejected the plans for a new stadium on Tuesday.",
     "The plans for a new stadium were approved on Tuesday."),
    # passive with its agent in the source, active in the text
    ("The plans for a new stadium were rejected by the planning committee on Tuesday.",
     "The planning committee approved the plans for a new stadium on Tuesday."),
])
def test_an_antonym_is_read_across_voice(tools, source, text):
    got = _flags(tools, text, source)
    assert any(label == "unsupported" and any("antonym" in str(s) for s in st) for _, label, st in got), got


@pytest.mark.parametrize("source, text", [
    ("The planning committee approved the plans for a new stadium on Tuesday.",
     "The plans for a new stadium were approved on Tuesday."),
    ("The plans for a new stadium were approved by the planning committee on Tuesday.",
     "The planning committee approved the plans for a new stadium on Tuesday."),
])
def test_the_same_predicate_across_voice_is_no_antonym(tools, source, text):
    got = _flags(tools, text, source)
    assert all(label == "supported" for _, label, _ in got), got


def test_an_actor_put_in_anothers_place_conflicts_whatever_the_tagger_calls_them(tools):
    got = _flags(tools, "The new depot was built by Harlow Council in 2019.",
                 "The new depot was built by Westline Rail in 2019.")
    assert any(label == "unsupported" and any("Harlow Council" in str(s) for s in st) for _, label, st in got), got
