"""The `precision` setting: --precision / CITEFIX_PRECISION / config key precision, the arithmetic of the
offline verifier's MiniLM (fp32 as trained, bf16 autocast). bf16 keeps every verdict of the bundled example and
moves its scores in the third decimal; a stored check is reused only at the same precision; an unknown precision is
one line and exit 2. And the offline verifier runs on a GPU."""

from __future__ import annotations

import json

import pytest
from cli_helpers import cli
from helpers import write
from tiny_models import tiny_bert

import citefix.encoder as encoder
from citefix.config import load_settings
from citefix.device import lower_precision
from citefix.errors import ConfigError

torch = pytest.importorskip("torch")
NO_CUDA = not torch.cuda.is_available()


def _verdicts(out: str):
    d = json.loads(out)
    return d["score"], [(v["unit_id"], v["label"], v["score"]) for v in d["verdicts"]]


@pytest.mark.slow
def test_bf16_keeps_the_example_verdicts(tmp_path):
    precision, tolerance = "bf16", 0.01
    a = cli("check", "--example", "summary", "--json", "--db", str(tmp_path / "a.db"), tmp_path=tmp_path)
    b = cli("check", "--example", "summary", "--json", "--precision", precision, "--db", str(tmp_path / "b.db"),
            tmp_path=tmp_path)
    assert a.returncode == b.returncode == 0, (a.stderr, b.stderr)
    (sa, va), (sb, vb) = _verdicts(a.stdout), _verdicts(b.stdout)
    assert [(u, lab) for u, lab, _ in vb] == [(u, lab) for u, lab, _ in va]
    assert sum(lab != "supported" for _, lab, _ in vb) == 2  # both planted errors still flagged
    assert max(abs(x[2] - y[2]) for x, y in zip(va, vb)) <= tolerance
    assert sb != sa and sb == pytest.approx(sa, abs=tolerance)  # really another arithmetic, and close


def test_precision_enters_the_fingerprint_and_fp32_keeps_the_old_one():
    from citefix.revision.incremental import verifier_fingerprint
    from citefix.verify.offline import OfflineVerifier

    plain = verifier_fingerprint(OfflineVerifier())
    assert verifier_fingerprint(OfflineVerifier(precision="fp32")) == plain  # checks stored before it stay reusable
    assert verifier_fingerprint(OfflineVerifier(precision="bf16")) != plain


def test_setting_order_and_unknown_precision(tmp_path, monkeypatch):
    monkeypatch.setenv("CITEFIX_CONFIG", write(tmp_path, "c.toml", 'precision = "bf16"\n'))
    monkeypatch.delenv("CITEFIX_PRECISION", raising=False)
    assert load_settings().precision == "bf16"
    monkeypatch.setenv("CITEFIX_PRECISION", "FP32")
    assert load_settings().precision == "fp32"
    assert load_settings(precision="bf16").precision == "bf16"
    monkeypatch.setenv("CITEFIX_PRECISION", "fp16")
    with pytest.raises(ConfigError, match=r"CITEFIX_PRECISION = 'fp16': not a precision; use fp32 \(the default\) or bf16"):
        load_settings()


def test_unknown_precision_from_the_environment_is_one_line_and_exit_2(tmp_path):
    r = cli("check", "--example", "summary", "--db", str(tmp_path / "x.db"), tmp_path=tmp_path,
            extra_env={"CITEFIX_PRECISION": "half"})
    assert r.returncode == 2 and "CITEFIX_PRECISION = 'half'" in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_lower_precision_encoders_give_close_embeddings(tmp_path, monkeypatch):
    monkeypatch.setattr(encoder, "_cache", {})
    path = tiny_bert(tmp_path)
    base = encoder.load_encoder(path, device="cpu")
    for precision in ("bf16",):
        enc = encoder.load_encoder(path, device="cpu", precision=precision)
        assert enc is not base and enc.precision == precision
        assert encoder.load_encoder(path, device="cpu", precision=precision) is enc  # once per precision
        got = enc.encode_sentences(["the cat sat", "sat the cat"])
        assert got.dtype == torch.float32
        assert torch.nn.functional.cosine_similarity(got, base.encode_sentences(["the cat sat", "sat the cat"])).min() > 0.9
        [(emb, offsets, _)] = enc.encode_tokens(["the cat sat"])
        assert emb.dtype == torch.float32 and offsets == [(0, 3), (4, 7), (8, 11)]


def test_int8_is_not_offered():
    with pytest.raises(ConfigError, match="precision 'int8': use fp32 or bf16"):
        lower_precision(object(), "int8", "cpu")


@pytest.mark.slow
@pytest.mark.skipif(NO_CUDA, reason="no CUDA device on this machine: the offline verifier on a GPU is checked where "
                                    "there is one")
def test_the_offline_verifier_on_a_gpu_gives_the_cpu_verdicts(tmp_path):
    cpu = cli("check", "--example", "summary", "--json", "--device", "cpu", "--db", str(tmp_path / "a.db"),
              tmp_path=tmp_path)
    for extra in ([], ["--precision", "bf16"]):
        gpu = cli("check", "--example", "summary", "--json", "--device", "cuda", *extra,
                  "--db", str(tmp_path / "b.db"), tmp_path=tmp_path)
        assert gpu.returncode == cpu.returncode, gpu.stderr
        (sa, va), (sb, vb) = _verdicts(cpu.stdout), _verdicts(gpu.stdout)
        assert [(u, lab) for u, lab, _ in vb] == [(u, lab) for u, lab, _ in va]
        assert sb == pytest.approx(sa, abs=0.01 if extra else 1e-4)


def test_a_refinement_records_a_lower_precision_and_resumes_with_it():
    import argparse

    from citefix.commands.common import llm_options
    from citefix.config import Settings
    from citefix.pipeline import RunSettings

    assert "precision" not in RunSettings(Settings()).stored()  # the default leaves stored signatures as they were
    stored = RunSettings(Settings(precision="bf16")).stored()
    assert stored["precision"] == "bf16"
    # resuming (`citefix refine --resume RUN` without --precision): the stored value comes back
    resumed = RunSettings.load(saved=stored, llm_options=llm_options(argparse.Namespace(precision=None), stored))
    assert resumed.settings.precision == "bf16"
    given = RunSettings.load(saved=stored, llm_options=llm_options(argparse.Namespace(precision="fp32"), stored))
    assert given.settings.precision == "fp32"  # what is given on the command line wins
