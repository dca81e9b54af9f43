"""The `device` setting: --device / CITEFIX_DEVICE / config key, resolved once, passed to the MiniLM encoder
and the NLI verifier; CUDA asked for where there is none is one line and exit 2. Tested on the CPU."""

from __future__ import annotations

import json

import pytest
from cli_helpers import cli
from helpers import write
from tiny_models import tiny_bert

import citefix.device as device
import citefix.encoder as encoder
from citefix.config import Settings, load_settings
from citefix.errors import ConfigError

torch = pytest.importorskip("torch")
NO_CUDA = not torch.cuda.is_available()


@pytest.fixture(autouse=True)
def _fresh_device(monkeypatch):
    monkeypatch.setattr(device, "_requested", None)
    monkeypatch.setattr(device, "_resolved", None)
    monkeypatch.delenv("CITEFIX_DEVICE", raising=False)


@pytest.mark.skipif(not NO_CUDA, reason="this machine has CUDA: the error for a missing GPU cannot happen here")
@pytest.mark.parametrize("how, origin", [
    (["--device", "cuda"], "--device"),
    ({"CITEFIX_DEVICE": "cuda"}, "CITEFIX_DEVICE"),
    ('device = "cuda:0"\n', "config.toml: device"),
])
def test_cuda_where_there_is_none_is_one_line_naming_where_it_was_asked(tmp_path, how, origin):
    args, env = ["check", "--example", "summary", "--db", str(tmp_path / "x.db")], {}
    if isinstance(how, list):
        args += how
    elif isinstance(how, dict):
        env = how
    else:
        (tmp_path / "config" / "citefix").mkdir(parents=True)  # cli_helpers.cli's XDG_CONFIG_HOME
        (tmp_path / "config" / "citefix" / "config.toml").write_text(how)
    r = cli(*args, tmp_path=tmp_path, extra_env=env)
    assert r.returncode == 2, (r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and origin in lines[0] and "CUDA is not available" in lines[0], lines
    assert "use auto" in lines[0] and not (tmp_path / "x.db").exists()


@pytest.mark.parametrize("value", ["tpu", "cuda:x", "gpu"])
def test_unknown_device_names_the_choices(value, monkeypatch):
    monkeypatch.setenv("CITEFIX_DEVICE", value)
    with pytest.raises(ConfigError, match=r"CITEFIX_DEVICE = .*not a device; use auto, cpu, cuda or cuda:N"):
        load_settings()


def test_setting_order_and_resolution_on_this_machine(tmp_path, monkeypatch):
    monkeypatch.setenv("CITEFIX_CONFIG", write(tmp_path, "c.toml", 'device = "auto"\n'))
    monkeypatch.setenv("CITEFIX_DEVICE", "CPU")
    assert load_settings().device == "cpu"  # the environment over the file, case folded
    assert load_settings(device="auto").device == "auto"  # the flag over both
    device.use("auto")
    assert device.resolve() == ("cpu" if NO_CUDA else "cuda")
    device.use("cpu")
    assert device.resolve() == "cpu"


def test_the_encoder_is_placed_on_the_resolved_device(tmp_path, monkeypatch):
    monkeypatch.setattr(encoder, "_cache", {})
    path = tiny_bert(tmp_path)
    device.use("cpu")
    enc = encoder.load_encoder(path)
    assert enc.device == "cpu" and next(enc.model.parameters()).device.type == "cpu"
    [(emb, offsets, _)] = enc.encode_tokens(["the cat sat"])
    assert emb.device.type == "cpu" and emb.shape == (3, 16) and offsets == [(0, 3), (4, 7), (8, 11)]
    assert enc.encode_sentences(["the cat"]).device.type == "cpu"
    assert encoder.load_encoder(path) is enc  # once per process and device


@pytest.mark.skipif(NO_CUDA, reason="no CUDA device on this machine: the GPU placement is checked where there is one")
def test_the_encoder_runs_on_cuda_and_gives_the_cpu_embeddings(tmp_path, monkeypatch):
    monkeypatch.setattr(encoder, "_cache", {})
    path = tiny_bert(tmp_path)
    on_cpu = encoder.load_encoder(path, device="cpu").encode_sentences(["the cat sat"])
    gpu = encoder.load_encoder(path, device="cuda")
    assert next(gpu.model.parameters()).device.type == "cuda"
    assert torch.allclose(gpu.encode_sentences(["the cat sat"]), on_cpu, atol=1e-5)


def test_the_nli_verifier_gets_the_device_unless_nli_device_says_otherwise():
    from citefix.pipeline import build_verifier

    assert build_verifier("nli:some/model", Settings(device="cpu")).device == "cpu"
    assert build_verifier("nli:some/model", Settings(device="cpu", nli_device="auto")).device == "cpu"
    assert build_verifier("nli:some/model", Settings(device="auto", nli_device="cpu")).device == "cpu"
    assert build_verifier("nli:some/model", Settings()).device == "auto"


@pytest.mark.slow
def test_check_on_the_cpu_gives_the_scores_of_the_default(tmp_path):
    a = cli("check", "--example", "summary", "--json", "--db", str(tmp_path / "a.db"), tmp_path=tmp_path)
    b = cli("check", "--example", "summary", "--json", "--device", "cpu", "--db", str(tmp_path / "b.db"),
            tmp_path=tmp_path)
    assert a.returncode == 0 and b.returncode == 0, (a.stderr, b.stderr)
    if NO_CUDA:  # auto is the CPU here: the very same numbers
        assert json.loads(b.stdout)["score"] == json.loads(a.stdout)["score"]
    assert json.loads(b.stdout)["score"] is not None
