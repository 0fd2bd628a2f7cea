"""WordprocessingML basics shared by the Word readers: tag names, a paragraph's text."""

from __future__ import annotations

import re
from typing import Any

W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
MC_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
P, TBL, TR, TC, SDT, SDT_CONTENT = (
    f"{W}p", f"{W}tbl", f"{W}tr", f"{W}tc", f"{W}sdt", f"{W}sdtContent"
)  # fmt: skip
CUSTOM_XML = f"{W}customXml"
WRAPPERS = (SDT, SDT_CONTENT, CUSTOM_XML, f"{W}smartTag")
# Inside a paragraph: subtrees that hold no visible text (properties, deletions,
# the VML duplicate of a text box).
PRUNE = frozenset({f"{W}pPr", f"{W}rPr", f"{W}del", f"{W}moveFrom", MC_FALLBACK})
CHARS = {f"{W}tab": "\t", f"{W}br": "\n", f"{W}cr": "\n", f"{W}noBreakHyphen": "-"}
HEADING_NAME = re.compile(r"^heading\s*([1-6])$", re.I)
SPACES = re.compile(r"[^\S\n]+")


def child_val(element: Any, tag: str) -> str | None:
    """The ``w:val`` of ``element``'s child ``tag`` (None when either is missing)."""
    child = element.find(f"{W}{tag}") if element is not None else None
    return child.get(f"{W}val") if child is not None else None


def paragraph_text(p: Any) -> str:
    """Visible text of a ``w:p`` element (runs, hyperlinks, insertions, text boxes)."""
    parts: list[str] = []
    stack: list[Any] = [p]
    while stack:
        element = stack.pop()
        tag = element.tag
        if tag == f"{W}t":
            parts.append(element.text or "")
        elif tag in CHARS:
            parts.append(CHARS[tag])
        elif tag == P and element is not p:
            parts.append(" ")  # a paragraph inside a text box
            stack.extend(reversed(element))
        elif tag not in PRUNE and isinstance(tag, str):
            stack.extend(reversed(element))
    lines = (SPACES.sub(" ", line).strip() for line in "".join(parts).split("\n"))
    return "\n".join(line for line in lines if line)
