"""A meta-eval result in the store: its signature (to reuse it), its run and item rows, and loading it back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Mapping

from citefix.metaeval.results import ItemScore, MetaEvalResult
from citefix.version import __version__

if TYPE_CHECKING:
    from citefix.decompose.base import Decomposer
    from citefix.verify.base import Verifier


def result_signature(path: str | Path, command: str, verifiers: Mapping[str, Verifier],
                     decomposer: Decomposer | None = None) -> str:
    """What a stored meta-eval result depends on: the file's bytes, the command's settings, each verifier's name
    and parameters (fingerprint), the decomposer and citefix's version."""
    import hashlib

    from citefix.revision.incremental import verifier_fingerprint

    h = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    parts = {"file": h, "command": command.split(" ", 3)[-1], "version": __version__,
             "verifiers": {n: verifier_fingerprint(v) for n, v in verifiers.items()},
             "decomposer": decomposer.name if decomposer is not None else None}
    return hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()


def load_stored_result(store: Any, signature: str) -> tuple[int, MetaEvalResult] | None:
    """The newest complete stored meta-eval with this signature, rebuilt with its per-item scores."""
    row = next(iter(store.db.query("select * from metaeval_runs where signature = ? order by id desc limit 1",
                                   [signature])), None)
    if row is None:
        return None
    result = MetaEvalResult.model_validate_json(row["result"])
    if result.cancelled or result.shape == "rose":
        return None
    scores = []
    for it in store.db.query("select * from metaeval_items where metaeval_run_id = ? order by id", [row["id"]]):
        human = json.loads(it["human"] or "{}")
        scores.append(ItemScore.model_validate({**json.loads(it["details"] or "{}"), "item_id": it["item_id"],
                                                "verifier": it["verifier"], "score": it["score"], **human}))
    result.scores = scores
    return int(row["id"]), result


def store_rows(result: MetaEvalResult, command: str = "") -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Rows for the store's ``metaeval_runs`` (one) and ``metaeval_items`` (many; ``metaeval_run_id`` left out).

    ``result`` holds the whole result as JSON without the per-item lists, which go to the items table: ``human`` is the
    item's human labels, ``details`` everything else about the item.
    """
    summary = result.model_dump_json(exclude={"scores", "decompositions"})
    run = {
        "created": result.started_at, "path": result.path, "format": result.shape, "n_items": result.items,
        "verifiers": json.dumps(result.verifiers or ([result.decomposer] if result.decomposer else [])),
        "command": command, "result": summary, "duration_s": result.duration_s,
    }
    items = [
        {"item_id": r.item_id, "verifier": r.verifier, "score": r.score,
         "human": json.dumps({"label": r.label, "level": r.level, "rating": r.rating}),
         "details": r.model_dump_json(exclude={"item_id", "verifier", "score", "label", "level", "rating"})}
        for r in result.scores
    ] + [
        {"item_id": d.item_id, "verifier": result.decomposer or "", "score": d.rouge1,
         "human": json.dumps({"gold_acus": d.gold}, ensure_ascii=False),
         "details": d.model_dump_json(exclude={"item_id", "gold", "rouge1"})}
        for d in result.decompositions
    ]
    return run, items


def store_result(store: Any, result: MetaEvalResult, command: str = "", *, signature: str | None = None) -> int:
    """Write one meta-eval run and its items into the store (with the signature a rerun is matched by); return the
    run id."""
    run, items = store_rows(result, command)
    if signature is not None:
        run["signature"] = signature
    return int(store.save_metaeval(run, items))
