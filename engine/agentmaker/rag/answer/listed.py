"""The entry of a list a question asks for by its place: right after or before an entry
it names, or between two ("On the NWS spring safety page, which Weather Safety entry
sits between Rip Currents and Space Weather?").

A 1.5B model reads a list's order badly: shown a menu's entries, it named another entry
of the menu, or only pointed at its passage; asked whether a quote of the right entry
answers, it said yes or no by the words around the entry (REPORT §10, session 36).
Where the passage writes the entries one a line, a bullet each, or apart by a run of
spaces (a web page's menu), the entry asked for is the one beside the entry the question
names, exactly: it is quoted where it stands, and the model is not asked.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agentmaker.rag.answer.names import fold
from agentmaker.rag.answer.records import RECORD
from agentmaker.rag.answer.sentences import render_markdown

__all__ = ["Listed", "listed_entry"]

# Where the question says the place asked for, and the entry it names after that: "is
# listed right after", "sits between", "follows", "what does the About menu list after
# Roadmap?"; not "what is given in brackets after Sun?" (of the entry "Sun (Ultraviolet
# Radiation)").
_PLACE = re.compile(
    r"\b(?:(?:comes?|came|is|are|was|listed|lists?|shows?|names?|sits?|stands?|placed|"
    r"appears?|goes)\s+"
    r"(?:(?:right|directly|immediately|just)\s+)?(after|before|between)|(follows|precedes))\s+",
    re.IGNORECASE,
)
_STEP = {"after": 1, "follows": 1, "before": -1, "precedes": -1}
# What parts a list's entries: a line break, a run of spaces (a web page's menu).
_PARTING = re.compile(r"\n|\s{3,}")
# A record's field name before its value ("text: Weather Safety   Air Quality …").
_FIELD_NAME = re.compile(r"^[\w.]+: ")
_BULLET = re.compile(r"^\s*(?:[-*•+]|\d+[.)])\s+")
# Where an entry's name ends and what is said of it begins: "Text extraction
# improvements, e.g., for math content."
_NAME_END = re.compile(r"[,.;:(]|\s[–—-]\s")
#: An entry has at most this many words: a menu's item, not prose; a bulleted point
#: at most the second.
_ENTRY_WORDS, _POINT_WORDS = 14, 40
#: The most characters of an entry shown.
_SHOWN = 200


@dataclass(frozen=True)
class Listed:
    """The entry ``entry`` of passage ``number``'s list, found beside ``named``."""

    number: int
    entry: str
    named: tuple[str, ...]
    #: +1: after the entry named, -1: before it; 0: between two, or the first or last
    #: entry of the list named (``first``).
    step: int
    first: bool = False

    def quote(self) -> str:
        """The entry where it stands in the list, with its passage's marker."""
        said = [f"“{name}”" for name in self.named]
        if len(said) == 2:
            where = f"stands between {said[0]} and {said[1]} in the list"
        elif self.step:
            where = f"comes right {'after' if self.step > 0 else 'before'} {said[0]} in the list"
        else:
            where = f"is the {'first' if self.first else 'last'} entry of {said[0]}"
        return f"“{self.entry}” {where}. [{self.number}]"


def _entries(passage: str) -> list[list[str]]:
    """The runs of entries of ``passage``, each run a list's entries in order: a blank
    line ends a run (a line, in records: each field's value is a run of its own); an
    entry is at most :data:`_ENTRY_WORDS` words (a bulleted one :data:`_POINT_WORDS`),
    with a letter."""
    runs: list[list[str]] = []
    records = RECORD.search(passage) is not None
    for block in passage.split("\n") if records else re.split(r"\n\s*\n", passage):
        if records:
            block = _FIELD_NAME.sub("", block)
        run: list[str] = []
        for piece in _PARTING.split(block):
            bullet = _BULLET.match(piece)
            text = " ".join(render_markdown(piece[bullet.end() :] if bullet else piece).split())
            if not re.search(r"[^\W\d_]", text):
                continue  # a rule
            if len(text.split()) > (_POINT_WORDS if bullet else _ENTRY_WORDS):
                if len(run) > 1:
                    runs.append(run)
                run = []
                continue
            run.append(text)
        if len(run) > 1:
            runs.append(run)
    return runs


def _name(entry: str) -> str:
    """The name of ``entry``: its words up to what it says of itself."""
    cut = _NAME_END.search(entry)
    return (entry[: cut.start()] if cut and cut.start() else entry).strip()


