"""Exact top-k BM25 on FTS5 without scoring every row that holds a query word.

FTS5 has no top-k pruning (no WAND / MaxScore): an OR query calls ``bm25()`` for every
row that holds any query word, then sorts. A question's common words ("cell",
"increase") match a large share of all chunks, so at 100k chunks that is tens of
milliseconds, while the rows that can reach the top hold at least one rare word.

:func:`tiered_top_k` splits the query words by document frequency into rare and
common ones and ranks only rows holding a rare word, in two FTS5 queries:
``(rare) AND (common)`` scores rows with both kinds exactly, ``(rare)`` scores rows
with rare words only (and gives a lower bound for the others, which the first query
already scored when they can reach the top). FTS5's bm25 is a sum over the query's
phrases whose idf does not depend on the rest of the query, so those scores equal the
full query's. A row holding only common words scores at most
``sum(idf * (k1 + 1))`` over the common words; when the k-th score found beats that
bound, the result is exactly the full query's top k (ties aside). Otherwise the next,
wider split is tried, and last the full query. Document frequencies come from an
``fts5vocab`` table, query words are stemmed by FTS5's own tokenizer.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import sqlean as sqlite3

#: The keyword index's tokenizer (stems must come from the same one).
TOKENIZE = "porter unicode61 remove_diacritics 2"
#: FTS5's bm25 defaults.
K1 = 1.2
#: Shares of all rows under which a word counts as rare, tried in turn.
SPLITS = (0.03, 0.1, 0.3)
#: When the query's words hold fewer rows in all, the full query is cheap enough.
SMALL_QUERY_ROWS = 20_000

#: Runs a MATCH expression and returns up to k ``(rowid, bm25)`` rows, best first.
RankedQuery = Callable[[str], list[tuple[int, float]]]


@dataclass(frozen=True)
class Word:
    """A query word: its quoted FTS5 phrase, how many rows hold it, its score bound."""

    phrase: str
    rows: int
    bound: float


def idf(total_rows: int, rows: int) -> float:
    """FTS5's bm25 idf (clamped to 1e-6 like FTS5 does)."""
    value = math.log((total_rows - rows + 0.5) / (rows + 0.5))
    return value if value > 0 else 1e-6


def quote(word: str) -> str:
    return '"' + word.replace('"', '""') + '"'


def either(words: Sequence[Word]) -> str:
    return "(" + " OR ".join(w.phrase for w in words) + ")"


def tiered_top_k(
    words: Sequence[Word], total_rows: int, k: int, run: RankedQuery
) -> list[tuple[int, float]]:
    """The full OR query's top ``k`` rows, scoring as few rows as the bound allows."""
    words = [w for w in words if w.rows > 0]  # a word no row holds adds nothing
    if not words:
        return []
    if sum(w.rows for w in words) > SMALL_QUERY_ROWS:  # read at call time (tests lower it)
        for share in SPLITS:
            rare = [w for w in words if w.rows <= share * total_rows]
            common = [w for w in words if w.rows > share * total_rows]
            if not common:
                break  # every word is rare: the full query is the cheap one
            if not rare:
                continue
            both = run(f"{either(rare)} AND {either(common)}")
            rare_only = run(either(rare))
            best: dict[int, float] = {}
            for rowid, score in (*both, *rare_only):
                best[rowid] = min(score, best.get(rowid, score))  # bm25 < 0: lower is better
            top = sorted(best.items(), key=lambda r: (r[1], r[0]))[:k]
            if len(top) == k and -top[-1][1] >= sum(w.bound for w in common):
                return top
    return run(" OR ".join(w.phrase for w in words))


class Stemmer:
    """Query words → FTS5 tokens, by the index's own tokenizer (cached).

    A word that FTS5 splits into several tokens (or none) maps to ``None``: it is a
    phrase, not a word, and its frequency is not in the vocabulary.
    """

    def __init__(self, max_cached: int = 50_000) -> None:
        self._conn = sqlite3.connect(":memory:", check_same_thread=False)
        self._conn.execute(f"CREATE VIRTUAL TABLE tok USING fts5(w, tokenize='{TOKENIZE}')")
        self._conn.execute("CREATE VIRTUAL TABLE tokv USING fts5vocab(tok, 'instance')")
        self._lock = threading.Lock()
        self._cache: dict[str, str | None] = {}
        self._max_cached = max_cached

    def stems(self, words: Sequence[str]) -> dict[str, str | None]:
        with self._lock:
            missing = [w for w in dict.fromkeys(words) if w not in self._cache]
            if missing:
                if len(self._cache) + len(missing) > self._max_cached:
                    self._cache.clear()
                self._conn.executemany(
                    "INSERT INTO tok(rowid, w) VALUES (?, ?)", list(enumerate(missing))
                )
                tokens: dict[int, list[str]] = {}
                for doc, term in self._conn.execute("SELECT doc, term FROM tokv"):
                    tokens.setdefault(doc, []).append(term)
                self._conn.execute("DELETE FROM tok")
                for i, word in enumerate(missing):
                    found = tokens.get(i, [])
                    self._cache[word] = found[0] if len(found) == 1 else None
            return {w: self._cache[w] for w in words}

    def close(self) -> None:
        with self._lock:
            self._conn.close()


def read_varint(data: bytes, pos: int = 0) -> tuple[int, int]:
    """SQLite's big-endian varint (as FTS5 writes its totals record)."""
    value = 0
    for i in range(8):
        byte = data[pos + i]
        value = (value << 7) | (byte & 0x7F)
        if not byte & 0x80:
            return value, pos + i + 1
    return (value << 8) | data[pos + 8], pos + 9
