"""Passages cut to what bears on the question, for a small model on a laptop's CPU.

A model on this computer reads the prompt at about 50 tokens a second (see
benchmarks/REPORT.md), so five whole passages cost half a minute before the first word,
and a small model loses the fact among them. :func:`focus_passages` keeps, of each long
passage, the sentences that match the question best (scored as the extractive answer
scores them), each with the sentence before and after it for context, in reading order,
up to a word budget; left-out stretches are marked with "…". A passage that matches no
word of the question keeps its opening sentences (it was found by meaning), unless it is
written in another script than the question (a Korean brochure for an English question):
then no word says which of its sentences bear on it, and it is kept whole. Lines of
code count as sentences here (an error message or a setting in a code block answers
questions too). A passage of records (a sheet's ``[row N]`` lines, a JSON file's
``[N]`` or ``[key]`` entries) keeps whole records, those that match the question best,
without neighbours: "Weight_in_lbs: 2000" stays with "Name: fiat x1.9", however far
down the entry it is; a passage of records, long or short, that holds those the question
names ("2014/03/05", "ford fiesta") keeps only them. A line that labels what stands under
it ("Estonian") keeps its paragraph rather than the sentence above it. Table cells carry
their column's name (tables.py), and a table's rows stay one a line. The result is what
the model sees and cites, so ``[n]`` still points at the text it read.
"""

from __future__ import annotations

import dataclasses
import itertools
import re
from collections.abc import Sequence

from agentmaker.rag.answer.extractive import ScoredSentence, score_sentences
from agentmaker.rag.answer.fields import named_by_value
from agentmaker.rag.answer.names import fold, in_blocks
from agentmaker.rag.answer.prompting import SourceRef
from agentmaker.rag.answer.quotable import is_label_line
from agentmaker.rag.answer.records import NUMBERED, RECORD, names_record, names_value, record_spans
from agentmaker.rag.answer.sentences import TABLE_ROW
from agentmaker.rag.answer.tables import cells, label_cells

#: Words kept per passage when the model asks for focused passages.
DEFAULT_FOCUS_WORDS = 110
GAP = " … "


def focus_passages(
    question: str, sources: Sequence[SourceRef], *, max_words: int = DEFAULT_FOCUS_WORDS
) -> list[SourceRef]:
    """``sources`` with each passage longer than ``max_words`` cut to its sentences (or
    records) that bear on ``question`` (marked ``metadata["focused"]``); shorter ones
    unchanged, unless cut to the rows or records the question names (marked
    ``metadata["named"]``). Table cells are labelled with their column's name first
    (tables.py)."""
    # A passage of rows or numbered entries keeps those the question names, however
    # short it is: shown ten days of weather, the model gave another day's rain for "How
    # much precipitation does the Seattle weather data record for 2014/03/05?". Not an
    # entry of prose named by its key: shown "[burtin]" alone, the model read "first
    # published in 1951" as Will Burtin's birth (REPORT §10, session 23).
    cells = [label_cells(s.content) for s in sources]
    labelled = [asked_records(question, text, numbered=True) for text in cells]
    by_passage = _scored(question, labelled)
    # A long passage keeps, of its tables, the rows the question names (asked_rows): cut
    # by score, a table of contents kept "Item 1. | Business | 4" for "what is Item 4?"
    # and not Item 4's own row.
    long = {n for n, found in by_passage.items() if sum(s.words for s in found) > max_words}
    narrowed = [
        asked_rows(question, text) if number in long else text
        for number, text in enumerate(labelled, start=1)
    ]
    if narrowed != labelled:
        labelled, by_passage = narrowed, _scored(question, narrowed)
    cut = []
    for ref, text, whole in zip(sources, labelled, cells, strict=True):
        if text != whole:  # cut to the rows or entries the question names
            ref = dataclasses.replace(ref, metadata={**ref.metadata, "named": True})
        cut.append(ref if text == ref.content else dataclasses.replace(ref, content=text))
    sources = cut
    out = []
    for number, ref in enumerate(sources, start=1):
        sentences = by_passage.get(number, [])
        if number not in long or not sentences or _unmatched_script(question, sentences):
            out.append(ref)
            continue
        records = _records(ref.content)
        if len(records) > 1:
            text = _focused_records(question, records, max_words)
        else:
            text = _focused_text(sentences, max_words, ref.content)
        out.append(
            dataclasses.replace(ref, content=text, metadata={**ref.metadata, "focused": True})
        )
    return out


def _unmatched_script(question: str, sentences: list[ScoredSentence]) -> bool:
    """Whether a passage shares no word with ``question`` and is written in another
    script: a Korean brochure's passage, found by meaning for an English question, whose
    opening alone kept the points' table and lost "월 단위" further down (held-out v38).
    Such a passage is not cut: which of its sentences bear on the question, no word says."""
    if any(s.score for s in sentences):
        return False
    text = " ".join(s.text for s in sentences)
    return in_blocks(question) != in_blocks(text)


