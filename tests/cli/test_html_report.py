"""The self-contained HTML report: written by check/refine --html, export --format html and compare --report, checked
as a file (inline CSS/JS only, every unit painted with its stored verdict) and opened in headless Chromium (the
painted spans after the page's script ran, a unit selected as a click selects it, its evidence highlighted in the
source, a word diff between two rounds, and a screenshot). The browser checks skip, saying why, where no Chromium is
installed (Debian: apt-get install -y chromium)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_helpers import cli
from helpers import rows

pytestmark = pytest.mark.slow

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")


def browser() -> str:
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    pytest.skip("no headless Chromium found (looked for " + ", ".join(BROWSERS) + "); install Debian's chromium "
                "package (apt-get install -y chromium) to run the browser checks")


def chromium(*args: str, tmp_path: Path) -> subprocess.CompletedProcess:
    return subprocess.run([browser(), "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           f"--user-data-dir={tmp_path / 'chrome-profile'}", "--virtual-time-budget=3000", *args],
                          capture_output=True, text=True, timeout=120)


def dom(page: Path, fragment: str, tmp_path: Path) -> str:
    r = chromium("--dump-dom", page.as_uri() + fragment, tmp_path=tmp_path)
    assert r.returncode == 0 and "<html" in r.stdout, r.stderr[-2000:]
    return r.stdout


def detail(html: str) -> str:
    m = re.search(r'<div id="detail">(.*?)</div></section>', html, flags=re.S)
    return m.group(1) if m else ""


@pytest.fixture(scope="module")
def refined(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("html")
    db, page = tmp / "r.db", tmp / "refine.html"
    r = cli("refine", "--example", "summary", "--rounds", "2", "--db", str(db), "--html", str(page), tmp_path=tmp)
    assert r.returncode == 0, r.stderr
    return tmp, db, page


def test_the_file_is_self_contained_and_paints_every_stored_verdict(refined):
    tmp, db, page = refined
    text = page.read_text(encoding="utf-8")
    assert "<script src" not in text and "<link" not in text and not re.search(r"""(src|href)=["']?https?:""", text)
    data = json.loads(re.search(r'id="citefix-data">(.*?)</script>', text, flags=re.S).group(1).replace("<\\/", "</"))
    run = rows(db, "select * from runs")[0]
    assert data["best_round"] == run["best_round"]
    for r in rows(db, "select * from rounds"):
        labels = {v["label"] for v in rows(db, "select label from verdicts where round_id = ? and role = 'primary'",
                                           [r["id"]])}
        assert {u["label"] for u in data["rounds"][str(r["n"])]["units"]} <= labels
        assert data["rounds"][str(r["n"])]["text"] == r["text"]
    for label in ("supported", "partial", "unsupported"):
        assert f'<i class="v-{label}">' in text  # the legend
    exported = cli("export", str(run["id"]), "--format", "html", "--db", str(db), tmp_path=tmp)
    assert exported.returncode == 0 and exported.stdout.startswith("<!DOCTYPE html>")


def test_in_chromium_a_unit_shows_its_verdict_and_evidence_in_the_source(refined, tmp_path):
    _, db, page = refined
    run = rows(db, "select * from runs")[0]
    r0 = rows(db, "select id from rounds where run_id = ? and n = 0", [run["id"]])[0]["id"]
    unit = rows(db, "select u.uid, v.score, v.label, v.verifier, v.evidence_text from units u join verdicts v on "
                    "v.unit_row = u.id where u.round_id = ? and v.evidence_text is not null and u.start is not null "
                    "order by u.idx limit 1", [r0])[0]
    html = dom(page, f"#round=0&unit={unit['uid']}", tmp_path)
    painted = re.findall(r'<span class="v v-(\w+)[^"]*" data-units="([^"]*)"', html)
    assert painted and any(unit["uid"] in ids.split() for _, ids in painted)
    shown = detail(html)
    assert f"<b>{unit['uid']}</b>" in shown and f"{unit['score']:.2f}" in shown and unit["verifier"] in shown
    assert unit["label"] in shown
    assert re.search(r'<mark class="ev">' + re.escape(unit["evidence_text"].replace("&", "&amp;")) + "</mark>", html)
    assert re.search(r'class="v v-\w+ sel"', html)  # the painted stretch of the unit is selected


def test_in_chromium_the_word_diff_between_two_rounds(refined, tmp_path):
    _, db, page = refined
    texts = {r["n"]: r["text"] for r in rows(db, "select n, text from rounds")}
    last = max(texts)
    html = dom(page, f"#diff=0,{last}", tmp_path)
    diff = re.search(r'<div class="text diff" id="diff">(.*?)</div>', html, flags=re.S).group(1)
    removed = set(texts[0].split()) - set(texts[last].split())
    if removed:
        assert "<del>" in diff and any(f"<del>{w}</del>" in diff for w in removed)
    same = dom(page, "#diff=0,0", tmp_path)
    assert "<del>" not in re.search(r'id="diff">(.*?)</div>', same, flags=re.S).group(1)


def test_in_chromium_the_screenshot_shows_painted_text(refined, tmp_path):
    _, _, page = refined
    shot = tmp_path / "shot.png"
    r = chromium(f"--screenshot={shot}", "--window-size=1280,1000", page.as_uri(), tmp_path=tmp_path)
    assert r.returncode == 0 and shot.exists() and shot.stat().st_size > 10_000, r.stderr[-2000:]
    import matplotlib.image as mpimg
    import numpy as np

    img = (mpimg.imread(shot)[..., :3] * 255).round().astype(int)
    colours = {"supported": (0xC8, 0xEC, 0xC9), "partial": (0xFF, 0xE9, 0xA8), "unsupported": (0xFF, 0xC2, 0xC2)}
    seen = {k for k, c in colours.items() if (np.abs(img - np.array(c)).sum(axis=-1) <= 6).sum() > 200}
    assert seen, "no verdict colour painted in the screenshot"


def test_cited_answer_page_lists_per_citation_verdicts(tmp_path):
    db, page = tmp_path / "c.db", tmp_path / "cited.html"
    r = cli("check", "--example", "cited_answer", "--db", str(db), "--html", str(page), tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    text = page.read_text(encoding="utf-8")
    assert "<h2>Citations</h2>" in text
    ev = json.loads(rows(db, "select evaluation from rounds")[0]["evaluation"])
    for g in ev["metrics"]["citations"]["groups"]:
        for c in g["citations"]:
            assert f"[{c['id']}] {c['label']}" in text
    html = dom(page, "#unit=u1", tmp_path)
    assert "<b>u1</b>" in detail(html) and "citations" in detail(html)


def test_compare_report_html_inlines_every_chart(tmp_path):
    case = tmp_path / "cases.jsonl"
    src = Path(__file__).resolve().parents[2] / "citefix" / "examples" / "summary.json"
    case.write_text(json.dumps(json.loads(src.read_text())) + "\n")
    r = cli("compare", str(case), "--strategies", "acu,none", "--rounds", "1", "--report", str(tmp_path / "out"),
            "--db", str(tmp_path / "c.db"), tmp_path=tmp_path)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "out"
    for name in ("scores.png", "unsupported.png", "edits.png", "report.html"):
        assert (out / name).exists(), name
    text = (out / "report.html").read_text(encoding="utf-8")
    assert text.count("data:image/png;base64,") == 3 and "Mean score per round" in text and "<script src" not in text
