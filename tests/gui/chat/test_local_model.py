"""The built-in model in the window: first-run offer, a model file, streaming, Stop."""

from __future__ import annotations

from pathlib import Path

from agentmaker_desk.bridge.model_downloads import ModelDownloads
from agentmaker_desk.bridge.models import make_llm
from agentmaker_desk.chat.model_offer import ModelOffer
from agentmaker_desk.settings.settings import ApiKeyStore, ModelChoice
from PySide6.QtCore import QSettings, Qt
from PySide6.QtGui import QTextCursor
from PySide6.QtTest import QTest

from tests.gguf_files import write_gguf
from tests.gui.helpers import serve_slowly


def _ask(desk, qloop, question: str) -> None:
    desk.ask_bar.edit.setPlainText(question)
    desk.ask_bar.edit.moveCursor(QTextCursor.MoveOperation.End)
    desk.ask_bar.edit.setFocus()
    qloop.call(lambda: QTest.keyClick(desk.ask_bar.edit, Qt.Key.Key_Return))  # Enter sends
    # A real model on a shared 2-core machine: wait generously (never asserted as time).
    qloop.until(lambda: not desk.bridge.answering, timeout=300)
    qloop.until(lambda: not desk.bridge.tasks, timeout=60)


def _offer(qtbot, tmp_path: Path, name: str = "s.ini") -> tuple[ModelOffer, ModelDownloads]:
    downloads = ModelDownloads(str(tmp_path / "models"))
    settings = QSettings(str(tmp_path / name), QSettings.Format.IniFormat)
    offer = ModelOffer(downloads, settings)
    qtbot.addWidget(offer)
    return offer, downloads


def test_the_first_run_offer_appears_once(qtbot, tmp_path: Path) -> None:
    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    downloads = ModelDownloads(str(tmp_path / "models"))
    assert ModelOffer.should_show(settings, downloads)
    offer, _ = _offer(qtbot, tmp_path)
    assert "Qwen2.5" in offer.message.text() and "GB, once" in offer.message.text()
    assert "answers quote your documents" in offer.message.text()
    offer.show()
    qtbot.waitExposed(offer)
    offer.dismiss()
    again = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    assert not ModelOffer.should_show(again, downloads)  # never offered a second time


def test_a_model_file_from_this_computer_is_checked(qtbot, tmp_path: Path, tiny_gguf) -> None:
    offer, downloads = _offer(qtbot, tmp_path)
    png = tmp_path / "cat.gguf"
    png.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(32))
    assert not offer.use_file(str(png))
    assert "cat.gguf: This is not a GGUF model file (it looks like a PNG image)" in (
        offer.status.text()
    )
    with qtbot.waitSignal(offer.modelReady) as ready:
        assert offer.use_file(str(tiny_gguf))
    assert ready.args == [str(tiny_gguf.resolve())]
    assert [m.path for m in downloads.installed()] == [tiny_gguf.resolve()]


def test_download_shows_progress_and_cancel_keeps_nothing(qtbot, tmp_path: Path) -> None:
    payload = write_gguf(tmp_path / "src.gguf", elements=1024 * 1024).read_bytes()
    with serve_slowly(payload) as url:
        offer, downloads = _offer(qtbot, tmp_path)
        offer.show()
        entry = downloads.recommended()
        plain = type(entry)(**{**entry.__dict__, "size_bytes": None, "sha256": None,
                               "architecture": "llama"})  # fmt: skip
        offer._entry = plain
        offer.status.setText("")
        offer._busy(True)
        with qtbot.waitSignal(downloads.progress, timeout=20000):
            downloads.start(plain, url=url)
        qtbot.waitUntil(lambda: " GB at " in offer.status.text(), timeout=20000)
        assert offer.cancel_button.isVisible()
        with qtbot.waitSignal(downloads.cancelled, timeout=20000):
            offer.cancel_button.click()
        downloads.wait(20)
        assert offer.status.text() == "Download cancelled. Nothing was kept."
        assert not any((tmp_path / "models").glob("*")) if (tmp_path / "models").exists() else True
        # Downloaded to the end, the model is announced ready.
        with qtbot.waitSignal(offer.modelReady, timeout=60000) as ready:
            downloads.start(plain, url=url)
        assert Path(ready.args[0]).read_bytes() == payload


