"""The refinement loop with the scripted fake LLM: stop rules, best round, resume after a crash, the step API,
judges, what the strategy prompts contain, and what every round stores."""

from __future__ import annotations

import threading

import pytest
from refine_fakes import (
    FLAGGED,
    SOURCE,
    TEXT,
    drop_first_flagged,
    make_case,
    refine_responder,
    run_refine,
    session_for,
)

from citefix.config import Settings
from citefix.llm.fake import ScriptedTransport
from citefix.pipeline import build_pipeline
from citefix.revision import build_strategy
from citefix.revision.distance import word_edit_distance
from citefix.revision.feedback import parse_critique


def pipeline_for(store, responder, *, cache=True):
    transport = ScriptedTransport(responder)
    p = build_pipeline(Settings(llm="test/model", cache=cache, concurrency=1), store, transport=transport)
    return p, transport


def purposes(transport):
    out = []
    for r in transport.requests:
        last = r["messages"][-1]["content"]
        out.append("revise" if "<<<FEEDBACK" in last else "critique" if "Rate the consistency" in last
                   else "generate" if "<<<TEXT" in last else "verify")
    return out


# -- stop rules and the best round -------------------------------------------------------------------------------------


def test_acu_loop_fixes_one_flagged_piece_per_round_until_all_supported(store):
    p, transport = pipeline_for(store, refine_responder())
    events = []
    res = run_refine(make_case(), p, strategy="acu", store=store, max_rounds=5,
                 on_event=lambda e, d: events.append((e, d)))
    assert res.stop_reason == "all_supported" and res.status == "finished"
    rows = store.rounds(res.run_id)
    assert [r.n for r in rows] == [0, 1, 2, 3]
    assert [r.n_unsupported for r in rows] == [3, 2, 1, 0]
    assert rows[-1].text == "The council approved the plan on Monday."
    assert res.best_round == 3 and res.best_text == rows[-1].text
    scores = [r.score for r in rows]
    assert scores == sorted(scores) and scores[-1] > 0.9
    # every round: comment that produced it, edit distances, tokens, duration, parent
    assert rows[0].comment is None and rows[0].edit_orig == 0
    for prev, r in zip(rows, rows[1:]):
        assert r.comment.startswith("The source does not support")
        assert r.edit_prev == word_edit_distance(prev.text, r.text) > 0
        assert r.edit_orig == word_edit_distance(TEXT, r.text)
        assert r.parent == prev.n and r.strategy == "acu" and r.accepted == 1
        assert r.prompt_tokens > 0 and r.duration_s is not None
    run = store.run(res.run_id)
    assert run.status == "finished" and run.best_round == 3 and run.stop_reason == "all_supported"
    # every model call is stored, with its round
    calls = store.calls(res.run_id)
    assert {c.purpose for c in calls} >= {"acu_generate", "acu_verify", "revise"}
    assert sum(c.purpose == "revise" for c in calls) == 3
    assert all(c.round_id is not None for c in calls)
    names = [e for e, _ in events]
    for e in ("round_started", "units_scored", "revision_proposed", "run_finished"):
        assert e in names
    assert names[-1] == "run_finished"


def test_max_rounds_stops_and_reports_best(store):
    p, _ = pipeline_for(store, refine_responder())
    res = run_refine(make_case(), p, strategy="acu", store=store, max_rounds=2)
    assert res.stop_reason == "max_rounds"
    assert [r["round"] for r in res.rounds] == [0, 1, 2]
    assert res.best_round == 2


def test_target_stops_early(store):
    p, _ = pipeline_for(store, refine_responder())
    res = run_refine(make_case(), p, strategy="acu", store=store, max_rounds=5, target=0.5)
    # round scores: 4 units 3 bad → 0.29; 3 units 2 bad → 0.36; 2 units 1 bad → 0.505
    assert res.stop_reason == "target_reached" and res.best_round == 2


def test_best_round_is_reported_not_the_last_and_patience_stops(store):
    worse = iter(["The council approved the plan on Monday, the plan costs 5 million, work takes two years, the mayor chairs the board, it chairs two years.",
                  "The council approved the plan on Monday, the plan costs 5 million, work takes two years, the mayor chairs the board, it chairs two years, chairs again."])
    p, _ = pipeline_for(store, refine_responder(revise=lambda text: next(worse)))
    res = run_refine(make_case(), p, strategy="acu", store=store, max_rounds=5, patience=2)
    assert res.stop_reason == "no_improvement"
    assert len(res.rounds) == 3
    assert res.best_round == 0 and res.best_text == TEXT
    assert store.run(res.run_id).best_round == 0


