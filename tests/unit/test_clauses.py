"""ClauseDecomposer: clause-level units from spaCy, with spans into the case text (real spaCy, no mocks)."""

from __future__ import annotations

import re

import pytest

from citefix.decompose.base import Decomposer
from citefix.decompose.clauses import ClauseDecomposer, unit_to_text_offsets
from citefix.models import Case, Source

pytestmark = pytest.mark.slow

_STOP = {"the", "a", "an", "and", "but", "or", "of", "in", "on", "to", "was", "is", "who", "which", "that", "while"}


@pytest.fixture(scope="module")
def dec() -> ClauseDecomposer:
    return ClauseDecomposer(split_details=False)  # clause cutting alone; atomic details: tests/unit/test_atomic.py


def _case(text: str) -> Case:
    return Case(id="c", sources=[Source(id="1", text="A source.")], text=text)


def _check_alignment(units, text):
    for u in units:
        assert u.has_span and 0 <= u.start < u.end <= len(text)
        for a, b, o in u.meta["align"]:
            assert u.text[a:b] == text[o : o + b - a]


def _check_coverage(units, text):
    """Every content word of the text is in some unit's text (nothing silently dropped)."""
    words = [w for w in re.findall(r"[A-Za-z0-9£$.,']+", text) if w.lower().strip(".,") not in _STOP]
    joined = " ".join(u.text for u in units)
    for w in words:
        w = w.strip(".,")
        if w:
            assert w in joined, (w, [u.text for u in units])


def test_is_a_decomposer(dec):
    assert isinstance(dec, Decomposer)
    assert dec.name == "spacy-clauses"


def test_coordinated_clauses_with_own_subjects(dec):
    text = "Boris Johnson resigned on Tuesday and Theresa May appointed a successor."
    units = dec.units(_case(text))
    assert [u.text for u in units] == ["Boris Johnson resigned on Tuesday", "Theresa May appointed a successor"]
    assert [text[u.start : u.end] for u in units] == ["Boris Johnson resigned on Tuesday", "Theresa May appointed a successor"]
    assert [u.id for u in units] == ["u1", "u2"]
    assert all(u.kind == "clause" and u.decomposer == "spacy-clauses" and u.sentence == 0 for u in units)
    _check_alignment(units, text)


def test_coordinated_verbs_share_the_subject(dec):
    text = "The man won the prize but lost his wallet."
    units = dec.units(_case(text))
    assert [u.text for u in units] == ["The man won the prize", "The man lost his wallet"]
    # the copied subject is not part of the second unit's span: the span points to the original words
    assert text[units[1].start : units[1].end] == "lost his wallet"
    _check_alignment(units, text)
    _check_coverage(units, text)


def test_relative_clause_is_split_out_with_its_antecedent(dec):
    text = "The company, which was founded in 1990, sold 3.08 million cars."
    units = dec.units(_case(text))
    texts = [u.text for u in units]
    assert "The company sold 3.08 million cars" in texts
    rel = next(u for u in units if "1990" in u.text)
    assert rel.text == "The company was founded in 1990"
    assert text[rel.start : rel.end] == "which was founded in 1990"
    assert rel.meta["clause"] == "relcl"
    _check_alignment(units, text)
    _check_coverage(units, text)


def test_apposition_becomes_a_copular_unit(dec):
    text = "Boris Johnson, the foreign secretary, said the deal was dead."
    units = dec.units(_case(text))
    texts = [u.text for u in units]
    assert "Boris Johnson said the deal was dead" in texts
    app = next(u for u in units if "secretary" in u.text)
    assert app.text == "Boris Johnson was the foreign secretary"
    assert text[app.start : app.end] == "the foreign secretary"
    _check_alignment(units, text)
    _check_coverage(units, text)


def test_units_are_in_text_order_with_sentence_indices(dec):
    text = "She visited her GP, who referred her to a specialist, and waited for three years. The clinic is in Belfast."
    units = dec.units(_case(text))
    assert [u.id for u in units] == [f"u{i + 1}" for i in range(len(units))]
    assert [u.start for u in units] == sorted(u.start for u in units)
    assert units[-1].sentence == 1 and units[-1].text == "The clinic is in Belfast"
    assert {u.sentence for u in units[:-1]} == {0}
    assert any(u.text == "her GP referred her to a specialist" for u in units)
    assert any(u.text == "She waited for three years" for u in units)
    _check_alignment(units, text)
    _check_coverage(units, text)


def test_citation_marks_are_removed_and_kept_as_cited_ids(dec):
    text = "Cups can be made of glass [1] or plastic [2][3]. Queen Anne became Queen of England in 1702 [4]."
    units = dec.units(_case(text))
    assert all("[" not in u.text for u in units)
    assert units[0].text == "Cups can be made of glass or plastic"
    assert units[0].cited == ["1", "2", "3"]
    assert units[-1].cited == ["4"] and units[-1].text == "Queen Anne became Queen of England in 1702"
    _check_alignment(units, text)


