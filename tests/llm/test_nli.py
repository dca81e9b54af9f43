"""NLIVerifier on tiny models built here (no download): label index, batching, chunking, T5 judges, errors."""

from __future__ import annotations

import json

import pytest
from tiny_models import WORDS, build_bert

from citefix.errors import ConfigError
from citefix.models import Case, Source, Unit
from citefix.verify.base import Verifier
from citefix.verify.nli import NLIVerifier, entailment_index

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")


def build_t5(path):
    """A 2-layer T5 (d_model 32) with a word-level tokenizer that ends every input with </s>."""
    from tokenizers import Tokenizer, models, pre_tokenizers, processors
    from transformers import PreTrainedTokenizerFast, T5Config, T5ForConditionalGeneration

    path.mkdir(parents=True, exist_ok=True)
    words = ["<pad>", "</s>", "<unk>"] + list(dict.fromkeys(WORDS)) + ["premise:", "hypothesis:"]
    vocab = {w: i for i, w in enumerate(words)}
    tk = Tokenizer(models.WordLevel(vocab, unk_token="<unk>"))
    tk.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tk.post_processor = processors.TemplateProcessing(single="$A </s>", special_tokens=[("</s>", 1)])
    tok = PreTrainedTokenizerFast(tokenizer_object=tk, pad_token="<pad>", eos_token="</s>", unk_token="<unk>")
    cfg = T5Config(
        vocab_size=len(words), d_model=32, d_kv=8, d_ff=64, num_layers=2, num_decoder_layers=2, num_heads=4,
        decoder_start_token_id=0, pad_token_id=0, eos_token_id=1,
    )
    torch.manual_seed(0)
    model = T5ForConditionalGeneration(cfg)
    model.save_pretrained(path)
    tok.save_pretrained(path)
    return path, vocab


@pytest.fixture(scope="module")
def bert_dir(tmp_path_factory):
    return build_bert(tmp_path_factory.mktemp("bert"))


@pytest.fixture(scope="module")
def t5(tmp_path_factory):
    return build_t5(tmp_path_factory.mktemp("t5"))


def _unit(uid, text):
    return Unit(id=uid, text=text, kind="claim", decomposer="t")


def _case(*texts, titles=None):
    titles = titles or [""] * len(texts)
    return Case(id="c", text="x [1].", sources=[Source(id=str(i + 1), text=t, title=ti)
                                                  for i, (t, ti) in enumerate(zip(texts, titles))])


# --- labels -------------------------------------------------------------------------------------------------------------


def test_entailment_index_from_label2id():
    assert entailment_index({"CONTRADICTION": 0, "NEUTRAL": 1, "ENTAILMENT": 2}) == 2
    assert entailment_index({"entailment": 0, "not_entailment": 1}) == 0
    assert entailment_index({"non-entailment": 0, "Entailment": 1}) == 1
    with pytest.raises(ConfigError, match="entail_label"):
        entailment_index({"LABEL_0": 0, "LABEL_1": 1})
    assert entailment_index({"LABEL_0": 0, "LABEL_1": 1}, "LABEL_1") == 1
    with pytest.raises(ConfigError, match="not one of"):
        entailment_index({"LABEL_0": 0}, "YES")


def test_label_index_is_read_from_the_model_config(tmp_path):
    # The classifier always puts its mass on index 2; only label2id says whether that is entailment.
    at1 = build_bert(tmp_path / "at1", {"NEUTRAL": 0, "ENTAILMENT": 1, "CONTRADICTION": 2}, bias=[0.0, 0.0, 6.0])
    at2 = build_bert(tmp_path / "at2", {"NEUTRAL": 0, "CONTRADICTION": 1, "ENTAILMENT": 2}, bias=[0.0, 0.0, 6.0])
    case = _case("cups can be made of glass .")
    u = [_unit("u1", "cups are glass .")]
    low = NLIVerifier(str(at1), device="cpu").verify(u, case)[0]
    high = NLIVerifier(str(at2), device="cpu").verify(u, case)[0]
    p = torch.softmax(torch.tensor([0.0, 0.0, 6.0]), 0)
    assert low.score == pytest.approx(float(p[1]), abs=1e-5) and low.label == "unsupported"
    assert high.score == pytest.approx(float(p[2]), abs=1e-5) and high.label == "supported"


def test_model_without_an_entailment_label_is_a_config_error(tmp_path):
    d = build_bert(tmp_path / "lab", {"LABEL_0": 0, "LABEL_1": 1})
    with pytest.raises(ConfigError, match="entail_label"):
        NLIVerifier(str(d), device="cpu").verify([_unit("u1", "cups .")], _case("cups ."))
    v = NLIVerifier(str(d), device="cpu", entail_label="LABEL_1").verify([_unit("u1", "cups .")], _case("cups ."))
    assert 0.0 <= v[0].score <= 1.0


