"""Every verifier and decomposer citefix builds has the attributes the core reads from it directly (typed
collaborator protocols instead of `getattr(x, "attr", default)`), and the verdict-cache wrapper passes them through.

Built for real, cheaply: the offline verifier, the clause decomposer and the NLI verifier load their models on first
use, so constructing them loads nothing; the LLM ones get a scripted client.
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from citefix.config import DECOMPOSERS as DECOMPOSER_NAMES
from citefix.config import VERIFIERS as VERIFIER_NAMES
from citefix.config import Settings
from citefix.decompose.base import Decomposer
from citefix.evaluate import collect_calls, models_used
from citefix.llm.client import LLMClient
from citefix.llm.fake import ScriptedTransport
from citefix.pipeline import build_decomposer, build_judge, build_verifier, wrap_cache
from citefix.revision.incremental import CachingVerifier, unwrap, verifier_fingerprint
from citefix.verify.base import Verifier, Wrapping


def _members(protocol) -> set[str]:
    """The protocol's attributes and methods (so a member added to it is checked here without editing this test)."""
    names = set(getattr(protocol, "__annotations__", {}))
    names |= {n for n in vars(protocol) if not n.startswith("_")}
    return names


VERIFIER_MEMBERS = _members(Verifier)
DECOMPOSER_MEMBERS = _members(Decomposer)


def test_the_protocols_name_what_the_core_reads():
    assert VERIFIER_MEMBERS == {"name", "llm", "model_name", "supported_at", "verify"}
    assert DECOMPOSER_MEMBERS == {"name", "llm", "errors", "units"}


def _llm() -> LLMClient:
    return LLMClient("scripted/model", transport=ScriptedTransport(lambda m: "Yes"), concurrency=1)


def _verifiers() -> dict[str, Verifier]:
    from citefix.cited.metrics import FunctionVerifier
    from citefix.cited.support import LLMSupportJudge
    from citefix.metaeval.shared import share_offline

    settings, llm = Settings(), _llm()
    # every name settings accept (config.VERIFIERS), with and without an LLM for `auto`; nli:<model> is lazy
    out: dict[str, Verifier] = {name: build_verifier(name, settings, llm=llm) for name in VERIFIER_NAMES}
    out["auto:offline"] = build_verifier("auto", settings)
    out["llm:model"] = build_verifier("llm:scripted/other", settings, transport=ScriptedTransport(lambda m: "Yes"))
    out["nli"] = build_verifier("nli:/no/such/model", settings)
    out["judge"] = build_judge(Settings(judge_llm="scripted/judge"), transport=ScriptedTransport(lambda m: "Yes"))
    out["support"] = LLMSupportJudge(llm)
    out["function"] = FunctionVerifier(lambda unit, ids: 1.0, threshold=0.7)
    views, _ = share_offline({"offline": out["offline"], "offline:lexical": out["offline:lexical"]})
    out["view:offline"], out["view:offline:lexical"] = views["offline"], views["offline:lexical"]
    out.update({f"cached:{k}": wrap_cache(v) for k, v in list(out.items())})
    return out


def _decomposers() -> dict[str, Decomposer]:
    from citefix.revision.parts import _FixedUnits

    settings, llm = Settings(), _llm()
    out = {name: build_decomposer(name, settings, llm) for name in DECOMPOSER_NAMES if name != "auto"}
    out.update({f"auto:{kind}": build_decomposer("auto", settings, None, kind=kind)
                for kind in ("summary", "cited_answer")})
    out["auto:llm"] = build_decomposer("auto", settings, llm)
    out["fixed"] = _FixedUnits([], "spacy-clauses")
    return out


VERIFIERS = _verifiers()
DECOMPOSERS = _decomposers()


@pytest.mark.parametrize("key", list(VERIFIERS))
def test_every_verifier_has_the_protocol_attributes(key):
    v = VERIFIERS[key]
    missing = {m for m in VERIFIER_MEMBERS if not hasattr(v, m)}
    assert not missing, f"{type(v).__name__} lacks {sorted(missing)}"
    assert isinstance(v, Verifier)
    assert isinstance(v.name, str) and v.name
    assert v.llm is None or isinstance(v.llm, LLMClient)
    assert v.model_name is None or isinstance(v.model_name, str)
    th = v.supported_at("cited_answer")
    assert isinstance(th, float) and 0.0 <= th <= 1.0
    if isinstance(v, CachingVerifier):  # the wrapper passes every attribute through to the verifier it wraps
        inner = v.inner
        assert (v.name, v.llm, v.model_name) == (inner.name, inner.llm, inner.model_name)
        assert th == inner.supported_at("cited_answer")
        assert isinstance(v, Wrapping) and unwrap(v) is inner


