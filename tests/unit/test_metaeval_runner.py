"""The meta-eval runner with a deterministic word-overlap verifier and a sentence-splitting decomposer (test doubles)."""

from __future__ import annotations

import json
import re
import threading

import pytest
from metaeval_helpers import DOC, summary_records, write

from citefix.errors import ConfigError, LLMError
from citefix.metaeval import protocols as P
from citefix.metaeval.loaders import load_items
from citefix.metaeval.report import render_table, to_json, to_markdown, write_report
from citefix.metaeval.rouge import best_match_rouge1
from citefix.metaeval.runner import MetaEvalResult, chunk_relevance, evidence_chunks, predicted_spans, run_meta_eval
from citefix.metaeval.stored import store_result, store_rows
from citefix.models import Unit, Verdict

WORD = re.compile(r"[a-z0-9]+")


class OverlapVerifier:
    """Score = share of the unit's words found in its target sources; words not found are unsupported spans."""

    llm = model_name = None  # the Verifier attributes: no LLM, no model of its own

    def __init__(self, name="overlap", threshold=0.75):
        self.name, self.threshold = name, threshold
        self.calls: list[tuple[list[str], list[list[str]] | None]] = []

    def supported_at(self, profile):
        return self.threshold

    def verify(self, units, case, *, targets=None):
        self.calls.append(([u.text for u in units], [list(t) for t in targets] if targets is not None else None))
        out = []
        for k, u in enumerate(units):
            ids = targets[k] if targets and targets[k] else [s.id for s in case.sources]
            vocab = set(WORD.findall(" ".join(case.source(i).text for i in ids).lower()))
            words = list(WORD.finditer(u.text.lower()))
            hit = [m.group() in vocab for m in words]
            score = sum(hit) / len(words) if words else 0.0
            spans = []
            if u.has_span and u.text == case.text[u.start:u.end]:
                spans = [(u.start + m.start(), u.start + m.end()) for m, h in zip(words, hit) if not h]
            out.append(Verdict(unit_id=u.id, verifier=self.name, score=score,
                               label="supported" if score >= self.threshold else "partial",
                               unsupported_spans=spans))
        return out


class SentenceSplitter:
    name = "split"
    llm, errors = None, ()  # the Decomposer attributes: no LLM, nothing fails

    def units(self, case):
        out = []
        for k, m in enumerate(re.finditer(r"[^.]+\.?", case.text)):
            text = m.group().strip()
            if text:
                a = m.start() + m.group().index(text)
                out.append(Unit(id=f"u{k + 1}", text=text, kind="sentence", decomposer=self.name, start=a,
                                end=a + len(text)))
        return out


# ----------------------------------------------------------------------------------------------- summaries


def test_summary_whole_text_binary_and_spans(tmp_path):
    path = write(tmp_path, summary_records())
    v = OverlapVerifier()
    result = run_meta_eval(path, {"overlap": v}, bootstrap=200, seed=1)
    assert result.shape == "xsumfaith" and result.records == 6 and result.items == 6
    assert all(len(units) == 1 for units, _ in v.calls)  # the whole summary is one unit
    rows = [r for r in result.scores if r.verifier == "overlap"]
    assert [r.index for r in rows] == list(range(6)) and [r.label for r in rows] == [1, 0, 0, 1, 1, 0]
    scores = [r.score for r in rows]
    auc = result.stat("binary", "roc_auc", "overlap")
    assert auc.value == pytest.approx(P.roc_auc(scores, [1, 0, 0, 1, 1, 0]).value)
    assert auc.ci_low is not None
    bacc = result.stat("binary", "balanced_accuracy", "overlap")
    assert isinstance(bacc, P.ThresholdStat) and bacc.threshold is not None
    f1 = result.stat("spans-union", "span_f1", "overlap")
    assert f1.value is not None and f1.value > 0.5
    assert result.stat("spans-majority", "span_precision", "overlap") is not None
    # the unsupported word "york" is predicted exactly
    row = rows[1]
    text = summary_records()[1]["summary"]
    assert [text[a:b] for a, b in row.predicted_spans] == ["york"]


