"""The `citefix` command through a subprocess: user errors exit 2 with one line and no traceback; stdin, --json,
--fail-under and --limit work on real offline runs."""

from __future__ import annotations

import json

import pytest
from cli_helpers import ARTICLE, GOOD, assert_user_error, cli
from helpers import write

# -- user errors: exit 2, one line, no traceback ---------------------------------------------------------------------


def test_missing_file(tmp_path):
    assert_user_error(cli("check", "nope.json", tmp_path=tmp_path), "nope.json", "no such file")


def test_missing_source_file(tmp_path):
    s = write(tmp_path, "s.txt", "A summary.")
    assert_user_error(cli("check", "--source", "gone.txt", "--summary", s, tmp_path=tmp_path), "gone.txt", "source")


def test_directory(tmp_path):
    (tmp_path / "cases").mkdir()
    assert_user_error(cli("check", "cases", tmp_path=tmp_path), "cases", "directory")


def test_not_utf8(tmp_path):
    src = write(tmp_path, "a.txt", "Le café est fermé.".encode("latin-1"))
    s = write(tmp_path, "s.txt", "Closed.")
    assert_user_error(cli("check", "--source", src, "--summary", s, tmp_path=tmp_path), "a.txt", "not UTF-8")


def test_empty_summary(tmp_path):
    src = write(tmp_path, "a.txt", ARTICLE)
    s = write(tmp_path, "s.txt", "\n  \n")
    assert_user_error(cli("check", "--source", src, "--summary", s, tmp_path=tmp_path), "s.txt", "empty")


def test_empty_stdin(tmp_path):
    src = write(tmp_path, "a.txt", ARTICLE)
    assert_user_error(cli("check", "--source", src, "--summary", "-", tmp_path=tmp_path, input=""), "<stdin>", "empty")


def test_malformed_json(tmp_path):
    p = write(tmp_path, "bad.json", '{\n  "id": "a",\n  "text": "x"\n  "sources": []\n}\n')
    assert_user_error(cli("check", p, tmp_path=tmp_path), "bad.json", "line 4, column 3")


def test_unknown_field(tmp_path):
    p = write(tmp_path, "c.json", json.dumps(dict(GOOD, summary_text="oops")))
    assert_user_error(cli("check", p, tmp_path=tmp_path), "c.json", "unknown field 'summary_text'")


def test_missing_field(tmp_path):
    p = write(tmp_path, "c.json", json.dumps({"id": "a", "text": "x"}))
    assert_user_error(cli("check", p, tmp_path=tmp_path), "c.json", "missing field 'sources'")


def test_jsonl_bad_line(tmp_path):
    lines = [json.dumps(dict(GOOD, id=f"c{i}")) for i in range(4)]
    lines[2] = '{"id": "c2", "sources": [}'
    p = write(tmp_path, "c.jsonl", "\n".join(lines) + "\n")
    assert_user_error(cli("check", p, tmp_path=tmp_path), "c.jsonl", "line 3")


def test_jsonl_invalid_case_line(tmp_path):
    lines = [json.dumps(GOOD), json.dumps(GOOD), json.dumps({"id": "c", "sources": GOOD["sources"]})]
    p = write(tmp_path, "c.jsonl", "\n".join(lines) + "\n")
    assert_user_error(cli("check", p, tmp_path=tmp_path), "line 3", "missing field 'text'")


def test_source_without_summary(tmp_path):
    src = write(tmp_path, "a.txt", ARTICLE)
    assert_user_error(cli("check", "--source", src, tmp_path=tmp_path), "--source and --summary")


def test_nothing_to_check(tmp_path):
    assert_user_error(cli("check", tmp_path=tmp_path), "nothing to check")


def test_two_stdins(tmp_path):
    assert_user_error(cli("check", "--source", "-", "--summary", "-", tmp_path=tmp_path, input="x"), "only one")


def test_unknown_verifier(tmp_path):
    p = write(tmp_path, "c.json", json.dumps(GOOD))
    assert_user_error(cli("check", p, "--verifier", "oracle", "--db", str(tmp_path / "x.db"), tmp_path=tmp_path),
                      "unknown verifier 'oracle'")


