"""training/make_planted.py on a few real-looking news articles: deterministic, one clean planted error per statement.

The generator runs as a subprocess (as a user runs it: `python -m training.make_planted` from the repository root)
on a temporary data folder in the shape of the shared data.
"""

from __future__ import annotations

import importlib.util
import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "training" / "make_planted.py"
ERROR_TYPES = ("number", "date", "entity_swap", "invented_attribute", "negation", "role_swap", "unsupported_addition")

ARTICLES = [
    "Manchester United have signed the Portugal defender Joao Silva from Benfica on a four-year deal.\n"
    "The 24-year-old made 85 appearances for the Lisbon club and scored nine goals.\n"
    "United manager Erik Holt said Silva was one of the best young defenders in Europe.\n"
    "\"He is strong, quick and reads the game well,\" Holt told the club website.\n"
    "Benfica beat Porto in the league on Saturday without Silva.\n"
    "The transfer fee was not disclosed, but reports in Portugal put it at about £30m.\n"
    "Silva, who joined Benfica in 2015, will wear the number five shirt.\n"
    "Club captain Harry Maguire said the squad was delighted to welcome him.",
    "Police in Leeds have arrested two men after a jewellery shop was robbed on Tuesday.\n"
    "The thieves took rings and watches worth £40,000 from the shop on Briggate.\n"
    "Detective Inspector Sarah Jones, who leads the inquiry, said the men were held at addresses in Bradford.\n"
    "Shop owner Peter Grant said staff had been badly shaken by the raid.\n"
    "The shop reopened on Thursday after repairs to the front door.\n"
    "West Yorkshire Police said a third man was still being sought.\n"
    "A council spokesman said extra cameras would be fitted in the street in March.",
    "The city council has approved plans for a new library in the centre of Norwich.\n"
    "The building will cost £12m and is expected to open in 2027.\n"
    "Councillor Anne Reid, the leader of the council, said the library would hold 200,000 books.\n"
    "The old library closed in 2019 after a fire damaged the roof.\n"
    "Campaigners collected 5,000 signatures in support of the scheme.\n"
    "The Arts Council will pay for half of the cost.\n"
    "Local historian Mark Bell said the new building would bring visitors back to the city.",
    "Scientists at the University of Bristol have found a new species of frog in the rainforest of Peru.\n"
    "The frog is just two centimetres long and lives in the leaves of tall trees.\n"
    "Dr Emma Clarke, a biologist at the university, said the discovery was a complete surprise.\n"
    "The team spent eight weeks in the forest last year.\n"
    "The species has been named after the village of Santa Rosa, where the team stayed.\n"
    "The researchers warned that logging threatens the frog's habitat.\n"
    "The study was published in the journal Nature on Monday.",
]


def _module():
    spec = importlib.util.spec_from_file_location("make_planted", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["make_planted"] = mod
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("data")
    (d / "xsumfaith").mkdir()
    lines = [{"id": f"a{i}", "document": a, "summary": "s", "label": 1} for i, a in enumerate(ARTICLES)]
    lines.insert(2, {"id": "dup", "document": ARTICLES[0], "summary": "s", "label": 0})  # the same article again
    lines.append({"id": "nan", "document": math.nan, "summary": "s", "label": 0})  # pandas NaN for a missing text
    with (d / "xsumfaith" / "tiny.jsonl").open("w", encoding="utf-8") as fh:
        for rec in lines:
            fh.write(json.dumps(rec) + "\n")
    return d


def _make(data_dir: Path, out: Path, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "training.make_planted", "--data-dir", str(data_dir), "--files", "xsumfaith/tiny.jsonl",
         "--split", "all", "--per-type", "1", "--faithful", "2", "--out", str(out), *extra],
        capture_output=True, text=True, timeout=300, cwd=REPO)


@pytest.fixture(scope="module")
def generated(data_dir, tmp_path_factory) -> tuple[Path, list[dict]]:
    out = tmp_path_factory.mktemp("out") / "planted.jsonl"
    proc = _make(data_dir, out)
    assert proc.returncode == 0, proc.stderr
    return out, [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]


def test_every_type_once_and_faithful_twice(generated):
    _, recs = generated
    counts = {t: sum(r["error_type"] == t for r in recs) for t in ("none",) + ERROR_TYPES}
    assert counts == {"none": 2, **{t: 1 for t in ERROR_TYPES}}
    assert len({r["summary"] for r in recs}) == len(recs)
    # 4 distinct articles: the duplicate text is kept once and the NaN document is skipped.
    assert {r["document"] for r in recs} <= set(ARTICLES)
    assert len({r["article_id"] for r in recs}) <= 4


def test_same_seed_same_file_other_seed_other_file(data_dir, generated, tmp_path):
    first, _ = generated
    again = tmp_path / "again.jsonl"
    assert _make(data_dir, again).returncode == 0
    assert again.read_bytes() == first.read_bytes()
    other = tmp_path / "other.jsonl"
    assert _make(data_dir, other, "--seed", "7").returncode == 0
    assert other.read_bytes() != first.read_bytes()


def test_records_have_the_xsumfaith_shape_and_load(generated):
    from citefix.metaeval.loaders import load

    path, recs = generated
    for r in recs:
        assert r["n_annotators"] == 1 and r["source_dataset"] == "citefix-planted"
        assert r["label"] == (1 if r["error_type"] == "none" else 0)
        assert r["document"][r["sentence_start"]:r["sentence_end"]] == r["sentence"]
    loaded = load(path)
    assert loaded.shape == "xsumfaith" and len(loaded.items) == len(recs) and not loaded.skipped
    assert [i.field("error_type") for i in loaded.items] == [r["error_type"] for r in recs]


