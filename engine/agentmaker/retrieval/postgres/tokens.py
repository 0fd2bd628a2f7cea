"""The keyword leg's tokens on PostgreSQL, made by the very tokenizer the SQLite leg uses.

So that a BM25 score means the same on both backends, a chunk is prepared by
``text_analysis.index_text`` (NFKC, CJK runs as bigrams) and then split by SQLite FTS5's
``porter unicode61 remove_diacritics 2`` tokenizer, run in an in-memory SQLite table
(``sqlite.fts5_tokens``, which the tantivy keyword copy uses too): the same stems, the
same document lengths. Query words go through the same tokenizer
(``fts5_topk.Stemmer``) and the same stop-word list (``text_analysis.query_terms``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from agentmaker.retrieval.sqlite.fts5_tokens import Fts5Tokenizer
from agentmaker.retrieval.sqlite.fts5_topk import Stemmer
from agentmaker.retrieval.text_analysis import _CJK_RUN, query_terms


@dataclass(frozen=True)
class TermCounts:
    """One text's tokens: how often each term occurs, and how many tokens in all."""

    counts: dict[str, int]
    length: int


class Tokenizer:
    """Texts → :class:`TermCounts`, queries → terms (thread-safe)."""

    def __init__(self) -> None:
        self._tokens = Fts5Tokenizer()
        self._stemmer = Stemmer()

    def count(self, texts: Sequence[str]) -> list[TermCounts]:
        """The tokens of each text, as FTS5 would index it."""
        found = self._tokens.tokens(list(enumerate(texts)))
        counters = [Counter(found[i].split()) for i in range(len(texts))]
        return [TermCounts(dict(c), sum(c.values())) for c in counters]

    def query(self, query: str) -> tuple[list[str], list[str]]:
        """``(terms, prefixes)`` of a query: one stem per query word, FTS5's own (a word
        it splits into several tokens gives each), and lone CJK characters, which match
        every bigram they begin (as the SQLite leg's prefix query does)."""
        words = query_terms(query)
        stems = self._stemmer.stems(words)
        terms: list[str] = []
        prefixes: list[str] = []
        for word in words:
            if len(word) == 1 and _CJK_RUN.fullmatch(word):
                prefixes.append(word)
                continue
            stem = stems[word]
            if stem is not None:
                terms.append(stem)
            else:  # several tokens (or none): each one counts
                terms.extend(self.count([word])[0].counts)
        return terms, prefixes

    def close(self) -> None:
        self._tokens.close()
        self._stemmer.close()
