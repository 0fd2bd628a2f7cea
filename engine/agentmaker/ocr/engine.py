"""OcrEngine: text lines out of a page image, offline, with RapidOCR on onnxruntime.

The models are the PP-OCR detection and recognition networks inside the ``rapidocr``
wheel (``rapidocr/models``). RapidOCR downloads a model whenever it is not given an
explicit path, so every model path is set here, and its downloader is replaced by one
that refuses: a missing model is an :class:`OcrUnavailableError`, never a network call.

Trust is decided from confidences measured on the corpus scans (upright and turned by
90° and 180°): lines read from upright text scored 0.93-1.0, lines misread from turned
text 0.39-0.90 (all but 5 of 278 below 0.8), and a page's length-weighted mean was
0.98-0.995 upright against 0.58-0.64 turned. Hence the thresholds below.

RapidOCR's text-line orientation classifier is switched off: on upright scans it judged
2 of 33 lines of loremipsum-flat.pdf upside down and turned them into garbage (see
``benchmarks/out/ocr_speed.md``). A page that reads badly is read once more turned by
180° instead; with RapidOCR's own turning of tall text lines that covers pages scanned
upside down and sideways, at twice the cost for those pages only.
"""

from __future__ import annotations

import logging
import statistics
import threading
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from agentmaker.errors import ModelError
from agentmaker.models import onnx_runtime

log = logging.getLogger(__name__)

#: Lines read with less confidence than this are dropped (RapidOCR's default is 0.5).
DEFAULT_MIN_LINE_CONFIDENCE = 0.8
#: A page whose lines score less than this on average (weighted by length) is garbage
#: as a whole: nothing of it is kept.
DEFAULT_MIN_PAGE_CONFIDENCE = 0.7
#: Below this page score (and with a few lines found) the image is read again turned.
_RETRY_BELOW = 0.85
_RETRY_MIN_LINES = 3

_MODEL_FILES = {
    "Det": "PP-OCRv6_det_small.onnx",
    "Rec": "PP-OCRv6_rec_small.onnx",
    "Cls": "ch_ppocr_mobile_v2.0_cls_mobile.onnx",
}


class OcrError(ModelError):
    """OCR failed on a page or an image."""


class OcrUnavailableError(OcrError):
    """The OCR engine cannot start (package or model files missing)."""


@dataclass(frozen=True)
class OcrLine:
    """One line of text found on the image.

    ``box`` is ``(left, top, right, bottom)`` in pixels of the image that was read.
    """

    text: str
    confidence: float
    box: tuple[float, float, float, float]


@dataclass
class OcrPage:
    """What OCR read on one image: the trusted lines in reading order, and their text.

    ``text`` joins the lines top to bottom, left to right (lines on the same row joined
    by a space, a blank line where the vertical gap suggests a new paragraph).
    ``mean_confidence`` is over the kept lines, weighted by their length (0 when none).
    ``dropped`` counts lines found but not trusted. ``rotation`` is 180 when the image
    read better turned upside down (``box`` coordinates are then in the turned image).
    """

    lines: list[OcrLine] = field(default_factory=list)
    text: str = ""
    mean_confidence: float = 0.0
    dropped: int = 0
    seconds: float = 0.0
    rotation: int = 0

    @property
    def readable(self) -> bool:
        """True when at least one trustworthy line was found."""
        return bool(self.text.strip())


def model_dir() -> Path:
    """The folder inside the installed ``rapidocr`` package that holds its models."""
    onnx_runtime.disable_telemetry()  # rapidocr imports onnxruntime
    try:
        import rapidocr
    except ImportError as exc:
        raise OcrUnavailableError(
            "OCR is not available: the 'rapidocr' package is not installed. "
            "Reinstall the app to read scanned documents."
        ) from exc
    return Path(rapidocr.__file__).resolve().parent / "models"


def _refuse_downloads() -> None:
    """Make RapidOCR's downloader raise instead of fetching anything."""
    from rapidocr.utils import download_file

    def refuse(cls: Any, input_params: Any) -> None:
        raise OcrUnavailableError(
            f"OCR needs the model file {Path(str(input_params.save_path)).name}, which is "
            "not installed; the app never downloads models. Reinstall the app."
        )

    download_file.DownloadFile.run = classmethod(refuse)  # type: ignore[method-assign,assignment]


