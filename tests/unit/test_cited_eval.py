"""evaluate() on cited answers: units, verdicts, scores, metrics and support levels in the Evaluation; problems
reported, never raised; the report; store round trip; the corpus summary."""

from __future__ import annotations

import json
import math

import pytest
from cited_helpers import CUPS, GLASS, PLASTIC, REDUNDANT, WHOLE, table_verifier

from citefix.cited import answer_scores, evaluate_cited, summarise, verifier_threshold
from citefix.cited.metrics import FunctionVerifier, aggregate, score_answer
from citefix.decompose.claims import ClaimDecomposer, SentenceDecomposer
from citefix.evaluate import evaluate
from citefix.models import Case, Evaluation, Source, Verdict
from citefix.report import render, to_json

pytestmark = pytest.mark.slow  # spaCy parses the claims


def _case(text, ids=("1", "2", "3"), cid="c", kind=None):
    return Case(id=cid, text=text, kind=kind, sources=[Source(id=i, text=f"passage {i}") for i in ids])


def _cited_part(ev, color=False):
    import io

    from rich.console import Console

    from citefix.cited.report import render_cited

    buf = io.StringIO()
    con = Console(file=buf, force_terminal=color, color_system="standard" if color else None, width=110,
                  no_color=not color, highlight=False, soft_wrap=False)
    render_cited(ev, con, color=color)
    return buf.getvalue()


def _by_role(ev, role, unit_id=None):
    return [v for v in ev.verdicts if v.details.get("role") == role and (unit_id is None or v.unit_id == unit_id)]


# --- the bundled example, offline -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def offline():
    from citefix.verify.offline import OfflineVerifier

    return OfflineVerifier()


@pytest.fixture(scope="module")
def cups_ev(offline):
    from citefix.inputs import example_path, load_cases

    case = load_cases(example_path("cited_answer"))[0]
    return case, evaluate(case, decomposer=ClaimDecomposer(), verifier=offline)


def test_example_offline_flags_the_1908_claim(cups_ev):
    case, ev = cups_ev
    assert ev.status == "ok" and ev.kind == "cited_answer" and ev.verifier == "offline" and ev.decomposer == "aliice"
    claims = [u for u in ev.units if u.meta["method"] == "aliice"]
    assert [u.text for u in claims] == ["Cups can be made of glass", "Cups can be made of plastic",
                                        "Ceramic mugs keep drinks hot for longer than thin glass",
                                        "paper cups were invented in 1908"]
    assert [u.cited for u in claims] == [["1"], ["2", "3"], ["4"], ["2"]]
    assert [u.id for u in ev.unsupported] == ["u4"]  # only the 1908 claim
    v = ev.verdict_for("u4")
    assert v.label == "unsupported" and v.target == ["2"] and v.details["role"] == "unit"
    cit = _by_role(ev, "citation", "u4")
    assert len(cit) == 1 and cit[0].target == ["2"] and cit[0].details["citation"] == "unsupported"
    assert ev.scores["aliice_recall"] == 0.75 and ev.scores["aliice_precision"] == 0.75
    assert ev.scores["alce_recall"] == 0.5  # the second sentence as a whole is not supported
    assert set(ev.scores) >= {"aliice_recall", "aliice_precision", "aliice_f1", "cvcp", "alce_recall",
                              "alce_precision", "alce_f1"}
    assert 0 < ev.score < 1 and ev.score == pytest.approx(
        sum(ev.verdict_for(u.id).score for u in claims) / len(claims))
    levels = [s["level"] for s in ev.metrics["support"]["statements"]]
    assert levels == ["full", "partial"]
    assert [s["support"] for s in ev.metrics["citations"]["sentences"]] == ["full", "partial"]


def test_example_units_have_exact_spans_and_pieces(cups_ev):
    case, ev = cups_ev
    for u in ev.units:
        assert u.has_span and u.meta["pieces"]
        for a, b in u.meta["pieces"]:
            assert case.text[a:b].strip() == case.text[a:b] and "[" not in case.text[a:b]
    u2 = next(u for u in ev.units if u.id == "u2")
    assert [case.text[a:b] for a, b in u2.meta["pieces"]] == ["Cups can be made of", "plastic"]
    alce = [u for u in ev.units if u.meta["method"] == "alce"]
    assert [u.id for u in alce] == ["s1", "s2"] and all(u.kind == "sentence" for u in alce)
    # ALCE units are kept for comparison but never painted or counted as unsupported
    assert all(ev.verdict_for(u.id) is None for u in alce)
    assert [v.details["role"] for v in ev.verdicts if v.unit_id == "s2"][0] == "sentence"