def test_asking_with_the_tiny_model_streams_and_stop_works(
    desk, qloop, tmp_path: Path, tiny_gguf: Path
) -> None:
    doc = tmp_path / "install.md"
    doc.write_text(
        "# Installing Poetry\n\nInstall Poetry with pipx: run `pipx install poetry`.\n\n"
        "## Updating\n\nUpdate it with `poetry self update`.\n",
        encoding="utf-8",
    )
    qloop.run(desk.bridge.aingest([str(doc)]))
    llm = make_llm(ModelChoice(kind="local", model=str(tiny_gguf)), ApiKeyStore())
    llm.threads, llm.context_window, llm.answer_tokens = 2, 1024, 48
    desk.bridge.library.set_llm(llm)
    try:
        _ask(desk, qloop, "How do I install Poetry?")
        view = desk.transcript
        assert view.answer_text().strip()
        turn = view.turns[-1]
        # Written by the model, or (its answer not in its passages) the passages quoted.
        assert not turn.extractive or "quoted passages look relevant" in turn.status
        cites = [a for a in view.anchors() if a.startswith("cite:")]
        # Only links to passages the model was given ("cite:<turn>-<n>").
        assert {int(a.rsplit("-", 1)[1]) for a in cites} <= {
            int(s.n) for s in view.turns[-1].sources
        }
        assert [a for a in view.anchors() if a.startswith("src:")]  # the sources are listed

        llm.answer_tokens = 400
        # Stop mid-stream: unchecked, the tiny model's essay streams word by word (checked,
        # sentences no passage says would be held back and nothing might show to stop).
        llm.checks_answers = False
        desk.ask_bar.edit.setPlainText("Write a long essay about every Poetry command.")
        qloop.call(lambda: QTest.keyClick(desk.ask_bar.edit, Qt.Key.Key_Return))
        qloop.until(lambda: len(view.answer_text()) > 0, timeout=300)
        qloop.call(desk.bridge.stop_answer)
        qloop.until(lambda: not desk.bridge.answering, timeout=60)
        stopped = view.answer_text()
        qloop.settle(0.5)
        assert view.answer_text() == stopped  # nothing more arrives after Stop
    finally:
        llm.close()


def test_a_crash_of_the_model_process_falls_back_to_quotes_and_the_window_survives(
    desk, qloop, tmp_path: Path, tiny_gguf: Path
) -> None:
    import os
    import signal

    doc = tmp_path / "install.md"
    doc.write_text(
        "# Installing Poetry\n\nInstall Poetry with pipx: run `pipx install poetry`.\n",
        encoding="utf-8",
    )
    qloop.run(desk.bridge.aingest([str(doc)]))
    llm = make_llm(ModelChoice(kind="local", model=str(tiny_gguf)), ApiKeyStore())
    llm.threads, llm.context_window, llm.answer_tokens = 2, 1024, 48

    def kill_while_reading(processed: int, total: int) -> None:
        # As when the system runs out of memory: llama.cpp's process dies mid-request.
        runtime = llm._runtime
        if llm.on_progress is not None and runtime is not None:
            llm.on_progress = None
            os.kill(runtime.process.pid, signal.SIGKILL)

    llm.on_progress = kill_while_reading
    desk.bridge.library.set_llm(llm)
    try:
        _ask(desk, qloop, "How do I install Poetry?")
        view = desk.transcript
        assert view.turns[-1].extractive  # the documents quoted instead
        assert "pipx install poetry" in view.answer_text()
        assert view.turns[-1].error and "stopped by the system" in view.turns[-1].status
        # The window and the library survived; the next question gets a model answer.
        _ask(desk, qloop, "How do I install Poetry?")
        turn = view.turns[-1]
        assert view.answer_text().strip() and "stopped by the system" not in turn.status
        assert not turn.extractive or "quoted passages look relevant" in turn.status
        assert desk.bridge.documents  # the library is still open and listed
    finally:
        llm.close()