# Words that may follow the entry a question names: where the list stands, what else
# it asks ("… right after WRN Brochure in the About menu").
_AFTER_NAME = frozenset(
    {"in", "on", "among", "of", "within", "from", "under", "at", "for", "and", "listed"}
    | {"according", "is", "are", "was", "comes", "sits", "stands"}
)


def _named_at(asked: str, run: list[str]) -> list[tuple[int, int]]:
    """The entries of ``run`` whose name ``asked`` (folded) opens with, the whole name
    before the question goes on: (index, length of the name in characters), longest
    first."""
    found = []
    for index, entry in enumerate(run):
        for name in {fold(entry), fold(_name(entry))}:
            rest = asked[len(name) :].split(" ", 1)[0] if asked.startswith(name) else None
            if len(name.strip()) >= 2 and (rest == "" or rest in _AFTER_NAME):
                found.append((index, len(name)))
    return sorted(found, key=lambda pair: -pair[1])


def listed_entry(question: str, passages: Sequence[str]) -> Listed | None:
    """The entry of a list in ``passages`` that ``question`` asks for by its place:
    right after or before the entry it names (``step`` +1, -1), the one entry between
    the two it names, or the first or last entry of a list it names by its title; None
    when it asks for no place, or no list holds it."""
    end = _END.search(question)
    places = list(_PLACE.finditer(question))
    if end is None and not places:
        return None  # most questions: the passages are not split into lists
    runs = [(n, run) for n, passage in enumerate(passages, start=1) for run in _entries(passage)]
    at_end = _end_of(question, runs, first=end.group(1) is not None) if end else None
    if at_end is not None:
        return at_end
    for match in places:
        word = (match.group(1) or match.group(2)).lower()
        # Up to the clause's end: "… right after Disclaimer, …" (folding drops the comma).
        said = re.split(r"[?!;,]", question[match.end() :], maxsplit=1)[0]
        asked = re.sub(r"^ the ", " ", fold(said))
        found = [(f, n) for n, run in runs if (f := _beside(word, asked, run)) is not None]
        if found:
            (entry, named, step), number = max(found, key=lambda pair: len(pair[0][1][0]))
            return Listed(number, _shown(entry), named, step)
    return None


# A question for the first or last entry of a list it names ("which campaign closes the
# Safety Campaigns menu?", "What is the last item of the Collaboration menu?").
_END = re.compile(
    r"\b(?:(opens|first (?:item|entry|link|one))|closes|ends"
    r"|(?:last|final) (?:item|entry|link|one))\b",
    re.IGNORECASE,
)
# What a list is called where a question names it by its title.
_LIST_WORDS = ("menu", "list", "section", "column", "row")


def _end_of(question: str, runs: list[tuple[int, list[str]]], *, first: bool) -> Listed | None:
    """The first or last entry of the list ``question`` names by its title, the entry
    that opens it (a web page's menu: "Safety Campaigns  Seasonal Safety Campaigns …")."""
    asked = fold(question)
    titled = [
        (len(title), n, run)
        for n, run in runs
        if len(run) > 2
        and (title := fold(run[0])).strip()
        and any(f"{title}{word} " in asked for word in _LIST_WORDS)
    ]
    if not titled:
        return None
    _, number, run = max(titled, key=lambda found: found[0])
    return Listed(number, _shown(run[1] if first else run[-1]), (run[0],), 0, first)


def _shown(entry: str) -> str:
    """``entry`` as shown: at most :data:`_SHOWN` characters."""
    return entry if len(entry) <= _SHOWN else entry[:_SHOWN].rstrip() + " …"


def _beside(word: str, asked: str, run: list[str]) -> tuple[str, tuple[str, ...], int] | None:
    """The entry of ``run`` beside the one ``asked`` opens with (``word``: after,
    before, between), the entries named and the step."""
    for index, length in _named_at(asked, run):
        if word != "between":
            other = index + _STEP[word]
            if 0 <= other < len(run):
                return run[other], (_name(run[index]),), _STEP[word]
            continue
        rest = asked[length - 1 :]
        if not rest.startswith(" and "):
            continue
        rest = re.sub(r"^ the ", " ", rest[len(" and") :])
        for last, _ in _named_at(rest, run):
            if abs(last - index) == 2:
                return run[(index + last) // 2], (_name(run[index]), _name(run[last])), 0
    return None
