"""What a number measures: the unit written after it, as a kind (time, length, data…).

A small model keeps a passage's number and gives it the unit the question asks for:
"4 gray" from "radiotherapy … for 4–6 weeks" to "What radiation dose, in gray, …?", or
answers a question in gigabytes with "8.8 hours". Both are caught by kind, not by the
words: :func:`measures` reads which kinds of unit stand after each number of a text
("4–6 weeks" gives 4 and 6 the kind time; "21 million passages" none), and
:func:`asked_kinds` which a question asks in ("How many gigabytes …", "in gray"). A
number the passage writes without a unit anywhere ("temp_max: 22.2") may be given any.
English only; a unit in another language is no unit here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from agentmaker.rag.answer.grounding import numbers_in

__all__ = ["asked_kinds", "measures", "unit_conflict"]

# Unit words (lower case; plural or abbreviation by the regex below) and their kinds. A
# word of two kinds ("pound") matches either.
_UNITS_BY_KIND = {
    "time": "second ms millisecond minute min hour hr h day week month year decade century",
    "data": "bit byte kb mb gb tb pb kib mib gib tib kilobyte megabyte gigabyte terabyte",
    "length": "mm cm km metre meter kilometre kilometer mile foot feet inch yard",
    "mass": "mg kg gram kilogram pound lb ounce oz ton tonne",
    "dose": "gray gy sievert sv rad",
    "temperature": "degree celsius fahrenheit kelvin °c °f",
    "percent": "percent % per_cent",
    "money": "dollar usd euro eur pound gbp cent yen",
    "speed": "mph kph knot",
    "volume": "litre liter ml gallon",
    "energy": "calorie kcal joule kwh watt kw",
}
_KINDS: dict[str, frozenset[str]] = {}
for _kind, _words in _UNITS_BY_KIND.items():
    for _unit in (word.replace("_", " ") for word in _words.split()):
        _KINDS[_unit] = _KINDS.get(_unit, frozenset()) | {_kind}

_UNIT_WORD = "|".join(sorted((re.escape(w) for w in _KINDS), key=len, reverse=True))
# A unit word, plural or not ("hours", "feet", "GB"), not the start of a longer word.
_UNIT = rf"(?P<unit>{_UNIT_WORD})(?:e?s)?(?![\w°])"
_NUMBER = r"(?<![\w.,])\d+(?:[.,]\d+)*"
_SMALL_WORDS = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy "
    "eighty ninety hundred"
)
_DIGIT_WORDS = "one|two|three|four|five|six|seven|eight|nine"
_WORD = rf"\b(?:{'|'.join(_SMALL_WORDS.split())})(?:-(?:{_DIGIT_WORDS}))?"
# A number, the other end of a range it opens ("4–6 weeks", "4 to 6 weeks", "4-weeks"),
# a multiplier ("21 million"), then what follows: a unit or another word.
_MEASURE = re.compile(
    rf"(?P<number>{_NUMBER}|{_WORD})"
    rf"(?:\s*(?:[-–—]|to|or|and)\s*(?P<end>{_NUMBER}|{_WORD}))?"
    r"(?:\s*(?:thousand|million|billion|trillion))?"
    rf"(?:-|\s*)(?:{_UNIT})?",
    re.IGNORECASE,
)
# A unit in a question, not a rate's ("How much a month …", "miles per gallon").
_ASKED_UNIT = re.compile(
    rf"(?<![\w°])(?<!\ban )(?<!\ba )(?<!\bper )(?<!\beach )(?<!/){_UNIT}", re.IGNORECASE
)
_CURRENCY = re.compile(rf"[$€£]\s*(?P<number>{_NUMBER})")


def measures(text: str) -> dict[str, set[str]]:
    """Each number ``text`` holds (plain, as :func:`numbers_in` gives it) and the kinds
    of unit written after it wherever it stands; "" where it stands without one."""
    out: dict[str, set[str]] = {}
    for match in _MEASURE.finditer(text):
        unit = match.group("unit")
        kinds = _KINDS[unit.lower()] if unit else frozenset({""})
        for number in numbers_in(f"{match.group('number')} {match.group('end') or ''}"):
            out.setdefault(number, set()).update(kinds)
    for match in _CURRENCY.finditer(text):
        for number in numbers_in(match.group("number")):
            out.setdefault(number, set()).add("money")
            out[number].discard("")
    return out


def asked_kinds(question: str) -> set[str]:
    """The kinds of unit ``question`` asks its answer in: its unit words that no number
    stands before ("How many gigabytes …", "in gray"; not the "30 days" it states, nor
    the "a month" of a rate)."""
    stated = {m.start("unit") for m in _MEASURE.finditer(question) if m.group("unit")}
    return {
        kind
        for m in _ASKED_UNIT.finditer(question)
        if m.start("unit") not in stated
        for kind in _KINDS[m.group("unit").lower()]
    }


def unit_conflict(
    claim: Mapping[str, set[str]], asked: set[str], held: Mapping[str, set[str]]
) -> bool:
    """Whether a number of the ``claim`` (its :func:`measures`) is given a unit of a kind
    the question does not ask in (``asked``, when it asks in one), or a unit the passage
    (``held``) never writes after it, when the passage writes it only with units."""
    for number, kinds in claim.items():
        units = kinds - {""}
        if not units:
            continue
        if asked and not units & asked:
            return True
        there = held.get(number, set())
        if there and "" not in there and not units & there:
            return True
    return False
