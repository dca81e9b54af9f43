"""--executor local --workers N: cases evaluated in N local worker processes, the store written by this
process alone; the same printed scores and stored results as one process (one torch thread each). Scores are compared
to 1e-6: which worker gets which case depends on timing, and a text's embedding can differ from the 7th decimal on
with the batch it was first encoded in (the padding changes the matrix shapes): up to 4e-7 over 1,000 cases."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest
from cli_helpers import ARTICLE, cli
from executor_helpers import (
    RECS,
    TEXTS,
    assert_same,
    cases_file,
    compare_runs,
    labels_file,
    stored_runs,
    without_timings,
)
from helpers import rows

ONE_THREAD = {"OMP_NUM_THREADS": "1", "CITEFIX_TORCH_THREADS": "1"}  # as each worker runs


@pytest.mark.slow
def test_workers_print_and_store_what_one_process_does(tmp_path):
    path = cases_file(tmp_path)
    one = cli("check", str(path), "--json", "--db", str(tmp_path / "one.db"), tmp_path=tmp_path, extra_env=ONE_THREAD)
    assert one.returncode == 0, one.stderr
    two = cli("check", str(path), "--json", "--workers", "2", "--db", str(tmp_path / "two.db"), tmp_path=tmp_path)
    assert two.returncode == 0, two.stderr
    assert "starting 2 worker processes" in two.stderr and "Traceback" not in two.stderr
    a = [json.loads(ln) for ln in one.stdout.splitlines()]
    b = [json.loads(ln) for ln in two.stdout.splitlines()]
    assert len(b) == len(TEXTS) and [r["case_id"] for r in b] == [r["case_id"] for r in a]
    assert_same([[[v["unit_id"], v["score"], v["label"]] for v in r["verdicts"]] for r in b],
                 [[[v["unit_id"], v["score"], v["label"]] for v in r["verdicts"]] for r in a])
    assert_same([r["score"] for r in b], [r["score"] for r in a])
    assert_same(stored_runs(tmp_path / "two.db"), stored_runs(tmp_path / "one.db"))
    assert len(rows(tmp_path / "two.db", "select * from runs")) == len(TEXTS) - 1  # the twin c4 reuses c0's result
    again = cli("check", str(path), "--json", "--workers", "2", "--db", str(tmp_path / "two.db"), tmp_path=tmp_path)
    assert again.returncode == 0 and f"{len(TEXTS)} of {len(TEXTS)} cases reused" in again.stderr, again.stderr


@pytest.mark.slow
def test_workers_meta_eval_gives_the_one_process_statistics(tmp_path):
    path, n = labels_file(tmp_path)
    common = ["meta-eval", str(path), "--verifier", "offline,lexical", "--bootstrap", "50", "--json", "--no-store"]
    one = cli(*common, tmp_path=tmp_path, extra_env=ONE_THREAD)
    two = cli(*common, "--workers", "2", tmp_path=tmp_path)
    assert one.returncode == 0, one.stderr
    assert two.returncode == 0 and "Traceback" not in two.stderr, two.stderr
    a, b = without_timings(one.stdout), without_timings(two.stdout)
    assert_same(b, a)
    assert len(b["scores"]) == 2 * n


@pytest.mark.slow
def test_workers_compare_stores_the_one_process_runs(tmp_path):
    cases = tmp_path / "cases.jsonl"
    cases.write_text("\n".join(json.dumps(r) for r in RECS) + "\n")

    def compare(db, out, *extra):
        return cli("compare", str(cases), "--strategies", "acu,none", "--rounds", "2", "--report", str(tmp_path / out),
                   "--db", str(tmp_path / db), *extra, tmp_path=tmp_path, extra_env=ONE_THREAD)

    one = compare("one.db", "out_one")
    assert one.returncode == 0, one.stderr
    two = compare("two.db", "out_two", "--workers", "2")
    assert two.returncode == 0 and "Traceback" not in two.stderr, two.stderr
    a, b = compare_runs(tmp_path / "one.db"), compare_runs(tmp_path / "two.db")
    assert len(a) == len(RECS) * 2 and any(len(r["rounds"]) > 1 for r in a)
    assert_same(b, a)
    assert two.stdout.replace("two.db", "X.db") == one.stdout.replace("one.db", "X.db")


@pytest.mark.parametrize("args, needle", [
    (["--workers", "0"], "--workers 0: must be 1 or more"),
    (["--workers", "2", "--executor", "ray"], "with --executor ray use --ray-workers"),
    (["--workers", "2", "--max-cost", "1"], "--max-cost counts spend in this process only; use it without --workers"),
])
def test_workers_flag_mistakes_are_clear(tmp_path, args, needle):
    r = cli("check", str(cases_file(tmp_path)), *args, "--db", str(tmp_path / "x.db"), tmp_path=tmp_path)
    assert r.returncode == 2 and needle in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert not (tmp_path / "x.db").exists()


@pytest.mark.slow
def test_workers_keep_input_order_when_cases_of_two_sources_interleave(tmp_path):
    """Cases sharing a source go to one worker together; the results still come back in input order."""
    other = "The museum reopened on Friday after a two-year refit costing £4 million, its director said."
    texts = [(ARTICLE, "The depot closed in 1987."), (other, "The museum reopened on Friday."),
             (ARTICLE, "The plan will cost £9 million."), (other, "The refit cost £6 million."),
             (other, "Its director said the refit took two years."), (ARTICLE, "Councillors voted 9 to 4.")]
    path = tmp_path / "mixed.jsonl"
    path.write_text("\n".join(json.dumps({"id": f"m{i}", "sources": [{"id": "1", "text": src}], "text": t})
                              for i, (src, t) in enumerate(texts)) + "\n")
    one = cli("check", str(path), "--json", "--db", str(tmp_path / "one.db"), tmp_path=tmp_path, extra_env=ONE_THREAD)
    two = cli("check", str(path), "--json", "--workers", "2", "--db", str(tmp_path / "two.db"), tmp_path=tmp_path)
    assert one.returncode == 0 and two.returncode == 0, (one.stderr, two.stderr)
    a = [json.loads(ln) for ln in one.stdout.splitlines()]
    b = [json.loads(ln) for ln in two.stdout.splitlines()]
    assert [r["case_id"] for r in b] == [f"m{i}" for i in range(len(texts))] == [r["case_id"] for r in a]
    assert_same([[[v["unit_id"], v["score"], v["label"]] for v in r["verdicts"]] for r in b],
                 [[[v["unit_id"], v["score"], v["label"]] for v in r["verdicts"]] for r in a])
    assert [r["id"] for r in rows(tmp_path / "two.db", "select id from runs order by id")] == list(range(1, 7))


def _spawned_workers(pid: int) -> list[int]:
    """The multiprocessing workers among `pid`'s children (not its resource tracker), from /proc."""
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().decode(errors="replace")
        except OSError:
            continue
        if int(stat[stat.rindex(")") + 2:].split()[1]) == pid and "spawn_main" in cmd and "resource_tracker" not in cmd:
            out.append(int(entry))
    return out


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="finds the worker processes through /proc")
def test_a_worker_that_dies_is_one_line_and_exit_2_and_finished_cases_stay_stored(tmp_path):
    path = tmp_path / "many.jsonl"
    path.write_text("\n".join(json.dumps({"id": f"k{i}", "sources": [{"id": "1", "text": f"{ARTICLE} Item {i}."}],
                                          "text": TEXTS[i % len(TEXTS)]}) for i in range(400)) + "\n")
    env = {**os.environ, "CITEFIX_HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "config"),
           "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    db = tmp_path / "k.db"
    proc = subprocess.Popen([sys.executable, "-m", "citefix.cli", "check", str(path), "--json", "--workers", "2",
                             "--db", str(db)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
                            cwd=tmp_path)
    def stored_runs() -> int:
        try:  # the file can exist a moment before its tables do
            return rows(db, "select count(*) as n from runs")[0]["n"] if db.exists() else 0
        except sqlite3.OperationalError:
            return 0

    deadline = time.time() + 240
    while time.time() < deadline and stored_runs() < 3:
        time.sleep(0.5)
    workers = _spawned_workers(proc.pid)
    assert workers, "no worker process found"
    os.kill(workers[0], signal.SIGKILL)
    out, err = proc.communicate(timeout=240)
    assert proc.returncode == 2, err
    lines = [ln for ln in err.splitlines() if ln.startswith("citefix: error:")]
    assert len(lines) == 1 and "a worker process died" in lines[0] and "fewer --workers" in lines[0], err
    assert "Traceback" not in err
    done = rows(db, "select count(*) as n from runs")[0]["n"]
    assert 3 <= done < 400 and len(out.splitlines()) == done  # each stored case was printed; none passed off as done


@pytest.mark.slow
def test_python_api_workers_give_the_one_process_results(tmp_path):
    """citefix.check(FILE, workers=2) and citefix.meta_eval(FILE, workers=2) from a user's script (with the
    __main__ guard spawn needs) give what one process gives."""
    cases = cases_file(tmp_path)
    labels, _ = labels_file(tmp_path)
    script = tmp_path / "use_api.py"
    script.write_text(
        "import json, sys\n"
        "import citefix\n"
        "from citefix.executor import ProcessEvaluator\n\n"
        "used = []  # the worker pool's calls, counted (each still runs as it is)\n"
        "for name in ('map', 'score_records'):\n"
        "    def counted(self, *a, _f=getattr(ProcessEvaluator, name), _n=name, **k):\n"
        "        used.append(_n)\n"
        "        return _f(self, *a, **k)\n"
        "    setattr(ProcessEvaluator, name, counted)\n\n"
        "if __name__ == '__main__':\n"
        "    n = int(sys.argv[1])\n"
        f"    rs = citefix.check({str(cases)!r}, db=sys.argv[2], workers=n)\n"
        f"    m = citefix.meta_eval({str(labels)!r}, 'offline', store=False, bootstrap=50, workers=n)\n"
        "    print(json.dumps({'scores': [r.score for r in rs], 'ids': [r.case_id for r in rs],\n"
        "                      'runs': [r.run_id for r in rs], 'stats': [s.model_dump() for s in m.stats]}))\n"
        "    print(json.dumps(used), file=sys.stderr)\n")
    env = {**os.environ, **ONE_THREAD, "CITEFIX_HOME": str(tmp_path / "home"), "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1"}
    out = {}
    for n in (1, 2):
        r = subprocess.run([sys.executable, str(script), str(n), str(tmp_path / f"api{n}.db")], capture_output=True,
                           text=True, env=env, cwd=tmp_path, timeout=300)
        assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
        out[n] = json.loads(r.stdout)
        assert json.loads(r.stderr.strip().splitlines()[-1]) == ([] if n == 1 else ["map", "score_records"])
    assert out[2]["ids"] == out[1]["ids"] == [f"c{i}" for i in range(len(TEXTS))]
    assert len(out[2]["runs"]) == len(TEXTS) and len(out[2]["stats"]) > 0
    assert_same(out[2], out[1])


def test_a_worker_drops_the_sources_no_later_group_needs_and_keeps_shared_ones(monkeypatch):
    """check --workers: cases are grouped by their sources; after a group the worker forgets the sources no other
    group has (their memory is not needed again) and keeps one that a later group shares — real spaCy and MiniLM."""
    import hashlib

    from citefix import executor
    from citefix.config import Settings
    from citefix.models import Case, Source

    other = "The museum reopened on Friday after a two-year refit costing £4 million, its director said."
    a, b = Source(id="1", text=ARTICLE), Source(id="2", text=other)
    cases = [Case(id="c0", sources=[a], text="The depot closed in 1987."),
             Case(id="c1", sources=[a, b], text="The museum reopened on Friday."),
             Case(id="c2", sources=[a], text="Councillors voted 9 to 4.")]
    key = {s.text: hashlib.sha1(s.text.encode("utf-8")).hexdigest() for s in (a, b)}
    groups = executor.source_groups(cases)
    # c0 and c2 share exactly one source set; the article is also in c1's set, the museum text only there
    assert groups == [([0, 2], []), ([1], [key[other]])]
    monkeypatch.setattr(executor, "_worker", executor._Worker(executor._portable_settings(Settings()), 1))
    first = executor._evaluate_group([cases[i] for i in groups[0][0]], groups[0][1])
    assert [r[0] for r in first] == ["ok", "ok"]
    cache = executor._worker._pipeline.verifier._cache
    assert set(cache) == {key[ARTICLE]}  # shared with the next group: kept
    second = executor._evaluate_group([cases[1]], groups[1][1])
    assert second[0][0] == "ok" and set(cache) == {key[ARTICLE]}  # the museum text is dropped once its group is done
    assert executor._worker._pipeline.verifier._cached_bytes == cache[key[ARTICLE]].nbytes()


def test_meta_eval_and_compare_workers_hand_freed_pages_back(monkeypatch):
    """A worker trims the C heap after each meta-eval chunk and each refined run, as after each checked case, and
    returns what the work returned."""
    from citefix import executor

    trims = []
    monkeypatch.setattr(executor, "_trim_heap", lambda: trims.append(1))

    class Worker:
        def score_records(self, spec, jobs, options):
            return ("ok", [len(jobs)])

        def refine_run(self, case, spec):
            return ("ok", case)

    monkeypatch.setattr(executor, "_worker", Worker())
    assert executor._score_records({}, [1, 2, 3], {}) == ("ok", [3]) and trims == [1]
    assert executor._refine_run("case", {}) == ("ok", "case") and trims == [1, 1]
    monkeypatch.undo()
    executor._trim_heap()  # the real one: glibc's malloc_trim here, nothing where there is none; never raises
