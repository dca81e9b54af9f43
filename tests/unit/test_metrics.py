"""Citation recall, precision, CVCP and their aggregation, with scripted entailment."""

from __future__ import annotations

import json

import pytest

from citefix.cited.metrics import (
    FunctionVerifier,
    MetricsSettings,
    aggregate,
    cvcp,
    cvcp_values,
    plan_requests,
    score_answer,
    score_answers,
    score_units,
)
from citefix.marks import parse_citations
from citefix.models import Case, Source, Unit

pytestmark = pytest.mark.slow  # score_answer parses with spaCy


def _case(text, ids=("1", "2", "3"), cid="c"):
    return Case(id=cid, text=text, sources=[Source(id=i, text=f"passage {i}") for i in ids])


def table_entails(table):
    """entails(unit, ids) from {(claim text, frozenset(ids)): score}; anything not listed scores 0."""

    def entails(unit: Unit, ids: list[str]) -> float:
        return table.get((unit.text, frozenset(ids)), 0.0)

    return entails


def unit(uid, text, cited, **kw):
    return Unit(id=uid, text=text, kind="claim", decomposer="test", cited=cited, **kw)


CUPS = "Cups can be made of glass [1] or plastic [2][3]."
GLASS, PLASTIC, WHOLE = "Cups can be made of glass", "Cups can be made of plastic", "Cups can be made of glass or plastic."


def test_recall_precision_redundant_and_joint():
    ent = table_entails({
        (GLASS, frozenset({"1"})): 0.9,
        (PLASTIC, frozenset({"2", "3"})): 0.8,  # group entails
        (PLASTIC, frozenset({"2"})): 0.7,  # 2 alone entails → supported
        (PLASTIC, frozenset({"3"})): 0.1,  # 3 alone does not, group without 3 (= 2) does → redundant
        (WHOLE, frozenset({"1", "2", "3"})): 0.9,
        (WHOLE, frozenset({"2", "3"})): 0.2,
        (WHOLE, frozenset({"1", "3"})): 0.3,
        (WHOLE, frozenset({"1", "2"})): 0.95,
    })
    fv = FunctionVerifier(ent)
    r = score_answer(_case(CUPS), fv)
    a = r.aliice
    assert [(c.text, c.recall, c.precision) for c in a.claims] == [(GLASS, 1.0, 1.0), (PLASTIC, 1.0, 0.5)]
    assert [(v.id, v.label) for v in a.claims[1].citations] == [("2", "supported"), ("3", "redundant")]
    assert a.recall == 1.0 and a.precision == 0.75 and a.f1 == pytest.approx(2 * 0.75 / 1.75)
    assert a.precision_by_citation == pytest.approx(2 / 3)
    assert a.redundant == 1
    # ALCE: the whole sentence with [1][2][3]; 1, 2 and 3 alone fail; without 3 still entails → 3 redundant;
    # without 1 or without 2 fails → 1 and 2 are needed jointly (score 1).
    (s,) = r.alce.claims
    assert s.recall == 1.0
    assert [(v.id, v.label, v.precision) for v in s.citations] == [
        ("1", "supported", 1.0), ("2", "supported", 1.0), ("3", "redundant", 0.0)
    ]
    assert "together" in s.citations[0].message
    assert r.alce.precision == pytest.approx(2 / 3)
    # one batched verifier call, no judgement made twice
    assert fv.calls == 1 and r.verifier_calls == 1
    assert fv.pairs == r.requests == 1 + 3 + 7  # glass; plastic group + 2 alone + 3 alone; whole: group + 3 + 3


def test_precision_is_zero_when_recall_is_zero():
    fv = FunctionVerifier(table_entails({(PLASTIC, frozenset({"2"})): 0.9}))
    r = score_answer(_case(CUPS), fv)
    glass, plastic = r.aliice.claims
    assert (glass.recall, glass.precision) == (0.0, 0.0)
    assert (plastic.recall, plastic.precision) == (0.0, 0.0)
    assert [v.label for v in plastic.citations] == ["unsupported", "unsupported"]
    assert plastic.messages == ["the cited passages do not support the claim"]


def test_threshold_is_a_setting():
    fv = FunctionVerifier(table_entails({(GLASS, frozenset({"1"})): 0.6}))
    assert score_answer(_case(CUPS), fv).aliice.claims[0].recall == 1.0
    assert score_answer(_case(CUPS), fv, settings=MetricsSettings(threshold=0.7)).aliice.claims[0].recall == 0.0


