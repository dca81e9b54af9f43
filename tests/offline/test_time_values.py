"""Times of different grains do not contradict each other, and a time counted from one the text names needs no phrase
of the source: the offline verifier on real spaCy parses (the packaged MiniLM)."""

from __future__ import annotations

import pytest
from helpers import rules_verifier, whole_unit_features

from citefix.models import Case, Source
from citefix.verify.local import time_grains


@pytest.fixture(scope="module")
def verifier():
    return rules_verifier()


_check = whole_unit_features


def test_time_grains():
    assert time_grains("fall 2016") == {"year"} and time_grains("this year") == {"relative"}
    assert time_grains("24 January 1957") == {"year", "month"} and time_grains("Thursday") == {"weekday"}
    assert time_grains("two years") == time_grains("about eighteen months") == {"duration"}
    assert time_grains("aged 52 to 60") == {"number"} and time_grains("afternoon") == set()
    assert time_grains("the winter season") == set()


def test_a_relative_time_does_not_contradict_a_date(verifier):
    source = "Posted 2016. The new school opened this year with 400 ninth-grade students."
    score, f = _check(verifier, source, "The school opened in fall 2016 with 400 ninth-grade students.")
    assert f["value_conflict"] == 0, f["structure"]
    assert score > verifier.supported_at("default")


def test_times_of_one_grain_still_contradict(verifier):
    source = "Work on the bridge will take about eighteen months, the council said on Monday."
    score, f = _check(verifier, source, "Work on the bridge will take two years, the council said on Monday.")
    assert score <= 0.2
    # two times counted from the same now
    source = "And last week a judge in Spain ruled there was sufficient evidence against the club. Last month it won."
    score, f = _check(verifier, source, "Last month a judge in Spain ruled there was sufficient evidence against the club.")
    assert score <= 0.2
    source = "Posted 2009. The band released the studio version of the song in 2009."
    score, f = _check(verifier, source, "The band released the studio version of the song on October 6, 1995.")
    assert score <= 0.2


def test_a_time_counted_from_the_texts_own_date_needs_no_phrase(verifier):
    source = "The couple married in New York in December 2012. Their son, Bear, was born in 2013."
    score, f = _check(verifier, source, "The couple married in New York in December 2012, and their son, Bear, was "
                                        "born the next year.")
    assert not [m for m in f["missing"] if m["kind"] == "date"], f["missing"]
    # a time counted from now that the source lacks is still missing
    score, f = _check(verifier, source, "Their son, Bear, was born last year.")
    assert [m["text"] for m in f["missing"] if m["kind"] == "date"] == ["last year"]
    source = "Erin is due to return to the UK within the next month for a transplant."
    score, f = _check(verifier, source, "Erin is due to return to the UK within the next year for a transplant.")
    assert [m["text"] for m in f["missing"] if m["kind"] == "date"] == ["next year"] and score <= 0.2


def test_a_year_span_written_short_and_units_spelt_two_ways():
    from citefix.verify.lexical import find_numbers, number_supported
    from citefix.verify.local import same_value

    nums = find_numbers("during the 2018\u201319 academic year")
    assert [n.value for n in nums] == [2018.0, 2019.0]
    assert number_supported(nums[1], [2019.0]) and not number_supported(nums[1], [2018.0])
    assert [n.value for n in find_numbers("a 5-19 defeat")] == [5.0, 19.0]
    assert same_value("approximately 230 metres", "approximately 230 meters") and same_value("5 litres", "5 liters")
    assert not same_value("230 metres", "240 meters")


def test_a_name_in_the_evidences_brackets_is_an_aside_not_a_substitution(verifier):
    source = ("The company is also home to historic imprints including Verve Forecast Records (Richie Havens, Laura "
              "Nyro), Impulse! Records (John Coltrane, Charles Mingus) and Decca Records.")
    score, f = _check(verifier, source, "This company is also home to historic imprints including Verve Forecast "
                                        "Records, Impulse! Records and Decca Records.")
    assert f["name_substitution"] == 0, f["structure"]


def _units(verifier, source: str, text: str):
    from citefix.decompose.clauses import ClauseDecomposer

    case = Case(id="c", sources=[Source(id="1", text=source)], text=text)
    units = ClauseDecomposer().units(case)
    return list(zip(units, verifier.features(units, case)))


def test_a_value_the_decomposer_took_from_two_places_is_no_conflict(verifier):
    # a faithful copy; a detail unit cut "of 15" out of "at the age of 15 in 2001", leaving "the age in 2001"
    source = ("Falcao scored three times this week. Joining River Plate at the age of 15 in 2001 before making his "
              "first-team debut four years later, Falcao went on to score 34 goals in 90 appearances for the club.")
    text = ("Joining River Plate at the age of 15 in 2001 before making his first-team debut four years later, Falcao "
            "went on to score 34 goals in 90 appearances for the club.")
    out = _units(verifier, source, text)
    assert out and not any(f["value_conflict"] for _, f in out), [(u.text, f["structure"]) for u, f in out]


def test_a_name_the_sources_recogniser_left_unmarked_is_still_stated(verifier):
    source = ("\"If there is no political agreement and a ceasefire, Idlib will become the next Aleppo,\" he told reporters "
              "in Paris.\nAleppo's besieged residents have faced weeks of bombardment.\nRussian Lt Gen Viktor Poznikhir "
              "said on Thursday that, with the evacuation, the Syrian armed forces had almost finished their operations "
              "in Aleppo. Fighting has raged there for four years.\nIn October, President Assad said the army would "
              "finish the job.")
    text = ("Russian Lt Gen Viktor Poznikhir said that, with the evacuation, the Syrian armed forces had almost "
            "finished their operations in Aleppo.")
    out = _units(verifier, source, text)
    assert out and not any(f["value_conflict"] for _, f in out), [(u.text, f["structure"]) for u, f in out]
    # another speaker put in his place is still contradicted
    out = _units(verifier, source, text.replace("Russian Lt Gen Viktor Poznikhir", "Mr Lavrov"))
    assert any(verifier.score(f) <= 0.2 for _, f in out), [(u.text, f["structure"]) for u, f in out]


def test_a_month_is_checked_as_a_date_not_as_a_name(verifier):
    source = "Updated Jun 2018. The man has never been identified, and the investigation remains open."
    score, f = _check(verifier, source, "The man has never been identified, and the investigation remains open "
                                        "(June 2018).")
    assert not f["missing"] and score > verifier.supported_at("default"), f["missing"]
    score, f = _check(verifier, source, "The investigation remains open (July 2018).")
    assert [m["kind"] for m in f["missing"]] == ["date"] and score <= 0.2


def test_a_part_of_a_named_day_must_be_the_sources(verifier):
    """"Tuesday evening" where the source says "Tuesday morning": the weekday is there, the time of day is not."""
    from citefix.verify.times import time_phrases

    assert [p for p, _, _ in time_phrases("He arrived on Tuesday evening, not yesterday night.")] == [
        "tuesday evening", "yesterday night"]
    source = "The minister arrived in Nairobi on Tuesday morning for talks on the drought in East Africa."
    score, f = _check(verifier, source, "The minister arrived in Nairobi on Tuesday evening for talks on the drought.")
    assert f["missing_dates"] == 1 and score < verifier.supported_at("default"), f["missing"]
    score, f = _check(verifier, source, "The minister arrived in Nairobi on Tuesday morning for talks on the drought.")
    assert f["missing_dates"] == 0 and score >= verifier.supported_at("default")
