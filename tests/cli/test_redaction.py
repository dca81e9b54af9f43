"""Redact once, at the boundary: a provider that echoes the API key in every answer leaves it in no table of the store
and in no output format (check, show, export, runs; human and JSON)."""

from __future__ import annotations

import json
import sqlite3

from cli_helpers import cli
from helpers import write
from loopback import LoopbackLLM, yes_reply

CANARY = "sk-canary-7f3a9c2e5b1d4086"


def echoing(req):
    last = req["messages"][-1]["content"]
    if "<<<TEXT" in last:
        body = last.split("<<<TEXT")[1].split("TEXT>>>")[0].strip().rstrip(".")
        return "\n".join(f"- {s.strip()} (key {CANARY})" for s in body.split(",") if s.strip())
    reply = yes_reply(0.9)
    reply.text = f"Yes, and your key is {CANARY}"
    return reply


def test_an_echoed_key_reaches_no_table_and_no_output(tmp_path):
    case = write(tmp_path, "c.json", json.dumps({"id": "c", "text": "The depot closed in 1987, it cost 2 million.",
                                                 "sources": [{"id": "1", "title": "t",
                                                              "text": "The depot closed in 1987. It cost 2 million."}]}))
    db = str(tmp_path / "canary.db")
    with LoopbackLLM(echoing) as srv:
        env = {"OPENAI_API_KEY": CANARY, "OPENAI_API_BASE": srv.base_url}
        outs = [cli("check", case, "--llm", "openai/test-model", "--db", db, "--json", tmp_path=tmp_path, extra_env=env),
                cli("check", case, "--llm", "openai/test-model", "--db", db, "--color", "never", tmp_path=tmp_path,
                    extra_env=env)]
        assert srv.stats.answered > 0 and all(a == f"Bearer {CANARY}" for a in srv.authorizations)
    assert all(r.returncode == 0 for r in outs), [r.stderr for r in outs]
    outs += [cli("show", "1", "--db", db, "--json", tmp_path=tmp_path), cli("show", "2", "--db", db, tmp_path=tmp_path),
             cli("export", "1", "--db", db, tmp_path=tmp_path), cli("export", "1", "--format", "md", "--db", db,
                                                                     tmp_path=tmp_path),
             cli("runs", "--db", db, "--json", tmp_path=tmp_path), cli("show", "1", "--rounds", "--db", db,
                                                                       tmp_path=tmp_path)]
    for r in outs:
        assert r.returncode == 0, r.stderr
        assert CANARY not in r.stdout and CANARY not in r.stderr
    assert "[REDACTED]" in outs[0].stdout  # the echo was there, and was removed
    conn = sqlite3.connect(db)
    tables = [t for (t,) in conn.execute("select name from sqlite_master where type = 'table'")]
    assert {"calls", "rounds", "verdicts", "units", "llm_cache", "verdict_cache"} <= set(tables)
    n_rows = 0
    for t in tables:
        for row in conn.execute(f"select * from [{t}]"):
            n_rows += 1
            assert CANARY not in json.dumps(row, default=str), (t, row)
    assert n_rows > 20
    assert conn.execute("select count(*) from llm_cache").fetchone()[0] > 0
