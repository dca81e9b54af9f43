"""Typed store rows (store/rows.py): a run refined with the scripted fake LLM into a real SQLite file, read back through
the Store's read methods as typed rows — every field of the declared type, the values the run stored, and `as_dict()`
the very row SQLite holds (keys in column order), so JSON output built from it is unchanged."""

from __future__ import annotations

import dataclasses
import json
import types
import typing

import pytest
from helpers import rows  # rows read with sqlite3 alone (no citefix), in column order
from refine_fakes import make_case, refine_responder, run_refine

from citefix.config import Settings
from citefix.llm.fake import ScriptedTransport
from citefix.models import Evaluation
from citefix.pipeline import build_pipeline
from citefix.store import Store
from citefix.store.rows import CallRow, FoundRunRow, LoadedRound, RoundRow, RunListRow, RunRow


def _is(value, hint) -> bool:
    """isinstance against a field's annotation (a class, or a union with None); exact for int and float."""
    for t in typing.get_args(hint) if isinstance(hint, types.UnionType) else (hint,):
        if (value is None if t is type(None) else type(value) is t if t in (int, float, str) else isinstance(value, t)):
            return True
    return False


def assert_typed(row) -> None:
    hints = typing.get_type_hints(type(row), localns={"Evaluation": Evaluation})
    for f in dataclasses.fields(row):
        value = getattr(row, f.name)
        assert _is(value, hints[f.name]), f"{type(row).__name__}.{f.name} = {value!r} is not {hints[f.name]}"


@pytest.fixture
def refined(tmp_path):
    """A refine run with model calls in a real store file (written through the normal code path), then closed."""
    path = tmp_path / "rows.db"
    store = Store(path)
    p = build_pipeline(Settings(llm="test/model", cache=True, concurrency=1), store,
                       transport=ScriptedTransport(refine_responder()))
    res = run_refine(make_case(), p, strategy="acu", store=store, max_rounds=5)
    store.close()
    assert res.status == "finished" and res.run_id is not None
    return path, res


def test_each_row_type_round_trips_a_real_store(refined):
    path, res = refined
    store = Store(path, readonly=True)  # read back from the file
    try:
        run = store.run(res.run_id)
        assert type(run) is RunRow
        assert_typed(run)
        assert (run.id, run.command, run.status, run.strategy, run.llm) == (res.run_id, "refine", "finished", "acu",
                                                                             "test/model")
        assert (run.best_round, run.stop_reason) == (3, "all_supported") and run.finished is not None
        assert json.loads(run.settings or "{}")["strategy"] == "acu"
        assert run.as_dict() == rows(path, "select * from runs where id = ?", [run.id])[0]
        assert list(run.as_dict()) == [c["name"] for c in rows(path, "pragma table_info(runs)")]  # column order

        rounds = store.rounds(res.run_id)
        assert all(type(r) is RoundRow for r in rounds)
        for r in rounds:
            assert_typed(r)
        assert [r.n for r in rounds] == [0, 1, 2, 3] and [r.n_unsupported for r in rounds] == [3, 2, 1, 0]
        assert [r.parent for r in rounds] == [None, 0, 1, 2] and all(r.is_accepted and r.accepted == 1 for r in rounds)
        assert rounds[-1].text == res.best_text and rounds[-1].score == res.best_score
        assert Evaluation.model_validate_json(rounds[0].evaluation).text == rounds[0].text
        assert [r.as_dict() for r in rounds] == rows(path, "select * from rounds where run_id = ? order by n",
                                                    [res.run_id])

        calls = store.calls(res.run_id)
        assert calls and all(type(c) is CallRow for c in calls)
        for c in calls:
            assert_typed(c)
        assert {c.purpose for c in calls} >= {"acu_generate", "acu_verify", "revise"}
        assert all(c.model == "test/model" and c.round_id in {r.id for r in rounds} for c in calls)
        assert isinstance(json.loads(calls[0].messages or "null"), list)
        assert [c.as_dict() for c in calls] == rows(path, "select * from calls where run_id = ? order by id",
                                                   [res.run_id])

        [listed] = store.list_runs()
        assert type(listed) is RunListRow
        assert_typed(listed)
        assert (listed.case_id, listed.kind, listed.n_rounds) == ("plan", "summary", 4)
        assert (listed.first_score, listed.last_score) == (rounds[0].score, rounds[-1].score)
        assert list(listed.as_dict()) == list(run.as_dict()) + ["case_id", "kind", "n_rounds", "last_score",
                                                                "first_score"]  # `runs --json`, as before

        [found] = store.find_runs(content_hash=make_case().content_hash(), strategy="acu")
        assert type(found) is FoundRunRow
        assert_typed(found)
        assert (found.id, found.content_hash) == (run.id, make_case().content_hash())
        assert store.find_runs(content_hash=make_case().content_hash(), command="check") == []

        loaded = store.load_rounds(res.run_id)
        assert all(type(r) is LoadedRound for r in loaded)
        for r in loaded:
            assert_typed(r)
        assert [(r.n, r.text, r.parent, r.accepted) for r in loaded] == [(r.n, r.text, r.parent, True) for r in rounds]
        assert loaded[1].evaluation == store.evaluation(res.run_id, 1) and loaded[0].judge is None
    finally:
        store.close()


def test_rows_are_frozen_and_a_schema_they_do_not_match_fails_naming_the_column(refined):
    path, res = refined
    store = Store(path, readonly=True)
    try:
        run = store.run(res.run_id)
        with pytest.raises(dataclasses.FrozenInstanceError):
            run.status = "failed"
    finally:
        store.close()
    row = rows(path, "select * from runs where id = ?", [res.run_id])[0]
    with pytest.raises(TypeError, match=r"added_later.*store/rows\.py"):
        RunRow.from_row({**row, "added_later": 1})  # a migration added a column the class does not have yet
    del row["heartbeat"]
    with pytest.raises(TypeError, match="heartbeat"):
        RunRow.from_row(row)
