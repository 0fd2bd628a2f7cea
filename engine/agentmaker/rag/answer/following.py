"""What the best sentence of a quote brings from after it in its passage (extractive.py
chooses the sentences): a label's text ("Czech Všichni lidé …" goes on "… v duchu
bratrství"), a directory entry's lines under the line that names it, the short sentence
that gives the number asked for ("Call 13 14 50.")."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from agentmaker.rag.answer.candidate import Candidate
from agentmaker.rag.answer.grounding import stated_numbers
from agentmaker.rag.answer.names import fold, names_in, without_source
from agentmaker.rag.answer.quotable import PARAGRAPH_WORDS, directory_runs
from agentmaker.rag.answer.sentences import terms

__all__ = ["ASKS_NUMBER", "DIGIT", "labelled_text", "number_after", "with_entry"]

# Questions whose answer is a number or a date: a sentence holding a digit is favoured.
ASKS_NUMBER = re.compile(
    r"\b(how (many|much|long|old|far|often|big|large)|(what|which) (year|date|day|percentage|"
    r"number|amount|size|pages?)|(what|which)( \w+)? (version|release)|(postal|zip|post) ?code"
    r"|when)\b"
    r"|多少|几|哪一?年|量|数|额|时间|日期|多长|多高|多大|多远|多久",
    re.IGNORECASE,
)
# A number of its own, not a digit inside a name ("pypdfium2", "PyPDF2").
DIGIT = re.compile(r"(?<![^\W\d_])\d")

# A sentence that opens with a name: "… Czech Všichni lidé …" ("…" where a passage was cut).
_OPENING_WORD = re.compile(r"^[\s…]*([^\W\d_]+)")


def labelled_text(
    question: str, chosen: list[Candidate], sentences: list[Candidate], passages: Sequence[str]
) -> list[Candidate]:
    """The sentences after the best one (``chosen[0]``) in its passage, up to
    ``PARAGRAPH_WORDS`` in all, when it matches the question only by a name the question
    states and opens with that name: a label run into the first sentence of what it
    labels ("Czech Všichni lidé rodí se svobodní …" of a passage cut to the Czech text),
    whose next sentence says what the question asks of it ("… v duchu bratrství"). Not
    a label on a line of its own: it is quoted with its paragraph already
    (:func:`quotable.quotable`)."""
    best = chosen[0]
    opening = _OPENING_WORD.match(best.display)
    if not (_by_names_only(question, best) and opening and terms(opening.group(1))):
        return []
    lines = {line.strip() for line in passages[best.passage - 1].splitlines()}
    matched = {fold(term).strip() for term in best.matched}
    if fold(opening.group(1)).strip() not in matched or opening.group(1) in lines:
        return []
    words = len(best.display.split())
    out = []
    for s in sentences:
        if s.passage != best.passage or s.position <= best.position or s in chosen:
            continue
        words += len(s.display.split())
        after = _OPENING_WORD.match(s.display)
        if s.fragment or words > PARAGRAPH_WORDS or (after and after[1] == opening[1]):
            break  # … or the next label of its kind ("Norwegian, Nynorsk" after Bokmål's)
        out.append(s)
    return out


def _by_names_only(question: str, best: Candidate) -> bool:
    """Whether ``best`` matches ``question`` and only by names the question states:
    compared folded, as names are ("Bokmål" is the question's "Norwegian Bokmål")."""
    names = set(terms(" ".join(names_in(without_source(question)))))
    matched = {fold(term).strip() for term in best.matched}
    return bool(matched) and matched <= names


#: The lines of a directory's entry quoted after the line that names it, at most...
ENTRY_LINES = 4
#: ...and their words.
ENTRY_WORDS = 16


def with_entry(
    question: str, chosen: list[Candidate], sentences: list[Candidate], passages: Sequence[str]
) -> list[Candidate]:
    """``chosen`` with the best sentence (``chosen[0]``) joined to the lines after it in a
    directory of its passage (quotable.directory_runs) when it matches the question only
    by a name the question states: it names an entry ("Nippon Yusen Kaisha (NYK Line)" of
    a member list), whose lines say what is asked of it ("Yusen Bldg. 3- 2 Manmouchi
    2-chonie Chiyoda-ku Tokyo 100-91" to "In which ward of Tokyo is the address of Nippon
    Yusen Kaisha (NYK Line)?"). The directory's other chosen lines, those of other
    entries, are left out."""
    best = chosen[0]
    if not _by_names_only(question, best):
        return chosen
    run = next((r for r in directory_runs(passages[best.passage - 1]) if best.text in r), None)
    if run is None:
        return chosen
    entry = [best]
    words = 0
    for s in sentences:
        if s.passage != best.passage or s.position <= best.position:
            continue
        words += len(s.display.split())
        if len(entry) > ENTRY_LINES or words > ENTRY_WORDS or s.text not in run:
            break
        entry.append(s)
    if len(entry) == 1:
        return chosen
    joined = replace(
        best,
        text=" ".join(s.text for s in entry),
        display=" ".join(s.display for s in entry),
    )
    rest = [s for s in chosen[1:] if not (s.passage == best.passage and s.text in run)]
    return [joined, *rest]


#: The sentence after the best one that gives the number asked for is this short at most.
NUMBER_AFTER_WORDS = 12
# A sentence of prose: not a page's number and footer ("48 Cancer Council") nor a
# record's field ("Miles_per_Gallon: 16.5").
_PROSE_NUMBER = re.compile(r"(?![\s…]*\d).*[.!?。！？]$", re.DOTALL)


def number_after(
    question: str, chosen: list[Candidate], sentences: list[Candidate]
) -> list[Candidate]:
    """The short sentence right after the best one (``chosen[0]``) in its passage, when
    the question asks for a number that no chosen sentence of that passage holds and
    that sentence holds one: the best sentence restates what the question asks of ("If
    you need information in a language other than English, an interpreting service is
    available.") and the next one answers it ("Call 13 14 50.")."""
    best = chosen[0]
    if not ASKS_NUMBER.search(question):
        return []
    own = [s for s in chosen if s.passage == best.passage]
    # A number the question states is none it asks for: "(1934)" of the reference to "on
    # which pages … did the 1934 barley paper … appear?" (REPORT §10, session 31).
    stated = set(stated_numbers(question, words=True))
    if any(set(stated_numbers(s.display, words=True)) - stated for s in own):
        return []
    after = next(
        (s for s in sentences if s.passage == best.passage and s.position == best.position + 1),
        None,
    )
    if (
        after is None
        or after in chosen
        or after.fragment
        or len(after.display.split()) > NUMBER_AFTER_WORDS
        or not DIGIT.search(after.display)
        or not _PROSE_NUMBER.match(after.display)
    ):
        return []
    return [after]
