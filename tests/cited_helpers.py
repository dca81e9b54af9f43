"""A cited answer with a redundant citation and a verifier that reads its entailment scores from a table, for the
tests of cited answers (tests/ is on sys.path, so `from cited_helpers import ...`)."""

from __future__ import annotations

from citefix.cited.metrics import FunctionVerifier

CUPS = "Cups can be made of glass [1] or plastic [2][3]."
GLASS, PLASTIC, WHOLE = "Cups can be made of glass", "Cups can be made of plastic", "Cups can be made of glass or plastic."


def table_verifier(table, default=0.0):
    """Entailment scores from {(claim text, frozenset(ids)): score}."""
    return FunctionVerifier(lambda text, ids: table.get((text, frozenset(ids)), default), text_only=True, name="table")


REDUNDANT = {
    (GLASS, frozenset({"1"})): 0.9,
    (PLASTIC, frozenset({"2", "3"})): 0.8,
    (PLASTIC, frozenset({"2"})): 0.7,
    (PLASTIC, frozenset({"3"})): 0.1,  # 3 alone does not; 2 without 3 does: redundant
    (WHOLE, frozenset({"1", "2", "3"})): 0.9,
    (WHOLE, frozenset({"1", "2"})): 0.9,
}
