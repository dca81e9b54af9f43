"""Loading cases: every user mistake is one InputError naming the file, the problem and the fix."""

from __future__ import annotations

import io
import json
import os
import sys

import pytest
from helpers import write

from citefix.errors import InputError
from citefix.inputs import MAX_SOURCE_CHARS, load_cases, load_pair, read_text

GOOD = {"id": "a", "sources": [{"id": "1", "title": "t", "text": "The depot closed in 1987."}], "text": "It closed in 1987."}


def error_of(fn, *args, **kw) -> str:
    with pytest.raises(InputError) as info:
        fn(*args, **kw)
    msg = str(info.value)
    assert "\n" not in msg  # one line
    return msg


# -- files ------------------------------------------------------------------------------------------------------------


def test_missing_file(tmp_path):
    path = str(tmp_path / "nope.json")
    msg = error_of(load_cases, path)
    assert path in msg and "no such file" in msg


def test_directory(tmp_path):
    msg = error_of(load_cases, str(tmp_path))
    assert str(tmp_path) in msg and "directory" in msg


def test_not_utf8(tmp_path):
    path = write(tmp_path, "latin.txt", "Le café est fermé.".encode("latin-1"))
    msg = error_of(read_text, path, "source")
    assert path in msg and "not UTF-8" in msg and "iconv" in msg


def test_utf8_bom_is_accepted(tmp_path):
    path = write(tmp_path, "bom.txt", "\ufeffHello there.".encode("utf-8"))
    assert read_text(path, "source") == "Hello there."


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads any file")
def test_unreadable_file(tmp_path):
    path = write(tmp_path, "secret.txt", "text")
    os.chmod(path, 0)
    try:
        msg = error_of(read_text, path, "source")
        assert "permissions" in msg
    finally:
        os.chmod(path, 0o644)


@pytest.mark.parametrize("content", ["", "   \n\t\n"])
def test_empty_file(tmp_path, content):
    path = write(tmp_path, "empty.txt", content)
    msg = error_of(read_text, path, "summary")
    assert path in msg and "summary is empty" in msg