def _scored(question: str, passages: list[str]) -> dict[int, list[ScoredSentence]]:
    """The sentences of ``passages`` scored against ``question``, by passage number."""
    by_passage: dict[int, list[ScoredSentence]] = {}
    for sentence in score_sentences(question, passages, code=True):
        by_passage.setdefault(sentence.passage, []).append(sentence)
    return by_passage


def record_labels(passages: Sequence[str]) -> dict[str, int]:
    """The labels of the records the passages hold ("barley", "row 12"; lower case), each
    with the number (1-based) of its passage: a small model cites a record by its label.
    A number is a label only above the passages' numbers ("[252]" of five passages; "[3]"
    reads as passage 3), and no label that heads records in two passages is."""
    found: dict[str, set[int]] = {}
    for number, passage in enumerate(passages, start=1):
        for match in RECORD.finditer(passage):
            label = match.group(0).strip().strip("[]").strip().lower()
            if not label.isdigit() or int(label) > len(passages):
                found.setdefault(label, set()).add(number)
    return {label: numbers.pop() for label, numbers in found.items() if len(numbers) == 1}


def asked_records(question: str, passage: str, *, numbered: bool = False) -> str:
    """``passage``, or only its opening and the records ``question`` names by their
    label when it names some: what the question asks of the "us-state-capitals" entry
    is said there, not by the "wheat" entry beside it ("The electronic dataset was
    created by Mike Bostock"). With ``numbered``, only records numbered by the reader
    ("[row 12]", "[158]") count, named by their first value or by a value of the field
    the question asks by (fields.named_by_value)."""
    spans = record_spans(passage)
    if not spans:
        return passage
    asked = fold(question)
    # A record with nothing under its label is no record: an INI file's "[tox]", whose
    # settings stand under the next section ("[testenv]").
    named_ones = []
    for start, end in spans:
        label = RECORD.match(passage, start)
        body = passage[label.end() : end] if label else ""
        if numbered and not (label and NUMBERED.fullmatch(label.group(0).strip())):
            continue
        if not (label and body.strip()):
            continue
        # Named by its first value, or, a numbered one, by a value of the field asked by
        # ("on what day did 33.3 of precipitation fall?").
        if names_record(label.group(0), asked, body) or (
            numbered and named_by_value(body, question)
        ):
            named_ones.append(passage[start:end])
    if not named_ones:
        return passage
    return passage[: spans[0][0]] + "\n".join(named_ones)


def asked_rows(question: str, passage: str) -> str:
    """``passage`` without the data rows of its tables that ``question`` does not name,
    when it names some by their first cell: what "Item 4" of a table of contents is, is
    said by "| Item 4. | Mine Safety Disclosures | 9 |", not by "| Item 1. | Business |
    4 |" (whose page is 4). A table's first row, its header, stays."""
    rows = list(TABLE_ROW.finditer(passage))
    if len(rows) < 2:
        return passage
    asked = fold(question)
    headers = _headers(rows)
    named = {m.start() for m in rows if m.start() not in headers and _names_row(m.group(0), asked)}
    if not named:
        return passage
    dropped = [m for m in rows if m.start() not in headers | named]
    kept, at = [], 0
    for m in dropped:
        kept.append(passage[at : m.start()])
        at = min(m.end() + 1, len(passage))
    return "".join([*kept, passage[at:]])


def rows_only(passage: str) -> str:
    """Of a passage cut to the rows or records a question names (``metadata["named"]``),
    those alone: not its opening, nor its tables' header rows or the text around them.
    Quoted, they are the answer ("| Item 1B. | Unresolved Staff Comments | 9 |"), where
    the passage's best sentence by words was another ("Caret requirements allow SemVer
    compatible updates …" for which versions ^0.0.3 allows)."""
    starts = [m.start() for m in RECORD.finditer(passage)]
    if starts:
        ends = [*starts[1:], len(passage)]
        return "".join(_one_line(passage[a:b]) for a, b in zip(starts, ends, strict=True))
    rows = list(TABLE_ROW.finditer(passage))
    headers = _headers(rows)
    return "\n".join(m.group(0) for m in rows if m.start() not in headers)


# A field of a record on a line of its own: "Weight_in_lbs: 2979".
_FIELD_LINE = re.compile(r"^[\w .()-]+: \S")


def _one_line(record: str) -> str:
    """A record the reader numbered, one field a line ("[85]", "Name: peugeot 504 (sw)",
    "Weight_in_lbs: 2979"), on one line, as a sheet's row is ("[85] Name: peugeot 504
    (sw); Weight_in_lbs: 2979"): quoted by its lines, the name's alone was the best
    (REPORT §10, session 32). Any other record as it is."""
    label, _, body = record.strip().partition("\n")
    lines = [line.strip() for line in body.splitlines() if line.strip()]
    if not (NUMBERED.fullmatch(label.strip()) and lines and all(map(_FIELD_LINE.match, lines))):
        return record
    return f"{label.strip()} {'; '.join(lines)}\n"


