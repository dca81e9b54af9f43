"""citefix's small entailment model: the shipped delta loads on the packaged MiniLM with both hashes checked, scores
pairs, and the training script's save/load round trip gives the same scores."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from citefix.errors import ConfigError
from citefix.verify.entail import delta_dir, load_entail

ROOT = Path(__file__).resolve().parents[2]

EVIDENCE = ("Work is expected to begin next spring and to take about eighteen months. The old engine shed will be kept "
            "and restored as a workshop.")


def test_shipped_delta_is_small_hashed_and_pinned_to_the_packaged_minilm():
    from citefix.encoder import MINILM_SHA256
    from citefix.verify.entail import _sha256

    folder = delta_dir()
    manifest = json.loads((folder / "entail.json").read_text())
    weights = folder / "entail.safetensors"
    assert weights.stat().st_size <= 30e6
    assert manifest["sha256"] == _sha256(weights)
    assert manifest["base_sha256"] == MINILM_SHA256
    assert manifest["provenance"]["n_train"] > 1000


def test_scores_are_probabilities_and_follow_the_evidence():
    m = load_entail()
    pairs = [
        ("Work is expected to take about eighteen months.", EVIDENCE),
        ("Work is expected to take about five years.", EVIDENCE),
        ("The old engine shed will be demolished.", EVIDENCE),
        ("The old engine shed will be kept.", EVIDENCE),
    ]
    p = m.score(pairs)
    assert all(0.0 <= x <= 1.0 for x in p)
    assert p[0] > p[1]
    assert p[3] > p[2]
    # the same pair alone or in a batch of others scores the same (padding does not leak into the score)
    assert abs(m.score(pairs[:1])[0] - p[0]) < 1e-3


def test_a_delta_whose_hash_does_not_match_is_refused(tmp_path):
    folder = tmp_path / "entail"
    shutil.copytree(delta_dir(), folder)
    manifest = json.loads((folder / "entail.json").read_text())
    manifest["sha256"] = "0" * 64
    (folder / "entail.json").write_text(json.dumps(manifest))
    with pytest.raises(ConfigError, match="sha256 does not match"):
        load_entail(folder)


def test_missing_files_name_the_folder_and_the_fix(tmp_path):
    with pytest.raises(ConfigError, match="missing.*python -m training.train_entail"):
        load_entail(tmp_path)


def test_training_script_round_trip(tmp_path):
    """training/train_entail.py on a few pairs writes a delta that load_entail reads back (fp16, hashes checked)."""
    pairs = tmp_path / "pairs.jsonl"
    rows = []
    for k in range(24):
        good = k % 2 == 0
        rows.append({"id": f"p{k}", "article_id": f"a{k % 6}", "evidence": EVIDENCE, "label": int(good),
                     "statement": "Work will take about eighteen months." if good else "Work will take two years.",
                     "error_type": "none" if good else "date"})
    pairs.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "delta"
    res = subprocess.run([sys.executable, "-m", "training.train_entail", str(pairs), "--layers", "1",
                          "--epochs", "1", "--batch", "8", "--threads", "1", "--out", str(out)],
                         capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "saved" in res.stdout
    m = load_entail(out)
    assert len(m.head.layers) == 1
    p = m.score([("Work will take about eighteen months.", EVIDENCE)])
    assert 0.0 <= p[0] <= 1.0


def test_check_with_the_entail_signal_names_it(tmp_path):
    res = subprocess.run([sys.executable, "-m", "citefix.cli", "check", "--example", "summary", "--verifier",
                          "offline:entail", "--db", str(tmp_path / "s.db")], capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    assert "verifier: offline:entail" in res.stdout
    assert "one signal of the offline verifier alone (entail)" in res.stdout
    assert "lexical consistency" not in res.stdout  # not the combined verifier's description


def test_a_statement_longer_than_the_input_is_scored_in_windows_never_cut():
    m = load_entail()
    words = [f"The old engine shed number {k} will be kept and restored as a workshop." for k in range(40)]
    long_statement = " ".join(words)
    pieces = m.windows(long_statement)
    assert len(pieces) > 1
    half = m.max_length // 2
    assert all(len(m.tokenizer(p, add_special_tokens=False)["input_ids"]) <= half for p in pieces)
    # every word of the statement is in exactly one piece, in order
    assert " ".join(pieces).split() == long_statement.split()
    score = m.score([(long_statement, EVIDENCE)])[0]
    assert score == pytest.approx(min(m.score([(p, EVIDENCE) for p in pieces])), abs=1e-4)
    short = "The old engine shed will be kept."
    assert m.windows(short) == [short]


def test_gpu_script_packs_trains_and_unpacks_on_the_cpu(tmp_path):
    """training/entail_gpu.py end to end on a tiny cache, on the CPU: pack, run (pool model only), unpack; the delta
    loads on the packaged MiniLM and gives the run's scores."""
    cache = tmp_path / "cache"
    cache.mkdir()

    def feat(unit, region):
        return {"unit_text": unit, "region_text": region}

    pool_rows, cached = [], []
    for k in range(16):
        good = k % 2 == 0
        claim = "Work will take about eighteen months." if good else f"Work will take {k + 2} years."
        pool_rows.append({"id": f"fever-{k}", "claim": claim, "evidence": EVIDENCE + f" Plan {k}.", "label": int(good),
                          "source": "fever"})
    cached.append({"id": "fever-0", "label": 1, "group": "fever", "whole": feat(pool_rows[0]["claim"], EVIDENCE),
                   "units": []})
    (cache / "pool.json").write_text(json.dumps(cached))
    (cache / "summedits.json").write_text(json.dumps([
        {"id": "summedits-x_1", "label": 0, "group": "news", "whole": feat("The shed will be demolished.", EVIDENCE),
         "units": [feat("The shed will be demolished.", EVIDENCE)]}]))
    (cache / "xsumfaith.json").write_text(json.dumps([
        {"id": "x1", "label": 1, "group": None, "whole": feat("Work may take eighteen months.", EVIDENCE), "units": []}]))
    pool = tmp_path / "pool.jsonl"
    pool.write_text("".join(json.dumps(r) + "\n" for r in pool_rows))
    pack, out = tmp_path / "pack", tmp_path / "results"

    def script(*args):
        res = subprocess.run([sys.executable, "-m", "training.entail_gpu", *args], capture_output=True, text=True,
                             timeout=600, cwd=ROOT)
        assert res.returncode == 0, res.stderr[-2000:]
        return res.stdout

    assert "pairs to score" in script("pack", "--cache", str(cache), "--dest", str(pack), "--pool", str(pool))
    script("run", "--pack", str(pack), "--out", str(out), "--device", "cpu", "--epochs", "1", "--layers", "1",
           "--max-length", "64", "--no-summedits", "--cpu-threads", "1")
    text = script("unpack", "--results", str(out), "--cache", str(cache), "--models", str(tmp_path), "--check", "3")
    scores = json.loads((cache / "entail-entail_gA.json").read_text())
    assert len(scores) == 3 and all(0.0 <= s <= 1.0 for _, _, s in scores)
    # trained on an fp16 copy of the MiniLM: on the exact weights the delta gives the run's scores to a few thousandths
    diff = float(text.split("max |difference|")[1].split()[0])
    assert diff < 0.01
    manifest = json.loads((tmp_path / "entail_gA" / "entail.json").read_text())
    assert manifest["provenance"]["n_train"] + manifest["provenance"]["n_val"] == 15  # the cached pool item held out
