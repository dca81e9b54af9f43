"""Cheap lexical facts of a text for the offline verifier: normalised numbers, negation cues (times: verify.times).

Numbers keep their precision so a rounded mention ("about 3 million") still matches a precise source ("3,080,000"),
while an invented figure ("£45m" against "£30m") does not.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from importlib import resources

from citefix.lexicon import MONTHS, NUMBER_BOUNDS, WEEKDAYS

_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
    "seventeen": 17, "eighteen": 18, "nineteen": 19,
}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_ORDINALS = {
    "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8, "ninth": 9, "tenth": 10,
    "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14, "fifteenth": 15, "twentieth": 20,
}
_SCALES = {
    "hundred": 1e2, "thousand": 1e3, "k": 1e3, "million": 1e6, "m": 1e6, "mn": 1e6, "mln": 1e6, "billion": 1e9,
    "bn": 1e9, "b": 1e9, "trillion": 1e12, "tn": 1e12, "dozen": 12,
}
# Words read as numbers in the source, but never checked when they stand in a unit (too often not a quantity).
_SOFT = {"one", "zero"}
# Words that say how near a value is ("roughly a third", "nearly 2,000", "just over half"): they state no fact of their
# own beyond the value's, which the number checks read.
APPROXIMATORS = frozenset({"roughly", "approximately", "nearly", "almost", "around", "about", "some", "just", "barely",
                           "merely", "only", "precisely", "exactly", "slightly", "close"})
_DENOMINATORS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fifth": 5, "fifths": 5,
                 "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7, "eighth": 8, "eighths": 8, "ninth": 9, "ninths": 9,
                 "tenth": 10, "tenths": 10, "twentieth": 20, "twentieths": 20}
_NUMERATORS = {"a": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}
# "a third of", "two-thirds", "fell by a quarter", "more than half of": a share, as the percentage it names
_FRACTION = re.compile(
    r"\b(?:(?P<n>" + "|".join(_NUMERATORS) + r")(?P<sep>[\s-]+))?(?P<d>" + "|".join(_DENOMINATORS) + r")\b",
    re.IGNORECASE,
)
_SHARE_AFTER = re.compile(r"\s+of\b|\s*(?:[,.;:)]|$)")  # "two-thirds of"; a counted one at a clause end too
_SHARE_BEFORE = re.compile(r"\bby\s+(?:(?:" + "|".join(sorted(APPROXIMATORS)) + r")\s+)?$", re.IGNORECASE)  # "fell by roughly"
# "four decades", "half a century": a span of years, as the number of years
_SPAN = re.compile(r"\b(?:(?P<n>" + "|".join(sorted(_UNITS, key=len, reverse=True)) + r"|a|\d+)\s+(?P<u>decades?|centuries|century)"
                   r"|(?P<half>half|a\s+quarter|three\s+quarters)\s+(?:of\s+)?a\s+(?P<u2>decade|century))\b", re.IGNORECASE)
_SPAN_SHARE = {"half": 0.5, "a quarter": 0.25, "three quarters": 0.75}
# a simple fraction or a span in decades is a rounded value: it names whatever lies within a tenth of it (a quarter
# for 22.5–27.5%; the next simple fractions, a fifth and a third, stay apart)
_ROUNDED = 0.1

_NUM_WORDS = "|".join(sorted(list(_UNITS) + list(_TENS) + list(_ORDINALS) + ["hundred"], key=len, reverse=True))
_SCALE_WORDS = "hundred|thousand|million|billion|trillion|dozen"
_WORD_SCALES = "thousand|million|billion|trillion|dozen"
_NUMBER = re.compile(
    r"(?<![\w.])(?P<cur>[£$€¥]\s?)?"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d{1,3}(?:, 000)+(?![\d,])|\d+(?:\.\d+)?)"
    r"(?P<ord>st|nd|rd|th)?"
    r"(?:(?:\s|-(?=(?:" + _WORD_SCALES + r"|hundred)\b))?(?P<scale>" + _SCALE_WORDS + r"|bn|mn|mln|tn|m|k|b)\b)?",
    re.IGNORECASE,
)
_BELOW_SCALE = "|".join(sorted(list(_UNITS) + list(_TENS) + ["hundred"], key=len, reverse=True))
_WORDNUM = re.compile(
    r"\b(?P<words>(?:(?:" + _NUM_WORDS + r")\b(?:[\s-]+(?:and[\s-]+)?)?)+)"
    r"(?:(?P<scale>" + _WORD_SCALES + r")\b"
    # what follows a thousand or a million said in words: "two thousand five hundred", "a million and forty"
    r"(?:[\s-]+(?:and[\s-]+)?(?P<rest>(?:(?:" + _BELOW_SCALE + r")\b(?:[\s-]+(?:and[\s-]+)?(?=" + _BELOW_SCALE
    + r"))?)+))?)?",
    re.IGNORECASE,
)

# "seven in ten", "one out of every five", "3 in 4": a share, as the percentage it names (a rounded value, as a fraction
# is); not where the second number counts a time or a share of its own ("2 in 10 days", "3 in 100%")
_RATIO_NUM = r"(?:\d{1,3}|(?:" + "|".join(sorted(list(_UNITS) + list(_TENS), key=len, reverse=True)) + r"))"
_RATIO = re.compile(r"\b(?P<a>" + _RATIO_NUM + r")\s+(?:in|out\s+of)\s+(?:every\s+)?(?P<b>" + _RATIO_NUM + r"|hundred)\b"
                    r"(?!\s*(?:%|percent|per\s+cent|seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?)\b)",
                    re.IGNORECASE)
# a bound phrase just before a number ("more than 200", "nearly £4m") or "or so" just after it
_BOUND_PHRASES = sorted({p for ps in NUMBER_BOUNDS.values() for p in ps}, key=len, reverse=True)
_HEDGE_BEFORE = re.compile(r"\b(?P<p>" + "|".join(re.escape(p).replace(r"\ ", r"\s+") for p in _BOUND_PHRASES)
                           + r")\s+(?:[£$€¥]\s?)?$", re.IGNORECASE)
_HEDGE_AFTER = re.compile(r"(?:\s+[a-z]+)?\s+or\s+so\b", re.IGNORECASE)  # "40 or so", "40 riders or so"
_HEDGE_KIND = {p: k for k, ps in NUMBER_BOUNDS.items() for p in ps}

# "not only", "n't just", "never merely" + a word: the cue scopes over the focus word, not the verb, and the sentence
# says the verb holds and more ("doesn't just affect the victims but also …"); not after a modal ("cannot simply be
# solved", "can't just leave" deny), and not at a clause's end ("the decision was not just": the adjective)
FOCUS_AFTER_CUE = frozenset({"only", "just", "merely", "simply", "solely"})
MODALS = frozenset({"can", "could", "will", "would", "shall", "should", "may", "might", "must"})
_NOT_FOCUS = r"(?!\s+(?:" + "|".join(sorted(FOCUS_AFTER_CUE)) + r")\s+[a-z])"
NEGATION = re.compile(
    r"\b(?:(?:" + "|".join(sorted(MODALS)) + r")\s+not|cannot|(?:ca|wo|could|would|should|might|must|shan)n['\u2019]t)\b"
    r"|\b(?:(?:not|never)\b" + _NOT_FOCUS + r"|(?:no|none|nobody|nothing|neither|nor|without|nowhere|hardly"
    r"|fail(?:s|ed)? to)\b)|n['\u2019]t\b" + _NOT_FOCUS,
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Number:
    value: float
    precision: float  # half the unit of the last written digit, times the scale
    text: str
    start: int
    end: int
    soft: bool = False
    unit: str = ""  # what a rounded value counts: "%" for a share written as a fraction, "year" for decades
    # the phrase that bounds the value or says it is rough (citefix.lexicon.NUMBER_BOUNDS): "most" ("nearly 200"),
    # "least" ("more than 200"), "rough" ("about 200", "200 or so"); "" for a value stated as it is
    approx: str = ""


def _digits_precision(num: str) -> float:
    """Half the unit of the last written digit ("3.08" → 0.005, "45" → 0.5); whole numbers are taken as exact."""
    if "." in num:
        return 0.5 * 10 ** -len(num.split(".")[1])
    return 0.5


def _words_value(words: str) -> float | None:
    total, cur = 0.0, 0.0
    seen = False
    for w in re.split(r"[\s-]+", words.lower()):
        if not w or w == "and":
            continue
        if w in _UNITS:
            cur += _UNITS[w]
        elif w in _TENS:
            cur += _TENS[w]
        elif w in _ORDINALS:
            cur += _ORDINALS[w]
        elif w == "hundred":
            cur = (cur or 1) * 100
        else:
            continue
        seen = True
    return total + cur if seen else None


_RANGE_JOIN = re.compile(r"\s*(?:[-\u2013\u2014]|to)\s*")


def _share_range_scales(text: str, nums: list[Number], scales: list[float | None]) -> None:
    """A range written with one scale word ("$705–$712 million", "3 to 4 billion"): its first figure is read on the
    second's scale, as every reader reads it, not as 705 dollars."""
    for k in range(len(nums) - 1):
        a, b, f = nums[k], nums[k + 1], scales[k + 1]
        if scales[k] is None and f and _RANGE_JOIN.fullmatch(text[a.end:b.start]) and a.value * f <= b.value and \
                (text[b.start] not in "£$€¥" or text[a.start] == text[b.start]):
            nums[k] = Number(a.value * f, a.precision * f, a.text, a.start, a.end, a.soft, a.unit, a.approx)