def test_staged_requests_give_the_same_numbers_with_fewer_judgements():
    scores = {
        (GLASS, frozenset({"1"})): 0.9,
        (PLASTIC, frozenset({"2", "3"})): 0.8,
        (PLASTIC, frozenset({"2"})): 0.7,
        (PLASTIC, frozenset({"3"})): 0.1,
    }
    one = FunctionVerifier(table_entails(scores))
    staged = FunctionVerifier(table_entails(scores))
    a = score_answer(_case(CUPS), one)
    b = score_answer(_case(CUPS), staged, settings=MetricsSettings(requests="staged"))
    for m in ("aliice", "alce"):
        x, y = getattr(a, m), getattr(b, m)
        assert (x.recall, x.precision) == (y.recall, y.precision)
        assert [[(v.id, v.label) for v in c.citations] for c in x.claims] == [
            [(v.id, v.label) for v in c.citations] for c in y.claims
        ]
    assert staged.pairs < one.pairs
    assert staged.calls <= 3


def test_missing_passage_scores_zero_with_message_and_is_never_judged():
    seen = []

    def ent(u, ids):
        seen.append(tuple(ids))
        return 1.0

    r = score_answer(_case("Cups break [1][7]. Plates break [2].", ids=("1", "2")), FunctionVerifier(ent))
    c = r.aliice.claims[0]
    assert (c.recall, c.precision, c.missing) == (0.0, 0.0, ["7"])
    assert [(v.id, v.label) for v in c.citations] == [("1", "not_judged"), ("7", "not_found")]
    assert c.citations[1].message == "passage [7] not found"
    assert "passage [7] not found" in c.messages and "passage [7] not found" in r.warnings
    assert all("7" not in ids for ids in seen)
    assert r.aliice.claims[1].recall == 1.0
    assert r.aliice.not_found == 1


def test_uncited_answer():
    fv = FunctionVerifier(lambda u, ids: 1.0)
    r = score_answer(_case("Nothing is cited. At all."), fv)
    assert r.status == "uncited" and r.message == "the answer has no citation marks"
    assert r.aliice.recall is None and r.aliice.message.startswith("no checkable units")
    assert r.cvcp is None
    assert fv.calls == 0


def test_uncited_sentences_setting():
    fv = FunctionVerifier(lambda u, ids: 1.0)
    text = "Cups break [1]. Nothing cited here."
    ignore = score_answer(_case(text), fv)
    counted = score_answer(_case(text), fv, settings=MetricsSettings(uncited_sentences="unsupported"))
    assert ignore.aliice.recall == 1.0 and ignore.aliice.uncited_sentences == 1
    assert counted.aliice.recall == 0.5 and counted.aliice.precision == 1.0
    assert counted.alce.recall == 0.5
    assert counted.aliice.claims[1].unit_id is None and counted.aliice.claims[1].precision is None


def test_verifier_errors_count_as_not_entailed_and_are_reported():
    class Broken:
        name = "broken"
        llm = model_name = None  # the Verifier attributes: no LLM, no model of its own

        def supported_at(self, profile):
            return 0.5

        def verify(self, units, case, *, targets=None):
            from citefix.models import Verdict

            return [Verdict(unit_id=u.id, verifier=self.name, score=None, label="error", error="model down")
                    for u in units]

    r = score_answer(_case("Cups break [1]."), Broken())
    assert r.aliice.claims[0].recall == 0.0 and r.aliice.claims[0].errors == ["model down"]
    assert r.errors == ["model down"]


def test_plan_requests_deduplicates_across_methods():
    a = unit("u1", "Same text.", ["1", "2"])
    b = Unit(id="s1", text="Same text.", kind="sentence", decomposer="t", cited=["1", "2"])
    reqs = plan_requests([a, b])
    assert [(r.targets, r.role) for r in reqs] == [(("1", "2"), "group"), (("1",), "alone"), (("2",), "without")]
    assert len(reqs) == 3  # group, 1 alone (= without 2), 2 alone (= without 1)
    assert plan_requests([unit("u3", "x", ["7"], meta={"missing": ["7"]})]) == []


