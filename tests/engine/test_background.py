"""Posting from worker threads to a loop, and stops that survive repeated cancellation."""

from __future__ import annotations

import asyncio
import threading
import time

import pytest
from agentmaker.background import LoopPoster, finish_in_thread


def test_a_poster_drops_posts_once_closed_or_once_the_loop_closed() -> None:
    loop = asyncio.new_event_loop()
    got: list[int] = []
    post = LoopPoster(loop)
    assert post(got.append, 1)
    loop.run_until_complete(asyncio.sleep(0))
    assert got == [1]
    loop.close()
    # Plain call_soon_threadsafe raises RuntimeError here (qasync: a signal on a dead object).
    assert post(got.append, 2) is False
    assert not post.open
    other = LoopPoster(asyncio.new_event_loop())
    other.close()
    assert other(got.append, 3) is False
    assert got == [1]


def test_the_wait_survives_repeated_cancellation_and_ends_after_the_work() -> None:
    ended = threading.Event()
    cancels: list[int] = []

    def stop() -> str:
        time.sleep(0.3)
        ended.set()
        return "stopped"

    async def main() -> None:
        task = asyncio.ensure_future(finish_in_thread(stop, on_cancel=lambda: cancels.append(1)))
        await asyncio.sleep(0.02)
        for _ in range(5):
            task.cancel()
            await asyncio.sleep(0.01)
        with pytest.raises(asyncio.CancelledError):
            await task
        assert ended.is_set(), "the task ended before the work it waited for"

    asyncio.run(main())
    assert cancels == [1]  # on_cancel once, however many cancels


def test_a_result_and_an_error_come_back_when_not_cancelled() -> None:
    def fail() -> None:
        raise ValueError("broken")

    async def main() -> None:
        assert await finish_in_thread(lambda: 42) == 42
        with pytest.raises(ValueError, match="broken"):
            await finish_in_thread(fail)

    asyncio.run(main())


def test_work_overrunning_its_grace_is_left_and_never_posts_to_the_closed_loop() -> None:
    release = threading.Event()
    finished = threading.Event()
    errors: list[BaseException] = []
    hook = threading.excepthook
    threading.excepthook = lambda args: errors.append(args.exc_value)  # type: ignore[assignment]

    def stuck() -> None:
        release.wait(5)
        finished.set()

    async def main() -> None:
        task = asyncio.ensure_future(finish_in_thread(stuck, grace=0.1))
        await asyncio.sleep(0.02)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    try:
        asyncio.run(main())
        release.set()
        assert finished.wait(5)
        time.sleep(0.05)
    finally:
        threading.excepthook = hook
    assert errors == []
