"""Value substitutions: a number or date standing, word for word, where the evidence sentence has another value is
flagged by the offline verifier and put back by the offline reviser, wherever the parser hangs the two values (real
spaCy parses, the packaged MiniLM, a real store)."""

from __future__ import annotations

import pytest

import citefix
from citefix.nlp import load_spacy
from citefix.verify.names import value_substitutions

PROFILE = ("Allen joined the club from Walsall in 1950. Two great feet, played all along the forward line, reinvented "
           "the role of the centre-forward by dropping deep, a footballing intellect which won him five England caps. "
           "He scored twice in the 1954 FA Cup Final win. He later managed the club for three seasons.")


@pytest.fixture(scope="module")
def nlp():
    return load_spacy()


def _subs(nlp, text: str, evidence: str):
    return [(s["text"], s["evidence"], s["value_kind"])
            for s in value_substitutions(nlp(text), [(0, len(text))], [nlp(evidence)])]


@pytest.mark.parametrize("text, evidence, found", [
    # the parser reads "six England caps" as a compound and "five" as the number of "caps": the copy pins the slot
    ("a footballing intellect won him six England caps",
     "a footballing intellect which won him five England caps.", ("six", "five", "number")),
    ("Liam and Noel Gallagher have nothing on these five.",
     "Liam and Noel Gallagher have nothing on these two.", ("five", "two", "number")),
    ("His coaching experience spans over 13 years.", "His coaching experience spans over 11 years.",
     ("13", "11", "number")),
    ("The concerts take place Friday, September 14, and Saturday, August 15.",
     "The concerts take place Friday, August 14, and Saturday, August 15.", ("September", "August", "date")),
])
def test_a_value_put_in_a_copied_sentence_is_found(nlp, text, evidence, found):
    assert _subs(nlp, text, evidence) == [found]


@pytest.mark.parametrize("text, evidence", [
    ("The club won 5 games last season.", "The club won five games last season."),  # one value written two ways
    ("The club won six home games last season.", "The club won five games last season."),  # more than a value
    ("Six won.", "Five won."),  # too few copied words around the slot
    ("The club won six games away last season.", "The club won the games away last season."),  # not two values
])
def test_what_is_not_a_value_substitution(nlp, text, evidence):
    assert _subs(nlp, text, evidence) == []


def test_check_flags_it_and_refine_puts_the_value_back(tmp_path):
    db = tmp_path / "s.db"
    text = "Allen was a footballing intellect which won him six England caps."
    result = citefix.check(text, sources=[PROFILE], db=db)
    flagged = [result.verdict_for(u.id) for u in result.units if result.verdict_for(u.id).label == "unsupported"]
    assert flagged and any("conflict: six" in v.details["structure"] for v in flagged), \
        [(u.text, result.verdict_for(u.id).details.get("structure")) for u in result.units]
    report = citefix.refine(text, sources=[PROFILE], db=db, rounds=2)
    assert report.best_text == text.replace("six", "five")


def test_a_value_the_source_says_with_the_same_words_elsewhere_is_no_substitution(tmp_path):
    """Two sentences alike but for their values: the unit's own sentence, not its look-alike, decides."""
    source = PROFILE + " His brother, a footballing intellect too, won him six England caps as his agent."
    result = citefix.check("a footballing intellect won him six England caps", sources=[source], db=tmp_path / "s.db")
    structure = [s for u in result.units for s in result.verdict_for(u.id).details["structure"]]
    assert not any(s == "conflict: six" for s in structure), structure

