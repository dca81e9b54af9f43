"""Claims made surer or wider than the source says them (citefix.verify.certainty), on real spaCy parses: a hedged
predicate stated as certain and a part stated as the whole are found, flagged, and put back by the offline reviser where
a unit is unsupported; saying as much as the source, or less, is not flagged. The judge weighs this reading less than
a negation or an antonym (on the human-labelled sets it fires on faithful text more often), so found alone it makes a
unit at least partial ("check this")."""

from __future__ import annotations

import pytest
from helpers import offline_revision, rules_verifier, units_verdicts

from citefix.decompose.clauses import ClauseDecomposer
from citefix.verify.certainty import hedged
from citefix.verify.offline import OfflineVerifier

SOURCE = ("Grain traders in the Orrin Valley said bread and flour prices could rise later in the year after a poor "
          "harvest. The council said it hoped to reopen the library by next September. St Catherine's Hospital "
          "postponed some planned operations on Monday to free up beds for flu patients. Forecasters said a second, "
          "weaker storm might arrive on Thursday. The board said it could not hire more teachers without cutting "
          "elsewhere. The hospital said the backlog would be cleared by March.")


@pytest.fixture(scope="module")
def tools():
    return ClauseDecomposer(), OfflineVerifier()


def _surer(out) -> set[str]:
    return {s for v in out.values() for s in v.details["structure"] if s.startswith("certainty")}


@pytest.mark.parametrize("text, word", [
    ("Grain traders said bread and flour prices will rise later in the year.", "rise"),  # could → will
    ("The council said the library will reopen by next September.", "reopen"),  # hoped to → will
    ("Forecasters said a second storm will arrive on Thursday.", "arrive"),  # might → will
    ("St Catherine's Hospital postponed all of its planned operations to free up beds.", "operations"),  # some → all
    ("St Catherine's Hospital postponed all planned operations on Monday.", "operations"),
])
def test_a_claim_surer_or_wider_than_the_source_is_flagged(tools, text, word):
    out = units_verdicts(tools, SOURCE, text)
    assert f"certainty: {word}" in _surer(out), {u: v.details["structure"] for u, v in out.items()}
    assert any(v.label in ("partial", "unsupported") for v in out.values()), {
        u: (v.label, v.score) for u, v in out.items()}
    # the finding is its own feature of the judge: the same unit without it reads supported
    holds = units_verdicts(tools, SOURCE, text.replace(" will ", " could ").replace(" all ", " some "))
    assert not _surer(holds) and all(v.label == "supported" for v in holds.values()), {
        u: (v.label, v.score) for u, v in holds.items()}


@pytest.mark.parametrize("text", [
    "Grain traders said bread and flour prices could rise later in the year.",  # the same hedge
    "Traders said prices may rise later in the year.",  # another hedge
    "The council hopes to reopen the library by next September.",
    "St Catherine's Hospital postponed some planned operations on Monday.",  # the same part
    "The board said it was unable to hire more teachers.",  # "could not hire": a lack, not a possibility
    "The hospital said the backlog will be cleared by March.",  # "would" in reported speech is no hedge
    "Forecasters raised the idea that a storm arrives on Thursday.",  # a noun's content is not asserted
])
def test_what_is_no_certainty_mismatch(tools, text):
    out = units_verdicts(tools, SOURCE, text)
    assert not _surer(out), {u: v.details["structure"] for u, v in out.items()}


def test_hedges_read_from_the_parse():
    nlp = ClauseDecomposer().nlp
    doc = nlp("Prices could rise and fall. The firm hopes to close two plants. The firm closed two plants. "
              "Sales could not grow.")
    by = {t.text: hedged(t) for t in doc if t.pos_ == "VERB"}
    assert by["rise"] and by["fall"] and by["close"]  # a modal, shared by a conjunct; a verb of intent
    assert not by["closed"] and not by["grow"]


@pytest.mark.parametrize("text, fixed", [
    ("Grain traders said bread and flour prices will rise later in the year.",
     "Grain traders said bread and flour prices could rise later in the year."),
    ("St Catherine's Hospital postponed all of its planned operations to free up beds.",
     "St Catherine's Hospital postponed some of its planned operations to free up beds."),
])
def test_the_reviser_puts_the_hedge_back(tools, text, fixed):
    # the rules mark the unit unsupported, which is what the reviser corrects
    r = offline_revision((tools[0], rules_verifier()), SOURCE, text)
    assert r.text == fixed, r.edits
    assert {e["kind"] for e in r.edits} == {"correction (certainty)"}, r.edits


def test_a_gerund_a_preposition_takes_is_not_asserted(tools):
    source = "Although Lecque could have chosen to attend Teaneck High School, he decided to enroll at Scanlan."
    out = units_verdicts(tools, source, "Instead of attending Teaneck High School, Lecque decided to enroll at Scanlan.")
    assert not _surer(out), {u: v.details["structure"] for u, v in out.items()}


@pytest.mark.parametrize("source, text", [
    # a conjunct cut from its sentence keeps the hedge the sentence gives it ("might want … but could not afford")
    ("Mr O'Brien argued that many hard-working people might want to live in a nicer area or in a bigger house but "
     "could not afford to.",
     "Mr Buck argued that many hard-working people might want to live in a nicer area or in a bigger house but could "
     "not afford to."),
    # a conjunct with its own auxiliaries does not share the first one's modal
    ("The actual figure is unclear but the issue of black money - which may have been acquired corruptly, or is being "
     "withheld from the tax authorities - is a huge problem.",
     "The actual figure is not unclear but the issue of black money - which may have been acquired corruptly, or is "
     "being withheld from the tax authorities - is a huge problem."),
])
def test_a_hedge_the_cut_left_behind_is_no_certainty_mismatch(tools, source, text):
    out = units_verdicts(tools, source, text)
    assert not _surer(out), {u: v.details["structure"] for u, v in out.items()}
