"""The keyword leg's tail at scale: 8-word queries under different rare/common splits.

nice -n 10 python -m benchmarks.scale_keyword --size 1000000
"""

from __future__ import annotations

import argparse
import json
import os
import time

from agentmaker.retrieval.sqlite import fts5_topk
from agentmaker.retrieval.sqlite.db import SqliteDatabase
from agentmaker.retrieval.sqlite.fts5_index import Fts5KeywordIndex
from agentmaker.retrieval.sqlite.items import ItemTable

from benchmarks.common import percentile
from benchmarks.scale_data import RAG, library_path
from benchmarks.scale_measure import keyword_queries

GRID = {
    "shipped": fts5_topk.SPLITS,
    "finer": (0.003, 0.01, 0.03, 0.1, 0.3),
    "finest": (0.001, 0.003, 0.01, 0.03, 0.1, 0.3),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--size", type=int, required=True)
    parser.add_argument("--model", default="minilm")
    args = parser.parse_args()
    db = SqliteDatabase(library_path(args.model, args.size))
    index = Fts5KeywordIndex(db, items=ItemTable(db, metadata_columns=("doc_id", "format")))
    out: dict[str, object] = {"n": args.size, "load": os.getloadavg()}
    reference = {}
    for name, splits in GRID.items():
        fts5_topk.SPLITS = splits
        for k, queries in keyword_queries().items():
            times = []
            for _ in range(2):
                for q in queries:
                    t = time.perf_counter()
                    found = [r.id for r in index.search(q, top_k=20, scope=RAG)]
                    times.append((time.perf_counter() - t) * 1000)
                    reference.setdefault(q, found)
                    assert {*found} == {*reference[q]} or name == "shipped", q
            out[f"{name} {k}w"] = {p: round(percentile(times, p), 1) for p in (50, 95, 99)}
        print(name, {k: v for k, v in out.items() if str(k).startswith(name)}, flush=True)
    out["load_after"] = os.getloadavg()
    db.close()
    print(json.dumps(out))


if __name__ == "__main__":
    main()