def test_summary_with_decomposer_and_aggregate(tmp_path):
    path = write(tmp_path, summary_records())
    r_min = run_meta_eval(path, {"o": OverlapVerifier()}, decomposer=SentenceSplitter(), bootstrap=0)
    r_mean = run_meta_eval(path, {"o": OverlapVerifier()}, decomposer=SentenceSplitter(), bootstrap=0,
                           aggregate="mean")
    row_min, row_mean = r_min.scores[5], r_mean.scores[5]
    assert len(row_min.unit_scores) == 2
    assert row_min.score == pytest.approx(min(row_min.unit_scores))
    assert row_mean.score == pytest.approx(sum(row_mean.unit_scores) / 2)
    assert r_min.decomposer == "split"
    assert {p.system for p in r_min.performance} == {"o", "split"}
    with pytest.raises(ConfigError):
        run_meta_eval(path, {"o": OverlapVerifier()}, aggregate="max")


def test_summeval_rating_correlations(tmp_path):
    recs = [{"id": f"s{i}", "document": DOC, "summary": r["summary"], "label": r["label"],
             "consistency_expert_mean": 5.0 if r["label"] else 2.0 + i / 10} for i, r in enumerate(summary_records())]
    result = run_meta_eval(write(tmp_path, recs), {"o": OverlapVerifier()}, bootstrap=0)
    assert result.shape == "summeval"
    scores = [r.score for r in result.scores]
    ratings = [r["consistency_expert_mean"] for r in recs]
    assert result.stat("rating", "spearman", "o").value == pytest.approx(P.correlation("spearman", scores, ratings).value)
    assert not any(s.protocol.startswith("spans") for s in result.stats)


def test_two_verifiers_share_split_and_columns(tmp_path):
    path = write(tmp_path, summary_records())
    result = run_meta_eval(path, {"a": OverlapVerifier("a"), "b": OverlapVerifier("b", 0.9)}, bootstrap=50)
    assert result.verifiers == ["a", "b"]
    assert {s.system for s in result.stats} == {"a", "b"}
    table = render_table(result)
    assert "ROC-AUC" in table and " a " in table.splitlines()[4] + " " and "items/s" in table


# ----------------------------------------------------------------------------------------------- WiCE


def _wice_item(tmp_path, level="partial", sets=((1, 2),)):
    sentences = ["TITLE: Library news"] + [f"Sentence number {i} talks about topic {i}." for i in range(1, 40)]
    text = "\n".join(sentences)
    offsets, pos = [], 0
    for s in sentences:
        offsets.append([pos, pos + len(s)])
        pos += len(s) + 1
    rec = {"id": "w", "statement": "Sentence number 2 talks about topic 2.", "citation_text": text,
           "evidence_sentence_offsets": offsets, "supporting_sentence_sets": [list(s) for s in sets], "support": level}
    return rec


def test_chunks_follow_annotated_sentences_and_relevance_rule(tmp_path):
    rec = _wice_item(tmp_path, level="full", sets=((1, 2), (30,)))
    (item,) = load_items(write(tmp_path, [rec]))
    chunks = evidence_chunks(item, 20)
    assert all(len(c.text.split()) <= 20 for c in chunks)
    text = rec["citation_text"]
    for c in chunks:  # chunk boundaries fall on annotated sentence boundaries
        assert c.start in {a for a, _ in rec["evidence_sentence_offsets"]}
    rel = chunk_relevance(item, chunks)
    off = rec["evidence_sentence_offsets"]
    for c, r in zip(chunks, rel):
        inside = {i for i, (a, b) in enumerate(off) if a < c.end and c.start < b}
        want = 2 if ({1, 2} <= inside or 30 in inside) else (1 if inside & {1, 2} else 0)
        assert r == want, (text[c.start:c.end], r)
    # capped at the statement's level: a partially supported statement has no fully relevant chunk
    item.level = 1
    assert max(chunk_relevance(item, chunks)) == 1
    assert max(chunk_relevance(item, chunks, cap=False)) == 2


def test_split_set_across_chunks_is_partial(tmp_path):
    rec = _wice_item(tmp_path, level="full", sets=((1, 20),))
    (item,) = load_items(write(tmp_path, [rec]))
    chunks = evidence_chunks(item, 30)
    rel = chunk_relevance(item, chunks)
    assert 2 not in rel and rel.count(1) == 2


