"""Where the records of a passage begin: a sheet's ``[row N]`` lines, a JSON file's
``[N]`` or ``[key]`` entries, a text file's ``[line N]`` (as the readers write them)."""

from __future__ import annotations

import re

__all__ = ["RECORD", "record_spans"]

#: Where a record begins: a sheet's "[row 12] " opening a line, or a line of only
#: "[line 3]", "[158]" or "[airports]" (a JSON entry). Not a footnote: "[92] First
#: Division 45 19".
RECORD = re.compile(r"^\[(?:row \d+\] |(?:line \d+|[\w.-]+)\]$)", re.M)


def record_spans(passage: str) -> list[tuple[int, int]]:
    """The (start, end) of each record of ``passage``; [] when it holds fewer than two."""
    starts = [m.start() for m in RECORD.finditer(passage)]
    if len(starts) < 2:
        return []
    return list(zip(starts, [*starts[1:], len(passage)], strict=True))
