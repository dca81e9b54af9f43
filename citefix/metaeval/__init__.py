"""Meta-evaluation: verifiers and decomposers measured against human labels (loaders, runner, protocols)."""

from __future__ import annotations

from citefix.errors import ConfigError


def verifier_names(spec: str) -> list[str]:
    """Split the --verifier list, dropping blanks and repeats (order kept)."""
    names = list(dict.fromkeys(n.strip() for n in (spec or "").split(",") if n.strip()))
    if not names:
        raise ConfigError("--verifier is empty; name at least one verifier, e.g. --verifier offline")
    return names


def by_fields(spec: str | None) -> list[str]:
    """Split the --by list, dropping blanks and repeats (order kept)."""
    fields = list(dict.fromkeys(f.strip() for f in (spec or "").split(",") if f.strip()))
    if spec is not None and not fields:
        raise ConfigError("--by is empty; name a field of the records, e.g. --by error_type")
    return fields