def test_wice_levels_and_ranking(tmp_path):
    recs = []
    for i, level in enumerate(["full", "partial", "none", "full", "partial", "none"]):
        r = _wice_item(tmp_path, level=level)
        r["id"] = f"w{i}"
        if level == "none":
            r["statement"] = "Dogs bark loudly at night."
            r["supporting_sentence_sets"] = [[]]
        elif level == "partial":
            r["statement"] = "Sentence number 2 talks about cats."
        recs.append(r)
    v = OverlapVerifier()
    result = run_meta_eval(write(tmp_path, recs), {"o": v}, bootstrap=100, chunk_words=40)
    assert result.chunk_words == 40
    names = {s.name for s in result.stats if s.protocol == "levels"}
    assert {"pearson", "spearman", "kendall", "auc_fs_ns", "auc_fs_ps", "auc_ps_ns", "auc_ovo_mean"} <= names
    assert result.stat("levels", "auc_fs_ns", "o").value == pytest.approx(1.0)
    ndcg = result.stat("ranking", "ndcg@5", "o")
    assert ndcg.n == 4 and ndcg.details["statements_without_relevant_chunk"] == 2
    # chunk ranking uses one call per statement with one target chunk per unit
    chunk_calls = [c for c in v.calls if c[1] is not None]
    assert len(chunk_calls) == 4
    units, targets = chunk_calls[0]
    assert targets == [[f"chunk{i + 1}"] for i in range(len(units))]
    row = result.scores[0]
    assert len(row.chunk_scores) == len(row.chunk_relevance)
    # the full statement matches its own sentence best: NDCG high
    assert ndcg.value > 0.6


# ----------------------------------------------------------------------------------------------- cited answers


def test_attributionbench_scores_labelled_sentences_with_targets(tmp_path):
    rec = {"id": "a1", "answer": "Cups can be glass [1]. Cups can be plastic [2]. Cups fly [1].",
           "passages": [{"id": "1", "text": "Cups can be made of glass."},
                        {"id": "2", "text": "Cups can be made of plastic."}],
           "human": {"labelled_sentences": [
               {"text": "Cups can be glass [1].", "cited": [1], "attributable": 1},
               {"text": "Cups fly [1].", "cited": [1], "attributable": 0},
               {"text": "Cups can be plastic [2].", "cited": [2], "attributable": 1}]}}
    rec2 = json.loads(json.dumps(rec))
    rec2["id"] = "a2"
    rec2["human"]["labelled_sentences"][2]["cited"] = [1]
    rec2["human"]["labelled_sentences"][2]["attributable"] = 0
    v = OverlapVerifier()
    result = run_meta_eval(write(tmp_path, [rec, rec2]), {"o": v}, bootstrap=0)
    assert result.records == 2 and result.items == 6
    assert v.calls[0] == (["Cups can be glass.", "Cups fly.", "Cups can be plastic."], [["1"], ["1"], ["2"]])
    rows = result.scores
    assert [r.item_id for r in rows[:3]] == ["a1#1", "a1#2", "a1#3"] and rows[0].group == "a1"
    assert [r.index for r in rows] == list(range(6))
    assert rows[5].score < rows[2].score  # plastic judged against the glass passage
    assert result.stat("binary", "roc_auc", "o").value == pytest.approx(1.0)


# ----------------------------------------------------------------------------------------------- RoSE


def test_rose_decomposition(tmp_path):
    recs = [{"id": "r1", "reference": "Arango bit Zavala. He scored a free kick.",
             "acus": ["Arango bit Zavala.", "Arango scored a free kick."]},
            {"id": "r2", "reference": "Nothing gold here.", "acus": []}]
    path = write(tmp_path, recs)
    with pytest.raises(ConfigError, match="decomposer"):
        run_meta_eval(path, {})
    result = run_meta_eval(path, {}, decomposer=SentenceSplitter(), bootstrap=0)
    assert result.shape == "rose" and result.verifiers == []
    d = result.decompositions[0]
    assert d.units == ["Arango bit Zavala.", "He scored a free kick."]
    assert d.rouge1 == pytest.approx(best_match_rouge1(d.units, d.gold))
    st = result.stat("decomposition", "rouge1_best_match", "split")
    assert st.value == pytest.approx(d.rouge1) and st.details["items_without_gold"] == 1
    assert result.stat("decomposition", "rouge1_gold_coverage", "split") is not None
    assert "ROUGE-1 best match" in render_table(result)


