"""The word lists and label groups the offline checks, the decomposer's aligner and the reviser share, kept in one
place so that each list exists once."""

from __future__ import annotations

import re

# function words: left out when texts are compared word by word
STOPWORDS = frozenset(
    """a an the and or but of to in on at by for with from as is are was were be been being has have had do does did
    it its it's this that these those he she they them his her their him we our you your i me my not no
    will would can could should may might must shall there here which who whom whose what when where why how
    than then so such also into onto over under about after before during while if because""".split()
)
# the verbs of reporting, which a paraphrase adds or drops freely
SAYING = frozenset({"said", "says", "say"})
# verbs that tell what was said, discussed or decided in a source, beyond the verbs of speech
# (decompose.details.SPEECH_VERBS): a summary of a meeting or a call frames its facts with them ("the group discussed
# the costs") though the transcript never uses them
REPORT_VERBS = frozenset(
    "discuss mention talk agree disagree propose decide conclude realize realise express raise recommend ask answer "
    "respond reply emphasize emphasise highlight point outline present acknowledge feel debate consider share".split())

# month names and their abbreviations → one key per month; weekdays
MONTHS = {
    "january": "jan", "february": "feb", "march": "mar", "april": "apr", "may": "may", "june": "jun", "july": "jul",
    "august": "aug", "september": "sep", "october": "oct", "november": "nov", "december": "dec",
    "jan": "jan", "feb": "feb", "mar": "mar", "apr": "apr", "jun": "jun", "jul": "jul", "aug": "aug", "sep": "sep",
    "sept": "sep", "oct": "oct", "nov": "nov", "dec": "dec",
}
WEEKDAYS = frozenset({"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"})

# phrases that bound a number from above or below, or say it is rough: "as much as €5,000" and "up to €5,000" are one
# amount; "more than 5,000" and "fewer than 5,000" are not
NUMBER_BOUNDS = {
    "most": ("up to", "as much as", "as many as", "at most", "no more than", "less than", "fewer than", "under", "below",
             "nearly", "almost", "just under", "just shy of", "close to"),
    "least": ("more than", "over", "above", "at least", "upwards of", "in excess of", "just over", "exceeding",
              "no fewer than", "no less than"),
    "rough": ("about", "around", "roughly", "approximately", "some", "an estimated", "circa"),
}

# spaCy entity labels that name something (a person, a body, a place, a work, a law)
NAME_LABELS = frozenset({"PERSON", "ORG", "GPE", "LOC", "FAC", "NORP", "EVENT", "PRODUCT", "WORK_OF_ART", "LAW"})
# ... and languages: the labels whose words a source must hold for a text to state them
ENTITY_LABELS = NAME_LABELS | {"LANGUAGE"}
# the labels of who can say something
SPEAKER_LABELS = frozenset({"PERSON", "ORG", "NORP"})
# spaCy entity labels → the kind of value they carry; a conflict needs the same kind on both sides
VALUE_LABELS = {
    "DATE": "time", "TIME": "time", "CARDINAL": "number", "QUANTITY": "number", "MONEY": "money", "PERCENT": "percent",
    "ORDINAL": "ordinal", "PERSON": "person", "ORG": "org", "GPE": "place", "LOC": "place", "FAC": "place",
    "NORP": "group",
}
# the value kinds that are names
NAME_KINDS = frozenset({"person", "org", "place", "group"})

# A list item's marker at the start of a line ("1.", "2)", "(3)", "a)", "-", "•"): the item's label, not its words
LIST_MARKER = re.compile(r"(?m)^[ \t]*(?:[-*•‣▪◦]|\d{1,3}[.)]|\(\d{1,3}\)|\(?[a-z][.)])[ \t]+(?=\S)")
