"""Answers without a language model: the passages' sentences that best match the question.

:func:`extractive_answer` scores every sentence of every passage against the question
with BM25 (IDF over all the sentences; English words lowercased with a tiny stop-word
list, Chinese/Japanese/Korean as character bigrams), keeps the best few (at most two
per passage, no duplicates), and returns them in reading order, each followed by the
``[n]`` marker of its passage. Every cited sentence is a verbatim substring of its
passage, up to whitespace. Labelling the text as an extractive answer is up to the
caller.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["ExtractiveAnswer", "extractive_answer", "split_sentences", "terms"]

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_TERM = re.compile(rf"[{_CJK}]+|[^\W{_CJK}]+")


def _word_set(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that end with "." without ending a sentence (lowercase, without the final dot).
_ABBREVIATIONS = _word_set(
    """
    e.g i.e vs cf al approx ca dr mr mrs ms mx prof sr jr st mt ft inc ltd co corp dept
    univ resp jan feb mar apr jun jul aug sep sept oct nov dec gen gov rev lt col sgt capt
    u.s u.k a.m p.m ph.d b.sc m.sc
    """
)
# Abbreviations only when a number follows ("Fig. 3", "No. 5", "p. 12").
_NUMBER_ABBREVIATIONS = _word_set("no nos vol vols fig figs eq eqs p pp ch sec ref refs")

_STOP_WORDS = _word_set(
    """
    a an the and or but if of to in on at by for with from as into about is are was were be
    been being am do does did has have had it its this that these those there here what
    which who whom whose when where why how i you he she we they me him her us them my your
    our their not no so than then too very can could should would will shall may might must
    """
)

_BULLET = re.compile(r"^\s*(?:[-*•‣◦▪–—]|\d{1,3}[.)]|[a-zA-Z][.)])\s+")
_HEADING = re.compile(r"#{1,6}\s+\S")
# Candidate ends: CJK terminators (no space needed), or ASCII ones followed by space/end.
_END = re.compile(r"[。！？]+[”’」』）\)\]\"']*|[.!?]+[”’\"'\)\]]*(?=\s|$)")
_SPACE = re.compile(r"\s+")


def _normalise(text: str) -> str:
    return _SPACE.sub(" ", text).strip()


def _word_before(text: str, index: int) -> tuple[str, int]:
    """The word ending at ``index`` (exclusive) and where it starts."""
    start = index
    while start > 0 and not text[start - 1].isspace() and text[start - 1] not in "([\"'“":
        start -= 1
    return text[start:index], start


def _is_abbreviation(text: str, dot: int) -> bool:
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
    if len(word) == 1 and word.isupper():
        # An initial ("J. Smith", "John F. Kennedy") - but not "vitamin C. It".
        previous, _ = _word_before(text, len(text[:start].rstrip()))
        return not previous or previous[:1].isupper() or previous[-1] in ".!?"
    return False


def _split_block(block: str) -> list[str]:
    """Sentences of one block of text (a paragraph, line or bullet item)."""
    sentences: list[str] = []
    start = 0
    for match in _END.finditer(block):
        end = match.end()
        if match.group().rstrip("”’\"')]") == ".":
            if _is_abbreviation(block, match.start()):
                continue
            if block[end:].lstrip()[:1].islower():  # "approx. five", "et al. showed"
                continue
        sentences.append(block[start:end])
        start = end
    sentences.append(block[start:])
    return [s for s in (_normalise(s) for s in sentences) if _has_words(s)]


def _has_words(text: str) -> bool:
    return bool(_TERM.search(text))


def _blocks(text: str) -> list[str]:
    """Split on paragraph breaks, bullets and lines that are not soft wraps.

    Markdown heading lines are left out: a section title is not an answer (the
    citation already carries the heading path).
    """
    blocks: list[list[str]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or _HEADING.match(line):
            blocks.append([])
            continue
        bullet = _BULLET.match(line)
        if bullet:
            blocks.append([line[bullet.end() :]])
            continue
        current = blocks[-1] if blocks else None
        if current and _soft_wrap(current[-1], line):
            current.append(line)
        else:
            blocks.append([line])
    return [" ".join(lines) for lines in blocks if lines]


def _soft_wrap(previous: str, line: str) -> bool:
    """A newline inside a sentence (hard-wrapped text, e.g. from PDFs)."""
    last, first = previous[-1], line[0]
    return ((last.isalpha() and last.islower()) or last in ",;-(") and (
        first.islower() or first.isdigit() or first in "(\"'“"
    )


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text``, whitespace-normalised.

    Handles English (``.!?`` followed by space; abbreviations such as "e.g." and "Dr.",
    initials and decimals like "3.5" do not end a sentence) and Chinese/Japanese
    (``。！？``). Blank lines, bullet items and new lines that are not soft wraps are
    boundaries too.
    """
    sentences: list[str] = []
    for block in _blocks(text):
        sentences.extend(_split_block(block))
    return sentences


