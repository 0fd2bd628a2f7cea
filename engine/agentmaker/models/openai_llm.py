"""Chat models behind an OpenAI-compatible API: OpenAI, Ollama, LM Studio, llama.cpp, vLLM.

Also home of what the OpenAI-based clients share: base-URL and API-key resolution,
the retry policy (our own loop; the SDK's retries are off so that the behaviour is
explicit and testable) and the mapping of ``openai`` exceptions to the engine's typed
errors with actionable messages. API keys never appear in messages or logs.
"""

from __future__ import annotations

import asyncio
import logging
import os
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import urlsplit, urlunsplit

import openai
from agentmaker.errors import (
    ContextTooLongError,
    ModelAuthenticationError,
    ModelConnectionError,
    ModelError,
    ModelNotFoundError,
    ModelRateLimitError,
    ModelResponseError,
)
from agentmaker.models.llm import ChatMessage, LLMClient

log = logging.getLogger(__name__)

T = TypeVar("T")

OPENAI_BASE_URL = "https://api.openai.com/v1"
#: Sent as the key to servers that need none (Ollama, LM Studio); the SDK insists on one.
NO_KEY = "not-needed"
OLLAMA_PORT = 11434
LMSTUDIO_PORT = 1234


# --- URLs and keys -------------------------------------------------------------------


def resolve_base_url(base_url: str | None) -> str:
    """``base_url``, else ``$OPENAI_BASE_URL``, else OpenAI's; without a trailing slash."""
    url = base_url or os.environ.get("OPENAI_BASE_URL") or OPENAI_BASE_URL
    return url.rstrip("/")


def is_openai_host(base_url: str) -> bool:
    return (urlsplit(base_url).hostname or "").lower() == "api.openai.com"


def resolve_api_key(api_key: str | None, base_url: str) -> str | None:
    """The key to send: ``api_key``; else ``$OPENAI_API_KEY`` for api.openai.com only
    (never sent to other hosts); else :data:`NO_KEY` for other servers. None means
    OpenAI itself with no key configured."""
    if api_key:
        return api_key
    if is_openai_host(base_url):
        return os.environ.get("OPENAI_API_KEY") or None
    return NO_KEY


def display_url(base_url: str) -> str:
    """``base_url`` without credentials, query or fragment, for messages."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    if ":" in host:  # IPv6
        host = f"[{host}]"
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def host_of(base_url: str) -> str:
    """``host[:port]`` of ``base_url`` (no credentials)."""
    parts = urlsplit(base_url)
    host = parts.hostname or ""
    return f"{host}:{parts.port}" if parts.port else host


def server_kind(base_url: str) -> str | None:
    """ "ollama" or "lmstudio" when ``base_url`` is on their default port, else None."""
    port = urlsplit(base_url).port
    if port == OLLAMA_PORT:
        return "ollama"
    if port == LMSTUDIO_PORT:
        return "lmstudio"
    return None


def connection_hint(base_url: str) -> str:
    """What to do when the server at ``base_url`` cannot be reached."""
    kind = server_kind(base_url)
    if kind == "ollama":
        return "Is Ollama running? Start it with `ollama serve`."
    if kind == "lmstudio":
        return (
            "Is LM Studio running with its local server started? Start it in LM Studio's "
            "Developer tab or with `lms server start`."
        )
    host = (urlsplit(base_url).hostname or "").lower()
    if host in ("localhost", "127.0.0.1", "::1", "0.0.0.0"):
        return "Is the local model server running?"
    return "Check the server address in Settings and your internet connection."


def scrub(text: str, secret: str | None) -> str:
    """``text`` with ``secret`` (an API key) replaced by ``***``."""
    if secret and secret != NO_KEY and len(secret) >= 4:
        text = text.replace(secret, "***")
    return text


# --- retries -------------------------------------------------------------------------


@dataclass(frozen=True)
class RetryPolicy:
    """Exponential backoff with jitter: ``backoff * 2**attempt``, capped at ``max_backoff``.

    Retried: 408, 409, 429 (except ``insufficient_quota``), 5xx, timeouts and dropped
    connections. Not retried: refused connections (the server is not running) and
    other 4xx.
    """

    max_retries: int = 4
    backoff: float = 0.5
    max_backoff: float = 20.0

    def delay(self, attempt: int, error: BaseException | None = None) -> float:
        base = min(self.max_backoff, self.backoff * (2**attempt))
        delay = base * (0.5 + random.random() / 2)
        retry_after = _retry_after(error)
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.max_backoff))
        return delay


def _retry_after(error: BaseException | None) -> float | None:
    if not isinstance(error, openai.APIStatusError):
        return None
    headers = error.response.headers
    try:
        if "retry-after-ms" in headers:
            return float(headers["retry-after-ms"]) / 1000
        if "retry-after" in headers:
            return float(headers["retry-after"])
    except ValueError:
        return None
    return None


def is_refused(error: BaseException) -> bool:
    """True when the connection was refused (nothing listens there)."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ConnectionRefusedError):
            return True
        current = current.__cause__ or current.__context__
    return False


