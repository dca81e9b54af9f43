"""A small case and an evaluation of it that fill every kind of stored row (units, verdicts with evidence and
unsupported spans, scores, a model call), for the store tests (tests/ is on sys.path, so
`from store_helpers import ...`)."""

from __future__ import annotations

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
