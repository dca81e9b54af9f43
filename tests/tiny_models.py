"""Tiny transformer models built on the spot (no download) for the tests of the NLI verifier, the encoder and the
`device` / `precision` settings (tests/ is on sys.path, so `from tiny_models import ...`). Importing this module
skips the importing test module where torch is not installed."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

WORDS = (
    "the a cups can be made of glass plastic clay plates are bowls break fall and or not is was in on at to "
    "needle hay stack field farmer grows wheat corn river flows north south city has many people 1 0 yes no "
    "premise hypothesis : . , ' s"
).split()


def _vocab() -> list[str]:
    return ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"] + list(dict.fromkeys(WORDS))


def build_bert(path, label2id=None, bias=None, max_positions=64):
    """A 2-layer BERT classifier (hidden 32) with a WordPiece tokenizer over a small word list."""
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    path.mkdir(parents=True, exist_ok=True)
    vocab = path / "vocab.txt"
    vocab.write_text("\n".join(_vocab()) + "\n")
    tok = BertTokenizerFast(vocab_file=str(vocab), do_lower_case=True)
    label2id = label2id or {"NEUTRAL": 0, "ENTAILMENT": 1, "CONTRADICTION": 2}
    cfg = BertConfig(
        vocab_size=len(_vocab()), hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64,
        max_position_embeddings=max_positions, num_labels=len(label2id), label2id=label2id,
        id2label={v: k for k, v in label2id.items()},
    )
    torch.manual_seed(0)
    model = BertForSequenceClassification(cfg)
    if bias is not None:
        with torch.no_grad():
            model.classifier.weight.zero_()
            model.classifier.bias.copy_(torch.tensor(bias, dtype=torch.float))
    model.save_pretrained(path)
    tok.save_pretrained(path)
    return path


def tiny_bert(tmp_path):
    """A 1-layer BERT encoder (hidden 16) over an 8-word vocabulary, saved to tmp_path/tiny; its path."""
    from transformers import BertConfig, BertModel, BertTokenizerFast

    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", "the", "cat", "sat"]
    tok = BertTokenizerFast(vocab={w: i for i, w in enumerate(vocab)})
    model = BertModel(BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                 intermediate_size=32, max_position_embeddings=64))
    out = tmp_path / "tiny"
    tok.save_pretrained(out)
    model.save_pretrained(out)
    return str(out)