def test_example_report_plain_ascii(cups_ev):
    case, ev = cups_ev
    out = render(ev, color=False)
    assert '[2] "paper cups were invented in 1908" @114-146' in out
    assert "NOT SUPPORTED" in out and "support: partial" in out and "support: full" in out
    assert "ALiiCE (per citation group): recall 0.75  precision 0.75  F1 0.75  CVCP" in out
    assert "ALCE (per sentence):         recall 0.50  precision 0.50  F1 0.50" in out
    assert "Fallbacks to the whole sentence: 0" in out
    assert "[[- paper cups were invented in 1908]]" in out
    mine = _cited_part(ev)
    assert mine in out
    assert all(ord(ch) < 128 for ch in mine), "the plain cited report is ASCII"
    assert "\x1b[" not in out
    colored = render(ev, color=True)
    assert "\x1b[" in colored


def test_store_round_trip_reprints_identically(cups_ev, store):
    case, ev = cups_ev
    run_id = store.start_run(case, "check")
    store.write_round(run_id, 0, ev)
    back = store.evaluation(run_id, 0)
    assert back.metrics == json.loads(json.dumps(ev.metrics))
    assert render(back, run=store.run(run_id), store_path="x") == render(ev, run=store.run(run_id), store_path="x")
    assert render(back, color=True) == render(ev, color=True)
    rows = list(store.db["verdicts"].rows_where("uid = ?", ["u2"]))
    assert sorted(json.loads(r["target"]) for r in rows) == [["2"], ["2", "3"], ["3"]]
    units = {r["uid"]: r for r in store.db["units"].rows_where("round_id = ?", [1])}
    assert set(units) == {"u1", "u2", "u3", "u4", "s1", "s2"}
    assert store.rounds(run_id)[0].n_unsupported == 1


def test_json_carries_claims_groups_citations(cups_ev):
    _, ev = cups_ev
    data = json.loads(to_json(ev))
    c = data["metrics"]["citations"]
    assert [g["claim"] for g in c["groups"]][-1] == "paper cups were invented in 1908"
    assert [[x["id"] for x in g["citations"]] for g in c["groups"]] == [["1"], ["2", "3"], ["4"], ["2"]]
    assert [x["raw"] for s in c["sentences"] for x in s["groups"]] == ["[1]", "[2][3]", "[4]", "[2]"]
    assert [x["unit_id"] for s in c["sentences"] for x in s["groups"]] == ["u1", "u2", "u3", "u4"]
    assert {v["details"]["role"] for v in data["verdicts"]} >= {"unit", "citation", "sentence", "without"}


# --- metrics wiring with scripted entailment -------------------------------------------------------------------------


def test_redundant_citation_and_verdict_roles():
    ev = evaluate(_case(CUPS), decomposer=ClaimDecomposer(), verifier=table_verifier(REDUNDANT))
    c = ev.metrics["citations"]
    assert c["redundant"] == [{"unit_id": "u2", "id": "3", "claim": PLASTIC}]
    g2 = c["groups"][1]
    assert [(x["id"], x["label"], x["redundant"], x["supports"]) for x in g2["citations"]] == [
        ("2", "supported", False, True), ("3", "redundant", True, False)]
    assert ev.scores["aliice_recall"] == 1.0 and ev.scores["aliice_precision"] == 0.75
    v3 = next(v for v in _by_role(ev, "citation", "u2") if v.target == ["3"])
    assert v3.label == "unsupported" and v3.details["citation"] == "redundant" and v3.score == 0.1
    own = ev.verdict_for("u2")
    assert own.target == ["2", "3"] and own.score == 0.8
    assert ev.unsupported == []
    assert ev.score == pytest.approx((0.9 + 0.8) / 2)
    out = render(ev)
    assert "[3] REDUNDANT 0.10" in out and "redundant: [3] on u2" in out
    # refinement's citation strategy reads the same rows
    from citefix.revision.feedback import citation_issues

    issues = citation_issues(_case(CUPS), ev)
    assert [i.source for i in issues] == ["3"]  # whatever refinement calls it, the one issue is passage [3]


def test_together_with_others_counts_as_supporting():
    table = {(PLASTIC, frozenset({"2", "3"})): 0.9, (GLASS, frozenset({"1"})): 0.9}  # neither alone; together yes
    ev = evaluate(_case(CUPS), decomposer=ClaimDecomposer(), verifier=table_verifier(table))
    cits = _by_role(ev, "citation", "u2")
    assert [(v.target, v.label, v.details["citation"], v.details["alone_label"]) for v in cits] == [
        (["2"], "supported", "supported", "unsupported"), (["3"], "supported", "supported", "unsupported")]
    assert ev.scores["aliice_precision"] == 1.0


