"""The event loop while the built-in model writes: longest stall, and how fast Stop stops.

A Qt event loop (qasync, offscreen) runs a 10 ms heartbeat QTimer while
:class:`LlamaCppLLM` streams answers, with llama.cpp in a child process (the default;
tokens arrive over its loopback port) or in a worker thread of this process
(``--isolation thread``: llama.cpp computes with the GIL released). Each token crosses
to the loop with ``call_soon_threadsafe``. Reported:
the longest gap between beats minus the period (target < 100 ms), and the time from
closing the stream mid-answer to the stream having returned (target < 200 ms).

    python -m benchmarks.llm_latency --model PATH.gguf [--threads 2] [--repeat 3]
        [--isolation process|thread]
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import os
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")

import qasync
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

OUT = Path(__file__).resolve().parent / "out"


async def _measure(model: Path, threads: int, repeat: int, isolation: str) -> dict:
    from agentmaker.models.llama_cpp import LlamaCppLLM
    from agentmaker.models.llm import ChatMessage

    llm = LlamaCppLLM(
        model,
        n_ctx=2048,
        answer_tokens=160,
        threads=threads,
        idle_unload_s=None,
        isolation=isolation,  # type: ignore[arg-type]
    )
    prompt = [ChatMessage("user", "Write a long story about a lighthouse keeper. " * 8)]
    beats: list[float] = []
    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(lambda: beats.append(time.perf_counter()))
    await asyncio.to_thread(llm.load)
    # Baseline: the same heartbeat with the model idle, to tell the machine's own noise
    # (other processes on the cores) from stalls that generating causes.
    timer.start()
    await asyncio.sleep(20)
    idle = [b - a for a, b in itertools.pairwise(beats)]
    beats.clear()
    stops, tokens = [], 0
    try:
        for _ in range(repeat):
            async for _piece in llm.stream(prompt, max_tokens=120):
                tokens += 1
            stream = llm.stream(prompt, max_tokens=400)
            got = 0
            async for _piece in stream:
                got += 1
                if got == 10:
                    break
            started = time.perf_counter()
            await stream.aclose()
            stops.append((time.perf_counter() - started) * 1000)
            # Wait for the worker to be free again (llama.cpp stopped at its next token).
            await asyncio.to_thread(lambda: llm._worker.submit(lambda: None).result())
    finally:
        timer.stop()
        llm.close()
    gaps = [b - a for a, b in itertools.pairwise(beats)]
    return {
        "model": model.name,
        "isolation": isolation,
        "threads": threads,
        "tokens_streamed": tokens,
        "beats": len(beats),
        "worst_stall_ms": (max(gaps) - 0.010) * 1000,
        "idle_worst_stall_ms": (max(idle) - 0.010) * 1000,
        "idle_p99_gap_ms": (sorted(idle)[int(len(idle) * 0.99)] - 0.010) * 1000,
        "p99_gap_ms": (sorted(gaps)[int(len(gaps) * 0.99)] - 0.010) * 1000,
        "stop_ms_max": max(stops),
        "load": ", ".join(f"{x:.2f}" for x in os.getloadavg()),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", type=Path, required=True)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--isolation", choices=("process", "thread"), default="process")
    args = parser.parse_args(argv)
    app = QApplication.instance() or QApplication([])
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    try:
        result = loop.run_until_complete(
            _measure(args.model, args.threads, args.repeat, args.isolation)
        )
    finally:
        loop.close()
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"llm_latency_{args.isolation}.json").write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
