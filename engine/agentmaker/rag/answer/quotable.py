"""The units a quote takes from a passage, beyond its sentences.

A sentence quoted alone does not always say what it answers: a table's row
"| Lorem ipsum | A link example |" does not say under which columns it stands, the label
line "Chinese (traditional):" not what is written in that language, a record's field
"Miles_per_Gallon: 36.1" not whose it is. :func:`quotable` gives the extractive answer
(extractive.py) a passage's sentences with a table's rows shown after their columns'
names, each label line joined to what stands under it, and the fields of each short
record joined into one; :func:`shown_after` what a quoted sentence introduces (the
first lines of a code block, the first items of a list); :func:`directory_runs` the
runs of short lines of a directory, whose entries are quoted whole.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection, Sequence
from collections.abc import Set as AbstractSet

from agentmaker.rag.answer.records import record_spans
from agentmaker.rag.answer.sentences import Sentence, render_markdown, terms
from agentmaker.rag.answer.tables import labelled_row, table_rows

__all__ = [
    "CODE_LINES",
    "PARAGRAPH_WORDS",
    "directory_runs",
    "is_label_line",
    "quotable",
    "shown_after",
]


def quotable(passage: str, sentences: list[Sentence]) -> list[Sentence]:
    """``sentences`` (of ``passage``) as a quote takes them: table rows under their
    columns' names, label lines with their values, records whole."""
    return _whole_records(passage, _with_values(passage, _named_cells(passage, sentences)))


def _named_cells(passage: str, sentences: list[Sentence]) -> list[Sentence]:
    """``sentences`` with each row of a Markdown table shown with its cells after their
    column's names (tables.py): "| Header Col 1: Lorem ipsum | Header Col 2: A link
    example |" says what stands under "Header Col 1", "| Lorem ipsum | A link example |"
    does not. The header row of such a table is no quote: its names are in every row."""
    if "|" not in passage:
        return sentences
    rows, headers = table_rows(passage)
    out = []
    for sentence in sentences:
        line = sentence.text.strip()
        if line in headers:
            continue
        if line in rows:
            shown = labelled_row(rows[line], sentence.display)
            sentence = Sentence(sentence.text, shown, sentence.fragment)
        out.append(sentence)
    return out


# A label a line of its own stands for: up to this many words, ending with ":"
# ("Chinese (traditional):") or without a sentence's end ("Latin"). Not a record's field
# with its value ("Origin: Europe"), a record's key ("[iris]"), a title broken where
# its line ends ("Einführung in die") nor the end of a line broken before it ("von S" of
# "Überlagerung von S¹ mit R", where a passage was cut: its lowercase opening word).
_VALUE_LABEL_WORDS = 3
#: The most words of a paragraph a label line stands above that are quoted as its value.
PARAGRAPH_WORDS = 80
_NOT_LABEL = re.compile(r"[.!?。！？…]\W*$|^\[|(?<![\w-])[^\W\d_A-Z][^\W\d_]*$")


def is_label_line(text: str, lines: Collection[str]) -> bool:
    """Whether ``text`` is one of the passage's ``lines`` (stripped) and a label for
    what stands under it ("Estonian", "Chinese (traditional):")."""
    text = text.strip()
    return (
        text in lines
        and len(text.split()) <= _VALUE_LABEL_WORDS
        and (text.endswith(":") or not (":" in text or _NOT_LABEL.search(text)))
        and not text[:1].islower()
    )


# A directory: this many lines in a row, each of a few words and no sentence, such as a
# member list's names and addresses ("Kawasaki Kisen Kaisha, Ltd." / "Hibiya Central
# Building" / … / "Tokyo 105-8421" / "Japan"). A line may end with an abbreviation's dot.
_DIRECTORY_LINES = 6
_DIRECTORY_WORDS = 6
_DIRECTORY_LINE = re.compile(
    r"(?![#|>`*-])(?:.*[^\s.!?:;。！？]|(?:.*\W)?[^\W\d_]{1,4}\.)", re.DOTALL
)