def is_retryable(error: BaseException) -> bool:
    if isinstance(error, openai.APIStatusError):
        if error.status_code == 429:
            return error.code != "insufficient_quota"
        return error.status_code in (408, 409) or error.status_code >= 500
    if isinstance(error, openai.APIConnectionError):
        return not is_refused(error)
    return False


def call_with_retries(call: Callable[[], T], policy: RetryPolicy, what: str) -> T:
    """Run ``call``; retry retryable ``openai`` errors; re-raise the last one."""
    attempt = 0
    while True:
        try:
            return call()
        except openai.OpenAIError as error:
            if attempt >= policy.max_retries or not is_retryable(error):
                raise
            delay = policy.delay(attempt, error)
            log.info("%s failed (%s); retry %d in %.2f s", what, _brief(error), attempt + 1, delay)
            time.sleep(delay)
            attempt += 1


async def acall_with_retries(call: Callable[[], Awaitable[T]], policy: RetryPolicy, what: str) -> T:
    """Async twin of :func:`call_with_retries`."""
    attempt = 0
    while True:
        try:
            return await call()
        except openai.OpenAIError as error:
            if attempt >= policy.max_retries or not is_retryable(error):
                raise
            delay = policy.delay(attempt, error)
            log.info("%s failed (%s); retry %d in %.2f s", what, _brief(error), attempt + 1, delay)
            await asyncio.sleep(delay)
            attempt += 1


def _brief(error: BaseException) -> str:
    if isinstance(error, openai.APIStatusError):
        return f"HTTP {error.status_code}"
    return type(error).__name__


# --- error mapping -------------------------------------------------------------------


def server_message(error: BaseException, api_key: str | None = None) -> str:
    """The server's own error message (key scrubbed)."""
    body = getattr(error, "body", None)
    message: Any = None
    if isinstance(body, dict):
        inner = body.get("error")
        message = body.get("message")
        if isinstance(inner, dict):
            message = inner.get("message") or message
        elif isinstance(inner, str):
            message = inner
    if not isinstance(message, str) or not message:
        message = getattr(error, "message", None) or str(error)
    return scrub(str(message).strip(), api_key)


def is_context_error(error: BaseException) -> bool:
    code = getattr(error, "code", None)
    if code in ("context_length_exceeded", "string_above_max_length"):
        return True
    text = server_message(error).lower()
    return any(
        phrase in text
        for phrase in (
            "context length",
            "context window",
            "maximum context",
            "too many tokens",
            "input is too long",
            "exceeds the context",
        )
    )


def is_model_not_found(error: openai.APIStatusError, model: str, available: list[str]) -> bool:
    if error.code == "model_not_found":
        return True
    text = server_message(error).lower()
    if "model" in text and ("not found" in text or "does not exist" in text):
        return True
    return bool(available) and model not in available


