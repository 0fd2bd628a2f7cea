"""Real passages and real questions for the scale benchmark, embedded once and cached.

Passages (~100k, a sentence or two each, ~40-60 tokens) come from real text: the SciFact
abstracts, the English texts of ``../shared/corpus/good`` and the Chinese RGB news
passages. Questions are the SciFact claims and the RGB questions. Both are embedded by the
product's two local models (all-MiniLM-L6-v2 int8 and multilingual-e5-small), and the
vectors are cached under ``benchmarks/out/scale/`` so a rerun costs nothing.

    nice -n 10 python -m benchmarks.scale_corpus            # both models
    nice -n 10 python -m benchmarks.scale_corpus --model minilm
"""

from __future__ import annotations

import argparse
import json
import re
import time
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[1].parent.parent / "shared"
OUT = Path(__file__).resolve().parent / "out" / "scale"
MODELS = ("minilm", "e5")

_SENTENCE = re.compile(r"(?<=[.!?])\s+|(?<=[。！？；])")
_CJK = re.compile(r"[\u3400-\u9fff]")


def _shared() -> Path:
    for candidate in (SHARED, Path("/work/shared")):
        if (candidate / "bench").is_dir():
            return candidate
    raise SystemExit(
        "../shared/bench is missing: the scale benchmark needs the SciFact and RGB sets."
    )


def _size(text: str) -> int:
    """A rough token count: words, or CJK characters (about one token each)."""
    cjk = len(_CJK.findall(text))
    return cjk + len(text.split()) if cjk < len(text) // 3 else cjk


def _pack(text: str, low: int = 9, high: int = 30) -> list[str]:
    """Split text into sentences and pack them into passages of ``low``..``high`` units."""
    out: list[str] = []
    current: list[str] = []
    size = 0
    for sentence in _SENTENCE.split(" ".join(text.split())):
        sentence = sentence.strip()
        if not sentence:
            continue
        n = _size(sentence)
        if current and size + n > high:
            out.append(" ".join(current))
            current, size = [], 0
        current.append(sentence)
        size += n
        if size >= low:
            out.append(" ".join(current))
            current, size = [], 0
    if current and size >= low // 2:
        out.append(" ".join(current))
    return [p[:400] for p in out]


def passages() -> list[str]:
    """The benchmark's passages, in a fixed order (cached as passages.jsonl)."""
    path = OUT / "passages.jsonl"
    if path.exists():
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    shared = _shared()
    texts: list[str] = []
    for line in (shared / "bench/scifact/corpus.jsonl").read_text(encoding="utf-8").splitlines():
        doc = json.loads(line)
        texts += _pack(f"{doc['title']}. {doc['text']}" if doc["title"] else doc["text"])
    for line in (shared / "bench/rgb-zh/corpus.jsonl").read_text(encoding="utf-8").splitlines():
        doc = json.loads(line)
        texts += _pack(doc["text"], low=20, high=50)
    for name in sorted((shared / "corpus/good").glob("*")):
        if name.suffix in (".txt", ".md"):
            texts += _pack(name.read_text(encoding="utf-8", errors="replace"))
        elif name.suffix == ".docx":  # the 872-page handbook: its paragraphs' text
            import docx

            texts += _pack(" ".join(p.text for p in docx.Document(str(name)).paragraphs))
        elif name.suffix == ".pdf":  # text layers (the 117-page maths notes, the OCR'd book)
            import pypdfium2

            try:
                pdf = pypdfium2.PdfDocument(str(name))
            except pypdfium2.PdfiumError:
                continue
            texts += _pack(" ".join(page.get_textpage().get_text_range() for page in pdf))
    seen: set[str] = set()
    unique = [t for t in texts if not (t in seen or seen.add(t))]  # type: ignore[func-returns-value]
    OUT.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(t, ensure_ascii=False) + "\n" for t in unique), "utf-8")
    return unique


def queries() -> list[str]:
    """Real questions: the 809 SciFact claims and the 150 RGB questions."""
    shared = _shared()
    out = []
    for rel in ("bench/scifact/queries.jsonl", "bench/rgb-zh/queries.jsonl"):
        for line in (shared / rel).read_text(encoding="utf-8").splitlines():
            out.append(json.loads(line)["text"])
    return out


def _embedder(model: str):  # type: ignore[no-untyped-def]
    from agentmaker.models.local_embedder import E5_SMALL, LocalEmbedder

    return LocalEmbedder(model=E5_SMALL) if model == "e5" else LocalEmbedder()


def vectors(model: str, *, log: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """(passage vectors, query vectors) of ``model``, embedding what is not cached yet.

    Passages are embedded in parts of 5,000 saved as they finish, so an interrupted run
    resumes where it stopped.
    """
    texts = passages()
    final = OUT / f"{model}_passages.npy"
    qpath = OUT / f"{model}_queries.npy"
    embedder = None
    if not qpath.exists():
        embedder = _embedder(model)
        np.save(qpath, embedder.embed_queries(queries()).astype(np.float32))
    if not final.exists():
        embedder = embedder or _embedder(model)
        part_size = 5000
        parts = []
        started = time.perf_counter()
        for start in range(0, len(texts), part_size):
            part = OUT / f"{model}_part{start // part_size:04d}.npy"
            if not part.exists():
                np.save(part, embedder.embed_batch(texts[start : start + part_size]))
                if log:
                    rate = (start + part_size) / (time.perf_counter() - started)
                    print(
                        f"{model}: {start + part_size}/{len(texts)} ({rate:.0f}/s in this run)",
                        flush=True,
                    )
            parts.append(part)
        np.save(final, np.concatenate([np.load(p) for p in parts]).astype(np.float32))
        for p in parts:
            p.unlink()
    if embedder is not None:
        embedder.close()
    return np.load(final, mmap_mode="r"), np.load(qpath)


def available(model: str) -> tuple[np.ndarray, np.ndarray]:
    """What is embedded so far, without embedding more: all passages when the cache is
    complete, else the parts saved by an unfinished run (the first passages, in order)."""
    final = OUT / f"{model}_passages.npy"
    if final.exists():
        return np.load(final, mmap_mode="r"), np.load(OUT / f"{model}_queries.npy")
    parts = sorted(OUT.glob(f"{model}_part*.npy"))
    return np.concatenate([np.load(p) for p in parts]), np.load(OUT / f"{model}_queries.npy")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", choices=(*MODELS, "all"), default="all")
    parser.add_argument("--count", action="store_true", help="only count the passages")
    args = parser.parse_args()
    texts = passages()
    sizes = [_size(t) for t in texts]
    print(f"{len(texts)} passages, mean {np.mean(sizes):.1f} units, {len(queries())} queries")
    if args.count:
        return
    for model in MODELS if args.model == "all" else (args.model,):
        p, q = vectors(model)
        print(model, p.shape, q.shape)


if __name__ == "__main__":
    main()
