"""Does the tantivy keyword copy change answer quality? SciFact train nDCG@10 end to end
(the product path of ``beir_quality``: ``Library.open`` with the app's RagConfig, then
``rag.retrieve``) with the keyword leg served by tantivy, against FTS5, same library.

    python -m benchmarks.scale_keyword_quality

SciFact's library (~5k documents) is below ``FAST_MIN_ROWS``, so the copy is forced:
the library file is copied to a scratch folder and opened once with the threshold at 0
(the copy is built and stamped beside it); both runs then open that copy. The cached
benchmark library itself is left as it was.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

from agentmaker.retrieval.sqlite import keyword_cache
from agentmaker.retrieval.sqlite.fts5_index import Fts5KeywordIndex

from benchmarks.beir_quality import _e2e, load_beir, open_library
from benchmarks.common import OUT, cached_local_embedder, log
from benchmarks.metrics import paired_bootstrap


def _copy(path: Path, folder: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        source = Path(f"{path}{suffix}")
        if source.exists():
            shutil.copy2(source, folder / (path.name + suffix))
    return folder / path.name


def main() -> None:
    beir = load_beir()
    out: dict[str, Any] = {"load_before": [round(x, 2) for x in os.getloadavg()]}
    with cached_local_embedder() as embedder:
        lib = open_library(beir, "heading", embedder)
        lib.close()
    scratch = Path(tempfile.mkdtemp(prefix="kwq-", dir=OUT))
    try:
        path = _copy(lib.path, scratch)
        from agentmaker.retrieval.sqlite.hybrid import build_sqlite_hybrid

        keyword_cache.FAST_MIN_ROWS = 0
        with cached_local_embedder() as embedder:
            retriever = build_sqlite_hybrid(embedder, path, metadata_columns=("doc_id", "format"))
            cache = retriever.keyword_index.cache
            assert cache is not None and cache.wait(600), "the copy was not built"
            out["chunks"] = cache.last_rebuild[0] if cache.last_rebuild else None
            retriever.close()
        queries = beir.query_ids
        lib.path = path
        served: list[str] = []
        real_search = Fts5KeywordIndex.search

        def counted(self: Fts5KeywordIndex, *args: Any, **kwargs: Any) -> Any:
            found = real_search(self, *args, **kwargs)
            served.append(self.served_by)
            return found

        Fts5KeywordIndex.search = counted  # type: ignore[method-assign]
        log("SciFact end to end, keyword leg on tantivy")
        fast = _e2e(beir, lib, queries=queries)
        out["tantivy_served"] = served.count("tantivy") / max(1, len(served))
        served.clear()
        Fts5KeywordIndex._fast = lambda self, *a, **k: None  # type: ignore[method-assign]
        log("SciFact end to end, keyword leg on FTS5")
        slow = _e2e(beir, lib, queries=queries)
        out["fts5_served"] = served.count("fts5") / max(1, len(served))
        mean, low, high = paired_bootstrap(slow.pop("per_query"), fast.pop("per_query"))
        out.update(
            {
                "queries": len(queries),
                "ndcg@10 tantivy": round(fast["ndcg"], 4),
                "ndcg@10 fts5": round(slow["ndcg"], 4),
                "recall@100 tantivy": round(fast["recall"], 4),
                "recall@100 fts5": round(slow["recall"], 4),
                "tantivy - fts5": {"mean": round(mean, 4), "ci95": [round(low, 4), round(high, 4)]},
                "retrieve_ms_median": [fast["retrieve_ms_median"], slow["retrieve_ms_median"]],
                "load_after": [round(x, 2) for x in os.getloadavg()],
            }
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    (OUT / "scale" / "keyword_quality.json").write_text(json.dumps(out, indent=1))
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
