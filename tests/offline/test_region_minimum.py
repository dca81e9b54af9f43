"""A unit's evidence region in a transcript, whose sentence pieces are turns of a few words: the packaged verifier
grows it to at least `local.min_region_chars` characters, so the turns around the best-aligned one come with it (real
spaCy parses, the packaged MiniLM)."""

from __future__ import annotations

import pytest

from citefix.decompose.clauses import ClauseDecomposer
from citefix.models import Case, Source
from citefix.verify.offline import OfflineVerifier, load_params

TRANSCRIPT = ("Anna: Okay.\nBen: So, the budget.\nAnna: Yeah.\nBen: Um, we looked at it again.\nAnna: Right.\n"
              "Ben: The print run goes up to five thousand copies.\nAnna: Mm-hmm.\nBen: And the launch moves to June.\n"
              "Anna: Okay.\nBen: That's it from me.\nAnna: Thanks.\nBen: Sure.\nAnna: Next item.\n")
ARTICLE = ("The council approved a plan on Monday to turn the old railway depot into a park. The depot, which served the "
           "coal trade for more than a century, closed in 1987 after the last mine in the valley shut. "
           "Most of the money will come from a regional fund, and work is due to start in the spring. The park will "
           "have a playground, a pond and a cycle path along the old tracks. A cafe run by a local charity is planned "
           "for the former ticket office.")


def _regions(verifier: OfflineVerifier, source: str, text: str) -> list[str]:
    case = Case(id="c", sources=[Source(id="1", text=source)], text=text, kind="summary")
    units = ClauseDecomposer().units(case)
    return [f["region_text"] for f in verifier.features(units, case, keep_region=True) if f.get("region_text")]


@pytest.fixture(scope="module")
def unbounded() -> OfflineVerifier:
    params = load_params()
    params["local"]["min_region_chars"] = 0
    return OfflineVerifier(params=params)


def test_the_packaged_minimum_is_set():
    assert load_params()["local"]["min_region_chars"] == 200


def test_a_region_of_short_turns_grows_to_the_minimum(offline_verifier, unbounded):
    text = "The print run will rise to five thousand copies."
    packaged = _regions(offline_verifier, TRANSCRIPT, text)
    bare = _regions(unbounded, TRANSCRIPT, text)
    assert packaged and bare
    assert all(len(r) < 200 for r in bare), bare  # a turn and one more on each side: a few words
    assert all(len(r) >= 200 for r in packaged), packaged
    assert all("five thousand copies" in r for r in packaged)


def test_a_prose_region_is_long_enough_already(offline_verifier, unbounded):
    text = "The depot closed in 1987."
    assert _regions(offline_verifier, ARTICLE, text) == _regions(unbounded, ARTICLE, text)
