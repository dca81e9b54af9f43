"""Times in a text for the offline verifier: month and weekday names, relative times ("last week", "three weeks
ago") as steps from now, what a time value fixes (its grains), and lengths of time in days, so that one span written
two ways ("twelve months" / "its first year", "a fortnight" / "14 days") is one value."""

from __future__ import annotations

import re
from dataclasses import replace

from citefix.lexicon import MONTHS, WEEKDAYS
from citefix.verify.lexical import _NUM_WORDS, _TENS, _UNITS, Number, _words_value, find_numbers, number_supported


def date_words(text: str) -> list[tuple[str, int, int]]:
    """Month and weekday names (canonical form, span)."""
    out = []
    for m in re.finditer(r"\b[A-Za-z]+\b", text):
        w = m.group(0).lower()
        if w in WEEKDAYS:
            out.append((w, m.start(), m.end()))
        elif w in MONTHS and (len(w) > 3 or m.group(0)[0].isupper()) and w != "may":
            out.append((MONTHS[w], m.start(), m.end()))
        elif w == "may" and m.group(0) == "May" and m.start() > 0:
            out.append(("may", m.start(), m.end()))
    return out


_TIME_UNIT = r"(?:day|days|week|weeks|weekend|month|months|year|years|decade|decades|season|seasons|spring|summer|autumn|winter|night|morning|afternoon|evening|century)"
_TIME_PHRASE = re.compile(
    r"\b(?:(?:last|next|this|previous|coming|past|following)\s+" + _TIME_UNIT + r"|"
    r"(?:\d+|a|an|a\s+few|few|several|many|some|a\s+couple\s+of|(?:" + _NUM_WORDS + r")(?:[\s-]+(?:" + _NUM_WORDS + r"))?)"
    r"\s+" + _TIME_UNIT + r"\s+(?:ago|earlier|later|before|after)|"
    # a part of a named day ("Tuesday morning", "yesterday evening"): the day alone is a date word, its part is not
    r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|yesterday|tomorrow)\s+(?:morning|afternoon|evening"
    r"|night))\b",
    re.IGNORECASE,
)


def time_phrases(text: str) -> list[tuple[str, int, int]]:
    """Relative times ("last week", "three weeks ago", "two years earlier") and parts of named days ("Tuesday
    morning"): (lower-cased phrase, start, end)."""
    return [(re.sub(r"\s+", " ", m.group(0).lower()), m.start(), m.end()) for m in _TIME_PHRASE.finditer(text)]


# A relative time as the step it counts from now: "last year", "the prior year" and "a year ago" are one time (one
# year back), "three weeks ago" and "three weeks earlier" another; "next month" and "a month later" one step on.
_BACK, _ON, _NOW = ("last", "previous", "prior", "preceding", "past"), ("next", "coming", "following"), ("this", "current")
_STEP_UNIT = r"(?P<u>day|week|weekend|month|quarter|year|decade|season|century)s?"
_STEP = re.compile(
    r"\b(?:(?P<dir>" + "|".join(_BACK + _ON + _NOW) + r")\s+" + _STEP_UNIT + r"|"
    r"(?P<n>\d+|an?|(?:" + _NUM_WORDS + r"))\s+" + _STEP_UNIT.replace("?P<u>", "?P<u2>")
    + r"\s+(?P<way>ago|earlier|before|later|after))\b",
    re.IGNORECASE,
)


def time_steps(text: str) -> list[tuple[int, str, int, int]]:
    """The relative times of `text` as steps from now: (count, unit, start, end), the count negative for a time
    back ("last year", "a year ago": -1, "year"), 0 for the current one ("this quarter")."""
    out = []
    for m in _STEP.finditer(text):
        if m.group("dir"):
            d = m.group("dir").lower()
            n, unit = (-1 if d in _BACK else 1 if d in _ON else 0), m.group("u").lower()
        else:
            raw = m.group("n").lower()
            count = 1.0 if raw in ("a", "an") else float(raw) if raw.isdigit() else _words_value(raw) or 0.0
            n = int(count) * (-1 if m.group("way").lower() in ("ago", "earlier", "before") else 1)
            unit = m.group("u2").lower()
        if n or m.group("dir"):
            out.append((n, unit, m.start(), m.end()))
    return out


_TIME_UNITS = r"(?:seconds?|minutes?|hours?|days?|nights?|weeks?|months?|years?|decades?|seasons?|centuries|century)"
_DURATION = re.compile(r"\b(?:\d+(?:\.\d+)?|a|an|" + "|".join(sorted(
    ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "fifteen",
     "eighteen", "twenty", "thirty", "forty", "fifty", "hundred", "several", "few", "many"], key=len, reverse=True))
    + r")[\s-]+(?:\w+[\s-]+)?" + _TIME_UNITS + r"\b", re.IGNORECASE)


def time_grains(text: str) -> set[str]:
    """What a time value fixes: a year, a month, a weekday, a clock time, a duration ("two years", "about eighteen
    months"), a time counted from now ("last week"), else a number ("aged 52"). Two times contradict each other only on a grain both fix: "fall 2016" against "this year" (relative to a
    date the source does not give) or "2018" against "Thursday" is no contradiction."""
    out = set()
    if re.search(r"\b(?:1[0-9]|20)\d\d\b", text):
        out.add("year")
    for d, _, _ in date_words(text):
        out.add("weekday" if d in WEEKDAYS else "month")
    if re.search(r"\b\d{1,2}(?::\d\d)?\s?(?:am|pm|a\.m\.|p\.m\.)|\b\d{1,2}:\d\d\b", text, re.IGNORECASE):
        out.add("clock")
    if _DURATION.search(text):
        out.add("duration")
    if re.search(r"\b(?:last|next|this|previous|coming|past|following)\s+\w+|\bago\b", text, re.IGNORECASE):
        out.add("relative")  # "last week" / "last month": both counted from the same now
    if not out and find_numbers(text):
        out.add("number")  # "aged 52", "the age of 78": a count of no other grain
    return out


