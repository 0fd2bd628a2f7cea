"""The window's responsiveness: event-loop stalls while ingesting, time to first answer.

Drives the real MainWindow offscreen on a qasync loop:
- a 10 ms heartbeat QTimer runs while ``corpus/good`` is ingested through the window;
  the longest gap between beats (minus the period) is the worst stall a person would feel;
- with a scripted streaming model, the time from pressing Enter in the question box to the
  first answer character appearing in the answer pane.

    python -m benchmarks.gui_latency [--embedder fake|local] [--repeat 5]

Writes ``benchmarks/out/gui_latency.md``.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import os
import statistics
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")

import qasync
from PySide6.QtCore import Qt, QTimer
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO.parent / "shared" / "corpus" / "good"
OUT = REPO / "benchmarks" / "out"


def _embedder(kind: str):
    if kind == "local":
        from agentmaker.models.local_embedder import LocalEmbedder

        return LocalEmbedder()
    from agentmaker.testing import FakeEmbedder

    return FakeEmbedder()


async def _measure(kind: str, folder: Path, repeat: int) -> dict[str, object]:
    from agentmaker.testing import ScriptedLLM
    from agentmaker_desk.bridge import EngineBridge
    from agentmaker_desk.main_window import MainWindow
    from agentmaker_desk.settings import ApiKeyStore, SettingsStore

    os.environ["AGENTMAKER_DESK_SETTINGS"] = str(folder / "settings.ini")
    bridge = EngineBridge(embedder=_embedder(kind), keys=ApiKeyStore(), read_in_process=True)
    window = MainWindow(bridge, SettingsStore(folder / "settings.ini"), bridge._keys)
    window.show()
    await bridge.open_library(folder / "Library.agentmaker.sqlite")

    beats: list[float] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: beats.append(time.perf_counter()))
    timer.start()
    started = time.perf_counter()
    window.add_paths([str(CORPUS)])
    await asyncio.sleep(0.05)
    await bridge.wait_idle()
    ingest_seconds = time.perf_counter() - started
    timer.stop()
    gaps = [b - a for a, b in itertools.pairwise(beats)]
    worst_stall_ms = (max(gaps) - 0.010) * 1000 if gaps else float("nan")
    p99_ms = (sorted(gaps)[int(len(gaps) * 0.99)] - 0.010) * 1000 if gaps else float("nan")

    firsts = []
    for attempt in range(repeat):
        marker = f"answer number {attempt} cites"
        bridge._lib.set_llm(ScriptedLLM([f"The {marker} its source [1]."]))
        editor = window.ask_bar.edit
        editor.setPlainText("How many yoke of oxen hauled the siege guns?")
        pane = window.answer_pane.browser
        pressed = time.perf_counter()
        QTest.keyClick(editor, Qt.Key.Key_Return)
        while marker not in pane.toPlainText():
            await asyncio.sleep(0.001)
            if time.perf_counter() - pressed > 30:
                break
        firsts.append((time.perf_counter() - pressed) * 1000)
        await bridge.wait_idle()
    await bridge.close_library()
    window.close()
    return {
        "embedder": kind,
        "files": sum(1 for _ in CORPUS.iterdir()),
        "ingest_s": ingest_seconds,
        "worst_stall_ms": worst_stall_ms,
        "p99_gap_ms": p99_ms,
        "beats": len(beats),
        "first_char_ms_median": statistics.median(firsts),
        "first_char_ms_all": firsts,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--embedder", choices=("fake", "local"), default="fake")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    app = QApplication.instance() or QApplication([])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with tempfile.TemporaryDirectory() as folder:
        result = loop.run_until_complete(_measure(args.embedder, Path(folder), args.repeat))
    OUT.mkdir(parents=True, exist_ok=True)
    lines = [
        "# The window: event-loop stalls and time to first answer character",
        "",
        f"- embedder: {result['embedder']}; {result['files']} files of corpus/good ingested "
        f"through the window in {result['ingest_s']:.1f} s; heartbeat every 10 ms "
        f"({result['beats']} beats)",
        "",
        "| measure | value | target |",
        "| --- | ---: | ---: |",
        f"| longest event-loop stall while ingesting | {result['worst_stall_ms']:.0f} ms "
        "| < 100 ms |",
        f"| 99th percentile heartbeat delay | {result['p99_gap_ms']:.1f} ms | |",
        f"| Enter → first answer character (median of {args.repeat}, scripted model) "
        f"| {result['first_char_ms_median']:.0f} ms | |",
        "",
        "Reproduce: `python -m benchmarks.gui_latency --embedder " + result["embedder"] + "`",
    ]
    (OUT / f"gui_latency_{result['embedder']}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
