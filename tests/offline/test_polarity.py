"""The polarity check on real spaCy parses: a negation after a copula ("was not") counts on the source's side as on
the unit's, and a verb the source states elsewhere with the unit's polarity and subject is not contradicted by a
region that happens to hold the same verb negated."""

from __future__ import annotations

import re

import pytest
from helpers import units_verdicts

from citefix.decompose.clauses import ClauseDecomposer
from citefix.verify.offline import OfflineVerifier


@pytest.fixture(scope="module")
def tools():
    return ClauseDecomposer(), OfflineVerifier()


_check = units_verdicts


def _polarity(v) -> list[str]:
    return [s for s in v.details["structure"] if s.startswith("polarity")]


def _roles(out) -> list[str]:
    """The role swaps found in any unit, once each."""
    return sorted({s for v in out.values() for s in v.details["structure"] if s.startswith("role")})


SOURCE_NOT_HAPPY = ("Former team-mate Nabil Dirar spoke to French radio on Monday. He believes the striker must be "
                    "regretting his loan move to Manchester United, even though he was not happy in France. "
                    "The club was happy with the fee it received.")


def test_a_negation_after_the_copula_is_read_on_the_source_side(tools):
    out = _check(tools, SOURCE_NOT_HAPPY, "He was not happy in France.")
    assert out and not any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}
    # the check still fires the other way round: the source says he was happy, the text says he was not
    out = _check(tools, SOURCE_NOT_HAPPY.replace("he was not happy", "he was happy"), "He was not happy in France.")
    assert any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}


SOURCE_LEARN = ("Schools reported that children who aren't ready to learn cannot progress. Inspectors visited "
                "forty schools this year. The chief inspector said the social context of relationships in which children "
                "and young people live and learn has changed significantly in recent years.")


def test_a_verb_stated_elsewhere_with_the_units_words_is_not_contradicted(tools):
    # the summary copies the last sentence; its unit for "learn" aligns to the first sentence, where "learn" is negated
    text = ("The chief inspector said the social context of relationships in which children and young people live and "
            "learn has changed significantly in recent years.")
    out = _check(tools, SOURCE_LEARN, text)
    assert out and not any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}
    # with no sentence stating it positively, the negated sentence still contradicts "children learn"
    out = _check(tools, SOURCE_LEARN.replace("live and learn has", "live has"), "Children learn quickly.")
    assert any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}


def test_without_after_the_copula_is_no_negation(tools):
    source = ("Roma was without injured captain Francesco Totti and fellow forward Gervinho but Pjanic quickly made an "
              "impact with a free kick. The visitors never recovered.")
    out = _check(tools, source, "Roma was without injured captain Francesco Totti and fellow forward Gervinho.")
    assert out and not any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}


SOURCE_SANDERS = ("On Facebook, Bernie Sanders' personal page has almost three million likes while Hillary Clinton is "
                  "only able to manage 2.3 million. But his popularity on social sites won't necessarily translate into "
                  "Bernie Sanders becoming the frontrunner for the Democratic nomination. Left-leaning young voters in "
                  "the UK frequently made the Labour leader the top trend on Twitter.")


def test_a_negation_does_not_reach_across_words_the_decomposer_left_out(tools):
    # the core unit leaves out "into Bernie Sanders": "won't … translate becoming" must not read as "not becoming"
    text = ("His popularity on social sites won't necessarily translate into Bernie Sanders becoming the frontrunner for "
            "the Democratic nomination.")
    out = _check(tools, SOURCE_SANDERS, text)
    gapped = [u for u in out if "translate becoming" in u]
    assert gapped, list(out)  # the parse still gives the unit this test is about
    assert not any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}
    assert all(v.label == "supported" for v in out.values()), {k: (v.score, v.label) for k, v in out.items()}
    # a negation that did stand right before the verb still counts: the source says it will translate
    out = _check(tools, SOURCE_SANDERS.replace("won't necessarily translate", "will translate"), text)
    assert any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}


