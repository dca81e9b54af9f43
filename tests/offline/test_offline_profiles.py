"""Calibration profiles of the offline verifier: cited answers get their own thresholds over the same combination."""

from __future__ import annotations

import json
import math

import pytest
from helpers import rules_verifier

from citefix.errors import ConfigError
from citefix.models import Case, Source, Unit
from citefix.verify.offline import OfflineVerifier, load_params

PASSAGES = [
    Source(id="1", text="The bridge opened in 1932 and carries six lanes of traffic across the harbour."),
    Source(id="2", text="Tolls were removed in 2004 after the construction loan was repaid."),
]


def _expected(feat: dict, cap: dict) -> float:
    """The packaged "local" combination, written out: the geometric mean of the three signals, capped when the unit
    has an invented value or its evidence contradicts a value, a verb's polarity or its roles (scaled into [0, cap])."""
    s = (math.exp(feat["lexical_log"]) * feat["local_alignment"] * feat["similarity"]) ** (1 / 3)
    hard = (feat["missing_numbers"] + feat["missing_dates"] + feat["missing_entities"] + feat["value_conflict"]
            + feat["polarity_mismatch"] + feat["role_swap"])
    if cap.get("enabled") and hard >= 1:
        s = cap["score"] * s if cap.get("scale", True) else min(s, cap["score"])
    return s


def test_packaged_params_carry_a_cited_answer_profile():
    p = load_params()
    prof = p["profiles"]["cited_answer"]
    # both profiles take their verdicts from the learned judge; the rules' thresholds stay for the rules' combination
    assert p["combined"]["method"] == "judge" and prof["combined"]["method"] == "judge"
    for sig in ("combined", "lexical", "alignment", "similarity"):
        assert prof["thresholds"][sig]["supported"] > prof["thresholds"][sig]["partial"]
        assert p["thresholds"][sig]["supported"] > p["thresholds"][sig]["partial"]
    # how the thresholds were chosen is recorded (leave-one-dataset-out)
    assert "leave-one-dataset-out" in p["_provenance"]


def test_profile_params_lay_the_profile_over_the_defaults():
    v = OfflineVerifier(params={
        **json.loads(json.dumps(load_params())),
        "profiles": {"cited_answer": {"combined": {"bias": 1.5}, "thresholds": {"combined": {"supported": 0.9}}}},
    })
    d, c = v.profile_params("default"), v.profile_params("cited_answer")
    assert c["combined"]["bias"] == 1.5 and c["combined"]["alignment"] == d["combined"]["alignment"]
    assert c["thresholds"]["combined"]["supported"] == 0.9
    assert c["thresholds"]["combined"]["partial"] == d["thresholds"]["combined"]["partial"]
    assert c["thresholds"]["lexical"] == d["thresholds"]["lexical"]
    assert v.profile_params("no-such-profile") is v.params
    assert v.profile_for(Case(id="a", sources=PASSAGES, text="It opened in 1932 [1].")) == "cited_answer"
    assert v.profile_for(Case(id="b", sources=PASSAGES, text="It opened in 1932.")) == "default"


@pytest.mark.slow
def test_cited_answers_are_scored_under_their_profile():
    v = rules_verifier()
    p = v.params
    claim = "The bridge opened in 1932 and has six lanes."
    cited = Case(id="c", sources=PASSAGES, text=claim + " [1]", kind="cited_answer")
    summary = Case(id="s", sources=PASSAGES, text=claim, kind="summary")
    unit = Unit(id="u1", text=claim, kind="claim", decomposer="test", start=0, end=len(claim))
    fc = v.features([unit], cited, targets=[["1"]])[0]
    fs = v.features([unit], summary, targets=[["1"]])[0]
    assert fc["profile"] == "cited_answer" and fs["profile"] == "default"
    # same text, same evidence: same raw features, different calibration
    assert fc["alignment"] == pytest.approx(fs["alignment"]) and fc["lexical_log"] == pytest.approx(fs["lexical_log"])
    prof = p["profiles"]["cited_answer"]
    assert v.score(fc) == pytest.approx(_expected(fc, p["cap"]), abs=1e-9)
    assert v.score(fs) == pytest.approx(_expected(fs, p["cap"]), abs=1e-9)
    vc = v.verify([unit], cited, targets=[["1"]])[0]
    assert vc.details["profile"] == "cited_answer" and vc.score == pytest.approx(v.score(fc))
    th = prof["thresholds"]["combined"]
    assert vc.label == ("supported" if vc.score >= th["supported"] else "partial" if vc.score >= th["partial"] else "unsupported")


