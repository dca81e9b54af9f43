"""`meta-eval --by FIELD`: every statistic per value of a record field, verdict rates at the packaged threshold, the
field values on every per-item row; the loaders keep the records' extra fields for every shape."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from cli_helpers import citefix_main

from citefix.errors import ConfigError
from citefix.metaeval import protocols as P
from citefix.metaeval.loaders import load
from citefix.metaeval.report import render_table, to_json, to_markdown, write_report
from citefix.metaeval.results import MetaEvalResult, group_value
from citefix.metaeval.runner import run_meta_eval
from citefix.metaeval.spans import SpanItem, span_prf
from citefix.models import Verdict

WORD = re.compile(r"[a-z0-9]+")
DOC = "The council opened a new library in Leeds on Monday. It holds ten thousand books and cost four million pounds."


class OverlapVerifier:
    """Test double: score = share of the unit's words found in the sources; missing words are unsupported spans."""

    name = "overlap"
    llm = model_name = None  # the Verifier attributes: no LLM, no model of its own

    def supported_at(self, profile):
        return 0.5

    def verify(self, units, case, *, targets=None):
        out = []
        for k, u in enumerate(units):
            ids = targets[k] if targets and targets[k] else [s.id for s in case.sources]
            vocab = set(WORD.findall(" ".join(case.source(i).text for i in ids).lower()))
            words = list(WORD.finditer(u.text.lower()))
            hit = [m.group() in vocab for m in words]
            score = sum(hit) / len(words) if words else 0.0
            spans = [(u.start + m.start(), u.start + m.end()) for m, h in zip(words, hit) if not h] \
                if u.has_span else []
            out.append(Verdict(unit_id=u.id, verifier=self.name, score=score,
                               label="supported" if score >= 0.9 else "unsupported", unsupported_spans=spans))
        return out


def _rec(i, summary, error_type, changed=None):
    spans = []
    if changed:
        a = summary.index(changed)
        spans = [{"start": a, "end": a + len(changed), "worker": "planted", "type": error_type}]
    return {"id": f"p{i}", "document": DOC, "summary": summary, "label": 0 if changed else 1,
            "hallucination_spans": spans, "n_annotators": 1, "error_type": error_type}


RECORDS = [
    _rec(0, "The council opened a new library in Leeds on Monday.", "none"),
    _rec(1, "The council opened a new library in Leeds on Friday.", "date", "Friday"),
    _rec(2, "It holds ten thousand books.", "none"),
    _rec(3, "It holds nine thousand books.", "number", "nine"),
    _rec(4, "The library cost four million pounds.", "none"),
    _rec(5, "The library cost seven million pounds.", "number", "seven"),
    _rec(6, "The council opened a new library in Leeds, which the mayor designed.", "invented_attribute",
         "which the mayor designed"),
    _rec(7, "The council opened a library in Leeds.", "none"),
    _rec(8, "The council opened a new library in York on Monday.", "entity_swap", "York"),
    _rec(9, "The council did not open a new library in Leeds.", "negation", "did not open"),
]


def _write(tmp_path: Path, records, name="planted.jsonl") -> Path:
    p = tmp_path / name
    p.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return p


@pytest.fixture
def result(tmp_path):
    return run_meta_eval(_write(tmp_path, RECORDS), {"overlap": OverlapVerifier()}, bootstrap=50, seed=3,
                         by=["error_type"])


def test_every_row_carries_its_field_value(result):
    by_id = {r["id"]: r for r in RECORDS}
    assert result.by == ["error_type"]
    assert [r.by for r in result.scores] == [{"error_type": by_id[r.item_id]["error_type"]} for r in result.scores]
    assert result.groups("error_type") == sorted({r["error_type"] for r in RECORDS})


def test_overall_figures_are_kept(tmp_path, result):
    plain = run_meta_eval(_write(tmp_path, RECORDS, "b.jsonl"), {"overlap": OverlapVerifier()}, bootstrap=50, seed=3)
    overall = [s for s in result.stats if s.by is None]
    assert [(s.protocol, s.name, s.value) for s in overall] == [(s.protocol, s.name, s.value) for s in plain.stats]
    assert plain.protocols() == result.protocols()
    assert "decision" in result.protocols()


