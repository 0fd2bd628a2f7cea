"""The window's responsiveness: event-loop stalls while ingesting, time to first answer.

Drives the real MainWindow offscreen on a qasync loop:
- a 10 ms heartbeat QTimer runs while ``corpus/good`` is ingested through the window;
  the longest gap between beats (minus the period) is the worst stall a person would feel;
- with a scripted streaming model, the time from pressing Enter in the question box to the
  first answer character appearing in the answer pane.

    python -m benchmarks.gui_latency [--embedder fake|local] [--repeat 5] [--profile-stalls]

Writes ``benchmarks/out/gui_latency_<embedder>.md`` and ``.json`` (``--out`` elsewhere).

``--profile-stalls`` prints (on stderr) what happened in the longest heartbeat gaps. A
watchdog thread samples every thread's Python stack (``sys._current_frames``) while the
heartbeat is more than ``--stall-threshold`` ms late, and also whenever the watchdog
itself wakes that late: then some thread kept the GIL (a long C call that does not
release it, or a loop that re-takes it at once, starves the GUI thread too), and the
stacks taken as the GIL comes back show which and where. A profile hook on the GUI
thread records every Python callback Qt makes (slots, timers, qasync handles): a gap
with few callbacks and little Python time is time spent in Qt's C++ code or waiting for
the GIL (``py-spy record --native --idle`` tells those two apart: ``take_gil`` /
``Shiboken::GilState`` frames are waits).
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

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


# --- the stall profiler ------------------------------------------------------------------


def _stack(frame: FrameType | None, depth: int = 14) -> tuple[str, ...]:
    """``file:line func`` from the innermost frame out (at most ``depth`` frames)."""
    out: list[str] = []
    while frame is not None and len(out) < depth:
        code = frame.f_code
        parts = Path(code.co_filename).parts
        short = "/".join(parts[-2:]) if len(parts) >= 2 else code.co_filename
        out.append(f"{short}:{frame.f_lineno} {code.co_name}")
        frame = frame.f_back
    return tuple(out)


@dataclass
class _Sample:
    at: float
    late_ms: float  # how late the heartbeat was when sampled
    starved_ms: float  # how much later than asked the watchdog woke (GIL held elsewhere)
    stacks: dict[str, tuple[str, ...]]  # thread name → stack


class StallProfiler:
    """A watchdog thread that samples every thread while the heartbeat is late.

    The heartbeat sets ``last_beat`` on the GUI thread. The watchdog polls every
    ``poll`` s; once the last beat is more than ``period + threshold`` s old it samples
    ``sys._current_frames()`` every ``interval`` s until the next beat. A watchdog that
    wakes more than ``threshold`` late was kept from the GIL: it samples then too, and
    the stacks show who had it. On the GUI thread a profile hook records each Python
    callback Qt makes (slots, timers, qasync handles): the time between them is Qt's C++
    work or waiting for the GIL.
    """

    def __init__(
        self,
        *,
        period: float = 0.010,
        threshold: float = 0.040,
        poll: float = 0.004,
        interval: float = 0.001,
    ) -> None:
        self.period, self.threshold, self.poll, self.interval = period, threshold, poll, interval
        self.main_ident = threading.main_thread().ident
        self.last_beat = time.perf_counter()
        self.samples: list[_Sample] = []
        # Python callbacks Qt made on the GUI thread: (start, end, name).
        self.callbacks: list[tuple[float, float, str]] = []
        self._open: dict[int, tuple[float, str]] = {}
        self._base: FrameType | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="stall-watchdog", daemon=True)

    def start(self) -> None:
        """Start the watchdog; call on the GUI thread, from inside the running loop."""
        self.last_beat = time.perf_counter()
        # The frame Qt's event loop was entered from: a Python frame whose parent is it
        # is a callback Qt made into Python.
        frame = sys._getframe()
        while frame is not None and frame.f_code.co_name != "run_forever":
            frame = frame.f_back
        self._base = frame
        if frame is not None:
            sys.setprofile(self._trace)
        self._thread.start()

    def stop(self) -> None:
        sys.setprofile(None)
        self._stop.set()
        self._thread.join()

    def _trace(self, frame: FrameType, event: str, _arg: object) -> None:
        if frame.f_back is not self._base:
            return
        if event == "call":
            code = frame.f_code
            where = f"{Path(code.co_filename).name}:{code.co_firstlineno} {code.co_qualname}"
            self._open[id(frame)] = (time.perf_counter(), where)
        elif event == "return":
            started = self._open.pop(id(frame), None)
            if started is not None:
                self.callbacks.append((started[0], time.perf_counter(), started[1]))

    def _sample(self, now: float, late: float, starved: float) -> _Sample:
        names: dict[int | None, str] = {t.ident: t.name for t in threading.enumerate()}
        names[self.main_ident] = "MAIN"
        me = threading.get_ident()
        stacks = {
            names.get(ident, f"thread-{ident}"): _stack(frame)
            for ident, frame in sys._current_frames().items()
            if ident != me
        }
        return _Sample(now, late * 1000, starved * 1000, stacks)

    def _run(self) -> None:
        while not self._stop.is_set():
            stalling = time.perf_counter() - self.last_beat > self.period + self.threshold
            asked = self.interval if stalling else self.poll
            before = time.perf_counter()
            time.sleep(asked)
            now = time.perf_counter()
            starved = now - before - asked
            late = now - self.last_beat - self.period
            if late > self.threshold or starved > self.threshold:
                self.samples.append(self._sample(now, late, starved))

    # --- the report -----------------------------------------------------------------

    def report(self, beats: list[float], *, top: int = 6, stacks: int = 2) -> str:
        """The ``top`` longest gaps between beats: what the GUI thread ran in Python in
        them, and the ``stacks`` most common stacks of each thread sampled in them."""
        limit = self.period + self.threshold
        gaps = sorted(
            ((a, b) for a, b in itertools.pairwise(beats) if b - a > limit),
            key=lambda gap: gap[0] - gap[1],
        )
        starved = [s for s in self.samples if s.starved_ms > self.threshold * 1000]
        lines = [
            f"## Stall profile: {len(gaps)} heartbeat gaps over {limit * 1000:.0f} ms; "
            f"the watchdog was kept from the GIL > {self.threshold * 1000:.0f} ms "
            f"{len(starved)} times",
        ]
        t0 = beats[0] if beats else 0.0
        for a, b in gaps[:top]:
            # Samples taken in the gap, and those taken right after a GIL wait that
            # overlapped it (the watchdog may only get the GIL after the GUI thread).
            inside = [
                s
                for s in self.samples
                if s.at - s.starved_ms / 1000 - self.interval < b and s.at > a
            ]
            lines.append(
                f"\n### stall of {(b - a - self.period) * 1000:.0f} ms at t={a - t0:.2f} s: "
                f"{len(inside)} samples"
                + (
                    f"; the watchdog waited up to {max(s.starved_ms for s in inside):.0f} ms "
                    "for the GIL"
                    if inside
                    else ""
                )
            )
            lines.extend(self._callbacks_in(a, b))
            names = sorted({n for s in inside for n in s.stacks}, key=_thread_order)
            idle: list[str] = []
            for name in names:
                seen = Counter(s.stacks[name] for s in inside if name in s.stacks)
                total = sum(seen.values())
                if name != "MAIN" and all(_idle(stack) for stack in seen):
                    idle.append(name)
                    continue
                for stack, count in seen.most_common(stacks):
                    lines.append(f"  [{name}] {count}/{total} samples:")
                    lines.extend(f"      {frame}" for frame in stack)
            if idle:
                lines.append(f"  idle (waiting): {', '.join(idle)}")
        if self.callbacks:
            span = self.callbacks[-1][1] - self.callbacks[0][0]
            kinds = Counter(name for _, _, name in self.callbacks)
            lines.append(
                f"\n### GUI thread: {len(self.callbacks)} Python callbacks from Qt in "
                f"{span:.1f} s ({len(self.callbacks) / max(span, 1e-9):.0f}/s); each one first "
                "takes the GIL, waiting up to the switch interval "
                f"({sys.getswitchinterval() * 1000:.0f} ms) while another thread runs Python"
            )
            lines.extend(f"      {count} x {name}" for name, count in kinds.most_common(8))
        if starved:
            lines.append("\n### when the watchdog got the GIL back: the busy threads")
            busy = Counter(
                (name, stack[:8])
                for s in starved
                for name, stack in s.stacks.items()
                if name != "MAIN" and not _idle(stack)
            )
            for (name, stack), count in busy.most_common(6):
                lines.append(f"  [{name}] x{count}:")
                lines.extend(f"      {frame}" for frame in stack)
        return "\n".join(lines)

    def _callbacks_in(self, start: float, end: float) -> list[str]:
        """What the GUI thread ran in Python between two beats (the rest of the time it
        was in Qt's C++ code or waiting for the GIL)."""
        inside = [c for c in self.callbacks if start < c[0] < end]
        python = sum(b - a for a, b, _ in inside) * 1000
        lines = [
            f"  GUI thread: {len(inside)} Python callbacks from Qt, {python:.1f} ms running "
            f"Python, {(end - start) * 1000 - python:.0f} ms in Qt's C++ or waiting for the GIL"
        ]
        kinds = Counter(name for _, _, name in inside)
        lines.extend(f"      {count} x {name}" for name, count in kinds.most_common(6))
        return lines


def _thread_order(name: str) -> tuple[int, str]:
    return (0 if name == "MAIN" else 1, name)


def _idle(stack: tuple[str, ...]) -> bool:
    """A thread waiting (lock, queue, select, sleep) rather than working."""
    leaf = stack[0] if stack else ""
    words = (" wait", " _worker", " select", " poll", " get", " sleep", " _check_inotify_fd")
    return any(word in leaf for word in words)


async def _measure(
    kind: str, folder: Path, repeat: int, profiler: StallProfiler | None = None
) -> dict[str, object]:
    from agentmaker.testing import ScriptedLLM
    from agentmaker_desk.bridge.bridge import EngineBridge
    from agentmaker_desk.main_window import MainWindow
    from agentmaker_desk.settings.settings import ApiKeyStore, SettingsStore

    os.environ["AGENTMAKER_DESK_SETTINGS"] = str(folder / "settings.ini")
    bridge = EngineBridge(embedder=_embedder(kind), keys=ApiKeyStore(), read_in_process=True)
    window = MainWindow(bridge, SettingsStore(folder / "settings.ini"), bridge._keys)
    bridge.warm_up()  # as DeskApp.run does before showing the window
    window.show()
    await bridge.open_library(folder / "Library.agentmaker.sqlite")

    beats: list[float] = []
    timer = QTimer()
    timer.setInterval(10)

    def beat() -> None:
        beats.append(time.perf_counter())
        if profiler is not None:
            profiler.last_beat = beats[-1]

    timer.timeout.connect(beat)
    timer.start()
    if profiler is not None:
        profiler.start()
    started = time.perf_counter()
    window.add_paths([str(CORPUS)])
    await asyncio.sleep(0.05)
    await bridge.wait_idle()
    ingest_seconds = time.perf_counter() - started
    timer.stop()
    if profiler is not None:
        profiler.stop()
        print(profiler.report(beats), file=sys.stderr)
    gaps = [b - a for a, b in itertools.pairwise(beats)]
    worst_stall_ms = (max(gaps) - 0.010) * 1000 if gaps else float("nan")
    p99_ms = (sorted(gaps)[int(len(gaps) * 0.99)] - 0.010) * 1000 if gaps else float("nan")

    firsts = []
    for attempt in range(repeat):
        marker = f"answer number {attempt} cites"
        bridge._lib.set_llm(ScriptedLLM([f"The {marker} its source [1]."]))
        editor = window.ask_bar.edit
        editor.setPlainText("How many yoke of oxen hauled the siege guns?")
        pane = window.transcript.browser
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
    parser.add_argument(
        "--profile-stalls",
        action="store_true",
        help="sample every thread's stack while the heartbeat is late (report on stderr)",
    )
    parser.add_argument(
        "--stall-threshold", type=float, default=40.0, help="ms late before sampling starts"
    )
    parser.add_argument("--out", type=Path, default=OUT, help="folder for the .md and .json")
    args = parser.parse_args(argv)
    profiler = StallProfiler(threshold=args.stall_threshold / 1000) if args.profile_stalls else None
    app = QApplication.instance() or QApplication([])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    with tempfile.TemporaryDirectory() as folder:
        try:
            result = loop.run_until_complete(
                _measure(args.embedder, Path(folder), args.repeat, profiler)
            )
        finally:
            loop.close()  # stops the loop's executor threads (QThreads) before exit
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
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
    (out / f"gui_latency_{result['embedder']}.md").write_text("\n".join(lines) + "\n")
    (out / f"gui_latency_{result['embedder']}.json").write_text(json.dumps(result, indent=1))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
