"""Incremental rounds: how much of a round is re-verified when a revision touches one sentence.

A ten-sentence summary (three flagged facts in three sentences) is refined with the ACU strategy; the scripted model
(citefix.llm.fake.ScriptedTransport) lists ACUs per sentence, answers P(Yes), and revises by rewording one flagged
piece per round from the source — a one-sentence edit. For each round the script prints the units, how many verdicts were verified
afresh, and the model calls that reached the model (the transport), split into ACU generation, verification and
revision; the goal is that a round's evaluation makes at most 20% of round 0's calls.

Three set-ups: the LLM path with the verdict cache (default), the LLM path with only the store's LLM call cache
(incremental=False: identical requests answered from the cache, but still looked up and logged), and the offline path
(spaCy clauses + the offline verifier: no call cache, so the verdict cache is what makes it incremental; the same
scripted edits are applied every round through the `none` strategy, whatever the offline verifier flags).

    .venv/bin/python -m bench.bench_incremental
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from citefix.config import Settings
from citefix.llm.fake import ScriptedTransport, yes_answer
from citefix.models import Case, Source
from citefix.pipeline import build_pipeline, session_parts
from citefix.revision import StopRules, refine
from citefix.store import Store

SOURCE = """The town council of Harwick approved a plan on Monday to turn the disused Millbrook railway depot into a park.
The depot closed in 1987 and has stood empty since. Councillors voted 9 to 4 in favour of the plan, which will cost
£2.4 million. Most of the money will come from a regional regeneration fund. Council leader Priya Natarajan said the
park would give families in the east of the town their first large green space. Work is expected to begin next spring
and to take about eighteen months. The old engine shed will be kept and restored as a workshop. Local groups will
repair bicycles, furniture and electrical goods there. Opposition councillor Tom Leary voted against the plan. He said
the land should have been used for affordable housing. A public consultation last year drew more than 1,200 responses,
and three quarters of them supported a park on the site."""

SENTENCES = [
    "Harwick council approved a plan on Monday, the plan turns the Millbrook depot into a park.",
    "The depot closed in 1987, it has stood empty since.",
    "Councillors voted 9 to 4, the plan costs £2.4 million, the mayor chairs the board.",
    "Most of the money comes from a regional fund.",
    "Priya Natarajan leads the council, she said families would get a green space.",
    "Work begins next spring, it will take two years.",
    "The engine shed will be restored, it becomes a workshop.",
    "Local groups will repair bicycles there, they will repair furniture.",
    "Tom Leary voted against the plan, he wanted affordable housing, he is 5 million years old.",
    "A consultation drew 1,200 responses, most supported a park.",
]
TEXT = " ".join(SENTENCES)
FLAGGED = ("chairs the board", "two years", "5 million years")


def between(text: str, a: str, b: str) -> str:
    return text.split(a, 1)[1].split(b, 1)[0].strip()


FIXES = {"the mayor chairs the board": "the vote was on Monday", "it will take two years": "it will take eighteen months",
         "he is 5 million years old": "he opposed the plan"}


def revise_one_sentence(text: str) -> str:
    """Reword the first flagged comma-piece from the source: an edit confined to one sentence."""
    for bad, good in FIXES.items():
        if bad in text:
            return text.replace(bad, good, 1)
    return text


def respond(messages):
    last = messages[-1]["content"]
    if "<<<FEEDBACK" in last:
        return revise_one_sentence(between(last, "<<<TEXT", "TEXT>>>"))
    if "<<<TEXT" in last:
        body = between(last, "<<<TEXT", "TEXT>>>").rstrip(".")
        return "\n".join("- " + s.strip() for s in body.split(",") if s.strip())
    statement = last.split("<<<STATEMENT")[-1]
    return yes_answer(0.08 if any(f in statement for f in FLAGGED) else 0.93)


def kind(req) -> str:
    last = req["messages"][-1]["content"]
    return "revise" if "<<<FEEDBACK" in last else "generate" if "<<<TEXT" in last else "verify"


def llm_path(incremental: bool) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.db")
        transport = ScriptedTransport(respond)
        pipeline = build_pipeline(Settings(llm="bench/model", concurrency=1), store, transport=transport)
        marks: list[int] = []
        per_round: list[dict] = []

        def on_event(name, data):
            if name == "round_started":
                marks.append(len(transport.requests))
            if name == "units_scored":
                per_round.append({"round": data["round"], "units": data["n_units"], "verified": data["verified"],
                                  "reused": data["reused"], "score": data["score"]})

        case = Case(id="ten", sources=[Source(id="1", text=SOURCE)], text=TEXT)
        parts = session_parts(case.kind, pipeline=pipeline, strategy="acu", reviser="llm", store=store,
                              incremental=incremental)
        res = refine(case, parts, store=store, rules=StopRules(max_rounds=5), on_event=on_event)
        # requests per round: from one round_started to the next (a round's revision belongs to it)
        bounds = marks + [len(transport.requests)]
        for i, r in enumerate(per_round):
            reqs = transport.requests[bounds[i]: bounds[i + 1]]
            r["calls"] = {k: sum(kind(x) == k for x in reqs) for k in ("generate", "verify", "revise")}
        # revision requests happen before round_started of the round they produce: move them there
        for i in reversed(range(len(per_round) - 1)):
            per_round[i + 1]["calls"]["revise"] = per_round[i]["calls"]["revise"]
        per_round[0]["calls"]["revise"] = 0
        logged = {}
        for c in store.calls(res.run_id):
            logged.setdefault(c.round_id, [0, 0])[bool(c.cached)] += 1
        ids = [r.id for r in store.rounds(res.run_id)]
        for r, rid in zip(per_round, ids):
            r["logged"], r["cache_hits"] = logged.get(rid, [0, 0])
        store.close()
        return per_round


def offline_path(incremental: bool) -> list[dict]:
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "bench.db")
        pipeline = build_pipeline(Settings(), store)
        from citefix.llm.client import LLMClient
        from citefix.revision.revise import LLMReviser

        reviser = LLMReviser(LLMClient("bench/reviser", transport=ScriptedTransport(respond)))  # same edits, offline checks
        per_round: list[dict] = []
        started = {}

        def on_event(name, data):
            if name == "round_started":
                started[data["round"]] = time.perf_counter()
            if name == "units_scored":
                per_round.append({"round": data["round"], "units": data["n_units"], "verified": data["verified"],
                                  "reused": data["reused"], "score": data["score"],
                                  "seconds": time.perf_counter() - started[data["round"]]})

        case = Case(id="ten", sources=[Source(id="1", text=SOURCE)], text=TEXT)
        parts = session_parts(case.kind, pipeline=pipeline, strategy="none", reviser=reviser, store=store,
                              incremental=incremental)
        refine(case, parts, store=store, rules=StopRules(max_rounds=5, patience=None), on_event=on_event)
        store.close()
        return per_round


def show_llm(title: str, rounds: list[dict]) -> None:
    print(f"\n{title}")
    print(f"{'round':>5} {'units':>5} {'re-verified':>12} {'generate':>8} {'verify':>6} {'eval calls':>10} "
          f"{'vs round 0':>10} {'revise':>6} {'cache hits':>10} {'score':>6}")
    base = None
    for r in rounds:
        ev_calls = r["calls"]["generate"] + r["calls"]["verify"]
        base = base if base is not None else ev_calls
        verified = r["verified"] if r["verified"] is not None else r["units"]
        share = f"{verified}/{r['units']} ({verified / r['units']:.0%})" if r["units"] else "—"
        print(f"{r['round']:>5} {r['units']:>5} {share:>12} {r['calls']['generate']:>8} {r['calls']['verify']:>6} "
              f"{ev_calls:>10} {ev_calls / base:>10.0%} {r['calls']['revise']:>6} {r['cache_hits']:>10} {r['score']:>6.3f}")


def warm_up() -> None:
    """Load spaCy and MiniLM once, so the offline timings are of rounds, not of model loading."""
    from citefix.evaluate import evaluate

    p = build_pipeline(Settings())
    case = Case(id="warm", sources=[Source(id="1", text="A cat sat on the mat.")], text="A cat sat on the mat.")
    evaluate(case, decomposer=p.decomposer_for("summary"), verifier=p.verifier)


def main() -> None:
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    print(f"ten-sentence summary, {len(FLAGGED)} flagged facts in 3 sentences; each revision rewords one (one-sentence edit)")
    show_llm("LLM path, verdict cache + LLM call cache (default):", llm_path(True))
    show_llm("LLM path, LLM call cache only (incremental=False; 're-verified' counts cached look-ups too):", llm_path(False))
    warm_up()
    for incremental in (True, False):
        rounds = offline_path(incremental)
        print(f"\noffline path, spaCy clauses + offline verifier, same edits ({'verdict cache' if incremental else 'no verdict cache'}):")
        print(f"{'round':>5} {'units':>5} {'re-verified':>12} {'seconds':>8} {'score':>6}")
        for r in rounds:
            verified = r["verified"] if r["verified"] is not None else r["units"]
            share = f"{verified}/{r['units']} ({verified / r['units']:.0%})" if r["units"] else "—"
            print(f"{r['round']:>5} {r['units']:>5} {share:>12} {r['seconds']:>8.2f} {r['score']:>6.3f}")


if __name__ == "__main__":
    main()
