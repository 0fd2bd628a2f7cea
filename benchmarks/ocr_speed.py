"""OCR speed and accuracy by resolution, and text-extraction speed of pypdf vs pypdfium2.

Text extraction: every page of every PDF in corpus/good, once with pypdf
(``page.extract_text()``) and once with pypdfium2 (``textpage.get_text_range()``).

OCR: scanned pages of the corpus rendered with pypdfium2 at several DPIs and read
with ``agentmaker.ocr.OcrEngine`` (RapidOCR, PP-OCRv6 small models from the wheel),
networking disabled for the whole run. Accuracy is word recall against the page's
existing OCR text layer (Seige_of_Vicksburg_Sample_OCR.pdf, indirect-rotation.pdf;
that layer is itself OCR, so 100% is not reachable) and, for loremipsum-flat.pdf
(no text layer), against the 200-dpi reading. One extra run with RapidOCR's text-line
orientation classifier on shows why it is off.

    .venv/bin/python benchmarks/ocr_speed.py [--dpis 100,150,200] [--quick]

Writes ``benchmarks/out/ocr_speed.md``. Wall times depend on what else runs on the
machine: the report gives the load average and the CPU seconds as well.
"""

from __future__ import annotations

import argparse
import collections
import importlib.metadata
import os
import platform
import re
import socket
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
CORPUS = Path(os.environ.get("AGENTMAKER_SHARED", "/work/shared")) / "corpus"

# (file, pages, reference): "layer" = the page's OCR text layer is a fair reference;
# "split" = it has a layer that splits words ("Nort h Buon a Vist a"), shown but not
# averaged; "self" = no layer, compared with the highest-DPI reading.
OCR_PAGES: list[tuple[str, list[int], str]] = [
    ("bad/loremipsum-flat.pdf", [1], "self"),
    ("good/Seige_of_Vicksburg_Sample_OCR.pdf", [1, 2, 3, 4, 5, 6], "layer"),
    ("good/indirect-rotation.pdf", [1, 2, 3], "split"),
]
QUICK_PAGES: list[tuple[str, list[int], str]] = [
    ("bad/loremipsum-flat.pdf", [1], "self"),
    ("good/Seige_of_Vicksburg_Sample_OCR.pdf", [4], "layer"),
]
_WORDS = re.compile(r"[a-z]{3,}")


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def _no_network() -> None:
    def refuse(*args: Any, **kwargs: Any) -> None:
        raise OSError("networking is disabled in this benchmark")

    socket.socket.connect = refuse  # type: ignore[method-assign]
    socket.create_connection = refuse  # type: ignore[assignment]


def words(text: str) -> collections.Counter[str]:
    return collections.Counter(_WORDS.findall(text.lower()))


def recall(reference: str, found: str) -> float:
    ref = words(reference)
    if not ref:
        return float("nan")
    hit = words(found) & ref
    return sum(hit.values()) / sum(ref.values())


# --- text extraction ------------------------------------------------------------


def extraction_speed() -> list[dict[str, Any]]:
    import pypdf
    import pypdfium2

    logging_quiet()
    rows = []
    for path in sorted((CORPUS / "good").glob("*.pdf")):
        row: dict[str, Any] = {"file": path.name}
        wall, cpu = time.perf_counter(), time.process_time()
        reader = pypdf.PdfReader(str(path))
        chars = sum(len(p.extract_text() or "") for p in reader.pages)
        row["pages"] = len(reader.pages)
        row["pypdf"] = (time.perf_counter() - wall, time.process_time() - cpu, chars)
        wall, cpu = time.perf_counter(), time.process_time()
        pdf = pypdfium2.PdfDocument(str(path))
        chars = 0
        for index in range(len(pdf)):
            page = pdf[index]
            textpage = page.get_textpage()
            chars += len(textpage.get_text_range())
            textpage.close()
            page.close()
        pdf.close()
        row["pdfium"] = (time.perf_counter() - wall, time.process_time() - cpu, chars)
        rows.append(row)
        log(f"extract {path.name}: pypdf {row['pypdf'][0]:.2f}s pdfium {row['pdfium'][0]:.2f}s")
    return rows


