"""``agentmaker-desk --screenshots DIR``: render the main states of the window to PNG.

Uses a throw-away library of a few sample documents, the real ingestion pipeline and
the real widgets. The streamed answers in the screenshots are scripted ones (no
language model is reachable offline); everything else is what a person would see.
The chat is rendered at 1366×768 in the light and the dark theme.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QApplication, QWidget

from agentmaker_desk.bridge.bridge import EngineBridge
from agentmaker_desk.i18n import install_language
from agentmaker_desk.main_window import MainWindow
from agentmaker_desk.settings.settings import ApiKeyStore, SettingsStore
from agentmaker_desk.theme import apply_theme, dark_palette

__all__ = ["dark_palette", "render_screenshots"]

SAMPLES = {
    "Tenancy agreement.md": """# Tenancy agreement

## Rent
The rent is 950 EUR per month, paid on the first working day of each month
by bank transfer. The rent may be raised once a year, with two months' notice.

## Deposit
The deposit is three months' rent (2,850 EUR). It is returned within six weeks
after the tenancy ends, minus the cost of repairing damage beyond normal wear.

## Repairs
The landlord repairs the heating, plumbing and wiring. The tenant replaces light
bulbs and keeps the drains clear. Report damage within one week in writing.

## Ending the tenancy
Either side may end the tenancy with three months' notice in writing. The notice
period starts on the first day of the following month.
""",
    "Heating manual.md": """# Heating manual

## Thermostat
Turn the dial to set the room temperature. 20 °C is comfortable for living rooms;
each degree lower saves about six percent of heating energy.

## Boiler
### Pressure
The pressure gauge should show between 1.0 and 2.0 bar when the heating is cold.
Below 1.0 bar, top up with the filling loop under the boiler.

### Error codes
E1 means low pressure; E2 means the flame went out: press reset once and wait
ten minutes. If the error returns, call the landlord.
""",
    "Travel policy.txt": """Travel policy

Train travel is preferred for trips under 600 km. Book second class; first class
is allowed when the journey is longer than four hours.

Hotel costs are reimbursed up to 130 EUR per night in large cities and 95 EUR
elsewhere. Keep every receipt: claims without receipts are not paid.
""",
    "租房须知.md": """# 租房须知

## 押金
押金为三个月租金，租期结束后六周内退还。

## 维修
房东负责暖气、水管和电路的维修；租客负责更换灯泡。
""",
}

SCRIPTED_ANSWER = (
    "The deposit is **three months' rent** (2,850 EUR) [1]. It is returned within six "
    "weeks after the tenancy ends, minus the cost of repairing damage beyond normal "
    "wear [1]. To end the tenancy, either side gives three months' notice in writing [2]."
)

SCRIPTED_ANSWER_ZH = (
    "押金为**三个月租金**，租期结束后六周内退还 [1]。房东负责暖气、水管和电路的维修，"
    "租客负责更换灯泡 [2]。"
)


FOLLOW_UP_ANSWER = (
    "The cost of repairing damage beyond normal wear is taken from the deposit [1]. "
    "Report damage within one week in writing [2]."
)
FOLLOW_UP_QUERY = "deposit deduction for damage beyond normal wear"
FOLLOW_UP_ANSWER_ZH = "房东负责暖气、水管和电路的维修；租客负责更换灯泡 [1]。"
FOLLOW_UP_QUERY_ZH = "租房 维修 房东 租客 责任"
#: The size of a common laptop screen: the chat must be readable there.
LAPTOP = (1366, 768)


def _grab(widget: QWidget, path: Path) -> Path:
    QApplication.processEvents()
    widget.grab().save(str(path))
    return path


async def _pause(seconds: float = 0.15) -> None:
    await asyncio.sleep(seconds)
    QApplication.processEvents()


def _embedder() -> Any:
    """The built-in embedder when it loads; the fake one otherwise (screenshots only)."""
    try:
        from agentmaker.models.local_embedder import LocalEmbedder

        embedder = LocalEmbedder()
        embedder.embed_batch(["warm-up"])
        return embedder
    except Exception:  # no model files: the pictures do not depend on the vectors
        from agentmaker.testing import FakeEmbedder

        return FakeEmbedder()


async def render_screenshots(out_dir: Path, languages: list[str]) -> list[Path]:
    """Render every state in every language; returns the written files."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    embedder = _embedder()
    for language in languages:
        install_language(language)
        with tempfile.TemporaryDirectory() as tmp:
            written += await _render_language(Path(tmp), out_dir, language, embedder)
    return written


