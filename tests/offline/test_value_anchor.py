"""A changed number where another sentence of the source holds the same number near the same word: that sentence
excuses it only when the number stands next to the word with no other number between them (the offline verifier
through citefix.check: real spaCy parses, the packaged MiniLM, a real store)."""

from __future__ import annotations

import citefix

SOURCE = ("Serco runs the ferry service to the Northern Isles. It operates three ferries and two cargo boats on a route "
          "which is heavily subsidised by the government. The RMT union had claimed some workers on board two freight "
          "boats were paid less than £4 an hour. The company said the dispute was now settled.")


def _structure(result) -> list[str]:
    return [s for u in result.units for s in result.verdict_for(u.id).details["structure"]]


def test_a_number_another_sentence_gives_to_other_words_is_contradicted(tmp_path):
    text = "The RMT union had claimed some workers on board three freight boats were paid less than £4 an hour."
    result = citefix.check(text, sources=[SOURCE], db=tmp_path / "s.db")
    assert "conflict: three" in _structure(result), [(u.text, result.verdict_for(u.id).label) for u in result.units]
    assert any(result.verdict_for(u.id).label == "unsupported" for u in result.units)


def test_the_number_on_the_same_word_in_another_sentence_anchors_it(tmp_path):
    source = SOURCE + " Last year three freight boats were laid up for repairs."
    text = "The RMT union had claimed some workers on board three freight boats were paid less than £4 an hour."
    result = citefix.check(text, sources=[source], db=tmp_path / "s.db")
    assert not any(s.startswith("conflict") for s in _structure(result)), _structure(result)


def test_the_faithful_statement_is_supported(tmp_path):
    text = "The RMT union had claimed some workers on board two freight boats were paid less than £4 an hour."
    result = citefix.check(text, sources=[SOURCE], db=tmp_path / "s.db")
    assert _structure(result) == []
    assert all(result.verdict_for(u.id).label == "supported" for u in result.units)


def test_one_value_written_two_ways_is_no_conflict(tmp_path):
    source = ("Wiggins finished his Team Sky career in the Paris-Roubaix 253.5km one-day race on Sunday. The programme "
              "was developed during the 2013-14 academic year. The bombs went off on April 15, 2013.")
    for text in ("Wiggins finished his career in the Paris-Roubaix 253.5 km one-day race.",
                 "The programme was developed during the 2013 academic year.",
                 "The bombs went off on April 15."):
        result = citefix.check(text, sources=[source], db=tmp_path / "s.db")
        assert not any(s.startswith("conflict") for s in _structure(result)), (text, _structure(result))


def test_same_value():
    from citefix.verify.local import same_value

    assert same_value("253.5km", "253.5 km") and same_value("2013", "2013-14") and same_value("April 15",
                                                                                             "April 15, 2013")
    assert not same_value("2", "2013") and not same_value("two", "three") and not same_value("£4.5m", "£4m")


def test_a_less_specific_value_in_the_region_does_not_state_the_units():
    from citefix.verify.local import same_value

    assert same_value("2013", "2013-14", one_way=True) and same_value("April 15", "April 15, 2013", one_way=True)
    assert not same_value("10 May", "May", one_way=True) and same_value("10 May", "May")


def test_a_number_written_in_words_or_digits_is_one_value():
    from citefix.verify.local import same_value

    assert same_value("fourth", "4th") and same_value("4th", "fourth", one_way=True) and same_value("nine", "9")
    assert not same_value("fourth", "5th") and not same_value("nine", "6")


def test_a_quarter_of_the_year_is_one_value_however_written():
    from citefix.verify.local import same_value

    assert same_value("4Q 2020", "the fourth quarter of 2020") and same_value("Q4 2020", "the 4th quarter of 2020")
    assert same_value("2Q", "Q2") and same_value("1Q 2021", "the 1st quarter of 2021")
    assert not same_value("3Q 2020", "the fourth quarter of 2020") and not same_value("4Q 2020", "4Q 2019")


def test_a_quarter_written_short_is_no_conflict_with_the_source(tmp_path):
    source = ("We are anticipating home deliveries for the fourth quarter of 2020 to reach between 2,400 and 2,600 "
              "units.")
    ok = citefix.check("Home deliveries for 4Q 2020 are predicted to hit between 2,400 and 2,600 units.",
                       sources=[source], db=tmp_path / "s.db")
    assert not any(s.startswith("conflict") for s in _structure(ok)), _structure(ok)
    bad = citefix.check("Home deliveries for 3Q 2020 are predicted to hit between 2,400 and 2,600 units.",
                        sources=[source], db=tmp_path / "s.db")
    assert any(s.startswith("conflict") for s in _structure(bad)), _structure(bad)