# --- batching -----------------------------------------------------------------------------------------------------------


def test_batched_scores_equal_one_at_a_time(bert_dir):
    premises = ["cups can be made of glass .", "the river flows north", "farmer grows wheat and corn in the field",
                "plates break", "the city has many people and the river flows south"]
    hyps = ["cups are glass", "the river flows south", "farmer grows corn", "bowls break", "many people"]
    one = NLIVerifier(str(bert_dir), device="cpu", batch_size=1).score_pairs(premises, hyps)
    many = NLIVerifier(str(bert_dir), device="cpu", batch_size=4).score_pairs(premises, hyps)
    assert many == pytest.approx(one, abs=1e-5)
    assert len(set(round(s, 4) for s in one)) > 1  # the model is not constant


def test_verify_matches_score_pairs_and_is_a_verifier(bert_dir):
    v = NLIVerifier(str(bert_dir), device="cpu")
    assert isinstance(v, Verifier) and v.name == f"nli:{bert_dir}"
    case = _case("cups can be made of glass .", "plates break .")
    units = [_unit("u1", "cups are glass ."), _unit("u2", "plates break .")]
    verdicts = v.verify(units, case, targets=[["1"], ["2"]])
    direct = v.score_pairs(["cups can be made of glass .", "plates break ."], ["cups are glass .", "plates break ."])
    assert [x.score for x in verdicts] == pytest.approx(direct, abs=1e-5)
    assert [x.target for x in verdicts] == [["1"], ["2"]]
    assert verdicts[0].evidence.source_id == "1" and verdicts[0].evidence.text == "cups can be made of glass ."


def test_several_targets_are_judged_together(bert_dir):
    v = NLIVerifier(str(bert_dir), device="cpu")
    case = _case("cups can be made of glass .", "plates break .", titles=["glass", ""])
    (verdict,) = v.verify([_unit("u1", "cups break .")], case, targets=[["1", "2"]])
    together = v.score_pairs(["glass\ncups can be made of glass .\n\nplates break ."], ["cups break ."])[0]
    assert verdict.details["chunks"] == 1
    assert verdict.score == pytest.approx(together, abs=1e-5)


def test_loaded_once(bert_dir, monkeypatch):
    v = NLIVerifier(str(bert_dir), device="cpu")
    v.verify([_unit("u1", "cups .")], _case("cups ."))
    first = v.load()
    v.verify([_unit("u1", "plates .")], _case("plates ."))
    assert v.load() is first


# --- chunking -----------------------------------------------------------------------------------------------------------

FILLER = "the farmer grows wheat and corn in the field . " * 6  # ~60 tokens: more than the 64-token window allows


def test_long_premise_is_chunked_with_evidence_from_the_best_chunk(bert_dir):
    v = NLIVerifier(str(bert_dir), device="cpu")
    text = FILLER + "the needle is in the hay stack . " + FILLER
    case = _case(text)
    (verdict,) = v.verify([_unit("u1", "the needle is in the hay .")], case)
    d = verdict.details
    assert d["chunks"] > 2
    assert d["best_chunk"] == max(range(d["chunks"]), key=lambda k: d["chunk_scores"][k])
    assert verdict.score == pytest.approx(max(d["chunk_scores"]), abs=1e-5)
    ev = verdict.evidence
    assert text[ev.start : ev.end] == ev.text
    # scoring the evidence alone gives the verdict's score: it is exactly the best chunk
    assert v.score_pairs([ev.text], ["the needle is in the hay ."])[0] == pytest.approx(verdict.score, abs=1e-5)
    # every chunk fits the window with the hypothesis
    ld = v.load()
    assert ld.max_length == 64


def test_evidence_points_at_the_chunk_that_holds_the_support(bert_dir, monkeypatch):
    v = NLIVerifier(str(bert_dir), device="cpu")
    monkeypatch.setattr(v, "score_pairs", lambda ps, hs: [0.9 if "needle" in p else 0.1 for p in ps])
    text = FILLER + "the needle is in the hay stack . " + FILLER
    (verdict,) = v.verify([_unit("u1", "needle .")], _case(text))
    assert verdict.score == 0.9 and verdict.label == "supported"
    assert "the needle is in the hay stack ." in verdict.evidence.text
    assert "needle" not in text[: verdict.evidence.start]


def test_a_sentence_longer_than_the_window_is_split_at_tokens(bert_dir):
    v = NLIVerifier(str(bert_dir), device="cpu")
    text = ("the farmer grows wheat and corn in the field " * 20).strip()  # one sentence, ~180 tokens
    (verdict,) = v.verify([_unit("u1", "farmer grows corn .")], _case(text))
    assert verdict.details["chunks"] >= 3
    assert text[verdict.evidence.start : verdict.evidence.end] == verdict.evidence.text