class OcrEngine:
    """Reads text lines from page images with RapidOCR (PP-OCR models, onnxruntime).

    The models load on the first :meth:`read_image` (about a second), not at
    construction, so creating an engine is free. Calls are serialised by a lock: the
    engine is safe to share between threads, and one page at a time already uses every
    core onnxruntime is given (``threads``, default all).
    """

    def __init__(
        self,
        *,
        min_line_confidence: float = DEFAULT_MIN_LINE_CONFIDENCE,
        min_page_confidence: float = DEFAULT_MIN_PAGE_CONFIDENCE,
        threads: int | None = None,
        models: Path | None = None,
    ) -> None:
        self.min_line_confidence = min_line_confidence
        self.min_page_confidence = min_page_confidence
        self.threads = threads
        self.models = models
        self._ocr: Any = None
        self._lock = threading.Lock()
        #: Images read so far (tests count them to check that resumed jobs skip pages).
        self.calls = 0

    @property
    def name(self) -> str:
        """Engine and model names, stored with each OCR'd page."""
        return f"rapidocr/{_MODEL_FILES['Det'].removesuffix('_det_small.onnx')}-small"

    def _load(self) -> Any:
        folder = self.models or model_dir()
        paths = {key: folder / name for key, name in _MODEL_FILES.items()}
        missing = [p.name for p in paths.values() if not p.is_file()]
        if missing:
            raise OcrUnavailableError(
                f"OCR is not available: model file(s) {', '.join(missing)} are missing "
                f"from {folder}. Reinstall the app."
            )
        try:
            onnx_runtime.ort()  # RapidOCR imports onnxruntime: it must find telemetry off
            from rapidocr import RapidOCR
        except ImportError as exc:  # rapidocr present but a dependency (cv2...) broken
            raise OcrUnavailableError(
                f"OCR is not available ({exc}). Reinstall the app to read scanned documents."
            ) from exc
        _refuse_downloads()
        params: dict[str, Any] = {
            "Global.log_level": "error",  # "no text detected" is a normal outcome here
            "Global.use_cls": False,
            "Global.text_score": 0.0,  # filtered here, so dropped lines can be counted
            # Images arrive already sized by the renderer; RapidOCR's default would
            # shrink anything over 2000 px again.
            "Global.max_side_len": 4096,
            "Det.model_path": str(paths["Det"]),
            "Cls.model_path": str(paths["Cls"]),
            "Rec.model_path": str(paths["Rec"]),
        }
        if self.threads:
            params["EngineConfig.onnxruntime.intra_op_num_threads"] = self.threads
        try:
            return RapidOCR(params=params)
        except OcrError:
            raise
        except Exception as exc:
            raise OcrUnavailableError(f"The OCR engine could not start ({exc}).") from exc

    def load(self) -> None:
        """Load the models now instead of on the first page."""
        with self._lock:
            if self._ocr is None:
                self._ocr = self._load()

    def close(self) -> None:
        """Free the models (about 100 MB); the next read loads them again."""
        with self._lock:
            self._ocr = None

    def read_image(self, image: Any) -> OcrPage:
        """Read one image: an RGB ``PIL.Image`` or a BGR ``uint8`` array (H×W×3 or H×W).

        Untrusted lines are dropped (see the module notes). Raises :class:`OcrError`
        when the engine fails on the image, :class:`OcrUnavailableError` when it cannot
        start.
        """
        pixels = _as_array(image)
        with self._lock:
            if self._ocr is None:
                self._ocr = self._load()
            self.calls += 1
            started = time.perf_counter()
            raw = self._recognise(pixels)
            rotation = 0
            if len(raw) >= _RETRY_MIN_LINES and page_score(raw) < _RETRY_BELOW:
                turned = self._recognise(np.ascontiguousarray(np.rot90(pixels, 2)))
                if page_score(turned) > page_score(raw):
                    raw, rotation = turned, 180
            seconds = time.perf_counter() - started
        page = build_page(raw, self.min_line_confidence, self.min_page_confidence)
        page.seconds = seconds
        page.rotation = rotation
        return page

    def _recognise(self, pixels: np.ndarray) -> list[OcrLine]:
        """Every line RapidOCR finds, trusted or not (called under the lock)."""
        try:
            return _raw_lines(self._ocr(pixels))
        except OcrError:
            raise
        except Exception as exc:
            raise OcrError(f"OCR failed on the image ({type(exc).__name__}: {exc}).") from exc


def _as_array(image: Any) -> np.ndarray:
    if isinstance(image, np.ndarray):
        return image
    convert = getattr(image, "convert", None)
    if convert is None:
        raise TypeError(f"cannot read an image of type {type(image).__name__}")
    return np.ascontiguousarray(np.asarray(convert("RGB"))[:, :, ::-1])