def test_faithful_statements_are_unedited_or_shortened_source_text(generated):
    _, recs = generated
    for r in (r for r in recs if r["error_type"] == "none"):
        assert r["summary"] == r["original"] and r["hallucination_spans"] == [] and r["source_value"] is None
        words = re.findall(r"\w+", r["summary"])
        assert all(w in r["sentence"] for w in words)  # nothing the source sentence does not say


def test_each_error_changes_the_statement_exactly_at_its_spans(generated):
    _, recs = generated
    for r in (r for r in recs if r["error_type"] != "none"):
        s, o = r["summary"], r["original"]
        spans = [(h["start"], h["end"]) for h in r["hallucination_spans"]]
        assert spans and all(h["worker"] == "planted" and h["type"] == r["error_type"] for h in r["hallucination_spans"])
        assert s != o
        assert all(s[a:b] == h["text"] and s[a:b].strip() for (a, b), h in zip(spans, r["hallucination_spans"]))
        if r["error_type"] in ("invented_attribute", "unsupported_addition"):
            (c, d), = r["original_spans"]
            assert c == d  # an insertion: the original text around the point is kept on both sides
            a, b = spans[0]
            assert s[:c] == o[:c] and s.endswith(o[c:]) and a >= c and len(s) - b >= len(o) - c
            inserted = s[a:b]
            assert inserted not in r["document"]
        else:
            # Put the original text back into the spans: the original statement comes out.
            rebuilt, pos = "", 0
            for (a, b), (c, d) in zip(spans, r["original_spans"]):
                rebuilt += s[pos:a] + o[c:d]
                pos = b
            assert rebuilt + s[pos:] == o
        if r["error_type"] in ("number", "date", "entity_swap"):
            (a, b), = spans
            (c, d), = r["original_spans"]
            assert r["source_value"] == o[c:d] and r["source_value"] in r["sentence"]
            assert not re.search(r"(?<![\w.,])" + re.escape(s[a:b]) + r"(?!\w)", r["sentence"])
        if r["error_type"] == "negation":
            (a, b), = spans
            assert r["source_value"] in r["sentence"] and s[a:b] not in r["sentence"]


def test_check_edit_rejects_a_change_outside_the_span():
    mod = _module()
    from citefix.nlp import load_spacy

    arts = [mod.Article(id="a", dataset="x", origin="t", text=ARTICLES[1], split="dev")]
    mod.parse_articles(arts, load_spacy())
    sent = next(s for s in arts[0].sentences if "£40,000" in s.text)
    base = mod.Base(sent, sent.text, "verbatim")
    a = sent.text.index("40,000")
    good = mod._single(base.text, a, a + 6, "45,000", "40,000", "test")
    assert mod.check_edit(base, good, "number") is None
    bad = mod.Edit(good.summary.replace("thieves", "robbers"), good.spans, good.original_spans, "40,000", "test")
    assert mod.check_edit(base, bad, "number") is not None
    same = mod._single(base.text, a, a + 6, "40,000", "40,000", "test")
    assert mod.check_edit(base, same, "number") == "no change"


def test_split_is_a_stable_hash_of_the_text():
    mod = _module()
    assert [mod.split_of(a) for a in ARTICLES] == [mod.split_of(a) for a in ARTICLES]
    assert {mod.split_of(f"article {i}") for i in range(50)} == {"dev", "heldout"}
    assert mod.split_of("article 0") == ("dev" if int(__import__("hashlib").sha256(b"article 0").hexdigest()[:8], 16)
                                         % 100 < 70 else "heldout")


def test_too_few_statements_writes_nothing(data_dir, tmp_path):
    out = tmp_path / "short.jsonl"
    proc = _make(data_dir, out, "--per-type", "40")
    assert proc.returncode == 1 and not out.exists()
    assert "too few statements" in proc.stderr and "Traceback" not in proc.stderr


def _base(mod, text: str, sentence_pos: int = 0):
    from citefix.nlp import load_spacy

    nlp = load_spacy()
    arts = [mod.Article(id="t", dataset="x", origin="t", text=text, split="dev")]
    mod.parse_articles(arts, nlp)
    sent = arts[0].sentences[sentence_pos]
    return mod.Base(sent, sent.text, "verbatim", nlp(sent.text))


def test_role_swap_and_antonym_on_real_parses():
    import random

    mod = _module()
    base = _base(mod, "Liverpool beat Chelsea in the final at Wembley on Saturday.")
    swap = mod.edit_role(base, random.Random(0), "swap")
    assert swap.summary == "Chelsea beat Liverpool in the final at Wembley on Saturday."
    assert [swap.summary[a:b] for a, b in swap.spans] == ["Chelsea", "Liverpool"]
    assert mod.check_edit(base, swap, "role_swap") is None
    base = _base(mod, "The SNP won 56 of the 59 seats at the general election.")
    ant = mod.edit_negation(base, random.Random(0), "antonym")
    assert ant.summary == "The SNP lost 56 of the 59 seats at the general election." and ant.source_value == "won"
    neg = _base(mod, "Police arrested a man in Leeds on Monday.")
    got = mod.edit_negation(neg, random.Random(0))
    assert got.summary == "Police did not arrest a man in Leeds on Monday." and got.source_value == "arrested"
    assert mod.edit_negation(neg, random.Random(0), "antonym") is None  # "arrested" has no antonym in the table
