"""Meta-eval of several offline signals: one feature pass per item, the same results as each verifier alone;
and CITEFIX_OFFLINE_PARAMS for per-domain calibration."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citefix.errors import ConfigError
from citefix.metaeval.runner import run_meta_eval
from citefix.metaeval.shared import _SignalView, share_offline
from citefix.models import Case, Source, Unit
from citefix.verify.offline import SIGNALS, OfflineVerifier, load_params
from citefix.verify.offline_params import PARAMS_ENV

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"  # the development data beside the checkout

XSUM = [
    {"id": "x1", "document": "The bomb was found in Leeds on Monday. Police closed two roads for three hours.",
     "summary": "a bomb was found in sheffield on monday.", "label": 0,
     "hallucination_spans": [{"start": 21, "end": 30, "text": "sheffield", "type": "extrinsic", "worker": "w0"}]},
    {"id": "x2", "document": "The council approved the £30m bridge by 12 votes to 3 on Tuesday.",
     "summary": "The council approved the bridge.", "label": 1, "hallucination_spans": []},
    {"id": "x3", "document": "Anna Lee won the race in 2019 after a long injury.",
     "summary": "Anna Lee won the race in 2021.", "label": 0, "hallucination_spans": []},
]
AB = {"id": "a1", "question": "Why?",
      "answer": "Cups can be glass [1]. They can be plastic [2][3].",
      "passages": [{"id": "1", "title": "", "text": "Cups are made of glass."},
                   {"id": "2", "title": "", "text": "Some cups are plastic."},
                   {"id": "3", "title": "", "text": "Plastic cups exist."}],
      "human": {"labelled_sentences": [
          {"text": "They can be plastic [2][3].", "cited": [2, 3], "attributable": 1},
          {"text": "Cups can be glass [1].", "cited": [1], "attributable": 0}]}}

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def shared_models():
    v = OfflineVerifier()
    return v.encoder, v.nlp


def _verifiers(shared_models, signals=SIGNALS):
    enc, nlp = shared_models
    return {("offline" if s == "combined" else f"offline:{s}"): OfflineVerifier(signal=s, encoder=enc, nlp=nlp)
            for s in signals}


def _key(v):
    return (v.unit_id, v.verifier, v.score, v.label, list(v.unsupported_spans), v.evidence, v.target, v.error)


def test_verify_signals_equals_each_signal_alone(shared_models):
    enc, nlp = shared_models
    src = ("The city council said on Monday that the new river bridge would cost £30m. "
           "Mayor Anna Lee said she was delighted. Construction starts in March.")
    text = "The council said on Friday the bridge would cost £45m. Mayor Anna Lee was delighted."
    case = Case(id="c", sources=[Source(id="1", text=src), Source(id="2", text="Critics prefer schools.")], text=text)
    units = [Unit(id="u1", text=text[:55], kind="sentence", decomposer="t", start=0, end=55),
             Unit(id="u2", text=text[56:], kind="sentence", decomposer="t", start=56, end=len(text)),
             Unit(id="u3", text="  ", kind="sentence", decomposer="t")]
    targets = [["1"], ["1", "2"], []]
    base = OfflineVerifier(encoder=enc, nlp=nlp)
    got = base.verify_signals(units, case, SIGNALS, targets=targets)
    assert list(got) == list(SIGNALS)
    for s in SIGNALS:
        alone = OfflineVerifier(signal=s, encoder=enc, nlp=nlp).verify(units, case, targets=targets)
        assert [_key(v) for v in got[s]] == [_key(v) for v in alone], s
    # a lexical-only request still gives lexical verdicts equal to the lexical verifier's
    lex = OfflineVerifier(signal="lexical", encoder=enc, nlp=nlp)
    assert [_key(v) for v in lex.verify_signals(units, case, ["lexical"], targets=targets)["lexical"]] == \
        [_key(v) for v in lex.verify(units, case, targets=targets)]
    with pytest.raises(ValueError):
        base.verify_signals(units, case, ["nope"])


def test_share_offline_groups_same_params_only(shared_models):
    vs = _verifiers(shared_models, ("combined", "lexical"))
    enc, nlp = shared_models
    other = dict(load_params())
    other["window_margin"] = 0.5
    vs["offline:similarity"] = OfflineVerifier(signal="similarity", params=other, encoder=enc, nlp=nlp)
    out, notes = share_offline(vs)
    assert list(out) == list(vs)
    assert isinstance(out["offline"], _SignalView) and isinstance(out["offline:lexical"], _SignalView)
    assert out["offline:similarity"] is vs["offline:similarity"]
    assert len(notes) == 1 and "offline, offline:lexical" in notes[0]


def _rows(result):
    return [(r.item_id, r.verifier, r.score, r.unit_labels, r.predicted_spans, r.error) for r in result.scores]


@pytest.mark.parametrize("records", [XSUM, [AB]], ids=["xsumfaith", "attributionbench"])
def test_meta_eval_shared_pass_equals_separate_runs(tmp_path, shared_models, records):
    path = tmp_path / "data.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    vs = _verifiers(shared_models)
    shared = run_meta_eval(path, vs, bootstrap=0)
    separate = run_meta_eval(path, vs, bootstrap=0, share_features=False)
    assert _rows(shared) == _rows(separate)
    assert [s.model_dump() for s in shared.stats] == [s.model_dump() for s in separate.stats]
    assert any("share one offline feature pass" in n for n in shared.notes)
    assert not any("share one" in n for n in separate.notes)


@pytest.mark.skipif(not (DATA / "wice/wice_claim_dev.jsonl").exists(), reason="development data not here")
def test_meta_eval_shared_pass_equals_separate_runs_wice_chunks(shared_models):
    path = DATA / "wice/wice_claim_dev.jsonl"
    vs = _verifiers(shared_models, ("combined", "alignment", "similarity"))
    shared = run_meta_eval(path, vs, bootstrap=0, limit=2)
    separate = run_meta_eval(path, vs, bootstrap=0, limit=2, share_features=False)
    assert _rows(shared) == _rows(separate)
    assert [r.chunk_scores for r in shared.scores] == [r.chunk_scores for r in separate.scores]


def test_params_env_overlays_packaged(tmp_path, monkeypatch):
    packaged = load_params()
    f = tmp_path / "mine.json"
    f.write_text(json.dumps({"thresholds": {"combined": {"supported": 0.42}}}), encoding="utf-8")
    monkeypatch.setenv(PARAMS_ENV, str(f))
    p = load_params()
    assert p["thresholds"]["combined"]["supported"] == 0.42
    assert p["thresholds"]["combined"]["partial"] == packaged["thresholds"]["combined"]["partial"]
    assert p["combined"] == packaged["combined"]
    assert OfflineVerifier().params["thresholds"]["combined"]["supported"] == 0.42
    # an explicit path is not overridden by the environment
    assert load_params(str(f))["combined"] != {} and load_params(str(f))["thresholds"]["combined"]["supported"] == 0.42
    monkeypatch.setenv(PARAMS_ENV, str(tmp_path / "missing.json"))
    with pytest.raises(ConfigError, match=PARAMS_ENV):
        load_params()


def test_params_env_changes_the_label(tmp_path, monkeypatch, shared_models):
    enc, nlp = shared_models
    case = Case(id="c", sources=[Source(id="1", text="The council approved the bridge on Tuesday.")],
                text="The council approved the bridge.")
    unit = [Unit(id="u1", text=case.text, kind="sentence", decomposer="t", start=0, end=len(case.text))]
    score = OfflineVerifier(encoder=enc, nlp=nlp).verify(unit, case)[0].score
    f = tmp_path / "strict.json"
    # the judge's thresholds (the combination's, under the packaged learned judge), as --calibrate writes them
    f.write_text(json.dumps({"thresholds": {"judge": {"supported": min(1.0, score + 0.01),
                                                      "partial": min(1.0, score + 0.005)}}}), encoding="utf-8")
    monkeypatch.setenv(PARAMS_ENV, str(f))
    v = OfflineVerifier(encoder=enc, nlp=nlp).verify(unit, case)[0]
    assert v.score == score and v.label == "unsupported"