def test_bad_config_file(tmp_path):
    cfg = tmp_path / "config" / "citefix"
    cfg.mkdir(parents=True)
    (cfg / "config.toml").write_text("llm = [unclosed\n", encoding="utf-8")
    p = write(tmp_path, "c.json", json.dumps(GOOD))
    assert_user_error(cli("check", p, tmp_path=tmp_path), "config.toml", "TOML")


def test_unusable_db_path(tmp_path):
    (tmp_path / "dbdir").mkdir()
    p = write(tmp_path, "c.json", json.dumps(GOOD))
    assert_user_error(cli("check", p, "--db", str(tmp_path / "dbdir"), tmp_path=tmp_path), "--db")


def test_show_unknown_run(tmp_path):
    from citefix.store import Store

    Store(tmp_path / "x.db").close()
    assert_user_error(cli("show", "7", "--db", str(tmp_path / "x.db"), tmp_path=tmp_path), "no run 7", "citefix runs")
    # a store that is not there is named as such, and not created
    assert_user_error(cli("show", "7", "--db", str(tmp_path / "y.db"), tmp_path=tmp_path), "no store at", "y.db")
    assert not (tmp_path / "y.db").exists()


def test_argparse_errors_exit_2_without_traceback(tmp_path):
    r = cli("check", "--fail-under", "high", tmp_path=tmp_path)
    assert r.returncode == 2 and "Traceback" not in r.stderr and "--fail-under" in r.stderr


def test_help_and_version(tmp_path):
    r = cli("--help", tmp_path=tmp_path)
    assert r.returncode == 0 and "check" in r.stdout
    r = cli("check", "--help", tmp_path=tmp_path)
    assert r.returncode == 0 and "--fail-under" in r.stdout and "--json" in r.stdout
    assert cli("--version", tmp_path=tmp_path).stdout.startswith("citefix ")


# -- real offline runs --------------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_stdin_summary_plain_report(tmp_path):
    src = write(tmp_path, "article.txt", ARTICLE)
    r = cli("check", "--source", src, "--summary", "-", "--db", str(tmp_path / "s.db"), tmp_path=tmp_path,
            input="The council approved a park. The depot closed in 1987.\n")
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    assert "\x1b[" not in r.stdout  # not a TTY: no colour codes, plain markers
    assert "[[+ " in r.stdout and "Score: " in r.stdout and "Stored as run 1" in r.stdout
    assert "citefix · stdin · summary" in r.stdout


@pytest.mark.slow
def test_json_output_and_fail_under(tmp_path):
    cases = [
        dict(GOOD, id="ok", text="The depot closed in 1987."),
        dict(GOOD, id="invented", text="The depot closed in 1952 after Mayor Olga Brandt sold it for £9 million."),
        {"id": "xsum-like", "document": ARTICLE, "summary": "councillors voted 9 to 4 for the depot park plan .",
         "label": 1},
    ]
    p = write(tmp_path, "cases.jsonl", "\n".join(json.dumps(c) for c in cases) + "\n")
    db = tmp_path / "j.db"
    r = cli("check", p, "--json", "--fail-under", "0.9", "--db", str(db), tmp_path=tmp_path)
    assert r.returncode == 1, r.stderr  # the invented case scores below 0.9
    assert "Traceback" not in r.stderr and "--fail-under 0.9" in r.stderr
    out = [json.loads(line) for line in r.stdout.splitlines()]  # every line one JSON object
    assert [o["case_id"] for o in out] == ["ok", "invented", "xsum-like"]
    assert len({o["run_id"] for o in out}) == 3
    for o in out:
        assert o["units"] and o["verdicts"] and o["store"] == str(db)
        assert {"units", "verdicts", "score", "scores", "run_id", "text", "status"} <= set(o)
        for u in o["units"]:
            assert {"id", "text", "start", "end", "kind"} <= set(u)
            if u["start"] is not None:
                assert o["text"][u["start"]:u["end"]].strip()
        for v in o["verdicts"]:
            assert 0.0 <= v["score"] <= 1.0 and v["label"] in ("supported", "partial", "unsupported")
    ok, invented = out[0], out[1]
    assert ok["score"] > invented["score"]
    assert any(v["label"] != "supported" for v in invented["verdicts"])

    # --limit reads only what it needs; the gate passes at 0
    r = cli("check", p, "--json", "--limit", "1", "--fail-under", "0", "--db", str(db), tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    assert [json.loads(line)["case_id"] for line in r.stdout.splitlines()] == ["ok"]