def test_unknown_passage_is_reported_not_raised():
    ev = evaluate(_case("Cups can be made of glass [1] or plastic [7]."), decomposer=ClaimDecomposer(),
                  verifier=table_verifier({(GLASS, frozenset({"1"})): 0.9}))
    assert ev.status == "ok"
    c = ev.metrics["citations"]
    assert c["not_found"] == ["passage [7] not found"]
    assert c["groups"][1]["missing"] == ["7"] and c["groups"][1]["recall"] == 0.0
    assert "passage [7] not found" in ev.errors
    own = ev.verdict_for("u2")
    assert own.label == "unsupported" and own.details["not_found"] == ["7"]
    cit = _by_role(ev, "citation", "u2")
    # a finding, not a failed check: the mark cites no passage, so it gives no support
    assert cit[0].label == "unsupported" and cit[0].details["citation"] == "not_found" and cit[0].score == 0.0
    assert cit[0].error is None and cit[0].details["message"] == "[7] cites no passage"
    assert all(v.details.get("citation") == "not_judged" for v in ev.verdicts if v.label == "error")
    assert ev.scores["aliice_recall"] == 0.5 and ev.score == pytest.approx(0.45)
    st = ev.metrics["support"]["statements"][0]
    assert st["unit_ids"] == ["u1", "u2"] and st["units"] == 2 and st["supported"] == 1  # u2 counts as no support
    assert st["level"] == "partial" and "[7] cites no passage" in st["message"]
    pair = [p for p in ev.metrics["support"]["pairs"] if p["citation"] == "7"][0]
    assert pair["level"] == "none" and pair["message"] == "[7] cites no passage"
    out = render(ev)
    assert "NOT FOUND" in out and "not found: passage [7] not found" in out


def test_uncited_answer_is_reported():
    ev = evaluate(_case("Cups can be made of glass or plastic.", kind="cited_answer"), decomposer=ClaimDecomposer(),
                  verifier=table_verifier({}))
    assert ev.status == "uncited" and ev.score is None and "uncited" in ev.message
    assert ev.units == [] and ev.verdicts == []
    assert ev.metrics["citations"]["status"] == "uncited"
    assert all(v is None or not math.isnan(v) for v in ev.scores.values())
    out = render(ev)
    assert "Uncited answer" in out and "nan" not in out.lower()


def test_malformed_marks_are_warnings():
    text = "Cups can be made of glass [1-] or plastic [a]. Plates break [2]."
    ev = evaluate(_case(text), decomposer=ClaimDecomposer(), verifier=table_verifier({}, default=0.2))
    assert ev.status == "ok"
    assert any("malformed citation mark '[1-]'" in e for e in ev.errors)
    assert any("'[a]'" in e for e in ev.errors)
    assert [u.text for u in ev.units if u.meta["method"] == "aliice"] == ["Plates break."]
    assert "warning: malformed citation mark" in render(ev)


def test_all_judgements_failing_is_an_error_status():
    class Broken:
        name = "broken"
        llm = model_name = None  # the Verifier attributes: no LLM, no model of its own

        def supported_at(self, profile):
            return 0.5

        def verify(self, units, case, *, targets=None):
            return [Verdict(unit_id=u.id, verifier=self.name, score=None, label="error", error="model down",
                            target=list(t)) for u, t in zip(units, targets)]

    ev = evaluate(_case(CUPS), decomposer=ClaimDecomposer(), verifier=Broken())
    assert ev.status == "error" and ev.score is None and "model down" in ev.message
    assert any("model down" in e for e in ev.errors)


def test_sentence_decomposer_and_other_decomposers():
    ev = evaluate(_case(CUPS), decomposer=SentenceDecomposer(), verifier=table_verifier(REDUNDANT))
    assert [u.id for u in ev.units] == ["u1", "s1"] and ev.units[0].text == WHOLE
    assert ev.scores["aliice_recall"] == ev.scores["alce_recall"] == 1.0

    class Other:
        name = "clauses"
        llm, errors = None, ()

    ev = evaluate(_case(CUPS), decomposer=Other(), verifier=table_verifier(REDUNDANT))
    assert ev.decomposer == "aliice" and "does not cut cited answers" in ev.errors[0]


def test_fallback_is_reported():
    long = " ".join(["word"] * 30)
    text = f"Cups can be made of glass [1] or {long} and also {long} plastic [2]."
    ev = evaluate(_case(text), decomposer=ClaimDecomposer(), verifier=table_verifier({}, default=0.9))
    fb = ev.metrics["citations"]["fallbacks"]
    assert fb == {"count": 1, "reasons": {"long sentence": 1}, "sentences": [0]}
    u = ev.units[0]
    assert u.kind == "sentence" and u.meta["fallback"] == "long sentence" and u.cited == ["1", "2"]
    out = render(ev)
    assert "(whole sentence: long sentence)" in out and "Fallbacks to the whole sentence: 1 (long sentence 1)" in out


