"""--dry-run (calls, tokens and cost before paying, no call made, nothing stored) and --max-cost (a clean stop: the
completed rounds kept, exit 3, a message), through the CLI in a subprocess against the loopback model server."""

from __future__ import annotations

import json

import pytest
from cli_helpers import citefix_main
from helpers import rows
from loopback import LoopbackLLM, messages_responder
from refine_cli_helpers import cli_env, write_case
from refine_fakes import refine_responder

pytestmark = pytest.mark.slow

PRICED = "openai/gpt-4o-mini"  # in litellm's local price table
UNPRICED = "openai/test-model"


def run(tmp_path, srv, *args):
    return citefix_main(*args, env=cli_env(tmp_path, srv), cwd=tmp_path)


def test_dry_run_makes_no_call_and_stores_nothing(tmp_path):
    case = str(write_case(tmp_path))
    labels = tmp_path / "w.jsonl"
    labels.write_text("\n".join(json.dumps({"statement": s, "citation_text": "The council approved the plan.",
                                            "support": "full"}) for s in ("The plan was approved.", "It was not."))
                      + "\n")
    with LoopbackLLM(messages_responder(refine_responder())) as srv:
        db = tmp_path / "never.db"
        outs = [run(tmp_path, srv, "check", case, "--llm", PRICED, "--dry-run", "--db", str(db)),
                run(tmp_path, srv, "refine", case, "--llm", PRICED, "--rounds", "2", "--dry-run", "--db", str(db)),
                run(tmp_path, srv, "compare", case, "--strategies", "acu,none", "--llm", PRICED, "--report",
                    str(tmp_path / "rep"), "--dry-run", "--db", str(db)),
                run(tmp_path, srv, "meta-eval", str(labels), "--verifier", "llm", "--llm", PRICED, "--dry-run",
                    "--db", str(db))]
        assert srv.stats.requests == 0
    for r in outs:
        assert r.returncode == 0, r.stderr
        line = r.stdout.strip()
        assert line.startswith("dry run:") and " calls " in line and "tokens" in line and "$" in line, line
    assert not db.exists() and not (tmp_path / "rep").exists()
    # check: generation per sentence and verification; refine adds the revisions and re-checks
    check_calls = int(outs[0].stdout.split("dry run: ")[1].split()[0])
    refine_calls = int(outs[1].stdout.split("dry run: ")[1].split()[0])
    assert check_calls > 1 and refine_calls > 2 * check_calls and "revise" in outs[1].stdout


def test_dry_run_says_unknown_when_litellm_has_no_price(tmp_path):
    with LoopbackLLM(messages_responder(refine_responder())) as srv:
        r = run(tmp_path, srv, "check", str(write_case(tmp_path)), "--llm", UNPRICED, "--dry-run")
        assert srv.stats.requests == 0
    assert r.returncode == 0 and "unknown (litellm's price table has no price for openai/test-model)" in r.stdout
    assert "$0.0000" not in r.stdout


def test_offline_dry_run_counts_zero_calls(tmp_path):
    r = run(tmp_path, None, "check", "--example", "summary", "--dry-run")
    assert r.returncode == 0 and r.stdout.startswith("dry run: 0 model calls")


def test_max_cost_stops_cleanly_keeping_completed_rounds(tmp_path):
    case = str(write_case(tmp_path))
    with LoopbackLLM(messages_responder(refine_responder())) as srv:
        probe_db = tmp_path / "probe.db"
        probe = run(tmp_path, srv, "refine", case, "--llm", PRICED, "--rounds", "3", "--db", str(probe_db))
        assert probe.returncode == 0, probe.stderr
        costs = [r["cost"] for r in rows(probe_db, "select cost from rounds order by n")]
        assert len(costs) >= 3 and all(c and c > 0 for c in costs)  # litellm priced every round
        limit = costs[0] + costs[1] / 2  # enough for round 0, not for round 1
        db = tmp_path / "capped.db"
        capped = run(tmp_path, srv, "refine", case, "--llm", PRICED, "--rounds", "3", "--db", str(db),
                     "--no-cache", "--max-cost", f"{limit:.8f}")
    assert capped.returncode == 3, capped.stderr
    assert "--max-cost" in capped.stderr and "completed rounds are kept" in capped.stderr
    assert "Traceback" not in capped.stderr
    stored = rows(db, "select n, cost from rounds order by n")
    assert stored and stored[0]["n"] == 0 and len(stored) < len(costs)
    spent = sum(c["cost"] or 0 for c in rows(db, "select cost from calls"))
    assert spent <= limit
    run_row = rows(db, "select * from runs")[0]
    assert run_row["status"] in ("failed", "finished") and run_row["best_round"] == 0


def test_max_cost_must_be_positive(tmp_path):
    r = run(tmp_path, None, "check", "--example", "summary", "--max-cost", "0")
    assert r.returncode == 2 and "--max-cost" in r.stderr and "Traceback" not in r.stderr


def test_max_cost_says_when_it_cannot_count_a_model(tmp_path):
    from refine_fakes import acu_responder

    with LoopbackLLM(messages_responder(acu_responder())) as srv:
        r = run(tmp_path, srv, "check", "--example", "summary", "--llm", UNPRICED, "--max-cost", "0.01",
                "--db", str(tmp_path / "u.db"))
    assert r.returncode == 0, r.stderr
    assert "no price for 'openai/test-model'; --max-cost cannot count its calls" in r.stderr
