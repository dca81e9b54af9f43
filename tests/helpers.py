"""Small helpers shared by several test modules (tests/ is on sys.path, so `from helpers import ...`)."""

from __future__ import annotations

import sqlite3
from pathlib import Path


def rows(db: Path, sql: str, params=()) -> list[dict]:
    """Rows of a query on a SQLite file, read with a fresh plain connection (what another process would see)."""
    conn = sqlite3.connect(db)
    conn.row_factory = sqlite3.Row
    try:
        return [dict(r) for r in conn.execute(sql, params)]
    finally:
        conn.close()


def write(tmp_path, name, content) -> str:
    """Write text (UTF-8) or bytes to tmp_path/name and return the path as a string."""
    p = tmp_path / name
    if isinstance(content, bytes):
        p.write_bytes(content)
    else:
        p.write_text(content, encoding="utf-8")
    return str(p)


def whole_unit_features(verifier, source: str, text: str):
    """(score, features) of `text` checked as one unit against one source by an offline verifier."""
    from citefix.models import Case, Source, Unit

    case = Case(id="c", sources=[Source(id="1", text=source)], text=text)
    unit = Unit(id="u0", text=text, kind="sentence", decomposer="whole", start=0, end=len(text))
    f = verifier.features([unit], case)[0]
    return verifier.score(f), f


def units_verdicts(tools, source: str, text: str) -> dict:
    """{unit text: verdict} of `text` cut by a decomposer and checked by a verifier (`tools` = (decomposer, verifier))
    against one source."""
    from citefix.models import Case, Source

    dec, ver = tools
    case = Case(id="c", sources=[Source(id="1", text=source)], text=text)
    units = dec.units(case)
    return {u.text: v for u, v in zip(units, ver.verify(units, case))}


def offline_revision(tools, source: str, text: str):
    """The offline reviser's revision of `text` against one source, from a check by `tools` (decomposer, verifier)
    and the "acu" feedback strategy: what `citefix refine` does in its first round."""
    from citefix.evaluate import evaluate
    from citefix.models import Case, Source
    from citefix.revision.feedback import build_strategy
    from citefix.revision.offline import OfflineReviser

    dec, ver = tools
    case = Case(id="c", sources=[Source(id="1", text=source)], text=text)
    ev = evaluate(case, decomposer=dec, verifier=ver)
    return OfflineReviser().revise(case, build_strategy("acu").feedback(case, ev), ev)


def unit_verdict(verifier, text: str, source: str):
    """The verdict of `verifier` on `text` taken whole as one clause unit, against one source."""
    from citefix.models import Case, Source, Unit

    case = Case(id="c", sources=[Source(id="1", text=source)], text=text)
    unit = Unit(id="u1", text=text, kind="clause", decomposer="spacy-clauses", start=0, end=len(text))
    (v,) = verifier.verify([unit], case)
    return v


# The offline verifier's rules (the signals' geometric mean capped to unsupported on any finding) instead of the
# learned judge: for the tests of a check's detector and of the reviser's edits on what a detector found, which hold
# whatever weight the judge gives that check.
RULES_OVERLAY = {"combined": {"method": "local"}, "profiles": {"cited_answer": {"combined": {"method": "local"}}}}


def rules_params() -> dict:
    """The packaged parameters with the rules' combination."""
    import json

    from citefix.verify.offline_params import _overlay, load_params

    p = load_params()
    _overlay(p, json.loads(json.dumps(RULES_OVERLAY)))
    return p


def rules_verifier(**kw):
    """An offline verifier judging by the rules (see RULES_OVERLAY)."""
    from citefix.verify.offline import OfflineVerifier

    return OfflineVerifier(params=rules_params(), **kw)


def use_rules(monkeypatch, tmp_path) -> str:
    """Every offline verifier built from here on (citefix.check, the CLI in-process or as a process) judges by the
    rules: the overlay file is named by CITEFIX_OFFLINE_PARAMS."""
    import json

    path = tmp_path / "rules-params.json"
    path.write_text(json.dumps(RULES_OVERLAY), encoding="utf-8")
    monkeypatch.setenv("CITEFIX_OFFLINE_PARAMS", str(path))
    return str(path)
