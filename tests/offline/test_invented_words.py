"""The invented-words check of the offline verifier: an atomic unit whose content words the source holds neither in
form nor in meaning is capped and painted on those words; a paraphrase is not; whole sentences are not atomic facts
(real spaCy parses, the packaged MiniLM)."""

from __future__ import annotations

import json
from importlib import resources

import pytest
from helpers import rules_verifier

from citefix.decompose.clauses import ClauseDecomposer
from citefix.models import Case, Source, Unit
from citefix.verify.offline import load_params

SOURCE = ("Work is expected to begin next spring and to take about eighteen months. "
          "Opposition councillor Tom Leary voted against the plan. He said the council should have used the land "
          "for affordable housing.")
TEXT = ("Work would start next spring. Opposition councillor Tom Leary, who chairs the housing committee, "
        "wanted the land used for affordable housing.")


@pytest.fixture(scope="module")
def tools():
    return ClauseDecomposer(), rules_verifier()


def _case(text: str = TEXT, source: str = SOURCE) -> Case:
    return Case(id="c", sources=[Source(id="1", text=source)], text=text)


def _verdicts(tools, case: Case, units=None):
    dec, v = tools
    units = units if units is not None else dec.units(case)
    return units, v.verify(units, case)


def test_an_invented_relative_clause_is_capped_and_painted_on_its_words(tools):
    case = _case()
    units, verdicts = _verdicts(tools, case)
    by_text = {u.text: (u, vd) for u, vd in zip(units, verdicts)}
    u, vd = by_text["Opposition councillor Tom Leary chairs the housing committee"]
    assert vd.label == "unsupported"
    assert vd.score <= load_params()["cap"]["score"] + 1e-9
    assert sorted(vd.details["invented"]) == ["chairs", "committee"]
    assert vd.details["features"]["invented_words"] == 2
    painted = " ".join(case.text[a:b] for a, b in vd.unsupported_spans)
    assert "chairs" in painted and "committee" in painted and "Leary" not in painted


def test_a_paraphrase_is_not_an_invented_fact(tools):
    """'start' for 'begin': no source word has its form, but the token alignment finds its meaning."""
    units, verdicts = _verdicts(tools, _case())
    for u, vd in zip(units, verdicts):
        if "start" in u.text:
            assert "start" not in vd.details["invented"], (u.text, vd.details)
            assert vd.label != "unsupported", (u.text, vd.score, vd.details)


def test_one_unmatched_word_does_not_cap(tools):
    """A single content word without a match may be a paraphrase the alignment misses: reported, not capped."""
    units, verdicts = _verdicts(tools, _case())
    one = [(u, vd) for u, vd in zip(units, verdicts) if vd.details["features"].get("invented_words") == 1]
    for u, vd in one:
        assert vd.score > load_params()["cap"]["score"], (u.text, vd.details)


def test_a_whole_sentence_is_not_an_atomic_fact(tools):
    """The check is for atomic units (ACUs, clause units); a whole sentence with two unmatched words is not capped
    for them: on human-labelled data whole statements lose ranking quality under this cap
    (python -m bench.lodo eval)."""
    case = _case(text="Opposition councillor Tom Leary chairs the housing committee.")
    whole = Unit(id="u1", text=case.text, kind="sentence", decomposer="sentence", start=0, end=len(case.text))
    clause = whole.model_copy(update={"kind": "clause", "decomposer": "spacy-clauses"})
    _, (vs,) = _verdicts(tools, case, [whole])
    _, (vc,) = _verdicts(tools, case, [clause])
    assert vs.details["features"]["invented_words"] == vc.details["features"]["invented_words"] == 2  # of five
    assert vc.score <= load_params()["cap"]["score"] + 1e-9
    assert vs.score > vc.score


def test_the_check_can_be_turned_off(monkeypatch, tmp_path):
    overlay = tmp_path / "p.json"
    overlay.write_text(json.dumps({"cap": {"invented_words": 0}}))
    monkeypatch.setenv("CITEFIX_OFFLINE_PARAMS", str(overlay))
    v = rules_verifier()
    assert v.params["cap"]["invented_words"] == 0
    case = _case()
    units = ClauseDecomposer().units(case)
    unit = next(u for u in units if u.text == "Opposition councillor Tom Leary chairs the housing committee")
    (vd,) = v.verify([unit], case)
    assert vd.details["features"]["invented_words"] == 2
    assert vd.score > load_params()["cap"]["score"]


def test_the_packaged_parameters_name_the_check():
    params = json.loads(resources.files("citefix").joinpath("data/offline_params.json").read_text())
    assert params["cap"]["invented_words"] == 2


def test_two_unmatched_words_in_a_long_unit_are_a_paraphrase(tools):
    """Two words that match nothing are an invented fact in a short unit and a paraphrase in a long one: the cap
    needs them to be more than a third of the unit's content words (cap.invented_share)."""
    source = ("The regional parliament voted on Tuesday to approve a new housing bill that would require developers "
              "to set aside 25 percent of new apartments for low-income renters.")
    text = "The regional parliament approved a new housing bill obliging developers to reserve flats for low-income renters."
    unit = Unit(id="u1", text=text, kind="clause", decomposer="spacy-clauses", start=0, end=len(text))
    _, (v,) = _verdicts(tools, _case(text=text, source=source), [unit])
    f = v.details["features"]
    assert f["invented_words"] >= 2 and f["invented_words"] <= f["n_words"] * 0.34, f
    assert v.score > load_params()["cap"]["score"]