def find_numbers(text: str) -> list[Number]:
    """Numbers in text with value and precision: '3.08 million', '£45m', '1,000', 'twenty-five', '3rd', 'three'."""
    out: list[Number] = _ratios(text)
    taken: list[tuple[int, int]] = [(n.start, n.end) for n in out]
    scales: list[float | None] = [None] * len(out)  # each number's scale word's factor, None without one
    value: float | None
    for m in _NUMBER.finditer(text):
        if any(a < m.end() and m.start() < b for a, b in taken):
            continue
        num = m.group("num")
        try:
            value = float(num.replace(", ", "").replace(",", ""))  # "£50, 000": a detokeniser's thousands
        except ValueError:
            continue
        scale_word = (m.group("scale") or "").lower()
        # a bare "m"/"b"/"k" counts only right after the digits or with a currency ("£45m", "45m", not "5 m away")
        if scale_word in {"m", "b", "k"} and (" " in m.group(0)[m.start("num") - m.start() :] and not m.group("cur")):
            scale_word = ""
        # "10,000m", "1,500m": a distance in metres; no one writes ten billion so
        if scale_word in {"m", "b", "k"} and "," in num and not m.group("cur"):
            scale_word = ""
        scale = _SCALES.get(scale_word, 1.0)
        prec = _digits_precision(num) * scale
        end = m.end() if scale_word else m.end("ord") if m.group("ord") else m.end("num")
        out.append(Number(value * scale, prec, text[m.start() : end].strip(), m.start(), end))
        taken.append((m.start(), end))
        scales.append(scale if scale_word else None)
    _share_range_scales(text, out, scales)
    for n in _spans(text) + _fractions(text):
        if not any(a < n.end and n.start < b for a, b in taken):
            out.append(n)
            taken.append((n.start, n.end))
    for n in spoken_decimals(text) + said_days(text):
        if not any(a < n.end and n.start < b for a, b in taken):
            out.append(n)
            taken.append((n.start, n.end))
    for m in _WORDNUM.finditer(text):
        if any(a < m.end() and m.start() < b for a, b in taken):
            continue
        words = m.group("words").strip(" -")
        if words.lower().endswith(" and") or words.lower().endswith("-and"):
            words = words[:-4]
        value = _words_value(words)
        if value is None:
            continue
        scale = _SCALES.get((m.group("scale") or "").lower(), 1.0)
        rest = _words_value(m.group("rest")) if m.group("rest") and scale > 100 else None
        soft = words.lower() in _SOFT and not m.group("scale")
        end = m.end() if m.group("scale") else m.start() + len(m.group("words").rstrip(" -"))
        if rest is not None and rest < scale:
            value, scale = value * scale + rest, 1.0  # "two thousand five hundred": 2,500, to the unit
        elif m.group("rest"):
            end = m.end("scale")
        out.append(Number(value * scale, 0.5 * scale if scale > 1 else 0.5, text[m.start() : end].strip(), m.start(), end, soft))
        taken.append((m.start(), end))
    # a bare scale word with an article: "a million" → 1e6
    for m in re.finditer(r"\b(?:a|one)\s+(million|billion|thousand|hundred|dozen)\b", text, re.IGNORECASE):
        if not any(a < m.end() and m.start() < b for a, b in taken):
            s = _SCALES[m.group(1).lower()]
            out.append(Number(s, 0.5 * s, m.group(0), m.start(), m.end()))
    out.sort(key=lambda n: n.start)
    return [_hedged(_year_tail(_list_marker(_exact_day(n, text), text), text), text) for n in out]


