"""FakeOpenAIServer: a real HTTP server that speaks enough of the OpenAI, Cohere and
Ollama APIs to test the network model clients end to end.

    with FakeOpenAIServer(api_key="sk-right") as server:
        llm = OpenAICompatibleLLM("fake-chat", base_url=server.base_url, api_key="sk-right")
        server.enqueue_error(429, times=2)          # the next two requests get 429
        ...
        assert server.requests[-1].path == "/v1/chat/completions"

Endpoints: ``GET /v1/models``, ``POST /v1/embeddings``, ``POST /v1/chat/completions``
(plain and ``stream=true`` SSE), ``POST /v2/rerank`` (Cohere), ``GET /api/tags``
(Ollama). It listens on 127.0.0.1 on a free port, serves from a background thread,
and uses ``Transfer-Encoding: chunked`` for streams so that a broken-off stream is a
protocol error for the client, as it is with real servers.

Behaviour is scripted with ``enqueue_*`` methods (applied to the next matching
requests, in order) and the attributes ``api_key`` (None accepts any key),
``models``, ``chat_reply`` and ``embedding_dimension``.
"""

from __future__ import annotations

import base64
import json
import select
import socket
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

import numpy as np

from agentmaker.testing.fakes import FakeEmbedder

BehaviourKind = Literal["error", "break_stream", "malformed_stream", "slow_stream", "hang"]


@dataclass
class Behaviour:
    """One scripted response, applied to the next request whose path contains ``path``."""

    kind: BehaviourKind
    path: str | None = None
    status: int = 500
    body: dict[str, Any] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    after_chunks: int = 2
    payload: str = "{not json"
    delay: float = 0.05