SOURCE_ALL_SHE_WROTE = ("Borthwick-Jackson's rasping 25-yard drive struck the angle of the crossbar and post. Dutch "
                        "winger Javairo Dilrosun curled a free kick onto the roof of the net in stoppage time for City "
                        "but that was all she wrote. The result leaves United two points behind leaders Middlesbrough.")


def test_a_clause_copied_word_for_word_is_supported(tools):
    text = ("Dutch winger Javairo Dilrosun curled a free kick onto the roof of the net in stoppage time for City but "
            "that was all she wrote.")
    out = _check(tools, SOURCE_ALL_SHE_WROTE, text)
    idiom = out.get("that was all she wrote")
    assert idiom is not None, list(out)
    assert idiom.details["features"]["copied"] == 1
    assert all(v.label == "supported" for v in out.values()), {k: (v.score, v.label) for k, v in out.items()}
    # a copy of another article's clause is no copy here, and a changed word breaks the copy
    out = _check(tools, SOURCE_ALL_SHE_WROTE, text.replace("that was all she wrote", "that was all he said"))
    assert all(v.details["features"]["copied"] == 0 for k, v in out.items() if "he said" in k)


SOURCE_SEATS = ("The Scottish National Party won 56 of the 59 Westminster constituencies at the general election. "
                "Labour lost all but one of its Scottish seats.")


def test_an_antonym_said_of_the_same_subject_contradicts_the_unit(tools):
    out = _check(tools, SOURCE_SEATS, "The Scottish National Party lost 56 of the 59 Westminster constituencies.")
    assert any(s.startswith("antonym: lost") for v in out.values() for s in v.details["structure"]), \
        {k: v.details["structure"] for k, v in out.items()}
    assert any(v.label == "unsupported" for v in out.values())
    # the antonym said of another subject is no contradiction: Labour did lose, the text says so
    out = _check(tools, SOURCE_SEATS, "Labour lost all but one of its Scottish seats.")
    assert not any(s.startswith("antonym") for v in out.values() for s in v.details["structure"]), \
        {k: v.details["structure"] for k, v in out.items()}
    assert all(v.label == "supported" for v in out.values()), {k: (v.score, v.label) for k, v in out.items()}


def test_the_antonym_table_is_wordnets_with_its_licence():
    import json
    from importlib import resources

    from citefix.verify.relations import antonyms

    raw = json.loads(resources.files("citefix").joinpath("data/antonyms.json").read_text(encoding="utf-8"))
    assert "WordNet 3.0 Copyright 2006 by Princeton University" in raw["license"]
    table = antonyms()
    assert "lose" in table["verb"]["win"] and "win" in table["verb"]["lose"]
    assert "decrease" in table["verb"]["increase"] and "cheap" in table["adj"]["expensive"]
    assert all(" " not in a and "_" not in a for a in table["verb"])  # one-word lemmas only


@pytest.mark.parametrize("source, text", [
    # the same subject, but the antonym's object is another thing: no contradiction
    ("People with autism often have difficulty reading faces. Some also lack social flexibility, studies say.",
     "People with autism may lack social flexibility."),
    # an attributive adjective picks a thing out ("other" / "the same"); it states nothing about it
    ("The list of leading causes of death worldwide shares many of the same causes with the U.S. list.",
     "Other leading causes of death worldwide include strokes."),
    # a negated word says what its antonym says: "will not change" is "will remain", "did not lose" no "won" denied
    ("Tax rates: the current rates will remain in effect for the next two years.",
     "Tax rates will not change for the next two years."),
    ("Chelsea won the match against Arsenal on Saturday.", "Chelsea did not lose the match against Arsenal."),
    # … and a negated antonym in the source contradicts nothing (not losing may be a draw)
    ("Chelsea did not lose the match against Arsenal on Saturday.", "Chelsea won the match against Arsenal."),
])
def test_what_is_not_an_antonym_contradiction(tools, source, text):
    out = _check(tools, source, text)
    assert not any(s.startswith("antonym") for v in out.values() for s in v.details["structure"]), \
        {k: v.details["structure"] for k, v in out.items()}