def map_openai_error(
    error: BaseException,
    *,
    base_url: str,
    model: str,
    api_key: str | None,
    retries: int,
    timeout: float,
    available: list[str] | None = None,
    what: str = "request",
) -> ModelError:
    """A typed, actionable :class:`ModelError` for an ``openai`` exception."""
    url = display_url(base_url)
    detail = server_message(error, api_key)
    if isinstance(error, ModelError):
        return error
    if isinstance(error, openai.APITimeoutError):
        return ModelConnectionError(
            f"The server at {url} did not answer within {timeout:g} s. It may be overloaded "
            f"or loading the model; try again, or raise the timeout in Settings."
        ).coded("server_timeout", url=url, seconds=f"{timeout:g}")
    if isinstance(error, openai.APIConnectionError):
        if is_refused(error):
            return ModelConnectionError(
                f"Could not reach {url}. {connection_hint(base_url)}"
            ).coded(url=url)
        return ModelConnectionError(
            f"The connection to {url} failed during the {what}. {connection_hint(base_url)}"
        ).coded("connection_lost", url=url)
    if isinstance(error, openai.APIStatusError):
        status = error.status_code
        if status == 401:
            return ModelAuthenticationError(
                f"The server at {url} rejected the API key. Check the key in Settings."
            ).coded(url=url)
        if status == 403:
            return ModelAuthenticationError(
                f"The server at {url} refused access to {model!r} with this API key ({detail}). "
                "Check the key and its permissions in Settings."
            ).coded("auth_refused", url=url, model=model)
        if status == 404:
            models = list(available or [])
            if is_model_not_found(error, model, models):
                listed = (
                    f"Available models: {', '.join(models[:30])}"
                    + (f" and {len(models) - 30} more" if len(models) > 30 else "")
                    + "."
                    if models
                    else "It lists no models."
                )
                action = (
                    f"Pull it with `ollama pull {model}` or pick another model in Settings."
                    if server_kind(base_url) == "ollama"
                    else "Pick an available model in Settings."
                )
                return ModelNotFoundError(
                    f"The server at {url} has no model {model!r}. {listed} {action}", models
                ).coded(url=url, model=model)
            return ModelError(
                f"The server at {url} answered 404 Not Found for the {what}. Check the server "
                "address in Settings (OpenAI-compatible addresses usually end in /v1)."
            )
        if status == 429:
            if error.code == "insufficient_quota":
                return ModelRateLimitError(
                    f"The server at {url} says the account's quota is used up ({detail}). "
                    "Check the plan and billing of the API key."
                )
            return ModelRateLimitError(
                f"The server at {url} kept answering 'too many requests' (429) after {retries} "
                "retries. Wait a minute and try again."
            )
        if is_context_error(error):
            return ContextTooLongError(
                f"The input is longer than the context window of {model!r} ({detail}). "
                "Use fewer or shorter passages, or a model with a longer context."
            )
        if status >= 500:
            return ModelError(
                f"The server at {url} failed with HTTP {status} after {retries} retries "
                f"({detail}). Try again later."
            )
        return ModelResponseError(
            f"The server at {url} rejected the {what} with HTTP {status}: {detail}"
        )
    if isinstance(error, openai.APIError):  # e.g. an error event inside a stream
        if is_context_error(error):
            return ContextTooLongError(
                f"The input is longer than the context window of {model!r} ({detail}). "
                "Use fewer or shorter passages, or a model with a longer context."
            )
        return ModelResponseError(f"The server at {url} reported an error: {detail}")
    if isinstance(error, ValueError):  # malformed JSON
        return ModelResponseError(
            f"The server at {url} sent a response that is not valid JSON ({error}). "
            "Is the address an OpenAI-compatible API?"
        )
    return ModelError(f"The {what} to {url} failed: {scrub(str(error), api_key)}")


# --- the chat client -----------------------------------------------------------------


class AnswerCutOffError(ModelConnectionError):
    """A streamed answer ended before the model finished it.

    ``partial_text`` holds what arrived, so the app can show it marked as incomplete.
    """

    def __init__(self, message: str, partial_text: str) -> None:
        super().__init__(message)
        self.partial_text = partial_text