def test_oversized_source_is_refused_not_truncated(tmp_path):
    path = write(tmp_path, "huge.txt", "word " * (MAX_SOURCE_CHARS // 5 + 10))
    msg = error_of(read_text, path, "source")
    assert "split it" in msg


def test_oversized_source_in_a_case_is_refused(tmp_path):
    case = dict(GOOD, sources=[{"id": "1", "text": "x" * (MAX_SOURCE_CHARS + 1)}])
    msg = error_of(load_cases, write(tmp_path, "big.json", json.dumps(case)))
    assert "big.json" in msg and "split the case" in msg and "CITEFIX_MAX_SOURCE_CHARS" in msg


def test_the_cap_is_per_case_not_per_source(tmp_path, monkeypatch):
    """Three sources under the cap each, over it together: refused, naming the cap and the setting that raises it;
    raised, the same case loads."""
    third = "word " * (MAX_SOURCE_CHARS // 15 + 10)  # each just over a third of the cap
    case = dict(GOOD, sources=[{"id": str(i), "text": third} for i in (1, 2, 3)])
    path = write(tmp_path, "three.json", json.dumps(case))
    msg = error_of(load_cases, path)
    assert "three.json" in msg and "sources hold" in msg and "together" in msg and f"{MAX_SOURCE_CHARS:,}" in msg
    assert "CITEFIX_MAX_SOURCE_CHARS" in msg
    monkeypatch.setenv("CITEFIX_MAX_SOURCE_CHARS", str(4 * MAX_SOURCE_CHARS))
    assert len(load_cases(path)[0].sources) == 3
    monkeypatch.setenv("CITEFIX_MAX_SOURCE_CHARS", "lots")
    assert "not a whole number" in error_of(load_cases, path)


def test_a_case_file_larger_than_one_source_may_hold_many_cases(tmp_path):
    """The 2M-character bound is per source, not per file: a batch of thousands of cases is a few MB and more."""
    src = "The depot closed in 1987 and has stood empty since. " * 2_000  # ~100k characters per case
    n = MAX_SOURCE_CHARS // len(src) + 5
    path = tmp_path / "batch.jsonl"
    path.write_text("".join(json.dumps(dict(GOOD, id=f"c{i}", sources=[{"id": "1", "text": src}])) + "\n"
                            for i in range(n)))
    assert path.stat().st_size > MAX_SOURCE_CHARS
    cases = load_cases(str(path))
    assert len(cases) == n and cases[-1].id == f"c{n - 1}"


# -- JSON ---------------------------------------------------------------------------------------------------------------


def test_good_case(tmp_path):
    [case] = load_cases(write(tmp_path, "c.json", json.dumps(GOOD)))
    assert case.id == "a" and case.kind == "summary" and case.sources[0].text.startswith("The depot")


def test_list_of_cases_and_numeric_ids(tmp_path):
    cases = load_cases(write(tmp_path, "c.json", json.dumps([GOOD, dict(GOOD, id=7, sources=[{"id": 1, "text": "x y"}])])))
    assert [c.id for c in cases] == ["a", "7"] and cases[1].sources[0].id == "1"


def test_malformed_json_names_line_and_column(tmp_path):
    text = '{\n  "id": "a",\n  "text": "x"\n  "sources": []\n}\n'
    path = write(tmp_path, "bad.json", text)
    msg = error_of(load_cases, path)
    assert path in msg and "line 4, column 3" in msg and "malformed JSON" in msg


def test_unknown_field(tmp_path):
    msg = error_of(load_cases, write(tmp_path, "c.json", json.dumps(dict(GOOD, txt="typo"))))
    assert "unknown field 'txt'" in msg and "metadata" in msg


def test_unknown_field_in_a_source(tmp_path):
    case = dict(GOOD, sources=[{"id": "1", "titel": "t", "text": "x"}])
    msg = error_of(load_cases, write(tmp_path, "c.json", json.dumps(case)))
    assert "sources.0.titel" in msg and "id, title, text" in msg


@pytest.mark.parametrize("field", ["id", "text", "sources"])
def test_missing_field(tmp_path, field):
    case = {k: v for k, v in GOOD.items() if k != field}
    path = write(tmp_path, "c.json", json.dumps(case))
    msg = error_of(load_cases, path)
    assert path in msg and f"missing field '{field}'" in msg


def test_empty_text_and_empty_source_in_a_case(tmp_path):
    assert "text is empty" in error_of(load_cases, write(tmp_path, "a.json", json.dumps(dict(GOOD, text="  "))))
    case = dict(GOOD, sources=[{"id": "1", "text": ""}])
    assert "source text is empty" in error_of(load_cases, write(tmp_path, "b.json", json.dumps(case)))


def test_no_sources_and_duplicate_source_ids(tmp_path):
    assert "sources" in error_of(load_cases, write(tmp_path, "a.json", json.dumps(dict(GOOD, sources=[]))))
    dup = dict(GOOD, sources=[{"id": "1", "text": "a b"}, {"id": "1", "text": "c d"}])
    assert "used twice" in error_of(load_cases, write(tmp_path, "b.json", json.dumps(dup)))


def test_wrong_types(tmp_path):
    assert "expected a JSON object" in error_of(load_cases, write(tmp_path, "a.json", json.dumps([GOOD, "oops"])))
    assert "case #2" in error_of(load_cases, write(tmp_path, "b.json", json.dumps([GOOD, "oops"])))
    assert "empty" in error_of(load_cases, write(tmp_path, "c.json", "[]"))


# -- JSONL --------------------------------------------------------------------------------------------------------------


def test_jsonl(tmp_path):
    lines = [json.dumps(dict(GOOD, id=f"c{i}")) for i in range(3)]
    cases = load_cases(write(tmp_path, "c.jsonl", "\n".join(lines[:2]) + "\n\n" + lines[2] + "\n"))
    assert [c.id for c in cases] == ["c0", "c1", "c2"]


def test_jsonl_bad_line_is_named(tmp_path):
    lines = [json.dumps(GOOD), json.dumps(GOOD), '{"id": "b", "text": ', json.dumps(GOOD)]
    path = write(tmp_path, "c.jsonl", "\n".join(lines))
    msg = error_of(load_cases, path)
    assert path in msg and "line 3" in msg and "malformed JSON" in msg


def test_jsonl_invalid_case_on_a_line_is_named(tmp_path):
    lines = [json.dumps(GOOD), json.dumps({"id": "x", "sources": GOOD["sources"]})]
    msg = error_of(load_cases, write(tmp_path, "c.jsonl", "\n".join(lines)))
    assert "line 2" in msg and "missing field 'text'" in msg


def test_jsonl_without_cases(tmp_path):
    assert "is empty" in error_of(load_cases, write(tmp_path, "c.jsonl", "\n\n"))


def test_development_record_shapes(tmp_path):
    rec = {"id": "x1", "document": "The depot closed in 1987.", "summary": "It closed.", "label": 1, "system": "BERTS2S"}
    case, _ = load_cases(write(tmp_path, "x.jsonl", json.dumps(rec) + "\n" + json.dumps(dict(rec, id="x2")) + "\n"))
    assert case.text == "It closed." and case.sources[0].text == rec["document"]
    assert case.metadata == {"label": 1, "system": "BERTS2S"} and case.kind == "summary"


def test_development_record_without_a_document_is_named(tmp_path):
    """XSumFaith has records whose document is NaN (json.loads reads it): the error names the line and the field."""
    rec = {"id": "x1", "document": "The depot closed.", "summary": "It closed."}
    path = write(tmp_path, "x.jsonl", json.dumps(rec) + "\n" + '{"id": "x2", "document": NaN, "summary": "It closed."}\n')
    msg = error_of(load_cases, path)
    assert "line 2" in msg and "'document'" in msg


# -- text pairs and stdin ------------------------------------------------------------------------------------------------


def test_pair(tmp_path):
    src = write(tmp_path, "article.txt", "The depot closed in 1987.")
    summ = write(tmp_path, "summary.txt", "It closed in 1987.")
    case = load_pair([src], summ)
    assert case.id == "summary" and case.sources[0].title == "article.txt" and case.text == "It closed in 1987."


def test_pair_from_stdin(tmp_path, monkeypatch):
    src = write(tmp_path, "article.txt", "The depot closed in 1987.")
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO("It closed in 1987.\n".encode())))
    case = load_pair([src], "-")
    assert case.id == "stdin" and case.text.strip() == "It closed in 1987."


def test_only_one_stdin(tmp_path):
    assert "only one" in error_of(load_pair, ["-"], "-")


def test_several_sources_get_numbered_ids(tmp_path):
    a = write(tmp_path, "a.txt", "Alpha text.")
    b = write(tmp_path, "b.txt", "Beta text.")
    s = write(tmp_path, "s.txt", "Alpha and beta.")
    case = load_pair([a, b], s)
    assert [x.id for x in case.sources] == ["1", "2"]


def test_skip_invalid_leaves_out_bad_lines_and_names_them(tmp_path):
    from citefix.inputs import iter_cases

    p = tmp_path / "mixed.jsonl"
    good = '{"id": "a", "sources": [{"id": "1", "text": "The sky is blue."}], "text": "The sky is blue."}'
    p.write_text(good + '\n{"id": "b", "sources": [], "text": "x"}\n{not json\n' + good.replace('"a"', '"c"') + "\n")
    skipped: list[str] = []
    assert [c.id for c in iter_cases(str(p), skipped=skipped)] == ["a", "c"]
    assert len(skipped) == 2 and "line 2" in skipped[0] and "line 3" in skipped[1]
    with pytest.raises(Exception, match="line 2"):
        list(iter_cases(str(p)))
