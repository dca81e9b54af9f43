"""The stop rules of a refinement run and the choice of its best round.

Checked after every stored round: no unit unsupported (all_supported), score ≥ target (target_reached), rounds done
(max_rounds), no improvement over the best score for `patience` rounds (no_improvement); a round that could not be
checked stops the run (evaluation_error, llm_error, no_units). The best round — highest score, earliest on ties — is
reported, not just the last. With a judge, the judge's score selects the best round and drives target and patience
(the point of a judge is that the model writing revisions does not grade them).

The rules read rounds (`citefix.revision.rounds.Round`) and the lineage of the current one; `RefineSession` asks them.
"""

from __future__ import annotations

from citefix.errors import ConfigError
from citefix.evaluate import incomplete
from citefix.revision.rounds import Round


def selection_score(r: Round, *, judge: bool) -> float | None:
    """The score that ranks a round: the judge's when the run has a judge (and the round a judge evaluation)."""
    return r.judge_score if judge and r.judge is not None else r.score


def best_round(chain: list[Round], *, judge: bool) -> Round:
    """The best round of a lineage (round 0 first): highest selection score, then fewest unsupported units, then
    earliest. A partly checked round is never compared with complete ones."""
    if not chain:
        raise ConfigError("no round stored yet")
    whole = [r for r in chain if not incomplete(r.evaluation)]
    chain = whole or chain

    def key(item):
        depth, r = item
        s = selection_score(r, judge=judge)
        return (s if s is not None else float("-inf"), -r.n_unsupported, -depth)

    return max(enumerate(chain), key=key)[1]


def stop_reason(cur: Round | None, chain: list[Round], *, judge: bool, max_rounds: int | None = 3,
                target: float | None = None, patience: int | None = None) -> str | None:
    """Why the loop should stop after the current round `cur` (the last of its lineage `chain`), or None to go on."""
    if cur is None:
        return None
    ev = cur.evaluation
    if incomplete(ev):  # some unit could not be checked even after the round was retried: a model fault
        return "llm_error"
    if ev.status == "error":
        return "evaluation_error"
    if ev.status == "no_units":
        return "no_units"
    if cur.n_unsupported == 0:
        return "all_supported"
    s = selection_score(cur, judge=judge)
    if target is not None and s is not None and s >= target:
        return "target_reached"
    depth = len(chain) - 1
    if max_rounds is not None and depth >= max_rounds:
        return "max_rounds"
    if patience is not None and patience > 0 and depth > 0:
        best = best_round(chain, judge=judge)
        best_depth = next((i for i, r in enumerate(chain) if r is best), 0)
        if depth - best_depth >= patience:
            return "no_improvement"
    return None