def _ratios(text: str) -> list[Number]:
    """Shares said as a count of a whole ("seven in ten" → 70, "one out of every five" → 20): rounded values."""
    out = []
    for m in _RATIO.finditer(text):
        a, b = (float(x) if x.isdigit() else 100.0 if x.lower() == "hundred" else _words_value(x)
                for x in (m.group("a"), m.group("b")))
        if a is None or not b or not 0 < a < b:
            continue
        value = 100.0 * a / b
        out.append(Number(value, _ROUNDED * value, m.group(0), m.start(), m.end(), unit="%"))
    return out


def _hedged(n: Number, text: str) -> Number:
    """The number with the bound phrase that stands just before it ("more than", "nearly", "about") or "or so" after."""
    m = _HEDGE_BEFORE.search(text, max(0, n.start - 24), n.start)
    kind = _HEDGE_KIND.get(re.sub(r"\s+", " ", m.group("p").lower())) if m else (
        "rough" if _HEDGE_AFTER.match(text, n.end) else "")
    return replace(n, approx=kind) if kind else n


_DIGIT_WORDS = "zero|oh|one|two|three|four|five|six|seven|eight|nine"
_WHOLE = r"(?P<a>(?:(?:" + _NUM_WORDS + r")\b[\s-]*)+?)"
# a decimal said in words, as transcripts of speech write it: "twelve point five", "twelve dot fifty", "two point
# one five", not "at one point two men …"; and an amount in a currency with its cents said after it: "twelve euros
# and fifty", "ten pounds fifty"
_SAID_POINT = re.compile(r"(?<!\bat\s)" + _WHOLE + r"\s*\b(?:point|dot)\s+(?P<b>(?:(?:" + _DIGIT_WORDS + r")\b[\s-]*)+|(?:"
                         + "|".join(_TENS) + r")(?:[\s-]+(?:" + _DIGIT_WORDS + r"))?\b|(?:" + "|".join(_UNITS)
                         + r")\b)(?:\s*\b(?P<scale>thousand|million|billion|trillion)\b)?", re.IGNORECASE)
