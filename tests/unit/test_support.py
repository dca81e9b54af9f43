"""Support levels from unit verdicts, parsing of LLM support answers, and the LLM support judge on a scripted model."""

from __future__ import annotations

import pytest

from citefix.cited.support import (
    LEVEL_VALUE,
    LLMSupportJudge,
    SupportSettings,
    level_from_score,
    level_from_value,
    parse_continuous,
    parse_discrete,
    support_from_verdicts,
    support_table,
)
from citefix.llm.client import LLMClient
from citefix.llm.fake import ScriptedTransport
from citefix.models import Case, Source, Unit, Verdict
from citefix.prompting import load_prompt
from citefix.verify.base import Verifier


def V(uid, score, label=None, target=("1",), error=None):
    lab = label or ("error" if error else ("supported" if score >= 0.5 else "unsupported"))
    return Verdict(unit_id=uid, verifier="t", score=None if error else score, label=lab, target=list(target),
                   error=error)


# --- levels ------------------------------------------------------------------------------------------------------------


def test_all_some_none():
    assert support_from_verdicts([V("a", 0.9), V("b", 0.8)]).level == "full"
    r = support_from_verdicts([V("a", 0.9), V("b", 0.1)])
    assert (r.level, r.value, r.share, r.unsupported_ids) == ("partial", 1, 0.5, ["b"])
    assert support_from_verdicts([V("a", 0.2), V("b", 0.1)]).level == "none"


def test_thresholds_are_settings():
    vs = [V("a", 0.9), V("b", 0.9), V("c", 0.9), V("d", 0.1)]
    assert support_from_verdicts(vs).level == "partial"
    assert support_from_verdicts(vs, SupportSettings(full_at=0.75)).level == "full"
    assert support_from_verdicts([V("a", 0.6)], SupportSettings(supported_at=0.7)).level == "none"
    assert support_from_verdicts([V("a", 0.9), V("b", 0.1), V("c", 0.1)], SupportSettings(none_at=0.34)).level == "none"


def test_a_partial_verdict_makes_a_partial_pair():
    assert support_from_verdicts([V("a", 0.4, label="partial")]).level == "partial"


def test_errors_are_left_out_and_reported():
    r = support_from_verdicts([V("a", 0.9), V("b", 0.0, error="timeout")])
    assert r.level == "full" and r.units == 1 and r.errors == ["timeout"]
    r = support_from_verdicts([V("a", 0.0, error="timeout")])
    assert r.level is None and "failed" in r.message
    assert support_from_verdicts([]).message == "no atomic units to judge"


def test_support_table_pairs_statements_with_citations():
    atoms = {"s1": ["a1", "a2"], "s2": ["a3"]}
    verdicts = [V("a1", 0.9, target=["1"]), V("a2", 0.1, target=["1"]), V("a1", 0.9, target=["2"]),
                V("a2", 0.9, target=["2"]), V("a3", 0.1, target=["1"]), V("zz", 0.9)]
    table = support_table(atoms, verdicts)
    assert [(p.statement_id, p.citation, p.level) for p in table] == [
        ("s1", "1", "partial"), ("s1", "2", "full"), ("s2", "1", "none")
    ]


def test_levels_from_scores_and_values():
    assert [level_from_score(x) for x in (0.9, 0.5, 0.1)] == ["full", "partial", "none"]
    assert level_from_score(0.5, full_at=0.5) == "full"
    assert [level_from_value(v) for v in (0, 1, 2)] == ["none", "partial", "full"]
    assert LEVEL_VALUE == {"none": 0, "partial": 1, "full": 2}
    with pytest.raises(ValueError):
        level_from_value(3)


# --- parsing answers ---------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "answer, value",
    [
        ("The passage names the date and the place.\nScore: 2", 2),
        ("It gives the date but not the place.\n\n**Score:** 1", 1),
        ("Nothing about it.\nScore: 0.", 0),
        ("Reasoning mentions Score: 2 for a similar case, but here the year differs.\nScore: 1", 1),
        ("The year matches.\nscore = 2", 2),
        ("Only part is backed up.\n1", 1),
        ("The passage gives partial support.", 1),
    ],
)
def test_parse_discrete(answer, value):
    j = parse_discrete(answer)
    assert j.value == value and j.error is None
    assert j.level == ["none", "partial", "full"][value]


