"""Atomic offline units: each detail hanging on a clause is its own unit, scored on its own words (real spaCy parses)."""

from __future__ import annotations

import pytest

from citefix.decompose.clauses import ClauseDecomposer
from citefix.decompose.details import MAX_DETAILS
from citefix.models import Case, Source


@pytest.fixture(scope="module")
def dec() -> ClauseDecomposer:
    return ClauseDecomposer()


def _units(dec, text: str):
    return dec.units(Case(id="c", sources=[Source(id="1", text="A source.")], text=text))


def _focus(u) -> list[str]:
    return [u.text[a:b] for a, b in u.meta["focus"]]


def _by_focus(units, words: str):
    hits = [u for u in units if words in _focus(u)]
    assert hits, f"no unit with focus {words!r}: {[(u.text, _focus(u)) for u in units]}"
    return hits[0]


def test_modifier_phrases_are_units_with_their_context(dec):
    text = "Sale Sharks will sign Scotland number eight Josh Strauss on a three-year deal from next season."
    units = _units(dec, text)
    deal = _by_focus(units, "on a three-year deal")
    assert deal.meta["role"] == "modifier"
    assert deal.text.startswith("Sale Sharks will sign") and "on a three-year deal" in deal.text
    # scored, painted and reported on its own words
    assert text[deal.start : deal.end] == "on a three-year deal"
    assert deal.meta["pieces"] == [[deal.start, deal.end]]
    season = _by_focus(units, "from next season")
    assert text[season.start : season.end] == "from next season"
    core = next(u for u in units if u.meta["role"] == "core")
    assert "deal" not in core.text and "season" not in core.text


def test_relative_clause_is_scored_on_its_own_words(dec):
    text = "Opposition councillor Tom Leary, who chairs the housing committee, wanted the land used for housing."
    units = _units(dec, text)
    rel = next(u for u in units if u.meta["clause"] == "relcl")
    assert rel.text == "Opposition councillor Tom Leary chairs the housing committee"
    assert _focus(rel) == ["chairs the housing committee"]
    assert "who chairs the housing committee" in text[rel.start : rel.end]
    core = next(u for u in units if u.meta["role"] == "core" and u.meta["clause"] == "root")
    # the core's pieces leave the relative clause out, so its verdict never paints the clause
    painted = "".join(text[a:b] for a, b in core.meta["pieces"])
    assert "chairs" not in painted


def test_attribution_speaker_and_content(dec):
    units = _units(dec, "Council leader Priya Natarajan said work would start next spring.")
    speaker = next(u for u in units if u.meta["role"] == "speaker")
    assert _focus(speaker) == ["Council leader Priya Natarajan said"]
    assert "work would start" in speaker.text  # what was said is its context
    # what was said, "work would start", is a fragment of three words: it is scored inside the unit that carries it
    # as context rather than on its own
    assert not any(u.text == "work would start" for u in units)
    spring = _by_focus(units, "work would start next spring")
    assert spring.text == "work would start next spring"
    assert "spring" not in "".join(_focus(speaker))


def test_a_fragment_is_folded_into_the_unit_that_carries_it(dec):
    # "He was charged" (three words) is no fact of its own: the first detail carries it and is scored on it too
    text = "He was charged in 2010 with fraud."
    units = _units(dec, text)
    assert [u.text for u in units] == ["He was charged in 2010", "He was charged with fraud"]
    assert _focus(units[0]) == ["He was charged in 2010"]
    assert _focus(units[1]) == ["with fraud"]
    # a longer core stays its own unit
    units = _units(dec, "Sale Sharks will sign Josh Strauss on a three-year deal.")
    assert any(u.meta["role"] == "core" and _focus(u) == ["Sale Sharks will sign Josh Strauss"] for u in units)


def test_condition_and_participle_attribute(dec):
    units = _units(dec, "She was not elected to the board because she had lost the vote.")
    cond = next(u for u in units if u.meta["role"] == "condition")
    assert _focus(cond) == ["because she had lost the vote"]
    units = _units(dec, "The company, founded in Paris in 1990 by two brothers, said it would cut 200 jobs.")
    attr = next(u for u in units if u.meta["role"] == "attribute")
    assert _focus(attr) == ["founded in Paris in 1990 by two brothers"]  # one detail, not three


def test_arguments_and_counts_stay_in_the_core(dec):
    # "beat Arsenal 2-1": the small model's adverbial reading of an object is not a detail; nor is a vote count
    units = _units(dec, "Chelsea beat Arsenal 2-1. Councillors voted 9 to 4.")
    assert [u.text for u in units] == ["Chelsea beat Arsenal 2-1", "Councillors voted 9 to 4"]