def _stem(word: str) -> str:
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def terms(text: str) -> list[str]:
    """Search terms of ``text``: lowercased words without stop words; CJK as bigrams."""
    out: list[str] = []
    for token in _TERM.findall(text.lower()):
        if "\u3040" <= token[0] <= "\ud7af" or "\uf900" <= token[0] <= "\ufaff":
            if len(token) == 1:
                out.append(token)
            else:
                out.extend(token[i : i + 2] for i in range(len(token) - 1))
        elif token not in _STOP_WORDS:
            out.append(_stem(token))
    return out


@dataclass(frozen=True)
class ExtractiveAnswer:
    """Cited sentences joined as ``text``; ``citations`` are ``(passage number, sentence)``."""

    text: str
    citations: list[tuple[int, str]] = field(default_factory=list)


@dataclass
class _Sentence:
    passage: int  # 1-based
    position: int
    text: str
    terms: Counter[str]
    length: int
    score: float = 0.0


def extractive_answer(
    question: str,
    passages: Sequence[str],
    *,
    max_sentences: int = 4,
    per_passage: int = 2,
    min_relative_score: float = 0.3,
) -> ExtractiveAnswer:
    """The sentences of ``passages`` that best answer ``question``, each cited ``[n]``.

    At most ``per_passage`` sentences per passage and ``max_sentences`` in all; sentences
    scoring below ``min_relative_score`` times the best score are left out. When no
    sentence shares a term with the question, the first sentence of passage 1 is cited.
    """
    sentences: list[_Sentence] = []
    for number, passage in enumerate(passages, start=1):
        for position, sentence in enumerate(split_sentences(passage)):
            counts = Counter(terms(sentence))
            sentences.append(_Sentence(number, position, sentence, counts, sum(counts.values())))
    if not sentences or max_sentences < 1:
        return ExtractiveAnswer("", [])

    query = set(terms(question))
    n = len(sentences)
    df: Counter[str] = Counter()
    for s in sentences:
        df.update(set(s.terms) & query)
    average = sum(s.length for s in sentences) / n or 1.0
    k1, b = 1.2, 0.75
    for s in sentences:
        score = 0.0
        for term in query & s.terms.keys():
            idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
            tf = s.terms[term]
            score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * s.length / average))
        s.score = score

    best = max(s.score for s in sentences)
    ranked = sorted(
        (s for s in sentences if s.score > 0 and s.score >= min_relative_score * best),
        key=lambda s: (-s.score, s.passage, s.position),
    )
    chosen: list[_Sentence] = []
    per: Counter[int] = Counter()
    seen: list[set[str]] = []
    for s in ranked:
        if len(chosen) >= max_sentences:
            break
        if per[s.passage] >= per_passage:
            continue
        words = set(s.terms) or {s.text.lower()}
        if any(_jaccard(words, other) >= 0.8 for other in seen):
            continue  # the same sentence (or nearly) from another passage
        chosen.append(s)
        per[s.passage] += 1
        seen.append(words)

    if not chosen:
        first = next((s for s in sentences if s.passage == 1), sentences[0])
        chosen = [first]
    chosen.sort(key=lambda s: (s.passage, s.position))
    citations = [(s.passage, s.text) for s in chosen]
    text = " ".join(f"{sentence} [{number}]" for number, sentence in citations)
    return ExtractiveAnswer(text, citations)


def _jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0