def test_group_statistics_are_those_of_the_group(result):
    rows = {r.item_id: r for r in result.scores}
    flagged = {i: any(lab != "supported" for lab in r.unit_labels) for i, r in rows.items()}
    number = [r for r in RECORDS if r["error_type"] == "number"]
    faithful = [r for r in RECORDS if r["error_type"] == "none"]
    det = result.stat("decision", "detect_rate", "overlap", group="number")
    assert det.value == pytest.approx(sum(flagged[r["id"]] for r in number) / len(number)) and det.n == 2
    assert result.stat("decision", "detect_rate", "overlap", group="none").value is None
    ff = result.stat("decision", "false_flag_rate", "overlap", group="none")
    assert ff.value == pytest.approx(sum(flagged[r["id"]] for r in faithful) / len(faithful))
    # A one-label group: no ROC-AUC of its own, but one against the other label of the whole file.
    assert result.stat("binary", "roc_auc", "overlap", group="number").value is None
    vs = result.stat("binary", "roc_auc_vs_other", "overlap", group="number")
    both = number + faithful
    assert vs.value == pytest.approx(P.roc_auc([rows[r["id"]].score for r in both], [r["label"] for r in both]).value)
    # Span figures only where the group has reference spans; one annotator: no separate majority rows.
    assert result.stat("spans-union", "span_f1", "overlap", group="none") is None
    assert result.stat("spans-majority", "span_f1", "overlap", group="number") is None
    items = [SpanItem(text=r["summary"], predicted=rows[r["id"]].predicted_spans,
                        annotators=[[(h["start"], h["end"]) for h in r["hallucination_spans"]]]) for r in number]
    f1 = result.stat("spans-union", "span_f1", "overlap", group="number")
    assert f1.value == pytest.approx(span_prf(items, "union").f1.value) and f1.details["fn"] == 0
    overall_det = result.stat("decision", "detect_rate", "overlap")
    errors = [r for r in RECORDS if r["label"] == 0]
    assert overall_det.value == pytest.approx(sum(flagged[r["id"]] for r in errors) / len(errors))


def test_views_and_json_round_trip(result, tmp_path):
    table = render_table(result)
    assert "by error_type (6 groups" in table and "verifier's packaged 'supported' threshold" in table
    block = table.split("by error_type", 1)[1]
    for g in ("none", "number", "date", "negation"):
        assert re.search(rf"^\S.*\s{g}\s+\d", block, re.M), g
    md = to_markdown(result, "citefix meta-eval planted.jsonl --by error_type")
    assert "## By error_type" in md and "| verdict: detected (label 0 flagged) | number | 2 |" in md
    back = MetaEvalResult.model_validate_json(to_json(result))
    assert back.stat("decision", "detect_rate", "overlap", group="number").value == \
        result.stat("decision", "detect_rate", "overlap", group="number").value
    paths = write_report(result, tmp_path / "rep", "cmd")
    rows = [json.loads(line) for line in paths["items"].read_text().splitlines()]
    assert all(r["by"]["error_type"] == next(x["error_type"] for x in RECORDS if x["id"] == r["item_id"]) for r in rows)


def test_unknown_field_and_missing_values(tmp_path):
    path = _write(tmp_path, RECORDS)
    with pytest.raises(ConfigError, match=r"--by colour: no record of .* has a field 'colour'.*error_type"):
        run_meta_eval(path, {"overlap": OverlapVerifier()}, bootstrap=0, by=["colour"])
    recs = [dict(r) for r in RECORDS]
    del recs[0]["error_type"]
    res = run_meta_eval(_write(tmp_path, recs, "m.jsonl"), {"overlap": OverlapVerifier()}, bootstrap=0,
                        by=["error_type", "label"])
    assert "(missing)" in res.groups("error_type") and res.groups("label") == ["0", "1"]
    assert group_value(None) == "(missing)" and group_value(1) == "1" and group_value({"b": 1, "a": 2}) == '{"a": 2, "b": 1}'


def test_verdict_rates():
    det, ff, bacc = P.verdict_rates([True, False, None, True, False], [0, 0, 1, 1, 1], bootstrap=0)
    assert (det.value, ff.value, bacc.value) == (0.5, 0.5, 0.5) and det.n_missing == 1
    det, ff, bacc = P.verdict_rates([True, True, False], [0, 0, 0])
    assert det.value == pytest.approx(2 / 3) and ff.value is None and ff.reason == "no items labelled 1"
    assert bacc.value is None