def logging_quiet() -> None:
    import logging

    logging.getLogger("pypdf").setLevel(logging.ERROR)


# --- OCR --------------------------------------------------------------------------


def reference_text(pdf: Any, number: int) -> str:
    page = pdf[number - 1]
    textpage = page.get_textpage()
    try:
        return str(textpage.get_text_range())
    finally:
        textpage.close()
        page.close()


def ocr_runs(
    dpis: list[int], pages: list[tuple[str, list[int], str]]
) -> tuple[list[dict[str, Any]], float]:
    import pypdfium2
    from agentmaker.ocr.engine import OcrEngine
    from agentmaker.ocr.render import render_pdf_page

    engine = OcrEngine()
    started = time.perf_counter()
    engine.load()
    load_seconds = time.perf_counter() - started
    rows = []
    for name, numbers, kind in pages:
        pdf = pypdfium2.PdfDocument(str(CORPUS / name))
        for number in numbers:
            reference = reference_text(pdf, number) if kind != "self" else None
            readings: dict[int, str] = {}
            for dpi in sorted(dpis, reverse=True):
                wall = time.perf_counter()
                image = render_pdf_page(pdf, number, dpi)
                render = time.perf_counter() - wall
                cpu = time.process_time()
                page = engine.read_image(image)
                cpu = time.process_time() - cpu
                readings[dpi] = page.text
                rows.append(
                    {
                        "file": Path(name).name,
                        "page": number,
                        "dpi": dpi,
                        "pixels": f"{image.shape[1]}x{image.shape[0]}",
                        "render": render,
                        "ocr": page.seconds,
                        "cpu": cpu,
                        "lines": len(page.lines),
                        "dropped": page.dropped,
                        "confidence": page.mean_confidence,
                        "text": page.text,
                        "reference": reference,
                        "kind": kind,
                    }
                )
                log(f"ocr {name} p{number} @{dpi}: {page.seconds:.1f}s, {len(page.lines)} lines")
            if reference is None:  # no text layer: the highest DPI is the reference
                best = readings[max(readings)]
                for row in rows:
                    if row["file"] == Path(name).name and row["page"] == number:
                        row["reference"] = best
        pdf.close()
    return rows, load_seconds


def turned_runs(dpi: int) -> list[dict[str, Any]]:
    """A page scanned sideways or upside down (Vicksburg page 4, turned here)."""
    import numpy as np
    import pypdfium2
    from agentmaker.ocr.engine import OcrEngine
    from agentmaker.ocr.render import render_pdf_page

    engine = OcrEngine()
    pdf = pypdfium2.PdfDocument(str(CORPUS / "good/Seige_of_Vicksburg_Sample_OCR.pdf"))
    image = render_pdf_page(pdf, 4, dpi)
    reference = reference_text(pdf, 4)
    pdf.close()
    rows = []
    for quarter_turns in (0, 1, 2, 3):
        turned = np.ascontiguousarray(np.rot90(image, quarter_turns))
        page = engine.read_image(turned)
        rows.append(
            {
                "turned": quarter_turns * 90,
                "seconds": page.seconds,
                "rotation": page.rotation,
                "lines": len(page.lines),
                "dropped": page.dropped,
                "recall": recall(reference, page.text),
            }
        )
        log(f"turned {quarter_turns * 90}: {page.seconds:.1f}s")
    return rows


