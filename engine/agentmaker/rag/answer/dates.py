"""Dates written in numbers ("2012/12/17", "2024-09-15"), read whole.

The support check compares numbers one by one, so "The wind speed for 2012/12/17 is
5.6. [2]" was held by a passage of other days' rows (2012/01/12, 2012/03/17: 2012, 12 and
17 all stand there). A date an answer writes in numbers is one fact: :func:`dates_in`
reads it as (year, month, day), and a passage holds it when it writes that day, in
numbers or in words ("December 17, 2012", "17 December 2012").
"""

from __future__ import annotations

import re

__all__ = [
    "dates_in",
    "day_numbers",
    "numeric_dates",
    "ordinal_numbers",
    "without_dates",
    "without_days",
    "without_ordinals",
    "writes_date",
]

# The months' first three letters, as dates abbreviate them ("Dec", "Sept.").
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH_NAMES = (
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sept sep oct nov dec"
)
_MONTH = rf"(?P<month>{'|'.join(_MONTH_NAMES.split())})\b\.?"
_YMD = re.compile(r"(?<![\d./-])(\d{4})([-/.])(\d{1,2})\2(\d{1,2})(?![\d/-]|\.\d)")
# Day and month before the year ("12/17/2012", "17.12.2012"): either order may be meant.
_DAY_MONTH_YEAR = re.compile(r"(?<![\d./-])(\d{1,2})([-/.])(\d{1,2})\2(\d{4})(?![\d/-]|\.\d)")
_MDY = re.compile(rf"\b{_MONTH}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?,?\s+(?P<year>\d{{4}})\b", re.I)
_DMY = re.compile(rf"\b(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH},?\s+(?P<year>\d{{4}})\b", re.I)

Date = tuple[int, int, int]


def _valid(year: int, month: int, day: int) -> bool:
    return 1 <= month <= 12 and 1 <= day <= 31


def _ymd(match: re.Match[str]) -> Date | None:
    date = (int(match.group(1)), int(match.group(3)), int(match.group(4)))
    return date if _valid(*date) else None


def numeric_dates(text: str) -> set[Date]:
    """The dates ``text`` writes as year, month and day in numbers ("2012/12/17")."""
    return {date for m in _YMD.finditer(text) if (date := _ymd(m))}


def dates_in(text: str) -> set[Date]:
    """The dates ``text`` writes, in numbers (the day and the month before the year
    read both ways) or with the month's name."""
    found = numeric_dates(text)
    for m in _DAY_MONTH_YEAR.finditer(text):
        a, b, year = int(m.group(1)), int(m.group(3)), int(m.group(4))
        found |= {date for date in ((year, a, b), (year, b, a)) if _valid(*date)}
    for pattern in (_MDY, _DMY):
        for m in pattern.finditer(text):
            month = _MONTHS.index(m.group("month").lower()[:3]) + 1
            date = (int(m.group("year")), month, int(m.group("day")))
            if _valid(*date):
                found.add(date)
    return found


def without_dates(text: str) -> str:
    """``text`` with the dates it writes in numbers (:func:`numeric_dates`) blanked."""
    return _YMD.sub(lambda m: " " if _ymd(m) else m.group(0), text)


# A day of the month beside its month's name: "May 15", "15 May", "the 15th of May".
_MONTH_DAY = re.compile(
    rf"\b{_MONTH}\s+(?P<day>\d{{1,2}})(?:st|nd|rd|th)?\b(?![:.]\d)"
    rf"|\b(?P<day2>\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?(?P<month2>{'|'.join(_MONTH_NAMES.split())})\b",
    re.I,
)


def _is_day(match: re.Match[str]) -> bool:
    # "may 5 be used" is no date: May is written with its capital.
    month = match.group("month") or match.group("month2")
    return month.lower() != "may" or month[0] == "M"


def day_numbers(text: str) -> set[str]:
    """The days of the month ``text`` writes beside a month's name ("15" of "May 15,
    2023"): part of a date, no count of anything."""
    return {m.group("day") or m.group("day2") for m in _MONTH_DAY.finditer(text) if _is_day(m)}


def without_days(text: str) -> str:
    """``text`` with the days it writes beside a month's name blanked (the month kept)."""
    return _MONTH_DAY.sub(
        lambda m: (m.group("month") or m.group("month2")) if _is_day(m) else m.group(0), text
    )


# A number written as an ordinal: "4th edition", "21st".
_ORDINAL = re.compile(r"(?<![\w.])(\d+)(?:st|nd|rd|th)\b", re.IGNORECASE)


def ordinal_numbers(text: str) -> set[str]:
    """The numbers ``text`` writes as ordinals ("4" of "the 4th edition"): a place in a
    row, no count of anything (like a day of the month)."""
    return {m.group(1) for m in _ORDINAL.finditer(text)}


def without_ordinals(text: str) -> str:
    """``text`` with the numbers it writes as ordinals blanked."""
    return _ORDINAL.sub(" ", text)


# A date as documents write it: a month's name ("May 18", "Dec. 20, 2018"), a date in
# numbers ("1863-05-18", "5/18/1863"), a Chinese day ("5月18日").
_WRITTEN_DATE = re.compile(
    rf"\b(?:{'|'.join(_MONTH_NAMES.split())})\b|\d{{1,4}}[-/.]\d{{1,2}}[-/.]\d{{1,4}}"
    r"|[0-9〇零一二三四五六七八九十]+[日号]",
    re.I,
)


def writes_date(text: str) -> bool:
    """Whether ``text`` writes a date (a weekday is none: "on Sunday")."""
    return bool(_WRITTEN_DATE.search(text))