_SAID_CENTS = re.compile(r"(?:\b(?P<one>an?)\s+|" + _WHOLE + r"\s*)\b(?P<cur>euros?|pounds?|dollars?)\s+(?:and\s+)?(?P<b>(?:(?:" + "|".join(_TENS)
                         + r")(?:[\s-]+(?:" + _DIGIT_WORDS + r"))?|(?:" + "|".join(_UNITS) + r"))\b)"
                         r"(?:\s+(?:cents?|pence|p)\b)?(?=\s*(?:[,.;:!?)]|$|and\b|or\b|so\b|to\b|an?\b|each\b|per\b))", re.IGNORECASE)


def spoken_decimals(text: str) -> list[Number]:
    """Decimals said in words ("twelve dot fifty" → 12.50, "two point one five" → 2.15, "one point four million"),
    and amounts with their cents said after the currency ("twelve euros and fifty", "a dollar fifty" → 1.50): what a
    meeting transcript writes for "12.50"."""
    out = []
    for pattern, cents in ((_SAID_POINT, False), (_SAID_CENTS, True)):
        for m in pattern.finditer(text):
            whole = 1.0 if m.groupdict().get("one") else _words_value(m.group("a"))
            words = [w for w in re.split(r"[\s-]+", m.group("b").lower()) if w]
            if whole is None or not words:
                continue
            if all(w in _DIGIT_WORDS.split("|") for w in words) and not cents:
                digits = "".join(str(_UNITS.get(w, 0)) for w in words)  # "one five" → "15"; "oh" → 0
            else:
                part = _words_value(" ".join(words))
                if part is None or part >= 100:
                    continue
                digits = f"{int(part):02d}" if cents or part >= 10 else str(int(part))
            scale = _SCALES[m.group("scale").lower()] if m.groupdict().get("scale") else 1.0
            value = float(f"{int(whole)}.{digits}")
            out.append(Number(value * scale, 0.5 * 10 ** -len(digits) * scale, m.group(0).strip(), m.start(), m.end()))
    return out


