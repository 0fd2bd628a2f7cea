"""Rerank with Cohere's v2 rerank API (``POST {base_url}/v2/rerank``) over httpx.

Retries 429 and 5xx answers, timeouts and dropped connections with exponential
backoff (honouring ``Retry-After``), maps failures to the engine's typed errors, and
returns copies of the candidates with ``score`` and ``metadata["rerank_score"]`` set
to Cohere's relevance score. The API key never appears in messages or logs.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import os
import random
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any
from urllib.parse import urlsplit

import httpx
from agentmaker.errors import (
    ConfigurationError,
    ModelAuthenticationError,
    ModelConnectionError,
    ModelError,
    ModelNotFoundError,
    ModelRateLimitError,
    ModelResponseError,
)
from agentmaker.retrieval.ports import Reranker
from agentmaker.retrieval.types import RetrievalResult

log = logging.getLogger(__name__)

COHERE_BASE_URL = "https://api.cohere.com"
_COHERE_HOSTS = ("api.cohere.com", "api.cohere.ai")


class _Retryable(Exception):
    """Internal: a failed attempt worth retrying, with the error to raise at the end."""

    def __init__(self, error: ModelError, retry_after: float | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after


class CohereReranker(Reranker):
    """Cross-encoder reranking by Cohere (``rerank-v3.5`` by default)."""

    def __init__(
        self,
        model: str = "rerank-v3.5",
        *,
        api_key: str | None = None,
        base_url: str = COHERE_BASE_URL,
        timeout: float = 30,
        max_retries: int = 3,
        retry_backoff: float = 0.5,
        max_backoff: float = 20.0,
        max_documents: int = 1000,
    ) -> None:
        if max_documents < 1:
            raise ConfigurationError(f"max_documents must be at least 1, not {max_documents}.")
        self.model = model
        self.base_url = base_url.rstrip("/")
        host = (urlsplit(self.base_url).hostname or "").lower()
        # $CO_API_KEY is only ever sent to Cohere itself.
        self._api_key = api_key or (os.environ.get("CO_API_KEY") if host in _COHERE_HOSTS else None)
        self._needs_key = host in _COHERE_HOSTS
        self.timeout = float(timeout)
        self.max_retries = max_retries
        self.retry_backoff = retry_backoff
        self.max_backoff = max_backoff
        self.max_documents = max_documents
        self._client: httpx.Client | None = None
        self._aclient: httpx.AsyncClient | None = None
        self._aclient_loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return f"CohereReranker(model={self.model!r}, base_url={self._url()!r})"

    # --- plumbing ------------------------------------------------------------------

    def _url(self) -> str:
        parts = urlsplit(self.base_url)
        netloc = parts.hostname or ""
        if parts.port:
            netloc += f":{parts.port}"
        return f"{parts.scheme}://{netloc}{parts.path}"

    def _headers(self) -> dict[str, str]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        elif self._needs_key:
            raise ModelAuthenticationError(
                "No Cohere API key is set. Add it in Settings (or set CO_API_KEY)."
            )
        return headers

    def _scrub(self, text: str) -> str:
        if self._api_key and len(self._api_key) >= 4:
            text = text.replace(self._api_key, "***")
        return text

    def _get_client(self) -> httpx.Client:
        if self._client is None:
            self._client = httpx.Client(timeout=self.timeout)
        return self._client

    def _get_aclient(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        if self._aclient is None or self._aclient_loop is not loop:
            self._aclient = httpx.AsyncClient(timeout=self.timeout)
            self._aclient_loop = loop
        return self._aclient

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        delay = min(self.max_backoff, self.retry_backoff * 2**attempt) * (0.5 + random.random() / 2)
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.max_backoff))
        return delay

    def _payload(self, query: str, documents: list[str], top_n: int) -> dict[str, Any]:
        return {"model": self.model, "query": query, "documents": documents, "top_n": top_n}

    def _detail(self, response: httpx.Response) -> str:
        try:
            body = response.json()
        except ValueError:
            return self._scrub(response.text[:200].strip())
        message = body.get("message") if isinstance(body, dict) else None
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            message = body["error"].get("message") or message
        return self._scrub(str(message or body)[:300])

    def _check(self, response: httpx.Response) -> Any:
        """The parsed body of a 200 response; raises typed (or retryable) errors."""
        url = self._url()
        status = response.status_code
        if status == 200:
            try:
                return response.json()
            except ValueError as error:
                raise ModelResponseError(
                    f"The reranker at {url} answered with something that is not JSON."
                ) from error
        detail = self._detail(response)
        if status in (401, 403):
            raise ModelAuthenticationError(
                f"The server at {url} rejected the API key. Check the key in Settings."
            )
        if status == 404:
            raise ModelNotFoundError(
                f"The reranker at {url} has no model {self.model!r} ({detail}). "
                "Pick another rerank model in Settings (e.g. rerank-v3.5).",
                [],
            )
        retry_after = _retry_after(response)
        if status == 429:
            raise _Retryable(
                ModelRateLimitError(
                    f"The reranker at {url} kept answering 'too many requests' (429) after "
                    f"{self.max_retries} retries. Wait a minute and try again."
                ),
                retry_after,
            )
        if status >= 500 or status == 408:
            raise _Retryable(
                ModelError(
                    f"The reranker at {url} failed with HTTP {status} after {self.max_retries} "
                    f"retries ({detail}). Try again later."
                ),
                retry_after,
            )
        raise ModelResponseError(
            f"The reranker at {url} rejected the request (HTTP {status}): {detail}"
        )

    def _transport_error(self, error: httpx.HTTPError) -> ModelError | _Retryable:
        url = self._url()
        if isinstance(error, httpx.TimeoutException):
            return _Retryable(
                ModelConnectionError(
                    f"The reranker at {url} did not answer within {self.timeout:g} s. "
                    "Try again, or raise the timeout in Settings."
                )
            )
        if isinstance(error, httpx.ConnectError):
            return ModelConnectionError(
                f"Could not reach {url}. Check the address in Settings and your internet "
                "connection."
            )
        return _Retryable(
            ModelConnectionError(f"The connection to the reranker at {url} failed. Try again.")
        )

    def _results(
        self, body: Any, candidates: Sequence[RetrievalResult], offset: int, count: int
    ) -> list[tuple[float, int]]:
        results = body.get("results") if isinstance(body, dict) else None
        if not isinstance(results, list):
            raise ModelResponseError(f"The reranker at {self._url()} sent no 'results' list.")
        scored: list[tuple[float, int]] = []
        for item in results:
            index = item.get("index") if isinstance(item, dict) else None
            score = item.get("relevance_score") if isinstance(item, dict) else None
            if (
                not isinstance(index, int)
                or isinstance(index, bool)
                or not 0 <= index < count
                or not isinstance(score, int | float)
            ):
                raise ModelResponseError(
                    f"The reranker at {self._url()} sent an invalid result {item!r}."
                )
            scored.append((float(score), offset + index))
        return scored

    @staticmethod
    def _finish(
        candidates: Sequence[RetrievalResult], scored: list[tuple[float, int]], top_k: int
    ) -> list[RetrievalResult]:
        best: dict[int, float] = {}
        for score, index in scored:
            best[index] = max(score, best.get(index, float("-inf")))
        order = sorted(best.items(), key=lambda kv: (-kv[1], kv[0]))[:top_k]
        out = []
        for index, score in order:
            item = candidates[index]
            out.append(
                replace(item, score=score, metadata={**item.metadata, "rerank_score": score})
            )
        return out

    def _slices(self, n: int) -> list[tuple[int, int]]:
        return [(i, min(n, i + self.max_documents)) for i in range(0, n, self.max_documents)]

    # --- the port ------------------------------------------------------------------

    def rerank(
        self, query: str, candidates: Sequence[RetrievalResult], *, top_k: int
    ) -> list[RetrievalResult]:
        requests = self._requests(query, candidates, top_k)
        if not requests:
            return []
        headers, client = self._headers(), self._get_client()
        scored: list[tuple[float, int]] = []
        for start, end, payload in requests:
            for attempt in itertools.count():
                try:
                    try:
                        response = client.post(self._endpoint(), json=payload, headers=headers)
                    except httpx.HTTPError as error:
                        raise self._transport_error(error) from None
                    body = self._check(response)
                    break
                except _Retryable as retry:
                    time.sleep(self._retry_delay(retry, attempt))
            scored += self._results(body, candidates, start, end - start)
        return self._finish(candidates, scored, top_k)

    async def arerank(
        self, query: str, candidates: Sequence[RetrievalResult], *, top_k: int
    ) -> list[RetrievalResult]:
        requests = self._requests(query, candidates, top_k)
        if not requests:
            return []
        headers, client = self._headers(), self._get_aclient()
        scored: list[tuple[float, int]] = []
        for start, end, payload in requests:
            for attempt in itertools.count():
                try:
                    try:
                        response = await client.post(
                            self._endpoint(), json=payload, headers=headers
                        )
                    except httpx.HTTPError as error:
                        raise self._transport_error(error) from None
                    body = self._check(response)
                    break
                except _Retryable as retry:
                    await asyncio.sleep(self._retry_delay(retry, attempt))
            scored += self._results(body, candidates, start, end - start)
        return self._finish(candidates, scored, top_k)

    def _requests(
        self, query: str, candidates: Sequence[RetrievalResult], top_k: int
    ) -> list[tuple[int, int, dict[str, Any]]]:
        """``(start, end, payload)`` per request: at most ``max_documents`` each."""
        if top_k < 1:
            raise ConfigurationError(f"top_k must be at least 1, not {top_k}.")
        out = []
        for start, end in self._slices(len(candidates)):
            docs = [c.content for c in candidates[start:end]]
            out.append((start, end, self._payload(query, docs, min(top_k, len(docs)))))
        return out

    def _endpoint(self) -> str:
        return f"{self.base_url}/v2/rerank"

    def _retry_delay(self, retry: _Retryable, attempt: int) -> float:
        """Seconds to wait before retry ``attempt + 1``; the error once retries are spent."""
        if attempt >= self.max_retries:
            raise retry.error from None
        delay = self._delay(attempt, retry.retry_after)
        log.info("rerank failed; retry %d in %.2f s", attempt + 1, delay)
        return delay

    def close(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            client.close()

    async def aclose(self) -> None:
        aclient, self._aclient, self._aclient_loop = self._aclient, None, None
        if aclient is not None:
            await aclient.aclose()
        self.close()


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None
