"""Regressions, each with a test that fails on the code before the fix: the LLM cache keyed on the endpoint, ACU
spans keeping a repeated last word, one definition of a redundant citation, unknown cost, `show` and the best round,
and the small ones (runs --model, meta-eval --limit, unit counts, --nli models, unknown fields, unmarked sentences)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import cli
from helpers import rows, write
from llm_helpers import MODEL, run_cli
from loopback import LoopbackLLM, messages_responder
from refine_fakes import acu_responder

from citefix.models import CallRecord, Case, Evaluation, Source

EXAMPLE = Path(__file__).resolve().parents[2] / "citefix" / "examples" / "summary.json"


# -- 1. the LLM cache names the endpoint; reports say how many answers came from the cache ---------------------------


def test_cache_is_keyed_on_the_endpoint_and_reports_count_cached_answers(tmp_path):
    db = str(tmp_path / "shared.db")
    with LoopbackLLM(messages_responder(acu_responder())) as with_lp, \
            LoopbackLLM(messages_responder(acu_responder(p_yes=0.6, p_no=0.3))) as other:
        first = run_cli("check", str(EXAMPLE), "--llm", MODEL, "--db", db, "--color", "never", srv=with_lp,
                        tmp_path=tmp_path)
        assert first.returncode == 0, first.stderr
        assert "(0 answered from the cache" in first.stdout
        # same model name, another server: nothing may come from the first server's answers
        second = run_cli("check", str(EXAMPLE), "--llm", MODEL, "--db", db, "--color", "never", srv=other,
                         tmp_path=tmp_path)
        assert second.returncode == 0, second.stderr
        assert other.stats.answered > 0
        scores = {round(v["score"], 2) for v in rows(Path(db), "select v.score from verdicts v join rounds r on "
                                                               "r.id = v.round_id where r.run_id = 2")}
        assert scores == {0.3, 0.6}  # the second server's P(Yes), not the first one's 0.08 / 0.93
        # the first server again: every answer from the cache, and the report says so
        before = with_lp.stats.answered
        third = run_cli("check", str(EXAMPLE), "--llm", MODEL, "--db", db, "--color", "never", srv=with_lp,
                        tmp_path=tmp_path)
        assert third.returncode == 0, third.stderr
        assert with_lp.stats.answered == before
        n = len(rows(Path(db), "select * from calls where run_id = 3"))
        assert n > 0 and f"Model calls: {n} ({n} answered from the cache)" in third.stdout
        show = cli("show", "3", "--db", db, "--color", "never", tmp_path=tmp_path)
        assert f"Model calls: {n} ({n} answered from the cache)" in show.stdout


def test_cache_key_changes_with_everything_that_changes_the_answer():
    from citefix.llm.client import LLMClient
    from citefix.llm.fake import ScriptedTransport
    from citefix.prompting import load_prompt

    msgs = [{"role": "user", "content": "Is it so?"}]
    a = LLMClient("openai/m", transport=ScriptedTransport(), api_base="http://127.0.0.1:1/v1")
    key = a.cache_key(msgs, 5, 0.0, 20)
    assert key == LLMClient("openai/m", transport=ScriptedTransport(), api_base="http://127.0.0.1:1/v1").cache_key(msgs, 5, 0.0, 20)
    assert key != LLMClient("openai/m", transport=ScriptedTransport(), api_base="http://127.0.0.1:2/v1").cache_key(msgs, 5, 0.0, 20)
    assert key != LLMClient("openai/n", transport=ScriptedTransport(), api_base="http://127.0.0.1:1/v1").cache_key(msgs, 5, 0.0, 20)
    assert key != a.cache_key(msgs, 6, 0.0, 20) and key != a.cache_key(msgs, 5, 0.0, 0)
    assert key != a.cache_key(msgs, 5, 0.0, 20, prompt=load_prompt("acu_verify"))


def test_cache_key_reads_the_base_url_from_the_environment(monkeypatch):
    from citefix.llm.client import LLMClient
    from citefix.llm.fake import ScriptedTransport

    msgs = [{"role": "user", "content": "x"}]
    c = LLMClient("openai/m", transport=ScriptedTransport())
    monkeypatch.setenv("OPENAI_API_BASE", "http://127.0.0.1:1/v1")
    one = c.cache_key(msgs, 5, 0.0, 20)
    monkeypatch.setenv("OPENAI_API_BASE", "http://127.0.0.1:2/v1")
    assert c.cache_key(msgs, 5, 0.0, 20) != one


# -- 2. spans of LLM units keep a repeated last word ------------------------------------------------------------------


def test_align_units_keeps_a_repeated_last_word():
    from citefix.decompose.align import align_units

    text = json.loads(EXAMPLE.read_text())["text"]
    a = align_units(text, ["Tom Leary wanted the land used for affordable housing."])[0]
    assert text[a.start:a.end].endswith("affordable housing")
    b = align_units("The housing officer wanted new homes, then more housing.", ["The officer wanted more housing."])[0]
    assert "The housing officer wanted new homes, then more housing."[b.start:b.end].endswith("more housing")


# -- 3. one definition of a redundant citation for the report and the feedback ----------------------------------------


CUPS = "Cups can be made of glass [1] or plastic [2][3]."
GLASS, PLASTIC = "Cups can be made of glass", "Cups can be made of plastic"


def _cups_eval(table):
    from cited_helpers import table_verifier

    from citefix.decompose.claims import ClaimDecomposer
    from citefix.evaluate import evaluate

    case = Case(id="c", text=CUPS, sources=[Source(id=i, text=f"passage {i}") for i in ("1", "2", "3")])
    return case, evaluate(case, decomposer=ClaimDecomposer(), verifier=table_verifier(table))


def test_citations_that_each_support_the_claim_are_not_called_redundant():
    from citefix.revision.feedback import CitationFeedback

    both = {(GLASS, frozenset({"1"})): 0.9, (PLASTIC, frozenset({"2", "3"})): 0.9,
            (PLASTIC, frozenset({"2"})): 0.8, (PLASTIC, frozenset({"3"})): 0.8}
    case, ev = _cups_eval(both)
    assert ev.metrics["citations"]["aliice"]["redundant"] == 0  # what `check` reports
    fb = CitationFeedback().feedback(case, ev)
    assert fb.citations == [] and fb.comment is None  # so the feedback says nothing is redundant either


def test_feedback_calls_redundant_what_the_report_calls_redundant():
    from cited_helpers import REDUNDANT

    from citefix.revision.feedback import CitationFeedback

    case, ev = _cups_eval(REDUNDANT)
    assert [(r["id"], r["claim"]) for r in ev.metrics["citations"]["redundant"]] == [("3", PLASTIC)]
    fb = CitationFeedback().feedback(case, ev)
    assert [(i.kind, i.source) for i in fb.citations] == [("redundant", "3")]
    assert "redundant" in fb.comment and f'[3] for "{PLASTIC}"' in fb.comment and "[2] for" not in fb.comment


# -- 4. an unknown cost is "unknown", never $0.0000 ---------------------------------------------------------------------


def _store_run(store, case, evaluations, *, calls=(), best=None, command="refine"):
    run_id = store.start_run(case, command, llm="openai/gpt-4o-mini", strategy="acu")
    for n, ev in enumerate(evaluations):
        store.write_round(run_id, n, ev, calls=calls if n == 0 else ())
    store.finish_run(run_id, "finished", best_round=best, stop_reason="rounds")
    return run_id


def _ev(text, score):
    return Evaluation(case_id="a", kind="summary", text=text, score=score)


CASE = Case(id="a", text="The depot closed in 1987.", sources=[Source(id="1", text="The depot closed in 1987.")])


def test_unknown_cost_is_stored_as_unknown_and_shown_as_unknown(tmp_path):
    from citefix.revision.compare_report import collect, render_markdown
    from citefix.store import Store

    db = tmp_path / "c.db"
    store = Store(db)
    unpriced = CallRecord(purpose="acu_verify", model="openai/local-model", messages=[], response="Yes",
                          prompt_tokens=40, completion_tokens=1, cost=None)
    run_id = _store_run(store, CASE, [_ev(CASE.text, 0.5)], calls=[unpriced])
    assert rows(db, "select cost from rounds")[0]["cost"] is None  # not 0.0
    md = render_markdown(collect(store, {"acu": [run_id]}, 0))
    assert "unknown (litellm's price table has no price for openai/local-model)" in md and "$0.0000" not in md
    priced = CallRecord(purpose="acu_verify", model="openai/gpt-4o-mini", messages=[], response="Yes",
                        prompt_tokens=40, completion_tokens=1, cost=0.0021)
    run2 = _store_run(store, CASE, [_ev(CASE.text, 0.5)], calls=[priced])
    assert "$0.0021" in render_markdown(collect(store, {"acu": [run2]}, 0))
    store.close()
    out = cli("show", str(run_id), "--rounds", "--db", str(db), tmp_path=tmp_path).stdout
    assert "cost unknown (litellm's price table has no price for openai/local-model)" in out


# -- 5. `show RUN` prints the best round and says which; --rounds marks it ---------------------------------------------


def test_show_prints_the_best_round_and_rounds_marks_it(tmp_path):
    from citefix.store import Store

    db = tmp_path / "c.db"
    store = Store(db)
    run_id = _store_run(store, CASE, [_ev("Round zero text.", 0.4), _ev("Round one text.", 0.9),
                                      _ev("Round two text.", 0.6)], best=1)
    store.close()
    out = cli("show", str(run_id), "--db", str(db), "--color", "never", tmp_path=tmp_path).stdout
    assert "Round one text." in out and "Round two text." not in out
    assert "Round 1 of rounds 0–2 (the best round" in out
    listed = cli("show", str(run_id), "--rounds", "--db", str(db), tmp_path=tmp_path).stdout.splitlines()
    assert [ln.startswith("round 1:") for ln in listed if "best" in ln][:1] == [True]
    assert not any("best" in ln for ln in listed if ln.startswith(("round 0:", "round 2:")))
    other = cli("show", str(run_id), "--round", "2", "--db", str(db), "--color", "never", tmp_path=tmp_path).stdout
    assert "Round two text." in other and "the best is round 1" in other


# -- 6. the small ones -----------------------------------------------------------------------------------------------


def test_runs_model_filter_matches_a_substring(tmp_path):
    from citefix.store import Store

    db = tmp_path / "c.db"
    store = Store(db)
    _store_run(store, CASE, [_ev(CASE.text, 0.5)])
    store.close()
    out = cli("runs", "--model", "gpt-4o", "--db", str(db), "--json", tmp_path=tmp_path).stdout
    assert [json.loads(ln)["llm"] for ln in out.splitlines()] == ["openai/gpt-4o-mini"]
    assert cli("runs", "--model", "claude", "--db", str(db), "--json", tmp_path=tmp_path).stdout == ""


def test_meta_eval_limit_counts_records_valid_or_not(tmp_path):
    from citefix.metaeval.loaders import load

    good = {"statement": "The cup is glass.", "citation_text": "The cup is glass.", "support": "full"}
    bad = {"statement": "The cup is glass.", "citation_text": "The cup is glass.", "support": "maybe"}
    path = write(tmp_path, "w.jsonl", "\n".join(json.dumps(r) for r in (good, bad, good, good)) + "\n")
    loaded = load(path, limit=2, skip_invalid=True)
    assert len(loaded.items) == 1 and [s.line for s in loaded.skipped] == [2]


def test_cited_answer_unit_counts_agree_between_check_and_the_store(tmp_path):
    db = tmp_path / "c.db"
    r = cli("check", "--example", "cited_answer", "--db", str(db), "--color", "never", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("Score:"))
    shown = int(line.split("units:")[1].split()[0])
    assert rows(db, "select n_units from rounds")[0]["n_units"] == shown


def test_nli_runs_name_the_nli_model(tmp_path):
    pytest.importorskip("transformers")
    from tiny_models import build_bert

    model = build_bert(tmp_path / "nli", bias=[-4.0, 4.0, -4.0], max_positions=128)
    r = cli("check", "--example", "cited_answer", "--nli", str(model), "--db", str(tmp_path / "c.db"),
            "--color", "never", tmp_path=tmp_path, extra_env={"CITEFIX_NLI_DEVICE": "cpu"})
    assert r.returncode == 0, r.stderr
    flat = "".join(r.stdout.split())  # the long path may wrap
    assert f"models:{model}" in flat and "none(offline)" not in flat


def test_a_misspelt_field_is_reported_as_unknown_not_as_a_missing_one(tmp_path):
    from citefix.errors import InputError
    from citefix.inputs import load_cases

    rec = {"id": "a", "sources": [{"id": "1", "text": "x"}], "txt": "The depot closed."}
    with pytest.raises(InputError) as e:
        load_cases(write(tmp_path, "c.json", json.dumps(rec)))
    msg = str(e.value)
    assert "unknown field 'txt'" in msg and "did you mean 'text'" in msg and "missing" not in msg


# -- 7. meta-eval keeps cited answers whose labelled sentences lack marks or cite missing passages --------------------


def test_meta_eval_scores_every_sentence_it_can_and_lists_the_rest(tmp_path):
    from citefix.metaeval.runner import run_meta_eval
    from citefix.verify.offline import OfflineVerifier

    passages = [{"id": "1", "text": "Glass cups are common in homes."},
                {"id": "2", "text": "Disposable cups are usually made of plastic or paper."}]
    answer = "Cups are made of glass [1]. Many cups are plastic. Paper cups date from 1908 [7]."
    rec = {"id": "a", "answer": answer, "passages": passages, "human": {"labelled_sentences": [
        {"text": "Cups are made of glass [1].", "cited": ["1"], "attributable": 1},
        {"text": "Many cups are plastic.", "cited": [], "attributable": 1},
        {"text": "Paper cups date from 1908 [7].", "cited": ["7"], "attributable": 0}]}}
    path = write(tmp_path, "ab.jsonl", json.dumps(rec) + "\n")
    result = run_meta_eval(path, {"offline": OfflineVerifier()}, bootstrap=0)
    assert result.records == 1 and result.skipped == []
    assert sorted(s.item_id for s in result.scores) == ["a#1", "a#2"]
    assert all(s.score is not None for s in result.scores)
    assert [u["item_id"] for u in result.unscorable] == ["a#3"] and "[7]" in result.unscorable[0]["problem"]
    assert any("no citation mark" in n for n in result.notes)
