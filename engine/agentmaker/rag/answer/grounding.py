"""A check on a model's answer: numbers it states that none of its passages holds.

A small model sometimes answers from what it knows instead of from the passages ("The
boiling point of liquid nitrogen is 77.35 °C [1]" when passage 1 is about a farm). Names
are hard to check without a model, numbers are not: every number in the answer should
be in a passage it was given (written as digits, with or without thousands separators,
or as an English number word up to a hundred). The caller shows the ones that are not,
so the reader knows what to check; the answer itself is left as written.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = [
    "as_quantities",
    "held_numbers",
    "numbers_in",
    "plain",
    "stated_numbers",
    "unsupported_numbers",
]

_MARKER = re.compile(r"\[\d+\]")
# ASCII digits only; not inside a longer number (Chinese text has no spaces: "造成12人").
_NUMBER = re.compile(r"(?<![0-9.,])[0-9]+(?:[.,][0-9]+)*")
_UNITS = [
    *("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"),
    *("ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"),
    *("seventeen", "eighteen", "nineteen"),
]
_TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
_WORD_NUMBER = re.compile(
    rf"\b(?:({'|'.join(_TENS)})(?:[- ]({'|'.join(_UNITS[1:10])}))?|({'|'.join(_UNITS)})"
    r"|(a |one )?hundred)\b",
    re.IGNORECASE,
)


# Thousands separated by full stops, as much of Europe writes them: "273.879.750".
_DOTTED_THOUSANDS = re.compile(r"[0-9]{1,3}(?:\.[0-9]{3}){2,}")


def plain(number: str) -> str:
    """A number without thousands separators (commas, or full stops in twos or more:
    "273.879.750" is 273,879,750) or trailing zeros after a decimal point."""
    if _DOTTED_THOUSANDS.fullmatch(number):
        return number.replace(".", "")
    digits = number.replace(",", "")
    if "." in digits:
        digits = digits.rstrip("0").rstrip(".")
    return digits


def numbers_in(text: str) -> set[str]:
    """Every number ``text`` holds, plain (digits without separators; number words
    up to a hundred as digits)."""
    found = {plain(n) for n in _NUMBER.findall(text)}
    for match in _WORD_NUMBER.finditer(text):
        tens, unit, single, _hundred = match.groups()
        if tens:
            value = (
                20 + 10 * _TENS.index(tens.lower()) + (_UNITS.index(unit.lower()) if unit else 0)
            )
        elif single:
            value = _UNITS.index(single.lower())
        else:
            value = 100
        found.add(str(value))
    return found


# A footnote's number glued to the last number of a sentence ("… diagnosed by the age of
# 85.2 About 120 men …": 85, note 2).
_FOOTNOTED = re.compile(r"(\d+)\.\d(?=\s+[A-Z…]|\s*$)")


# A number inside a hyphenated name, the 2 of "BSD-2-Clause" and the 2.1 of
# "LGPL-2.1-only", or a version ending a capitalised one, the 2.0 of "Apache-2.0".
_IN_NAME = re.compile(
    r"(\b[A-Za-z]\w*-)[0-9]+(?:\.[0-9]+)*(?=-[A-Za-z])|(\b[A-Z][A-Za-z]*-)[0-9]+\.[0-9]+(?![\w.-])"
)


# A power of ten written with a caret, a minus sign or a superscript ("10−5", "10^-5",
# "10⁻⁵"; an ASCII hyphen is left alone: "10-5" may be a score or a range).
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-")
_POWER = re.compile(
    r"(?<![0-9.,])10(?:\s?\^\s?(?P<caret>[-−]?)|(?P<minus>−)|(?P<raised>⁻?)(?=[⁰¹²³⁴⁵⁶⁷⁸⁹]))"
    r"(?P<exponent>[0-9]{1,3}(?![0-9])|[⁰¹²³⁴⁵⁶⁷⁸⁹]+)"
)


def _scientific(match: re.Match[str]) -> str:
    negative = bool(match["caret"] or match["minus"] or match["raised"])
    return f"1e{'-' if negative else ''}{match['exponent'].translate(_SUPERSCRIPTS)}"


# A page locator, as a passage's header writes it ("Booklet — p. 5 (printed 3)") or a
# text cites a page ("see p. 45").
_PAGE = re.compile(r"\bpp?\. ?[0-9]+(?:[-–][0-9]+)?(?: \(printed [^)\n]*\))?")


def as_quantities(text: str) -> str:
    """``text`` as its quantities are read: without the numbers that are part of a
    hyphenated name ("BSD-2-Clause"):
    no quantity a passage states (it did not say "2" of how many keywords a package may
    list), nor one an answer naming the licence states. A power of ten is written as
    "1e-5": its 10 is no quantity either ("a learning rate of 10−5" states no ten
    warm-up steps); nor is a page's number ("p. 5 (printed 3)" of a passage's header
    holds no three months)."""
    text = _PAGE.sub("p.", _POWER.sub(_scientific, text))
    return _IN_NAME.sub(r"\1\2 ", text)  # the name kept, its number gone


def held_numbers(text: str) -> set[str]:
    """The numbers a passage's ``text`` holds (:func:`numbers_in`) outside hyphenated
    names, and each number a footnote's is glued to ("85" of "the age of 85.2 About 120
    men")."""
    text = as_quantities(text)
    return numbers_in(text) | {m.group(1) for m in _FOOTNOTED.finditer(text)}


def stated_numbers(text: str, *, words: bool = False) -> list[str]:
    """The numbers written in digits in ``text`` (its ``[n]`` markers aside), plain;
    with ``words``, also those written as words from two to ninety-nine ("twelve-inch
    guns" states 12; "one" and "hundred" are left out: "one of the", "hundreds of")."""
    text = _MARKER.sub(" ", text)
    out: list[str] = []
    for number in _NUMBER.findall(text):
        if plain(number) not in out:
            out.append(plain(number))
    if words:
        for number in sorted(numbers_in(_NUMBER.sub(" ", text)) - {"0", "1", "100"}, key=int):
            if number not in out:
                out.append(number)
    return out


def unsupported_numbers(answer: str, passages: Sequence[str]) -> list[str]:
    """The numbers in ``answer`` (its ``[n]`` markers aside) that no passage holds, in
    the order they appear."""
    stated = _NUMBER.findall(as_quantities(_MARKER.sub(" ", answer)))
    if not stated:
        return []
    held: set[str] = set()
    for passage in passages:
        held |= held_numbers(passage)
    out: list[str] = []
    for number in stated:
        if plain(number) not in held and number not in out:
            out.append(number)
    return out