def test_a_range_is_not_cut_in_two(dec):
    # the parse hangs "of 4.8%" on the noun and "to 6.6%" on the verb: cut off alone, "of 4.8%" would leave a unit
    # saying the growth was 6.6%
    units = _units(dec, "Sales are expected to rise, representing growth of 4.8% to 6.6% on a constant-currency basis.")
    assert not any("growth to 6.6%" in u.text for u in units), [u.text for u in units]
    assert any(u.text.endswith("representing growth of 4.8% to 6.6%") for u in units), [u.text for u in units]
    # a number's phrase that runs on into something else is still a detail of its own
    units = _units(dec, "The plan brought a rise of 20% to the budget.")
    assert "The plan brought a rise of 20%" in [u.text for u in units]


def test_atomic_not_shredded(dec):
    # "The cat sat" is a three-word fragment: the one fact is the whole clause
    assert [u.text for u in _units(dec, "The cat sat on the mat.")] == ["The cat sat on the mat"]
    text = ("On Monday in London the mayor met the minister at noon for an hour with 20 aides in 2019 "
            "after the vote before the summit.")
    per_clause = [u for u in _units(dec, text) if u.meta["role"] not in ("core", "clause")]
    assert 1 <= len(per_clause) <= MAX_DETAILS


def test_details_can_be_switched_off(dec):
    text = "Sale Sharks will sign Josh Strauss on a three-year deal."
    units = ClauseDecomposer(split_details=False).units(Case(id="c", sources=[Source(id="1", text="x")], text=text))
    assert [u.text for u in units] == ["Sale Sharks will sign Josh Strauss on a three-year deal"]


def test_long_flat_sentence_is_linear(dec):
    # a pathological sentence (thousands of tokens) is decomposed without the quadratic head-chain walk
    text = " ".join(["and the big dog"] * 1500) + "."
    units = _units(dec, text)
    assert units and all(u.has_span for u in units)


ARTICLE = (
    "Sale Sharks have agreed terms with Glasgow Warriors number eight Josh Strauss, who will join the Premiership club "
    "from next season.\nThe South African-born forward, who qualified for Scotland on residency, has won 12 caps and "
    "played in the World Cup last year.\nSale director of rugby Steve Diamond said Strauss would add power to the back "
    "row.\nStrauss, 30, joined Glasgow from the Lions in 2012 and helped the club win the Pro12 title in 2015.\n"
)


@pytest.mark.slow
def test_an_invented_detail_is_its_own_unsupported_unit(tmp_path):
    """As a new user runs it: the deal's length, which the article never gives, is its own unit, listed as
    unsupported with the closest evidence; the rest of the sentence stays supported."""
    import json

    from cli_helpers import citefix_main

    (tmp_path / "article.txt").write_text(ARTICLE)
    (tmp_path / "summary.txt").write_text(
        "Sale Sharks will sign Scotland number eight Josh Strauss on a three-year deal from next season.\n")
    p = citefix_main("check", "--source", tmp_path / "article.txt", "--summary", tmp_path / "summary.txt",
                     "--db", tmp_path / "s.db", "--json")
    assert p.returncode == 0, p.stderr
    out = json.loads(p.stdout)
    text = out["text"]
    verdicts = {v["unit_id"]: v for v in out["verdicts"]}
    by_words = {text[u["start"]:u["end"]]: verdicts[u["id"]] for u in out["units"]}
    deal = by_words["on a three-year deal"]
    assert deal["label"] == "unsupported"
    assert "Josh Strauss" in deal["evidence"]["text"]
    assert by_words["from next season"]["label"] == "supported"
    assert by_words["Sale Sharks will sign Scotland number eight Josh Strauss"]["label"] == "supported"


def test_a_conjoined_verb_shares_the_auxiliary_its_form_needs(dec):
    units = _units(dec, "Council leader Priya Natarajan said work would start next spring and take two years.")
    assert "work would take two years" in [u.text for u in units]
    units = _units(dec, "The bridge will be built in May and opened in June.")
    assert "The bridge will be opened in June" in [u.text for u in units]
    # a negation on the first verb is not shared, nor is an auxiliary a finite verb does not need
    assert "He left the club" in [u.text for u in _units(dec, "He did not sign the deal and left the club.")]
    assert "He left on Friday" in [u.text for u in _units(dec, "He arrived on Monday and left on Friday.")]
