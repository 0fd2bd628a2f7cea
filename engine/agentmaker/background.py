"""Background threads that hand results to an asyncio loop, and stop cleanly.

Two things go wrong when an app with worker threads shuts down:

- a worker thread calls ``loop.call_soon_threadsafe`` after the loop closed. Plain
  asyncio raises ``RuntimeError`` in that thread; qasync emits a Qt signal on an object
  that may already be gone, which can crash the process;
- a task that stops a worker (``await asyncio.to_thread(stop)``) is cancelled a second
  time while it waits, so it ends before the worker stopped, and the worker goes on
  posting to the loop.

:class:`LoopPoster` posts to a loop until it is closed (closing waits for a post in
progress, so nothing is posted afterwards) and never posts to a closed loop.
:func:`finish_in_thread` runs a blocking stop in a thread of its own and waits for it
however often the waiting task is cancelled; the thread never touches the loop once the
loop closed.
"""

from __future__ import annotations

import asyncio
import logging
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
log = logging.getLogger(__name__)
#: How long a cancelled background job may take to reach its next step and stop.
STOP_GRACE_S = 10.0


class LoopPoster:
    """Calls ``fn(*args)`` on ``loop`` from any thread, until :meth:`close`.

    A post after :meth:`close`, or once the loop closed, is dropped (returns False).
    """

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._lock = threading.Lock()
        self._open = True

    @property
    def open(self) -> bool:
        """False once closed (by :meth:`close` or because the loop closed)."""
        return self._open and not self._loop.is_closed()

    def __call__(self, fn: Callable[..., Any], *args: Any) -> bool:
        """Post ``fn(*args)``; True when it was handed to the loop."""
        # The lock makes close() wait for a post in progress: after close() returns,
        # no thread is inside call_soon_threadsafe.
        with self._lock:
            if not self._open or self._loop.is_closed():
                return False
            try:
                self._loop.call_soon_threadsafe(fn, *args)
            except RuntimeError:  # the loop closed between the check and the call
                self._open = False
                return False
            return True

    def close(self) -> None:
        """Post nothing from now on (idempotent)."""
        with self._lock:
            self._open = False


def drop(_fn: Callable[..., Any], *_args: Any) -> bool:
    """A poster that delivers nothing (for work whose receiver is gone)."""
    return False


async def finish_in_thread(
    fn: Callable[[], T],
    *,
    name: str = "finish",
    on_cancel: Callable[[], None] | None = None,
    grace: float | None = None,
) -> T:
    """Run the blocking ``fn`` in its own thread and wait for it, even when cancelled.

    Cancelling the waiting task does not abandon ``fn``: ``on_cancel`` is called (e.g.
    a :class:`~agentmaker.rag.ingest.batch.CancelToken`'s ``cancel``, so ``fn`` stops at
    its next step) and the wait goes on until ``fn`` returned, at most ``grace`` seconds
    (None: no limit; then make ``fn`` bounded itself); then ``CancelledError`` is raised,
    once, however many cancels came. So when the task ends, ``fn`` has ended, unless
    it overran ``grace`` (logged; its thread finishes on its own). The thread never
    posts to the loop after the wait ended or the loop closed.
    """
    loop = asyncio.get_running_loop()
    done: asyncio.Future[T] = loop.create_future()
    post = LoopPoster(loop)
    outcome: dict[str, Any] = {}

    def settle() -> None:
        if done.done():
            return
        if "error" in outcome:
            done.set_exception(outcome["error"])
        else:
            done.set_result(outcome["value"])

    def work() -> None:
        try:
            outcome["value"] = fn()
        except BaseException as error:  # handed to the waiting task
            outcome["error"] = error
        post(settle)

    thread = threading.Thread(target=work, name=name, daemon=True)
    thread.start()
    cancelled = False
    give_up_at: float | None = None  # set by the first cancel when there is a grace period
    try:
        while True:
            try:
                if give_up_at is None:
                    result = await asyncio.shield(done)
                else:
                    left = give_up_at - loop.time()
                    if left <= 0:
                        raise TimeoutError
                    result = await asyncio.wait_for(asyncio.shield(done), left)
            except asyncio.CancelledError:
                if not cancelled and on_cancel is not None:
                    on_cancel()
                cancelled = True
                if done.done():
                    raise
                if grace is not None and give_up_at is None:
                    give_up_at = loop.time() + grace
                continue
            except TimeoutError:
                log.warning("%s did not stop within %.1f s; it ends on its own", name, grace)
                raise asyncio.CancelledError from None
            if cancelled:
                raise asyncio.CancelledError
            return result
    finally:
        post.close()
