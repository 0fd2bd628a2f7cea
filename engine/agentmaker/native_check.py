"""The self-test's check of the native search libraries a large library needs.

A library file is searched by SQLite alone until it grows: from a few thousand passages
the dense leg keeps an HNSW graph (``usearch``) and from 20,000 the keyword leg a
``tantivy`` copy beside the file. The demo library is far too small to use either, so
without this check an installer that left one of them out would pass its self-test
and only be slow (or fail) on a person's big library.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def check_search_libraries(folder: Path) -> list[str]:
    """Build and query a tiny graph and a tiny keyword copy in ``folder``; the problems
    found, as sentences (empty: both work)."""
    problems = []
    try:
        from agentmaker.retrieval.sqlite.graph_index import _usearch

        graph = _usearch()(ndim=8, metric="cos", dtype="i8")
        vectors = np.eye(8, dtype=np.float32)[:3]
        graph.add(np.arange(1, 4), vectors)
        found = graph.search(vectors[1], 1)
        if int(found.keys[0]) != 2:
            problems.append(f"the dense graph (usearch) found {int(found.keys[0])}, not 2")
    except Exception as exc:  # an installer without it, or a broken build
        problems.append(f"the dense graph (usearch) does not work: {exc!r}")
    try:
        from agentmaker.retrieval.sqlite import tantivy_index

        (folder / "keywords").mkdir()
        index = tantivy_index.new_index(str(folder / "keywords"))
        writer = index.writer(heap_size=15_000_000, num_threads=1)
        for rowid, text in ((1, "boiler pressur"), (2, "zebra migrat survey"), (3, "rent")):
            writer.add_document(tantivy_index.document(rowid, text))
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        rows = tantivy_index.top_k(index.searcher(), ["zebra", "migrat"], 1, None, 10)
        if [r for r, _ in rows or []] != [2]:
            problems.append(f"the keyword copy (tantivy) found {rows}, not row 2")
    except Exception as exc:
        problems.append(f"the keyword copy (tantivy) does not work: {exc!r}")
    return problems