def test_contrastive_while_clause_is_its_own_unit(dec):
    text = "Queen Victoria became Queen on 20 June 1837, while Queen Anne became Queen on 8 March 1702."
    units = dec.units(_case(text))
    assert [u.text for u in units] == ["Queen Victoria became Queen on 20 June 1837", "Queen Anne became Queen on 8 March 1702"]


def test_lowercased_tokenised_summary_is_covered(dec):
    text = "a man has been charged with murder after a woman was found dead in a flat in glasgow ."
    units = dec.units(_case(text))
    assert units and units[0].start == 0
    _check_alignment(units, text)
    _check_coverage(units, text)


def test_odd_inputs(dec):
    assert dec.units(_case("!!! ...")) == []
    one = dec.units(_case("Yes"))
    assert len(one) == 1 and one[0].text == "Yes" and (one[0].start, one[0].end) == (0, 3)
    many = dec.units_many([_case("It rained."), _case("He left and she stayed.")])
    assert [len(x) for x in many] == [1, 2]


def test_deterministic(dec):
    text = "The man who lives in Paris won the prize but lost his wallet, the police said."
    a = [u.model_dump() for u in dec.units(_case(text))]
    b = [u.model_dump() for u in dec.units(_case(text))]
    assert a == b


def test_unit_to_text_offsets_identity_fallback():
    from citefix.models import Unit

    u = Unit(id="u1", text="cost £30m", kind="sentence", decomposer="x", start=4, end=13)
    assert unit_to_text_offsets(u, "The cost £30m.") == [[0, 9, 4]]
    v = Unit(id="u2", text="something else", kind="acu", decomposer="x")
    assert unit_to_text_offsets(v, "The cost £30m.") is None


@pytest.mark.parametrize("text, second", [
    ("The ferry operator said it had repeatedly offered to raise the crew's pay and backdate it.",
     "it had repeatedly offered to backdate it"),
    ("She did not agree to sign the deal and leave the club.", "She did not agree to leave the club"),
    ("The firm plans to cut 200 jobs and close two plants by 2020.", "The firm plans to close two plants by 2020"),
])
def test_a_verb_conjoined_to_an_infinitive_keeps_the_verb_that_governs_it(dec, text, second):
    # "it backdate it" is no statement: the conjoined verb shares the subject, the governing verb and "to"
    units = dec.units(_case(text))
    assert second in [u.text for u in units]
    _check_alignment(units, text)


def test_an_ing_form_misread_as_a_conjoined_verb_stays_in_its_clause(dec):
    # "earning" modifies "potential", but the parse conjoins it to "limit": cut apart, the unit read "which can
    # earning potential"; an -ing form that shares a "be" or has its own auxiliary is still a clause of its own
    text = "Early parenthood brings stress, which can limit future employment and earning potential."
    units = dec.units(_case(text))
    texts = [u.text for u in units]
    assert not any("can earning" in t for t in texts), texts
    assert any("earning potential" in t for t in texts), texts
    _check_alignment(units, text)
    text = "The FAA has completed a safety review of the rocket and is now conducting an environmental assessment."
    texts = [u.text for u in dec.units(_case(text))]
    assert "The FAA is now conducting an environmental assessment" in texts, texts
    text = "The national team is known for its titles and competing against rivals like Germany."
    texts = [u.text for u in dec.units(_case(text))]
    assert any(t.startswith("The national team is competing against rivals") for t in texts), texts


def test_list_items_are_sentences_of_their_own_without_their_markers():
    """An LLM summary written as a list: each item is cut on its own, its marker ("1.", "2)", "-") is no unit's word
    (a number the sources lack otherwise), and a heading line that states nothing ("Key points:") gives no unit."""
    text = ("Key points:\n1. Councillors voted 9 to 4 in favour of the plan.\n2) Most of the money will come from a "
            "regional fund.\n- The depot closed in 1987.")
    units = ClauseDecomposer().units(_case(text))
    _check_alignment(units, text)
    texts = [u.text for u in units]
    assert not any(t.strip().startswith(("1", "2", "-")) or t.strip() in ("1", "2", "3") for t in texts), texts
    assert not any("Key points" in t for t in texts), texts
    assert any(t.startswith("Councillors voted 9 to 4") for t in texts), texts
    assert any(t.startswith("Most of the money will come") for t in texts), texts
    assert any("depot closed in 1987" in t for t in texts), texts
    # no unit runs across two items
    assert not any("plan" in t and "money" in t for t in texts), texts


def test_a_lead_in_with_a_verb_and_numbers_inside_a_line_stay():
    """A line ending in ':' that says something is still cut; a number inside a line is a number."""
    text = "The council agreed on two points:\nwork starts in 2025 and 3 parks will open."
    texts = [u.text for u in ClauseDecomposer().units(_case(text))]
    assert any("council agreed" in t for t in texts), texts
    assert any("2025" in t for t in texts) and any("3 parks" in t for t in texts), texts
