"""Offline OCR for scanned PDF pages and pictures (RapidOCR models on onnxruntime).

Wire it into a library's pipeline::

    queue = OcrQueue(library.db)               # jobs persist in the library file
    library.pipeline.ocr = queue               # scans get queued while ingesting
    library.pipeline.ingest_paths([folder])    # text pages indexed now
    OcrWorker(queue, library.pipeline).run_pending()   # scanned pages, later
"""

from agentmaker.ocr.engine import (
    OcrEngine,
    OcrError,
    OcrLine,
    OcrPage,
    OcrUnavailableError,
)
from agentmaker.ocr.queue import OcrJob, OcrPageResult, OcrQueue
from agentmaker.ocr.worker import OcrJobOutcome, OcrProgress, OcrReport, OcrWorker

__all__ = [
    "OcrEngine",
    "OcrError",
    "OcrJob",
    "OcrJobOutcome",
    "OcrLine",
    "OcrPage",
    "OcrPageResult",
    "OcrProgress",
    "OcrQueue",
    "OcrReport",
    "OcrUnavailableError",
    "OcrWorker",
]
