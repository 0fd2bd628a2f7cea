"""OCR of scanned pages: engine, rendering, the persistent queue and the background worker.

The real engine reads real scans from the shared corpus (a few pages only: OCR costs
seconds per page). Worker bookkeeping (resume, splicing, failures) runs with a stub
engine over real rendering, so it is exact and fast.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import socket
from pathlib import Path

import numpy as np
import pytest
from agentmaker.library import Library
from agentmaker.ocr import OcrEngine, OcrLine, OcrPage, OcrQueue, OcrWorker
from agentmaker.ocr.documents import splice_ocr_pages
from agentmaker.ocr.engine import build_page
from agentmaker.ocr.render import page_count, render_pages
from agentmaker.rag.documents import Document
from agentmaker.rag.ingest.batch import CancelToken
from agentmaker.rag.ingest.pipeline import doc_id_for_path
from agentmaker.testing import FakeEmbedder

from tests.paths import CORPUS as SHARED_CORPUS

CORPUS = SHARED_CORPUS
if not CORPUS.is_dir():
    CORPUS = Path("/work/shared/corpus")
FLAT = CORPUS / "bad" / "loremipsum-flat.pdf"
VICKSBURG = CORPUS / "good" / "Seige_of_Vicksburg_Sample_OCR.pdf"
HABIBI = CORPUS / "good" / "habibi-rotated.pdf"
TEXT_PAGE = CORPUS / "good" / "with-attachment.pdf"

pytestmark = pytest.mark.skipif(not FLAT.is_file(), reason="shared corpus not available")


class NetworkUsed(AssertionError):
    pass


def _no_network(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    attempts: list[object] = []

    def refuse(self: object, address: object, *args: object) -> None:
        attempts.append(address)
        raise NetworkUsed(f"network access attempted: {address!r}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket.socket, "connect_ex", refuse)
    return attempts


@pytest.fixture(scope="module")
def engine() -> OcrEngine:
    """One real engine for the module, its models loaded with networking disabled."""
    engine = OcrEngine()
    with pytest.MonkeyPatch.context() as patch:
        attempts = _no_network(patch)
        engine.load()
    assert attempts == []
    return engine


@pytest.fixture
def library(tmp_path: Path):
    lib = Library.open(tmp_path / "library.db", embedder=FakeEmbedder())
    yield lib
    lib.close()


class StubEngine(OcrEngine):
    """Returns one confident line per image ("scanned words <n>"); counts its calls."""

    def __init__(self, *, cancel_after: int | None = None, token: CancelToken | None = None):
        super().__init__()
        self.cancel_after = cancel_after
        self.token = token
        self.sizes: list[tuple[int, ...]] = []

    def read_image(self, image: np.ndarray) -> OcrPage:
        self.calls += 1
        self.sizes.append(image.shape)
        if self.token is not None and self.calls == self.cancel_after:
            self.token.cancel()
        text = f"scanned words {self.calls}"
        line = OcrLine(text, 0.97, (10.0, 10.0, 300.0, 40.0))
        return OcrPage([line], text, 0.97)


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]+", text.lower()))


# --- the real engine on real scans --------------------------------------------------


def test_image_only_pdf_is_queued_read_offline_and_found(library, engine, monkeypatch):
    queue = OcrQueue(library.db)
    library.pipeline.ocr = queue
    report = library.pipeline.ingest_paths([FLAT])
    assert [f.status for f in report.files] == ["ocr_queued"]
    assert [j.path for j in queue.pending()] == [str(FLAT)]

    attempts = _no_network(monkeypatch)
    seen = []
    calls_before = engine.calls
    result = OcrWorker(queue, library.pipeline, engine).run_pending(progress=seen.append)
    assert attempts == []
    assert engine.calls - calls_before == 1
    assert [j.status for j in result.jobs] == ["indexed"]
    assert [(p.page, p.pages_done, p.pages_total, p.status) for p in seen] == [
        (0, 0, 1, "started"),
        (1, 1, 1, "page_read"),
        (0, 1, 1, "indexing"),
        (0, 1, 1, "indexed"),
    ]
    hits = library.rag.retrieve("lorem ipsum dolor", top_k=3)
    top = hits[0]
    assert top.metadata["doc_id"] == doc_id_for_path(FLAT)
    assert top.metadata["page"] == 1
    assert top.metadata["ocr"] is True
    assert "lorem ipsum dolor sit amet" in top.content.lower()
    assert queue.job(doc_id_for_path(FLAT)).status == "done"


def test_ocr_agrees_with_the_existing_ocr_layer(engine):
    import pypdfium2

    pdf = pypdfium2.PdfDocument(str(VICKSBURG))
    try:
        textpage = pdf[3].get_textpage()
        layer = textpage.get_text_range()
        textpage.close()
    finally:
        pdf.close()
    assert "ten yoke of oxen" in layer
    [(number, image)] = list(render_pages(VICKSBURG, [4]))
    page = engine.read_image(image)
    assert number == 4 and page.readable
    sentence = _words("which it took ten yoke of oxen to haul, one at a time, to their places")
    found = _words(page.text)
    assert len(sentence & found) >= 0.8 * len(sentence)
    assert "ten yoke of oxen" in page.text
    reference = _words(layer)
    assert len(reference & found) >= 0.85 * len(reference)
    assert page.mean_confidence > 0.9
    assert all(line.confidence >= engine.min_line_confidence for line in page.lines)


def test_random_noise_image_yields_nothing_and_is_reported(library, engine, tmp_path):
    from PIL import Image

    rng = np.random.default_rng(7)
    blocks = rng.integers(0, 256, (30, 40), dtype=np.uint8)
    noise = np.kron(blocks, np.ones((12, 12), dtype=np.uint8))
    path = tmp_path / "noise.png"
    Image.fromarray(noise).save(path)

    queue = OcrQueue(library.db)
    library.pipeline.ocr = queue
    assert [f.status for f in library.pipeline.ingest_paths([path]).files] == ["ocr_queued"]
    result = OcrWorker(queue, library.pipeline, engine).run_pending()
    [outcome] = result.jobs
    assert outcome.status == "unreadable"
    assert "no readable text" in outcome.error
    doc_id = doc_id_for_path(path)
    assert not library.source_store.chunk_ids_of(doc_id)
    job = queue.job(doc_id)
    assert job.status == "unreadable" and "no readable text" in job.reason
    assert queue.page_results(doc_id)[1].status == "unreadable"


def test_models_come_from_the_wheel_and_downloads_are_refused(engine, tmp_path):
    import logging

    from agentmaker.ocr import OcrUnavailableError
    from rapidocr.utils.download_file import DownloadFile, DownloadFileInput

    log = logging.getLogger("test")
    request = DownloadFileInput("https://example.invalid/m.onnx", tmp_path / "m.onnx", log)
    with pytest.raises(OcrUnavailableError, match="never downloads"):
        DownloadFile.run(request)
    assert not (tmp_path / "m.onnx").exists()
    with pytest.raises(OcrUnavailableError, match="missing"):
        OcrEngine(models=tmp_path).read_image(np.zeros((8, 8, 3), dtype=np.uint8))


def test_rotated_pages_are_rendered_upright():
    shapes = [image.shape for _, image in render_pages(HABIBI, [1, 2, 4], dpi=72)]
    # /Rotate 90 gives a landscape bitmap of the portrait A4 page; 180 and 360 portrait.
    assert shapes[0][1] > shapes[0][0]
    assert shapes[1][0] > shapes[1][1] and shapes[2][0] > shapes[2][1]


# --- the worker (stub engine, real rendering, real library) -----------------------------


def test_cancelled_job_resumes_without_reading_finished_pages(tmp_path):
    scan = tmp_path / "vicksburg-scan.pdf"
    shutil.copy(VICKSBURG, scan)
    doc_id = doc_id_for_path(scan)

    with Library.open(tmp_path / "library.db", embedder=FakeEmbedder()) as library:
        queue = OcrQueue(library.db)
        queue.schedule(scan, doc_id, None)  # read every page, as for a scan
        token = CancelToken()
        first = StubEngine(cancel_after=1, token=token)
        report = OcrWorker(queue, library.pipeline, first).run_pending(cancel=token)
        assert report.cancelled and [j.status for j in report.jobs] == ["cancelled"]
        assert first.calls == 1
        assert queue.job(doc_id).status == "pending"
        assert list(queue.page_results(doc_id)) == [1]
        assert library.source_store.get_document(doc_id) is None

    with Library.open(tmp_path / "library.db", embedder=FakeEmbedder()) as library:
        queue = OcrQueue(library.db)
        second = StubEngine()
        seen = []
        report = OcrWorker(queue, library.pipeline, second).run_pending(progress=seen.append)
        assert second.calls == 5  # pages 2-6 only
        [outcome] = report.jobs
        assert (outcome.status, outcome.pages_read, outcome.pages_reused) == ("indexed", 5, 1)
        assert [p.pages_done for p in seen if p.status == "page_read"] == [2, 3, 4, 5, 6]
        assert {p.pages_total for p in seen} == {6}
        assert queue.job(doc_id).status == "done"
        chunks = library.source_store.chunks_of(doc_id)
        assert sorted({c.metadata["page"] for c in chunks}) == [1, 2, 3, 4, 5, 6]
        assert all(c.metadata.get("ocr") is True for c in chunks)
        text = library.source_store.document_text(doc_id)
        assert text.startswith("scanned words 1\n\n")  # page 1 from the first run

        # A later run has nothing to do; scheduling the unchanged file again reuses pages.
        assert OcrWorker(queue, library.pipeline, second).run_pending().jobs == []
        queue.schedule(scan, doc_id, None)
        again = OcrWorker(queue, library.pipeline, second).run_pending()
        assert [j.status for j in again.jobs] == ["unchanged"] and second.calls == 5


def test_partly_scanned_pdf_gets_ocr_text_spliced_into_its_page(library, tmp_path):
    import pypdfium2

    mixed = tmp_path / "mixed.pdf"
    out = pypdfium2.PdfDocument.new()
    text_pdf, scan_pdf = pypdfium2.PdfDocument(str(TEXT_PAGE)), pypdfium2.PdfDocument(str(FLAT))
    out.import_pages(text_pdf, [0])
    out.import_pages(scan_pdf, [0])
    out.import_pages(text_pdf, [0])
    out.save(str(mixed))
    for pdf in (out, text_pdf, scan_pdf):
        pdf.close()

    queue = OcrQueue(library.db)
    library.pipeline.ocr = queue
    report = library.pipeline.ingest_paths([mixed])
    assert [f.status for f in report.files] == ["indexed"]  # text pages: searchable now
    doc_id = doc_id_for_path(mixed)
    assert queue.job(doc_id).pages == [2]

    stub = StubEngine()
    result = OcrWorker(queue, library.pipeline, stub).run_pending()
    assert [j.status for j in result.jobs] == ["indexed"] and stub.calls == 1
    text = library.source_store.document_text(doc_id)
    info = library.source_store.get_document(doc_id)
    spans = info.metadata["page_spans"]
    assert [s[2] for s in spans] == [1, 2, 3]
    assert text[spans[1][0] : spans[1][1]] == "scanned words 1"
    assert text[spans[0][0] : spans[0][1]] == text[spans[2][0] : spans[2][1]]
    assert info.metadata["ocr_pages"] == [2]
    assert info.metadata["pages_without_text"] == []
    by_page = {}
    for chunk in library.source_store.chunks_of(doc_id):
        by_page.setdefault(chunk.metadata["page"], set()).add(chunk.metadata.get("ocr"))
    assert by_page == {1: {None}, 2: {True}, 3: {None}}
    hits = library.rag.retrieve("scanned words", top_k=1)
    assert hits[0].metadata["page"] == 2 and hits[0].metadata["ocr"] is True

    # Re-ingesting the unchanged file keeps the OCR'd version and embeds nothing.
    embedded = library.embedder.texts_embedded
    again = library.pipeline.ingest_paths([mixed])
    assert [f.status for f in again.files] == ["unchanged"]
    assert library.embedder.texts_embedded == embedded
    assert library.source_store.get_document(doc_id).metadata["ocr_pages"] == [2]


def test_vanished_file_fails_with_a_reason(library, tmp_path):
    scan = tmp_path / "gone.pdf"
    shutil.copy(FLAT, scan)
    queue = OcrQueue(library.db)
    queue.schedule(scan, doc_id_for_path(scan), None)
    scan.unlink()
    [outcome] = OcrWorker(queue, library.pipeline, StubEngine()).run_pending().jobs
    assert outcome.status == "failed"
    assert "gone.pdf" in outcome.error and "no longer exists" in outcome.error
    job = queue.job(doc_id_for_path(scan))
    assert job.status == "failed" and "no longer exists" in job.reason


def test_turned_off_reads_nothing_but_remembers_scans(library, tmp_path):
    folder = tmp_path / "documents"
    folder.mkdir()
    shutil.copy(FLAT, folder / "scan.pdf")
    (folder / "picture.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    queue = OcrQueue(library.db, enabled=False)
    library.pipeline.ocr = queue
    assert queue.extensions == frozenset()
    report = library.pipeline.ingest_paths([folder])
    assert report.skipped_unsupported == 1  # the picture is not picked up
    assert [f.status for f in report.files] == ["ocr_queued"]
    stub = StubEngine()
    assert OcrWorker(queue, library.pipeline, stub).run_pending().disabled
    assert stub.calls == 0 and len(queue.pending()) == 1
    queue.enabled = True
    assert ".png" in queue.extensions
    result = asyncio.run(OcrWorker(queue, library.pipeline, stub).arun_pending())
    assert [j.status for j in result.jobs] == ["indexed"] and stub.calls == 1


def test_a_changed_file_is_read_again(library, tmp_path):
    scan = tmp_path / "scan.pdf"
    shutil.copy(FLAT, scan)
    doc_id = doc_id_for_path(scan)
    queue = OcrQueue(library.db)
    queue.schedule(scan, doc_id, None)
    stub = StubEngine()
    OcrWorker(queue, library.pipeline, stub).run_pending()
    assert stub.calls == 1
    shutil.copy(VICKSBURG, scan)  # replaced by another scan (size and mtime change)
    queue.schedule(scan, doc_id, None)
    [outcome] = OcrWorker(queue, library.pipeline, stub).run_pending().jobs
    assert outcome.status == "indexed" and outcome.pages_read == 6 and stub.calls == 7
    assert len(library.source_store.get_document(doc_id).metadata["page_spans"]) == 6


# --- pieces --------------------------------------------------------------------------


def test_lines_are_ordered_filtered_and_joined():
    def line(text, confidence, left, top, right=None):
        return OcrLine(text, confidence, (left, top, right or left + 100, top + 20))

    raw = [
        line("second row right", 0.95, 300, 35),
        line("garbage", 0.30, 10, 120),
        line("first row", 0.99, 10, 10),
        line("second row left exam-", 0.9, 10, 33),
        line("ple continues", 0.92, 10, 58),
        line("new paragraph", 0.97, 10, 110),
    ]
    page = build_page(raw)
    assert page.dropped == 1
    assert page.text == (
        "first row\nsecond row left exam- second row right\nple continues\n\nnew paragraph"
    )
    assert [ln.text for ln in page.lines][:3] == [
        "first row",
        "second row left exam-",
        "second row right",
    ]
    hyphen = build_page([line("an exam-", 0.9, 10, 10), line("ple here", 0.9, 10, 33)])
    assert hyphen.text == "an example here"
    assert not build_page([line("noise", 0.2, 0, 0)]).readable


def test_garbage_pages_are_dropped_whole_and_sideways_text_is_ordered():
    def line(text, confidence, box):
        return OcrLine(text, confidence, box)

    garbage = [line("nm a s e", 0.6, (0, 0, 100, 20)), line("des", 0.85, (0, 30, 50, 50))]
    page = build_page(garbage)
    assert not page.readable and page.dropped == 2  # the 0.85 line goes with its page

    # Text running downwards: the first line is the rightmost column.
    tall = [
        line("second line", 0.95, (10, 0, 30, 200)),
        line("first line", 0.97, (40, 0, 60, 180)),
    ]
    assert build_page(tall).text == "first line\nsecond line"


class TurnedPageEngine(OcrEngine):
    """Reads garbage unless the image's marker pixel is at the bottom right."""

    def _load(self):
        return object()

    def _recognise(self, pixels):
        upright = pixels[-1, -1, 0] == 255
        confidence = 0.97 if upright else 0.55
        return [
            OcrLine(f"line {n}" if upright else "x s e", confidence, (0, 30 * n, 200, 30 * n + 20))
            for n in range(4)
        ]


