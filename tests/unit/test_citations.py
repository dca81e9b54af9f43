"""Parsing citation marks: groups, sentences, cleaned text and the maps back to the original."""

from __future__ import annotations

import json

import pytest

from citefix.marks import parse_case, parse_citations, parse_mark
from citefix.models import Case, Source


def _sources(*ids):
    return [Source(id=i, text=f"passage {i}") for i in ids]


@pytest.mark.parametrize(
    "raw, ids",
    [
        ("[1]", ["1"]),
        ("[ 2 ]", ["2"]),
        ("[1, 2]", ["1", "2"]),
        ("[1,2]", ["1", "2"]),
        ("[1-3]", ["1", "2", "3"]),
        ("[1 – 3]", ["1", "2", "3"]),
        ("[1-2, 5]", ["1", "2", "5"]),
    ],
)
def test_mark_syntax(raw, ids):
    assert parse_mark(raw) == ids
    p = parse_citations(f"Cups are made of glass {raw}.")
    assert p.groups[0].ids == ids
    assert p.sentences[0].clean == "Cups are made of glass."


def test_reversed_or_huge_range_is_malformed():
    assert parse_mark("[3-1]") is None
    assert parse_mark("[1-5000]") is None
    p = parse_citations("Glass [3-1] cups.")
    assert not p.cited
    assert p.warnings[0].code == "malformed"
    assert p.sentences[0].clean == "Glass [3-1] cups."


def test_adjacent_marks_form_one_group():
    p = parse_citations("Cups can be made of glass [1] or plastic [2][3]. Both [4] [5] work.")
    assert [g.ids for g in p.groups] == [["1"], ["2", "3"], ["4", "5"]]
    assert [len(g.marks) for g in p.groups] == [1, 2, 2]
    assert [g.sentence for g in p.groups] == [0, 0, 1]
    assert p.sentences[0].clean == "Cups can be made of glass or plastic."


def test_group_positions_in_clean_and_original():
    text = "Cups can be made of glass [1] or plastic [2][3]."
    s = parse_citations(text).sentences[0]
    g1, g2 = s.groups
    assert s.clean[: g1.clean_offset] == "Cups can be made of glass"
    assert s.clean[: g2.clean_offset] == "Cups can be made of glass or plastic"
    assert text[g1.start : g1.end] == "[1]"
    assert text[g2.start : g2.end] == "[2][3]"
    assert (g1.word_position, g2.word_position, g1.sentence_words) == (6, 8, 8)
    assert not g1.at_end and g2.at_end
    # every cleaned character maps to the same character of the original
    assert all(text[o] == c for c, o in zip(s.clean, s.offsets))


@pytest.mark.parametrize(
    "text",
    [
        "Cups can be made of plastic. [2] They break.",
        "Cups can be made of plastic.[2][3] They break.",
        "Cups can be made of plastic.\n\n[2] They break.",
    ],
)
def test_group_after_final_punctuation_belongs_to_that_sentence(text):
    p = parse_citations(text)
    assert [s.clean for s in p.sentences] == ["Cups can be made of plastic.", "They break."]
    assert p.groups[0].sentence == 0
    assert p.groups[0].at_end
    assert p.sentences[0].text.rstrip().endswith("]")
    assert not p.sentences[1].groups


def test_group_at_start_of_answer_goes_to_first_sentence():
    p = parse_citations("[1] Cups break. Plates too.")
    assert p.groups[0].sentence == 0
    assert p.sentences[0].clean == "Cups break."
    assert p.groups[0].clean_offset == 0 and p.groups[0].word_position == 0


def test_numbers_and_punctuation_survive():
    p = parse_citations("Support rose to between $3.08 million and $19.2 million annually[30]. Dr. Grey left [2].")
    assert p.sentences[0].clean == "Support rose to between $3.08 million and $19.2 million annually."
    assert len(p.sentences) == 2  # "Dr." does not end a sentence


def test_glued_mark_keeps_words_apart():
    text = "glass[1]or plastic."
    s = parse_citations(text).sentences[0]
    assert s.clean == "glass or plastic."
    pieces = s.original_pieces(0, len(s.clean))
    assert [p.text for p in pieces] == ["glass", "or plastic."]
    assert all(text[p.start : p.end] == p.text for p in pieces)


def test_unknown_passage_is_reported_not_raised():
    case = Case(id="c", text="Cups are made of glass [1][7]. Plates [9].", sources=_sources("1", "2"))
    p = parse_case(case)
    assert p.groups[0].ids == ["1", "7"]
    assert p.groups[0].missing == ["7"]
    assert p.groups[0].messages == ["passage [7] not found"]
    assert p.missing == ["7", "9"]
    assert [w.message for w in p.warnings if w.code == "missing"] == ["passage [7] not found", "passage [9] not found"]


def test_ids_compare_as_numbers_unless_a_source_uses_the_raw_form():
    assert parse_citations("A [07].", ["7"]).groups[0].ids == ["7"]
    assert parse_citations("A [07].", ["07"]).groups[0].ids == ["07"]
    assert parse_citations("A [1][1].", ["1"]).groups[0].ids == ["1"]


@pytest.mark.parametrize("bad", ["[1-]", "[a]", "[]", "[1,,2]", "[-3]"])
def test_malformed_marks_stay_as_text_with_a_warning(bad):
    text = f"Cups are made of glass {bad} and clay [2]."
    p = parse_citations(text, ["2"])
    assert [g.ids for g in p.groups] == [["2"]]
    assert bad in p.sentences[0].clean
    assert [w.code for w in p.warnings] == ["malformed"]
    assert bad in p.warnings[0].message


def test_ordinary_brackets_are_not_warned_about():
    p = parse_citations("He said it [sic] twice [citation needed], see [link](http://x.y).")
    assert p.warnings == [] and not p.cited


def test_uncited_answer():
    p = parse_citations("No marks here. None at all.")
    assert not p.cited
    assert p.groups == []
    assert [s.clean for s in p.sentences] == ["No marks here.", "None at all."]


def test_only_marks_is_an_orphan_warning():
    p = parse_citations("[1][2]")
    assert not p.cited
    assert p.warnings[0].code == "orphan"


def test_dumps_to_json_without_offsets():
    p = parse_citations("Cups [1] break [2].", ["1"])
    data = json.loads(p.model_dump_json())
    assert "offsets" not in data["sentences"][0]
    assert data["sentences"][0]["groups"][1]["missing"] == ["2"]
    with pytest.raises(Exception):
        p.sentences[0].groups[0].ids = []  # frozen


def test_inline_list_items_are_sentences_without_their_markers():
    text = "Quality:\n- Record all, in the logbook[17]. - Conduct checks[18]. * Monitor dates [19]. Costs - about 3 - rose."
    p = parse_citations(text)
    assert [s.clean for s in p.sentences] == [
        "Quality:", "Record all, in the logbook.", "Conduct checks.", "Monitor dates.", "Costs - about 3 - rose."
    ]
    assert [g.sentence for g in p.groups] == [1, 2, 3]