@pytest.mark.slow
def test_user_overlay_can_recalibrate_only_cited_answers(tmp_path, monkeypatch):
    packaged = load_params()
    f = tmp_path / "mine.json"
    # the judge's thresholds, as meta-eval --calibrate writes them
    f.write_text(json.dumps({"profiles": {"cited_answer": {"thresholds": {"judge": {"supported": 0.999, "partial": 0.998}}}}}))
    monkeypatch.setenv("CITEFIX_OFFLINE_PARAMS", str(f))
    v = OfflineVerifier()
    claim = "The bridge opened in 1932."
    unit = Unit(id="u1", text=claim, kind="claim", decomposer="test", start=0, end=len(claim))
    cited = Case(id="c", sources=PASSAGES, text=claim + " [1]", kind="cited_answer")
    summary = Case(id="s", sources=PASSAGES, text=claim, kind="summary")
    vc = v.verify([unit], cited, targets=[["1"]])[0]
    vs = v.verify([unit], summary, targets=[["1"]])[0]
    assert vc.label == "unsupported"  # nothing reaches 0.998 under the user's strict thresholds
    assert vs.label == "supported"  # summaries keep the packaged default profile
    # the packaged cited combination is kept; only its thresholds changed
    assert v.params["profiles"]["cited_answer"]["combined"] == packaged["profiles"]["cited_answer"]["combined"]
    f.write_text("[1, 2]")
    with pytest.raises(ConfigError, match="CITEFIX_OFFLINE_PARAMS"):
        load_params()


def test_cited_metrics_use_the_cited_answer_threshold():
    from citefix.cited import verifier_threshold

    judged = OfflineVerifier()
    # a cited answer's claims: the judge's own model for them and its cited point
    claims = judged.judge_for("cited_answer")
    assert verifier_threshold(judged) == judged.supported_at("cited_answer") == pytest.approx(1 - claims.cited_at)
    v = rules_verifier()
    assert verifier_threshold(v) == v.params["profiles"]["cited_answer"]["thresholds"]["combined"]["supported"]
    assert verifier_threshold(v, "default") == v.params["thresholds"]["combined"]["supported"]
    lex = OfflineVerifier(signal="lexical")
    assert verifier_threshold(lex) == lex.params["profiles"]["cited_answer"]["thresholds"]["lexical"]["supported"]


def test_overlay_keeps_every_value_it_does_not_name(tmp_path, monkeypatch):
    packaged = load_params()
    f = tmp_path / "cal.json"
    f.write_text(json.dumps({"profiles": {"cited_answer": {"thresholds": {"combined": {"supported": 0.7}}}},
                             "thresholds": {"lexical": {"partial": 0.05}}}))
    monkeypatch.setenv("CITEFIX_OFFLINE_PARAMS", str(f))
    p = load_params()
    cited = p["profiles"]["cited_answer"]
    assert cited["thresholds"]["combined"] == {**packaged["profiles"]["cited_answer"]["thresholds"]["combined"], "supported": 0.7}
    assert cited["thresholds"]["lexical"] == packaged["profiles"]["cited_answer"]["thresholds"]["lexical"]
    assert cited["combined"] == packaged["profiles"]["cited_answer"]["combined"]
    assert p["thresholds"]["lexical"] == {**packaged["thresholds"]["lexical"], "partial": 0.05}
    assert p["combined"] == packaged["combined"]


def test_capped_units_keep_their_order_below_the_cap():
    """A capped unit's score is its own score scaled into [0, cap.score]: every capped unit stays below the cap (so
    unsupported), and of two capped units the better-supported one still scores higher — a tie at the cap would lose
    that order (cap.scale = false restores the tie)."""
    v = rules_verifier()
    p = v.params
    c = float(p["cap"]["score"])
    base = {"lexical_log": 0.0, "local_alignment": 0.9, "alignment": 0.9, "similarity": 0.8, "missing_numbers": 1,
            "missing_dates": 0, "missing_entities": 0.0, "value_conflict": 0, "polarity_mismatch": 0, "role_swap": 0}
    strong = dict(base)
    weak = dict(base, local_alignment=0.4, alignment=0.4, similarity=0.3)
    s_strong, s_weak = v.score(strong), v.score(weak)
    assert 0 < s_weak < s_strong <= c
    assert s_strong == pytest.approx(c * (0.9 * 0.8) ** (1 / 3))
    uncapped = dict(base, missing_numbers=0)
    assert v.score(uncapped) == pytest.approx((0.9 * 0.8) ** (1 / 3))
    tied = OfflineVerifier(params={**p, "cap": {**p["cap"], "scale": False}})
    assert tied.score(strong) == tied.score(weak) == pytest.approx(c)
