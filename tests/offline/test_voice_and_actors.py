"""An antonym predicate read across voice ("the plans were approved" / "the committee rejected the plans"), and a
name put where the source names another actor when the tagger reads one as a person and the other as an
organisation (real spaCy parses, the packaged MiniLM)."""

from __future__ import annotations

import pytest
from helpers import units_verdicts

from citefix.decompose.clauses import ClauseDecomposer


@pytest.fixture(scope="module")
def tools():
    from citefix.verify.offline import OfflineVerifier

    return ClauseDecomposer(), OfflineVerifier()


REJECTED = "The planning committee rejected the plans for a new stadium on Tuesday."
REJECTED_BY = "The plans for a new stadium were rejected by the planning committee on Tuesday."
APPROVED = "The planning committee approved the plans for a new stadium on Tuesday."
APPROVED_BY = "The plans for a new stadium were approved by the planning committee on Tuesday."


@pytest.mark.parametrize("source, text, opposite", [
    (REJECTED, "The plans for a new stadium were approved on Tuesday.", True),  # active source, agentless passive
    (REJECTED_BY, APPROVED, True),  # a passive with its agent, the active with the same doer
    (APPROVED, "The plans for a new stadium were approved on Tuesday.", False),  # the same predicate, either voice
    (APPROVED_BY, APPROVED, False),
])
def test_an_antonym_is_read_across_voice(tools, source, text, opposite):
    got = units_verdicts(tools, source, text)
    flagged = [u for u, v in got.items() if v.label == "unsupported"
               and any("antonym" in str(s) for s in v.details.get("structure", []))]
    assert bool(flagged) is opposite, {u: (v.label, v.details.get("structure")) for u, v in got.items()}
    if not opposite:
        assert all(v.label == "supported" for v in got.values()), {u: v.label for u, v in got.items()}


def test_an_actor_put_in_anothers_place_conflicts_whatever_the_tagger_calls_them(tools):
    got = units_verdicts(tools, "The new depot was built by Westline Rail in 2019.",
                         "The new depot was built by Harlow Council in 2019.")
    assert any(v.label == "unsupported" and any("Harlow Council" in str(s) for s in v.details.get("structure", []))
               for v in got.values()), {u: v.details.get("structure") for u, v in got.items()}
