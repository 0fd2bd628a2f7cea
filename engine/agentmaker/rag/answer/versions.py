"""The versions of one text that a file gives, each under a line naming it: the first
article of the UDHR in every language, "Somali" above the Somali article.

Asked which word a named version uses for something ("which word does the Somali
version use for brotherhood?"), a 1.5B model answers with another version's word
("gewete", the Afrikaans article's conscience, for the Albanian one's), or cannot tell a
word of a language it does not read, and then cannot confirm a quote of it either. The
named version, quoted whole, holds the answer, and the reader sees where it stands
(REPORT §10, session 30). :func:`asked_version` finds it; :func:`strays_from` holds back
an answer whose quoted word it does not hold.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from agentmaker.rag.answer.names import fold

__all__ = ["Version", "asked_version", "copies", "strays_from"]

# A question for the words a text uses: "which word does … use for", "what words", "what
# term", "how does … translate", "give the … word".
_ASKS_WORDING = re.compile(
    # "which word", "which borrowed word" (REPORT §10, session 37).
    r"\b(?:which|what) (?:\w+ )?(?:words?|terms?|phrases?|expressions?)\b"
    # "… and with what? Give the Aromanian word." (REPORT §10, session 34).
    r"|\b(?:give|name|quote) the (?:\w+ )?(?:words?|terms?)\b"
    # "… has an Ido text: what is its word for brotherhood?" (REPORT §10, session 35).
    r"|\b(?:which|what) (?:is|are|was|were) (?:its|their|the) (?:\w+ )?(?:words?|terms?)\b"
    r"|\bhow (?:does|do|is|are) .+ (?:say|said|write|written|translated?|rendered|render)\b"
    # "what does the Bislama version say people must treat one another like?" (REPORT
    # §10, session 37).
    r"|\bwhat (?:does|do) (?:the |its |their )?(?:[\w(),'-]+ ){1,6}"
    r"(?:version|translation|text|edition) says?\b",
    re.I,
)
# The most words of a line that names a version ("Albanian, Tosk", "Sorbian, Upper",
# "Mongolian, Halh (Mongolian)").
_LABEL_WORDS = 5
# A line that ends a sentence or a clause names no version.
_SENTENCE_END = re.compile(r"[.:;!?。]\s*$")
# The fewest words of a version's text an answer's sentence copies to be its own.
_COPIED_WORDS = 4
# Words quoted in an answer: "gewete", “vestjo”, «…», `…`.
_QUOTED = re.compile(r"[\"“„«`]([^\"“”„«»`]+)[\"”“»`]")


@dataclass(frozen=True)
class Version:
    """One version a passage gives: the ``number`` of the passage, the ``label`` line
    that names it and its ``text``."""

    number: int
    label: str
    text: str

    def quote(self) -> str:
        """The version as an answer: its label, its text, the passage's marker."""
        return f"{self.label}: {self.text} [{self.number}]"


def _names_version(question: str, label: str) -> bool | None:
    """Whether ``question`` (folded) names the version ``label`` as one, its words in
    any order: "the Albanian (Tosk) version" names "Albanian, Tosk", "the Western
    Frisian version" "Frisian, Western"; "in Somali" names "Somali". None when it names
    it but for one word, by two at least: "the Haitian Creole (Kreyol) text" nearly
    names "Haitian Creole French (Kreyol)"."""
    words = fold(label).split()
    if not words:
        return False
    before = rf"((?: \w+){{1,{len(words)}}}) (?:version|translation|text|edition|article) "
    named = [match.split() for match in re.findall(before, question)]
    if f" in {' '.join(words)} " in question or any(
        sorted(match) == sorted(words) for match in named
    ):
        return True
    return None if any(_nearly(match, words) for match in named) else False


def _nearly(named: list[str], label: list[str]) -> bool:
    """Whether the words ``named`` just before "version" (the last of them) are all of
    ``label``'s words but one, two at least."""
    run = []
    for word in reversed(named):
        if word not in label:
            break
        run.append(word)
    return len(run) >= 2 and len(set(run)) == len(label) - 1


def _named_in(question: str, number: int, passage: str) -> list[tuple[Version, bool]]:
    """The versions of ``passage`` that ``question`` (folded) names, each with whether
    it names it exactly: each short line that ends no sentence and names one, with the
    lines under it up to a blank line as its text."""
    lines = [line.strip() for line in passage.splitlines()]
    found = []
    for index, label in enumerate(lines):
        if len(label.split()) > _LABEL_WORDS or _SENTENCE_END.search(label):
            continue
        names = _names_version(question, label) if label else False
        if names is False:
            continue
        below = lines[index + 1 :]
        text = below[: below.index("")] if "" in below else below
        if text:
            found.append((Version(number, label, " ".join(text)), names is True))
    return found


def asked_version(question: str, passages: Sequence[str]) -> Version | None:
    """The version of the passages that ``question`` asks the words of, by its label;
    the longest text when passages repeat it. A version the question names but for one
    word, when it nearly names no other and exactly none. None when the question asks
    for no words, or names no version the passages give."""
    if not _ASKS_WORDING.search(question):
        return None
    folded = fold(question)
    named = [
        found
        for number, passage in enumerate(passages, start=1)
        for found in _named_in(folded, number, passage)
    ]
    exact = [version for version, exactly in named if exactly]
    nearly = [version for version, exactly in named if not exactly]
    if not exact and len({version.label for version in nearly}) == 1:
        exact = nearly
    return max(exact, key=lambda version: len(version.text), default=None)


def strays_from(sentence: str, cited: Sequence[int], version: Version, question: str) -> bool:
    """Whether ``sentence`` quotes words as the answer that the asked ``version`` does
    not hold (nor the question): "… the word used for conscience is "gewete"" of the
    Albanian article, which writes "ndërgjegje"; or cites passages, none of them the
    version's: "… in a spirit of brotherhood [1]" of the English article, asked what
    the Esperanto text says (REPORT §10, session 37)."""
    if cited and version.number not in cited:
        return True
    text, asked = fold(version.text), fold(question)
    quoted = [fold(words) for words in _QUOTED.findall(sentence)]
    return any(words.strip() and words not in text and words not in asked for words in quoted)


def copies(sentence: str, version: Version) -> bool:
    """Whether ``sentence`` is words of ``version``'s text as written (case, accents and
    punctuation aside), four at least."""
    said = fold(sentence)
    return len(said.split()) >= _COPIED_WORDS and said in fold(version.text)
