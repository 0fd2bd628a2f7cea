"""Widgets on their own: rendering, throttling, keys, ingestion states."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agentmaker_desk.chat.answer_html import quoted_sentences, render_answer_html
from agentmaker_desk.chat.ask_box import AskBar
from agentmaker_desk.chat.source_labels import where_text
from agentmaker_desk.chat.source_view import SourceView, locate_passage
from agentmaker_desk.chat.transcript import TranscriptView, status_words, why_words
from agentmaker_desk.library.ingest_panel import IngestPanel
from PySide6.QtCore import Qt


@dataclass
class Ref:
    n: int
    content: str = "passage"
    title: str = "Doc"
    source: str = "/tmp/doc.md"
    heading_path: str = "A > B"
    page: int | None = None
    page_label: str | None = None
    doc_id: str = "d"
    chunk_id: str = "d:0"
    metadata: dict[str, Any] = field(default_factory=dict)


@dataclass
class Progress:
    path: str
    stage: str
    files_done: int
    files_total: int
    bytes_done: int = 0
    bytes_total: int = 0
    chunks: int = 0
    error: str | None = None
    error_kind: str | None = None


def test_render_escapes_before_linking() -> None:
    html = render_answer_html('<b>x</b> [1] [2, 3] [4] "q" **bold**', {1, 2})
    assert "<b>x</b>" not in html and "&lt;b&gt;x&lt;/b&gt;" in html
    assert '<a href="cite:1">[1]</a>' in html
    assert '[<a href="cite:2">2</a>, 3]' in html
    assert "[4]" in html and "cite:4" not in html
    assert "<b>bold</b>" in html


def test_streaming_is_rendered_at_most_every_50_ms(qtbot) -> None:
    view = TranscriptView()
    qtbot.addWidget(view)
    view.start_turn("question?")
    view.set_sources([Ref(1)], extractive=False)
    before = view.render_count
    for i in range(300):
        view.append(f"piece{i} ")
    assert view.render_count == before  # nothing re-rendered synchronously
    qtbot.waitUntil(lambda: "piece299" in view.browser.toPlainText(), timeout=2000)
    assert view.render_count - before <= 3
    view.finish(None, stopped=False)
    assert [a for a in view.anchors() if a.startswith("cite:")] == []


def test_the_transcript_follows_the_answer_unless_scrolled_up(qtbot) -> None:
    view = TranscriptView()
    qtbot.addWidget(view)
    view.resize(400, 200)
    view.show()
    view.start_turn("long question?")
    view.set_sources([Ref(1)], extractive=False)
    bar = view.browser.verticalScrollBar()
    for i in range(60):
        view.append(f"line {i} [1]\n")
        view._render()  # what the throttle timer does
    assert bar.maximum() > 0 and bar.value() == bar.maximum()
    bar.setValue(0)  # the person scrolls up to read
    for i in range(20):
        view.append(f"more {i}\n")
        view._render()
    assert bar.value() == 0
    bar.setValue(bar.maximum())  # back at the bottom: follow again
    view.append("last\n")
    view._render()
    assert bar.value() == bar.maximum()


def test_enter_asks_and_shift_enter_adds_a_line(qtbot) -> None:
    bar = AskBar()
    qtbot.addWidget(bar)
    asked: list[str] = []
    bar.askRequested.connect(asked.append)
    qtbot.keyClicks(bar.edit, "first line")
    qtbot.keyClick(bar.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClicks(bar.edit, "second")
    assert asked == []
    qtbot.keyClick(bar.edit, Qt.Key.Key_Return)
    assert asked == ["first line\nsecond"]
    assert bar.stop_button.accessibleName()


def test_ingest_panel_shows_states_counts_and_failures(qtbot) -> None:
    panel = IngestPanel()
    qtbot.addWidget(panel)
    panel.begin([])
    panel.update_progress(Progress("/d/a.md", "queued", 0, 3, 0, 300))
    panel.update_progress(Progress("/d/b.pdf", "queued", 0, 3, 0, 300))
    panel.update_progress(Progress("/d/a.md", "indexed", 1, 3, 100, 300, chunks=4))
    panel.update_progress(
        Progress(
            "/d/b.pdf",
            "failed",
            2,
            3,
            200,
            300,
            error="b.pdf: is password-protected.",
            error_kind="password_required",
        )
    )
    assert panel.state_of("/d/a.md") == "indexed"
    assert panel.progress.value() == 2 and panel.progress.maximum() == 3
    assert "2 of 3 files" in panel.summary_label.text()
    assert panel.failed_paths("password_required") == ["/d/b.pdf"]
    retried: list[list[str]] = []
    panel.retryRequested.connect(retried.append)

    @dataclass
    class Outcome:
        path: str
        status: str
        chunks: int = 0
        error: str | None = None
        error_kind: str | None = None

    @dataclass
    class Report:
        files: list[Outcome]
        cancelled: bool = False

    panel.finish(
        Report(
            [
                Outcome("/d/a.md", "indexed", 4),
                Outcome("/d/c.md", "failed", error="c.md: the file is empty.", error_kind="empty"),
            ]
        )
    )
    assert "1 added" in panel.summary_label.text()
    assert panel.retry_button.isVisibleTo(panel)
    panel.retry_button.click()
    assert sorted(retried[0]) == ["/d/b.pdf", "/d/c.md"]


def test_sources_say_where_and_why_in_plain_words() -> None:
    keyword = Ref(1, page=4, page_label="iv", metadata={"keyword_rank": 2, "vector_rank": 1})
    keyword.metadata["matched_words"] = ["deposit", "returned"]
    assert where_text(keyword).startswith("p. iv (4)")
    assert why_words(keyword) == "matched the words “deposit”, “returned”, close in meaning"
    assert why_words(Ref(2, metadata={"vector_rank": 3})) == "close in meaning"
    assert why_words(Ref(3, metadata={"rerank_score": 0.9})) == "ranked high by the re-ranker"
    assert why_words(Ref(4, metadata={"ocr": True})).endswith("read by OCR")
    assert why_words(Ref(5)) == "next to a passage that was found"
    removed = Ref(6)
    removed.status = "removed"  # type: ignore[attr-defined]
    assert status_words(removed) == "document removed"
    assert status_words(Ref(7)) == ""


def test_source_view_highlights_the_passage_even_with_wide_characters(qtbot) -> None:
    view = SourceView()
    qtbot.addWidget(view)
    text = "Intro 😀 emoji line\nSecond line with the passage here.\nThird"
    passage = "the passage here."
    start = text.index(passage)
    chunk = Ref(1, content=passage)
    chunk.metadata = {"start_char": start, "end_char": start + len(passage), "page": 2}
    view.show_passage(title="T", source_path="/nope/x.pdf", document_text=text, chunk=chunk)
    assert view.highlighted_text() == passage
    assert "p. 2" in view.location_label.text()
    assert not view.open_button.isEnabled()  # the file does not exist
    assert locate_passage(text, passage, 0, 3) == (start, start + len(passage))


def test_quoted_sentences_are_marked_inside_the_passage(qtbot) -> None:
    passage = (
        "The deposit is three months' rent. It is returned within six weeks after the "
        "tenancy ends. Pets are allowed."
    )
    answer = (
        "It is returned within six weeks after the tenancy ends. [1] Paraphrase here [1]. "
        "Pets are allowed. [2]"
    )
    quotes = quoted_sentences(answer, 1, passage)
    assert quotes == ["It is returned within six weeks after the tenancy ends."]
    assert quoted_sentences(answer, 2, passage) == ["Pets are allowed."]
    # A marker before the full stop (how models cite) is quoted as well.
    assert quoted_sentences("Fine. Pets are allowed [2].", 2, passage) == ["Pets are allowed."]
    view = SourceView()
    qtbot.addWidget(view)
    text = "Intro.\n" + passage.replace("six weeks", "six\nweeks") + "\nOutro."
    chunk = Ref(1, content=passage.replace("six weeks", "six\nweeks"))
    view.show_passage(title="T", source_path="", document_text=text, chunk=chunk, quotes=quotes)
    assert view.highlighted_text() == chunk.content
    assert view.quoted_texts() == ["It is returned within six\nweeks after the tenancy ends."]
