"""Modules split along their seams: `Store.load_rounds` gives a stored run's rounds as a resumed session takes
them, and every name that moved to a sibling module is imported from there, not from the module it left."""

from __future__ import annotations

import importlib

from store_helpers import make_case, make_eval

from citefix.config import Settings
from citefix.models import Evaluation
from citefix.pipeline import build_pipeline, session_parts
from citefix.revision.session import RefineSession


def test_load_rounds_parses_rows_and_fills_old_rows_parents(store):
    case = make_case()
    run_id = store.start_run(case, "refine")
    ev = make_eval(case)
    # rows written without a parent (as before lineage was stored): the parent is the last accepted round before
    store.write_round(run_id, 0, ev)
    store.write_round(run_id, 1, ev.model_copy(update={"text": "one"}), accepted=False, comment="rejected", edit_prev=3)
    store.write_round(run_id, 2, ev.model_copy(update={"text": "two"}), judge=ev, edit_prev=2, edit_orig=5)
    rows = store.load_rounds(run_id)
    assert [r.n for r in rows] == [0, 1, 2]
    assert [r.parent for r in rows] == [None, 0, 0]  # round 1 was not accepted: round 2 revised round 0
    assert [r.accepted for r in rows] == [True, False, True]
    assert all(isinstance(r.evaluation, Evaluation) for r in rows)
    assert rows[0].judge is None and rows[2].judge.model_dump() == ev.model_dump()
    assert rows[1].comment == "rejected" and rows[2].edit_prev == 2 and rows[2].edit_orig == 5
    assert rows[0].prompt_tokens == 10 and rows[0].status == "done"
    # a session resumed from the store follows the same lineage and stands on the last accepted round
    pipeline = build_pipeline(Settings(verifier="offline"), store)  # nothing is verified: the models never load
    session = RefineSession.resume(store, run_id, session_parts(case.kind, pipeline=pipeline, strategy=None))
    assert [r.n for r in session.lineage()] == [0, 2] and session.current.n == 2
    assert session.original_text == case.text


def test_each_moved_name_has_one_import_path():
    """A name that moved to a sibling module is imported from there: nothing in the package, its tests or benchmarks
    imports it from the module it left (which may still use it itself)."""
    import ast
    from pathlib import Path

    moved = {
        "citefix.tui.main_screen": ("citefix.tui.jobs", ["SPINNER", "STAGES", "STEP", "_stage"]),
        "citefix.metaeval.protocols": ("citefix.metaeval.rouge", ["acu_rouge", "rouge1_f1", "best_match_rouge1",
                                                                  "tokenize"]),
        "citefix.metaeval.runner": ("citefix.metaeval.shared", ["share_offline", "_SignalView"]),
        "citefix.llm.client": ("citefix.llm.failures", ["TransientLLMError", "is_transient", "retry_after",
                                                        "explain_error", "error_class", "redact"]),
        "citefix.revision.stopping": ("citefix.revision.rounds", ["FAILURE_REASONS"]),
    }
    for old, (new, names) in moved.items():
        b = importlib.import_module(new)
        assert all(hasattr(b, name) for name in names), new
    root = Path(__file__).resolve().parents[2]
    found = []
    for folder in ("citefix", "tui", "store", "tests", "bench", "training", "builders"):
        for path in (root / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module in moved:
                    names = set(moved[node.module][1])
                    found += [f"{path.relative_to(root)}: {a.name} from {node.module}" for a in node.names
                              if a.name in names]
    assert not found, found