async def _render_language(tmp: Path, out: Path, lang: str, embedder: Any) -> list[Path]:
    from agentmaker.rag.ingest.batch import IngestProgress
    from agentmaker.testing import ScriptedLLM

    docs = tmp / "Documents"
    docs.mkdir()
    for name, text in SAMPLES.items():
        (docs / name).write_text(text, encoding="utf-8")
    store = SettingsStore(tmp / "settings.ini")
    bridge = EngineBridge(embedder=embedder, keys=ApiKeyStore(), read_in_process=True)
    window = MainWindow(bridge, store, ApiKeyStore())
    window.resize(1280, 800)
    window.show()
    await bridge.open_library(tmp / "Library.agentmaker.sqlite")
    await _pause()
    files: list[Path] = [_grab(window, out / f"01-empty-{lang}.png")]

    # Ingestion in progress: the panel fed with the reports a running batch sends.
    paths = [str(docs / n) for n in SAMPLES] + [str(docs / "Scanned contract.pdf")]
    window._ingest_started(paths)
    total = sum(len(t.encode()) for t in SAMPLES.values()) + 40_000
    stages = ["indexed", "indexed", "embedding", "reading", "failed"]
    for done, (path, stage) in enumerate(zip(paths, stages, strict=True)):
        failed = stage == "failed"
        window.ingest_panel.update_progress(IngestProgress(path, "queued", 0, len(paths), 0, total))
        window.ingest_panel.update_progress(
            IngestProgress(
                path,
                stage,
                min(done, 2),
                len(paths),
                total // 3,
                total,
                chunks=4,
                error=QCoreApplication.translate(
                    "Screenshots",
                    "Scanned contract.pdf: is password-protected. Enter its password to index it.",
                )
                if failed
                else None,
                error_kind="password_required" if failed else None,
            )
        )
    window.ingest_panel._started -= 6  # a few seconds in, so an ETA shows
    window.ingest_panel.update_progress(
        IngestProgress(paths[2], "embedding", 2, len(paths), total // 2, total, chunks=6)
    )
    await _pause()
    files.append(_grab(window, out / f"02-ingesting-{lang}.png"))

    await bridge.aingest([str(docs / n) for n in SAMPLES])
    window.ingest_panel.setVisible(False)
    await _pause()
    window.sidebar.setCurrentWidget(window.browser)
    model = window.browser.model
    for row in range(model.rowCount()):
        if model.index(row, 0).data() == "Heating manual":
            doc = model.index(row, 0)
            window.browser.tree.expand(doc)
            await _pause()
            heading = model.index(min(2, model.rowCount(doc) - 1), 0, doc)
            window.browser.tree.expand(heading)
            await _pause()
            window.browser.tree.setCurrentIndex(model.index(0, 0, heading))
    await _pause(0.3)
    files.append(_grab(window, out / f"03-browser-{lang}.png"))

    zh = lang.startswith("zh")
    if window.model_offer is not None:
        window.model_offer.dismiss()  # the chats below are answered by a model
    window.resize(*LAPTOP)
    window.sidebar.setCurrentWidget(window.conversation_list)
    bridge.library.set_llm(None)  # an older chat, answered without a model
    await window.ask(
        QCoreApplication.translate("Screenshots", "What does error code E2 on the boiler mean?")
    )
    window.new_chat()
    bridge.library.set_llm(
        ScriptedLLM(
            [
                SCRIPTED_ANSWER_ZH if zh else SCRIPTED_ANSWER,
                FOLLOW_UP_QUERY_ZH if zh else FOLLOW_UP_QUERY,
                FOLLOW_UP_ANSWER_ZH if zh else FOLLOW_UP_ANSWER,
            ],
            delay=0.002,
        )
    )
    bridge.library.rag.llm.name = "Qwen2.5 1.5B Instruct"
    question = QCoreApplication.translate(
        "Screenshots", "How much is the deposit and when do I get it back?"
    )
    await window.ask(question)
    await window.ask(QCoreApplication.translate("Screenshots", "And what if something is damaged?"))
    chat_id = bridge.chats.current_id
    await _pause()
    window.show_source(1, 0)
    await bridge.wait_idle()
    await _pause(0.3)
    files.append(_grab(window, out / f"04-chat-{lang}-light.png"))

    bridge.library.set_llm(None)
    window.new_chat()
    await window.ask(QCoreApplication.translate("Screenshots", "Who repairs the heating?"))
    await _pause(0.3)
    files.append(_grab(window, out / f"05-extractive-{lang}.png"))
    window.resize(1280, 800)

    dialog = window.open_settings()
    await _pause(0.2)
    files.append(_grab(dialog, out / f"06-settings-{lang}.png"))
    dialog.reject()

    files.append(await _render_ocr(window, docs, out / f"07-ocr-{lang}.png"))
    files.append(await _render_linked(window, docs, out / f"08-linked-folders-{lang}.png"))
    await bridge.close_library()
    window.close()
    window.deleteLater()
    await _pause()
    files.append(await _render_dark(tmp, out / f"04-chat-{lang}-dark.png", embedder, chat_id))
    return files


async def _render_dark(tmp: Path, path: Path, embedder: Any, chat_id: str | None) -> Path:
    """The same chat, reopened in a new window with a dark palette."""
    apply_theme("dark")  # as Settings › Interface › Theme › Dark does
    try:
        bridge = EngineBridge(embedder=embedder, keys=ApiKeyStore(), read_in_process=True)
        window = MainWindow(bridge, SettingsStore(tmp / "settings.ini"), ApiKeyStore())
        window.resize(*LAPTOP)
        window.show()
        await bridge.open_library(tmp / "Library.agentmaker.sqlite")
        if chat_id is not None:
            await bridge.chats.open(chat_id)
            window.show_source(2, 1)
            await bridge.wait_idle()
        await _pause(0.3)
        shot = _grab(window, path)
        await bridge.close_library()
        window.close()
        window.deleteLater()
        await _pause()
    finally:
        apply_theme("system")
    return shot


async def _render_ocr(window: MainWindow, docs: Path, path: Path) -> Path:
    """A folder was dropped: its text files are in, its scans are being read by OCR."""
    from agentmaker.ocr import OcrProgress, OcrReport
    from agentmaker.rag.ingest.batch import BatchReport, FileOutcome

    bridge = window.bridge
    contract, receipt = str(docs / "Scanned contract.pdf"), str(docs / "Receipt.jpg")
    window.link_offer.offer([str(docs)])
    window._ingest_started([str(docs)])
    outcomes = [FileOutcome(str(docs / n), "indexed", chunks=3 + len(n) % 4) for n in SAMPLES]
    outcomes += [FileOutcome(contract, "ocr_queued"), FileOutcome(receipt, "ocr_queued")]
    window.ingest_panel.finish(BatchReport(files=outcomes))
    window.activity.show_delay_ms = 0
    bridge.ocr.started.emit()
    bridge.ocr.progress.emit(OcrProgress(contract, 0, 0, 6, "started"))
    window.ingest_panel._ocr_clock[contract] = (time.monotonic() - 16, 0)  # for the ETA
    for page in (1, 2):
        bridge.ocr.progress.emit(OcrProgress(contract, page, page, 6, "page_read"))
    await _pause(0.3)
    shot = _grab(window, path)
    bridge.ocr.finished.emit(OcrReport(cancelled=True))
    window.ingest_panel.setVisible(False)
    window.link_offer.dismiss()
    return shot


async def _render_linked(window: MainWindow, docs: Path, path: Path) -> Path:
    """Settings › Linked folders with a synced folder, a skip list and a failed file."""
    bridge = window.bridge
    (docs / "Meeting notes.md").write_text("", encoding="utf-8")  # cannot be indexed
    await bridge.folders.alink(str(docs), ["drafts/", "*.tmp"])
    await bridge.folders.wait_idle()
    dialog = window.open_settings("linked")
    await _pause(0.3)
    shot = _grab(dialog, path)
    dialog.reject()
    return shot