def _fractions(text: str) -> list[Number]:
    """Shares written as fractions, valued as the percentage they name ("two-thirds of" → 66.7). One written with
    "a" or "half" alone ("a third of", "more than half of") is soft, as "one" is: never checked in a unit, since it
    is so often a writer's rounding of counts the source gives ("120 of 400"); read in the source all the same."""
    out = []
    for m in _FRACTION.finditer(text):
        num_word = (m.group("n") or "").lower()
        counted = num_word not in ("", "a")
        after = _SHARE_AFTER.match(text, m.end())
        if not ((after and (counted or after.group(0).strip() == "of"))
                or _SHARE_BEFORE.search(text, max(0, m.start() - 30), m.start())
                or (counted and "-" in (m.group("sep") or ""))):
            continue  # "the first half", "a third term": no share
        if not num_word and re.search(r"\bthe\s+$", text[max(0, m.start() - 5):m.start()], re.IGNORECASE):
            continue  # "the eighth of March", "the third of the three": an ordinal
        den = _DENOMINATORS[m.group("d").lower()]
        value = 100.0 * (_NUMERATORS.get(num_word, 1)) / den
        soft = num_word in ("", "a")
        out.append(Number(value, _ROUNDED * value, m.group(0), m.start(), m.end(), soft, "%"))
    return out


def _spans(text: str) -> list[Number]:
    """Spans of years in decades or centuries, valued in years ("four decades" → 40, "half a century" → 50)."""
    out = []
    for m in _SPAN.finditer(text):
        unit = (m.group("u") or m.group("u2")).lower()
        years = 10.0 if unit.startswith("decade") else 100.0
        if m.group("half"):
            count = _SPAN_SHARE[re.sub(r"\s+", " ", m.group("half").lower())]
        else:
            n = m.group("n").lower()
            count = 1.0 if n == "a" else float(n) if n.isdigit() else float(_UNITS[n])
        value = count * years
        out.append(Number(value, _ROUNDED * value, m.group(0), m.start(), m.end(), unit="year"))
    return out


_YEAR_BEFORE = re.compile(r"\b((?:1[0-9]|20)\d\d)[-\u2013/]$")


def _year_tail(n: Number, text: str) -> Number:
    """The second year of a span written short ("2018–19", "1999/00") is that year: 2019, 2000."""
    m = _YEAR_BEFORE.search(text, max(0, n.start - 5), n.start)
    if not m or not re.fullmatch(r"\d\d", n.text):
        return n
    first = int(m.group(1))
    year = first // 100 * 100 + int(n.text)
    year += 100 if year <= first else 0
    return Number(float(year), 0.5, n.text, n.start, n.end, n.soft)


_MARKER_AFTER = re.compile(r"[.)](?:\s|$)|[ \t]*(?:\n|$)")
# "Passage ID 3", "source [2]", "document no. 4": the number names one of the texts an answer cites
_REFERENCE_BEFORE = re.compile(r"\b(?:passages?|sources?|documents?|references?|citations?)\s+(?:id\s*|no\.?\s*|number\s+|#\s*)?\[?$",
                               re.IGNORECASE)


# a number joined by a hyphen to a capitalised word is part of a name ("COVID-19", "F-16", "Windows-10"), not a
# quantity; "mid-19" and "a 3-2 win" are not names
_NAME_BEFORE = re.compile(r"\b[A-Z][A-Za-z]*-$")


def _list_marker(n: Number, text: str) -> Number:
    """A list item's number ("1." or "2)" opening a line, or alone on its line) counts no quantity, nor does the
    number of a cited text ("the authors of Passage ID 3") or a name's number ("COVID-19"): soft, as "one" is."""
    line_start = text.rfind("\n", 0, n.start) + 1
    if (n.text.isdigit() and len(n.text) <= 2 and not text[line_start:n.start].strip()
            and _MARKER_AFTER.match(text, n.end)) or (
            n.text.isdigit() and any(p.search(text, max(0, n.start - 24), n.start)
                                     for p in (_REFERENCE_BEFORE, _NAME_BEFORE))):
        return Number(n.value, n.precision, n.text, n.start, n.end, True)
    return n


_MONTH_NAME = r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
_DAY_BEFORE = re.compile(r"(?:st|nd|rd|th)?(?:\s+of)?\s+" + _MONTH_NAME + r"\b", re.IGNORECASE)
_DAY_AFTER = re.compile(r"\b" + _MONTH_NAME + r"\.?\s+$", re.IGNORECASE)


