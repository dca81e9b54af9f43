"""A unit that a source holds word for word is read against that sentence, and a name substitution needs copied words
around the slot, not copied punctuation: the offline verifier on real spaCy parses (the packaged MiniLM)."""

from __future__ import annotations

import pytest
from helpers import rules_verifier, whole_unit_features

from citefix.decompose.clauses import ClauseDecomposer
from citefix.evaluate import evaluate
from citefix.models import Case, Source
from citefix.revision.feedback import build_strategy
from citefix.revision.offline import OfflineReviser

TRIAL = (
    "A busker who played the bagpipes outside Anfield has been fined for collecting money under a false pretence. "
    "He was cleared of two other counts by a jury at Liverpool Crown Court. "
    "Det Sgt Marta Kowalski told the court during the two day trial that the busker, from Woolton, gave the impression "
    "he was collecting cash for the Hillsborough Justice Campaign. "
    "The campaign had given him permission to design and display a banner featuring the eternal flame. "
    "But a spokesman said he had made it clear he was not to use it to collect funds for the charity. "
    "Carpenter told the court the banner was a tribute to the victims, not an attempt to deceive anyone. "
    "He also told the court he was a familiar face on match days at Anfield."
)


@pytest.fixture(scope="module")
def verifier():
    return rules_verifier()


def test_a_word_for_word_copy_is_read_against_its_own_sentence(verifier):
    # the unit's words other than its name ("told the court") align best to Carpenter's sentence, where the old
    # region finder read "Carpenter" as a conflicting name; the copy decides the region
    score, f = whole_unit_features(verifier, TRIAL, "Det Sgt Marta Kowalski told the court")
    assert f["value_conflict"] == 0 and not f["structure"], f["structure"]
    assert score > verifier.supported_at("default")


def test_a_name_swapped_into_the_copy_is_still_caught(verifier):
    text = "Det Sgt Marta Kowalski told the court the banner was a tribute to the victims"
    score, f = whole_unit_features(verifier, TRIAL, text)
    assert score <= 0.2, f["structure"]


def test_copy_at_names_the_source_and_offset(verifier):
    from citefix.verify.source_search import copy_at

    texts = ["Nothing here.", "Intro. " + TRIAL]
    pool = verifier._pool(["a", "b"], verifier._sources(texts))
    si, at = copy_at(verifier.nlp("det Sgt Marta Kowalski told the court, during"), pool)
    assert si == 1 and texts[1][at:].startswith("Det Sgt Marta Kowalski told the court during")
    assert copy_at(verifier.nlp("Marta Kowalski told the jury"), pool) is None
    assert copy_at(verifier.nlp("told the court"), pool) is None  # under COPY_MIN_WORDS words: proves nothing


def test_copied_punctuation_does_not_pin_a_name_slot(verifier):
    source = ("She has a daughter, Mia, with Jim Threapleton, to whom she was married for three years until 2001, and "
              "a son, Joe, with director Sam Mendes, from whom she split in 2010. Details of the New York wedding have "
              "been kept private. Kate Winslet married Ned Rocknroll in New York in December 2012. She welcomed Bear "
              "Blaze Winslet in December 2013.")
    # "their son, Bear, was" / "and a son, Joe, with": the copy around the slot is "son" and two commas
    score, f = whole_unit_features(verifier, source,
                                   "The couple married in New York in December 2012, and their son, Bear, was born "
                                   "the next year.")
    assert f["name_substitution"] == 0, f["structure"]


def test_a_name_in_a_copied_clause_is_still_a_substitution(verifier):
    source = "The minister, Joe Smith, opened the new bridge over the river on Monday."
    score, f = whole_unit_features(verifier, source, "The minister, Ann Jones, opened the new bridge over the river.")
    assert score <= 0.2, f["structure"]


