"""The files of the tantivy keyword copy: schema, documents, the log position it
reflects, and the top-k search (tantivy's block-max WAND over a disjunction of terms).

Each chunk is one document: its FTS5 tokens, space-separated (``fts5_tokens``), split
on whitespace only, stored with counts and no positions; its item rowid as an indexed
fast field. One more document, rowid 0, holds the log position the index reflects;
it is replaced in every commit, so rows and position are committed atomically.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

#: The rowid of the position document (item rowids start at 1).
META_ROWID = 0

#: Checks rowids against a search's scope and filters: returns those that pass.
RowCheck = Callable[[Sequence[int]], set[int]]


def reraise_fatal(exc: BaseException) -> None:
    """Let interrupts through; anything else from tantivy (an error, or the
    ``PanicException`` a damaged file can cause, a ``BaseException``) means "do not
    trust this index"."""
    if isinstance(exc, KeyboardInterrupt | SystemExit | GeneratorExit):
        raise exc


def _tantivy() -> Any:
    import tantivy

    return tantivy


_schema: list[Any] = []


def schema() -> Any:
    """The copy's schema (every index here has this one)."""
    if not _schema:
        builder = _tantivy().SchemaBuilder()
        # Token counts only (no positions): the keyword leg never matches phrases here.
        builder.add_text_field("t", tokenizer_name="fts5", index_option="freq")
        builder.add_unsigned_field("rowid", indexed=True, fast=True)
        builder.add_unsigned_field("seq", fast=True)
        _schema.append(builder.build())
    return _schema[0]


def _register(index: Any) -> Any:
    tantivy = _tantivy()
    index.register_tokenizer(
        "fts5", tantivy.TextAnalyzerBuilder(tantivy.Tokenizer.whitespace()).build()
    )
    return index


def open_index(path: str) -> Any:
    """An existing index (memory-mapped: nothing is read until a search needs it)."""
    return _register(_tantivy().Index.open(path))


def new_index(path: str) -> Any:
    """A new, empty index in the folder ``path``."""
    return _register(_tantivy().Index(schema(), path=path, reuse=False))


def document(rowid: int, text: str) -> Any:
    """The document of one chunk: its tokens and rowid."""
    doc = _tantivy().Document()
    doc.add_text("t", text)
    doc.add_unsigned("rowid", rowid)
    return doc


def delete(writer: Any, rowids: Sequence[int]) -> None:
    """Delete the documents of these rowids (in the writer's next commit)."""
    # By query: ``delete_documents_by_term`` makes a Python int a signed term, which
    # never matches this unsigned field.
    writer.delete_documents_by_query(
        _tantivy().Query.term_set_query(schema(), "rowid", list(rowids))
    )


def set_position(writer: Any, seq: int) -> None:
    """Record the log position the next commit reflects."""
    delete(writer, [META_ROWID])
    doc = _tantivy().Document()
    doc.add_unsigned("rowid", META_ROWID)
    doc.add_unsigned("seq", seq)
    writer.add_document(doc)


def position(searcher: Any) -> tuple[int, int]:
    """``(log position, chunk count)`` a searcher's index reflects; ``(-1, -1)`` for an
    index without a position document (never committed by this code)."""
    tantivy = _tantivy()
    query = tantivy.Query.term_query(schema(), "rowid", META_ROWID)
    hits = searcher.search(query, 1, count=False).hits
    if not hits:
        return -1, -1
    seq = searcher.fast_field_values("seq", [hits[0][1]])[0]
    return int(seq or 0), int(searcher.num_docs) - 1


def top_k(
    searcher: Any,
    terms: Sequence[str],
    k: int,
    check: RowCheck | None,
    limit: int,
) -> list[tuple[int, float]] | None:
    """The best ``k`` ``(rowid, score)`` rows holding any of ``terms`` that pass
    ``check``: the best unfiltered rows are checked, widening while too few pass; None
    when fewer than ``k`` of the best ``limit`` pass (a filter most rows fail)."""
    tantivy = _tantivy()
    fields = schema()
    query = tantivy.Query.boolean_query(
        [
            (tantivy.Occur.Should, tantivy.Query.term_query(fields, "t", t, index_option="freq"))
            for t in terms
        ]
    )
    want = k if check is None else max(4 * k, 40)
    while True:
        # count=False: counting every match would turn the pruning off.
        hits = searcher.search(query, want, count=False).hits
        rowids = searcher.fast_field_values("rowid", [a for _, a in hits])
        rows = [(int(r), float(s)) for (s, _), r in zip(hits, rowids, strict=True)]
        if check is None:
            return rows
        passing = check([r for r, _ in rows])
        kept = [row for row in rows if row[0] in passing]
        if len(kept) >= k or len(rows) < want:
            return kept[:k]
        if want >= limit:
            return None
        want = min(limit, want * 8)
