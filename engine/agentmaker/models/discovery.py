"""Find language-model servers running on this computer (Ollama, LM Studio).

Only the loopback address is probed - by default ``http://127.0.0.1:11434`` (Ollama) and
``http://127.0.0.1:1234`` (LM Studio) - concurrently, with short timeouts and without
proxies, so discovery never talks to another machine and returns in well under a
second when nothing listens.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import urlsplit

import httpx
from agentmaker.errors import ConfigurationError

ServerKind = Literal["ollama", "lmstudio"]

#: ``(kind, root URL)`` probed by default.
DEFAULT_PROBES: tuple[tuple[ServerKind, str], ...] = (
    ("ollama", "http://127.0.0.1:11434"),
    ("lmstudio", "http://127.0.0.1:1234"),
)


@dataclass(frozen=True)
class LocalServer:
    """A model server found on this computer.

    ``base_url`` is its OpenAI-compatible address (ending in ``/v1``), ready for
    :class:`~agentmaker.models.openai_llm.OpenAICompatibleLLM` and
    :class:`~agentmaker.models.openai_embedder.OpenAIEmbedder`.
    """

    kind: ServerKind
    base_url: str
    models: list[str] = field(default_factory=list)


def _check_loopback(url: str) -> None:
    host = urlsplit(url).hostname or ""
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = host == "localhost"
    if not loopback:
        raise ConfigurationError(f"Discovery only probes this computer (127.0.0.1), not {url!r}.")


def _model_ids(payload: Any, list_key: str, id_key: str) -> list[str] | None:
    if not isinstance(payload, dict) or not isinstance(payload.get(list_key), list):
        return None
    ids = []
    for item in payload[list_key]:
        if isinstance(item, dict) and isinstance(item.get(id_key), str):
            ids.append(item[id_key])
    return ids


async def _get_json(client: httpx.AsyncClient, url: str) -> Any:
    try:
        response = await client.get(url)
        if response.status_code != 200:
            return None
        return response.json()
    except (httpx.HTTPError, ValueError):
        return None


async def _probe(client: httpx.AsyncClient, kind: ServerKind, root: str) -> LocalServer | None:
    root = root.rstrip("/")
    if kind == "ollama":
        models = _model_ids(await _get_json(client, f"{root}/api/tags"), "models", "name")
        if models is None:  # older or proxied Ollama: try the OpenAI-compatible route
            models = _model_ids(await _get_json(client, f"{root}/v1/models"), "data", "id")
    else:
        models = _model_ids(await _get_json(client, f"{root}/v1/models"), "data", "id")
    if models is None:
        return None
    return LocalServer(kind=kind, base_url=f"{root}/v1", models=models)


async def discover_local_servers(
    timeout: float = 0.3,
    *,
    probes: Sequence[tuple[ServerKind, str]] | None = None,
) -> list[LocalServer]:
    """The local model servers that answer, in probe order (empty when none does).

    ``probes`` overrides the ``(kind, root URL)`` pairs (tests use other ports); every
    URL must be a loopback address.
    """
    targets = list(DEFAULT_PROBES if probes is None else probes)
    for kind, url in targets:
        if kind not in ("ollama", "lmstudio"):
            raise ConfigurationError(f"Unknown server kind {kind!r}: use 'ollama' or 'lmstudio'.")
        _check_loopback(url)
    if not targets:
        return []
    async with httpx.AsyncClient(
        timeout=httpx.Timeout(timeout),
        trust_env=False,  # no proxies: the request must stay on this computer
        follow_redirects=False,
    ) as client:
        try:
            async with asyncio.timeout(timeout * 2 + 0.2):  # overall cap (two calls max)
                found = await asyncio.gather(*(_probe(client, k, u) for k, u in targets))
        except TimeoutError:
            return []
    return [server for server in found if server is not None]