@pytest.mark.parametrize("answer,reason", [("", "revision_empty"), ("I'm sorry, but I can't help with that.", "revision_refused"),
                                           (TEXT, "unchanged"), ("Here is the revised summary:\n\n" + TEXT, "unchanged")])
def test_a_useless_revision_ends_the_run_with_its_reason(store, answer, reason):
    p, _ = pipeline_for(store, refine_responder(revise=lambda text: answer))
    res = run_refine(make_case(), p, strategy="acu", store=store, max_rounds=3)
    assert res.stop_reason == reason
    assert res.failed == (reason in ("revision_empty", "revision_refused"))
    assert [r.n for r in store.rounds(res.run_id)] == [0]
    assert store.run(res.run_id).stop_reason == reason
    # the revise call is stored even though no round came of it
    assert any(c.purpose == "revise" and c.round_id is None for c in store.calls(res.run_id))


def test_no_unsupported_units_stops_at_round_zero(store):
    p, transport = pipeline_for(store, refine_responder())
    res = run_refine(make_case("The council approved the plan on Monday."), p, strategy="acu", store=store)
    assert res.stop_reason == "all_supported" and res.best_round == 0
    assert "revise" not in purposes(transport)


def test_revision_is_parsed_to_the_text_alone(store):
    def chatty(text):
        return f"Sure! Here is the revised summary:\n\n\"{drop_first_flagged(text)}\"\n\nNote: I removed the wrong figure."

    p, _ = pipeline_for(store, refine_responder(revise=chatty))
    res = run_refine(make_case(), p, strategy="acu", store=store, max_rounds=1)
    assert store.rounds(res.run_id)[1].text == "The council approved the plan on Monday, work takes two years, the mayor chairs the board."


# -- strategies: what their prompts must contain -------------------------------------------------------------------------


def test_acu_feedback_lists_the_unsupported_units_and_the_reviser_prompt_holds_source_text_and_comment(store):
    log = []
    p, transport = pipeline_for(store, refine_responder(log=log))
    run_refine(make_case(), p, strategy="acu", store=store, max_rounds=1)
    revise_req = next(r for r, kind in zip(transport.requests, purposes(transport)) if kind == "revise")
    system, user = revise_req["messages"][0]["content"], revise_req["messages"][-1]["content"]
    assert "fewest possible changes" in system and "Never add information" in system
    assert SOURCE in user and TEXT in user
    comment = log[0][2]
    for unit in ("the plan costs 5 million", "work takes two years", "the mayor chairs the board"):
        assert f"- {unit}" in comment
    assert "The council approved the plan on Monday" not in comment
    assert "must not contain any information that the source does not contain" in comment


def test_none_feedback_names_nothing(store):
    log = []
    p, _ = pipeline_for(store, refine_responder(log=log))
    run_refine(make_case(), p, strategy="none", store=store, max_rounds=1)
    comment = log[0][2]
    assert "faithful" in comment
    assert not any(f in comment for f in FLAGGED)


def test_critique_rates_then_explains_and_the_explanation_becomes_the_comment(store):
    log = []
    p, transport = pipeline_for(store, refine_responder(log=log))
    res = run_refine(make_case(), p, strategy="critique", store=store, max_rounds=2)
    kinds = purposes(transport)
    assert kinds.count("critique") == 2 and kinds.count("revise") == 2
    crit = next(r for r, k in zip(transport.requests, kinds) if k == "critique")
    assert "1 (many facts not supported" in crit["messages"][0]["content"] and "Rating:" in crit["messages"][0]["content"]
    assert SOURCE in crit["messages"][-1]["content"] and TEXT in crit["messages"][-1]["content"]
    revise_comments = [c for kind, _, c in log if kind == "revise"]
    assert revise_comments[0] == "The source says the plan costs 2 million pounds, not 5 million."
    assert {c.purpose for c in store.calls(res.run_id)} >= {"critique", "revise"}
    assert store.rounds(res.run_id)[1].comment == revise_comments[0]


def test_parse_critique_forms():
    assert parse_critique("Rating: 3\nExplanation: The date is wrong.") == (3.0, "The date is wrong.")
    assert parse_critique("**Rating:** 4/5\n\n**Explanation:** Mostly fine.") == (4.0, "Mostly fine.")
    assert parse_critique("2\nThe summary invents a quote.") == (2.0, "The summary invents a quote.")
    assert parse_critique("") == (None, None)


