"""The store's schema, as append-only named migrations. Never edit one that has shipped: add a new one below.

Four migrations were once registered under other names; a store that recorded those names is read through RENAMED
(`pending`) and has them rewritten to today's names when it is next opened to write (`apply`)."""

from __future__ import annotations

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

migrations = Migrations("citefix")

# the name a store made by an earlier citefix recorded → the migration's name today (same function, same effect)
RENAMED = {
    "m_issue12_call_attempts": "m004_call_attempts",
    "m_issue12_run_liveness": "m005_run_liveness",
    "m_issue15_datasette_views": "m006_datasette_views",
    "m_issue16_call_deployment": "m007_call_deployment",
}


def pending(db: Database) -> list:
    """The migrations a store still needs, reading a name it recorded under RENAMED as today's (read-only)."""
    done = {RENAMED.get(m.name, m.name) for m in migrations.applied(db)}
    return [m for m in migrations._migrations if m.name not in done]


def earlier_names(db: Database) -> bool:
    """Whether the store recorded a migration under an earlier name (rewritten by `apply`)."""
    return any(m.name in RENAMED for m in migrations.applied(db))


def apply(db: Database) -> None:
    """Record today's names for migrations the store recorded under an earlier name, then apply what is pending."""
    table = db[migrations.migrations_table]
    if table.exists():
        for old, new in RENAMED.items():
            db.execute(f"update [{migrations.migrations_table}] set name = ? where migration_set = ? and name = ?",
                       [new, migrations.name, old])
    migrations.apply(db)


@migrations(name="m001_initial")
def m001_initial(db: Database) -> None:
    db["cases"].create(
        {"id": int, "case_id": str, "kind": str, "content_hash": str, "data": str, "created": str}, pk="id"
    )
    db["cases"].create_index(["content_hash"], unique=True)
    db["runs"].create(
        {
            "id": int,
            "case_pk": int,
            "command": str,
            "status": str,
            "created": str,
            "finished": str,
            "input_path": str,
            "llm": str,
            "judge_llm": str,
            "decomposer": str,
            "verifier": str,
            "strategy": str,
            "settings": str,
            "best_round": int,
            "stop_reason": str,
        },
        pk="id",
        foreign_keys=[("case_pk", "cases", "id")],
    )
    db["rounds"].create(
        {
            "id": int,
            "run_id": int,
            "n": int,
            "status": str,
            "text": str,
            "comment": str,
            "score": float,
            "judge_score": float,
            "n_units": int,
            "n_unsupported": int,
            "edit_prev": int,
            "edit_orig": int,
            "prompt_tokens": int,
            "completion_tokens": int,
            "cost": float,
            "duration_s": float,
            "accepted": int,
            "evaluation": str,
            "judge_evaluation": str,
            "created": str,
        },
        pk="id",
        foreign_keys=[("run_id", "runs", "id")],
    )
    db["rounds"].create_index(["run_id", "n"], unique=True)
    db["units"].create(
        {
            "id": int,
            "round_id": int,
            "uid": str,
            "idx": int,
            "text": str,
            "kind": str,
            "decomposer": str,
            "start": int,
            "end": int,
            "note": str,
            "cited": str,
            "sentence": int,
            "grp": int,
            "meta": str,
        },
        pk="id",
        foreign_keys=[("round_id", "rounds", "id")],
    )
    db["units"].create_index(["round_id"])
    db["verdicts"].create(
        {
            "id": int,
            "round_id": int,
            "unit_row": int,
            "uid": str,
            "role": str,
            "verifier": str,
            "score": float,
            "label": str,
            "discrete": int,
            "target": str,
            "evidence_source": str,
            "evidence_start": int,
            "evidence_end": int,
            "evidence_text": str,
            "unsupported_spans": str,
            "details": str,
            "error": str,
        },
        pk="id",
        foreign_keys=[("round_id", "rounds", "id"), ("unit_row", "units", "id")],
    )
    db["verdicts"].create_index(["round_id"])
    db["scores"].create({"id": int, "round_id": int, "role": str, "name": str, "value": float}, pk="id",
                        foreign_keys=[("round_id", "rounds", "id")])
    db["scores"].create_index(["round_id"])
    db["calls"].create(
        {
            "id": int,
            "run_id": int,
            "round_id": int,
            "purpose": str,
            "model": str,
            "prompt_name": str,
            "prompt_version": str,
            "prompt_hash": str,
            "messages": str,
            "response": str,
            "logprobs": str,
            "prompt_tokens": int,
            "completion_tokens": int,
            "latency_ms": float,
            "cost": float,
            "cached": int,
            "attempts": int,
            "error": str,
            "created": str,
        },
        pk="id",
    )
    db["calls"].create_index(["run_id"])
    db["llm_cache"].create({"key": str, "model": str, "value": str, "created": str}, pk="key")
    db["verdict_cache"].create({"key": str, "verifier": str, "value": str, "created": str}, pk="key")


