"""ALiiCE claim extraction on real spaCy parses (en_core_web_sm 3.8), pinned to METHODS §2's worked examples."""

from __future__ import annotations

import pytest

from citefix.decompose.base import Decomposer
from citefix.decompose.claims import (
    FALLBACK_ALIGN,
    FALLBACK_LONG,
    FALLBACK_ROOT,
    ClaimDecomposer,
    ParsedTokens,
    SentenceDecomposer,
    attach_word,
    cut_claims,
)
from citefix.models import Case, Source

pytestmark = pytest.mark.slow  # loads spaCy


def _case(text: str, ids=range(1, 60)) -> Case:
    return Case(id="c", text=text, sources=[Source(id=str(i), text=f"passage {i}") for i in ids])


@pytest.fixture(scope="module")
def aliice():
    return ClaimDecomposer()


def _claims(dec, text):
    return [(u.text, u.cited) for u in dec.units(_case(text))]


def test_protocols():
    assert isinstance(ClaimDecomposer(), Decomposer)
    assert isinstance(SentenceDecomposer(), Decomposer)
    assert ClaimDecomposer.name == "aliice" and SentenceDecomposer.name == "alce-sentence"


def test_cups(aliice):
    units = aliice.units(_case("Cups can be made of glass [1] or plastic [2][3]."))
    assert [(u.text, u.cited, u.kind) for u in units] == [
        ("Cups can be made of glass", ["1"], "claim"),
        ("Cups can be made of plastic", ["2", "3"], "claim"),
    ]
    # the second claim is not contiguous: its pieces are exact stretches of the text
    text = "Cups can be made of glass [1] or plastic [2][3]."
    u2 = units[1]
    assert [p["text"] for p in u2.meta["pieces"]] == ["Cups can be made of", "plastic"]
    assert all(text[p["start"] : p["end"]] == p["text"] for p in u2.meta["pieces"])
    assert (u2.start, u2.end) == (0, text.index("plastic") + len("plastic"))
    assert [u.id for u in units] == ["u1", "u2"]
    assert [(u.sentence, u.group) for u in units] == [(0, 0), (0, 1)]


def test_cigarettes(aliice):
    assert _claims(
        aliice,
        "Some brands, such as Export As, come in packs of 25 [2], while standard packs typically contain "
        "20 cigarettes [4].",
    ) == [
        ("Some brands, such as Export As, come in packs of 25", ["2"]),
        ("standard packs typically contain 20 cigarettes", ["4"]),
    ]


def test_queens(aliice):
    assert _claims(
        aliice,
        "Queen Victoria became Queen of the United Kingdom on 20 June 1837[3], while Queen Anne became Queen of "
        "England, Scotland, and Ireland on 8 March 1702[1].",
    ) == [
        ("Queen Victoria became Queen of the United Kingdom on 20 June 1837", ["3"]),
        ("Queen Anne became Queen of England, Scotland, and Ireland on 8 March 1702", ["1"]),
    ]


GREY = (
    "In the plane crash on Grey's Anatomy, the characters who die are Dr. Lexie Grey [1][2] and "
    "Dr. Mark Sloan [3][4][5]."
)


def test_greys_anatomy(aliice):
    assert _claims(aliice, GREY) == [
        ("In the plane crash on Grey's Anatomy, the characters who die are Dr. Lexie Grey", ["1", "2"]),
        ("In the plane crash on Grey's Anatomy, the characters who die are Dr. Mark Sloan", ["3", "4", "5"]),
    ]


def test_greys_anatomy_dangling_and_without_coordinator_cleanup():
    # The published rules leave the coordinator between the kept words and the removed conjunct: a known wart.
    dec = ClaimDecomposer(drop_coordinators=False)
    assert _claims(dec, GREY)[0] == (
        "In the plane crash on Grey's Anatomy, the characters who die are Dr. Lexie Grey and",
        ["1", "2"],
    )
    assert _claims(dec, "Cups can be made of glass [1] or plastic [2][3].")[0] == ("Cups can be made of glass or", ["1"])


def test_known_parser_error(aliice):
    # METHODS (the paper's parser) gives "... include gas Deuel's halo sign" for [2]: its parse hung "sign" under
    # "gas". en_core_web_sm 3.8 hangs "sign" as a conjunct of the root verb "include" instead, so the rules keep that
    # conjunct alone and the claim loses its subject. Still wrong, differently; pinned so a parser change shows.
    assert _claims(
        aliice,
        "Other radiological signs of fetal death include gas in the fetus or in the portal and umbilical vessels [1], "
        "and Deuel's halo sign [2].",
    ) == [
        ("Other radiological signs of fetal death include gas in the fetus or in the portal and umbilical vessels",
         ["1"]),
        ("Deuel's halo sign", ["2"]),
    ]


