"""discover_local_servers: finds Ollama/LM Studio on loopback, and nothing else."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest
from agentmaker.errors import ConfigurationError
from agentmaker.models.discovery import DEFAULT_PROBES, LocalServer, discover_local_servers
from agentmaker.testing.openai_server import FakeOpenAIServer


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_default_probes_are_loopback_only() -> None:
    assert DEFAULT_PROBES == (
        ("ollama", "http://127.0.0.1:11434"),
        ("lmstudio", "http://127.0.0.1:1234"),
    )


def test_finds_fake_ollama_and_lmstudio() -> None:
    with (
        FakeOpenAIServer(models=["llama3.2:latest", "nomic-embed-text:latest"]) as ollama,
        FakeOpenAIServer(models=["qwen2.5-7b-instruct"]) as lmstudio,
    ):
        found = asyncio.run(
            discover_local_servers(
                probes=[("ollama", ollama.root_url), ("lmstudio", lmstudio.root_url)]
            )
        )
    assert found == [
        LocalServer("ollama", ollama.base_url, ["llama3.2:latest", "nomic-embed-text:latest"]),
        LocalServer("lmstudio", lmstudio.base_url, ["qwen2.5-7b-instruct"]),
    ]
    assert [r.path for r in ollama.requests] == ["/api/tags"]
    assert [r.path for r in lmstudio.requests] == ["/v1/models"]


def test_ollama_falls_back_to_openai_route() -> None:
    with FakeOpenAIServer(models=["m1"]) as ollama:
        ollama.enqueue_error(404, path="/api/tags")
        found = asyncio.run(discover_local_servers(probes=[("ollama", ollama.root_url)]))
    assert found == [LocalServer("ollama", ollama.base_url, ["m1"])]


def test_nothing_listening_returns_empty_quickly() -> None:
    probes = [
        ("ollama", f"http://127.0.0.1:{free_port()}"),
        ("lmstudio", f"http://127.0.0.1:{free_port()}"),
    ]
    started = time.perf_counter()
    assert asyncio.run(discover_local_servers(probes=probes)) == []
    assert time.perf_counter() - started < 3.0  # no waiting on closed ports (load-safe bound)


def test_hanging_server_is_cut_off_by_the_timeout() -> None:
    with FakeOpenAIServer() as slow, FakeOpenAIServer(models=["ok"]) as fine:
        slow.enqueue_hang(3)
        slow.enqueue_hang(3)
        started = time.perf_counter()
        found = asyncio.run(
            discover_local_servers(
                timeout=0.2, probes=[("ollama", slow.root_url), ("lmstudio", fine.root_url)]
            )
        )
        elapsed = time.perf_counter() - started
    assert found == [LocalServer("lmstudio", fine.base_url, ["ok"])]
    assert elapsed < 2.5  # cut off, not waiting for the 3 s hang


def test_non_json_answer_is_ignored() -> None:
    with FakeOpenAIServer() as srv:
        srv.enqueue_error(200, body={"unexpected": True}, path="/v1/models")
        assert asyncio.run(discover_local_servers(probes=[("lmstudio", srv.root_url)])) == []


@pytest.mark.parametrize(
    "url", ["http://192.168.1.10:11434", "http://example.com:1234", "http://10.0.0.1"]
)
def test_refuses_other_hosts(url: str) -> None:
    with pytest.raises(ConfigurationError, match="only probes this computer"):
        asyncio.run(discover_local_servers(probes=[("ollama", url)]))
