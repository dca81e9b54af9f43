"""One error boundary: every bad input exits 2 with one line naming the input, the problem and the fix; anything else
is an internal error with its own exit code (5) and a pointer to CITEFIX_DEBUG=1. Each case below was a traceback."""

from __future__ import annotations

import json

import pytest
from cli_helpers import GOOD, assert_user_error, cli
from helpers import write


def test_deeply_nested_json_is_refused(tmp_path):
    p = write(tmp_path, "deep.json", "[" * 100_000 + "]" * 100_000)
    assert_user_error(cli("check", p, tmp_path=tmp_path), "deep.json", "nested", "flatten")


def test_deep_metadata_is_refused_not_recursed(tmp_path):
    case = dict(GOOD, metadata={})
    node = case["metadata"]
    for _ in range(900):
        node["a"] = {}
        node = node["a"]
    p = write(tmp_path, "meta.json", json.dumps(case))
    assert_user_error(cli("check", p, tmp_path=tmp_path), "meta.json", "nested")


def test_deep_jsonl_line_names_the_line(tmp_path):
    p = write(tmp_path, "d.jsonl", json.dumps(GOOD) + "\n" + "[" * 5000 + "]" * 5000 + "\n")
    assert_user_error(cli("check", p, tmp_path=tmp_path), "d.jsonl", "line 2", "nested")


@pytest.mark.parametrize("item, needle", [
    ({"output": "x", "docs": [1, 2]}, "docs[0]"),
    ({"output": 5, "docs": []}, "'output'"),
    ({"output": "x", "docs": {"a": 1}}, "'docs'"),
])
def test_malformed_alce_results(tmp_path, item, needle):
    p = write(tmp_path, "alce.json", json.dumps({"data": [item]}))
    assert_user_error(cli("check", p, tmp_path=tmp_path), "alce.json", "data[0]", needle)


@pytest.mark.parametrize("line, key", [("verifier = 5", "verifier"), ("db = 7", "db"), ("concurrency = \"many\"", "concurrency"),
                                       ("cache = \"sometimes\"", "cache")])
def test_config_values_of_the_wrong_type_name_file_and_key(tmp_path, line, key):
    (tmp_path / "config" / "citefix").mkdir(parents=True)
    (tmp_path / "config" / "citefix" / "config.toml").write_text(line + "\n", encoding="utf-8")
    r = cli("check", "--example", "summary", tmp_path=tmp_path)
    assert_user_error(r, "config.toml", f"{key} = ")


def test_env_variable_errors_name_the_variable(tmp_path):
    r = cli("check", "--example", "summary", tmp_path=tmp_path, extra_env={"CITEFIX_CONCURRENCY": "lots"})
    assert_user_error(r, "CITEFIX_CONCURRENCY", "whole number")


def test_citefix_home_pointing_at_a_file(tmp_path):
    home = write(tmp_path, "afile", "x")
    r = cli("check", "--example", "summary", tmp_path=tmp_path, extra_env={"CITEFIX_HOME": home})
    assert_user_error(r, "CITEFIX_HOME", "not a folder")


def test_export_out_a_directory(tmp_path):
    r = cli("check", "--example", "summary", tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    (tmp_path / "outdir").mkdir()
    assert_user_error(cli("export", "1", "--out", "outdir", tmp_path=tmp_path), "--out outdir", "folder")


def test_refine_limit_zero_says_so(tmp_path):
    p = write(tmp_path, "case.json", json.dumps(GOOD))
    assert_user_error(cli("refine", p, "--limit", "0", tmp_path=tmp_path), "--limit 0", "1 or more")


def test_a_sentence_too_long_to_parse_is_refused(tmp_path):
    src = write(tmp_path, "src.txt", "The depot closed in 1987.")
    s = write(tmp_path, "s.txt", "[" * 6000)
    assert_user_error(cli("check", "--source", src, "--summary", s, tmp_path=tmp_path), "s.txt", "sentence", "split")


def test_internal_error_has_its_own_code_and_one_line(monkeypatch, capsys):
    from citefix import cli as cli_mod
    from citefix.errors import EXIT_INTERNAL

    def boom(args):
        raise ZeroDivisionError("planted")

    real = cli_mod.build_parser

    def parser():
        p = real()
        p._subparsers._group_actions[0].choices["runs"].set_defaults(func=boom)
        return p

    monkeypatch.setattr(cli_mod, "build_parser", parser)
    monkeypatch.delenv("CITEFIX_DEBUG", raising=False)
    assert cli_mod.main(["runs"]) == EXIT_INTERNAL == 5
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "internal error" in lines[0] and "ZeroDivisionError" in lines[0]
    assert "CITEFIX_DEBUG=1" in lines[0] and "Traceback" not in err
    monkeypatch.setenv("CITEFIX_DEBUG", "1")
    assert cli_mod.main(["runs"]) == 5
    assert "Traceback" in capsys.readouterr().err
