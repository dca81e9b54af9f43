"""Views moved out of the core modules, cited answers in one package: the comparison's report lives in
citefix.refine.compare_report and the cited-answer modules in the package citefix.cited; every old import path still
gives the same objects as the new one, and the old modules hold nothing of their own."""

from __future__ import annotations

import importlib
import inspect

import pytest

# old module → (new module, the names it must give, all of them the new module's own objects)
MOVED = {
    "citefix.refine.compare": ("citefix.refine.compare_report", [
        "METRICS", "STOP_LABELS", "STOP_MARKS", "STYLES", "collect", "metric_figure", "plot", "plots",
        "render_markdown", "unfinished_runs", "write_report"]),
    "citefix.cited": ("citefix.cited.evaluate", [
        "ALCE", "ALIICE", "UNCITED_MESSAGE", "answer_scores", "citations_metrics", "evaluate_cited",
        "metrics_settings_for", "summarise", "support_metrics", "verifier_threshold"]),
    "citefix.citations": ("citefix.cited.parse", [
        "MAX_RANGE", "CitationGroup", "CitationWarning", "Mark", "ParsedAnswer", "Piece", "Sentence", "WarningCode",
        "find_marks", "parse_case", "parse_citations", "parse_mark"]),
    "citefix.metrics": ("citefix.cited.metrics", [
        "Aggregate", "AnswerCitationScores", "CitationLabel", "CitationVerdict", "ClaimScore", "CorpusCitationScores",
        "EntailmentRequest", "FunctionVerifier", "Key", "Method", "MethodScores", "MetricsSettings", "aggregate", "cvcp",
        "cvcp_values", "plan_precision", "plan_requests", "run_requests", "score_answer", "score_answers",
        "score_claim", "score_method", "score_units"]),
    "citefix.support": ("citefix.cited.support", [
        "LEVEL_VALUE", "LEVELS", "ContinuousJudgement", "DiscreteJudgement", "LLMSupportJudge", "PairSupport",
        "SupportLevel", "SupportSettings", "level_from_score", "level_from_value", "parse_continuous", "parse_discrete",
        "support_from_verdicts", "support_table"]),
    "citefix.report_cited": ("citefix.cited.report", [
        "CITATION_STYLE", "CITATION_WORD", "LEVEL_STYLE", "render_cited", "render_summary"]),
}


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_import_paths_give_the_new_modules_objects(old):
    new, names = MOVED[old]
    a, b = importlib.import_module(old), importlib.import_module(new)
    for name in names:
        assert getattr(a, name) is getattr(b, name), f"{old}.{name} is not {new}.{name}"


def _own_public_names(module) -> list[str]:
    """The public functions and classes a module defines itself (not imported)."""
    return sorted(k for k, v in vars(module).items() if not k.startswith("_")
                  and (inspect.isfunction(v) or inspect.isclass(v)) and v.__module__ == module.__name__)


@pytest.mark.parametrize("old", sorted(MOVED))
def test_every_public_name_of_the_new_module_is_given_by_the_old_path(old):
    """A function or class added to the new module later is listed above (and re-exported) or the table is stale."""
    new, names = MOVED[old]
    own = _own_public_names(importlib.import_module(new))
    assert set(own) <= set(names), f"{new} defines {sorted(set(own) - set(names))}, which {old} does not give"


@pytest.mark.parametrize("shim", ["citefix.citations", "citefix.metrics", "citefix.support", "citefix.report_cited"])
def test_the_old_modules_are_thin_re_exports(shim):
    """Nothing is defined in an old module any more: one definition of each name, in citefix.cited."""
    assert _own_public_names(importlib.import_module(shim)) == []


def test_the_comparison_run_stays_in_compare_and_its_report_has_no_run():
    from citefix.refine import compare, compare_report

    for name in ("run_compare", "select_cases", "signature", "find_reusable", "CompareRun", "CompareResult"):
        assert getattr(compare, name).__module__ == "citefix.refine.compare"
        assert not hasattr(compare_report, name)
    # the view does not import the run (no circle: compare imports compare_report, never the other way round)
    assert "from citefix.refine.compare import" not in inspect.getsource(compare_report)


def test_cited_package_is_where_the_pipeline_finds_cited_answers():
    """evaluate() and the decomposers reach the package, not the old modules."""
    import citefix.decompose.claims as claims
    from citefix.cited import parse

    assert claims.parse_case is parse.parse_case and claims.ParsedAnswer is parse.ParsedAnswer
