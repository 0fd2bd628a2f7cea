"""Where the records of a passage begin: a sheet's ``[row N]`` lines, a JSON file's
``[N]`` or ``[key]`` entries, a text file's ``[line N]`` (as the readers write them)."""

from __future__ import annotations

import re

from agentmaker.rag.answer.names import fold

__all__ = ["NUMBERED", "RECORD", "names_record", "names_value", "record_spans"]

#: Where a record begins: a sheet's "[row 12] " opening a line, or a line of only
#: "[line 3]", "[158]" or "[airports]" (a JSON entry). Not a footnote: "[92] First
#: Division 45 19".
RECORD = re.compile(r"^\[(?:row \d+\] |(?:line \d+|[\w.-]+)\]$)", re.M)
#: The label of a record the reader numbered ("[row 12]", "[158]"), not keyed ("[wheat]").
NUMBERED = re.compile(r"\[(?:row |line )?\d+\]")


def record_spans(passage: str, *, fewest: int = 2) -> list[tuple[int, int]]:
    """The (start, end) of each record of ``passage``; [] when it holds fewer than
    ``fewest``."""
    starts = [m.start() for m in RECORD.finditer(passage)]
    if not starts or len(starts) < fewest:
        return []
    return list(zip(starts, [*starts[1:], len(passage)], strict=True))


def names_record(opening: str, asked: str, body: str = "") -> bool:
    """Whether the folded question ``asked`` names the record that ``opening`` begins:
    by a label of its own ("[barley]"); a record numbered ("[158]", "[row 12]") by the
    value of its first field, as a table's row by its first cell ("date: 2014/03/05",
    "iata: HPN", "Name: ford fiesta")."""
    if NUMBERED.fullmatch(opening.strip()):
        first = body.strip().split("\n", 1)[0].split(";", 1)[0]
        return names_value(first.partition(": ")[2], asked)
    label = opening.strip().strip("[]").strip()
    return bool(re.search(r"[A-Za-z]", label)) and names_value(label, asked)


def names_value(value: str, asked: str) -> bool:
    """Whether the folded question ``asked`` holds ``value`` (of at least three
    characters: "4" or "CA" would be named by chance)."""
    folded = fold(value)
    return len(folded.strip()) >= 3 and folded in asked