_DAY_WORDS = {w: i + 1 for i, w in enumerate(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth "
    "sixteenth seventeenth eighteenth nineteenth twentieth".split())}
_DAY_WORD = r"(?:(?:twenty|thirty)[\s-])?(?:" + "|".join(_DAY_WORDS) + r")|thirtieth"
# a day of the month said in words, as a transcript writes it: "the second of June", "March the fourteenth"
_SAID_DAY = re.compile(r"\b(?P<d>" + _DAY_WORD + r")(?=\s+of\s+" + _MONTH_NAME + r"\b)|\b" + _MONTH_NAME
                       + r"\s+the\s+(?P<e>" + _DAY_WORD + r")\b", re.IGNORECASE)


def said_days(text: str) -> list[Number]:
    """Days of the month said in words ("the second of June" → 2): exact, as a day in digits is."""
    out = []
    for m in _SAID_DAY.finditer(text):
        g = "d" if m.group("d") else "e"
        words = re.split(r"[\s-]+", m.group(g).lower())
        value = (30 if words[-1] == "thirtieth" else _DAY_WORDS[words[-1]]) + (_TENS[words[0]] if len(words) > 1 else 0)
        out.append(Number(float(value), 1e-9, m.group(g), m.start(g), m.end(g)))
    return out


def _exact_day(n: Number, text: str) -> Number:
    """A day of the month ("5 April", "April 5", "the 5th of April") is exact: no rounding makes 4.8 of it."""
    if not 1 <= n.value <= 31 or n.value != int(n.value) or "." in n.text:  # (an endless number is no day)
        return n
    after, before = text[n.end:n.end + 16], text[max(0, n.start - 12):n.start]
    m = _DAY_BEFORE.match(after) or _DAY_AFTER.search(before)
    if m and "may" not in m.group(0):  # the month, not the modal ("12 may be")
        return Number(n.value, 1e-9, n.text, n.start, n.end, n.soft)
    return n


def number_supported(n: Number, source_values: list[float]) -> bool:
    """True if some source number equals n up to n's written precision (rounding), or up to 0.5% either way."""
    written = n.text.strip()
    year = _year(n) or (n.precision == 0.5 and bool(re.fullmatch(r"\d\d", written))
                        and 1100 <= n.value <= 2100)  # "2018–19"
    for v in source_values:
        if abs(v - n.value) <= max(n.precision, 1e-9):
            return True
        # a rounded amount may differ by 0.5%; a year ("2004" vs "1998") never does
        if not year and v and abs(v - n.value) <= 0.005 * abs(v):
            return True
        if not year and within_bound(n, v):
            return True
    return False


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
_FIGURES_AT_MOST = 8  # a sentence with more figures is a table row or a list: its differences would name anything


def differences(text: str) -> list[Number]:
    """What a summary derives from two figures of one sentence of `text`: their difference ("risen from 88% to 93%"
    gives the five points of "climbed five percentage points"; "£2.3 million, of which £1.6 million" the £700,000
    that remains), of two percentages (unit "%") or of two other figures (unit ""). Never of a year or a day of the
    month, which a difference would make a span of time."""
    out = []
    for sentence in _SENTENCE_END.split(text):
        nums = [n for n in find_numbers(sentence) if not n.soft and n.precision > 1e-6 and not _year(n)]
        if len(nums) > _FIGURES_AT_MOST:
            continue
        kinds = ["%" if _PERCENT_AFTER.match(sentence, n.end) or n.unit == "%" else "" for n in nums]
        for i, a in enumerate(nums):
            for j in range(i + 1, len(nums)):
                b = nums[j]
                if a.value != b.value and kinds[i] == kinds[j]:
                    out.append(Number(abs(a.value - b.value), max(a.precision, b.precision), f"{a.text} – {b.text}",
                                      a.start, b.end, unit=kinds[i]))
    return out


# a figure stated as a change or a remainder: "by 18 points", "the remaining £700,000", "a dozen more than",
# "£3.8 million lower", "five percentage points" — not a level that an "up" or "down" follows ("13.8 percent, down 70
# basis points": the level is the source's own figure, not a difference)
_AS_CHANGE_BEFORE = re.compile(r"\b(?:by|remaining|another|other|extra|gap\s+of|margin\s+of|difference\s+of)\s+(?:(?:"
                               + "|".join(sorted(set(_BOUND_PHRASES) | APPROXIMATORS))
                               + r")\s+)?(?:the\s+)?$", re.IGNORECASE)
