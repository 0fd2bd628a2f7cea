"""Page images for OCR: PDF pages rendered with PDFium, image files decoded with Pillow.

PDF pages are rendered whole (never their embedded images extracted): PDFium decodes
every image codec a scan uses (JBIG2, CCITT, JPEG 2000), applies ``/Rotate`` and draws
a page exactly as a viewer shows it. Each call opens the file afresh, so a job that
stops half-way holds no handle and a restart needs nothing but the path.

Images come back as BGR ``uint8`` arrays, the layout OCR reads without conversion.
"""

from __future__ import annotations

import os
from collections.abc import Generator
from pathlib import Path
from typing import Any

import numpy as np

from agentmaker.errors import CorruptDocumentError, DocumentError, PasswordRequiredError

#: On the corpus scans 100, 150 and 200 dpi found the same words; 150 dpi cost ~15% more
#: CPU than 100 and ~20% less than 200 (benchmarks/out/ocr_speed.md). The margin over
#: 100 dpi is kept for small print, which those scans lack.
DEFAULT_DPI = 150
#: Longest side of a rendered page in pixels: a poster-sized page is rendered at a
#: lower resolution instead of exhausting memory.
MAX_SIDE = 4096

IMAGE_EXTENSIONS = frozenset({".png", ".jpg", ".jpeg", ".tif", ".tiff", ".webp"})
#: Presentations: OCR reads the largest picture of each picture-only slide.
SLIDE_EXTENSIONS = frozenset({".pptx"})


def is_image(path: Path) -> bool:
    """True for the image types OCR reads (by extension)."""
    return path.suffix.lower() in IMAGE_EXTENSIONS


def _open_pdf(path: Path) -> Any:
    import pypdfium2

    try:
        return pypdfium2.PdfDocument(str(path))
    except FileNotFoundError:
        raise
    except Exception as exc:
        message = str(exc)
        if "password" in message.lower():
            raise PasswordRequiredError(
                "is password-protected; scanned pages of encrypted PDFs cannot be read by OCR yet.",
                path,
            ) from None
        raise CorruptDocumentError(f"cannot be opened for OCR ({message}).", path) from None


def _open_image(path: Path) -> Any:
    from PIL import Image, UnidentifiedImageError

    try:
        return Image.open(path)
    except FileNotFoundError:
        raise
    except (UnidentifiedImageError, OSError, Image.DecompressionBombError) as exc:
        raise CorruptDocumentError(f"is not an image that can be read ({exc}).", path) from None


def _is_slides(path: Path) -> bool:
    return path.suffix.lower() in SLIDE_EXTENSIONS


def _open_slides(path: Path) -> Any:
    from agentmaker.rag.readers.pptx import open_presentation

    return open_presentation(path)


def page_count(path: Path) -> int:
    """Number of pages of a PDF, frames of an image (multi-page TIFF), slides of a deck."""
    if _is_slides(path):
        return len(_open_slides(path).slides)
    if is_image(path):
        with _open_image(path) as image:
            return int(getattr(image, "n_frames", 1) or 1)
    pdf = _open_pdf(path)
    try:
        return len(pdf)
    finally:
        pdf.close()


def page_labels(path: Path) -> dict[int, str]:
    """Printed page labels of a PDF by page number (1-based); numbers for images."""
    if is_image(path) or _is_slides(path):
        return {n: str(n) for n in range(1, page_count(path) + 1)}
    pdf = _open_pdf(path)
    try:
        labels = {}
        for index in range(len(pdf)):
            try:
                labels[index + 1] = str(pdf.get_page_label(index) or index + 1)
            except Exception:  # a broken /PageLabels tree: physical numbers
                labels[index + 1] = str(index + 1)
        return labels
    finally:
        pdf.close()