def test_numbers_survive(aliice):
    assert _claims(
        aliice,
        "In 2019, the level of contributions were reported by the Wikimedia Foundation as being at $120 million "
        "annually[29], updating the Jaffe estimates for the higher level of support to between $3.08 million and "
        "$19.2 million annually[30].",
    ) == [
        ("In 2019, the level of contributions were reported by the Wikimedia Foundation as being at $120 million "
         "annually", ["29"]),
        ("updating the Jaffe estimates for the higher level of support to between $3.08 million and $19.2 million "
         "annually", ["30"]),
    ]


def test_opening_phrase_refinement(aliice):
    # The refinement: an opening prepositional phrase's group gets the phrase; the main clause's group the clause.
    assert _claims(
        aliice,
        "In addition to logistic growth in the number of its articles[36], Wikipedia has steadily gained status as a "
        "general reference website since its inception in 2001[37].",
    ) == [
        ("In addition to logistic growth in the number of its articles", ["36"]),
        ("Wikipedia has steadily gained status as a general reference website since its inception in 2001", ["37"]),
    ]


def test_single_group_gives_the_whole_sentence(aliice):
    units = aliice.units(_case("Cups can be made of glass. Plates are made of clay [2]. Bowls [3] are wood."))
    assert [(u.text, u.kind, u.cited, u.sentence, u.note) for u in units] == [
        ("Plates are made of clay.", "sentence", ["2"], 1, None),
        ("Bowls are wood.", "sentence", ["3"], 2, None),
    ]
    assert "fallback" not in units[0].meta


def test_long_sentence_falls_back(aliice):
    text = " ".join(["word"] * 30) + " [1] and " + " ".join(["more"] * 30) + " [2]."
    (u,) = aliice.units(_case(text))
    assert u.kind == "sentence" and u.cited == ["1", "2"]
    assert u.meta["fallback"] == FALLBACK_LONG == "long sentence"
    assert "long sentence" in u.note
    assert u.meta["groups"] == [0, 1]
    assert aliice.stats.fallbacks.get(FALLBACK_LONG, 0) >= 1


def test_root_carrying_citation_falls_back():
    dec = ClaimDecomposer()
    (u,) = dec.units(_case("Cups break [1] when plates fall [2]."))
    assert u.meta["fallback"] == FALLBACK_ROOT and u.cited == ["1", "2"]
    assert dec.stats.fallbacks == {FALLBACK_ROOT: 1}


def test_alignment_failure_is_a_fallback():
    # A group with no word before or after it (only punctuation in the cleaned sentence).
    toks = ParsedTokens(starts=[0], ends=[1], heads=[-1], deps=["ROOT"], punct=[True])
    assert attach_word(toks, 0) is None
    assert {c.fallback for c in cut_claims(toks, [0, 1])} == {FALLBACK_ALIGN}


def test_groups_on_one_word_share_the_sentence(aliice):
    (u,) = aliice.units(_case("Cups are made of glass [1], [2] in Italy."))
    assert u.kind == "sentence" and u.cited == ["1", "2"] and u.meta["groups"] == [0, 1]


def test_missing_passage_kept_on_the_unit(aliice):
    units = aliice.units(_case("Cups can be made of glass [1] or plastic [7].", ids=["1"]))
    assert [u.meta["missing"] for u in units] == [[], ["7"]]
    assert units[1].cited == ["7"]


def test_uncited_answer_gives_no_units(aliice):
    assert aliice.units(_case("Nothing cited here. At all.")) == []
    assert SentenceDecomposer().units(_case("Nothing cited here.")) == []


def test_sentence_decomposer_is_alce_style():
    text = "Cups can be made of glass [1] or plastic [2][3]. Uncited. Plates break.[4]"
    units = SentenceDecomposer().units(_case(text))
    assert [(u.id, u.text, u.cited, u.kind, u.sentence) for u in units] == [
        ("s1", "Cups can be made of glass or plastic.", ["1", "2", "3"], "sentence", 0),
        ("s2", "Plates break.", ["4"], "sentence", 2),
    ]
    assert [p["text"] for p in units[0].meta["pieces"]] == ["Cups can be made of glass", "or plastic", "."]


def test_units_many_batches_and_matches_units():
    texts = [GREY, "Cups can be made of glass [1] or plastic [2][3].", "No citations."]
    dec = ClaimDecomposer()
    many = dec.units_many([_case(t) for t in texts])
    one = [ClaimDecomposer().units(_case(t)) for t in texts]
    assert [[u.model_dump() for u in us] for us in many] == [[u.model_dump() for u in us] for us in one]
    assert dec.stats.sentences == 3 and dec.stats.cited_sentences == 2 and dec.stats.claims == 4


def test_ids_in_text_order_across_sentences(aliice):
    units = aliice.units(_case("A cat sat [1]. Cups can be made of glass [2] or plastic [3]. Dogs bark [4]."))
    assert [(u.id, u.sentence, u.group) for u in units] == [("u1", 0, 0), ("u2", 1, 1), ("u3", 1, 2), ("u4", 2, 3)]