@dataclass
class RecordedRequest:
    """A request the server received."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any

    @property
    def authorization(self) -> str | None:
        return self.headers.get("authorization")


@dataclass
class Disconnect:
    """A client that went away in the middle of a streamed response."""

    path: str
    chunks_sent: int
    at: float


def openai_error(
    message: str, *, type: str = "invalid_request_error", code: str | None = None
) -> dict[str, Any]:
    """An OpenAI-style error body."""
    return {"error": {"message": message, "type": type, "param": None, "code": code}}


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    fake: FakeOpenAIServer


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # silence stderr
        pass

    # --- plumbing ------------------------------------------------------------------

    @property
    def fake(self) -> FakeOpenAIServer:
        return self.server.fake

    def _read_body(self) -> Any:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if not raw:
            return None
        try:
            return json.loads(raw)
        except ValueError:
            return raw.decode("utf-8", "replace")

    def _send_json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _start_chunked(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _chunk(self, text: str) -> None:
        data = text.encode()
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()

    def _end_chunked(self) -> None:
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _abort(self) -> None:
        """Drop the connection without finishing the response."""
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _peer_closed(self) -> bool:
        try:
            readable, _, _ = select.select([self.connection], [], [], 0)
            if not readable:
                return False
            return self.connection.recv(1, socket.MSG_PEEK) == b""
        except OSError:
            return True

    # --- dispatch ------------------------------------------------------------------

    def do_GET(self) -> None:
        self._dispatch("GET")

    def do_POST(self) -> None:
        self._dispatch("POST")

    def _dispatch(self, method: str) -> None:
        body = self._read_body() if method == "POST" else None
        path = self.path.split("?", 1)[0]
        headers = {k.lower(): v for k, v in self.headers.items()}
        fake = self.fake
        fake._record(RecordedRequest(method, path, headers, body))

        behaviour = fake._next_behaviour(path)
        if behaviour is not None and behaviour.kind == "error":
            self._send_json(behaviour.status, behaviour.body or {}, behaviour.headers)
            return
        if behaviour is not None and behaviour.kind == "hang":
            fake._stopping.wait(behaviour.delay)
            self._abort()
            return

        routes = {
            ("GET", "/v1/models"): self._models,
            ("GET", "/api/tags"): self._tags,
            ("POST", "/v1/embeddings"): self._embeddings,
            ("POST", "/v1/chat/completions"): self._chat,
            ("POST", "/v2/rerank"): self._rerank,
        }
        handler = routes.get((method, path))
        if handler is None:
            self._send_json(404, openai_error(f"Unknown path {path}", type="not_found"))
            return
        if path != "/api/tags" and not self._authorised(headers, cohere=path == "/v2/rerank"):
            return
        handler(body, behaviour)

    def _authorised(self, headers: dict[str, str], *, cohere: bool = False) -> bool:
        expected = self.fake.api_key
        if expected is None or headers.get("authorization") == f"Bearer {expected}":
            return True
        if cohere:
            self._send_json(401, {"message": "invalid api token"})
        else:
            self._send_json(
                401,
                openai_error(
                    "Incorrect API key provided.",
                    type="invalid_request_error",
                    code="invalid_api_key",
                ),
            )
        return False

    def _unknown_model(self, body: Any, *, cohere: bool = False) -> bool:
        model = body.get("model") if isinstance(body, dict) else None
        if model in self.fake.models:
            return False
        message = f"The model `{model}` does not exist or you do not have access to it."
        if cohere:
            self._send_json(404, {"message": f"model '{model}' not found"})
        else:
            self._send_json(
                404, openai_error(message, type="invalid_request_error", code="model_not_found")
            )
        return True

    def _too_long(self, texts: list[str]) -> bool:
        limit = self.fake.max_input_chars
        if limit is None or all(len(t) <= limit for t in texts):
            return False
        self._send_json(
            400,
            openai_error(
                f"This model's maximum context length is {limit} tokens. However, your "
                "messages resulted in more tokens. Please reduce the length of the messages.",
                code="context_length_exceeded",
            ),
        )
        return True

    # --- endpoints -----------------------------------------------------------------

    def _models(self, body: Any, behaviour: Behaviour | None) -> None:
        data = [
            {"id": m, "object": "model", "created": 0, "owned_by": "fake"} for m in self.fake.models
        ]
        self._send_json(200, {"object": "list", "data": data})

    def _tags(self, body: Any, behaviour: Behaviour | None) -> None:
        models = [
            {"name": m, "model": m, "modified_at": "2024-01-01T00:00:00Z", "size": 1}
            for m in self.fake.models
        ]
        self._send_json(200, {"models": models})

    def _embeddings(self, body: Any, behaviour: Behaviour | None) -> None:
        if not isinstance(body, dict) or "input" not in body:
            self._send_json(400, openai_error("'input' is a required property"))
            return
        if self._unknown_model(body):
            return
        texts = body["input"]
        if isinstance(texts, str):
            texts = [texts]
        if not isinstance(texts, list) or not all(isinstance(t, str) and t for t in texts):
            self._send_json(400, openai_error("'$.input' is invalid."))
            return
        if self._too_long(texts):
            return
        dim = int(body.get("dimensions") or self.fake.embedding_dimension)
        vectors = FakeEmbedder(dimension=dim).embed_batch(texts)
        data = []
        for i, vector in enumerate(vectors):
            if body.get("encoding_format") == "base64":
                value: Any = base64.b64encode(vector.astype("<f4").tobytes()).decode()
            else:
                value = [float(x) for x in vector]
            data.append({"object": "embedding", "index": i, "embedding": value})
        tokens = sum(len(t.split()) for t in texts)
        self._send_json(
            200,
            {
                "object": "list",
                "data": data,
                "model": body["model"],
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _chat(self, body: Any, behaviour: Behaviour | None) -> None:
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            self._send_json(400, openai_error("'messages' is a required property"))
            return
        if self._unknown_model(body):
            return
        contents = [str(m.get("content", "")) for m in body["messages"] if isinstance(m, dict)]
        if self._too_long(["\n".join(contents)]):
            return
        reply = self.fake.chat_reply
        model = body["model"]
        created = int(time.time())
        if not body.get("stream"):
            self._send_json(
                200,
                {
                    "id": "chatcmpl-fake",
                    "object": "chat.completion",
                    "created": created,
                    "model": model,
                    "choices": [
                        {
                            "index": 0,
                            "message": {"role": "assistant", "content": reply},
                            "finish_reason": "stop",
                        }
                    ],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                },
            )
            return
        self._stream_chat(model, created, reply, behaviour)

    def _stream_chat(
        self, model: str, created: int, reply: str, behaviour: Behaviour | None
    ) -> None:
        def event(delta: dict[str, Any], finish: str | None = None) -> str:
            chunk = {
                "id": "chatcmpl-fake",
                "object": "chat.completion.chunk",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            return f"data: {json.dumps(chunk)}\n\n"

        pieces = [w + " " for w in reply.split(" ")]
        pieces[-1] = pieces[-1].rstrip(" ")
        kind = behaviour.kind if behaviour is not None else None
        delay = behaviour.delay if behaviour is not None and kind == "slow_stream" else 0.0
        if kind == "slow_stream":
            # Long enough that only a client disconnect ends it in a test's time.
            pieces = [f"word{i} " for i in range(100_000)]
        self._start_chunked()
        sent = 0
        try:
            self._chunk(event({"role": "assistant", "content": ""}))
            for piece in pieces:
                breaking = kind in ("break_stream", "malformed_stream")
                if behaviour is not None and breaking and sent == behaviour.after_chunks:
                    if kind == "break_stream":
                        self._abort()
                        return
                    self._chunk(f"data: {behaviour.payload}\n\n")
                if delay:
                    if self.fake._stopping.wait(delay):
                        self._abort()
                        return
                    if self._peer_closed():
                        raise ConnectionResetError("client went away")
                self._chunk(event({"content": piece}))
                sent += 1
            self._chunk(event({}, "stop"))
            self._chunk("data: [DONE]\n\n")
            self._end_chunked()
        except (BrokenPipeError, ConnectionResetError, ConnectionAbortedError):
            self.close_connection = True
            self.fake._record_disconnect(Disconnect("/v1/chat/completions", sent, time.time()))

    def _rerank(self, body: Any, behaviour: Behaviour | None) -> None:
        if not isinstance(body, dict) or not isinstance(body.get("documents"), list):
            self._send_json(400, {"message": "invalid request: documents is required"})
            return
        if self._unknown_model(body, cohere=True):
            return
        query = str(body.get("query", ""))
        docs = [d if isinstance(d, str) else json.dumps(d) for d in body["documents"]]
        top_n = int(body.get("top_n") or len(docs))
        embedder = FakeEmbedder(dimension=64)
        if docs:
            scores = embedder.embed_batch(docs) @ embedder.embed(query)
        else:
            scores = np.zeros(0, dtype=np.float32)
        order = sorted(range(len(docs)), key=lambda i: (-float(scores[i]), i))[:top_n]
        results = [
            {"index": i, "relevance_score": round((float(scores[i]) + 1) / 2, 6)} for i in order
        ]
        self._send_json(
            200,
            {
                "id": "rerank-fake",
                "results": results,
                "meta": {"billed_units": {"search_units": 1}},
            },
        )


class FakeOpenAIServer:
    """A scripted OpenAI/Cohere/Ollama-compatible HTTP server on 127.0.0.1.

    Use as a context manager; ``base_url`` is ``http://127.0.0.1:PORT/v1`` and
    ``root_url`` is ``http://127.0.0.1:PORT``.
    """

    def __init__(
        self,
        *,
        api_key: str | None = None,
        models: list[str] | None = None,
        chat_reply: str = "Paris is the capital of France.",
        embedding_dimension: int = 32,
        max_input_chars: int | None = None,
        port: int = 0,
    ) -> None:
        self.api_key = api_key
        self.models = list(
            models if models is not None else ["fake-chat", "fake-embed", "rerank-v3.5"]
        )
        self.chat_reply = chat_reply
        self.embedding_dimension = embedding_dimension
        self.max_input_chars = max_input_chars
        self.requests: list[RecordedRequest] = []
        self.disconnects: list[Disconnect] = []
        self.client_disconnected = threading.Event()
        self._script: deque[Behaviour] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._requested_port = port
        self._httpd: _Server | None = None
        self._port: int | None = None
        self._thread: threading.Thread | None = None

    # --- lifecycle -----------------------------------------------------------------

    def start(self) -> FakeOpenAIServer:
        if self._httpd is not None:
            return self
        httpd = _Server(("127.0.0.1", self._requested_port), _Handler)
        httpd.fake = self
        self._httpd = httpd
        self._port = int(httpd.server_address[1])
        self._stopping.clear()
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The port it listens (or, after ``stop``, listened) on."""
        if self._port is None:
            raise RuntimeError("FakeOpenAIServer was not started; use it as a context manager.")
        return self._port

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/v1"

    # --- scripting -----------------------------------------------------------------

    def enqueue(self, behaviour: Behaviour) -> None:
        with self._lock:
            self._script.append(behaviour)

    def enqueue_error(
        self,
        status: int,
        *,
        times: int = 1,
        message: str | None = None,
        code: str | None = None,
        type: str | None = None,
        body: dict[str, Any] | None = None,
        retry_after: float | None = None,
        path: str | None = None,
    ) -> None:
        """Answer the next ``times`` requests (matching ``path``) with ``status``."""
        if body is None:
            default_type = {429: "rate_limit_exceeded", 400: "invalid_request_error"}.get(
                status, "server_error"
            )
            body = openai_error(
                message or f"Scripted error {status}.", type=type or default_type, code=code
            )
        headers = {"retry-after": str(retry_after)} if retry_after is not None else {}
        for _ in range(times):
            self.enqueue(Behaviour("error", path=path, status=status, body=body, headers=headers))

    def enqueue_context_length_exceeded(self, *, path: str | None = None) -> None:
        self.enqueue_error(
            400,
            message="This model's maximum context length is 8192 tokens. However, your "
            "messages resulted in 9001 tokens. Please reduce the length of the messages.",
            code="context_length_exceeded",
            path=path,
        )

    def enqueue_break_stream(self, after_chunks: int = 2) -> None:
        """The next streamed chat answer stops (socket closed) after ``after_chunks``."""
        self.enqueue(Behaviour("break_stream", path="/chat/", after_chunks=after_chunks))

    def enqueue_malformed_stream(self, after_chunks: int = 1, payload: str = "{not json") -> None:
        """The next streamed chat answer holds ``data: <payload>`` after ``after_chunks``."""
        self.enqueue(
            Behaviour("malformed_stream", path="/chat/", after_chunks=after_chunks, payload=payload)
        )

    def enqueue_slow_stream(self, delay: float = 0.05) -> None:
        """The next streamed chat answer sends one word every ``delay`` s, until the client
        disconnects (recorded in ``disconnects`` and ``client_disconnected``)."""
        self.enqueue(Behaviour("slow_stream", path="/chat/", delay=delay))

    def enqueue_hang(self, seconds: float, *, path: str | None = None) -> None:
        """The next request gets no answer for ``seconds``, then the connection is dropped."""
        self.enqueue(Behaviour("hang", path=path, delay=seconds))

    def requests_to(self, path: str) -> list[RecordedRequest]:
        with self._lock:
            return [r for r in self.requests if r.path == path]

    def wait_for_disconnect(self, timeout: float = 5.0) -> bool:
        return self.client_disconnected.wait(timeout)

    # --- used by the handler -------------------------------------------------------

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(request)

    def _record_disconnect(self, disconnect: Disconnect) -> None:
        with self._lock:
            self.disconnects.append(disconnect)
        self.client_disconnected.set()

    def _next_behaviour(self, path: str) -> Behaviour | None:
        with self._lock:
            for i, behaviour in enumerate(self._script):
                if behaviour.path is None or behaviour.path in path:
                    del self._script[i]
                    return behaviour
        return None
