"""ProgressRelay: worker-thread reports reach the GUI thread batched, newest per key."""

from __future__ import annotations

import threading
from typing import Any

from agentmaker_desk.bridge.progress_relay import ProgressRelay


def _push_from_worker(relay: ProgressRelay, reports: list[Any]) -> None:
    def work() -> None:
        for report in reports:
            relay.push(report)

    worker = threading.Thread(target=work)
    worker.start()
    worker.join()


def test_a_burst_from_a_worker_arrives_as_the_newest_report_per_key(qtbot) -> None:
    delivered: list[tuple[str, int]] = []
    relay = ProgressRelay(delivered.append, key=lambda r: r[0])
    relay.start()
    reports = [("a", 1), ("b", 1), ("a", 2), ("c", 1), ("b", 2)]
    reports += [("c", n) for n in range(2, 200)]
    _push_from_worker(relay, reports)
    assert delivered == []  # nothing is delivered on the worker's thread
    qtbot.waitUntil(lambda: bool(delivered))  # the relay's timer delivers
    # One report per key, the most recently updated key last: the newest report is
    # delivered last, so a view that applies them in order ends in the newest state.
    assert delivered == [("a", 2), ("b", 2), ("c", 199)]
    relay.stop()


def test_stop_delivers_what_is_left_and_start_drops_reports_of_abandoned_work(qtbot) -> None:
    delivered: list[tuple[str, int]] = []
    relay = ProgressRelay(delivered.append, key=lambda r: r[0], interval_ms=60_000)
    relay.start()
    _push_from_worker(relay, [("a", 1), ("a", 2)])
    relay.stop()  # the work ended: its last reports come before anything else
    assert delivered == [("a", 2)] and not relay.active

    _push_from_worker(relay, [("late", 1)])  # a cancelled task's thread ran on
    relay.start()
    relay.flush()
    assert delivered == [("a", 2)]
    relay.stop()


def test_without_a_key_only_the_newest_report_is_delivered(qtbot) -> None:
    delivered: list[tuple[int, int]] = []
    relay = ProgressRelay(delivered.append, interval_ms=60_000)
    relay.start()
    _push_from_worker(relay, [(done, 50) for done in range(1, 51)])
    relay.stop()
    assert delivered == [(50, 50)]


def test_warm_up_builds_the_tokenizer_before_any_ingestion(qtbot) -> None:
    # Built lazily on the ingest thread it holds the GIL for ~50-90 ms: a stall.
    from agentmaker.rag.chunking import tokens
    from agentmaker.testing import FakeEmbedder
    from agentmaker_desk.bridge.bridge import EngineBridge
    from agentmaker_desk.settings.settings import ApiKeyStore

    tokens._bundle.cache_clear()
    bridge = EngineBridge(embedder=FakeEmbedder(), keys=ApiKeyStore())
    bridge.warm_up()
    assert tokens._bundle.cache_info().currsize == 1
    assert tokens.get_encoding().encode("hello world") == [15339, 1917]
