"""ACU granularity (per sentence / whole text) and score aggregation (mean / all_supported / min) as settings: they
change what is asked and how the score is formed, and are recorded with the run (scripted LLM, real store, spaCy)."""

from __future__ import annotations

import json

import pytest
from refine_fakes import acu_responder

from citefix.checking import check_case
from citefix.config import Settings, load_settings
from citefix.errors import ConfigError
from citefix.llm.fake import ScriptedTransport
from citefix.pipeline import build_pipeline


def _check(store, summary_case, **kw):
    transport = ScriptedTransport(responder=acu_responder())
    settings = Settings(llm="openai/m", cache=False, **kw)
    pipeline = build_pipeline(settings, store, transport=transport)
    ev, run_id, failed = check_case(summary_case, pipeline, store)
    assert not failed
    return ev, run_id, transport


def test_granularity_asks_per_sentence_or_once_for_the_text(store, summary_case):
    from citefix.chunking import split_sentences

    _, run_s, per_sentence = _check(store, summary_case)
    _, run_t, whole = _check(store, summary_case, acu_granularity="text")
    gen = lambda t: [r for r in t.requests if "<<<TEXT" in r["messages"][-1]["content"]]  # noqa: E731
    assert len(gen(per_sentence)) == len(split_sentences(summary_case.text)) > 1
    assert len(gen(whole)) == 1 and summary_case.text.strip() in gen(whole)[0]["messages"][-1]["content"]
    for run_id, want in ((run_s, "sentence"), (run_t, "text")):
        assert json.loads(store.run(run_id).settings)["acu_granularity"] == want


def test_aggregation_mean_all_supported_and_min(store, summary_case):
    mean, run_mean, _ = _check(store, summary_case)
    scores = [mean.verdict_for(u.id).score for u in mean.units]
    labels = [mean.verdict_for(u.id).label for u in mean.units]
    assert mean.score == pytest.approx(sum(scores) / len(scores))
    strict, run_strict, _ = _check(store, summary_case, aggregation="all_supported")
    assert strict.score == (1.0 if all(lab == "supported" for lab in labels) else 0.0)
    assert "unsupported" in labels and strict.score == 0.0
    low, run_min, _ = _check(store, summary_case, aggregation="min")
    assert low.score == pytest.approx(min(scores)) and low.scores["acueval"] == pytest.approx(mean.score)  # the mean is kept
    for run_id, want, score in ((run_mean, "mean", mean.score), (run_strict, "all_supported", 0.0),
                                (run_min, "min", min(scores))):
        assert json.loads(store.run(run_id).settings)["aggregation"] == want
        assert store.rounds(run_id)[0].score == pytest.approx(score)


def test_bad_values_are_one_clear_error(monkeypatch):
    monkeypatch.setenv("CITEFIX_AGGREGATION", "median")
    with pytest.raises(ConfigError, match="aggregation 'median'"):
        load_settings()
    monkeypatch.delenv("CITEFIX_AGGREGATION")
    monkeypatch.setenv("CITEFIX_ACU_GRANULARITY", "paragraph")
    with pytest.raises(ConfigError, match="acu_granularity 'paragraph'"):
        load_settings()
