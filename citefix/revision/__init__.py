"""Revision: feedback strategies, revisers and the loop that fixes a text round by round (`citefix refine`; the
Python API's `citefix.refine(...)` is `citefix.api.refine`).

Public API (see citefix/revision/session.py for the step-by-step use a TUI makes of it):

    refine(case, parts, store=store, rules=StopRules(max_rounds=3), record=RunRecord(...)) -> RefineResult
    RefineSession(case, parts, ...) / RefineSession.resume(store, run_id, parts, ...)
    SessionParts (built by citefix.pipeline.session_parts or Pipeline.parts_for), StopRules, RunRecord
        .evaluate_current() .feedback() .propose_revision() .accept() .reject() .revert_to(n)
        .stop_reason(...) .best_round() .step() .run(...) .finish(reason)
    build_strategy(name, llm=None), available_strategies(), register_strategy(name)
    CachingVerifier(verifier, store=None)
"""

from citefix.revision.distance import word_edit_distance
from citefix.revision.feedback import (
    CitationIssue,
    Feedback,
    FeedbackStrategy,
    available_strategies,
    build_strategy,
    citation_issues,
    register_strategy,
)
from citefix.revision.incremental import CachingVerifier
from citefix.revision.parts import RunRecord, SessionParts, StopRules
from citefix.revision.revise import LLMReviser, Revision, parse_revision
from citefix.revision.session import Cancelled, Proposal, RefineResult, RefineSession, Round, refine

__all__ = [
    "CachingVerifier", "Cancelled", "CitationIssue", "Feedback", "FeedbackStrategy", "LLMReviser", "Proposal",
    "RefineResult", "RefineSession", "Revision", "Round", "RunRecord", "SessionParts", "StopRules",
    "available_strategies", "build_strategy", "citation_issues", "parse_revision", "refine", "register_strategy",
    "word_edit_distance",
]