CAPTAIN = (
    "Jones, 27, already leads the one-day side and will also captain the Twenty20 team in the absence of the injured "
    "Tom Reed.\n"
    "Fellow batsman Dan Hart, 29, has been named as Jones's vice-captain.\n"
    "\"At 27, Sam is a fine young man with extraordinary talent,\" said national selector Rod Marsh.\n"
    "\"He is highly regarded by the selectors and we congratulate him on being appointed to the role. He should be "
    "proud.\"\n"
    "Clarke, 35, confirmed his decision to retire after his side lost the series with a heavy defeat at Lord's.\n"
    "Jones had already captained the side in three Tests against India last summer, when Clarke was injured.\n"
    "The New South Welshman has played in 30 Tests for his country, scoring 2,900 runs at an average of 54.6.\n"
    "Hart has earned the vice-captain's role despite a history of disciplinary problems.\n"
    "Jones and Hart will lead the side in the limited-overs matches that follow the final Test, which starts on "
    "20 August."
)
TREMOR = (
    "Drilling was halted after a second tremor. The survey said the May tremor took place 3.1 miles (5km) away from the "
    "drilling site but said its monitoring instruments were 40 miles (64km) away. Data from two instruments close to "
    "the site indicate that the event occurred at a depth of approximately 5km (3.1 miles)."
)


@pytest.mark.parametrize("source, text", [
    # the apposition's unit "Jones is 27" aligns best to "At 27, Sam is …" and Hart's "29"; its sentence is a copy
    (CAPTAIN, CAPTAIN.split("\n")[0]),
    # the source's parse hangs "3.1 miles" on "took" (the bracket), the unit's on "away", where the source has "40 miles"
    (TREMOR, "The survey said the May tremor took place 3.1 miles (5km) away from the drilling site but said its "
             "monitoring instruments were 40 miles (64km) away."),
], ids=["apposition-aligned-elsewhere", "value-on-another-word"])
def test_a_sentence_the_source_holds_word_for_word_is_supported_and_left_alone(verifier, source, text):
    _supported_and_left_alone(verifier, source, text)


def _supported_and_left_alone(verifier, source: str, text: str) -> None:
    """Every unit of `text` supported against `source`, and the offline reviser returns the text unchanged."""
    case = Case(id="c", sources=[Source(id="1", text=source)], text=text)
    ev = evaluate(case, decomposer=ClauseDecomposer(), verifier=verifier)
    assert all(v.label == "supported" for v in ev.verdicts), [(u.text, v.score) for u, v in zip(ev.units, ev.verdicts)]
    out = OfflineReviser().revise(case, build_strategy("acu").feedback(case, ev), ev)
    assert out.text is None or out.text == text, out.text


def test_a_changed_value_in_a_copied_frame_is_still_a_conflict(verifier):
    text = ("The survey said the May tremor took place 4.5 miles (5km) away from the drilling site but said its "
            "monitoring instruments were 40 miles (64km) away.")
    case = Case(id="c", sources=[Source(id="1", text=TREMOR)], text=text)
    ev = evaluate(case, decomposer=ClauseDecomposer(), verifier=verifier)
    assert any(v.label == "unsupported" and "4.5" in u.text for u, v in zip(ev.units, ev.verdicts)), \
        [(u.text, v.score) for u, v in zip(ev.units, ev.verdicts)]


def test_a_value_copied_with_its_lead_in_but_put_on_another_noun_is_still_a_conflict(verifier):
    source = ("Three vehicles collided on the highway south of the town on Wednesday afternoon. A 40-year-old man with "
              "chest and shoulder injuries and a five-year-old boy with chest pain were the first patients flown out by "
              "rescue helicopter. Shortly after, a 27-year-old woman with arm injuries and a six-year-old girl "
              "suffering from abdominal pain were also being flown out.")
    text = ("A 40-year-old man with chest and shoulder injuries and a five-year-old girl suffering from abdominal pain "
            "were also being flown out.")
    score, f = whole_unit_features(verifier, source, text)
    assert f["value_conflict"] >= 1, f["structure"]