def test_score_units_rejects_clashing_ids():
    u = unit("u1", "A.", ["1"])
    v = unit("u1", "B.", ["1"])
    with pytest.raises(ValueError, match="used twice"):
        score_units(_case("A [1]. B [1]."), FunctionVerifier(lambda *_: 1.0), claims=[u], sentences=[v])


def test_verdicts_traced_per_unit():
    fv = FunctionVerifier(lambda u, ids: 0.9)
    r = score_answer(_case(CUPS), fv)
    ids = {u.id for u in r.units}
    assert {v.unit_id for v in r.verdicts} == ids
    plastic = next(u for u in r.units if u.text == PLASTIC)
    assert sorted(tuple(v.target) for v in r.verdicts if v.unit_id == plastic.id) == [("2",), ("2", "3"), ("3",)]


def test_results_dump_to_json():
    r = score_answer(_case("Cups break [1][7]."), FunctionVerifier(lambda u, ids: 1.0))
    data = json.loads(r.model_dump_json())
    assert data["aliice"]["claims"][0]["citations"][1]["message"] == "passage [7] not found"


# --- CVCP --------------------------------------------------------------------------------------------------------------


def test_cvcp_all_marks_at_end_is_zero():
    p = parse_citations("Cups break [1]. Plates break too [2][3]. Bowls.")
    assert cvcp_values(p) == [0.0, 0.0]
    assert cvcp(p) == 0.0


def test_cvcp_spread_marks():
    # words: Cups(1) can be made of glass(6) [1] or plastic(8) [2][3] → positions 6/8, 8/8, 8/8
    p = parse_citations(CUPS)
    pos = [0.75, 1.0, 1.0]
    mu = sum(pos) / 3
    sd_pop = (sum((x - mu) ** 2 for x in pos) / 3) ** 0.5
    sd_samp = (sum((x - mu) ** 2 for x in pos) / 2) ** 0.5
    assert cvcp(p) == pytest.approx(sd_pop / mu)
    assert cvcp(p, MetricsSettings(cvcp_std="sample")) == pytest.approx(sd_samp / mu)


def test_cvcp_sentence_choice():
    p = parse_citations(CUPS + " Plates break [1].")
    assert len(cvcp_values(p)) == 2
    assert len(cvcp_values(p, MetricsSettings(cvcp_sentences="multi_mark"))) == 1
    assert len(cvcp_values(p, MetricsSettings(cvcp_std="sample"))) == 1  # one mark: no sample σ
    assert cvcp(parse_citations("[1] Cups break.")) == 0.0  # μ = 0


# --- many answers ------------------------------------------------------------------------------------------------------


def test_aggregate_macro_and_micro():
    ent = table_entails({
        ("Cups break.", frozenset({"1"})): 1.0,
        ("Plates break.", frozenset({"1"})): 1.0,
    })
    cases = [
        _case("Cups break [1].", cid="a"),  # recall 1 (1 claim)
        _case("Plates break [1]. Bowls break [2]. Mugs break [3].", cid="b"),  # recall 1/3 (3 claims)
        _case("No marks.", cid="c"),
    ]
    answers = score_answers(cases, FunctionVerifier(ent))
    agg = aggregate(answers)
    assert agg.headline == "macro"
    assert agg.answers == 3 and agg.scored_answers == 2 and agg.uncited_answers == 1
    assert agg.aliice_macro.recall == pytest.approx((1 + 1 / 3) / 2) and agg.aliice_macro.n == 2
    assert agg.aliice_micro.recall == pytest.approx(2 / 4) and agg.aliice_micro.n == 4
    assert agg.aliice_macro.f1 == pytest.approx(
        2 * agg.aliice_macro.precision * agg.aliice_macro.recall / (agg.aliice_macro.precision + agg.aliice_macro.recall)
    )
    assert agg.cvcp == 0.0 and agg.cvcp_sentences == 4
    json.loads(agg.model_dump_json())


def test_aggregate_of_nothing():
    agg = aggregate([])
    assert agg.aliice_macro.recall is None and agg.cvcp is None


def test_function_verifier_can_take_text():
    seen = []
    fv = FunctionVerifier(lambda text, ids: seen.append((text, ids)) or 1.0, text_only=True)
    r = score_answer(_case("Cups break [2]."), fv)
    assert seen == [("Cups break.", ["2"])] and r.aliice.recall == 1.0