def classifier_run(dpi: int) -> list[dict[str, Any]]:
    """The same page with RapidOCR's line-orientation classifier on (its default)."""
    import numpy as np
    import pypdfium2
    from agentmaker.ocr.engine import _MODEL_FILES, model_dir
    from agentmaker.ocr.render import render_pdf_page
    from rapidocr import RapidOCR

    folder = model_dir()
    rows = []
    for use_cls in (False, True):
        ocr = RapidOCR(
            params={
                "Global.log_level": "error",
                "Global.use_cls": use_cls,
                "Global.text_score": 0.0,
                "Det.model_path": str(folder / _MODEL_FILES["Det"]),
                "Cls.model_path": str(folder / _MODEL_FILES["Cls"]),
                "Rec.model_path": str(folder / _MODEL_FILES["Rec"]),
            }
        )
        pdf = pypdfium2.PdfDocument(str(CORPUS / "bad/loremipsum-flat.pdf"))
        image = render_pdf_page(pdf, 1, dpi)
        pdf.close()
        wall = time.perf_counter()
        result = ocr(image)
        seconds = time.perf_counter() - wall
        scores = np.asarray(result.scores or [0.0])
        rows.append(
            {
                "cls": use_cls,
                "seconds": seconds,
                "lines": len(result.txts or ()),
                "below_0.8": int((scores < 0.8).sum()),
                "min": float(scores.min()),
            }
        )
        log(f"classifier {use_cls}: {seconds:.1f}s")
    return rows


# --- report ---------------------------------------------------------------------


