"""A modifier said the other way round: an attributive adjective or an adverb whose WordNet antonym the evidence
says of the same noun or verb ("a slow recovery" / "a fast recovery", "flying strongly" / "flying weakly"), read by
citefix.verify.relations.modifier_flip (real spaCy parses, the packaged MiniLM)."""

from __future__ import annotations

import pytest
from helpers import unit_verdict as _verdict

from citefix.verify.relations import antonyms


@pytest.fixture(scope="module")
def verifier(offline_verifier):
    return offline_verifier


def _antonyms(v) -> list[str]:
    """The unit's words the evidence says the antonym of (the verdict's details list them as "antonym: WORD")."""
    return [s.split(": ", 1)[1] for s in v.details["structure"] if s.startswith("antonym: ")]


def test_the_table_has_wordnets_adverbs():
    table = antonyms()["adv"]
    assert "weakly" in table["strongly"] and "early" in table["late"] and "well" in table["badly"]


@pytest.mark.parametrize("source, text, pair", [
    ("Project manager Dr Elena Hart said the chick had fledged in late July and was flying strongly.",
     "Project manager Dr Elena Hart said the chick had fledged in late July and was flying weakly.",
     ("weakly", "strongly")),
    ("The ministry said the economy made a fast recovery after the floods of 2024.",
     "The ministry said the economy made a slow recovery after the floods of 2024.", ("slow", "fast")),
    ("The ministry said the recovery after the floods of 2024 was fast.",
     "The ministry said there was a slow recovery after the floods of 2024.", ("slow", "fast")),
    ("The 07:40 train from Corran arrived early on Monday, the operator said.",
     "The 07:40 train from Corran arrived late on Monday, the operator said.", ("late", "early")),
])
def test_a_modifier_said_the_other_way_round_is_unsupported(verifier, source, text, pair):
    v = _verdict(verifier, text, source)
    assert pair[0] in _antonyms(v), v.details
    assert v.label == "unsupported"


@pytest.mark.parametrize("source, text", [
    # the modifier itself, said of the same noun
    ("The ministry said the economy made a fast recovery after the floods of 2024.",
     "The ministry said the economy recovered fast after the floods of 2024, making a fast recovery."),
    # opposite modifiers of different nouns oppose nothing
    ("The new trains will replace the old carriages on the Corran line from December.",
     "The new trains will replace the old carriages on the Corran line from December."),
    ("The new trains will replace older carriages; the old station will close in December.",
     "The old station will close in December."),
])
def test_a_modifier_of_another_noun_is_no_antonym(verifier, source, text):
    assert not _antonyms(_verdict(verifier, text, source))
