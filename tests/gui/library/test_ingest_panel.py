"""The ingest panel during a long file: progress inside the file, the row it is on."""

from __future__ import annotations

from agentmaker.rag.ingest.batch import IngestProgress
from agentmaker_desk.library.ingest_panel import IngestPanel

MB = 1024 * 1024


def test_a_large_file_shows_its_passages_and_bytes_while_it_is_embedded(qtbot) -> None:
    panel = IngestPanel()
    qtbot.addWidget(panel)
    panel.begin([])
    book = "/d/war-and-peace.txt"
    total = int(3.1 * MB)
    panel.update_progress(IngestProgress(book, "queued", 0, 1, 0, total))
    panel.update_progress(
        IngestProgress(
            book, "embedding", 0, 1, 0, total, chunks=880, chunks_embedded=440, file_bytes=total
        )
    )
    assert panel.detail_of(book) == "440 of 880 passages"
    # half of the only file is done: the summary says so before the file ends
    assert "0 of 1 file · 1.5 MB of 3.1 MB" in panel.summary_label.text()


def test_work_fraction_counts_the_embedded_part_of_the_current_file() -> None:
    report = IngestProgress(
        "/d/b", "embedding", 1, 2, 100, 400, chunks=10, chunks_embedded=5, file_bytes=300
    )
    assert report.work_fraction == (100 + 150) / 400
    done = IngestProgress("/d/b", "indexed", 2, 2, 400, 400, chunks=10, file_bytes=300)
    assert done.work_fraction == 1.0
    assert IngestProgress("/d/a", "queued", 0, 4, 0, 0).work_fraction == 0.0