# Lengths of time in days, so that one span written two ways is one value: "18 months" / "a year and a half",
# "every 15 minutes" / "every quarter of an hour", "two weeks" / "a fortnight".
_IN_DAYS = {"minute": 1 / 1440, "hour": 1 / 24, "day": 1.0, "week": 7.0, "fortnight": 14.0, "month": 365.25 / 12,
            "quarter": 365.25 / 4, "year": 365.25, "decade": 3652.5, "century": 36525.0}
_SPAN_UNIT = r"(?P<u>minutes?|hours?|days?|weeks?|fortnights?|months?|years?|decades?|centuries|century)"
_SPAN_COUNT = (r"(?P<n>\d+(?:\.\d+)?|an?|(?:" + "|".join(_TENS) + r")[\s-](?:one|two|three|four|five|six|seven|eight|nine)|"
               + "|".join(sorted(set(_UNITS) | set(_TENS), key=len, reverse=True)) + r")")
_LENGTH = re.compile(
    r"\b(?:(?P<part>half|(?:(?:a|one)\s+)?quarter|three\s+quarters)\s+(?:of\s+)?an?\s+" + _SPAN_UNIT
    + r"|" + _SPAN_COUNT + r"(?P<and>\s+and\s+a\s+(?:half|quarter))?\s+" + _SPAN_UNIT.replace("?P<u>", "?P<u2>")
    + r"(?P<after>\s+and\s+a\s+half)?)\b",
    re.IGNORECASE,
)


def length_in_days(text: str) -> float | None:
    """The one length of time `text` names, in days ("a year and a half" → 547.9, "18 months" → 547.9, "half an hour"
    → 0.0208), or None when it names none or more than one."""
    found = list(_LENGTH.finditer(text))
    if len(found) != 1:
        return None
    m = found[0]
    if m.group("part"):
        part = m.group("part").lower()
        count = 0.5 if part == "half" else (0.75 if part.startswith("three") else 0.25)
        unit = m.group("u")
    else:
        raw = m.group("n").lower()
        count = 1.0 if raw in ("a", "an") else (float(raw) if raw[0].isdigit() else float(_words_value(raw.replace("-", " ")) or 0))
        if m.group("and") or m.group("after"):
            count += 0.25 if "quarter" in (m.group("and") or "").lower() else 0.5
        unit = m.group("u2")
    return count * _unit_days(unit) if count > 0 else None


def same_length(a: str, b: str) -> bool:
    """Both values are one length of time each, and the same one in other units ("18 months" / "a year and a half")."""
    x, y = length_in_days(a), length_in_days(b)
    return x is not None and y is not None and abs(x - y) <= 0.01 * max(x, y)


_UNIT_WORD = r"(hours?|days?|weeks?|fortnights?|months?|quarters?|years?|decades?|centuries|century)"
_UNIT_AFTER = re.compile(r"[\s-]*(?:(?:full|whole|calendar)\s+)?" + _UNIT_WORD + r"\b", re.IGNORECASE)
# one of a unit of time named without a number: "its first year", "the past fortnight", "per month", "a decade"
_ONE_UNIT = re.compile(r"\b(?:a|an|one|the|its|their|his|her|our|first|last|past|previous|prior|next|this|each|per|every"
                       r"|same|single)\s+(?:(?:full|whole|calendar|financial|fiscal|first|last|past|previous|single)\s+)?"
                       r"(hour|day|week|fortnight|month|quarter|year|decade|century)\b", re.IGNORECASE)
# the share of a calendar's length that one span of time may differ from another and still be it (52 weeks, a year)
_CALENDAR = 0.03


def _unit_days(word: str) -> float:
    w = word.lower()
    return _IN_DAYS["century" if w == "centuries" else w.removesuffix("s")]


def duration_days(n: Number, text: str) -> float | None:
    """The span of time that number `n` of `text` counts, in days ("twelve months" → 365.25), or None."""
    if n.unit == "year":
        return n.value * _IN_DAYS["year"]
    m = None if n.unit else _UNIT_AFTER.match(text, n.end)
    return n.value * _unit_days(m.group(1)) if m else None


def durations(text: str) -> list[float]:
    """Every span of time `text` names, in days: counted ("three weeks", "four decades") or one unit ("its first
    year", "a fortnight")."""
    counted = [duration_days(n, text) for n in find_numbers(text)]
    return [d for d in counted if d] + [_unit_days(m.group(1)) for m in _ONE_UNIT.finditer(text)]


def duration_supported(n: Number, text: str, source_days: list[float]) -> bool:
    """Number `n` of `text` counts a span of time that the sources name in another unit ("twelve months" where they
    say "its first year", "a fortnight" for "14 days")."""
    days = duration_days(n, text)
    if not days or not n.value:
        return False
    per = days / n.value
    return number_supported(replace(n, value=days, precision=max(n.precision * per, _CALENDAR * days)), source_days)


# a step of time in one unit of its calendar: months ("a year ago" / "twelve months earlier"), days ("a week" / 7)
_STEP_IN = {"month": ("month", 1), "quarter": ("month", 3), "year": ("month", 12), "decade": ("month", 120),
            "century": ("month", 1200), "day": ("day", 1), "week": ("day", 7)}


def canonical_step(n: int, unit: str) -> tuple[int, str]:
    """A relative time's step (time_steps) in its calendar's smallest unit: (-1, "year") → (-12, "month")."""
    u, k = _STEP_IN.get(unit, (unit, 1))
    return n * k, u