@migrations(name="m002_metaeval")
def m002_metaeval(db: Database) -> None:
    db["metaeval_runs"].create(
        {
            "id": int,
            "created": str,
            "path": str,
            "format": str,
            "n_items": int,
            "verifiers": str,
            "command": str,
            "result": str,
            "duration_s": float,
        },
        pk="id",
    )
    db["metaeval_items"].create(
        {"id": int, "metaeval_run_id": int, "item_id": str, "verifier": str, "score": float, "human": str, "details": str},
        pk="id",
        foreign_keys=[("metaeval_run_id", "metaeval_runs", "id")],
    )
    db["metaeval_items"].create_index(["metaeval_run_id"])


@migrations(name="m003_refine_rounds")
def m003_refine_rounds(db: Database) -> None:
    """Refinement: the round a round revised (its parent; reverts make lineages branch) and the strategy used."""
    db["rounds"].add_column("parent", int)
    db["rounds"].add_column("strategy", str)


@migrations(name="m004_call_attempts")
def m004_call_attempts(db: Database) -> None:
    """Every attempt in the call log: a row per failed attempt too, each with its status, error class and number."""
    db["calls"].add_column("status", str)
    db["calls"].add_column("error_class", str)
    db["calls"].add_column("attempt", int)


@migrations(name="m005_run_liveness")
def m005_run_liveness(db: Database) -> None:
    """The process that owns a running run (pid, host) and when it last showed life: a run whose process is gone
    reads as interrupted."""
    db["runs"].add_column("pid", int)
    db["runs"].add_column("host", str)
    db["runs"].add_column("heartbeat", str)


@migrations(name="m006_datasette_views")
def m006_datasette_views(db: Database) -> None:
    """Datasette-ready: foreign keys from calls to runs and rounds (the table is rebuilt, rows kept), views
    for the common questions, and a signature column so meta-eval can reuse a stored result with the same settings."""
    db.execute("update calls set round_id = null where round_id is not null and round_id not in (select id from rounds)")
    db.execute("update calls set run_id = null where run_id is not null and run_id not in (select id from runs)")
    db["calls"].add_foreign_key("run_id", "runs", "id")
    db["calls"].add_foreign_key("round_id", "rounds", "id")
    db["calls"].create_index(["round_id"], if_not_exists=True)
    db["metaeval_runs"].add_column("signature", str)
    db["metaeval_runs"].create_index(["signature"])
    db.create_view("round_scores", """
        select r.id as run_id, c.case_id, c.kind, r.command, r.strategy, r.llm, r.verifier, x.n as round,
               x.score, x.judge_score, x.n_units, x.n_unsupported, x.edit_prev, x.edit_orig, x.cost,
               x.n = r.best_round as best
        from rounds x join runs r on r.id = x.run_id join cases c on c.id = r.case_pk
        where coalesce(x.accepted, 1) = 1""")
    db.create_view("strategy_round_scores", """
        select r.strategy, x.n as round, count(*) as runs, avg(x.score) as mean_score,
               avg(x.n_unsupported) as mean_unsupported
        from rounds x join runs r on r.id = x.run_id
        where r.strategy is not null and coalesce(x.accepted, 1) = 1 group by r.strategy, x.n""")
    db.create_view("run_costs", """
        select r.id as run_id, c.case_id, r.command, r.strategy, r.llm,
               count(case when coalesce(k.status, '') != 'retried' then k.id end) as calls,
               count(case when k.status = 'retried' then k.id end) as retried_attempts,
               coalesce(sum(k.cached), 0) as cached_calls,
               coalesce(sum(case when k.cached = 0 then k.prompt_tokens end), 0) as prompt_tokens,
               coalesce(sum(case when k.cached = 0 then k.completion_tokens end), 0) as completion_tokens,
               sum(case when k.cached = 0 and k.error is null and k.cost is null then 1 else 0 end) as unpriced_calls,
               case when sum(case when k.cached = 0 and k.error is null and k.cost is null then 1 else 0 end) > 0
                    then null else coalesce(sum(case when k.cached = 0 then k.cost end), 0) end as cost
        from runs r join cases c on c.id = r.case_pk left join calls k on k.run_id = r.id group by r.id""")


@migrations(name="m007_call_deployment")
def m007_call_deployment(db: Database) -> None:
    """Which server answered: the litellm Router deployment (its model_info id) and the base URL of every
    call and failed attempt, and how many times the Router moved a call on (retries, fallbacks) before its answer."""
    db["calls"].add_column("deployment", str)
    db["calls"].add_column("api_base", str)
    db["calls"].add_column("router_fallbacks", int)