def test_a_page_that_reads_badly_is_read_again_upside_down():
    image = np.zeros((40, 60, 3), dtype=np.uint8)
    image[0, 0] = 255  # upside down: the marker lands bottom right once turned by 180°
    engine = TurnedPageEngine()
    page = engine.read_image(image)
    assert page.rotation == 180
    assert page.text == "line 0\nline 1\nline 2\nline 3"
    assert engine.calls == 1


def test_splice_keeps_page_spans_consistent():
    # Page 1 and 4 without text; page 3 has only form-field text.
    content = "page two text\n\nfield: value"
    spans = [[0, 0, 1, "i"], [0, 13, 2, "ii"], [15, 27, 3, "1"], [27, 27, 4, "2"]]
    base = Document(
        content,
        doc_id="d",
        format="pdf",
        metadata={"page_spans": spans, "pages_without_text": [1, 3, 4]},
    )
    texts = {1: "cover words", 3: "scanned three", 4: "last page"}
    doc = splice_ocr_pages(base, texts)
    got = {s[2]: doc.content[s[0] : s[1]] for s in doc.metadata["page_spans"]}
    assert got == {
        1: "cover words",
        2: "page two text",
        3: "scanned three\n\nfield: value",
        4: "last page",
    }
    assert doc.content == (
        "cover words\n\npage two text\n\nscanned three\n\nfield: value\n\nlast page"
    )
    assert doc.metadata["pages_without_text"] == []
    assert [s[3] for s in doc.metadata["page_spans"]] == ["i", "ii", "1", "2"]


