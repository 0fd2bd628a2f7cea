"""The tiered keyword search returns exactly what the full OR query returns."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from agentmaker.retrieval import (
    Fts5KeywordIndex,
    RetrievalResult,
    Scope,
    build_sqlite_hybrid,
)
from agentmaker.retrieval.sqlite import fts5_topk
from agentmaker.retrieval.sqlite.fts5_topk import Stemmer, read_varint
from agentmaker.retrieval.text_analysis import match_expression
from agentmaker.retrieval.types import MetadataFilter
from agentmaker.testing import FakeEmbedder

# A Zipf-like vocabulary: a few words in most chunks, many in a handful.
VOCABULARY = [f"w{i}" for i in range(400)]
WEIGHTS = [1 / (rank + 1) for rank in range(len(VOCABULARY))]
ALICE, BOB = Scope(base="kb", user="alice"), Scope(base="kb", user="bob")


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Fts5KeywordIndex]:
    rng = random.Random(7)
    index = Fts5KeywordIndex(
        tmp_path_factory.mktemp("topk") / "k.sqlite", metadata_columns=("tag",)
    )
    for user in (ALICE, BOB):
        items = [
            RetrievalResult(
                id=f"{user.user}-{n}",
                content=" ".join(rng.choices(VOCABULARY, WEIGHTS, k=rng.randint(5, 60))),
                metadata={"tag": "z" if n % 75 == 0 else rng.choice(["x", "y"])},
            )
            for n in range(1500)
        ]
        index.add(items, scope=user)
    index.delete([f"alice-{n}" for n in range(0, 1500, 7)])  # tombstones in the index
    yield index
    index.close()


def full_query(
    index: Fts5KeywordIndex, query: str, k: int, scope: Scope, filters: list | None
) -> list[tuple[int, float]]:
    """The plain OR query, every matching row scored (what the index did before)."""
    where, params = index.items.where(scope, filters, alias="i")
    rows = index.db.query(
        f"WITH m AS MATERIALIZED (SELECT rowid, bm25(kw_fts) AS s FROM kw_fts "
        f"WHERE kw_fts MATCH ?) SELECT m.rowid, m.s FROM m JOIN {index.items.table} i "
        f"ON i.rowid = m.rowid WHERE {where} ORDER BY m.s, m.rowid LIMIT ?",
        [match_expression(query), *params, k],
    )
    return [(r[0], r[1]) for r in rows]


def queries(n: int) -> list[str]:
    rng = random.Random(11)
    out = []
    for _ in range(n):
        common = rng.sample(VOCABULARY[:8], rng.randint(1, 4))
        rare = rng.sample(VOCABULARY[200:], rng.randint(0, 3))
        out.append(" ".join(rng.sample(common + rare, len(common + rare))))
    return out


@pytest.mark.parametrize(
    ("scope", "filters"),
    [
        (Scope(base="kb"), None),
        (ALICE, [MetadataFilter("tag", "x")]),
        (BOB, [MetadataFilter("tag", "z")]),  # 20 rows pass: ranked through the join
    ],
)
def test_tiered_search_equals_the_full_query(
    index: Fts5KeywordIndex,
    monkeypatch: pytest.MonkeyPatch,
    scope: Scope,
    filters: list | None,
) -> None:
    monkeypatch.setattr(fts5_topk, "SMALL_QUERY_ROWS", 0)  # tier even this small index
    expressions: list[str] = []
    original = fts5_topk.tiered_top_k

    def spy(words, total, k, run):  # type: ignore[no-untyped-def]
        def recorded(expression: str) -> list[tuple[int, float]]:
            expressions.append(expression)
            return run(expression)

        return original(words, total, k, recorded)

    monkeypatch.setattr("agentmaker.retrieval.sqlite.fts5_index.tiered_top_k", spy)
    tiered_only = 0
    for query in queries(120):
        expressions.clear()
        got = index.search(query, top_k=10, scope=scope, filters=filters)
        want = full_query(index, query, 10, scope, filters)
        assert [r.score for r in got] == pytest.approx([-s for _, s in want], abs=1e-9)
        rowids = index.items.rowids_for([r.id for r in got], None, None)
        for (rowid, score), (want_rowid, want_score) in zip(
            zip(rowids, [r.score for r in got], strict=True), want, strict=True
        ):
            assert rowid == want_rowid or score == pytest.approx(-want_score, abs=1e-9)
        if expressions and all(e.startswith("(") for e in expressions):
            tiered_only += 1  # answered without the full query's scoring of every row
    if filters != [MetadataFilter("tag", "z")]:
        assert tiered_only >= 20, "the bound never held: the tiers were never used"


def test_small_queries_and_phrases_use_the_full_query(index: Fts5KeywordIndex) -> None:
    # Below SMALL_QUERY_ROWS, and for words FTS5 splits, the plain query runs.
    assert index.search("w300 w301", top_k=3, scope=Scope(base="kb"))
    assert index.search("w0 w1 e.g", top_k=3, scope=Scope(base="kb"))


def test_stemmer_uses_fts5_tokenizer() -> None:
    stemmer = Stemmer()
    try:
        stems = stemmer.stems(["running", "properties", "Café", "e.g"])
    finally:
        stemmer.close()
    assert stems["running"] == "run"
    assert stems["properties"] == "properti"
    assert stems["Café"] == "cafe"
    assert stems["e.g"] is None  # two tokens: a phrase


def test_totals_record_varint() -> None:
    assert read_varint(b"\xa7\x08") == (5000, 2)
    assert read_varint(b"\x05") == (5, 1)


def test_a_row_with_only_common_words_can_still_win(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # "alpha"/"beta" are common (20% of rows), "zeta" rare; a short chunk repeating the
    # common words outscores the long chunks holding the rare one: the bound must fail
    # and the wider query must find it.
    monkeypatch.setattr(fts5_topk, "SMALL_QUERY_ROWS", 0)
    index = Fts5KeywordIndex(tmp_path / "k.sqlite")
    try:
        filler = [
            RetrievalResult(
                id=f"f{n}", content=("alpha beta " if n % 5 == 0 else "") + "gamma " * 50
            )
            for n in range(400)
        ]
        rare = [RetrievalResult(id=f"r{n}", content="zeta " + "pad " * 200) for n in range(5)]
        strong = RetrievalResult(id="strong", content="alpha alpha alpha beta beta beta")
        index.add([*filler, *rare, strong], scope=Scope(base="kb"))
        got = index.search("alpha beta zeta", top_k=3, scope=Scope(base="kb"))
        want = full_query(index, "alpha beta zeta", 3, Scope(base="kb"), None)
        assert got[0].id == "strong"
        assert [r.score for r in got] == pytest.approx([-s for _, s in want])
    finally:
        index.close()


@pytest.mark.parametrize("change", ["delete", "rollback", "other connection"])
def test_word_counts_follow_every_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, change: str
) -> None:
    # Word counts are cached; a stale, too high count gives too low a bound, and the
    # short chunk repeating "alpha" (common when counted, rare after the change) would
    # be lost behind the long "zeta" chunks.
    monkeypatch.setattr(fts5_topk, "SMALL_QUERY_ROWS", 0)
    path, kb, query = tmp_path / "k.sqlite", Scope(base="kb"), "alpha zeta"
    index = Fts5KeywordIndex(path)
    other = Fts5KeywordIndex(path)

    def items(prefix: str, text: str, n: int) -> list[RetrievalResult]:
        return [RetrievalResult(id=f"{prefix}{i}", content=text) for i in range(n)]

    try:
        index.add(
            [
                *items("g", "gamma " * 30, 200),
                *items("z", "zeta " + "pad " * 100, 5),
                RetrievalResult(id="strong", content="alpha alpha alpha"),
            ],
            scope=kb,
        )
        many_alphas = items("a", "alpha " + "gamma " * 20, 200)
        if change == "rollback":
            with pytest.raises(RuntimeError), index.db.transaction():
                index.add(many_alphas, scope=kb)
                index.search(query, top_k=5, scope=kb)  # counts alpha in 201 rows
                raise RuntimeError("roll back")
        else:
            index.add(many_alphas, scope=kb)
            index.search(query, top_k=5, scope=kb)  # counts alpha in 201 rows
            writer = index if change == "delete" else other
            writer.delete([item.id for item in many_alphas], scope=kb)
        got = index.search(query, top_k=5, scope=kb)
        want = full_query(index, query, 5, kb, None)
        assert got[0].id == "strong"
        assert [r.score for r in got] == pytest.approx([-s for _, s in want])
    finally:
        other.close()
        index.close()


def test_search_inside_a_transaction_sees_its_own_rows(tmp_path: Path) -> None:
    # Outside a transaction the keyword leg reads committed rows on its own connection,
    # beside the dense leg; inside one it must see the transaction's rows.
    retriever = build_sqlite_hybrid(FakeEmbedder(), tmp_path / "lib.sqlite")
    kb = Scope(base="kb")
    try:
        retriever.add([RetrievalResult(id="old", content="committed quokka")], scope=kb)
        with retriever.db.transaction():
            retriever.add([RetrievalResult(id="new", content="pending quokka")], scope=kb)
            inside = retriever.keyword_index.search("pending quokka", top_k=5, scope=kb)
            hybrid = retriever.search("pending quokka", top_k=5, scope=kb)
            assert [r.id for r in inside] == ["new", "old"]
            assert {r.id for r in hybrid} == {"new", "old"}
        after = retriever.search("pending", top_k=5, scope=kb)
        assert after[0].id == "new"
        assert after[0].metadata["keyword_rank"] == 1
    finally:
        retriever.close()


def test_a_library_from_before_the_vocabulary_table_is_upgraded(tmp_path: Path) -> None:
    path, kb = tmp_path / "k.sqlite", Scope(base="kb")
    index = Fts5KeywordIndex(path)
    index.add([RetrievalResult(id="a", content="alpha beta")], scope=kb)
    index.db.execute("DROP TABLE kw_fts_vocab")
    index.db.execute("UPDATE schema_versions SET version = 1 WHERE component = 'fts:kw_fts'")
    index.close()
    index = Fts5KeywordIndex(path)
    try:
        assert index.db.query("SELECT doc FROM kw_fts_vocab WHERE term = 'alpha'") == [(1,)]
        assert [r.id for r in index.search("alpha", top_k=1, scope=kb)] == ["a"]
    finally:
        index.close()