def test_parse_discrete_keeps_the_reasoning():
    j = parse_discrete("The passage states the date.\nIt does not give the place.\nScore: 1")
    assert j.reasoning == "The passage states the date.\nIt does not give the place."


@pytest.mark.parametrize("answer", ["I am not sure.", "Score: 3", "Score: 1.5", "Score: 50%", ""])
def test_parse_discrete_errors(answer):
    j = parse_discrete(answer)
    assert j.value is None and j.level is None and j.error


@pytest.mark.parametrize(
    "answer, score",
    [
        ("All details are there.\nScore: 1", 1.0),
        ("Half of it.\nScore: 0.5", 0.5),
        ("Most of it.\nScore: .8", 0.8),
        ("Some.\n**Score: 0.35**", 0.35),
        ("Most.\nScore: 70%", 0.7),
        ("Nothing.\nScore: 0", 0.0),
        ("Little.\n0.1", 0.1),
    ],
)
def test_parse_continuous(answer, score):
    j = parse_continuous(answer)
    assert j.score == pytest.approx(score) and j.error is None


@pytest.mark.parametrize("answer", ["No idea.", "Score: 7", "Score: -0.2", "Score: 140%"])
def test_parse_continuous_errors(answer):
    j = parse_continuous(answer)
    assert j.score is None and j.error


# --- prompts and the LLM judge ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["support_discrete", "support_continuous"])
def test_prompt_files_render(name):
    p = load_prompt(name)
    assert p.name == name and p.version == "1"
    msgs = p.render(passage="PASSAGE TEXT", statement="STATEMENT TEXT")
    assert [m["role"] for m in msgs] == ["system", "user"]
    assert "<<<PASSAGE\nPASSAGE TEXT\nPASSAGE>>>" in msgs[1]["content"]
    assert "Score:" in msgs[0]["content"]
    with pytest.raises(Exception):
        p.render(passage="only one variable")


def _case():
    return Case(id="c", text="x [1].", sources=[Source(id="1", text="Cups are made of glass in Italy."),
                                                 Source(id="2", text="Plates break.")])


def _units():
    return [Unit(id="u1", text="Cups are made of glass.", kind="claim", decomposer="t"),
            Unit(id="u2", text="Cups are made in France.", kind="claim", decomposer="t")]


def test_llm_support_judge_discrete():
    def respond(messages):
        return "It says glass.\nScore: 2" if "made of glass." in messages[-1]["content"] else "Wrong country.\nScore: 0"

    llm = LLMClient("scripted/model", transport=ScriptedTransport(respond), concurrency=1)
    judge = LLMSupportJudge(llm, mode="discrete")
    assert isinstance(judge, Verifier) and judge.name == "support-discrete:scripted/model"
    v1, v2 = judge.verify(_units(), _case(), targets=[["1"], ["1"]])
    assert (v1.score, v1.label, v1.discrete) == (1.0, "supported", True)
    assert (v2.score, v2.label) == (0.0, "unsupported")
    assert v1.details["reasoning"] == "It says glass."
    calls = llm.drain_calls()
    assert {c.purpose for c in calls} == {"support_discrete"} and calls[0].prompt_name == "support_discrete"


def test_llm_support_judge_continuous_and_errors():
    answers = iter(["Mostly.\nScore: 0.7", "I cannot tell."])
    llm = LLMClient("scripted/model", transport=ScriptedTransport(lambda m: next(answers)), concurrency=1)
    judge = LLMSupportJudge(llm, mode="continuous")
    v1, v2 = judge.verify(_units(), _case(), targets=[["1"], ["1"]])
    assert v1.score == pytest.approx(0.7) and v1.label == "supported" and not v1.discrete
    assert v2.score is None and v2.label == "error" and "Score" in v2.error
    (v3,) = judge.verify(_units()[:1], _case(), targets=[["9"]])
    assert v3.error == "passage [9] not found"
