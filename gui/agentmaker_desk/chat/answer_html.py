"""Answer text as HTML: escaped first, then ``[n]`` citations turned into the app's links.

Everything that comes from a model or a document is untrusted. It is HTML-escaped
*before* the ``[n]`` markers are turned into ``cite:n`` links, so a document holding
``<img src=x onerror=…>`` or ``<a href="file:///…">`` shows those characters as text,
and the only links that act are the ones this module made (the transcript renumbers
them per answer).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

#: How often, at most, streamed text is re-rendered (milliseconds).
RENDER_INTERVAL_MS = 50

CITE_SCHEME = "cite"

# After escaping, brackets and digits are unchanged, so the markers are still findable.
_CITATION = re.compile(r"\[(\d{1,4}(?:\s*[,;]\s*\d{1,4})*)\]")
_NUMBER = re.compile(r"\d+")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")


def _link(n: int, label: str) -> str:
    return f'<a href="{CITE_SCHEME}:{n}">{label}</a>'


def linkify_citations(escaped: str, valid: Iterable[int]) -> str:
    """Turn ``[n]`` markers in already-escaped text into ``cite:n`` links.

    Only numbers in ``valid`` (the ``n`` of an existing source) become links; any
    other marker stays as text.
    """
    known = set(valid)

    def replace(match: re.Match[str]) -> str:
        numbers = [int(x) for x in _NUMBER.findall(match.group(1))]
        if not any(n in known for n in numbers):
            return match.group(0)
        if len(numbers) == 1:
            return _link(numbers[0], f"[{numbers[0]}]")
        parts = [_link(n, str(n)) if n in known else str(n) for n in numbers]
        return "[" + ", ".join(parts) + "]"

    return _CITATION.sub(replace, escaped)


def render_answer_html(text: str, valid: Iterable[int]) -> str:
    """HTML for an untrusted answer text: escaped, then citations linked, **bold** kept."""
    escaped = html.escape(text, quote=True)
    escaped = _BOLD.sub(r"<b>\1</b>", escaped)
    linked = linkify_citations(escaped, valid)
    return linked.replace("\r\n", "\n").replace("\n", "<br>")


_SENTENCE = re.compile(r"[^.!?。！？]+[.!?。！？]*")
# Split after a sentence's markers ("… ends. [1] Next"), or after a sentence end that no
# marker follows; a marker right after a sentence end stays with that sentence.
_PIECES = re.compile(r"(?<=\])[.!?。！？]?\s+|(?<=[.!?。！？])\s+(?![\s\[])")
_MARKUP = re.compile(r"\*\*|\[\d{1,4}(?:\s*[,;]\s*\d{1,4})*\]")


def quoted_sentences(answer: str, n: int, passage: str) -> list[str]:
    """The sentences of ``answer`` that cite ``[n]`` and appear word for word in
    ``passage`` (extractive answers quote; a model's paraphrase rarely does)."""
    flat = " ".join(passage.split()).lower()
    found: list[str] = []
    # A sentence's markers follow it: "… wear [1]. Next …" belongs to the first one.
    for piece in _PIECES.split(answer):
        numbers = {int(x) for group in _CITATION.findall(piece) for x in _NUMBER.findall(group)}
        if n not in numbers:
            continue
        # "… in writing [2]." loses its marker: no space may be left before the dot.
        bare = re.sub(r"\s+([.!?。！？,;:])", r"\1", _MARKUP.sub(" ", piece))
        for sentence in _SENTENCE.findall(bare):
            text = " ".join(sentence.split()).strip()
            if len(text) >= 12 and text.lower() in flat and text not in found:
                found.append(text)
    return found