def test_unknown_target_is_an_error_verdict(bert_dir):
    v = NLIVerifier(str(bert_dir), device="cpu")
    (verdict,) = v.verify([_unit("u1", "cups .")], _case("cups ."), targets=[["7"]])
    assert verdict.label == "error" and verdict.score is None and verdict.error == "passage [7] not found"


# --- T5-style judges ----------------------------------------------------------------------------------------------------


def test_t5_judge_scores_p_of_1(t5):
    path, vocab = t5
    v = NLIVerifier(str(path), device="cpu")
    case = _case("cups can be made of glass .")
    (verdict,) = v.verify([_unit("u1", "cups are glass .")], case)
    tok = transformers.AutoTokenizer.from_pretrained(path)
    model = transformers.AutoModelForSeq2SeqLM.from_pretrained(path).eval()
    enc = tok(["premise: cups can be made of glass . hypothesis: cups are glass ."], return_tensors="pt")
    with torch.no_grad():
        logits = model(input_ids=enc["input_ids"], attention_mask=enc["attention_mask"],
                       decoder_input_ids=torch.zeros((1, 1), dtype=torch.long)).logits[0, 0]
    probs = torch.softmax(logits, -1)
    assert v.load().kind == "seq2seq"
    assert verdict.score == pytest.approx(float(probs[vocab["1"]]), abs=1e-5)
    norm = NLIVerifier(str(path), device="cpu", seq2seq_score="normalized").verify([_unit("u1", "cups are glass .")], case)
    p1, p0 = float(probs[vocab["1"]]), float(probs[vocab["0"]])
    assert norm[0].score == pytest.approx(p1 / (p1 + p0), abs=1e-5)
    yes = NLIVerifier(str(path), device="cpu", true_token="yes").verify([_unit("u1", "cups are glass .")], case)
    assert yes[0].score == pytest.approx(float(probs[vocab["yes"]]), abs=1e-5)


def test_t5_batched_equals_one_at_a_time(t5):
    path, _ = t5
    premises = ["cups can be made of glass .", "the river flows north", "farmer grows wheat and corn in the field"]
    hyps = ["cups are glass", "the river flows south", "farmer grows corn"]
    one = NLIVerifier(str(path), device="cpu", batch_size=1).score_pairs(premises, hyps)
    many = NLIVerifier(str(path), device="cpu", batch_size=3).score_pairs(premises, hyps)
    assert many == pytest.approx(one, abs=1e-5)


# --- configuration errors -----------------------------------------------------------------------------------------------


def test_missing_model_path_is_a_clear_config_error(tmp_path):
    v = NLIVerifier(str(tmp_path / "no-such-model"))
    with pytest.raises(ConfigError, match="does not exist"):
        v.verify([_unit("u1", "cups .")], _case("cups ."))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="no config.json"):
        NLIVerifier(str(tmp_path / "empty")).load()


def test_unreachable_hub_id_is_a_config_error():
    # tests run offline (conftest): the hub is never reached and the message says what to give instead
    with pytest.raises(ConfigError, match="local folder"):
        NLIVerifier("nobody-here/no-such-nli-model").load()


def test_bad_settings():
    with pytest.raises(ConfigError):
        NLIVerifier("x", batch_size=0)
    with pytest.raises(ConfigError):
        NLIVerifier("x", device="tpu")


def test_verdicts_dump_to_json(bert_dir):
    (verdict,) = NLIVerifier(str(bert_dir), device="cpu").verify([_unit("u1", "cups .")], _case("cups ."))
    assert json.loads(verdict.model_dump_json())["verifier"].startswith("nli:")


@pytest.mark.slow
def test_citation_metrics_through_the_nli_verifier(bert_dir):
    from citefix.cited.metrics import score_answer

    case = Case(id="c", text="Cups can be made of glass [1] or plastic [2][3].",
                sources=[Source(id="1", text="cups can be made of glass ."), Source(id="2", text="plates break ."),
                         Source(id="3", text="bowls are clay .")])
    r = score_answer(case, NLIVerifier(str(bert_dir), device="cpu"))
    assert r.verifier == f"nli:{bert_dir}" and r.verifier_calls == 1
    assert [c.cited for c in r.aliice.claims] == [["1"], ["2", "3"]]
    assert all(0.0 <= v.score <= 1.0 for v in r.verdicts)
    assert {tuple(v.target) for v in r.verdicts} >= {("1",), ("2", "3"), ("2",), ("3",), ("1", "2", "3")}