# ----------------------------------------------------------------------------------------------- loaders


def test_loaders_keep_extra_fields_for_every_shape(tmp_path):
    cases = {
        "summeval": {"document": DOC, "summary": "A library opened.", "label": 1, "system": "M8"},
        "wice": {"statement": "A library opened.", "citation_text": DOC, "support": "full", "system": "M8"},
        "rose": {"reference": "A library opened.", "acus": ["A library opened."], "system": "M8"},
    }
    for shape, rec in cases.items():
        item = load(_write(tmp_path, [rec], f"{shape}.jsonl")).items[0]
        assert item.shape == shape and item.field("system") == "M8"
        assert "document" not in item.case.metadata and "statement" not in item.case.metadata
    ab = {"answer": "The library opened [1]. It cost a lot [1].", "passages": [{"id": "1", "text": DOC}],
          "system": "gpt", "human": {"labelled_sentences": [
              {"text": "The library opened [1].", "cited": [1], "attributable": 1, "topic": "opening"},
              {"text": "It cost a lot [1].", "cited": [1], "attributable": 0}]}}
    path = _write(tmp_path, [ab], "ab.jsonl")
    item = load(path).items[0]
    assert item.field("system") == "gpt" and item.field("topic", 0) == "opening" and item.field("topic", 1) is None
    res = run_meta_eval(path, {"overlap": OverlapVerifier()}, bootstrap=0, by=["topic", "system"])
    assert [r.by for r in res.scores] == [{"topic": "opening", "system": "gpt"}, {"topic": None, "system": "gpt"}]
    assert res.groups("topic") == ["(missing)", "opening"]


# ----------------------------------------------------------------------------------------------- CLI


def _cli(*args, tmp_path):
    env = dict(os.environ, CITEFIX_HOME=str(tmp_path / "home"), LITELLM_LOCAL_MODEL_COST_MAP="True",
               HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    return citefix_main(*args, env=env)


def test_cli_by_error_type_end_to_end(tmp_path):
    path = _write(tmp_path, RECORDS)
    rep = tmp_path / "rep"
    proc = _cli("meta-eval", str(path), "--verifier", "offline,lexical", "--by", "error_type", "--no-store",
                "--bootstrap", "20", "--report", str(rep), tmp_path=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "by error_type (6 groups" in out and "detected (label 0 flagged)" in out
    block = out.split("by error_type", 1)[1]
    for g in ("none", "number", "date", "entity_swap", "negation", "invented_attribute"):
        assert re.search(rf"\s{g}\s+\d+\s+\d\.\d{{3}}", block), g
    items = [json.loads(line) for line in next(rep.glob("*.items.jsonl")).read_text().splitlines()]
    by_id = {r["id"]: r["error_type"] for r in RECORDS}
    assert len(items) == 2 * len(RECORDS) and {r["verifier"] for r in items} == {"offline", "offline:lexical"}
    assert all(r["by"] == {"error_type": by_id[r["item_id"]]} and r["unit_labels"] for r in items)
    md = next(rep.glob("*.md")).read_text()
    assert "--by error_type" in md and "## By error_type" in md


def test_cli_unknown_by_field_is_one_line(tmp_path):
    proc = _cli("meta-eval", str(_write(tmp_path, RECORDS)), "--verifier", "lexical", "--by", "colour", "--no-store",
                tmp_path=tmp_path)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "--by colour: no record of" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_progress_goes_to_a_log_when_asked(tmp_path):
    """With stderr not a terminal, meta-eval says nothing of its progress unless --progress is given; then a line
    every 10 records and one at the end."""
    import json

    path = tmp_path / "items.jsonl"
    rows = [{"id": f"i{k}", "document": "The council approved the bridge on Monday.", "summary": "The council approved "
             "the bridge.", "label": 1} for k in range(12)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    base = ["meta-eval", str(path), "--verifier", "offline", "--no-store", "--bootstrap", "0"]
    quiet = citefix_main(*base)
    loud = citefix_main(*base, "--progress")
    assert quiet.returncode == loud.returncode == 0, (quiet.stderr, loud.stderr)
    assert "records," not in quiet.stderr
    lines = [x for x in loud.stderr.splitlines() if x.startswith("meta-eval: ")]
    assert lines[0].startswith("meta-eval: 10/12 records") and lines[-1].startswith("meta-eval: 12/12 records"), lines
