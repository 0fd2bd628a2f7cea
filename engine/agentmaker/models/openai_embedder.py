"""Embeddings from an OpenAI-compatible ``/v1/embeddings`` endpoint (OpenAI, Ollama,
LM Studio, llama.cpp, vLLM).

Texts are sent in batches of at most ``batch_size`` texts and ``max_request_chars``
characters; 429/5xx answers, timeouts and dropped connections are retried with
exponential backoff (see :class:`~agentmaker.models.openai_llm.RetryPolicy`). Vectors
are returned L2-normalised as float32 (cosine similarity is unchanged by this).
"""

from __future__ import annotations

import asyncio
import base64
import threading
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import openai
from agentmaker.errors import (
    ConfigurationError,
    ModelAuthenticationError,
    ModelError,
    ModelResponseError,
)
from agentmaker.models.openai_llm import (
    RetryPolicy,
    acall_with_retries,
    call_with_retries,
    display_url,
    host_of,
    map_openai_error,
    resolve_api_key,
    resolve_base_url,
)
from agentmaker.retrieval.ports import Embedder, ModelFingerprint

#: Text embedded to learn the dimension when it was not given.
PROBE_TEXT = "dimension probe"


class OpenAIEmbedder(Embedder):
    """An embedding model behind an OpenAI-compatible API.

    The dimension is ``dimensions`` when given; otherwise it is learnt from the first
    response (reading :attr:`fingerprint` before any embed sends one probe request).
    """

    def __init__(
        self,
        model: str = "text-embedding-3-small",
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        dimensions: int | None = None,
        batch_size: int = 256,
        timeout: float = 30,
        max_retries: int = 4,
        retry_backoff: float = 0.5,
        max_request_chars: int = 200_000,
    ) -> None:
        if batch_size < 1:
            raise ConfigurationError(f"batch_size must be at least 1, not {batch_size}.")
        if dimensions is not None and dimensions < 1:
            raise ConfigurationError(f"dimensions must be at least 1, not {dimensions}.")
        if max_request_chars < 1:
            raise ConfigurationError(
                f"max_request_chars must be at least 1, not {max_request_chars}."
            )
        self.model = model
        self.base_url = resolve_base_url(base_url)
        self._api_key = resolve_api_key(api_key, self.base_url)
        self.dimensions = dimensions
        self.batch_size = min(batch_size, 2048)  # OpenAI's limit of inputs per request
        self.max_request_chars = max_request_chars
        self.timeout = float(timeout)
        self.retry = RetryPolicy(max_retries=max_retries, backoff=retry_backoff)
        self._dimension: int | None = dimensions
        self._lock = threading.Lock()
        self._client: openai.OpenAI | None = None
        self._aclient: openai.AsyncOpenAI | None = None
        self._aclient_loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return f"OpenAIEmbedder(model={self.model!r}, base_url={display_url(self.base_url)!r})"

    # --- identity ------------------------------------------------------------------

    @property
    def fingerprint(self) -> ModelFingerprint:
        if self._dimension is None:
            self.embed_batch([PROBE_TEXT])
        assert self._dimension is not None
        return ModelFingerprint(f"openai:{self.model}@{host_of(self.base_url)}", self._dimension)

    async def aresolve_dimension(self) -> int:
        """The dimension, probing the server (without blocking the loop) when unknown."""
        if self._dimension is None:
            await self.aembed_batch([PROBE_TEXT])
        assert self._dimension is not None
        return self._dimension

    # --- clients -------------------------------------------------------------------

    def _check_key(self) -> str:
        if self._api_key is None:
            raise ModelAuthenticationError(
                f"No API key is set for {display_url(self.base_url)}. Add your key in Settings "
                "(or set OPENAI_API_KEY)."
            ).coded("auth_missing", url=display_url(self.base_url))
        return self._api_key

    def _timeout(self) -> openai.Timeout:
        return openai.Timeout(self.timeout, connect=min(10.0, self.timeout))

    def _get_client(self) -> openai.OpenAI:
        with self._lock:
            if self._client is None:
                self._client = openai.OpenAI(
                    api_key=self._check_key(),
                    base_url=self.base_url,
                    timeout=self._timeout(),
                    max_retries=0,
                )
            return self._client

    def _get_aclient(self) -> openai.AsyncOpenAI:
        loop = asyncio.get_running_loop()
        if self._aclient is None or self._aclient_loop is not loop:
            self._aclient = openai.AsyncOpenAI(
                api_key=self._check_key(),
                base_url=self.base_url,
                timeout=self._timeout(),
                max_retries=0,
            )
            self._aclient_loop = loop
        return self._aclient

    # --- batching and parsing ------------------------------------------------------

    def _batches(self, texts: Sequence[str]) -> Iterator[list[str]]:
        batch: list[str] = []
        chars = 0
        for text in texts:
            # Servers reject empty inputs; a space embeds as "nothing" consistently.
            text = text if text.strip() else " "
            if batch and (
                len(batch) >= self.batch_size or chars + len(text) > self.max_request_chars
            ):
                yield batch
                batch, chars = [], 0
            batch.append(text)
            chars += len(text)
        if batch:
            yield batch

    def _request(self, batch: list[str]) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self.model,
            "input": batch,
            "encoding_format": "float",
        }
        if self.dimensions is not None:
            request["dimensions"] = self.dimensions
        return request

    def _parse(self, response: Any, expected: int) -> np.ndarray:
        url = display_url(self.base_url)
        data = getattr(response, "data", None)
        if not isinstance(data, list) or len(data) != expected:
            got = len(data) if isinstance(data, list) else "no"
            raise ModelResponseError(
                f"The server at {url} returned {got} embeddings for {expected} texts."
            )
        rows: list[np.ndarray] = [np.zeros(0, dtype=np.float32)] * expected
        seen: set[int] = set()
        for position, item in enumerate(data):
            index = getattr(item, "index", position)
            if not isinstance(index, int) or not 0 <= index < expected or index in seen:
                index = position
            seen.add(index)
            raw = getattr(item, "embedding", None)
            try:
                if isinstance(raw, str):
                    vector = np.frombuffer(base64.b64decode(raw), dtype="<f4")
                else:
                    vector = np.asarray(raw, dtype=np.float32)
            except (TypeError, ValueError) as error:
                raise ModelResponseError(
                    f"The server at {url} returned an embedding that is not a list of numbers."
                ) from error
            if vector.ndim != 1 or vector.size == 0 or not np.all(np.isfinite(vector)):
                raise ModelResponseError(
                    f"The server at {url} returned an empty or invalid embedding."
                )
            rows[index] = vector.astype(np.float32, copy=False)
        sizes = {row.size for row in rows}
        if len(sizes) != 1:
            raise ModelResponseError(
                f"The server at {url} returned embeddings of different lengths {sorted(sizes)}."
            )
        dim = sizes.pop()
        if self.dimensions is not None and dim != self.dimensions:
            raise ModelResponseError(
                f"The server at {url} returned {dim}-dimensional embeddings, but {self.dimensions} "
                f"were requested: {self.model!r} may not support the 'dimensions' option."
            )
        with self._lock:
            if self._dimension is None:
                self._dimension = dim
            elif dim != self._dimension:
                raise ModelResponseError(
                    f"The server at {url} returned {dim}-dimensional embeddings after earlier "
                    f"{self._dimension}-dimensional ones: did the model behind {self.model!r} "
                    "change?"
                )
        matrix = np.stack(rows)
        norms = np.linalg.norm(matrix, axis=1, keepdims=True)
        return (matrix / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)

    def _empty(self) -> np.ndarray:
        return np.zeros((0, self._dimension or 0), dtype=np.float32)

    def _map(self, error: BaseException, available: list[str] | None = None) -> ModelError:
        return map_openai_error(
            error,
            base_url=self.base_url,
            model=self.model,
            api_key=self._api_key,
            retries=self.retry.max_retries,
            timeout=self.timeout,
            available=available,
            what="embedding request",
        )

    # --- embedding -----------------------------------------------------------------

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed_batch takes a sequence of texts; use embed() for one text.")
        if len(texts) == 0:
            return self._empty()
        client = self._get_client()
        parts = []
        for batch in self._batches(texts):
            request = self._request(batch)

            def call(request: dict[str, Any] = request) -> Any:
                return client.embeddings.create(**request)

            try:
                response = call_with_retries(call, self.retry, "embedding request")
            except openai.OpenAIError as error:
                available = None
                if isinstance(error, openai.NotFoundError):
                    available = self._available_sync(client)
                raise self._map(error, available) from None
            except ValueError as error:  # malformed JSON
                raise self._map(error) from None
            parts.append(self._parse(response, len(batch)))
        return np.concatenate(parts)

    async def aembed_batch(self, texts: Sequence[str]) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("aembed_batch takes a sequence of texts; use aembed() for one text.")
        if len(texts) == 0:
            return self._empty()
        client = self._get_aclient()
        parts = []
        for batch in self._batches(texts):
            request = self._request(batch)

            async def call(request: dict[str, Any] = request) -> Any:
                return await client.embeddings.create(**request)

            try:
                response = await acall_with_retries(call, self.retry, "embedding request")
            except openai.OpenAIError as error:
                available = None
                if isinstance(error, openai.NotFoundError):
                    available = await self._available_async(client)
                raise self._map(error, available) from None
            except ValueError as error:
                raise self._map(error) from None
            parts.append(self._parse(response, len(batch)))
        return np.concatenate(parts)

    def _available_sync(self, client: openai.OpenAI) -> list[str] | None:
        try:
            return [m.id for m in client.models.list().data]
        except Exception:  # best effort: the 404 is the error to report
            return None

    async def _available_async(self, client: openai.AsyncOpenAI) -> list[str] | None:
        try:
            page = await client.models.list()
            return [m.id for m in page.data]
        except Exception:
            return None

    def list_models(self) -> list[str]:
        """Ids of the models the server offers (``GET /v1/models``)."""
        client = self._get_client()
        try:
            page = call_with_retries(client.models.list, self.retry, "model list")
        except openai.OpenAIError as error:
            raise self._map(error) from None
        return [m.id for m in page.data]

    # --- lifecycle -----------------------------------------------------------------

    def close(self) -> None:
        """Close the sync client and forget the async one (use :meth:`aclose` in async code)."""
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()
        self._aclient, self._aclient_loop = None, None

    async def aclose(self) -> None:
        """Close both clients."""
        aclient, self._aclient, self._aclient_loop = self._aclient, None, None
        if aclient is not None:
            await aclient.close()
        self.close()