def directory_runs(passage: str) -> list[str]:
    """The runs of ``passage``'s lines that make a directory, each run's lines joined by
    single spaces."""
    runs: list[list[str]] = [[]]
    for raw in passage.splitlines():
        line = raw.strip()
        if line and len(line.split()) <= _DIRECTORY_WORDS and _DIRECTORY_LINE.fullmatch(line):
            runs[-1].append(" ".join(line.split()))
        elif runs[-1]:
            runs.append([])
    return [" ".join(run) for run in runs if len(run) >= _DIRECTORY_LINES]


def _with_values(passage: str, sentences: list[Sentence]) -> list[Sentence]:
    """``sentences`` with each label line joined to the line under it, its value: quoted
    alone, "Chinese (traditional):" does not say what the question asks of it ("How is
    Hello World written in traditional Chinese?"), "Chinese (traditional): 你好世界" does;
    so "Latin" above the Latin text of the declaration. Only where the two stand so in
    the passage, a quote's words being the passage's ("3.5" above "- solar." is not
    "3.5 solar."). A short paragraph under a label is its value whole: the Estonian
    text's second sentence is the one that names reason and conscience."""
    lines = {line.strip() for line in passage.splitlines()}
    flat = " ".join(passage.split())
    # In a directory, a short line above another is one of an entry's lines, no label:
    # "Seoul 110-052" is not what "Korea", "Kawasaki Kisen Kaisha, Ltd." … stand for.
    runs = directory_runs(passage)
    out: list[Sentence] = []
    index = 0
    while index < len(sentences):
        sentence = sentences[index]
        pair = f"{sentence.text} {sentences[index + 1].text}" if index + 1 < len(sentences) else ""
        label = (
            bool(pair)
            and is_label_line(sentence.text, lines)
            and pair in flat
            and not any(pair in run for run in runs)
        )
        if label:
            members = [sentence, sentences[index + 1]]
            paragraph = _paragraph(passage, sentence.text)
            for after in sentences[index + 2 :]:
                text = " ".join(m.text for m in [*members, after])
                if (
                    is_label_line(after.text, lines)  # the next label's value
                    or len(text.split()) > PARAGRAPH_WORDS
                    or text not in paragraph
                ):
                    break
                members.append(after)
            joined = " ".join(m.display for m in members)
            out.append(Sentence(" ".join(m.text for m in members), joined, sentence.fragment))
            index += len(members)
            continue
        out.append(sentence)
        index += 1
    return out


def _paragraph(passage: str, label: str) -> str:
    """The paragraph of ``passage`` that opens with the line ``label``, its words
    joined by single spaces."""
    start = passage.find(label)
    end = passage.find("\n\n", start)
    return " ".join(passage[start : None if end < 0 else end].split())


# A record's field as a JSON entry writes it, one a line: "Miles_per_Gallon: 36.1".
_FIELD = re.compile(r"[^\s:]+: \S.*")
_FIELD_WORDS = 8


def _whole_records(passage: str, sentences: list[Sentence]) -> list[Sentence]:
    """``sentences`` with the fields of each record of ``passage`` (records.py) joined
    into one sentence, "Name: ford fiesta; Miles_per_Gallon: 36.1; …": quoted alone, a
    field does not say whose it is, and the best two of a passage may be two records'
    ("Name: ford fiesta", then the next car's "Miles_per_Gallon: 13"). Only records of
    short fields, one a line; a record of prose keeps its sentences."""
    spans = record_spans(passage)
    if not spans:
        return sentences
    placed: list[tuple[int | None, Sentence]] = []
    cursor = 0
    for sentence in sentences:
        at = passage.find(sentence.text, cursor)
        record = None
        if at >= 0:
            cursor = at + len(sentence.text)
            record = next((i for i, (a, b) in enumerate(spans) if a <= at < b), None)
        placed.append((record, sentence))
    out: list[Sentence] = []
    for record, group in itertools.groupby(placed, key=lambda pair: pair[0]):
        members = [sentence for _, sentence in group]
        if record is None or len(members) < 2 or not all(_is_field(s) for s in members):
            out += members
            continue
        text = " ".join(s.text for s in members)
        out.append(Sentence(text, "; ".join(s.display for s in members), members[0].fragment))
    return out