_AS_CHANGE_AFTER = re.compile(r"(?:\s+(?:percentage|basis|[a-z]+s))?\s*(?:more|fewer|less|higher|lower|extra|points?)\b",
                              re.IGNORECASE)
_PERCENT_AFTER = re.compile(r"\s*(?:%|per\s*cent\b|percent\b)", re.IGNORECASE)
_SHARE_POINTS = re.compile(r"\s*percentage\s+points?\b", re.IGNORECASE)


def change_kinds(n: Number, text: str) -> set[str]:
    """What `n`, stated as a change or a remainder, may be the difference of (`differences`' units): two percentages
    for percentage points ({"%"}), either for bare points, two other figures for a count or an amount ({""}); none for
    a level, or for a relative change ("grew by 19%": a rate the source states, not a difference of its figures)."""
    if _PERCENT_AFTER.match(text, n.end) or not (_AS_CHANGE_BEFORE.search(text[max(0, n.start - 40):n.start])
                                                 or _AS_CHANGE_AFTER.match(text, n.end)):
        return set()
    if _SHARE_POINTS.match(text, n.end):
        return {"%"}
    return {"", "%"} if re.match(r"\s*points?\b", text[n.end:], re.IGNORECASE) else {""}


def derived_supported(n: Number, text: str, derived: list[Number]) -> bool:
    """Is `n` of `text` stated as a change that is one of the `derived` differences of the sources' figures?"""
    kinds = change_kinds(n, text)
    return bool(kinds) and number_supported(n, [d.value for d in derived if d.unit in kinds])


def change_kinds_in(text: str, start: int, end: int) -> set[str]:
    """What the numbers of the value at text[start:end] may be differences of (change_kinds)."""
    return {k for n in find_numbers(text) if start <= n.start < end for k in change_kinds(n, text)}


def _year(n: Number) -> bool:
    return n.precision == 0.5 and bool(re.fullmatch(r"(1[0-9]|20)\d\d", n.text.strip()))


def within_bound(n: Number, v: float) -> bool:
    """A value `v` that a bounded or rough number names: within a tenth of it (as a rounded value is), on the side its
    bound phrase says ("more than 200" names 212, not 190; "nearly 200" names 190, not 212; "about 200" either)."""
    if not n.approx:
        return False
    x, slack = n.value, _ROUNDED * abs(n.value)
    lo = x if n.approx == "least" else x - slack
    hi = x if n.approx == "most" else x + slack
    return lo - 1e-9 <= v <= hi + 1e-9


_CURRENCY_SIGNS = {"£": "pound", "$": "dollar", "€": "euro", "¥": "yen"}
_CURRENCY_AFTER = re.compile(r"\s+(pounds?|sterling|dollars?|euros?|yen)\b", re.IGNORECASE)


def currency(text: str, n: Number) -> str | None:
    """The currency amount `n` of `text` is written in ("£4m", "$4 million", "4 million euros"), by name: a dollar is a
    dollar whatever its country ("A$", "US$"); None for a bare number."""
    # the sign is in the number's text, or just before it where a country's letters keep the number pattern off it
    sign = n.text[:1] if n.text[:1] in _CURRENCY_SIGNS else text[n.start - 1:n.start] if n.start else ""
    if sign in _CURRENCY_SIGNS:
        return _CURRENCY_SIGNS[sign]
    m = _CURRENCY_AFTER.match(text, n.end)
    if m is None:
        return None
    word = m.group(1).lower()
    return "pound" if word == "sterling" else word.removesuffix("s")


def currency_conflict(n: Number, text: str, source_money: list[tuple[float, str | None]]) -> bool:
    """Amount `n` of `text` has a currency, and the sources state its value, but only in other currencies ("$4
    million" where the source says "€4 million"): the value is there, the amount is not."""
    cur = currency(text, n)
    if cur is None:
        return False
    found = [c for v, c in source_money if number_supported(n, [v])]
    return bool(found) and all(c is not None and c != cur for c in found)


def negations(text: str) -> int:
    return len(NEGATION.findall(text))


