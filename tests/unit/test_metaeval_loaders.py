"""Loaders for labelled JSONL files: shapes, detection, errors, limits, and the real development files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from citefix.errors import InputError
from citefix.metaeval.loaders import DataFileError, detect_format, detect_shape, iter_items, load, load_items

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"  # the development data beside the checkout

_SUM = "a bomb was found in sheffield."
_S = _SUM.index("sheffield")
_CIT = ["TITLE: About", "Media Play News covers home entertainment.", "Arnold is its publisher."]
_OFF = [[sum(len(x) + 1 for x in _CIT[:k]), sum(len(x) + 1 for x in _CIT[:k]) + len(_CIT[k])] for k in range(3)]
XSUM = {"id": "x1", "document": "The bomb was found in Leeds on Monday.", "summary": _SUM,
        "label": 0, "hallucination_spans": [
            {"start": _S, "end": _S + 9, "text": "sheffield", "type": "extrinsic", "worker": "w0"},
            {"start": _S, "end": _S + 9, "text": "sheffield", "type": "extrinsic", "worker": "w1"},
            {"start": None, "end": None, "text": "lost", "type": "intrinsic", "worker": "w2"}]}
SUMMEVAL = {"id": "s1", "document": "Holland America said two guests died.", "summary": "Two guests died.",
            "label": 1, "consistency_expert_mean": 5.0}
WICE = {"id": "w1", "statement": "Arnold is the publisher of Media Play News.",
        "citation_text": "\n".join(_CIT), "evidence_sentence_offsets": _OFF, "supporting_sentence_sets": [[1, 2]],
        "support": "partial"}
AB = {"id": "a1", "question": "Why?",
      "answer": "Cups can be glass [1]. They can be plastic [2][3]. Unlabelled here [1].",
      "passages": [{"id": "1", "title": "", "text": "Cups are made of glass."},
                   {"id": "2", "title": "", "text": "Some cups are plastic."},
                   {"id": "3", "title": "", "text": "Plastic cups exist."}],
      "human": {"labelled_sentences": [
          {"text": "  They can be plastic [2][3].", "cited": [2, 3], "attributable": 1, "ab_id": "q2"},
          {"text": "Cups can be glass [1].", "cited": [1], "attributable": 0}]}}
ROSE = {"id": "r1", "reference": "Arango bit Zavala. He scored.", "acus": ["Arango bit Zavala.", "Arango scored."]}


def write(tmp_path: Path, records, name="data.jsonl") -> Path:
    p = tmp_path / name
    p.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return p


@pytest.mark.parametrize("rec,shape", [(XSUM, "xsumfaith"), (SUMMEVAL, "summeval"), (WICE, "wice"),
                                       (AB, "attributionbench"), (ROSE, "rose")])
def test_detects_each_shape(tmp_path, rec, shape):
    assert detect_shape(rec) == shape
    assert detect_format(write(tmp_path, [rec])) == shape
    (item,) = load_items(write(tmp_path, [rec]))
    assert item.shape == shape and item.id == rec["id"] and item.line == 1


def test_xsumfaith_item(tmp_path):
    (item,) = load_items(write(tmp_path, [XSUM]))
    assert item.label == 0 and item.case.text == XSUM["summary"] and item.case.sources[0].text == XSUM["document"]
    assert item.case.kind == "summary"
    assert [(s.start, s.end, s.annotator) for s in item.spans] == [(_S, _S + 9, "w0"), (_S, _S + 9, "w1")]
    assert item.case.text[_S:_S + 9] == "sheffield"
    assert item.unlocated_spans == 1 and item.n_annotators == 3
    groups, n = item.annotator_spans()
    assert groups == [[(_S, _S + 9)], [(_S, _S + 9)]] and n == 3


def test_xsumfaith_n_annotators_field(tmp_path):
    rec = dict(XSUM, n_annotators=1)
    (item,) = load_items(write(tmp_path, [rec]))
    assert item.n_annotators == 2  # never fewer than the distinct workers who marked something


def test_summeval_item_and_rating_only(tmp_path):
    rec2 = {k: v for k, v in SUMMEVAL.items() if k != "label"}
    a, b = load_items(write(tmp_path, [SUMMEVAL, dict(rec2, id="s2")]))
    assert a.label == 1 and a.rating == 5.0 and a.spans is None
    assert b.label is None and b.rating == 5.0
    with pytest.raises(DataFileError, match="neither 'label' nor"):
        load_items(write(tmp_path, [{"document": "d", "summary": "s"}]))


def test_wice_item(tmp_path):
    raw = dict(WICE, id="w2", support="supported")
    a, b = load_items(write(tmp_path, [WICE, raw]))
    assert a.level == 1 and b.level == 2
    assert a.evidence.supporting_sets == [[1, 2]]
    a_, b_ = a.evidence.sentence_offsets[2]
    assert WICE["citation_text"][a_:b_] == "Arnold is its publisher."
    assert a.case.text == WICE["statement"] and a.spans is None


def test_wice_nonsupported_spans(tmp_path):
    a = WICE["statement"].index("Media")
    rec = dict(WICE, non_supported_char_spans=[[a, a + 15]])
    (item,) = load_items(write(tmp_path, [rec]))
    assert item.case.text[a:a + 15] == "Media Play News" and item.n_annotators == 1
    assert [(s.start, s.end, s.annotator) for s in item.spans] == [(a, a + 15, "gold")]


def test_wice_bad_offsets(tmp_path):
    with pytest.raises(DataFileError, match="outside the text"):
        load_items(write(tmp_path, [dict(WICE, evidence_sentence_offsets=[[0, 999]])]))
    with pytest.raises(DataFileError, match="indices"):
        load_items(write(tmp_path, [dict(WICE, supporting_sentence_sets=[[7]])]))
    with pytest.raises(DataFileError, match="full, partial or none"):
        load_items(write(tmp_path, [dict(WICE, support="maybe")]))


def test_attributionbench_item(tmp_path):
    (item,) = load_items(write(tmp_path, [AB]))
    assert item.case.kind == "cited_answer" and [s.id for s in item.case.sources] == ["1", "2", "3"]
    s0, s1 = item.sentences
    assert s0.text == "They can be plastic [2][3]." and s0.unit_text == "They can be plastic."
    assert item.case.text[s0.start:s0.end] == s0.text
    assert s0.cited == ["2", "3"] and s0.label == 1 and s0.ref == "q2"
    assert item.case.text[s1.start:s1.end] == "Cups can be glass [1]." and s1.label == 0
    assert item.case.question == "Why?"


def test_attributionbench_unknown_citation(tmp_path):
    # the sentence citing a passage the record lacks is listed, the answer's other sentences are kept
    rec = json.loads(json.dumps(AB))
    rec["human"]["labelled_sentences"][0]["cited"] = [9]
    (item,) = load_items(write(tmp_path, [rec]))
    assert [s.text for s in item.sentences] == ["Cups can be glass [1]."]
    assert [(u.index, u.label) for u in item.unscorable] == [(0, 1)] and "[9]" in item.unscorable[0].problem


def test_attributionbench_unmarked_sentence_is_judged_against_all_passages(tmp_path):
    rec = json.loads(json.dumps(AB))
    rec["human"]["labelled_sentences"][0]["cited"] = []
    (item,) = load_items(write(tmp_path, [rec]))
    s0 = item.sentences[0]
    assert s0.cited == ["1", "2", "3"] and s0.scope == "all_passages" and item.unscorable == []


def test_rose_item_and_empty_acus(tmp_path):
    a, b = load_items(write(tmp_path, [ROSE, dict(ROSE, id="r2", acus=[])]))
    assert a.gold_acus == ROSE["acus"] and a.case.text == ROSE["reference"]
    assert b.gold_acus == []


def test_format_override_and_limit(tmp_path):
    p = write(tmp_path, [XSUM, dict(XSUM, id="x2"), dict(XSUM, id="x3")])
    assert [i.id for i in load_items(p, limit=2)] == ["x1", "x2"]
    items = load_items(p, format="summeval")  # override: spans ignored, label kept
    assert items[0].shape == "summeval" and items[0].spans is None
    with pytest.raises(DataFileError, match="missing field 'statement'"):
        load_items(p, format="wice")
    with pytest.raises(InputError, match="unknown format"):
        load_items(p, format="csv")
    with pytest.raises(InputError, match="--limit"):
        load_items(p, limit=0)


def test_default_id_and_blank_lines(tmp_path):
    rec = {k: v for k, v in SUMMEVAL.items() if k != "id"}
    p = write(tmp_path, ["", json.dumps(rec), "   "], name="mine.jsonl")
    (item,) = load_items(p)
    assert item.id == "mine:2" and item.line == 2


def test_errors_name_file_line_problem_and_fix(tmp_path):
    p = write(tmp_path, [SUMMEVAL, '{"document": "d", "summary": 3, "label": 1}'])
    with pytest.raises(DataFileError) as ei:
        load_items(p)
    e = ei.value
    assert e.file == str(p) and e.line == 2 and "summary" in e.problem and e.fix
    assert f"{p}:2:" in str(e) and "Fix:" in str(e) and "--strict" in str(e)
    assert isinstance(e, InputError)


def test_malformed_lines(tmp_path):
    with pytest.raises(DataFileError, match=r":2: not valid JSON"):
        load_items(write(tmp_path, [SUMMEVAL, "{not json"]))
    with pytest.raises(DataFileError, match="expected a JSON object"):
        load_items(write(tmp_path, ["[1, 2]"]))
    with pytest.raises(DataFileError, match="holds no records"):
        load_items(write(tmp_path, ["", ""]))
    with pytest.raises(DataFileError, match="cannot tell the format"):
        load_items(write(tmp_path, [{"foo": 1}]))
    with pytest.raises(DataFileError, match="does not exist"):
        load_items(tmp_path / "nope.jsonl")
    with pytest.raises(DataFileError, match="must be 0 or 1"):
        load_items(write(tmp_path, [dict(SUMMEVAL, label=3)]))
    with pytest.raises(DataFileError, match="is empty"):
        load_items(write(tmp_path, [dict(SUMMEVAL, summary="  ")]))


def test_skip_invalid_collects_problems(tmp_path):
    p = write(tmp_path, [SUMMEVAL, dict(SUMMEVAL, id="bad", document=None), dict(SUMMEVAL, id="s3")])
    loaded = load(p, skip_invalid=True)
    assert [i.id for i in loaded.items] == ["s1", "s3"]
    assert [(s.line, "document" in s.problem) for s in loaded.skipped] == [(2, True)]
    assert [i.id for i in iter_items(p, skip_invalid=True, limit=1)] == ["s1"]


def test_a_file_with_no_usable_record_is_an_error_even_when_skipping(tmp_path):
    """Leaving every record out leaves nothing to measure: the file is named with its first problem and its fix,
    not read as an empty result."""
    p = write(tmp_path, [dict(SUMMEVAL, label="1"), dict(SUMMEVAL, id="s2", label="0")])
    with pytest.raises(DataFileError, match=r":1: none of its 2 records can be used; the first: field 'label' must be "
                       r"0 or 1, found '1'\. Fix: write 'label' as 1 or 0"):
        load(p, skip_invalid=True)


# ----------------------------------------------------------------------------------------------- the real files

REAL = [
    ("xsumfaith/xsumfaith_val_balanced.jsonl", "xsumfaith"),
    ("summeval/summeval_balanced_300.jsonl", "summeval"),
    ("wice/wice_claim_dev.jsonl", "wice"),
    ("attributionbench/ab_grouped_answers_dev.jsonl", "attributionbench"),
    ("rose/rose_cnndm_test_reference_acus.jsonl", "rose"),
]


@pytest.mark.parametrize("name,shape", REAL)
def test_real_files_first_records(name, shape):
    path = DATA / name
    if not path.exists():
        pytest.skip(f"{path} not present")
    loaded = load(path, limit=5, skip_invalid=True)
    assert loaded.shape == shape and len(loaded.items) + len(loaded.skipped) == 5  # --limit counts records
    for item in loaded.items:
        assert item.case.text.strip()
        if shape in ("xsumfaith", "summeval"):
            assert item.label in (0, 1)
        if shape == "xsumfaith":
            assert all(item.case.text[s.start:s.end].strip() for s in item.spans)
        if shape == "wice":
            assert item.level in (0, 1, 2) and item.evidence is not None
        if shape == "attributionbench":
            assert item.sentences and all(s.start is not None for s in item.sentences)
            assert all(item.case.source(c) is not None for s in item.sentences for c in s.cited)
        if shape == "rose":
            assert item.gold_acus


def test_real_xsumfaith_has_null_documents_that_skip_invalid_reports():
    path = DATA / "xsumfaith/xsumfaith_val_balanced.jsonl"
    if not path.exists():
        pytest.skip("xsumfaith not present")
    with pytest.raises(DataFileError, match="document"):
        load_items(path)
    loaded = load(path, skip_invalid=True)
    assert len(loaded.items) + len(loaded.skipped) == 250