def test_multi_page_tiff_and_rgba_png(tmp_path):
    from PIL import Image

    frames = [Image.new("L", (200, 100), shade) for shade in (255, 128)]
    tiff = tmp_path / "two.tiff"
    frames[0].save(tiff, save_all=True, append_images=frames[1:])
    assert page_count(tiff) == 2
    images = dict(render_pages(tiff, [1, 2, 3]))
    assert images[1].shape == (100, 200, 3) and images[2][0, 0, 0] == 128
    assert "no page 3" in str(images[3])

    png = tmp_path / "clear.png"
    Image.new("RGBA", (50, 40), (0, 0, 0, 0)).save(png)
    [(_, image)] = list(render_pages(png, [1]))
    assert image.shape == (40, 50, 3) and int(image.min()) == 255  # transparent → white


def test_rescheduling_an_unchanged_file_keeps_its_pages(library, tmp_path):
    from agentmaker.ocr.queue import OcrPageResult

    scan = tmp_path / "scan.pdf"
    shutil.copy(FLAT, scan)
    queue = OcrQueue(library.db)
    queue.schedule(scan, "doc", None)
    queue.save_page("doc", OcrPageResult(1, "ok", "words", 0.9, 1, 0))
    queue.schedule(scan, "doc", None)
    assert list(queue.page_results("doc")) == [1]
    assert queue.job("doc").generation == 2
    scan.write_bytes(scan.read_bytes() + b"\n")
    queue.schedule(scan, "doc", None)
    assert queue.page_results("doc") == {}
    assert OcrQueue(library.db).counts() == {"pending": 1}  # migrations run once