class OpenAICompatibleLLM(LLMClient):
    """A chat model behind an OpenAI-compatible ``/v1/chat/completions`` endpoint.

    ``stream`` yields content deltas. Closing the async generator (``aclose()``, ``break``
    followed by garbage collection, or cancelling the task) closes the HTTP response, so
    the server stops generating. The HTTP client is created lazily, once per event loop.
    """

    def __init__(
        self,
        model: str,
        *,
        base_url: str | None = None,
        api_key: str | None = None,
        timeout: float = 60,
        max_retries: int = 2,
        temperature: float = 0.2,
        retry_backoff: float = 0.5,
    ) -> None:
        self.model = model
        self.name = model
        self.base_url = resolve_base_url(base_url)
        self._api_key = resolve_api_key(api_key, self.base_url)
        self.timeout = float(timeout)
        self.temperature = temperature
        self.retry = RetryPolicy(max_retries=max_retries, backoff=retry_backoff)
        self._client: openai.AsyncOpenAI | None = None
        self._client_loop: asyncio.AbstractEventLoop | None = None

    def __repr__(self) -> str:
        return f"OpenAICompatibleLLM(model={self.model!r}, base_url={display_url(self.base_url)!r})"

    def _get_client(self) -> openai.AsyncOpenAI:
        loop = asyncio.get_running_loop()
        if self._client is None or self._client_loop is not loop:
            if self._api_key is None:
                raise ModelAuthenticationError(
                    f"No API key is set for {display_url(self.base_url)}. Add your key in Settings "
                    "(or set OPENAI_API_KEY)."
                )
            self._client = openai.AsyncOpenAI(
                api_key=self._api_key,
                base_url=self.base_url,
                timeout=openai.Timeout(self.timeout, connect=min(10.0, self.timeout)),
                max_retries=0,
            )
            self._client_loop = loop
        return self._client

    def _map(self, error: BaseException, available: list[str] | None = None) -> ModelError:
        return map_openai_error(
            error,
            base_url=self.base_url,
            model=self.model,
            api_key=self._api_key,
            retries=self.retry.max_retries,
            timeout=self.timeout,
            available=available,
            what="chat request",
        )

    async def _amap(self, error: BaseException) -> ModelError:
        available = None
        if isinstance(error, openai.NotFoundError):
            try:
                available = await self._list_model_ids()
            except Exception:  # best effort: the 404 is the error to report
                available = None
        return self._map(error, available)

    async def _list_model_ids(self) -> list[str]:
        client = self._get_client()
        page = await client.models.list()
        return [m.id for m in page.data]

    async def list_models(self) -> list[str]:
        """Ids of the models the server offers (``GET /v1/models``)."""
        try:
            return await acall_with_retries(self._list_model_ids, self.retry, "model list")
        except openai.OpenAIError as error:
            raise self._map(error) from None

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        grammar: str | None = None,  # a server's API has no GBNF: ignored
    ) -> AsyncIterator[str]:
        client = self._get_client()
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": m.role, "content": m.content} for m in messages],
            "temperature": self.temperature if temperature is None else temperature,
            "stream": True,
        }
        if max_tokens is not None:
            payload["max_tokens"] = max_tokens

        async def start() -> Any:
            return await client.chat.completions.create(**payload)

        try:
            response = await acall_with_retries(start, self.retry, "chat request")
        except openai.OpenAIError as error:
            raise await self._amap(error) from None

        url = display_url(self.base_url)
        parts: list[str] = []
        finished = False
        try:
            async for chunk in response:
                for piece, finish in self._deltas(chunk):
                    if finish:
                        finished = True
                    if piece:
                        parts.append(piece)
                        yield piece
        except openai.APITimeoutError as error:
            raise AnswerCutOffError(
                f"The answer from {url} was cut off: the server sent nothing for "
                f"{self.timeout:g} s after {sum(map(len, parts))} characters. Try again, or "
                "raise the timeout in Settings.",
                "".join(parts),
            ) from error
        except openai.APIConnectionError as error:
            raise AnswerCutOffError(
                f"The answer from {url} was cut off: the connection broke after "
                f"{sum(map(len, parts))} characters. Try again.",
                "".join(parts),
            ) from error
        except openai.APIError as error:
            raise await self._amap(error) from error
        except ValueError as error:
            raise ModelResponseError(
                f"The server at {url} sent a malformed streaming event ({error}). "
                "Is the address an OpenAI-compatible API?"
            ) from error
        finally:
            await response.close()
        if not finished:
            raise AnswerCutOffError(
                f"The answer from {url} was cut off: the stream ended after "
                f"{sum(map(len, parts))} characters without the model finishing. Try again.",
                "".join(parts),
            )

    def _deltas(self, chunk: Any) -> list[tuple[str, bool]]:
        """``(content, finished)`` of each choice in a stream chunk; validates its shape."""
        choices = getattr(chunk, "choices", None)
        if choices is None:
            return []  # e.g. a usage-only chunk
        if not isinstance(choices, list):
            raise ModelResponseError(
                f"The server at {display_url(self.base_url)} sent a streaming event without a "
                "valid 'choices' list."
            )
        out: list[tuple[str, bool]] = []
        for choice in choices:
            delta = getattr(choice, "delta", None)
            content = getattr(delta, "content", None) if delta is not None else None
            finish = getattr(choice, "finish_reason", None)
            if content is not None and not isinstance(content, str):
                raise ModelResponseError(
                    f"The server at {display_url(self.base_url)} sent a streaming event whose "
                    "content is not text."
                )
            if finish == "length":
                log.info("answer from %s stopped at max_tokens", display_url(self.base_url))
            out.append((content or "", bool(finish)))
        return out

    async def aclose(self) -> None:
        client, self._client, self._client_loop = self._client, None, None
        if client is not None:
            await client.close()