def render_pdf_page(pdf: Any, number: int, dpi: int = DEFAULT_DPI) -> np.ndarray:
    """Render page ``number`` (1-based) of an open ``pypdfium2.PdfDocument`` to BGR.

    ``/Rotate`` is applied by PDFium (a page rotated 90° comes out landscape). The
    resolution is lowered when the longer side would exceed ``MAX_SIDE`` pixels.
    """
    page = pdf[number - 1]
    try:
        width, height = page.get_size()  # points, after /Rotate
        scale = min(dpi / 72.0, MAX_SIDE / max(width, height, 1.0))
        bitmap = page.render(scale=scale, draw_annots=True)
        try:
            pixels = np.array(bitmap.to_numpy(), copy=True)
        finally:
            bitmap.close()
    finally:
        page.close()
    return _bgr(pixels)


def _bgr(pixels: np.ndarray) -> np.ndarray:
    if pixels.ndim == 2:
        return np.repeat(pixels[:, :, None], 3, axis=2)
    if pixels.shape[2] == 1:
        return np.repeat(pixels, 3, axis=2)
    return np.ascontiguousarray(pixels[:, :, :3])


def image_to_bgr(image: Any) -> np.ndarray:
    """A Pillow image as a BGR array: EXIF rotation applied, transparency on white."""
    from PIL import Image, ImageOps

    image = ImageOps.exif_transpose(image) or image
    if image.mode in ("RGBA", "LA", "PA") or (image.mode == "P" and "transparency" in image.info):
        rgba = image.convert("RGBA")
        background = Image.new("RGBA", rgba.size, (255, 255, 255, 255))
        image = Image.alpha_composite(background, rgba)
    longest = max(image.size)
    if longest > MAX_SIDE:
        factor = MAX_SIDE / longest
        image = image.resize(
            (max(1, round(image.width * factor)), max(1, round(image.height * factor)))
        )
    rgb = np.asarray(image.convert("RGB"))
    return np.ascontiguousarray(rgb[:, :, ::-1])


def render_pages(
    path: str | os.PathLike[str], pages: list[int], dpi: int = DEFAULT_DPI
) -> Generator[tuple[int, np.ndarray | DocumentError], None, None]:
    """Yield ``(page number, BGR image)`` for ``pages`` (1-based) of a PDF or an image.

    A page that cannot be rendered yields a :class:`DocumentError` in place of its
    image so the caller can record it and go on; a file that cannot be opened at all
    raises (``FileNotFoundError``, :class:`DocumentError`).
    """
    path = Path(path)
    if _is_slides(path):
        yield from _slide_pictures(path, pages)
        return
    if is_image(path):
        with _open_image(path) as image:
            frames = int(getattr(image, "n_frames", 1) or 1)
            for number in pages:
                try:
                    if number > frames:
                        raise DocumentError(f"has no page {number}.", path)
                    image.seek(number - 1)
                    yield number, image_to_bgr(image)
                except DocumentError as exc:
                    yield number, exc
                except (OSError, ValueError, EOFError) as exc:
                    yield (
                        number,
                        CorruptDocumentError(f"page {number} could not be decoded ({exc}).", path),
                    )
        return
    pdf = _open_pdf(path)
    try:
        count = len(pdf)
        for number in pages:
            if not 1 <= number <= count:
                yield number, DocumentError(f"has no page {number}.", path)
                continue
            try:
                image_bgr = render_pdf_page(pdf, number, dpi)
            except Exception as exc:  # PdfiumError on a damaged page
                yield (
                    number,
                    CorruptDocumentError(f"page {number} could not be rendered ({exc}).", path),
                )
                continue
            yield number, image_bgr
    finally:
        pdf.close()


def _slide_pictures(
    path: Path, pages: list[int]
) -> Generator[tuple[int, np.ndarray | DocumentError], None, None]:
    """The largest picture of each slide in ``pages``, decoded for OCR."""
    import io

    from PIL import Image, UnidentifiedImageError

    from agentmaker.rag.readers.pptx import slide_picture

    presentation = _open_slides(path)
    for number in pages:
        blob = slide_picture(presentation, number)
        if blob is None:
            yield number, DocumentError(f"slide {number} has no picture to read.", path)
            continue
        try:
            with Image.open(io.BytesIO(blob)) as image:
                yield number, image_to_bgr(image)
        except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError) as exc:
            yield (
                number,
                CorruptDocumentError(
                    f"the picture on slide {number} cannot be decoded ({exc}).", path
                ),
            )