def test_the_units_lemma_as_another_word_class_in_the_region_is_not_the_unit_said_again(tools):
    """"at the end of the campaign" (a noun) does not say that the club ended anything: "ended" where the region says
    the club "began" the season is still the antonym."""
    source = ("The 27-year-old was released by Carlisle United at the end of the 2015-16 campaign. Rochdale began "
              "2016-17 with a 3-2 home defeat by Peterborough on Saturday. The striker scored twice.")
    out = _check(tools, source, "Rochdale ended 2016-17 with a 3-2 home defeat by Peterborough on Saturday.")
    assert any(s.startswith("antonym: ended") for v in out.values() for s in v.details["structure"]), \
        {k: v.details["structure"] for k, v in out.items()}
    out = _check(tools, source, "Rochdale began 2016-17 with a 3-2 home defeat by Peterborough on Saturday.")
    assert not any(s.startswith("antonym") for v in out.values() for s in v.details["structure"])


SOURCE_GOSLING = ("The Cherries went down 2-1 at Sunderland on Saturday. Dan Gosling's goal, which gave them the lead, was "
                  "their first for three games. \"It shouldn't be down to a lack of confidence,\" Howe said.")


def test_the_occurrence_among_the_units_words_decides_the_polarity(tools):
    """Another clause's negated "be" in the region does not hide that the unit negates the one it restates."""
    out = _check(tools, SOURCE_GOSLING, "Dan Gosling's goal was not their first for three games.")
    assert any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}
    out = _check(tools, SOURCE_GOSLING, "Dan Gosling's goal was their first for three games.")
    assert not any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}


SOURCE_GREETED = ("Fans queued for hours outside the hall. Jak was greeted at the event by former Rangers captain Barry "
                  "Ferguson. The evening raised money for charity.")


def test_one_argument_on_the_other_side_of_the_verb_is_a_role_swap(tools):
    out = _check(tools, SOURCE_GREETED, "Former Rangers captain Barry Ferguson was greeted at the event by fans.")
    assert any(s.startswith("role") for v in out.values() for s in v.details["structure"]), \
        {k: v.details["structure"] for k, v in out.items()}
    out = _check(tools, SOURCE_GREETED, "Jak was greeted at the event.")
    assert not any(s.startswith("role") for v in out.values() for s in v.details["structure"]), \
        {k: v.details["structure"] for k, v in out.items()}


def test_a_name_the_tagger_lemmatises_two_ways_is_one_argument(tools):
    """"the Soviets" is lemmatised "soviet" as a noun and "soviets" as a proper noun: the swap is still seen."""
    source = ("The Soviets liberated Auschwitz on 27 January, 1945, confirming for the first time the stories of the "
              "Holocaust's mass murder. Survivors were taken to hospitals.")
    out = _check(tools, source, "Auschwitz liberated the Soviets.")
    assert any(s.startswith("role: liberated") for v in out.values() for s in v.details["structure"]), \
        {k: v.details["structure"] for k, v in out.items()}
    out = _check(tools, source, "The Soviets liberated Auschwitz.")
    assert not any(s.startswith("role") for v in out.values() for s in v.details["structure"])


def test_a_negation_does_not_reach_past_another_verb_in_the_source(tools):
    """"who has not been identified, said": the cue belongs to "identified", not to "said"."""
    source = ("Police were called to the petrol station at midnight. The driver of the car, who has not been identified, "
              "said he got into an argument with the suspects. Nobody was hurt.")
    out = _check(tools, source, "The driver of the car said he got into an argument with the suspects.")
    assert out and not any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}
    # an auxiliary between the cue and the verb keeps it negated
    out = _check(tools, source.replace("who has not been identified, said", "has not said"),
                 "The driver of the car has said he got into an argument with the suspects.")
    assert any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}


