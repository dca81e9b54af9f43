"""A small case and an evaluation of it that fill every kind of stored row (units, verdicts with evidence and
unsupported spans, scores, a model call), for the store tests; and the scripts of the processes that share one store
(a TUI session driver, a holder of the write lock), run by tests/store/test_store_concurrency.py and, at scale, by
bench/store_writers.py. Self-contained: the tests import it as `from store_helpers import ...` (tests/ is on
sys.path), the benchmarks as `from tests.store_helpers import ...` from the repository root."""

from __future__ import annotations

import textwrap

from citefix.models import CallRecord, Case, Evaluation, Evidence, Source, Unit, Verdict


def make_case() -> Case:
    return Case(id="c1", sources=[Source(id="1", title="t", text="The depot closed in 1987. It cost £2.4 million.")],
                text="The depot closed in 1987 and cost £3 million.")


def make_eval(case: Case) -> Evaluation:
    units = [Unit(id="u1", text="The depot closed in 1987", kind="clause", decomposer="d", start=0, end=24),
             Unit(id="u2", text="The depot cost £3 million", kind="clause", decomposer="d", start=29, end=45)]
    verdicts = [
        Verdict(unit_id="u1", verifier="v", score=0.9, label="supported",
                evidence=Evidence(source_id="1", start=0, end=25, text="The depot closed in 1987.")),
        Verdict(unit_id="u2", verifier="v", score=0.1, label="unsupported", unsupported_spans=[(38, 45)]),
    ]
    calls = [CallRecord(purpose="acu_verify", model="m", messages=[{"role": "user", "content": "x"}], response="Yes",
                        prompt_tokens=10, completion_tokens=1, cost=0.001)]
    return Evaluation(case_id=case.id, kind="summary", text=case.text, units=units, verdicts=verdicts, score=0.5,
                      scores={"unit_mean": 0.5}, decomposer="d", verifier="v", calls=calls)


TUI_WRITER = textwrap.dedent(
    """
    import json, sys
    sys.path.insert(0, sys.argv[4])  # the tests folder: refine_fakes' scripted model
    from citefix.config import Settings
    from citefix.llm.fake import ScriptedTransport
    from refine_fakes import make_case, refine_responder
    from citefix.tui.session import Session, Workbench

    path, who, m = sys.argv[1], sys.argv[2], int(sys.argv[3])
    # the TUI's own objects, as the app drives them (minus Textual): one Workbench, a Session per opened case
    bench = Workbench(Settings(llm="fake/model", db=path, concurrency=1), transport=ScriptedTransport(refine_responder()))
    out = []
    for i in range(m):
        s = Session(bench, make_case(case_id=f"plan-{i % 3}"))  # the same cases in every process
        snap = s.check()                                                 # round 0
        s.edit(snap.text.replace(", the mayor chairs the board", ""))
        s.check()                                                        # round 1: the edited text
        s.propose()
        s.accept()                                                       # round 2: the accepted revision
        snap = s.auto_refine(2)                                          # round 3, then all supported
        s.close()
        out.append({"run": s.run_id, "rounds": [r.n for r in snap.rounds]})
    print(json.dumps({"who": who, "runs": out}))
    """
)

HOLDER = textwrap.dedent(
    """
    import sqlite3, sys, time
    conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=60)
    while True:  # wait until the writers have made the schema, then hold the write lock
        try:
            if conn.execute("select count(*) from sqlite_master where name = 'runs'").fetchone()[0]:
                break
        except sqlite3.OperationalError:
            pass
        time.sleep(0.05)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("insert into verdict_cache(key, verifier, value, created) values ('holder', 'x', '{}', 'now')")
    print("holding", flush=True)
    time.sleep(float(sys.argv[2]))
    conn.execute("COMMIT")
    """
)
