"""The shared word lists live in one module: no other module of the package spells out a month list, the stop list
or an entity-label group again."""

from __future__ import annotations

import re
from pathlib import Path

import citefix
from citefix import lexicon

PACKAGE = Path(citefix.__file__).parent

# a fragment that only a copy of each list would contain
COPIES = {
    "month names": re.compile(r'"january"'),
    "stop list": re.compile(r"\bwhom\s+whose\b"),
    "entity-label group": re.compile(r'\{\s*"PERSON",\s*"ORG"'),
    "value labels": re.compile(r'"CARDINAL":\s*"number"'),
}


def test_each_list_is_spelled_out_once():
    lex = Path(lexicon.__file__)
    for name, pattern in COPIES.items():
        assert pattern.search(lex.read_text(encoding="utf-8")), f"the {name} should be in {lex.name}"
        copies = [p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py")
                  if p != lex and pattern.search(p.read_text(encoding="utf-8"))]
        assert not copies, f"the {name} is spelled out again in {copies}: import it from citefix.lexicon"


def test_the_lists_hold_what_their_users_rely_on():
    assert lexicon.MONTHS["sept"] == lexicon.MONTHS["september"] == "sep"
    assert "tuesday" in lexicon.WEEKDAYS and "the" in lexicon.STOPWORDS and "bridge" not in lexicon.STOPWORDS
    assert lexicon.NAME_LABELS < lexicon.ENTITY_LABELS and lexicon.SPEAKER_LABELS <= lexicon.NAME_LABELS
    assert {lexicon.VALUE_LABELS[k] for k in ("PERSON", "ORG", "GPE", "NORP")} == set(lexicon.NAME_KINDS)