def test_critique_needs_an_llm():
    from citefix.errors import ConfigError

    with pytest.raises(ConfigError, match="needs an LLM"):
        build_strategy("critique")
    with pytest.raises(ConfigError, match="unknown strategy"):
        build_strategy("nope")


# -- judge ---------------------------------------------------------------------------------------------------------------


def test_judge_scores_every_round_with_another_model_and_both_scores_are_kept(store):
    from citefix.pipeline import build_llm
    from citefix.verify.llm_judge import LLMJudgeVerifier

    p, transport = pipeline_for(store, refine_responder())
    judge_transport = ScriptedTransport(refine_responder(p_yes=0.8, p_no=0.3))
    judge_llm = build_llm("judge/model", Settings(cache=True), store, transport=judge_transport)
    res = run_refine(make_case(), p, strategy="acu", store=store, max_rounds=5, judge_verifier=LLMJudgeVerifier(judge_llm))
    rows = store.rounds(res.run_id)
    assert all(r.judge_score is not None for r in rows)
    assert all(r.judge_score != r.score for r in rows)
    assert rows[0].judge_score == pytest.approx((0.8 + 3 * 0.3) / 4, abs=1e-6)
    assert store.run(res.run_id).judge_llm == "judge/model"
    judge_calls = [c for c in store.calls(res.run_id) if c.model == "judge/model"]
    assert judge_calls and all(c.purpose == "acu_verify" for c in judge_calls)
    # the judge never generates units or revises
    assert set(purposes(judge_transport)) == {"verify"}
    ev = store.evaluation(res.run_id, 0, role="judge")
    assert ev.verifier == "llm:judge/model"


def test_judge_score_selects_the_best_round(store):
    from citefix.pipeline import build_llm
    from citefix.verify.llm_judge import LLMJudgeVerifier

    # the judge dislikes the revised texts: only the original has "Monday," followed by "the plan costs"
    def judge_responder(messages):
        from citefix.llm.fake import yes_answer

        statement = messages[-1]["content"].split("<<<STATEMENT")[-1]
        return yes_answer(0.9 if "5 million" in statement or "two years" in statement or "chairs" in statement else 0.1)

    p, _ = pipeline_for(store, refine_responder())
    judge_llm = build_llm("judge/model", Settings(), store, transport=ScriptedTransport(judge_responder))
    res = run_refine(make_case(), p, strategy="acu", store=store, max_rounds=3, judge_verifier=LLMJudgeVerifier(judge_llm))
    assert res.best_round == 0  # the judge's score, not the reviser-side score (which is best at round 3)
    assert res.best_judge_score == max(r.judge_score for r in store.rounds(res.run_id))


# -- crash, interrupt, cancel and resume -------------------------------------------------------------------------------------


def test_resume_after_a_simulated_crash_keeps_every_completed_round(store):
    p, _ = pipeline_for(store, refine_responder())
    session = session_for(make_case(), p, strategy="acu", store=store)
    session.evaluate_current()
    session.step()  # round 1 stored
    run_id = session.run_id
    before = store.rounds(run_id)
    del session  # the process dies here: no finish, run row still "running"
    assert store.run(run_id).status == "running"

    p2, transport2 = pipeline_for(store, refine_responder())
    res = run_refine(None, p2, strategy="acu", store=store, max_rounds=5, resume_run=run_id)
    after = store.rounds(run_id)
    assert [(r.id, r.n, r.text) for r in after[:2]] == [(r.id, r.n, r.text) for r in before]
    assert [r.n for r in after] == [0, 1, 2, 3]
    assert res.stop_reason == "all_supported" and store.run(run_id).status == "finished"
    # resuming re-evaluated nothing that was stored: the first request is the revision of round 1
    assert purposes(transport2)[0] == "revise"
    assert after[2].parent == 1


def test_keyboard_interrupt_mid_round_keeps_completed_rounds_and_marks_the_run(store):
    count = {"revise": 0}

    def revise(text):
        count["revise"] += 1
        if count["revise"] == 2:
            raise KeyboardInterrupt
        return drop_first_flagged(text)

    p, _ = pipeline_for(store, refine_responder(revise=revise))
    with pytest.raises(KeyboardInterrupt):
        run_refine(make_case(), p, strategy="acu", store=store, max_rounds=3)
    run = store.list_runs()[0]
    assert run.status == "interrupted" and run.stop_reason == "interrupted"
    assert [r.n for r in store.rounds(run.id)] == [0, 1]
    p2, _ = pipeline_for(store, refine_responder())
    res = run_refine(None, p2, strategy="acu", store=store, max_rounds=3, resume_run=run.id)
    assert res.status == "finished" and [r.n for r in store.rounds(run.id)] == [0, 1, 2, 3]