def test_a_negation_does_not_reach_across_punctuation(tools):
    source = ("Hull went to Southampton and came away with nothing. Steve Bruce is confident he can keep Hull City in "
              "the Premier League this season.")
    out = _check(tools, source, "Steve Bruce is confident he can keep Hull City in the Premier League this season.")
    assert out and not any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}
    # a quotation mark is no pause: "did not "feel cheated"" is negated on both sides
    source = 'Gill, who had been having chemotherapy, said that he did not "feel cheated" and had been lucky.'
    out = _check(tools, source, 'Gill said that he did not "feel cheated".')
    assert out and not any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}


def test_the_verbs_occurrence_is_matched_within_its_own_sentence():
    """A text copying two sentences that use one verb with both polarities: each occurrence is matched in its own
    sentence, so neither is read as contradicted (whole-text units of SummEval summaries do this)."""
    from citefix.nlp import load_spacy
    from citefix.verify.local import polarity_mismatches
    from citefix.verify.negation import word_pauses

    nlp = load_spacy()
    source = ("Thousands of holidaymakers caught up in last summer's passport delay fiasco have not received any "
              "compensation. At the same time, managers at the passport agency, which made a £42 million profit "
              "during the chaos, received up to £3,500 in bonuses. Ministers refused to give a blanket refund.")
    text = source.rsplit(" Ministers", 1)[0]
    seq = [(t.idx, t.lower_, t.lemma_.lower()) for t in nlp(source) if not t.is_space and not t.is_punct]
    doc = nlp(text)
    assert polarity_mismatches(doc, [(0, len(text))], seq, None, word_pauses(seq, source)) == []


# Text tokenised before it reached citefix (CNN/DailyMail style: "I 'm", "we 've"): the detached contractions are read
# as the glued ones, so the parse around them holds and a faithful quote is not flagged.
PRETOKENISED = ("Jones praised his rival after the derby . `` It 's not as though we were hoping they would n't win the "
                "cup , I 'm really happy for them – it was a brilliant season , ' Jones said . He 'd expected a draw .")


def test_detached_contractions_are_read_as_glued_ones():
    from citefix.nlp import load_spacy

    doc = load_spacy()("I 'm sure we 've won .")
    assert [t.text for t in doc] == ["I", "'m", "sure", "we", "'ve", "won", "."]
    assert [t.lemma_ for t in doc if t.text in ("'m", "'ve")] == ["be", "have"]
    # the model's own tokenizer, untaught, for scripts that must parse as they always did (training/make_planted.py)
    assert "'m" not in [t.text for t in load_spacy(contractions=False)("I 'm sure .")]


def test_a_pretokenised_faithful_quote_is_not_flagged(tools):
    text = ("It 's not as though we were hoping they would n't win the cup , I 'm really happy for them – it was a "
            "brilliant season , ' Jones said .")
    verdicts = _check(tools, PRETOKENISED, text)
    assert verdicts and all(not _polarity(v) for v in verdicts.values()), {u: _polarity(v) for u, v in verdicts.items()}


def test_words_the_source_says_word_for_word_are_not_negated_by_another_sentence(tools):
    # the region holds "Critics said the claim was true": the unit copies the minister's words, negation and all
    source = ("The minister said the claim was \"just not true\", but she hoped the report would \"serve as a wake-up "
              "call\". Critics said the claim was true and the report was late. The report is due next week.")
    verdicts = _check(tools, source, "The minister said the claim was \"just not true\".")
    assert verdicts and all(not _polarity(v) and v.label == "supported" for v in verdicts.values()), verdicts
    # a negation the source does not have is still caught
    verdicts = _check(tools, source, "Critics said the claim was not true.")
    assert any(_polarity(v) for v in verdicts.values())