def test_what_each_verifier_reports():
    v = VERIFIERS
    assert v["llm"].llm is not None and v["llm"].llm.model == "scripted/model" and v["llm"].model_name is None
    assert v["auto"].llm is v["llm"].llm and v["auto:offline"].llm is None
    assert v["llm:model"].llm is not None and v["llm:model"].llm.model == "scripted/other"
    assert v["judge"].llm is not None and v["judge"].llm.model == "scripted/judge"
    assert v["nli"].llm is None and v["nli"].model_name == "/no/such/model"
    assert v["offline"].llm is None and v["offline"].model_name is None
    assert v["function"].supported_at("cited_answer") == 0.7
    assert v["llm"].supported_at("cited_answer") == v["nli"].supported_at("default") == 0.5


@pytest.mark.parametrize("key", list(DECOMPOSERS))
def test_every_decomposer_has_the_protocol_attributes(key):
    d = DECOMPOSERS[key]
    missing = {m for m in DECOMPOSER_MEMBERS if not hasattr(d, m)}
    assert not missing, f"{type(d).__name__} lacks {sorted(missing)}"
    assert isinstance(d, Decomposer)
    assert isinstance(d.name, str) and d.name
    assert d.llm is None or isinstance(d.llm, LLMClient)
    assert isinstance(d.errors, Sequence) and all(isinstance(e, str) for e in d.errors)
    assert (d.llm is not None) == (key in ("acu", "auto:llm"))


def test_models_and_calls_are_read_through_the_verdict_cache():
    """models_used and collect_calls read `llm` and `model_name` off the wrapper (no attribute delegation left)."""
    nli = wrap_cache(VERIFIERS["nli"])
    assert models_used(DECOMPOSERS["clauses"], nli) == ["/no/such/model"]
    judge = wrap_cache(build_verifier("llm", Settings(), llm=_llm()))
    acu = DECOMPOSERS["acu"]
    assert models_used(acu, judge) == ["scripted/model"]
    from citefix.models import Case, Source, Unit

    case = Case(id="c", sources=[Source(id="1", text="The bridge opened in May.")], text="The bridge opened in May.")
    judge.verify([Unit(id="u1", text="The bridge opened in May.", kind="acu", decomposer="t")], case)
    # a part without an LLM (a strategy, None) is passed over; the wrapper's client is drained once
    calls = collect_calls(object(), None, judge, judge)
    assert len(calls) == 1 and calls[0].model == "scripted/model"
    assert collect_calls(judge) == []


def test_fingerprint_of_a_wrapped_verifier_is_its_own():
    """The verdict cache and stored checks key on the fingerprint: wrapping must not change it."""
    for key in ("offline", "offline:lexical", "llm", "nli", "support", "function"):
        v = VERIFIERS[key]
        assert verifier_fingerprint(wrap_cache(v)) == verifier_fingerprint(v), key
    assert verifier_fingerprint(VERIFIERS["offline"]) != verifier_fingerprint(VERIFIERS["offline:lexical"])


def test_prefetch_finds_the_offline_verifier_behind_wrappers():
    """Behind the verdict cache and under a signal view of a shared pass, each offline verifier warms once."""
    from citefix.verify.offline import prefetch

    v = VERIFIERS
    order = [v["cached:offline:lexical"], v["llm"], v["offline:lexical"], v["view:offline"],
             v["cached:view:offline:lexical"], v["cached:nli"]]
    # no cases: nothing is analysed (no model loads), but the positions that would do the work are returned
    assert prefetch(order, []) == [0, 3]


def test_a_signal_view_keeps_its_signals_threshold():
    """A shared offline pass (meta-eval) must not change a verifier's cited-answer threshold: each view reports
    what the verifier of that signal reports alone (it was 0.5, the unknown default, before)."""
    from citefix.cited import verifier_threshold

    for name in ("offline", "offline:lexical"):
        alone, view = VERIFIERS[name], VERIFIERS[f"view:{name}"]
        assert verifier_threshold(view) == verifier_threshold(alone)
        assert verifier_threshold(view, "default") == verifier_threshold(alone, "default")
    assert verifier_threshold(VERIFIERS["view:offline"]) != 0.5