def _is_field(sentence: Sentence) -> bool:
    text = sentence.text.strip()
    return bool(_FIELD.fullmatch(text)) and len(text.split()) <= _FIELD_WORDS


# A code block right after a sentence: its first lines.
_CODE_AFTER = re.compile(r"\s*```[^\n]*\n(.*?)(?:```|\Z)", re.DOTALL)
# ...or after the docs site's shortcodes that close a note around the sentence
# ("{{% /note %}}"): searched only for a line the question asks about.
_CODE_AFTER_NOTE = re.compile(r"(?:\s*\{\{[%<][^\n]*?[%>]\}\})+" + _CODE_AFTER.pattern, re.DOTALL)
# A list right after a sentence: its items, one a line.
_LIST_AFTER = re.compile(r"\s*((?:[ \t]*[-*•][ \t]+\S[^\n]*(?:\n|\Z))+)")
_ITEM = re.compile(r"^[ \t]*[-*•][ \t]+", re.M)
#: Lines of a code block or items of a list a sentence that introduces it ("Example:",
#: "More information:") is quoted with.
CODE_LINES = 2


# A line of code or configuration that sets a key: `documentation = "https://…"`.
_KEY_LINE = re.compile(r"""^["']?([\w .-]+?)["']?\s*[=:]\s*(\S.*)$""")


def _sets_asked_key(line: str, keys: AbstractSet[str], held: AbstractSet[str]) -> bool:
    """Whether ``line`` sets a key all of whose terms are among ``keys`` to a value with
    a term not ``held``."""
    found = _KEY_LINE.match(line)
    if found is None:
        return False
    key = set(terms(found.group(1)))
    return bool(key) and key <= keys and not set(terms(found.group(2))) <= held


def shown_after(
    passage: str,
    text: str,
    display: str,
    held: AbstractSet[str] = frozenset(),
    asked: Sequence[set[str]] = (),
    keys: AbstractSet[str] = frozenset(),
) -> str:
    """The first lines of the code block or the first items of the list that the
    sentence ``text`` of ``passage`` (shown as ``display``, its terms ``held``)
    introduces ("Example (from poetry-plugin-export):" above
    ``[project.entry-points."poetry.application.plugin"]``, "More information:" above
    "* [issue #1507](https://github.com/py-pdf/pypdf/issues/1507)"), on one line; "" when
    it introduces none. Code and links are not quoted for themselves (code's words match
    any question about it, a link says nothing alone), but a sentence that ends in a colon
    says nothing without what follows it. Nor does one whose code block under it holds a
    name the question asks about (``asked``, each a name's terms) and the sentence does
    not: that line of the block is shown ("… custom url in the urls section." above
    ``"Bug Tracker" = "https://github.com/python-poetry/poetry/issues"``). Nor one whose
    block sets a key the question names (its terms among ``keys``) to a value the
    sentence lacks: "A URL to the documentation of the project." above ``[tool.poetry]``,
    ``# ...``, ``documentation = "https://python-poetry.org/docs/"``, to "which URL does
    the documentation example of the tool.poetry section give?" (REPORT §10, session
    31)."""
    # The sentence's words as the passage has them, maybe wrapped over lines.
    found = re.search(r"\s+".join(map(re.escape, text.split())), passage)
    if found is None:
        return ""
    end = found.end()
    introduces = display.rstrip().endswith(":")
    block = _CODE_AFTER.match(passage, end)
    if not introduces:
        block = block or _CODE_AFTER_NOTE.match(passage, end)
    lines = [line.strip() for line in block.group(1).splitlines() if line.strip()] if block else []
    if not introduces:
        missing = [name for name in asked if not name <= held]
        shown = [
            line
            for line in lines
            if any(n <= set(terms(line)) for n in missing) or _sets_asked_key(line, keys, held)
        ]
        return " ".join(shown[:CODE_LINES])
    if lines:
        return " ".join(lines[:CODE_LINES])
    if items := _LIST_AFTER.match(passage, end):
        listed = [render_markdown(item.strip()) for item in _ITEM.split(items.group(1))]
        return "; ".join([item for item in listed if item][:CODE_LINES])
    return ""