def test_no_verifier_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="verifier"):
        run_meta_eval(write(tmp_path, summary_records()), {})


# ----------------------------------------------------------------------------------------------- failures


class FlakyVerifier(OverlapVerifier):
    def verify(self, units, case, *, targets=None):
        if "paris" in case.text:
            raise RuntimeError("backend hiccup")
        if "york" in case.text:
            return [Verdict(unit_id=u.id, verifier=self.name, score=None, label="error", error="timeout")
                    for u in units]
        return super().verify(units, case, targets=targets)


def test_failures_are_recorded_and_counted_as_missing(tmp_path):
    result = run_meta_eval(write(tmp_path, summary_records()), {"f": FlakyVerifier("f")}, bootstrap=0)
    errs = {r.item_id: r.error for r in result.scores if r.error}
    assert set(errs) == {"x1", "x2"}
    assert "backend hiccup" in errs["x2"] and "timeout" in errs["x1"]
    auc = result.stat("binary", "roc_auc", "f")
    assert auc.n_missing == 2 and auc.n == 4 and auc.value is not None
    bacc = result.stat("binary", "balanced_accuracy", "f")
    assert bacc.n_missing == 2 and bacc.n_tune == 2 and bacc.n == 2  # positions kept: x3, x5 tune; x0, x4 evaluate
    assert result.stat("spans-union", "span_f1", "f").n_missing == 2
    assert bacc.value is None and "evaluation half" in bacc.reason
    assert "— [1]" in render_table(result) and "evaluation half" in to_markdown(result, "cmd")


class BrokenConfigVerifier(OverlapVerifier):
    def verify(self, units, case, *, targets=None):
        raise LLMError("the API key was refused; set OPENAI_API_KEY")


def test_user_errors_stop_the_run(tmp_path):
    with pytest.raises(LLMError):
        run_meta_eval(write(tmp_path, summary_records()), {"b": BrokenConfigVerifier()}, bootstrap=0)


def test_predicted_spans_merge_and_unspanned_units():
    units = [Unit(id="u1", text="a b", kind="sentence", decomposer="t", start=0, end=3),
             Unit(id="u2", text="c", kind="acu", decomposer="t")]
    verdicts = [Verdict(unit_id="u1", verifier="v", score=0.1, label="unsupported", unsupported_spans=[(2, 5)]),
                Verdict(unit_id="u2", verifier="v", score=0.1, label="unsupported")]
    spans, no_span = predicted_spans(units, verdicts)
    assert spans == [(0, 5)] and no_span == 1


# ----------------------------------------------------------------------------------------------- progress, cancel, limit


def test_progress_limit_and_cancel(tmp_path):
    path = write(tmp_path, summary_records())
    seen = []
    result = run_meta_eval(path, {"o": OverlapVerifier()}, limit=4, bootstrap=0,
                           on_progress=lambda d, t, i: seen.append((d, t, i)))
    assert result.records == 4 and seen[-1] == (4, 4, "x3") and len(seen) == 4
    cancel = threading.Event()

    def stop_after_two(done, total, item_id):
        if done == 2:
            cancel.set()

    result = run_meta_eval(path, {"o": OverlapVerifier()}, bootstrap=0, on_progress=stop_after_two, cancel=cancel)
    assert result.cancelled and result.items == 2 and any("cancelled" in n for n in result.notes)


def test_skip_invalid_is_reported(tmp_path):
    recs = summary_records()
    recs[2]["document"] = None
    path = write(tmp_path, recs)
    result = run_meta_eval(path, {"o": OverlapVerifier()}, bootstrap=0, skip_invalid=True)
    assert result.records == 6 and result.items == 5 and result.skipped[0].line == 3  # records read, valid or not
    assert "1 invalid records skipped" in render_table(result)


# ----------------------------------------------------------------------------------------------- views and store


