"""PowerPoint presentations (.pptx): one page of text per slide, cited as "slide 7".

python-pptx (the maintained reader of PresentationML, by python-docx's author) opens
the package after ``containers`` has checked it. A slide's text is its title, then
every shape's text in reading order (groups walked without recursion), tables as
pipe rows and the speaker notes last, marked ``Speaker notes:``. Slides are laid out
like PDF pages (``page_spans``, ``page_unit = "slide"``), so the paged splitter never
mixes two slides in a chunk, and a slide that holds only pictures is listed in
``pages_without_text`` for OCR, exactly like a scanned PDF page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmaker.errors import CorruptDocumentError, NoTextLayerError
from agentmaker.rag.documents import Document
from agentmaker.rag.readers.containers import OfficeSource, open_office
from agentmaker.rag.readers.detect import require_zip_kind

_SEPARATOR = "\n\n"
_REMOVE_PASSWORD = "in PowerPoint: File > Info > Protect Presentation > Encrypt with Password"


def open_presentation(
    path: Path, password: str | None = None
) -> Any:  # pptx.presentation.Presentation
    """Open a checked .pptx with python-pptx; damage becomes ``CorruptDocumentError``."""
    source, names = open_office(path, "PowerPoint presentation", _REMOVE_PASSWORD, password)
    require_zip_kind(names, path, "pptx")
    return _open(source, path)


def _open(source: OfficeSource, path: Path) -> Any:
    from pptx import Presentation

    try:
        return Presentation(str(source) if isinstance(source, Path) else source)
    except Exception as exc:  # python-pptx raises KeyError, XMLSyntaxError, ValueError...
        raise CorruptDocumentError(
            f"is damaged and cannot be opened as a presentation ({type(exc).__name__}: {exc}); "
            "save it again from PowerPoint.",
            path,
        ) from None


def _shapes_in_order(slide: Any) -> list[Any]:
    """Every shape of a slide, group members in place, top-to-bottom then left-to-right."""
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    out: list[Any] = []
    stack: list[Any] = [list(slide.shapes)]
    while stack:
        shapes = stack.pop()
        for index, shape in enumerate(_reading_order(shapes)):
            if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
                rest = _reading_order(shapes)[index + 1 :]
                stack.append(rest)
                stack.append(list(shape.shapes))
                break
            out.append(shape)
    return out


def _reading_order(shapes: list[Any]) -> list[Any]:
    return sorted(shapes, key=lambda s: ((s.top or 0) // 100_000, s.left or 0))


def _text_frame_lines(frame: Any) -> list[str]:
    lines = []
    for paragraph in frame.paragraphs:
        text = " ".join(paragraph.text.split())
        if text:
            lines.append(("  " * paragraph.level + "- " + text) if paragraph.level else text)
    return lines


def _table_lines(table: Any) -> list[str]:
    rows = []
    for row in table.rows:
        cells = [" ".join(cell.text.split()) for cell in row.cells]
        if any(cells):
            rows.append(f"| {' | '.join(cells)} |")
    if len(rows) > 1:
        rows.insert(1, "|" + " --- |" * len(table.columns))
    return rows


class _SlideText:
    """Text of one slide: title, body blocks, notes; whether it shows pictures."""

    def __init__(self, slide: Any) -> None:
        title_shape = slide.shapes.title
        self.title = " ".join(title_shape.text.split()) if title_shape is not None else ""
        self.blocks: list[str] = []
        self.pictures = 0
        self.tables = 0
        for shape in _shapes_in_order(slide):
            if title_shape is not None and shape.shape_id == title_shape.shape_id:
                continue
            if getattr(shape, "has_table", False) and shape.has_table:
                lines = _table_lines(shape.table)
                self.tables += 1
            elif getattr(shape, "has_text_frame", False) and shape.has_text_frame:
                lines = _text_frame_lines(shape.text_frame)
            else:
                lines = []
            if hasattr(type(shape), "image"):  # Picture and picture placeholders
                self.pictures += 1
            if lines:
                self.blocks.append("\n".join(lines))
        self.notes = ""
        if slide.has_notes_slide:
            frame = slide.notes_slide.notes_text_frame
            if frame is not None:
                self.notes = "\n".join(_text_frame_lines(frame))

    def render(self) -> str:
        parts = [self.title] if self.title else []
        parts.extend(self.blocks)
        if self.notes:
            parts.append(f"Speaker notes: {self.notes}")
        return _SEPARATOR.join(parts)


def read_pptx_file(path: Path, *, password: str | None = None) -> Document:
    """Read a ``.pptx`` into a paged Document: one page span per slide.

    ``metadata``: ``page_spans``, ``page_unit = "slide"``, ``page_titles`` (title per
    slide, in order), ``pages_without_text`` (picture-only slides, for OCR),
    ``slide_count``, ``hidden_slides``. Raises ``NoTextLayerError`` when no slide has
    text but some show pictures (the whole deck goes to OCR).
    """
    presentation = open_presentation(path, password)
    warnings: list[str] = []
    parts: list[str] = []
    spans: list[list[Any]] = []
    titles: list[str] = []
    without_text: list[int] = []
    hidden: list[int] = []
    pictures = tables = 0
    position = 0
    for number, slide in enumerate(presentation.slides, start=1):
        if slide.element.get("show") in ("0", "false"):
            hidden.append(number)
        try:
            text_of = _SlideText(slide)
        except Exception as exc:  # one broken slide must not cost the others
            warnings.append(f"Slide {number} could not be read ({exc}); it was skipped.")
            spans.append([position, position, number, str(number)])
            titles.append("")
            continue
        pictures += text_of.pictures
        tables += text_of.tables
        titles.append(text_of.title)
        text = text_of.render()
        if not text and text_of.pictures:
            without_text.append(number)
        if text:
            if parts:
                parts.append(_SEPARATOR)
                position += len(_SEPARATOR)
            parts.append(text)
            spans.append([position, position + len(text), number, str(number)])
            position += len(text)
        else:
            spans.append([position, position, number, str(number)])
    count = len(spans)
    if not parts and without_text:
        raise NoTextLayerError(
            "has only pictures on its slides, no text. OCR is needed to index it.", path
        )
    if without_text:
        listed = ", ".join(str(n) for n in without_text[:20])
        warnings.append(
            f"{len(without_text)} of {count} slide(s) show only pictures (slide {listed}); "
            "they need OCR to be searchable."
        )
    if hidden:
        warnings.append(
            f"{len(hidden)} hidden slide(s) were indexed too: {', '.join(map(str, hidden))}."
        )
    try:
        core_title = (presentation.core_properties.title or "").strip()
    except Exception:  # the title is a nicety
        core_title = ""
    metadata: dict[str, Any] = {
        "warnings": warnings,
        "page_count": count,
        "page_spans": spans,
        "page_unit": "slide",
        "page_titles": titles,
        "pages_without_text": without_text,
        "slide_count": count,
        "hidden_slides": hidden,
        "pictures": pictures,
        "tables": tables,
    }
    title = core_title or next((t for t in titles if t), "") or path.stem
    return Document(content="".join(parts), title=title, format="pdf", metadata=metadata)


def slide_picture(presentation: Any, number: int) -> bytes | None:
    """The largest picture on slide ``number`` (1-based) as image bytes, for OCR."""
    slides = presentation.slides
    if not 1 <= number <= len(slides):
        return None
    best: tuple[int, bytes] | None = None
    for shape in _shapes_in_order(slides[number - 1]):
        if not hasattr(type(shape), "image"):
            continue
        try:
            image = shape.image
        except Exception:  # a linked (not embedded) picture has no bytes
            continue
        area = (shape.width or 0) * (shape.height or 0)
        if best is None or area > best[0]:
            best = (area, image.blob)
    return best[1] if best else None