@lru_cache(maxsize=1)
def _common_words() -> frozenset[str]:
    """WordNet 3.0's one-word lemmas written only in lower case (citefix/data/common_words.json, built by
    builders/build_common_words.py; WordNet's licence travels in the file)."""
    raw = json.loads(resources.files("citefix").joinpath("data/common_words.json").read_text(encoding="utf-8"))
    return frozenset(raw["words"])


# WordNet's own rules for reaching a lemma from an inflected form (morphy, wnmorph(7WN)): suffix → replacement
_DETACH = (("ies", "y"), ("ses", "s"), ("xes", "x"), ("zes", "z"), ("ches", "ch"), ("shes", "sh"), ("men", "man"),
           ("es", "e"), ("es", ""), ("s", ""), ("ed", "e"), ("ed", ""), ("ing", "e"), ("ing", ""), ("er", ""),
           ("est", ""), ("er", "e"), ("est", "e"))


def common_word(word: str) -> bool:
    """Is `word` (any case) a common word and never a name in WordNet: "Develop", "cinema", "Employs"; not "Smith"
    (also a common noun, but WordNet writes a sense of it with a capital), not "British", not an unknown word."""
    w = word.lower()
    if not w.isalpha():
        return False
    table = _common_words()
    if w in table:
        return True
    return any(w.endswith(suf) and len(w) > len(suf) + 1 and w[: len(w) - len(suf)] + rep in table for suf, rep in _DETACH)


# words that join a value's parts without saying anything of it
_VALUE_GLUE = frozenset({"the", "of"})


def value_tokens(s: str) -> list[str]:
    """A value's words and numbers, number words and ordinals as digits ("fourth", "4th" → "4")."""
    out = []
    # a unit spelt the British or the American way ("230 metres" / "230 meters")
    s = re.sub(r"\b(met|lit|kilomet|centimet|millimet)re(s?)\b", r"\1er\2", s.lower())
    s = re.sub(r"(?<=\w)['\u2019]s\b", "", s)  # a name's possessive is the name: "Fenwick & Hale's" / "Fenwick & Hale"
    # a decimal said in words, in digits ("twelve dot fifty euros", "twelve euros and fifty" → "12.50 euros")
    for d in sorted(spoken_decimals(s), key=lambda x: -x.start):
        sc = re.search(r"\b(thousand|million|billion|trillion)\b", d.text)  # "one point four million" → "1.4 million"
        k = _SCALES[sc.group(1)] if sc else 1.0
        said = f"{d.value / k:.{round(-math.log10(2 * d.precision / k))}f}" + (f" {sc.group(1)}" if sc else "")
        cur = re.search(r"\b(euros?|pounds?|dollars?)\b", d.text)
        s = s[:d.start] + said + (f" {cur.group(1)}" if cur else "") + s[d.end:]
    # one period counted back from now, said several ways: "the previous year" / "the prior year" / "a year earlier" /
    # "a year ago" / "year-ago" are "last year"
    s = re.sub(r"\b(?:the\s+)?(?:previous|prior|preceding)\s+(year|quarter|month|week)\b", r"last \1", s)
    s = re.sub(r"\b(?:a|one|the)\s+(year|quarter|month|week)\s+(?:earlier|ago|before)\b", r"last \1", s)
    s = re.sub(r"\b(year|quarter|month|week)-ago\b", r"last \1", s)
    # a quarter of the year: "Q2" / "2Q" / "second quarter" / "2nd-quarter"
    s = re.sub(r"\b(?:q([1-4])|([1-4])q)\b", lambda m: f"{m.group(1) or m.group(2)} quarter", s)
    for t in re.findall(r"[a-z0-9]+(?:[.,][0-9]+)*", s):
        if t in _VALUE_GLUE:
            continue  # "the fourth quarter of 2020" is "4Q 2020"
        m = re.fullmatch(r"([0-9]+)(?:st|nd|rd|th)", t)
        n = _UNITS.get(t, _TENS.get(t, _ORDINALS.get(t)))
        out.append(m.group(1) if m else str(n) if n is not None else t)
    # a range's words between its two ends: "$90 million to $100 million" / "between $90 million and $100 million" /
    # "from 90 to 100", and of months or days: "between April and October" / "from April to October"
    if sum(1 for t in out if t[:1].isdigit() or t in MONTHS or t in WEEKDAYS) >= 2:
        out = [t for t in out if t not in RANGE_WORDS]
    return out


RANGE_WORDS = frozenset({"between", "from", "to", "and", "through"})
