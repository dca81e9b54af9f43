"""`citefix meta-eval --calibrate`: thresholds fitted on the user's labels, written as a parameter overlay."""

from __future__ import annotations

import json

import numpy as np
import pytest
from metaeval_helpers import summary_records, write

from citefix.errors import ConfigError
from citefix.metaeval.calibrate import thresholds, write_calibration
from citefix.metaeval.runner import ItemScore, MetaEvalResult


def _result(shape="xsumfaith", verifiers=("offline", "offline:lexical"), scores=None, levels=None, labels=None):
    rows = []
    for name in verifiers:
        for i, s in enumerate(scores):
            rows.append(ItemScore(item_id=f"x{i}", index=i, line=i + 1, verifier=name, score=s,
                                  label=None if labels is None else labels[i],
                                  level=None if levels is None else levels[i]))
    return MetaEvalResult(path="mine.jsonl", shape=shape, records=len(scores), items=len(scores),
                          verifiers=list(verifiers), scores=rows)


def test_binary_labels_give_the_best_balanced_accuracy_threshold():
    r = _result(scores=[0.9, 0.8, 0.7, 0.45, 0.3, 0.2, None], labels=[1, 1, 1, 0, 0, 0, 1])
    th = thresholds(r)
    assert set(th) == {"combined", "lexical"}
    t = th["combined"]
    assert 0.45 < t["supported"] <= 0.7 and t["partial"] == pytest.approx(0.8 * t["supported"], abs=1e-4)
    assert t["n"] == 6 and t["balanced_accuracy"] == 1.0  # the missing score is left out


def test_three_levels_give_a_partial_threshold_below_supported():
    r = _result(shape="wice", verifiers=("offline",), scores=[0.95, 0.9, 0.6, 0.55, 0.2, 0.1],
                levels=[2, 2, 1, 1, 0, 0])
    t = thresholds(r)["combined"]
    assert 0.6 < t["supported"] <= 0.9
    assert 0.2 < t["partial"] <= 0.55 and t["partial"] < t["supported"]


def test_written_overlay_is_merged_by_profile(tmp_path):
    f = tmp_path / "mine.json"
    f.write_text(json.dumps({"lexical": {"number": 2.0}}))
    summ = _result(scores=[0.9, 0.8, 0.3, 0.2], labels=[1, 1, 0, 0])
    out = write_calibration(summ, f, "citefix meta-eval mine.jsonl --calibrate mine.json")
    assert out["profile"] == "default"
    cited = _result(shape="attributionbench", verifiers=("offline",), scores=[0.7, 0.6, 0.5, 0.1], labels=[1, 1, 0, 0])
    assert write_calibration(cited, f, "c2")["profile"] == "cited_answer"
    data = json.loads(f.read_text())
    assert data["lexical"] == {"number": 2.0}  # kept
    # the combination is the learned judge: its thresholds are written as the judge's
    assert set(data["thresholds"]) == {"judge", "lexical"}
    assert set(data["profiles"]["cited_answer"]["thresholds"]) == {"judge"}
    assert data["_calibration"]["default"]["command"].startswith("citefix meta-eval")
    assert data["_calibration"]["cited_answer"]["items"] == {"combined": 4}


def test_calibration_needs_an_offline_verifier_and_both_classes(tmp_path):
    with pytest.raises(ConfigError, match="--verifier offline"):
        write_calibration(_result(verifiers=("llm",), scores=[0.9, 0.1], labels=[1, 0]), tmp_path / "a.json", "c")
    with pytest.raises(ConfigError, match="both supported and unsupported"):
        write_calibration(_result(scores=[0.9, 0.1], labels=[1, 1]), tmp_path / "a.json", "c")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ConfigError, match="not a JSON parameter file"):
        write_calibration(_result(scores=[0.9, 0.1], labels=[1, 0]), bad, "c")
    assert bad.read_text() == "{not json"  # nothing lost
    assert not (tmp_path / "a.json").exists()


def test_cli_rejects_calibrate_without_an_offline_verifier(tmp_path, capsys):
    from citefix.cli import main

    path = write(tmp_path, summary_records())
    rc = main(["meta-eval", str(path), "--verifier", "llm", "--calibrate", str(tmp_path / "c.json"), "--no-store"])
    assert rc == 2
    assert "--calibrate" in capsys.readouterr().err and not (tmp_path / "c.json").exists()


@pytest.mark.slow
def test_cli_calibrates_and_the_overlay_changes_verdicts(tmp_path, capsys, monkeypatch):
    from citefix.cli import main
    from citefix.verify.offline import OfflineVerifier

    path = write(tmp_path, summary_records())
    cal = tmp_path / "mine.json"
    rc = main(["meta-eval", str(path), "--verifier", "offline,lexical", "--bootstrap", "0", "--no-store",
               "--calibrate", str(cal)])
    _, err = capsys.readouterr()
    assert rc == 0, err
    assert f"CITEFIX_OFFLINE_PARAMS={cal}" in err
    data = json.loads(cal.read_text())
    th = data["thresholds"]["judge"]
    assert 0 < th["partial"] < th["supported"] <= 1
    assert "--calibrate" in data["_calibration"]["default"]["command"]
    # the overlay is what later offline verdicts use
    monkeypatch.setenv("CITEFIX_OFFLINE_PARAMS", str(cal))
    v = OfflineVerifier()
    assert v.params["thresholds"]["judge"]["supported"] == th["supported"] == v.supported_at("default")
    assert np.isfinite(th["supported"])
