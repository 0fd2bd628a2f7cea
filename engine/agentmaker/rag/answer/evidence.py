"""What a passage holds, as the answer check (support.py) compares a claim with it:
its numbers (with the kinds of their units and its dates), its words folded and as
terms, the terms of each sentence with the label it stands under, and the names it
states, however a model may write them ("Roberts" for "Iwan Roberts", "VA" for
"Virginia", "Davout" for "Marshal Davout", OCR's "Eichmond" for "Richmond")."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from agentmaker.rag.answer.dates import Date, dates_in, without_days, without_ordinals
from agentmaker.rag.answer.grounding import held_numbers
from agentmaker.rag.answer.names import fold, named, options_in
from agentmaker.rag.answer.sentences import LABEL_WORDS, terms
from agentmaker.rag.answer.units import measures
from agentmaker.rag.answer.us_states import state_code, state_name

__all__ = ["Evidence", "passage_evidence"]

_CAPITALISED = re.compile(r"(?<!\w)[A-Z][a-z]\w*")
_TWO_CAPITALS = re.compile(r"(?<![\w.])[A-Z]{2}(?!\w)")
# Where a passage's sentences end, roughly (for what one sentence holds); a line of at
# most LABEL_WORDS words that does not end as a sentence does is a label ("Dutch",
# "Red and dry skin", a heading).
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[。！？；])")
_LABEL_END = re.compile(r"[.!?。！？；:,]\W*$")
# Where an option's entry of a list begins ("`--all-groups`: Install …", "`--extras (-E)`:"):
# a passage found as sentences run together writes a list's entries on one line.
_OPTION_ITEM = re.compile(r"(?=`--[^`\n]+`\s?:)")
# A table row's first cell alone on its line ("| Item 1B."), the row's values under it.
_ROW_LABEL = re.compile(r"\|\s*[^|\s][^|]*$")
# Last words of names that are not people's: "Norwich City" is not "Leicester City".
_NOT_SURNAMES = frozenset(
    re.findall(
        r"\w+",
        "city town united county club football university college school company group bank "
        "party river street road park hall house council court act code state states kingdom "
        "republic island islands church institute society association foundation museum "
        "library project team league cup war",
    )
)
# Titles a model puts before a name the passage writes bare ("Marshal Davout" for the
# novel's "Davout, spectacles on nose, …").
_TITLES = frozenset(
    re.findall(
        r"\w+",
        "mr mrs ms miss dr doctor prof professor sir lord lady king queen prince princess "
        "emperor empress count countess duke duchess baron baroness general marshal colonel "
        "captain major lieutenant admiral pope president senator governor judge",
    )
)
# A word of a name the question states this long or longer may stand in a passage with
# one letter misread (OCR: "Eichmond" for "Richmond").
_MISREAD_LENGTH = 7


@dataclass(frozen=True)
class Evidence:
    """What a passage holds, as the check compares it: numbers, folded text, terms."""

    numbers: frozenset[str]
    folded: str
    terms: frozenset[str]
    capitalised: frozenset[str]  # words written with a capital, folded
    codes: frozenset[str]  # two capitals alone ("VA"), folded: " va "
    sentences: tuple[frozenset[str], ...]  # the terms of each sentence, with its label
    measures: dict[str, set[str]]  # the kinds of unit after each number (units.py)
    dates: frozenset[Date]  # dates.py
    #: Numbers that stand only as a day beside a month's name ("15" of "May 15, 2023")
    #: or as an ordinal ("4" of "4th edition"): no count of anything.
    days_only: frozenset[str] = frozenset()
    #: Its lines that write command-line options: the options of each ("--readme";
    #: names.py, ``options_in``) and its terms.
    option_lines: tuple[tuple[frozenset[str], frozenset[str]], ...] = ()

    def __or__(self, other: Evidence) -> Evidence:
        measured = {n: set(kinds) for n, kinds in self.measures.items()}
        for n, kinds in other.measures.items():
            measured.setdefault(n, set()).update(kinds)
        return Evidence(
            self.numbers | other.numbers,
            self.folded + other.folded,
            self.terms | other.terms,
            self.capitalised | other.capitalised,
            self.codes | other.codes,
            self.sentences + other.sentences,
            measured,
            self.dates | other.dates,
            (self.days_only | other.days_only)
            - (self.numbers - self.days_only)
            - (other.numbers - other.days_only),
            self.option_lines + other.option_lines,
        )

    def names(self, name: str, *, asked: bool) -> bool:
        """Whether this passage states the folded ``name``; one the question ``asked``
        about may be a person the passage calls by the surname alone ("Iwan Roberts"
        in a biography that says "Roberts"), or a family it names by one of them ("the
        Rostovs'" where the count is "Rostov")."""
        if named(name, self.folded) or self._state(name):
            return True
        words = name.split()
        if (
            len(words) >= 2
            and words[0] in _TITLES
            and named(f" {' '.join(words[1:])} ", self.folded)
        ):
            return True
        return asked and (
            (len(words) >= 2 and words[-1] not in _NOT_SURNAMES and words[-1] in self.capitalised)
            or (words[-1].endswith("s") and named(f" {name.strip()[:-1]} ", self.folded))
            or self._misread(words)
        )

    def _misread(self, words: list[str]) -> bool:
        """Whether the passage writes the name with one letter of a long word misread,
        as OCR does ("Eichmond" for the "Richmond" the question names): a name the
        question states is what it asks about, and a scanned page seldom names another
        place or person one letter away from it."""
        held = set(self.folded.split())
        spelt = []
        for word in words:
            if word in held or len(word) < _MISREAD_LENGTH:
                spelt.append(word)
                continue
            near = [w for w in held if len(w) == len(word) and _one_letter_apart(w, word)]
            if len(near) != 1:
                return False
            spelt.append(near[0])
        return spelt != words and named(" ".join(spelt), self.folded)

    def _state(self, name: str) -> bool:
        """Whether the passage writes the US state ``name`` the other way: "VA" for
        "Virginia" (written in capitals: "in" is no Indiana), "Virginia" for "VA"."""
        code = state_code(name)
        if code is not None:
            return code in self.codes
        state = state_name(name)
        return state is not None and state in self.folded


def _one_letter_apart(a: str, b: str) -> bool:
    return sum(x != y for x, y in zip(a, b, strict=True)) == 1


@functools.lru_cache(maxsize=256)
def passage_evidence(passage: str) -> Evidence:
    """What ``passage`` holds; remembered, as every sentence of an answer is checked
    against the same passages."""
    # Words inside identifiers count as words too: POETRY_VIRTUALENVS_PATH names
    # "Poetry", as the docs that write it only in upper case mean it.
    folded = fold(passage) + fold(passage.replace("_", " "))
    capitalised = frozenset(fold(" ".join(_CAPITALISED.findall(passage))).split())
    codes = frozenset(f" {code.lower()} " for code in _TWO_CAPITALS.findall(passage))
    numbers = frozenset(held_numbers(passage))
    return Evidence(
        numbers,
        folded,
        frozenset(terms(passage)),
        capitalised,
        codes,
        _sentences(passage),
        measures(passage),
        frozenset(dates_in(passage)),
        numbers - held_numbers(without_ordinals(without_days(passage))),
        tuple(
            (options, frozenset(terms(item)))
            for line in passage.splitlines()
            for item in _OPTION_ITEM.split(line)
            if (options := options_in(item))
        ),
    )


def _sentences(passage: str) -> tuple[frozenset[str], ...]:
    """The terms of each sentence of ``passage``, each with those of the label line it
    stands under: "Dutch" is what "… in een geest van broederschap te gedragen." is said
    in, as a heading is what its text is about; and a table's short first cell on a line
    of its own, however it ends ("| Item 1B." above "| | Unresolved Staff Comments |")."""
    out: list[frozenset[str]] = []
    label: frozenset[str] = frozenset()
    for line in passage.splitlines():
        if not line.strip():
            continue
        short = len(line.split()) <= LABEL_WORDS
        if short and (not _LABEL_END.search(line) or _ROW_LABEL.match(line)):
            label = frozenset(terms(line))
            out.append(label)
            continue
        out += [frozenset(terms(part)) | label for part in _SENTENCE_END.split(line)]
    return tuple(out)