def test_events_and_threshold():
    seen = []
    fv = table_verifier(REDUNDANT)
    fv.threshold = 0.85
    ev = evaluate_cited(_case(CUPS), decomposer=ClaimDecomposer(), verifier=fv, on_event=lambda e, d: seen.append(e))
    assert seen == ["decompose_started", "units_ready", "units_scored"]
    assert verifier_threshold(fv) == 0.85 and ev.metrics["citations"]["threshold"] == 0.85
    assert ev.scores["aliice_recall"] == 0.5  # 0.8 < 0.85

    from citefix.verify.offline import OfflineVerifier

    assert verifier_threshold(OfflineVerifier(params={"thresholds": {"combined": {"supported": 0.6}}})) == 0.6
    assert verifier_threshold(OfflineVerifier(params={"thresholds": {}})) == 0.5  # no threshold of its own


# --- many answers -----------------------------------------------------------------------------------------------------


def test_summarise_matches_metrics_aggregate():
    fv = table_verifier(REDUNDANT)
    cases = [_case(CUPS, cid="a"), _case("Cups can be made of glass [1] or plastic [9].", cid="b"),
             _case("Cups are round.", cid="c", kind="cited_answer")]
    evs = [evaluate(c, decomposer=ClaimDecomposer(), verifier=fv) for c in cases]
    stored = [Evaluation.model_validate_json(e.model_dump_json()) for e in evs]
    s = summarise(stored)
    ref = aggregate([score_answer(c, fv) for c in cases]).model_dump(mode="json")
    for k in ("answers", "scored_answers", "uncited_answers", "aliice_macro", "aliice_micro", "alce_macro",
              "alce_micro", "cvcp", "cvcp_sentences", "fallbacks", "redundant", "not_found"):
        assert s[k] == ref[k], k
    assert s["uncited_ids"] == ["c"] and s["not_found_answers"] == 1 and s["fallback_count"] == 0
    assert s["claims"] == 4 and s["score"] == pytest.approx((0.85 + 0.45) / 2)
    assert answer_scores(stored[0]).aliice.recall == evs[0].scores["aliice_recall"]
    from citefix.cited.report import render_summary

    text = render_summary(s)
    assert "ALiiCE macro (mean over answers): recall 0.75" in text and "Uncited answers: c" in text
    assert "passages not found 1 (in 1 answers)" in text
    json.dumps(s)
    assert summarise([Evaluation(case_id="x", kind="summary", text="t")])["answers"] == 0


def test_a_citation_to_a_missing_passage_leaves_the_round_whole_on_screen():
    """The TUI's round health: a mark citing no passage is a finding, so the round is complete (not 'partial')."""
    from citefix.tui.widgets import RoundsPanel

    ev = evaluate(_case("Cups can be made of glass [1]. Plastic cups are cheap [7]."), decomposer=ClaimDecomposer(),
                  verifier=table_verifier({(GLASS, frozenset({"1"})): 0.9}))
    assert ev.status == "ok" and "passage [7] not found" in ev.errors
    assert RoundsPanel.health(ev) is None
    st = ev.metrics["support"]["statements"][1]
    assert st["level"] == "none" and st["message"] == "[7] cites no passage"
    ev.errors.append("u1: the model refused")  # a real failure still shows
    assert RoundsPanel.health(ev) == "partial"


def test_a_mis_cited_claim_names_the_passage_that_supports_it():
    """A claim its mark does not support is checked against the passages it does not cite (those sharing its words):
    the report, the citation feedback and the offline reviser name the one that supports it."""
    from citefix.revision.feedback import build_strategy
    from citefix.revision.offline import OfflineReviser

    case = Case(id="c", kind="cited_answer", text="Plastic cups are light and cheap [1].", sources=[
        Source(id="1", text="Glass cups are common in homes."),
        Source(id="2", text="Plastic cups are light and cheap."),
        Source(id="3", text="Plastic is made from oil."),
        Source(id="4", text="Ceramic mugs keep drinks hot.")])
    claim = "Plastic cups are light and cheap"
    asked: list[frozenset] = []

    def score(text, ids):
        asked.append(frozenset(ids))
        return {frozenset({"2"}): 0.9, frozenset({"3"}): 0.3}.get(frozenset(ids), 0.1) if text.rstrip(".") == claim else 0.9

    ev = evaluate(case, decomposer=ClaimDecomposer(), verifier=FunctionVerifier(score, text_only=True, name="fn"))
    row = ev.metrics["citations"]["groups"][0]
    assert row["recall"] == 0 and row["supported_by"] == ["2"]
    assert frozenset({"4"}) not in asked  # a passage sharing none of its words is not asked
    assert "supported by [2]" in _cited_part(ev)
    fb = build_strategy("citation").feedback(case, ev)
    assert "supported by [2]" in fb.comment, fb.comment
    r = OfflineReviser().revise(case, fb, ev)
    assert r.text == "Plastic cups are light and cheap [2].", (r.text, r.edits)
