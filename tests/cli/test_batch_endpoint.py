"""A batch check reuses a stored check only when the same server would answer: the endpoint is part of the stored
check's signature, and --no-cache asks every model question again."""

import json

from loopback import LoopbackLLM, yes_reply

from citefix.cli import main

SOURCE = "The council approved the new bridge on Monday. It will cost £6 million."


def _cases(tmp_path):
    path = tmp_path / "cases.jsonl"
    rows = [{"id": f"c{i}", "sources": [{"id": "1", "text": SOURCE}], "text": text}
            for i, text in enumerate(["The council approved the bridge.", "The bridge will cost £6 million."])]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


def _check(capsys, cases, db, *extra):
    rc = main(["check", cases, "--llm", "openai/test-model", "--decomposer", "clauses", "--verifier", "llm",
               "--db", db, "--json", *extra])
    return rc, capsys.readouterr().err


def test_another_server_is_asked_and_no_cache_asks_again(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-a-secret")
    cases, db = _cases(tmp_path), str(tmp_path / "s.db")
    with LoopbackLLM(lambda req: yes_reply(0.8)) as a, LoopbackLLM(lambda req: yes_reply(0.8)) as b:
        monkeypatch.setenv("OPENAI_API_BASE", a.base_url)
        rc, err = _check(capsys, cases, db)
        assert rc == 0, err
        assert a.stats.answered > 0
        monkeypatch.setenv("OPENAI_API_BASE", b.base_url)
        rc, err = _check(capsys, cases, db)
        assert rc == 0, err
        assert "reused" not in err and b.stats.answered > 0  # server B checks them: A's results are not B's
        asked = b.stats.answered
        rc, err = _check(capsys, cases, db)  # the same server again: reused, nothing asked
        assert rc == 0 and "2 of 2 cases reused" in err, err
        assert b.stats.answered == asked
        rc, err = _check(capsys, cases, db, "--no-cache")  # no cache: asked again
        assert rc == 0 and "reused" not in err, err
        assert b.stats.answered > asked