def test_an_abbreviation_is_an_argument_of_its_verb(tools):
    """"his B.S." has letters and stops, no alphabetic word: it still fills its role, so the swap is seen."""
    source = ("Larry Page received his B.S. in computer engineering from the University of Michigan. He later "
              "earned a master's degree at Stanford.")
    assert _roles(_check(tools, source, "His B.S. received Larry Page in computer engineering.")) == ["role: received"]
    assert _roles(_check(tools, source, "Larry Page received his B.S. in computer engineering.")) == []


SOURCE_WITNESS = ("The report was published on Tuesday by the county's safeguarding board. Domestic violence affects "
                  "all who are exposed to it: perpetrators, victims, and the children who witness the violence. The "
                  "board said the county's refuges were full.")


def test_not_just_or_not_only_does_not_negate_the_verb(tools):
    """"doesn't just affect X but also Y" says it affects X: the cue scopes over "just", not over the verb."""
    text = "Domestic violence doesn't just affect the victims but also the children who witness the violence."
    out = _check(tools, SOURCE_WITNESS, text)
    assert out and not any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}
    # a plain negation of the same verb is still contradicted by the source
    out = _check(tools, SOURCE_WITNESS, "Domestic violence does not affect the children who witness the violence.")
    assert any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}
    # the source side reads "not only" the same way (its one "affect" is the one with "not only")
    source = SOURCE_WITNESS.replace("Domestic violence affects all who are exposed to it:",
                                    "Domestic violence does not only affect victims but also")
    assert source.count("affect") == 1
    out = _check(tools, source, "Domestic violence affects victims.")
    assert out and not any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}
    # …but "not just" at a clause's end is the adjective, and after a modal it denies: both stay negations
    out = _check(tools, "The panel said the decision was just, and the appeal failed.", "The decision was not just.")
    assert any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}
    out = _check(tools, "The report says the problem can be solved by new housing.",
                 "The problem cannot simply be solved by new housing.")
    assert any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}


def test_source_negated_reads_focus_words_modals_and_clause_ends():
    from citefix.verify.negation import source_negated, word_pauses

    def neg(text: str, verb: str) -> bool:
        words = [(m.start(), m.group(0).lower(), m.group(0).lower()) for m in re.finditer(r"[A-Za-z']+", text)]
        words = [(p, w, {"did": "do", "does": "do", "is": "be", "was": "be", "ca": "can"}.get(w, w)) for p, w, _ in words]
        k = next(i for i, (_, w, _) in enumerate(words) if w == verb)
        return source_negated(words, k, word_pauses(words, text))

    assert not neg("The storm did not only flood the town but cut the power.", "flood")
    assert neg("The storm did not flood the town.", "flood")
    assert not neg("It is not only a museum but a school.", "is")
    assert neg("The decision was not just.", "was")
    assert neg("You must not just leave.", "leave")


def test_a_copula_with_a_negated_conjunct_says_be_both_ways(tools):
    """"is unconscious or not breathing" against the source's "is not breathing": the copula carries both polarities
    in the unit, so the source's negated "is" does not contradict it; a plain copula still does."""
    source = ("Call 9-1-1 and give care based on the condition found. If the child does not respond and is not "
              "breathing, begin CPR at once, starting with compressions.")
    out = _check(tools, source, "If the child is unconscious or not breathing, begin CPR at once.")
    assert out and not any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}
    out = _check(tools, "The striker was not hungry after the match, the coach said.",
                 "The striker was tired but not hungry after the match.")
    assert out and not any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}
    out = _check(tools, "The striker was hungry after the match, the coach said.", "The striker was not hungry.")
    assert any(_polarity(v) for v in out.values()), {k: v.details["structure"] for k, v in out.items()}