def test_views_json_and_determinism(tmp_path):
    path = write(tmp_path, summary_records())
    a = run_meta_eval(path, {"o": OverlapVerifier()}, bootstrap=100, seed=3)
    b = run_meta_eval(path, {"o": OverlapVerifier()}, bootstrap=100, seed=3)
    assert [(s.value, s.ci_low, s.ci_high) for s in a.stats] == [(s.value, s.ci_low, s.ci_high) for s in b.stats]
    back = MetaEvalResult.model_validate_json(to_json(a))
    assert isinstance(back, MetaEvalResult) and back.stats[0] == a.stats[0]
    bacc = back.stat("binary", "balanced_accuracy", "o")
    assert isinstance(bacc, P.ThresholdStat) and bacc == a.stat("binary", "balanced_accuracy", "o")
    assert back.stats == a.stats and back.scores == a.scores
    md = to_markdown(a, "citefix meta-eval data.jsonl --verifier o")
    assert "citefix meta-eval data.jsonl --verifier o" in md and "| protocol |" in md
    paths = write_report(a, tmp_path / "rep", "cmd")
    assert paths["markdown"].exists() and json.loads(paths["json"].read_text())["shape"] == "xsumfaith"
    assert len(paths["items"].read_text().splitlines()) == 6


def test_store_rows_and_store(tmp_path, store):
    path = write(tmp_path, summary_records())
    result = run_meta_eval(path, {"o": OverlapVerifier()}, bootstrap=0)
    run, items = store_rows(result, "citefix meta-eval x")
    assert run["format"] == "xsumfaith" and run["n_items"] == 6 and json.loads(run["verifiers"]) == ["o"]
    assert "scores" not in json.loads(run["result"])
    assert len(items) == 6 and json.loads(items[0]["human"])["label"] == 1
    run_id = store_result(store, result, "citefix meta-eval x")
    row = store.db["metaeval_runs"].get(run_id)
    assert row["command"] == "citefix meta-eval x"
    stored = list(store.db["metaeval_items"].rows_where("metaeval_run_id = ?", [run_id]))
    assert len(stored) == 6 and stored[0]["score"] == pytest.approx(result.scores[0].score)


# ----------------------------------------------------------------------------------------------- command line


def test_cli_meta_eval_with_fake_verifier(tmp_path, monkeypatch, capsys):
    import citefix.pipeline as pipeline
    from citefix.cli import main

    monkeypatch.setattr(pipeline, "build_verifier", lambda name, settings, store=None, llm=None: OverlapVerifier(name))
    path = write(tmp_path, summary_records())
    rc = main(["meta-eval", str(path), "--verifier", "a,b,a", "--bootstrap", "50", "--report", str(tmp_path / "r"),
               "--db", str(tmp_path / "m.db")])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "ROC-AUC" in out and "stored as meta-eval run 1" in err
    md = (tmp_path / "r" / "metaeval-data.md").read_text()
    assert f"citefix meta-eval {path} --verifier a,b,a" in md
    rc = main(["meta-eval", str(path), "--verifier", "a", "--json", "--no-store", "--bootstrap", "0"])
    out, _ = capsys.readouterr()
    assert rc == 0 and json.loads(out)["verifiers"] == ["a"]


def test_cli_reports_bad_input(tmp_path, capsys):
    from citefix.cli import main

    p = tmp_path / "bad.jsonl"
    p.write_text('{"document": "d", "summary": 3, "label": 1}\n')
    assert main(["meta-eval", str(p), "--no-store", "--strict"]) == 2
    assert "bad.jsonl:1" in capsys.readouterr().err


def test_cli_refuses_a_file_whose_every_record_is_left_out(tmp_path, capsys):
    """Without --strict invalid records are left out; when that is all of them, the run stops with the first
    record's problem (exit 2) instead of writing a report of nothing, and no --by field is blamed for it."""
    from citefix.cli import main

    p = tmp_path / "strings.jsonl"
    p.write_text("".join(json.dumps({"document": "The cup is glass.", "summary": "The cup is glass.", "label": v,
                                     "error_type": "none"}) + "\n" for v in ("1", "0")))
    assert main(["meta-eval", str(p), "--no-store", "--by", "error_type", "--report", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert "strings.jsonl:1: none of its 2 records can be used" in err and "write 'label' as 1 or 0" in err
    assert "error_type" not in err and not (tmp_path / "r").exists()


@pytest.mark.slow
def test_cli_meta_eval_with_real_offline_verifier(tmp_path, capsys):
    from citefix.cli import main

    path = write(tmp_path, summary_records()[:4])
    rc = main(["meta-eval", str(path), "--verifier", "lexical", "--bootstrap", "20", "--no-store"])
    out, err = capsys.readouterr()
    assert rc == 0, err
    assert "offline:lexical" in out and "ROC-AUC" in out