def page_score(lines: list[OcrLine]) -> float:
    """Mean confidence of lines weighted by their length (0 for none)."""
    weight = sum(len(ln.text) for ln in lines)
    if not weight:
        return 0.0
    return sum(ln.confidence * len(ln.text) for ln in lines) / weight


def _raw_lines(result: Any) -> list[OcrLine]:
    boxes = getattr(result, "boxes", None)
    texts = getattr(result, "txts", None)
    scores = getattr(result, "scores", None)
    if boxes is None or texts is None or scores is None:
        return []
    lines = []
    for box, text, score in zip(boxes, texts, scores, strict=False):
        points = np.asarray(box, dtype=float).reshape(-1, 2)
        left, top = points.min(axis=0)
        right, bottom = points.max(axis=0)
        clean = unicodedata.normalize("NFKC", str(text)).strip()
        if clean:
            lines.append(
                OcrLine(clean, float(score), (float(left), float(top), float(right), float(bottom)))
            )
    return lines


def build_page(
    raw: list[OcrLine],
    min_line_confidence: float = DEFAULT_MIN_LINE_CONFIDENCE,
    min_page_confidence: float = DEFAULT_MIN_PAGE_CONFIDENCE,
) -> OcrPage:
    """Drop untrusted lines (or the whole page), order the rest and join their text."""
    if page_score(raw) < min_page_confidence:
        return OcrPage(dropped=len(raw))
    kept = [ln for ln in raw if ln.confidence >= min_line_confidence]
    if not kept:
        return OcrPage(dropped=len(raw))
    rows = _rows(kept, _reading_box(kept))
    ordered = [ln for row in rows for ln in row]
    return OcrPage(
        lines=ordered,
        text=_join_rows(rows, _reading_box(kept)),
        mean_confidence=page_score(ordered),
        dropped=len(raw) - len(kept),
    )


Box = tuple[float, float, float, float]


def _reading_box(lines: list[OcrLine]) -> Callable[[OcrLine], Box]:
    """Boxes as the text reads: turned back when most lines run top to bottom.

    RapidOCR reads a tall line by turning it a quarter counter-clockwise, i.e. as text
    running downwards, whose first line is the rightmost column.
    """
    tall = sum(1 for ln in lines if ln.box[3] - ln.box[1] > 1.5 * (ln.box[2] - ln.box[0]))
    if tall * 2 <= len(lines):
        return lambda ln: ln.box
    return lambda ln: (ln.box[1], -ln.box[2], ln.box[3], -ln.box[0])


def _rows(lines: list[OcrLine], box_of: Callable[[OcrLine], Box]) -> list[list[OcrLine]]:
    """Group lines whose vertical extents overlap by half a line into rows."""
    rows: list[list[OcrLine]] = []
    bands: list[tuple[float, float]] = []
    for line in sorted(lines, key=lambda ln: (box_of(ln)[1] + box_of(ln)[3]) / 2):
        _, top, _, bottom = box_of(line)
        if bands:
            band_top, band_bottom = bands[-1]
            overlap = min(bottom, band_bottom) - max(top, band_top)
            if overlap >= 0.5 * max(1.0, min(bottom - top, band_bottom - band_top)):
                rows[-1].append(line)
                continue
        rows.append([line])
        bands.append((top, bottom))
    return [sorted(row, key=lambda ln: box_of(ln)[0]) for row in rows]


def _join_rows(rows: list[list[OcrLine]], box_of: Callable[[OcrLine], Box]) -> str:
    typical = statistics.median(box_of(ln)[3] - box_of(ln)[1] for row in rows for ln in row)
    parts: list[str] = []
    previous_bottom: float | None = None
    for row in rows:
        text = " ".join(ln.text for ln in row)
        top = min(box_of(ln)[1] for ln in row)
        if previous_bottom is None:
            parts.append(text)
        elif top - previous_bottom > 0.6 * typical:
            parts += ["\n\n", text]
        elif _hyphenated(parts[-1], text):
            # A word split at the line end ("exam-" / "ple") is joined again so that a
            # search for the whole word finds it.
            parts[-1] = parts[-1][:-1] + text
        else:
            parts += ["\n", text]
        previous_bottom = max(box_of(ln)[3] for ln in row)
    return "".join(parts).strip()


def _hyphenated(before: str, after: str) -> bool:
    return (
        len(before) >= 2
        and before.endswith("-")
        and before[-2].isalpha()
        and after[:1].isalpha()
        and after[:1].islower()
    )