def test_cancel_flag_stops_between_steps_and_keeps_what_was_stored(store):
    cancel = threading.Event()

    def on_event(name, data):
        if name == "units_scored" and data["round"] == 1:
            cancel.set()

    p, _ = pipeline_for(store, refine_responder())
    res = run_refine(make_case(), p, strategy="acu", store=store, max_rounds=5, cancel=cancel, on_event=on_event)
    assert res.status == "cancelled" and res.stop_reason == "cancelled"
    assert [r.n for r in store.rounds(res.run_id)] == [0, 1]
    assert store.run(res.run_id).status == "cancelled"


def test_a_cancel_that_comes_after_the_last_unit_is_scored_drops_the_round(store):
    """The cancel arrives while the verifier's last answer is being counted (after the last point the check looks at
    the flag): the round is not stored, its model calls are, and the run says it was cancelled."""
    cancel = threading.Event()

    def on_event(name, data):
        if name == "progress" and data.get("step") == "units_scored" and data["round"] == 1:
            cancel.set()

    p, _ = pipeline_for(store, refine_responder())
    res = run_refine(make_case(), p, strategy="acu", store=store, max_rounds=5, cancel=cancel, on_event=on_event)
    assert res.status == "cancelled"
    assert [r.n for r in store.rounds(res.run_id)] == [0]
    assert store.run(res.run_id).status == "cancelled" and store.run(res.run_id).best_round == 0
    orphans = [c.purpose for c in store.calls(res.run_id) if c.round_id is None]
    assert "revise" in orphans and len(orphans) > 1, orphans  # the dropped round's calls are kept


# -- the step API (what the TUI uses) -----------------------------------------------------------------------------------------


def test_step_api_propose_accept_reject_edit_revert(store):
    p, _ = pipeline_for(store, refine_responder())
    s = session_for(make_case(), p, strategy="acu", store=store)
    r0 = s.evaluate_current()
    assert r0.n == 0 and r0.n_unsupported == 3 and s.evaluate_current() is r0
    assert "- the plan costs 5 million" in s.feedback().comment

    prop = s.propose_revision(evaluate=True)
    assert prop.text == drop_first_flagged(TEXT) and prop.evaluation is not None and prop.parent == 0
    assert store.rounds(s.run_id)[-1].n == 0  # nothing stored by a proposal
    r1 = s.accept(prop)
    assert r1.n == 1 and r1.evaluation is prop.evaluation and r1.parent == 0

    prop2 = s.propose_revision(evaluate=True)
    rejected = s.reject(prop2)
    assert rejected.n == 2 and not rejected.accepted and s.current is r1
    rows = store.rounds(s.run_id)
    assert rows[-1].accepted == 0 and rows[-1].status == "rejected"

    r3 = s.accept(text="The council approved the plan on Monday.")  # a hand edit
    assert r3.n == 3 and r3.status == "edited" and r3.comment == "edited by hand" and r3.parent == 1
    assert r3.n_unsupported == 0 and s.stop_reason() == "all_supported"

    back = s.revert_to(1)
    assert s.current is back and back.n == 1
    assert {r.n: r.accepted for r in store.rounds(s.run_id)} == {0: 1, 1: 1, 2: 0, 3: 0}
    stale = s.propose_revision()
    s.revert_to(0)
    with pytest.raises(Exception, match="written for round 1"):
        s.accept(stale)
    s.revert_to(1)
    r4 = s.accept(s.propose_revision())
    assert r4.n == 4 and r4.parent == 1
    assert [r.n for r in s.lineage()] == [0, 1, 4]

    # a TUI reopening the run gets the same lineage
    s2 = session_for(None, p, store=store, resume_run=s.run_id, strategy="acu")
    assert s2.current.n == 4 and [r.n for r in s2.lineage()] == [0, 1, 4]
    with pytest.raises(Exception):
        s2.accept()  # nothing proposed


def test_session_without_a_store_runs_in_memory():
    from citefix.revision.incremental import CachingVerifier

    transport = ScriptedTransport(refine_responder())
    p = build_pipeline(Settings(llm="test/model", cache=False, concurrency=1), None, transport=transport)
    res = run_refine(make_case(), p, strategy="acu", store=None, max_rounds=5)
    assert res.run_id is None and res.stop_reason == "all_supported" and res.best_round == 3
    assert isinstance(CachingVerifier(p.verifier).name, str)