AWARDS = (
    "(meta data) TITLE: Two Pop Stars Big Winners At The Music Awards\n"
    "# Two Pop Stars Big Winners At The Music Awards\n"
    "Whitney Houston also took home the International Artist of the Year trophy at the ceremony.\n"
    "Jan Novak\n"
    "[artist id=\"1234\"]Taylor Swift[/artist] took home five awards, including Artist of the Year, at the 37th Music "
    "Awards on Sunday night (November 22), but the evening was dominated by a run of memorable performances.\n"
)
RADIO = (
    "The comedian joins the station's morning lineup with an uncensored daily talk show.\n"
    "Listeners can hear the new show every weekday morning from 8 am to 10 am ET starting Monday, March 5.\n"
    "Fans can expect an open conversation about pop culture and the news of the day."
)
FILMS = (
    "The director said he had chosen the script himself.\n"
    "My wife Manjeet is not very clued into the film industry, but she likes to watch films.\n"
    "She has seen all my films."
)
COURT = (
    "This landmark piece of civil rights legislation was followed by the Voting Rights Act of 1965.\n"
    "In 1976, the Supreme Court issued another landmark decision in Runyon v. McCrary, ruling that even private, "
    "nonsectarian schools that denied admission to students on the basis of race violated federal civil rights laws.\n"
    "By overturning the \"separate but equal\" doctrine, the Court's decision in Brown v. Board of Education had set "
    "the legal precedent that would be used to overturn laws enforcing segregation in other public facilities.\n"
)
CONTEST = (
    "The country debuted in the song contest in 2006 and is yet to win the event.\n"
    "The country achieved its best placing in the contest in 2008 with Sirusho and in 2014 with Aram, placing 4th.\n"
    "The 2015 contest is scheduled to take place in May in Vienna."
)


@pytest.mark.parametrize("source, text", [
    # "also" left out; the units' words other than the name align best to Taylor Swift's sentence
    (AWARDS, "Whitney Houston took home the International Artist of the Year trophy at the ceremony."),
    # the date at the end left out; "to 10 am ET" cut from "from 8 am" read as a conflicting time
    (RADIO, "Listeners can hear the new show every weekday morning from 8 am to 10 am ET starting Monday."),
    # the trailing "placing 4th" left out; "in 2014 with Aram" read against "in 2008"
    (CONTEST, "The country achieved its best placing in the contest in 2008 with Sirusho and in 2014 with Aram."),
    # the clause after "but" left out; the unit cut without the apposition read "is not" as a polarity mismatch
    (FILMS, "My wife Manjeet is not very clued into the film industry."),
    # the trailing clause left out; "v." had ended a sentence, so the unit "… in Runyon" crossed two and had no host
    (COURT, "In 1976, the Supreme Court issued another landmark decision in Runyon v. McCrary."),
], ids=["adverb-left-out", "date-left-out", "trailing-phrase-left-out", "negation-kept", "case-name-with-v"])
def test_a_compression_of_one_source_sentence_is_supported_and_left_alone(verifier, source, text):
    _supported_and_left_alone(verifier, source, text)


@pytest.mark.parametrize("text, wrong", [
    ("Taylor Swift took home the International Artist of the Year trophy at the ceremony.", "Taylor Swift"),
    ("The country achieved its best placing in the contest in 2008 with Sirusho and in 2012 with Aram.", "2012"),
    # a compression that leaves out the sentence's "not" turns its polarity round: not excused
    ("My wife Manjeet is very clued into the film industry.", "clued"),
], ids=["name-swapped-in", "year-changed", "negation-left-out"])
def test_an_error_planted_in_a_compression_is_still_caught(verifier, text, wrong):
    source = AWARDS + CONTEST + "\n" + FILMS
    case = Case(id="c", sources=[Source(id="1", text=source)], text=text)
    ev = evaluate(case, decomposer=ClauseDecomposer(), verifier=verifier)
    assert any(v.label == "unsupported" and wrong in u.text for u, v in zip(ev.units, ev.verdicts)), \
        [(u.text, v.score) for u, v in zip(ev.units, ev.verdicts)]


