"""Throughput of the local embedder on ~240-token chunks.

Chunks are cut from the BEIR SciFact corpus at 240 tokens (document tails of
200-239 tokens are kept too, so lengths vary a little). Compared:

* the default (``precision="int8"``, one window per model call) and
  ``precision="fp32-dequant"`` (the package's model as it is, batches of 8);
* batch 32, unsorted - consecutive slices of 32 chunks, each padded to its longest;
* a few variants (threads, spinning, batch sizes) to guide tuning;
* multilingual-e5-small (``model="multilingual-e5-small"``, int8, and its 4-bit
  ``MatMulNBits`` twin), on the same chunks; its tokens are counted with its own
  tokenizer, ``passage:`` prefix and <s>/</s> included.

``embedder_quantized.py`` compares the int8 variants (and their retrieval quality).

    .venv/bin/python benchmarks/embedder_throughput.py [--chunks 384] [--repeats 2] [--quick]

``--quick``: only the two models' defaults (and e5's 4-bit twin).

tokens/s counts the tokens the model sees without padding ([CLS]/[SEP] included).
Writes ``benchmarks/out/embedder_throughput.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from agentmaker.models.local_embedder import E5_SMALL, LocalEmbedder
from agentmaker.resources import resource_path
from tokenizers import Tokenizer

DATA = Path(os.environ.get("SCIFACT_DIR", "/work/shared/bench/scifact"))
OUT = Path(__file__).resolve().parent / "out"


def make_chunks(count: int, size: int = 240) -> list[str]:
    tokenizer = Tokenizer.from_file(str(resource_path("all-MiniLM-L6-v2", "tokenizer.json")))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    chunks: list[str] = []
    with (DATA / "corpus.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            doc = json.loads(line)
            ids = tokenizer.encode(f"{doc['title']} {doc['text']}", add_special_tokens=False).ids
            for start in range(0, len(ids), size):
                piece = ids[start : start + size]
                if len(piece) >= 200:  # ~240-token chunks; short tails vary the length
                    chunks.append(tokenizer.decode(piece))
            if len(chunks) >= count:
                return chunks[:count]
    return chunks


def measure(run: Callable[[], object], repeats: int) -> tuple[list[float], list[float]]:
    """Wall-clock and CPU seconds (all threads of this process) of each run."""
    run()  # warm-up (session creation, allocator)
    walls, cpus = [], []
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), time.process_time()
        run()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return walls, cpus


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=384)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="only the models' defaults")
    args = parser.parse_args(argv)
    OUT.mkdir(parents=True, exist_ok=True)

    chunks = make_chunks(args.chunks)
    probe = LocalEmbedder()
    tokens = sum(probe.count_tokens(c) + 2 for c in chunks)
    print(f"{len(chunks)} chunks, {tokens} tokens ({tokens / len(chunks):.0f} per chunk)")
    e5 = LocalEmbedder(model=E5_SMALL)
    # e5's own count: "passage: " + text, <s> and </s>, as its windows are fed.
    e5_tokens = sum(len(w.ids) for w in e5._windows(e5._get_tokenizer(), chunks, "passage: "))
    print(f"e5: {e5_tokens} tokens ({e5_tokens / len(chunks):.0f} per chunk)")

    def sorted_run(embedder: LocalEmbedder) -> Callable[[], object]:
        return lambda: embedder.embed_batch(chunks)

    def unsorted_run(embedder: LocalEmbedder, size: int) -> Callable[[], object]:
        return lambda: [
            embedder.embed_batch(chunks[i : i + size]) for i in range(0, len(chunks), size)
        ]

    fp32 = "fp32-dequant"
    e5_q4 = LocalEmbedder(model=E5_SMALL)
    e5_q4._model = e5_q4_model()
    defaults: list[tuple[str, Callable[[], object], int]] = [
        ("int8, batch 1 (default)", sorted_run(LocalEmbedder()), tokens),
        ("e5-small int8, batch 1 (e5 default)", sorted_run(e5), e5_tokens),
        ("e5-small q4 (MatMulNBits), batch 1", sorted_run(e5_q4), e5_tokens),
    ]
    more: list[tuple[str, Callable[[], object]]] = [
        ("int8, batch 8, length-sorted", sorted_run(LocalEmbedder(batch_size=8))),
        ("fp32-dequant, batch 8, length-sorted", sorted_run(LocalEmbedder(precision=fp32))),
        ("fp32-dequant, batch 1", sorted_run(LocalEmbedder(precision=fp32, batch_size=1))),
        (
            "fp32-dequant, batch 32, unsorted",
            unsorted_run(LocalEmbedder(precision=fp32, batch_size=32), 32),
        ),
        ("int8, batch 1, 1 thread", sorted_run(LocalEmbedder(intra_op_threads=1))),
        ("int8, batch 1, spinning threads", sorted_run(LocalEmbedder(allow_spinning=True))),
        ("int8, batch 1, memory arena off", sorted_run(LocalEmbedder(memory_arena=False))),
    ]
    configs = defaults + ([] if args.quick else [(label, run, tokens) for label, run in more])
    rows = []
    for label, run, count in configs:
        walls, cpus = measure(run, args.repeats)
        best, median, cpu = min(walls), statistics.median(walls), statistics.median(cpus)
        rows.append((label, count / best, len(chunks) / best, count / median, count / cpu))
        print(
            f"{label}: {count / best:,.0f} tokens/s (best), {count / median:,.0f} (median), "
            f"{count / cpu:,.0f} per CPU-second (median)",
            flush=True,
        )

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average {load:.2f}")
    lines = [
        "# Local embedder throughput (~240-token chunks)",
        "",
        f"- models: `{probe.fingerprint}` (int8) and "
        f"`{LocalEmbedder(precision='fp32-dequant').fingerprint}` (fp32-dequant), "
        f"onnxruntime CPU, intra-op threads {probe.intra_op_threads} unless noted, "
        "inter-op 1, graph optimisation all, no spinning, memory arena on, memory "
        "patterns off (the defaults)",
        f"- input: {len(chunks)} chunks cut from BEIR SciFact at 240 tokens, {tokens:,} tokens "
        f"({tokens / len(chunks):.0f} per chunk incl. [CLS]/[SEP]; padding not counted); "
        f"e5: {e5_tokens:,} tokens (its tokenizer, `passage:` and <s>/</s> included)",
        f"- e5: `{e5.fingerprint}`",
        f"- machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"load average {load:.2f} at the end (cores shared with other work)",
        f"- best and median of {args.repeats} runs after a warm-up run; target ≥ 6,000 tokens/s",
        "- tokens per CPU-second: tokens / CPU time of all the process's threads - less "
        "affected by other load than wall time (cache contention still lowers it); × cores "
        "in use roughly estimates an idle machine",
        "",
        "| configuration | tokens/s (best) | chunks/s (best) | tokens/s (median) "
        "| tokens per CPU-s (median) |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for label, tps, cps, tps_median, per_cpu in rows:
        lines.append(f"| {label} | {tps:,.0f} | {cps:.1f} | {tps_median:,.0f} | {per_cpu:,.0f} |")
    lines.append("")
    (OUT / "embedder_throughput.md").write_text("\n".join(lines), encoding="utf-8")
    summary = {
        "chunks": len(chunks),
        "tokens": tokens,
        "e5_tokens": e5_tokens,
        "load_average_end": load,
        "rows": [
            {
                "configuration": label,
                "tokens_per_s_best": tps,
                "tokens_per_s_median": tps_median,
                "tokens_per_cpu_s": per_cpu,
            }
            for label, tps, _, tps_median, per_cpu in rows
        ],
    }
    (OUT / "embedder_throughput.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    print("\n".join(lines))


def e5_q4_model() -> Any:
    """The 4-bit e5 model (``MatMulNBits``), as the embedder would pick it on a CPU
    whose int8 kernels are not exact."""
    from agentmaker.models import local_embedder
    from agentmaker.models.e5_model import derived_e5
    from agentmaker.models.local_model import default_cache_dir

    derived = derived_e5(default_cache_dir(), "q4")
    return local_embedder._Model(derived.name, derived.sha256, path=derived.path, data=derived.data)


if __name__ == "__main__":
    main()
