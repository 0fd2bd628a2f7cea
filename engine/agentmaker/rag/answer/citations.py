"""What a model's answer cites: drop ``[n]`` that point nowhere; spot a non-answer.

Small models invent citations (``[7]`` when five passages were given) and a link to a
passage that does not exist would mislead. :class:`CitationFilter` removes such markers
from a streamed answer as it arrives: it holds back a possibly unfinished ``[1`` at the
end of a piece until the next piece shows what it is. A small model also cites a record
by the label it read ("[barley]" for a passage holding the JSON entry headed
``[barley]``, "[row 12]" for a sheet's row): given the passages' ``labels``, such a
marker becomes the number of the one passage that holds the record.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from agentmaker.rag.answer.records import NUMBERED

# [1]  [1, 2]  [1,2,3]  — one bracket holding one or more numbers. Long ones too: a
# model copies a record's label as a citation ("[3][1690]" after a passage of airport
# rows "[row 1690] …"), and a number that is no passage's must not stay as one.
_MARKER = re.compile(r"( ?)\[(\d{1,6}(?:\s*,\s*\d{1,6})*)\]")
# An unfinished marker at the end of a piece: "[", "[1", "[1, ", or an unfinished label
# or tag: "[bar", "[row 1", "[question-84".
_OPEN_TAIL = re.compile(r"\[[\w .,-]{0,40}$")
# A record's label as a citation: "[barley]", "[row 12]", "[line 3]" (never a number).
_LABEL = re.compile(r"\[([\w.-]+(?: \d+)?)\]")
# The question block's tag cited as a source ("[question-84465dc2]", "[QUESTION 84465dc2]"):
# it points at no passage, and the tag is the prompt's, not for the reader.
# Its space goes with it, unless a marker follows ("See [QUESTION 84465dc2][1]").
_TAG = r"\[question[\s_-]?[0-9a-f]{8}\]"
_FENCE_TAG = re.compile(rf" ?{_TAG}(?! ?\[)|{_TAG}", re.I)
# A long number in brackets where a value stands (the answer's start, after a word or a
# colon; not after a sentence's end or another marker): a record's label, or a value the
# model wrapped like a marker ("[1075240]" for the catalogue number asked).
_BRACKETED_NUMBER = re.compile(r"(?:^|(?<=[\w:] ))\[(\d{3,})\]")
# A passage's value of three digits or more, not a record's label ("[283]", "[row 1690]")
# nor an issue's number ("#1812").
_VALUE = re.compile(r"(?<![\w.,\[#-])\d{3,}(?![\w\]]|[.,]\d)")

# Phrases of an answer that says the documents do not hold the answer.
_NON_ANSWER = (
    "i don't know",
    "i do not know",
    "i don’t know",
    "the documents do not say",
    "documents do not seem to answer",
    "the documents don't say",
    "the passages do not",
    "the passages don't",
    "do not contain the answer",
    "does not contain the answer",
    "no information about",
    "not mentioned in the",
    "cannot answer",
    "can't answer",
    "我不知道",
    "文档中没有",
    "文件中没有",
    "没有提到",
    "未提及",
    "无法回答",
    "没有相关信息",
)


def passage_values(passages: Iterable[str]) -> frozenset[str]:
    """The numbers of three digits or more that ``passages`` write as values (not in a
    record's label, "[row 1690]"): what a model may wrap in brackets as its answer."""
    texts = list(passages)
    labels = {re.sub(r"\D", "", label) for text in texts for label in NUMBERED.findall(text)}
    return frozenset(n for text in texts for n in _VALUE.findall(text) if n not in labels)


def clean_citations(
    text: str,
    valid: Iterable[int],
    labels: Mapping[str, int] | None = None,
    values: frozenset[str] = frozenset(),
) -> str:
    """``text`` without the ``[n]`` markers whose numbers are not in ``valid``; a record's
    label that is a key of ``labels`` (lower case) becomes its passage's ``[n]`` first,
    and a bracketed number no passage has that is one of the passages' ``values``
    (:func:`passage_values`) loses its brackets: the model wrote the answer "[1075240]"
    (an RCIN catalogue number) as if it cited."""
    allowed = set(valid)
    text = _FENCE_TAG.sub("", text)
    if labels:
        text = _LABEL.sub(lambda m: _relabel(m, labels), text)
    if values:
        text = _BRACKETED_NUMBER.sub(
            lambda m: (
                m.group(1)
                if m.group(1) in values and int(m.group(1)) not in allowed
                else m.group(0)
            ),
            text,
        )

    def keep(match: re.Match[str]) -> str:
        numbers = [int(n) for n in re.findall(r"\d+", match.group(2))]
        good = [n for n in numbers if n in allowed]
        if not good:
            return ""
        return match.group(1) + "[" + ", ".join(str(n) for n in good) + "]"

    return _MARKER.sub(keep, text)


def _relabel(match: re.Match[str], labels: Mapping[str, int]) -> str:
    number = labels.get(match.group(1).lower())
    return match.group(0) if number is None else f"[{number}]"


def cited_numbers(text: str) -> list[int]:
    """The passage numbers ``text`` cites, in order of first appearance."""
    seen: list[int] = []
    for match in _MARKER.finditer(text):
        for n in re.findall(r"\d+", match.group(2)):
            if int(n) not in seen:
                seen.append(int(n))
    return seen


# A marker repeated right after itself ("[4][4]", "[1] [1]"): a small model's stutter.
_REPEAT = re.compile(r"(\[\d[\d, ]*\])(?:\s*\1)+")
_LAST_MARKER = re.compile(r"\[\d[\d, ]*\]\s*$")


class CitationFilter:
    """Streams an answer through :func:`clean_citations` piece by piece (and writes a
    marker repeated right after itself once)."""

    def __init__(
        self,
        valid: Iterable[int],
        labels: Mapping[str, int] | None = None,
        values: frozenset[str] = frozenset(),
    ) -> None:
        self.valid = set(valid)
        self.labels = {k: n for k, n in (labels or {}).items() if n in self.valid}
        self.values = values
        self._held = ""
        self._last = ""  # the marker that ended what was shown, if it ended with one

    def _once(self, text: str) -> str:
        text = _REPEAT.sub(r"\1", text)
        if self._last:
            stripped = text.lstrip()
            if stripped.startswith(self._last):
                text = stripped[len(self._last) :]
        if text.strip():
            ending = _LAST_MARKER.search(text)
            self._last = ending.group(0).strip() if ending else ""
        return text

    def feed(self, piece: str) -> str:
        """The part of ``held + piece`` that can be shown now, cleaned."""
        text = self._held + piece
        tail = _OPEN_TAIL.search(text)
        if tail is not None:
            self._held, text = text[tail.start() :], text[: tail.start()]
        else:
            self._held = ""
        # Trailing spaces wait for the next piece: if a dropped marker follows, the space
        # before it goes with it ("and [9]." -> "and.").
        stripped = text.rstrip(" ")
        self._held = text[len(stripped) :] + self._held
        return self._once(clean_citations(stripped, self.valid, self.labels, self.values))

    def flush(self) -> str:
        """What is still held back once the answer has ended."""
        text, self._held = self._held, ""
        return self._once(clean_citations(text, self.valid, self.labels, self.values))


_MARKERS = re.compile(r"\[\d+\]")


def without_markers(text: str) -> str:
    """``text`` without its ``[n]`` markers."""
    return _MARKERS.sub("", text)


def has_words(text: str) -> bool:
    """Whether ``text`` says anything besides ``[n]`` markers and punctuation (a small
    model sometimes answers with the markers alone)."""
    return any(ch.isalnum() for ch in without_markers(text))


def is_non_answer(text: str) -> bool:
    """Whether ``text`` says the documents do not answer the question ("I don't know",
    "我不知道") instead of answering it."""
    lowered = " ".join(text.lower().split())
    if not lowered:
        return True
    head = lowered[:240]
    return any(phrase in head for phrase in _NON_ANSWER)
