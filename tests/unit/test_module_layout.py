"""Where things live: the comparison's report in citefix.revision.compare_report (the run in compare, which does not
re-export the report), the cited-answer modules in the package citefix.cited, each name importable from one place."""

from __future__ import annotations

import importlib
import inspect

import pytest

# a package → (the module whose names it gives, the names it must give, all of them that module's own objects)
PACKAGE_API = {
    "citefix.cited": ("citefix.cited.evaluate", [
        "ALCE", "ALIICE", "UNCITED_MESSAGE", "answer_scores", "citations_metrics", "evaluate_cited",
        "metrics_settings_for", "summarise", "support_metrics", "supported_elsewhere", "verifier_threshold"]),
}


@pytest.mark.parametrize("package", sorted(PACKAGE_API))
def test_the_package_gives_its_modules_objects(package):
    module, names = PACKAGE_API[package]
    a, b = importlib.import_module(package), importlib.import_module(module)
    for name in names:
        assert getattr(a, name) is getattr(b, name), f"{package}.{name} is not {module}.{name}"


def _own_public_names(module) -> list[str]:
    """The public functions and classes a module defines itself (not imported)."""
    return sorted(k for k, v in vars(module).items() if not k.startswith("_")
                  and (inspect.isfunction(v) or inspect.isclass(v)) and v.__module__ == module.__name__)


@pytest.mark.parametrize("package", sorted(PACKAGE_API))
def test_every_public_name_of_the_module_is_given_by_the_package(package):
    """A function or class added to the module later is listed above (and exported) or the table is stale."""
    module, names = PACKAGE_API[package]
    own = _own_public_names(importlib.import_module(module))
    assert set(own) <= set(names), f"{module} defines {sorted(set(own) - set(names))}, which {package} does not give"


@pytest.mark.parametrize("gone", ["citefix.citations", "citefix.metrics", "citefix.support", "citefix.report_cited"])
def test_no_second_import_path_for_the_cited_modules(gone):
    """One import path per name: the cited-answer modules are only in citefix.cited."""
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(gone)


def test_the_comparison_run_stays_in_compare_and_its_report_has_no_run():
    from citefix.revision import compare, compare_report

    for name in ("run_compare", "select_cases", "signature", "find_reusable", "CompareRun", "CompareResult"):
        assert getattr(compare, name).__module__ == "citefix.revision.compare"
        assert not hasattr(compare_report, name)
    # the view does not import the run, and the run does not hand out the view's names
    assert "from citefix.revision.compare import" not in inspect.getsource(compare_report)
    for name in ("write_report", "collect", "plots", "render_markdown"):
        assert not hasattr(compare, name), name


def test_cited_package_is_where_the_pipeline_finds_cited_answers():
    """evaluate() and the decomposers reach the package, not the old modules; the citation marks are parsed below
    both decompose/ and cited/ (citefix.marks), which read the same parse."""
    import citefix.cited.evaluate as cited_evaluate
    import citefix.decompose.claims as claims
    from citefix import marks

    assert claims.parse_case is marks.parse_case and claims.ParsedAnswer is marks.ParsedAnswer
    assert cited_evaluate.ParsedAnswer is marks.ParsedAnswer
