"""Text preparation for FTS5: CJK bigrams, and user queries that can never be syntax.

FTS5's ``unicode61`` tokenizer treats a run of Chinese or Japanese characters without
spaces as one token, so nothing inside it can be found. Runs of CJK characters are
therefore indexed as overlapping bigrams ("東京都" → "東京 京都"), and queries get the
same treatment. Queries are rebuilt from their words, each quoted, so whatever a person
types (quotes, AND, NEAR(, *, -, emoji) is searched as words, never parsed as syntax.
"""

from __future__ import annotations

import re
import unicodedata

_CJK = (
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"  # CJK ideographs
    "\uac00-\ud7af\u1100-\u11ff\u3130-\u318f"  # Hangul
    "\U00020000-\U0002ffff"
)
_CJK_RUN = re.compile(f"[{_CJK}]+")
# A word is a CJK run or a run of other letters/digits: "2021年中国" is "2021" and
# "年中国" (CJK characters are \w too, so without the exclusion the whole thing was one
# word that matches no indexed token - most Chinese questions with a year found nothing).
_WORD = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+", re.UNICODE)

# Dropping these from OR queries halves FTS5 time and barely changes ranking.
STOP_WORDS = frozenset(
    [
        "a",
        "about",
        "above",
        "after",
        "again",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "because",
        "been",
        "before",
        "being",
        "below",
        "between",
        "both",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "doing",
        "down",
        "during",
        "each",
        "few",
        "for",
        "from",
        "further",
        "had",
        "has",
        "have",
        "having",
        "he",
        "her",
        "here",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "itself",
        "just",
        "me",
        "more",
        "most",
        "my",
        "no",
        "nor",
        "not",
        "of",
        "off",
        "on",
        "once",
        "only",
        "or",
        "other",
        "our",
        "ours",
        "out",
        "over",
        "own",
        "same",
        "she",
        "should",
        "so",
        "some",
        "such",
        "than",
        "that",
        "the",
        "their",
        "theirs",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "through",
        "to",
        "too",
        "under",
        "until",
        "up",
        "very",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "yours",
    ]
)
MAX_QUERY_TERMS = 48


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def index_text(text: str) -> str:
    """Text as it goes into the FTS5 index: NFKC-normalised, CJK runs as bigrams."""
    text = unicodedata.normalize("NFKC", text)
    return _CJK_RUN.sub(lambda m: " " + " ".join(_bigrams(m.group())) + " ", text)


def query_terms(query: str) -> list[str]:
    """The searchable terms of a free-text query (stop words dropped when others remain)."""
    query = unicodedata.normalize("NFKC", query).lower()
    terms: list[str] = []
    for match in _WORD.finditer(query):
        word = match.group()
        if _CJK_RUN.fullmatch(word):
            terms.extend(_bigrams(word))
        else:
            terms.append(word)
    content = [t for t in terms if t not in STOP_WORDS]
    terms = content or terms
    return list(dict.fromkeys(terms))[:MAX_QUERY_TERMS]


# A term written as one that its words alone do not find: a version ("3.0.0"), a
# decimal ("22.4", the value a sheet's row is asked for by), a date ("2024-09-15", a
# sheet's "2015/01/01" or "1/15/2015") or an identifier ("POETRY_CACHE_DIR"): "3", "0"
# and "01" are everywhere (a year of daily rows holds "2015" and "01" in a twelfth of
# its chunks, "22" and "4" in most).
_COMPOUND = re.compile(r"[^\W_]+(?:[._-][^\W_]+)+|\d+/\d+/\d+")
_SEARCHED_WHOLE = re.compile(
    r"\d+(?:\.\d+)+|\d{4}-\d\d?-\d\d?|\d{4}/\d\d?/\d\d?|\d\d?/\d\d?/\d{4}|.*_.*"
)


def compounds(query: str) -> list[str]:
    """The versions, decimals, dates and snake_case identifiers of ``query``, lowercased:
    each is also searched as the phrase of its words. Not every compound: "pyproject.toml"
    is in every chunk of the documents that hold it, and a query with a phrase is not
    served by the tantivy copy (which keeps no word positions; two of SciFact's 809 claims
    hold a decimal). Phrasing "COVID-19"-like words too moved SciFact nDCG@10 by +0.0004
    (0.7394 → 0.7398) and would take 76 of its 809 claims off that fast path
    (benchmarks/REPORT.md §10, session 7)."""
    query = unicodedata.normalize("NFKC", query).lower()
    found = (m.group() for m in _COMPOUND.finditer(query))
    return list(dict.fromkeys(w for w in found if _SEARCHED_WHOLE.fullmatch(w)))


def match_expression(query: str) -> str | None:
    """An FTS5 MATCH expression that ORs the quoted query terms; None if there are none.

    A lone CJK character becomes a prefix query so it finds the bigrams starting with it.
    A compound ("3.0.0") is ORed in as a phrase too, so the chunk that holds it as
    written ranks above those that hold its digits apart.
    """
    parts = ['"' + c.replace('"', '""') + '"' for c in compounds(query)]
    for term in query_terms(query):
        quoted = '"' + term.replace('"', '""') + '"'
        if len(term) == 1 and _CJK_RUN.fullmatch(term):
            quoted += "*"
        parts.append(quoted)
    return " OR ".join(parts) if parts else None