def test_compression_at_keeps_runs_and_numbers_left_out_apart(verifier):
    from citefix.verify.source_search import compression_at

    source = ("The side was led by Freda Humphreys, a teacher, and by Anne Smith from 1999 to 2003, when the club "
              "folded.\nThe team was coached by Jo Bell in 1991 and by Di Roe from 1999 to 2003.")
    pool = verifier._pool(["a"], verifier._sources([source]))
    host = compression_at(verifier.nlp("The side was led by Freda Humphreys and by Anne Smith from 1999 to 2003."), pool)
    assert (host.source, source[host.at:host.at + 8], source[host.start:host.end].rstrip()) == (
        0, "The side", source.split("\n")[0])
    assert host.keeps_numbers and host.keeps_negations
    # a year left out between the kept words: the sentence still locates the units, but "Jo Bell and by Di Roe from
    # 1999" no longer says whose years those are, so its values are not taken as the source's
    host = compression_at(verifier.nlp("The team was coached by Jo Bell and by Di Roe from 1999 to 2003."), pool)
    assert host is not None and not host.keeps_numbers
    # words gathered from four stretches are a new sentence, not a compression
    assert compression_at(verifier.nlp("The side led Humphreys Smith when the club folded."), pool) is None


BLOG_PAGE = (
    "(meta data) TITLE: River City Rovers | ROVERS MAKE ROSTER MOVES\n## Primary nav\nSHOP\n# River City Rovers\n"
    "## ROVERS MAKE ROSTER MOVES\nPosted by\nOctober 20, 2015 – 7:02 pm\n"
    "The Rovers today signed free agent cornerback Tom Carver.\n"
    "The team also signed quarterback Matt Blake to the practice squad.\n"
    "Carver, 5-9, 175 pounds, played the last four seasons (2011-14) with the Denver Broncos.\n"
    "He has totaled 42 tackles (37 solo), 22 passes defensed, three interceptions and six special teams tackles.\n"
    "Blake carried the ball 30 times for 180 yards and two touchdowns.\n"
    "He played in eight games as a freshman and connected on 4-of-8 passes for 75 yards.\n"
    "Posted in\nRovers Blog\nSorry, comments for this entry are closed at this time.\n### Categories\nRovers Blog\n"
    "Rovers Cheerleading\nROVERS DAILY HEADLINES\nRovers Photography\nEvents and Promotions\nFan Feature\n"
    "### Recent Posts\nStadium Roof Update\nROVERS MAKE ROSTER MOVES\nROVERS SIGN WR\nROVERS MAKE ROSTER MOVES\n"
)


def test_the_reviser_leaves_a_flagged_sentence_that_stands_in_the_source_as_written(verifier):
    # the page's token embeddings align the copied "at this time" poorly: the modifier unit is flagged, and cutting
    # it was the reviser's answer, though the sentence stands in the page with only "Sorry," left out
    text = "Comments for this entry are closed at this time."
    case = Case(id="c", sources=[Source(id="1", text=BLOG_PAGE)], text=text)
    ev = evaluate(case, decomposer=ClauseDecomposer(), verifier=verifier)
    flagged = [v for v in ev.verdicts if v.label == "unsupported"]
    assert flagged and all(v.details["stands_in_source"] for v in flagged), [(u.text, v.score) for u, v in
                                                                             zip(ev.units, ev.verdicts)]
    out = OfflineReviser().revise(case, build_strategy("acu").feedback(case, ev), ev)
    assert out.text is None or out.text == text, out.text
    assert any(e["kind"] == "kept" and "stands in the source" in e["why"] for e in out.edits)


def test_a_sentence_that_leaves_a_negation_out_is_not_taken_as_standing_in_the_source(verifier):
    case = Case(id="c", sources=[Source(id="1", text=FILMS)],
                text="My wife Manjeet is very clued into the film industry.")
    ev = evaluate(case, decomposer=ClauseDecomposer(), verifier=verifier)
    assert not any(v.details.get("stands_in_source") for v in ev.verdicts)
