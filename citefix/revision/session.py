"""The refinement loop, built from steps a TUI can also take one at a time.

Round 0 is the evaluation of the original text. Each later round turns the current round's evaluation into feedback
(a strategy), has a reviser write a new text, evaluates it (and, with a judge, scores it with a second verifier), and
stores it in one transaction. `RefineSession` holds one run and exposes the steps:

    parts = session_parts(case.kind, pipeline=pipeline, strategy="acu", store=store)   # citefix.pipeline
    session = RefineSession(case, parts, store=store)
    session.evaluate_current()          # round 0 (stored), or the current round of a resumed run
    proposal = session.propose_revision()   # feedback + revised text; nothing stored yet
    session.accept(proposal)            # evaluate and store it as the next round (or accept(text=...) for a hand edit)
    session.reject(proposal)            # drop it (its model calls are still stored)
    session.revert_to(1)                # make round 1 current again; later rounds stay in the store, not accepted
    session.stop_reason(max_rounds=3, target=None, patience=2)
    session.finish("max_rounds")        # best round and stop reason on the run row → RefineResult

`refine()` is the loop over those steps, used by `citefix refine` and `citefix compare`. It stops on a stop rule
(`citefix.revision.stopping`: all_supported, target_reached, max_rounds, no_improvement, …, checked after every stored
round) or when the reviser gave back the same text (unchanged) or nothing (no_feedback, nothing_to_delete,
revision_empty, revision_refused, …). The best round — highest score, earliest on ties — is reported, not just the
last; with a judge, the judge's score selects it and drives target and patience (both scores are stored). The records
(`Round`, `Proposal`, `RefineResult`) are in `citefix.revision.rounds`; a stored run's rounds come from
`Store.load_rounds`.

Ctrl-C or a kill loses at most the round in progress: each round is written in one transaction, and
`RefineSession.resume(store, run_id, parts)` (`citefix refine --resume RUN`) continues from the stored rounds.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

from citefix.errors import Cancelled, ConfigError, LLMError, disk_full
from citefix.evaluate import collect_calls, evaluate, incomplete
from citefix.events import Event
from citefix.models import CallRecord, Case, Evaluation
from citefix.revision.distance import word_edit_distance
from citefix.revision.feedback import Feedback, FeedbackStrategy
from citefix.revision.incremental import CachingVerifier
from citefix.revision.parts import RunRecord, SessionParts, StopRules, _FixedUnits, _Holder, _norm
from citefix.revision.revise import Revision
from citefix.revision.rounds import FAILURE_REASONS, Proposal, RefineResult, Round
from citefix.revision.stopping import best_round, selection_score, stop_reason
from citefix.revision.vocabulary import Reviser

if TYPE_CHECKING:
    from citefix.decompose.base import Decomposer
    from citefix.llm.client import LLMClient
    from citefix.verify.base import Verifier


class RefineSession:
    """One refinement run, step by step (see the module docstring)."""

    def __init__(
        self,
        case: Case,
        parts: SessionParts,
        *,
        store=None,
        record: RunRecord | None = None,
        run_id: int | None = None,
        on_event: Event | None = None,
        cancel=None,
    ):
        self.case = case
        self.store = store
        self.llm: LLMClient | None = parts.llm
        self.verifier: Verifier = parts.verifier
        self.decomposer: Decomposer = parts.decomposer
        self.strategy: FeedbackStrategy | None = parts.strategy  # None: a session that only checks
        self.reviser: Reviser | None = parts.reviser
        self.judge_verifier: Verifier | None = parts.judge_verifier
        self.judge_decomposer = parts.judge_decomposer
        self.aggregation = parts.aggregation
        record = record or RunRecord()
        self.on_event = on_event or (lambda e, d: None)
        self.cancel = cancel
        self.command = record.command
        self.input_path = record.input_path
        self.settings = dict(record.settings)
        self.rounds: list[Round] = []
        self.current: Round | None = None
        self.pending: Proposal | None = None
        self.original_text = case.text
        self._feedback_cache: dict[int, Feedback] = {}
        self.run_id = run_id
        if run_id is not None:
            if store is None:
                raise ConfigError("resuming a run needs the store it is in")
            self._load(run_id)
        elif store is not None:
            judge_llm = self.judge_verifier.llm if self.judge_verifier is not None else None
            self.run_id = store.start_run(
                case, self.command, input_path=self.input_path, llm=self.llm.model if self.llm is not None else None,
                judge_llm=judge_llm.model if judge_llm is not None else None,
                decomposer=self.decomposer.name, verifier=self.verifier.name,
                strategy=self.strategy_name, settings=self.run_settings())
        if store is not None and self.run_id is not None:  # every call logged as it completes, under this run
            from citefix.calllog import bind_call_log

            bind_call_log(store, self.run_id, self.llm, self.verifier, self.decomposer, self.strategy, self.reviser,
                          self.judge_verifier, self.judge_decomposer)

    # --- construction from the store -----------------------------------------------------------------------------

    @classmethod
    def resume(cls, store, run_id: int, parts: SessionParts, **kwargs) -> "RefineSession":
        """The session of a stored run (any command's: a checked run can be refined further), at its current round."""
        case = store.case_for_run(run_id)
        return cls(case, parts, store=store, run_id=run_id, **kwargs)

    @property
    def strategy_name(self) -> str | None:
        return self.strategy.name if self.strategy is not None else None

    def run_settings(self) -> dict[str, Any]:
        """The run row's settings: what the caller gave (used to rebuild the run on resume) and the names of the
        collaborators actually used. A session without a strategy (a check) records what the caller gave."""
        if self.strategy is None:
            return dict(self.settings)
        return {**self.settings, "strategy": self.strategy.name, "reviser_name": self.reviser.name if self.reviser is not None else None,
                "verifier_name": self.verifier.name, "decomposer_name": self.decomposer.name,
                "judge_verifier_name": self.judge_verifier.name if self.judge_verifier is not None else None}

    def _load(self, run_id: int) -> None:
        self.store.claim_run(run_id)  # one live process works on a run at a time: claimed before anything is read
        self.original_text = self.case.text
        self.rounds.extend(Round(**r.as_dict()) for r in self.store.load_rounds(run_id))
        # a round that could not be checked whole (partial, or every unit failed on a model fault) is not a completed
        # round: drop it, so resuming checks that text (round 0) or revises the last complete round again
        bad = next((r.n for r in self.rounds if r.evaluation.status == "partial"
                    or (r.evaluation.status == "error" and r.evaluation.errors)), None)
        if bad is not None:
            self.store.delete_rounds_from(run_id, bad)
            self.rounds = [r for r in self.rounds if r.n < bad]
        accepted = [r for r in self.rounds if r.accepted]
        self.current = cast("list[Round | None]", accepted or self.rounds or [None])[-1]
        if self.rounds and self.rounds[0].n == 0:
            self.original_text = self.rounds[0].text

    # --- events and cancellation ---------------------------------------------------------------------------------------

    def _emit(self, name: str, data: dict[str, Any]) -> None:
        self.on_event(name, {"run_id": self.run_id, "case_id": self.case.id, **data})

    def _check_cancel(self) -> None:
        if self.cancel is not None and self.cancel.is_set():
            raise Cancelled()

    def _progress(self, n: int, stage: str) -> Event:
        def forward(name: str, data: dict[str, Any]) -> None:
            self._check_cancel()
            self._emit("progress", {"round": n, "stage": stage, "step": name, **data})

        return forward

    # --- the text and its evaluation ----------------------------------------------------------------------------------

    @property
    def next_n(self) -> int:
        return max((r.n for r in self.rounds), default=-1) + 1

    @property
    def current_case(self) -> Case:
        return self.case.with_text(self.current.text) if self.current is not None else self.case

    def round(self, n: int) -> Round:
        for r in self.rounds:
            if r.n == n:
                return r
        raise ConfigError(f"run {self.run_id} has no round {n}; it has rounds {[r.n for r in self.rounds]}")

    def lineage(self, n: int | None = None) -> list[Round]:
        """The rounds from round 0 to round n (default: the current one), following parents."""
        node = self.current if n is None else self.round(n)
        chain: list[Round] = []
        seen = set()
        while node is not None and node.n not in seen:
            chain.append(node)
            seen.add(node.n)
            node = next((r for r in self.rounds if r.n == node.parent), None) if node.parent is not None else None
        return list(reversed(chain))

    def _evaluate(self, text: str, n: int) -> tuple[Evaluation, Evaluation | None]:
        case = self.case.with_text(text)
        before = (self.verifier.total.units, self.verifier.total.reused) if isinstance(self.verifier, CachingVerifier) else None
        ev = evaluate(case, decomposer=self.decomposer, verifier=self.verifier, on_event=self._progress(n, "evaluate"),
                      aggregation=self.aggregation)
        if before is not None:
            total = cast(CachingVerifier, self.verifier).total  # `before` is set only for a CachingVerifier
            units = total.units - before[0]
            reused = total.reused - before[1]
            ev.metrics["reuse"] = {"verdicts": units, "reused": reused, "verified": units - reused}
        judge = None
        if self.judge_verifier is not None:
            self._check_cancel()
            dec = self.judge_decomposer
            if dec is None:
                dec = self.decomposer if case.kind == "cited_answer" else _FixedUnits(ev.units, self.decomposer.name)
            judge = evaluate(case, decomposer=dec, verifier=self.judge_verifier, on_event=self._progress(n, "judge"),
                             aggregation=self.aggregation)
        return ev, judge

    def _scored(self, r: Round) -> None:
        reuse = r.evaluation.metrics.get("reuse", {})
        self._emit("units_scored", {"round": r.n, "status": r.evaluation.status, "score": r.score,
                                    "judge_score": r.judge_score, "n_units": r.n_units, "n_unsupported": r.n_unsupported,
                                    "reused": reuse.get("reused"), "verified": reuse.get("verified"),
                                    "message": r.evaluation.message})

    def _store_round(self, r: Round, calls: list[CallRecord]) -> None:
        if incomplete(r.evaluation):  # partly checked, or not checked at all: a model fault, never a whole round
            r.status = "partial"
        if self.store is None:
            return
        try:
            self.store.write_round(self.run_id, r.n, r.evaluation, calls=calls, comment=r.comment, judge=r.judge,
                                   edit_prev=r.edit_prev, edit_orig=r.edit_orig, duration_s=r.duration_s,
                                   status=r.status, accepted=r.accepted, parent=r.parent, strategy=r.strategy)
        except sqlite3.OperationalError as exc:
            if disk_full(exc):  # a full disk: the run says it was cut short, where the store can still say so
                try:
                    self.store.finish_run(self.run_id, "interrupted", best_round=self.current.n if self.current else None,
                                          stop_reason="disk_full")
                except sqlite3.Error:
                    pass  # nothing more can be written: the run reads as interrupted once this process is gone
            raise
        row = next((x for x in self.store.rounds(self.run_id) if x.n == r.n), None)
        if row is not None:
            r.prompt_tokens, r.completion_tokens, r.cost = row.prompt_tokens or 0, row.completion_tokens or 0, row.cost
        self._emit("round_stored", {"round": r.n, "accepted": r.accepted})

    def _drain(self) -> list[CallRecord]:
        """Model calls made since the last drain by the strategy, reviser, decomposer and verifiers."""
        return collect_calls(self.strategy, self.reviser, self.decomposer, self.verifier, self.judge_verifier,
                             _Holder(self.llm))

    def _store_orphan_calls(self) -> None:
        calls = self._drain()
        if calls and self.store is not None and self.run_id is not None:
            self.store.write_calls(self.run_id, None, calls)

    def evaluate_current(self, given: Evaluation | None = None) -> Round:
        """Round 0 when nothing is stored yet (evaluated and stored, or `given`: an evaluation of the case's text made
        elsewhere with this pipeline); else the current round as it is."""
        if self.current is not None:
            return self.current
        n = 0
        self._emit("round_started", {"round": n, "strategy": None})
        started = time.perf_counter()
        try:
            ev, judge = (given, None) if given is not None else self._evaluate(self.case.text, n)
        except Cancelled:
            self._store_orphan_calls()
            raise
        if given is None and self.cancel is not None and self.cancel.is_set():
            self._store_orphan_calls()  # a cancel that came while the last unit was scored: dropped means dropped
            raise Cancelled()
        r = Round(n=0, text=self.case.text, evaluation=ev, judge=judge, edit_orig=0,
                  duration_s=time.perf_counter() - started)
        self._scored(r)
        self._store_round(r, [])
        self.rounds.append(r)
        self.current = r
        return r

    # --- feedback and revision -------------------------------------------------------------------------------------------

    def feedback(self) -> Feedback:
        """The strategy's feedback on the current round (asked once per round)."""
        cur = self.evaluate_current()
        if cur.n not in self._feedback_cache:
            assert self.strategy is not None  # a session that only checks asks for no feedback
            self._feedback_cache[cur.n] = self.strategy.feedback(self.current_case, cur.evaluation)
        return self._feedback_cache[cur.n]

    def propose_revision(self, *, evaluate: bool = False) -> Proposal:
        """Feedback on the current round and the reviser's text; nothing is stored. With evaluate=True the proposal
        is also evaluated (so a writer can see its score before accepting; accept() then reuses it)."""
        cur = self.evaluate_current()
        n = self.next_n
        started = time.perf_counter()
        self._check_cancel()
        assert self.strategy is not None  # a session that only checks proposes no revision
        self._emit("progress", {"round": n, "stage": "feedback", "strategy": self.strategy.name})
        try:
            fb = self.feedback()
            self._check_cancel()
            if fb.comment is None:
                revision = Revision(None, "no_feedback", f"the {self.strategy.name} strategy has nothing to say about round {cur.n}")
            else:
                assert self.reviser is not None  # set with the strategy
                self._emit("progress", {"round": n, "stage": "revise", "reviser": self.reviser.name})
                revision = self.reviser.revise(self.current_case, fb, cur.evaluation)
        except LLMError as exc:
            calls = self._drain()
            prop = Proposal(cur.n, None, None, Feedback(self.strategy.name, None), None, "llm_error", str(exc), calls=calls,
                            duration_s=time.perf_counter() - started)
            self.pending = prop
            self._proposed(n, prop)
            return prop
        except Cancelled:
            self._store_orphan_calls()
            raise
        calls = list(fb.calls) + self._drain()
        fb.calls = []
        text, reason, message = revision.text, revision.reason, revision.message
        if text is not None and _norm(text) == _norm(cur.text):
            text, reason, message = None, "unchanged", "the reviser returned the text unchanged"
        if reason == "empty":
            reason = "revision_empty"
        elif reason == "refused":
            reason = "revision_refused"
        prop = Proposal(cur.n, text, fb.comment, fb, revision, reason, message,
                        edit_prev=word_edit_distance(cur.text, text) if text is not None else None, calls=calls,
                        duration_s=time.perf_counter() - started)
        if text is not None and evaluate:
            try:
                prop.evaluation, prop.judge = self._evaluate(text, n)
            except Cancelled:
                self._store_orphan_calls()
                raise
            prop.calls += self._drain()
            prop.duration_s = time.perf_counter() - started
        self.pending = prop
        self._proposed(n, prop)
        return prop

    def _proposed(self, n: int, prop: Proposal) -> None:
        assert self.strategy is not None  # only propose_revision gets here
        self._emit("revision_proposed", {"round": n, "parent": prop.parent, "strategy": self.strategy.name,
                                         "comment": prop.comment, "text": prop.text, "edit_prev": prop.edit_prev,
                                         "reason": prop.reason, "message": prop.message,
                                         "notes": prop.revision.notes if prop.revision else []})

    def accept(self, proposal: Proposal | None = None, *, text: str | None = None, comment: str | None = None) -> Round:
        """Store the next round: the proposal's text, or `text` (a hand edit, possibly of the proposal)."""
        cur = self.evaluate_current()
        proposal = proposal or self.pending
        if text is None:
            if proposal is None or proposal.text is None:
                raise ConfigError("nothing to accept: propose a revision first, or give the edited text")
            if proposal.settled:
                raise ConfigError("this proposal was already accepted or rejected")
            text = proposal.text
        if not text.strip():
            raise ConfigError("the text is empty; nothing to accept")
        if proposal is not None and not proposal.settled and proposal.parent != cur.n and text == proposal.text:
            raise ConfigError(f"this revision was written for round {proposal.parent}, but round {cur.n} is current; "
                              "propose a new one")
        from_proposal = proposal is not None and proposal.text is not None and not proposal.settled and _norm(text) == _norm(proposal.text)
        n = self.next_n
        assert self.strategy is not None  # a session that only checks accepts no revision
        self._emit("round_started", {"round": n, "strategy": self.strategy.name})
        fp = cast(Proposal, proposal)  # read only when from_proposal, which implies a proposal
        started = time.perf_counter()
        calls: list[CallRecord] = list(proposal.calls) if (proposal is not None and not proposal.settled) else []
        try:
            if from_proposal and fp.evaluation is not None and fp.evaluation.text == text:
                ev, judge = fp.evaluation, fp.judge
            else:
                ev, judge = self._evaluate(text, n)
        except Cancelled:
            self._store_orphan_calls()
            if proposal is not None and proposal.calls and not proposal.settled and self.store is not None:
                self.store.write_calls(self.run_id, None, proposal.calls)
                proposal.calls = []
            raise
        calls += self._drain()
        if self.cancel is not None and self.cancel.is_set():
            # a cancel that came while the last unit was scored: the round is dropped, its model calls kept
            if calls and self.store is not None:
                self.store.write_calls(self.run_id, None, calls)
            if proposal is not None:
                proposal.calls = []
            raise Cancelled()
        if from_proposal:
            the_comment = comment if comment is not None else fp.comment
            status = "done"
        else:
            the_comment = comment if comment is not None else "edited by hand"
            status = "edited"
        if from_proposal and fp.revision is not None and fp.revision.edits:
            # what the reviser changed, by kind, with its evidence: kept with the round (rounds table, compare)
            ev.metrics["edits"] = [e for e in fp.revision.edits if e.get("text")]
        r = Round(n=n, text=text, evaluation=ev, judge=judge, comment=the_comment, parent=cur.n, accepted=True,
                  status=status, strategy=self.strategy.name if from_proposal else None,
                  edit_prev=word_edit_distance(cur.text, text), edit_orig=word_edit_distance(self.original_text, text),
                  duration_s=(fp.duration_s if from_proposal else 0.0) + (time.perf_counter() - started))
        self._scored(r)
        self._store_round(r, calls)
        if proposal is not None:
            proposal.settled = True
        self.pending = None
        self.rounds.append(r)
        self.current = r
        return r

    def reject(self, proposal: Proposal | None = None) -> Round | None:
        """Drop a proposal. Its model calls are stored; an evaluated proposal is kept as a round not accepted."""
        proposal = proposal or self.pending
        self.pending = None
        if proposal is None or proposal.settled:
            return None
        proposal.settled = True
        if proposal.evaluation is not None and proposal.text is not None:
            cur = self.current
            assert self.strategy is not None  # only a refining session makes proposals
            r = Round(n=self.next_n, text=proposal.text, evaluation=proposal.evaluation, judge=proposal.judge,
                      comment=proposal.comment, parent=proposal.parent, accepted=False, status="rejected",
                      strategy=self.strategy.name, edit_prev=proposal.edit_prev,
                      edit_orig=word_edit_distance(self.original_text, proposal.text), duration_s=proposal.duration_s)
            self._store_round(r, proposal.calls)
            self.rounds.append(r)
            self.current = cur
            return r
        if proposal.calls and self.store is not None:
            self.store.write_calls(self.run_id, None, proposal.calls)
        return None

    def revert_to(self, n: int) -> Round:
        """Make round n current again. Rounds outside its lineage stay stored, marked not accepted."""
        target = self.round(n)
        self.pending = None
        self.current = target
        keep = {r.n for r in self.lineage(n)}
        for r in self.rounds:
            r.accepted = r.n in keep
        if self.store is not None:
            self.store.set_lineage(self.run_id, keep)
        self._emit("reverted", {"round": n})
        return target

    # --- stop rules and the best round -----------------------------------------------------------------------------------

    def uses_judge(self) -> bool:
        return self.judge_verifier is not None

    def selection_score(self, r: Round) -> float | None:
        return selection_score(r, judge=self.uses_judge())

    def best_round(self) -> Round:
        return best_round(self.lineage(), judge=self.uses_judge())

    def stop_reason(self, *, max_rounds: int | None = 3, target: float | None = None, patience: int | None = None) -> str | None:
        """Why the loop should stop after the current round, or None to go on (the rules: `citefix.revision.stopping`)."""
        if self.current is None:
            return None
        return stop_reason(self.current, self.lineage(), judge=self.uses_judge(), max_rounds=max_rounds, target=target,
                           patience=patience)

    def step(self) -> tuple[Round | None, Proposal]:
        """One full round: propose and accept. Returns (the stored round or None, the proposal)."""
        prop = self.propose_revision()
        if prop.text is None:
            return None, prop
        self._check_cancel()
        return self.accept(prop), prop

    # --- finishing ----------------------------------------------------------------------------------------------------

    def result(self, stop_reason: str, status: str = "finished", message: str | None = None, *,
               best: Round | None = None) -> RefineResult:
        """The run's result; `best`: its best round when the caller has it already (best_round())."""
        if self.current is None:
            return RefineResult(self.run_id, self.case.id, status, stop_reason, 0, None, None, self.case.text,
                                self.original_text, [], message)
        best = best or self.best_round()
        return RefineResult(
            run_id=self.run_id, case_id=self.case.id, status=status, stop_reason=stop_reason, best_round=best.n,
            best_score=best.score, best_judge_score=best.judge_score, best_text=best.text, original_text=self.original_text,
            rounds=[r.summary() for r in self.rounds], message=message)

    def _drop_pending(self) -> None:
        """Store the model calls of a proposal that will not become a round."""
        prop, self.pending = self.pending, None
        if prop is not None and not prop.settled:
            prop.settled = True
            if prop.calls and self.store is not None and self.run_id is not None:
                self.store.write_calls(self.run_id, None, prop.calls)
            prop.calls = []

    def finish(self, stop_reason: str, status: str | None = None, message: str | None = None, *,
               record_best: bool = True) -> RefineResult:
        """Record the stop reason and best round on the run row and announce the end. record_best=False leaves the
        run row's best round empty (a check whose only round was checked in part has no result)."""
        if status is None:
            status = "failed" if stop_reason in FAILURE_REASONS else "finished"
        best = self.best_round() if self.current is not None else None
        res = self.result(stop_reason, status, message, best=best)
        # a partly checked round is no one's best: with no complete round the run has no result to name
        whole = best is not None and not incomplete(best.evaluation)
        if self.store is not None and self.run_id is not None:
            self.store.finish_run(self.run_id, status, best_round=res.best_round if (whole and record_best) else None,
                                  stop_reason=stop_reason)
        self._emit("run_finished", {"status": status, "stop_reason": stop_reason, "message": message,
                                    "best_round": res.best_round if whole else None,
                                    "best_score": res.best_score if whole else None,
                                    "best_judge_score": res.best_judge_score if whole else None,
                                    "rounds": len(self.rounds), "text": res.best_text})
        return res

    def run(self, rules: StopRules | None = None) -> RefineResult:
        """The loop: evaluate, then propose and accept until a stop rule holds."""
        rules = rules or StopRules()
        message = None
        try:
            self.evaluate_current()
            while True:
                reason = self.stop_reason(max_rounds=rules.max_rounds, target=rules.target, patience=rules.patience)
                if reason:
                    assert self.current is not None  # evaluate_current() set it
                    if reason in ("evaluation_error", "llm_error"):
                        message = f"round {self.current.n} {self.current.evaluation.message}"
                    break
                self._check_cancel()
                _, prop = self.step()
                if prop.text is None:
                    reason, message = prop.reason or "no_revision", prop.message
                    self._drop_pending()
                    break
        except Cancelled:
            self._drop_pending()
            self._store_orphan_calls()
            return self.finish("cancelled", "cancelled", "cancelled; completed rounds are kept")
        except KeyboardInterrupt:
            self._drop_pending()
            self._store_orphan_calls()
            self.finish("interrupted", "interrupted", "interrupted; completed rounds are kept")
            raise
        return self.finish(reason, message=message)


def refine(
    case: Case | None,
    parts: SessionParts,
    *,
    store=None,
    rules: StopRules | None = None,
    record: RunRecord | None = None,
    resume_run: int | None = None,
    on_event: Event | None = None,
    cancel=None,
) -> RefineResult:
    """Refine one case until a stop rule holds; every round stored (see the module docstring). With resume_run, the
    stored run goes on from its rounds (`case` is then not needed: the run's own is used)."""
    rules = rules or StopRules()
    record = record or RunRecord()
    record = replace(record, settings={**record.settings, **rules.as_settings()})
    if resume_run is not None:
        if store is None:
            raise ConfigError("resuming a run needs the store it is in")
        session = RefineSession.resume(store, resume_run, parts, record=record, on_event=on_event, cancel=cancel)
        store.update_run(resume_run, settings=json.dumps(session.run_settings()))
    else:
        if case is None:
            raise ConfigError("refine needs a case (or resume_run)")
        session = RefineSession(case, parts, store=store, record=record, on_event=on_event, cancel=cancel)
    return session.run(rules)