def _headers(rows: list[re.Match[str]]) -> set[int]:
    """Where the first row of each table of ``rows`` (a passage's, in order) starts."""
    return {m.start() for i, m in enumerate(rows) if i == 0 or rows[i - 1].end() + 1 != m.start()}


def _names_row(row: str, asked: str) -> bool:
    """Whether the folded question ``asked`` names the row by its first cell (of at
    least three characters; a labelled cell, "Country: Indonesia", by its value)."""
    filled = [cell for cell in cells(row) if cell]
    return bool(filled) and names_value(filled[0].rpartition(": ")[2], asked)


def _records(content: str) -> list[str]:
    """The records of a passage that is nothing but records, else []."""
    starts = [m.start() for m in RECORD.finditer(content)]
    if not starts or content[: starts[0]].strip():
        return []
    return [content[a:b].strip() for a, b in zip(starts, [*starts[1:], len(content)], strict=True)]


def _focused_records(question: str, records: list[str], max_words: int) -> str:
    """The records that match ``question`` best, whole, in reading order, up to
    ``max_words`` (at least one); the opening ones when none matches."""
    best: dict[int, float] = {}
    for sentence in score_sentences(question, records, code=True):
        best[sentence.passage - 1] = max(best.get(sentence.passage - 1, 0.0), sentence.score)
    ranked = sorted((i for i in best if best[i] > 0), key=lambda i: (-best[i], i))
    chosen: set[int] = set()
    words = 0
    for index in ranked or range(len(records)):
        cost = len(records[index].split())
        if chosen and words + cost > max_words:
            break
        chosen.add(index)
        words += cost
    return _stitch(records, chosen, "\n")


def _focused_text(sentences: list[ScoredSentence], max_words: int, content: str) -> str:
    chosen: set[int] = set()
    words = 0
    ranked = sorted((s for s in sentences if s.score > 0), key=lambda s: (-s.score, s.position))
    headed = _headed(sentences, content)
    for best in ranked or sentences[:1]:
        # The sentence, then its neighbours for context (what "it" or "this" refers to);
        # a label line, what it heads.
        context = headed.get(best.position, (best.position - 1, best.position + 1))
        for index in (best.position, *context):
            if 0 <= index < len(sentences) and index not in chosen:
                cost = sentences[index].words
                if words + cost > max_words and chosen:
                    break
                chosen.add(index)
                words += cost
        if words >= max_words:
            break
    if not ranked:  # found by meaning alone: its opening, as far as the budget goes
        for index in range(len(sentences)):
            if words + sentences[index].words > max_words:
                break
            chosen.add(index)
            words += sentences[index].words
    return _stitch([s.text for s in sentences], chosen, " ")


def _headed(sentences: list[ScoredSentence], content: str) -> dict[int, tuple[int, ...]]:
    """The label lines among ``sentences`` ("Estonian" above the Estonian text of the
    declaration), each with the positions of the sentences of the paragraph it heads:
    a label that matches the question stands for what is under it, not for the end of
    the paragraph above ("Ili posedas racion …", the Esperanto text's). Kept with its
    neighbours instead, "Estonian" kept the first of its two sentences and lost the
    second, the one that names reason (REPORT §10, session 23)."""
    lines = {line.strip() for line in content.splitlines()}
    starts: list[int] = []
    cursor = 0
    for sentence in sentences:
        at = content.find(sentence.text, cursor)
        starts.append(at if at >= 0 else cursor)
        cursor = max(cursor, at + len(sentence.text)) if at >= 0 else cursor
    headed: dict[int, tuple[int, ...]] = {}
    for sentence in sentences:
        if not is_label_line(sentence.text, lines):
            continue
        end = content.find("\n\n", starts[sentence.position] + len(sentence.text))
        end = len(content) if end < 0 else end
        under = [i for i in range(sentence.position + 1, len(sentences)) if starts[i] < end]
        headed[sentence.position] = tuple(under) or (sentence.position + 1,)
    return headed


def _stitch(pieces: Sequence[str], chosen: set[int], sep: str) -> str:
    """The ``chosen`` pieces in reading order, "…" where others were left out."""
    parts: list[str] = []
    previous = -1
    for index in sorted(chosen):
        if index != previous + 1:  # the first piece too, when it is not the opening
            parts.append(GAP.strip())
        parts.append(pieces[index])
        previous = index
    if previous < len(pieces) - 1:
        parts.append(GAP.strip())
    text = parts[0]
    for before, after in itertools.pairwise(parts):
        # A table's rows stay one a line: "| Nevada | | 20-8143439 |" above its labels.
        text += ("\n" if after.startswith("|") or before.endswith("|") else sep) + after
    return text