def version(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "-"


def report(
    extraction: list[dict[str, Any]],
    ocr: list[dict[str, Any]],
    load_seconds: float,
    classifier: list[dict[str, Any]],
    turned: list[dict[str, Any]],
    loads: tuple[tuple[float, ...], tuple[float, ...]],
    seconds: float,
) -> str:
    lines = [
        "# OCR and PDF text extraction speed",
        "",
        "Produced by `.venv/bin/python benchmarks/ocr_speed.py` "
        f"on {time.strftime('%Y-%m-%d %H:%M')} in {seconds:.0f} s.",
        "",
        f"- machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; load average at start {loads[0][0]:.1f}, "
        f"at end {loads[1][0]:.1f} (other work on the machine slows wall times)",
        f"- rapidocr {version('rapidocr')}, onnxruntime {version('onnxruntime')}, "
        f"pypdfium2 {version('pypdfium2')}, pypdf {version('pypdf')}",
        "- networking disabled (socket.connect raises) for the whole run",
        "",
        "## Text extraction: pypdf vs pypdfium2 (every page of corpus/good/*.pdf)",
        "",
        "| file | pages | pypdf s | pypdf pages/s | pdfium s | pdfium pages/s "
        "| chars pypdf / pdfium |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    totals = {"pypdf": [0.0, 0.0], "pdfium": [0.0, 0.0]}
    pages_total = 0
    for row in extraction:
        pages_total += row["pages"]
        cells = []
        for lib in ("pypdf", "pdfium"):
            wall, cpu, _ = row[lib]
            totals[lib][0] += wall
            totals[lib][1] += cpu
            cells.append(f"{wall:.2f} | {row['pages'] / wall:.0f}" if wall else "0 | -")
        lines.append(
            f"| {row['file']} | {row['pages']} | {cells[0]} | {cells[1]} | "
            f"{row['pypdf'][2]:,} / {row['pdfium'][2]:,} |"
        )
    lines.append(
        f"| **all** | {pages_total} | {totals['pypdf'][0]:.2f} | "
        f"{pages_total / totals['pypdf'][0]:.0f} | {totals['pdfium'][0]:.2f} | "
        f"{pages_total / totals['pdfium'][0]:.0f} | |"
    )
    lines += [
        "",
        f"CPU seconds: pypdf {totals['pypdf'][1]:.2f}, pypdfium2 {totals['pdfium'][1]:.2f} "
        f"({totals['pypdf'][1] / max(totals['pdfium'][1], 1e-9):.0f}x).",
        "",
        "## OCR by resolution",
        "",
        f"Model load (first page only): {load_seconds:.2f} s. "
        "`ocr s` is wall time of `OcrEngine.read_image`; `cpu s` counts both cores.",
        "",
        "| file | page | dpi | pixels | render s | ocr s | cpu s | lines | dropped "
        "| confidence | word recall |",
        "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in ocr:
        rec = recall(row["reference"], row["text"])
        mark = {"self": "*", "split": "†"}.get(row["kind"], "")
        lines.append(
            f"| {row['file']} | {row['page']} | {row['dpi']} | {row['pixels']} | "
            f"{row['render']:.2f} | {row['ocr']:.2f} | {row['cpu']:.2f} | {row['lines']} | "
            f"{row['dropped']} | {row['confidence']:.3f} | {rec:.1%}{mark} |"
        )
    lines += ["", "Summary per DPI (all pages above):", ""]
    lines += ["| dpi | pages | s/page (wall) | pages/s | cpu s/page | word recall (layer pages) |"]
    lines += ["| ---: | ---: | ---: | ---: | ---: | ---: |"]
    for dpi in sorted({r["dpi"] for r in ocr}):
        rows = [r for r in ocr if r["dpi"] == dpi]
        wall = sum(r["ocr"] + r["render"] for r in rows) / len(rows)
        cpu = sum(r["cpu"] for r in rows) / len(rows)
        recalls = [recall(r["reference"], r["text"]) for r in rows if r["kind"] == "layer"]
        mean = sum(recalls) / len(recalls) if recalls else float("nan")
        lines.append(
            f"| {dpi} | {len(rows)} | {wall:.2f} | {1 / wall:.2f} | {cpu:.2f} | {mean:.1%} |"
        )
    lines += [
        "",
        "Word recall: share of the reference's words (3+ letters, with repeats) found in "
        "the OCR text. References are the PDFs' own OCR layers, noisy themselves; `*` "
        "marks a page without a layer, compared with its highest-DPI reading; `†` a "
        'layer that splits words (indirect-rotation.pdf: "Nort h Buon a Vist a", where '
        'OCR here reads "North Buona Vista"), so its low recall is the layer\'s fault. '
        "Only clean-layer pages enter the summary's recall.",
        "",
        "## Text-line orientation classifier (loremipsum-flat.pdf, 150 dpi)",
        "",
        "| classifier | s | lines | lines below 0.8 | lowest confidence |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    for row in classifier:
        lines.append(
            f"| {'on' if row['cls'] else 'off'} | {row['seconds']:.2f} | {row['lines']} | "
            f"{row['below_0.8']} | {row['min']:.3f} |"
        )
    lines += [
        "",
        "With the classifier on, some upright lines are judged upside down and read "
        "rotated, which turns them into garbage (confidence about 0.6); `OcrEngine` "
        "keeps it off.",
        "",
        "## Pages scanned turned (Seige_of_Vicksburg page 4 turned counter-clockwise, 150 dpi)",
        "",
        "| turned | s | read turned by | lines | dropped | word recall |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in turned:
        lines.append(
            f"| {row['turned']}° | {row['seconds']:.2f} | {row['rotation']}° | {row['lines']} | "
            f"{row['dropped']} | {row['recall']:.1%} |"
        )
    lines += [
        "",
        "A page that reads badly (length-weighted confidence under 0.85) is read again "
        "turned by 180°; RapidOCR turns tall text lines by itself, so that covers all four "
        "orientations at twice the cost for those pages.",
        "",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dpis", default="100,150,200")
    parser.add_argument("--quick", action="store_true", help="two pages only")
    parser.add_argument("--out", type=Path, default=OUT / "ocr_speed.md")
    args = parser.parse_args()
    _no_network()
    started = time.perf_counter()
    load_start = os.getloadavg()
    extraction = extraction_speed()
    dpis = [int(d) for d in args.dpis.split(",")]
    ocr, load_seconds = ocr_runs(dpis, QUICK_PAGES if args.quick else OCR_PAGES)
    classifier = classifier_run(150)
    turned = turned_runs(150)
    text = report(
        extraction,
        ocr,
        load_seconds,
        classifier,
        turned,
        (load_start, os.getloadavg()),
        time.perf_counter() - started,
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    main()
