"""The fault and cancel matrix: `check`, `refine` and `compare` against a loopback model server that dies (every
later request refused) or a Ctrl-C that arrives, at each step of a round — cutting the text into units, verifying
them, revising. After each, the exit code, the store, `citefix runs`, `citefix show --rounds` and both exports say the
same thing: which rounds exist, which is the best (never a partly checked one), and how the run ended. The table in
docs/faults.md is this matrix."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import threading

import pytest
from cli_helpers import citefix_main
from loopback import Fault, LoopbackLLM, messages_responder
from refine_cli_helpers import cli_env, write_case
from refine_fakes import refine_responder

from citefix.store.rows import NO_BEST

MODEL = "openai/test-model"


def step_of(request: dict) -> str:
    last = request["messages"][-1]["content"]
    if "<<<FEEDBACK" in last:
        return "revise"
    if "Rate the consistency" in last:
        return "critique"
    return "decompose" if "<<<TEXT" in last else "verify"


class OnCue(LoopbackLLM):
    """A model server that, at the n-th request of one step, dies (that request dropped, the server shut down, every
    later request refused) or sends this process SIGINT (a Ctrl-C while the request is in flight)."""

    def __init__(self, responder, *, cue: tuple[str, int], event: str):
        super().__init__(responder)
        self.cue, self.event, self.seen, self.fired = cue, event, {}, False

    def _next_fault(self):
        if self.fired and self.event == "death":
            return Fault("close")
        step = step_of(self.requests[-1])
        self.seen[step] = self.seen.get(step, 0) + 1
        if (step, self.seen[step]) != self.cue or self.fired:
            return super()._next_fault()
        self.fired = True
        if self.event == "death":
            threading.Thread(target=self.stop, daemon=True).start()
            return Fault("close")
        os.kill(os.getpid(), signal.SIGINT)
        return Fault("slow", 0.5)  # the interrupt lands while the request waits


# (command, step, n-th request of that step, event) -> the rounds each run keeps, and the best of each
CELLS = {
    ("check", "decompose", 1, "death"): [{0: "partial"}],
    ("check", "verify", 2, "death"): [{0: "partial"}],
    ("check", "decompose", 1, "cancel"): [{}],
    ("check", "verify", 2, "cancel"): [{}],
    ("refine", "verify", 2, "death"): [{0: "partial"}],
    ("refine", "revise", 1, "death"): [{0: "done"}],
    ("refine", "decompose", 2, "death"): [{0: "done", 1: "partial"}],
    ("refine", "revise", 1, "cancel"): [{0: "done"}],
    ("refine", "decompose", 2, "cancel"): [{0: "done"}],
    ("compare", "revise", 1, "death"): [{0: "done"}, {0: "done"}],
    ("compare", "decompose", 2, "death"): [{0: "done", 1: "partial"}, {0: "done"}],
    ("compare", "revise", 2, "cancel"): [{0: "done", 1: "done"}],
}


def _run(tmp_path, command: str, cue: tuple[str, int], event: str):
    common = ["--llm", MODEL, "--db", tmp_path / "r.db", "--concurrency", "1", "--llm-attempts", "2",
              "--llm-backoff-max", "0.05"]
    args = {"check": ["check", write_case(tmp_path)],
            "refine": ["refine", write_case(tmp_path), "--rounds", "3"],
            "compare": ["compare", write_case(tmp_path), "--strategies", "acu,critique", "--rounds", "2", "--report",
                        tmp_path / "report"]}[command]
    before = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a shell: Ctrl-C raises
    try:
        with OnCue(messages_responder(refine_responder()), cue=cue, event=event) as srv:
            env = cli_env(tmp_path, srv)
            result = citefix_main(*args, *common, env=env, cwd=tmp_path)
    except KeyboardInterrupt:
        pytest.fail("the interrupt escaped citefix's command")
    finally:
        signal.signal(signal.SIGINT, before)
    assert srv.fired, f"the cue {cue} never came: {srv.seen}"
    return result, env, srv.base_url


@pytest.mark.parametrize("cell", list(CELLS), ids=lambda c: "-".join(map(str, c)))
def test_after_a_fault_or_cancel_the_store_and_every_view_agree(tmp_path, cell):
    command, step, n, event = cell
    result, env, server = _run(tmp_path, command, (step, n), event)
    db = tmp_path / "r.db"

    def cli(*args):
        out = citefix_main(*args, "--db", db, env=env, cwd=tmp_path)
        assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
        return out.stdout

    assert "Traceback" not in result.stderr, result.stderr
    if event == "death":
        assert result.returncode == 3, result.stderr
        # the cause is named (a compare names each unfinished run and its ending, and how to retry them)
        assert ("kept failing after retries" in result.stderr if command != "compare" else
                "did not finish" in result.stderr and "llm_error" in result.stderr), result.stderr
    else:
        assert result.returncode == 130, result.stderr
        assert "interrupted; completed work is kept in the store" in result.stderr

    con = sqlite3.connect(db)
    con.row_factory = sqlite3.Row
    runs = [dict(r) for r in con.execute("select id, status, stop_reason, best_round from runs order by id")]
    assert len(runs) == len(CELLS[cell]), runs
    # every call that reached a server, answered or failed, is logged with the server it went to (a call answered
    # from the cache went nowhere)
    bases = {r[0] for r in con.execute("select distinct api_base from calls where cached = 0")}
    assert bases == {server} or (event == "cancel" and not bases), bases
    listed = {int(line.split()[0]): line.split() for line in cli("runs").splitlines()[1:] if line.strip()}
    for run, expected in zip(runs, CELLS[cell]):
        rounds = {r["n"]: dict(r) for r in con.execute("select n, status, score from rounds where run_id = ?",
                                                        (run["id"],))}
        assert {k: r["status"] for k, r in rounds.items()} == expected, (run, rounds)
        # how the run ended: the store, the runs listing and the exports
        if event == "death":
            assert (run["status"], run["stop_reason"]) == ("failed", "llm_error"), run
        else:
            assert run["status"] == "interrupted", run
        complete = [k for k, s in expected.items() if s == "done"]
        best = max(complete, key=lambda k: rounds[k]["score"]) if complete else None
        assert run["best_round"] == best, run
        row = listed[run["id"]]
        assert int(row[5]) == len(expected) and row[8] == run["status"], row
        last = f"{rounds[max(complete)]['score']:.2f}" if complete else "—"
        assert row[7] == last, (row, rounds)

        shown = cli("show", str(run["id"]), "--rounds")
        if not expected:
            assert f"run {run['id']} has no stored round: it is interrupted" in shown, shown
        else:
            lines = [ln for ln in shown.splitlines() if ln.startswith("round ")]
            assert [int(ln.split()[1].rstrip(":")) for ln in lines] == sorted(expected), shown
            assert [ln.endswith("<- best") for ln in lines] == [k == best for k in sorted(expected)], shown
            assert f"best round: {best if best is not None else NO_BEST}" in shown, shown
        exported = json.loads(cli("export", str(run["id"]), "--format", "json"))
        assert (exported["run"]["status"], exported["run"]["best_round"]) == (run["status"], best)
        assert [r["n"] for r in exported["rounds"]] == sorted(expected)
        md = cli("export", str(run["id"]), "--format", "md")
        assert f"- status: {run['status']}" in md
        if expected:
            assert f"- best round: {best if best is not None else NO_BEST}" in md, md
