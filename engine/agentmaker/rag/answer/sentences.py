"""Sentences of a passage, for answers quoted without a language model.

:func:`split_sentences` cuts text into sentences (English ``.!?`` with abbreviations,
initials, decimals and "U.S.C. § 322"-style citations kept whole; Chinese/Japanese
``。！？``; blank lines, bullets and hard line breaks). :func:`passage_sentences` adds
what a quoted answer needs: the sentence as a reader should see it (Markdown links,
code and emphasis rendered as text) and whether it is a fragment (the passage was cut
in the middle of it). Headings, link-only lines, table rules and code fences are not
sentences. :func:`terms` are the words a question and a sentence are matched on.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

__all__ = [
    "LABEL_WORDS",
    "TABLE_ROW",
    "TABLE_RULE",
    "Sentence",
    "is_abbreviation",
    "passage_sentences",
    "render_markdown",
    "split_sentences",
    "terms",
    "whole_decimals",
]

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TERM = re.compile(rf"[{_CJK}]+|[^\W{_CJK}]+")
#: A line of at most this many words that does not end as a sentence is a label (a
#: heading, "Dutch" above the Dutch text); a quote is longer or ends as a sentence.
LABEL_WORDS = 8


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that end with "." without ending a sentence (lowercase, without the final dot).
_ABBREVIATIONS = _word_set(
    """
    e.g i.e vs cf al approx ca dr mr mrs ms mx prof sr jr st mt ft inc ltd co corp dept
    univ resp jan feb mar apr jun jul aug sep sept oct nov dec gen gov rev lt col sgt capt
    u.s u.k a.m p.m ph.d b.sc m.sc u.s.c c.f.r et seq fed bankr civ crim evid supp
    """
)
# Abbreviations only when a number follows ("Fig. 3", "No. 5", "p. 12").
_NUMBER_ABBREVIATIONS = _word_set(
    "no nos vol vols fig figs eq eqs p pp ch sec ref refs abb abs art bem def kap nr tab"
)

_STOP_WORDS = _word_set(
    """
    a an the and or but if of to in on at by for with from as into about is are was were be
    been being am do does did has have had it its this that these those there here what
    which who whom whose when where why how i you he she we they me him her us them my your
    our their not no so than then too very can could should would will shall may might must
    """
)

_SECTION_SIGNS = "§¶"
#: Lines at least this long that end without a full stop are hard-wrapped prose.
WRAP_WIDTH = 60
# A short "sentence" that is only a citation ("11 U.S.C. § 322.") belongs to the one before.
_CITATION_ONLY = re.compile(r"[\d(\[]?.{0,30}(?:§|U\.S\.C\.|C\.F\.R\.).{0,20}")
# A list's entry opens with its label and number: "Abb. 5.1 Möbiusband: Jake, …",
# "Fig. 3 …", "Table 2: …".
_ENTRY = re.compile(r"([A-Z][^\W\d_]{0,11}\.?) \d")
_SHORTCODE = re.compile(r"(?<!\()\{\{[<%].*?[%>]\}\}")
# The next letter of a spaced abbreviation or of spaced initials: "B. " of "o. B. d. A.",
# "h." of "d. h.", "S. " of "U. S. Energy".
_LETTER_DOT = r"[^\W\d_]\.(?:\s|$)"
_NEXT_LETTER = re.compile(_LETTER_DOT)
# A line that opens with a spaced abbreviation: "o. B. d. A. …", "z. B. …".
_SPACED_ABBREVIATION = re.compile(rf"[^\W\d_]\.\s+{_LETTER_DOT}")
# Not the first letter of a spaced abbreviation: "o. B. d. A. ohne …", "z. B. zum …".
_BULLET = re.compile(rf"^\s*(?:[-*•‣◦▪–—]|\d{{1,3}}[.)]|[a-zA-Z](?:\)|\.(?!\s+{_LETTER_DOT})))\s+")
_HEADING = re.compile(r"#{1,6}\s+\S")
# Lines that hold no prose: only links or URLs, a table rule, a code fence.
_LINK = r"!?\[[^\]]*\]\([^)]*\)|<?https?://\S+>?"
_LINK_END = re.compile(r"\]\([^)\s]*\)$")
_LINK_ONLY = re.compile(rf"(?:{_LINK}|[\s,;|·•/–—-])+")
#: A table's row as the readers write it, one a line: "| Item 4. | Mine Safety … | 9 |".
TABLE_ROW = re.compile(r"^[ \t]*\|.*\|[ \t]*$", re.M)
#: A Markdown table's rule line, "| --- | :---: |".
TABLE_RULE = re.compile(r"\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?")
_FENCE = re.compile(r"(?:```|~~~)")
# Markdown shown as text: [text](url) -> text, `code` -> code, **bold** -> bold.
_MARKDOWN = [
    (re.compile(r"!?\[([^\]]*)\]\([^)]*\)"), r"\1"),
    (re.compile(r"<(https?://[^>\s]+)>"), r"\1"),
    (re.compile(r"`+([^`]*)`+"), r"\1"),
    (re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*"), r"\1"),
    (re.compile(r"(?<!\w)__(?=\S)(.+?)(?<=\S)__(?!\w)"), r"\1"),
]
# A document's own footnote number ("山间[29]", "season.[18]", "… [39][40] Wolves"):
# quoted, it would read as a citation of passage 29 (a quote's own marker comes after).
_FOOTNOTE = re.compile(r"\s?\[\d{1,3}\](?![(:])")
# Candidate ends: CJK terminators (no space needed), or ASCII ones followed by space/end.
# A sentence's end, with the footnote markers an encyclopedia glues to it: "… for the
# offence.[74] Roberts commented …".
_END = re.compile(r"[。！？]+[”’」』）\)\]\"']*|[.!?]+[”’\"'\)\]]*(?:\[\d{1,3}\])*(?=\s|$)")
_GLUED_MARKERS = re.compile(r"(?:\[\d{1,3}\])+$")
_SPACE = re.compile(r"\s+")
# Dotted initials without their last dot: "R.A", "J.R.R".
_INITIALS = re.compile(r"(?:[A-Z]\.)+[A-Z]$")


def _normalise(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _word_before(text: str, index: int) -> tuple[str, int]:
    """The word ending at ``index`` (exclusive) and where it starts."""
    start = index
    while start > 0 and not text[start - 1].isspace() and text[start - 1] not in "([\"'“":
        start -= 1
    return text[start:index], start


def is_abbreviation(text: str, dot: int) -> bool:
    """True when the ``.`` at index ``dot`` closes an abbreviation or an initial."""
    word, start = _word_before(text, dot)
    lowered = word.lower()
    if not word:
        return False
    if lowered in _ABBREVIATIONS:
        return True
    following = text[dot + 1 :].lstrip()
    if lowered in _NUMBER_ABBREVIATIONS:
        return following[:1].isdigit()
    if following[:1] in _SECTION_SIGNS:  # "11 U.S.C. § 322", "Art. § 5": a citation goes on
        return True
    if _INITIALS.match(word) and following[:1].isupper():
        return True  # initials before a name: "by R.A. Fisher in 1936", "J.R.R. Tolkien"
    if len(word) == 1 and word.isalpha() and _NEXT_LETTER.match(following):
        # Spaced abbreviations and initials: "o. B. d. A." (ohne Beschränkung der
        # Allgemeinheit), "z. B.", "d. h.", "the U. S. Energy Information Administration".
        return True
    if len(word) == 1 and word.isupper():
        # An initial ("J. Smith", "John F. Kennedy") - but not "vitamin C. It".
        previous, _ = _word_before(text, len(text[:start].rstrip()))
        return not previous or previous[:1].isupper() or previous[-1] in ".!?"
    return False


def _split_block(block: str) -> list[str]:
    """Sentences of one block of text (a paragraph, line or bullet item). A table's row
    is one: its cells say one thing together ("| Item 4. | Mine Safety Disclosures | 9
    |" is not "Item 4." and a sentence without its item)."""
    if TABLE_ROW.fullmatch(block):
        return [_normalise(block)] if _has_words(block) else []
    sentences: list[str] = []
    start = 0
    for match in _END.finditer(block):
        end = match.end()
        if _GLUED_MARKERS.sub("", match.group()).rstrip("”’\"')]") == ".":
            if is_abbreviation(block, match.start()):
                continue
            if block[end:].lstrip()[:1].islower():  # "approx. five", "et al. showed"
                continue
        sentences.append(block[start:end])
        start = end
    sentences.append(block[start:])
    out: list[str] = []
    for sentence in (_normalise(s) for s in sentences):
        if not _has_words(sentence):
            continue
        if out and len(sentence) <= 50 and _CITATION_ONLY.fullmatch(sentence):
            out[-1] = f"{out[-1]} {sentence}"
        else:
            out.append(sentence)
    return out


def _has_words(text: str) -> bool:
    return bool(_TERM.search(text))


def _blocks(text: str, *, code: bool = False) -> list[str]:
    """Split on paragraph breaks, bullets and lines that are not soft wraps.

    Markdown heading lines are left out: a section title is not an answer (the
    citation already carries the heading path). So is code, unless ``code``: then each
    line inside a fence is a block of its own (a model may read what no one quotes).
    """
    blocks: list[list[str]] = []
    in_code = False
    for raw in _lines(text):
        line = raw.strip()
        if _FENCE.match(line):  # code is not prose: nothing inside a fence is quoted
            in_code = not in_code
            blocks.append([])
            continue
        if in_code and code and line:
            blocks += [[line], []]
            continue
        if in_code or not line or _HEADING.match(line) or _no_prose(line):
            blocks.append([])
            continue
        bullet = _BULLET.match(line)
        if bullet:
            blocks.append([line[bullet.end() :]])
            continue
        current = blocks[-1] if blocks else None
        if current and _soft_wrap(current[-1], line) and not _next_entry(current[0], line):
            current.append(line)
        else:
            blocks.append([line])
    return [" ".join(lines) for lines in blocks if lines]


def _lines(text: str) -> Iterator[str]:
    """The lines of ``text``, a shortcode of the docs' site generator ("{{% note %}}",
    "{{< tab … >}}") breaking them into paragraphs, even where a passage shown in part
    runs them into one line ("… instead. {{% /note %}} {{% warning %}} Local version
    identifiers …"). Not a link's target: "[groups]({{< relref "…" >}})"."""
    for raw in text.splitlines():
        first, *rest = _SHORTCODE.split(raw)
        yield first
        for part in rest:
            yield ""
            yield part


def _no_prose(line: str) -> bool:
    """Link-only lines, table rules and code fences: nothing a reader would quote."""
    body = line[m.end() :] if (m := _BULLET.match(line)) else line
    return bool(_LINK_ONLY.fullmatch(body) or TABLE_RULE.fullmatch(body) or _FENCE.match(body))


def render_markdown(text: str) -> str:
    """Inline Markdown as plain text (links become their text, code loses its backticks)."""
    for pattern, replacement in _MARKDOWN:
        text = pattern.sub(replacement, text)
    return text


def _next_entry(first: str, line: str) -> bool:
    """Whether ``line`` opens the next entry of the list whose entry opened with
    ``first`` ("Abb. 5.3 …" after "Abb. 5.1 Möbiusband: Jake, tex.stackexchange.com/…",
    a line long enough to be wrapped prose)."""
    label = _ENTRY.match(first)
    return bool(label and line.startswith(label.group(0)[:-1]) and _ENTRY.match(line))


def _soft_wrap(previous: str, line: str) -> bool:
    """A newline inside a sentence (hard-wrapped text, e.g. from PDFs and plain-text books).

    A line that ends mid-word-flow continues on the next when that starts lowercase; a
    long line (the width of hard-wrapped prose) continues even before a capital ("the
    well-known Anna Pavlovna / Scherer, maid of honor").
    """
    last, first = previous[-1], line[0]
    if len(previous) < WRAP_WIDTH and _SPACED_ABBREVIATION.match(line):
        return False  # a list's entry: "Hom. Homomorphismus / o. B. d. A. ohne …"
    # A Markdown link's end is a word's: "made his [first PR](…pull/2022) / in July 2023".
    mid_sentence = (
        (last.isalpha() and last.islower()) or last in ",;:-(" or bool(_LINK_END.search(previous))
    )
    if mid_sentence and (first.islower() or first.isdigit() or first in "(\"'“"):
        return True
    return len(previous) >= WRAP_WIDTH and (last.isalnum() or last in ",;-") and first.isalnum()


def split_sentences(text: str, *, code: bool = False) -> list[str]:
    """Sentences of ``text``, whitespace-normalised.

    Handles English (``.!?`` followed by space; abbreviations such as "e.g." and "Dr.",
    initials and decimals like "3.5" do not end a sentence) and Chinese/Japanese
    (``。！？``). Blank lines, bullet items and new lines that are not soft wraps are
    boundaries too. Lines of code count (each as a sentence) only with ``code``.
    """
    sentences: list[str] = []
    for block in _blocks(text, code=code):
        sentences.extend(_split_block(block))
    return sentences


@dataclass(frozen=True)
class Sentence:
    """One sentence of a passage: ``text`` verbatim (whitespace-normalised), ``display``
    as a reader sees it, ``fragment`` when the passage starts in its middle."""

    text: str
    display: str
    fragment: bool = False


def passage_sentences(text: str, *, code: bool = False) -> list[Sentence]:
    """The sentences of a passage (see :func:`split_sentences`, ``code`` too) with what
    quoting needs.

    A chunk cut by token count can begin mid-sentence; its first sentence is then a
    fragment (the passage begins with it, and it starts with a lowercase letter or a
    continuing punctuation mark).
    """
    out = []
    # Only a passage that *begins* with the sentence can have been cut before it; one
    # that begins with a heading starts a section ("agentmaker Desk answers…" is whole).
    opening = _normalise(text)[:40]
    for index, sentence in enumerate(split_sentences(text, code=code)):
        fragment = (
            index == 0
            and opening.startswith(sentence[: len(opening)])
            and (sentence[:1].islower() or sentence[:1] in ",;:)]")
        )
        display = _normalise(_FOOTNOTE.sub("", render_markdown(sentence)))
        if _has_words(display):
            out.append(Sentence(sentence, display, fragment))
    return out


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def terms(text: str, *, parts: bool = False) -> list[str]:
    """Search terms of ``text``: lowercased words without stop words; CJK as bigrams.
    With ``parts``, a snake_case word also as its words (a passage's field name, for
    scoring its sentences against a question: not a claim's, whose identifiers would
    bring their own words to the check)."""
    out: list[str] = []
    for token in _TERM.findall(text.lower()):
        if "\u3040" <= token[0] <= "\ud7af" or "\uf900" <= token[0] <= "\ufaff":
            if len(token) == 1:
                out.append(token)
            else:
                out.extend(token[i : i + 2] for i in range(len(token) - 1))
        elif token not in _STOP_WORDS:
            out.append(_stem(token))
            if parts and "_" in token.strip("_"):
                # A field's name says its words too: "Miles_per_Gallon: 36.1" is what
                # "How many miles per gallon …?" asks for.
                words = (word for word in token.split("_") if word not in _STOP_WORDS)
                out.extend(_stem(word) for word in words if word)
    return out


# A decimal as written, its sign with it: "22.4", "-6.6"; a version whole ("3.15.3":
# "3.15.4" holds its "3" and "15" too; held-out v74); not a piece of a longer number.
_DECIMAL = re.compile(r"(?<![\w.\u2212-])[\u2212-]?\d+(?:\.\d+)+(?![\w.]*\d)")


def whole_decimals(text: str) -> list[str]:
    """The decimals (and versions) of ``text`` as written, each one term: :func:`terms`
    splits "0.4" into "0" and "4", which most rows of a sheet hold; the row a question
    names by its value ("its lowest wind speed, 0.4") holds "0.4" itself."""
    return [m.group().replace("\u2212", "-") for m in _DECIMAL.finditer(text)]
