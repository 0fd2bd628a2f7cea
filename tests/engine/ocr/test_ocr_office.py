"""Pictures through the OCR queue: picture-only slides, multi-page TIFF, WebP, renamed files.

The slide is read by the real engine (one small picture, a few seconds); the TIFF
bookkeeping runs with a stub engine over real decoding.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from agentmaker.library import Library
from agentmaker.ocr import OcrEngine, OcrLine, OcrPage, OcrQueue, OcrWorker
from agentmaker.testing import FakeEmbedder
from PIL import Image, ImageDraw, ImageFont


class FrameEngine(OcrEngine):
    """One confident line per image: "frame words <n>"."""

    def read_image(self, image: np.ndarray) -> OcrPage:
        self.calls += 1
        text = f"frame words {self.calls}"
        return OcrPage([OcrLine(text, 0.97, (10.0, 10.0, 300.0, 40.0))], text, 0.97)


def _picture(text: str) -> Image.Image:
    image = Image.new("RGB", (900, 200), "white")
    ImageDraw.Draw(image).text((30, 60), text, fill="black", font=ImageFont.load_default(size=48))
    return image


@pytest.fixture
def library(tmp_path: Path):
    lib = Library.open(tmp_path / "library.db", embedder=FakeEmbedder())
    lib.pipeline.ocr = OcrQueue(lib.db)
    yield lib
    lib.close()


def test_picture_slide_is_read_by_ocr_and_cited_by_slide(library: Library, tmp_path: Path):
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Keys"
    slide.placeholders[1].text_frame.text = "Ask the porter for the spare set"
    picture = io.BytesIO()
    _picture("Harbour keys are in locker 42").save(picture, "PNG")
    picture.seek(0)
    slide = deck.slides.add_slide(deck.slide_layouts[6])
    slide.shapes.add_picture(picture, Inches(0.5), Inches(1), width=Inches(9))
    path = tmp_path / "keys.pptx"
    deck.save(str(path))

    report = library.pipeline.ingest_paths([path])
    assert [f.status for f in report.files] == ["indexed"]
    queue = library.pipeline.ocr
    assert queue is not None
    [job] = queue.pending()
    assert job.pages == [2]

    result = OcrWorker(queue, library.pipeline, OcrEngine()).run_pending()
    assert [j.status for j in result.jobs] == ["indexed"]
    hits = library.rag.retrieve("harbour keys locker", top_k=3)
    top = hits[0]
    assert "locker 42" in top.content
    assert top.metadata["location"] == "slide 2"
    assert top.metadata["ocr"] is True
    porter = library.rag.retrieve("porter spare set", top_k=1)[0]
    assert porter.metadata["location"] == "slide 1"
    assert porter.metadata["heading_path"] == "Keys"


def test_multipage_tiff_frames_are_pages(library: Library, tmp_path: Path):
    path = tmp_path / "scan.tiff"
    first, second = _picture("one"), _picture("two")
    first.save(path, save_all=True, append_images=[second])
    report = library.pipeline.ingest_paths([path])
    assert [f.status for f in report.files] == ["ocr_queued"]
    queue = library.pipeline.ocr
    assert queue is not None
    OcrWorker(queue, library.pipeline, FrameEngine()).run_pending()
    hits = library.rag.retrieve("frame words 2", top_k=2)
    pages = {h.content: h.metadata["page"] for h in hits}
    assert pages == {"frame words 1": 1, "frame words 2": 2}


def test_webp_is_queued_and_renamed_picture_refused(library: Library, tmp_path: Path):
    webp = tmp_path / "note.webp"
    _picture("webp").save(webp, "WEBP")
    renamed = tmp_path / "photo.jpg"
    _picture("png").save(renamed, "PNG")
    report = library.pipeline.ingest_paths([webp, renamed])
    outcome = {Path(f.path).name: f for f in report.files}
    assert outcome["note.webp"].status == "ocr_queued"
    assert outcome["photo.jpg"].status == "failed"
    assert "named .jpg but is actually a PNG image" in (outcome["photo.jpg"].error or "")