@pytest.mark.parametrize("source, text, flagged", [
    # "no" right after the verb denies it of its object, on either side
    ("Judge Alison Grey said Keane had shown no remorse and had betrayed his colleagues.",
     "Keane had shown remorse.", True),
    ("Investigators said they found evidence of a fault in the engine.", "Investigators found no evidence of a fault.",
     True),
    ("Judge Alison Grey said Keane had shown no remorse and had betrayed his colleagues.",
     "Keane had shown no remorse.", False),
    # a bound, not a denial: "no more than"
    ("Tickets will cost no more than £5 each, the organisers said.", "Tickets will cost up to £5 each.", False),
])
def test_no_right_after_a_verb_denies_it(tools, source, text, flagged):
    _assert_polarity(tools, source, text, flagged)


def _assert_polarity(tools, source, text, flagged) -> None:
    out = _check(tools, source, text)
    found = [s for v in out.values() for s in _polarity(v)]
    assert bool(found) == flagged, {u: v.details["structure"] for u, v in out.items()}


def test_no_after_be_is_where_a_paraphrase_may_move_it(tools):
    """"There have been no deaths" / "No deaths have been reported": the same denial, "no" moved."""
    out = _check(tools, "No deaths have been reported, though two firefighters were treated in hospital.",
                 "There have been no deaths, but two firefighters needed hospital treatment.")
    assert not [s for v in out.values() for s in _polarity(v)], {u: v.details["structure"] for u, v in out.items()}


def test_an_antonym_spelt_the_british_way(tools):
    """WordNet spells "criticize" (and lists "criticise" in the same synset, which the table takes since f649076);
    the article and the summary write "criticised" / "praised"."""
    from citefix.verify.relations import antonyms, wordnet_lemma

    table = antonyms()
    assert "praise" in table["verb"][wordnet_lemma("criticise", "verb")]
    assert table["adj"][wordnet_lemma("favourable", "adj")] & {"unfavorable", "unfavourable"}
    assert wordnet_lemma("criticize", "verb") == "criticize"
    assert wordnet_lemma("sour", "adj") == "sour"  # no American form in the table: as is
    out = _check(tools, "Aid agencies criticised the government's decision to cut the aid budget last year.",
                 "Aid agencies praised the government's decision to cut the aid budget.")
    assert any(s.startswith("antonym: praised") for v in out.values() for s in v.details["structure"]), \
        {u: v.details["structure"] for u, v in out.items()}


def test_a_modifiers_antonym_under_the_same_negation_still_contradicts(tools):
    """A modifier's negation is its phrase's: "without implicit supervision" is not what "without explicit
    supervision" says, though a negated predicate and its antonym agree ("will not change" / "will remain")."""
    out = _check(tools, "The model learns visual concepts without explicit supervision on any of them.",
                 "The model learns visual concepts without implicit supervision on any of them.")
    assert any(s.startswith("antonym: implicit") for v in out.values() for s in v.details["structure"]), \
        {k: v.details["structure"] for k, v in out.items()}


@pytest.mark.parametrize("source, text, flagged", [
    # "failed to" and "unable to" deny the verb after them, as "not" does
    ("The lawyer said the previous owner had failed to replace an aging boiler.",
     "The lawyer said the previous owner had not replaced an aging boiler.", False),
    ("On 17 April customers were unable to complete purchases for two hours.",
     "On 17 April customers could not complete purchases for two hours.", False),
    ("On 17 April customers were unable to complete purchases for two hours.",
     "On 17 April customers completed purchases for two hours.", True),
    # a noun right after "no" is the cue's own: "no customers were charged" denies "charged"
    ("No customer payment data was exposed, and no customers were charged for failed orders.",
     "No one was charged for the failed orders.", False),
    ("No customer payment data was exposed, and no customers were charged for failed orders.",
     "Customers were charged for the failed orders.", True),
    # "failed" with no "to" after it denies nothing
    ("The failed bid was rejected by the board on Monday.", "The board rejected the failed bid on Monday.", False),
])
def test_negation_said_otherwise_is_read_the_same_on_both_sides(tools, source, text, flagged):
    _assert_polarity(tools, source, text, flagged)
