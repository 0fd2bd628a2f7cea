"""Where llama.cpp runs: in this process (a worker thread) or in a child process.

Both runtimes are an ``xllamacpp.Server``: llama.cpp's own server, listening on a
loopback port (127.0.0.1, a random port, a random API key, so no other program can use
it). :class:`InProcessRuntime` calls it directly; :class:`ChildRuntime` starts it in a
child process and talks to it over that port, so a crash or an out-of-memory kill of
llama.cpp costs the answer, never the app (the child exits by itself when the app goes
away: it waits on a pipe whose other end only the app holds).
"""

from __future__ import annotations

import abc
import contextlib
import http.client
import json
import multiprocessing
import secrets
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from agentmaker.errors import ModelLoadError, ModelRuntimeError, ModelUnavailableError

#: Prompt tokens evaluated per llama.cpp batch: a stop request waits for at most one.
PROMPT_BATCH = 64
#: How long a child may take to load a model before the load counts as failed.
LOAD_TIMEOUT_S = 300.0
#: A streamed answer with nothing from the server for this long is given up.
READ_TIMEOUT_S = 600.0

ChunkHandler = Callable[[dict[str, Any]], bool]


def _server(path: Path, n_ctx: int, threads: int, key: str) -> Any:
    """An ``xllamacpp.Server`` with ``path`` loaded (raises the app's typed errors)."""
    try:
        import xllamacpp
    except ImportError as exc:
        raise ModelUnavailableError(
            "The built-in language model needs the xllamacpp package, which is not "
            "installed for this computer. Use a model server (Ollama, LM Studio) in "
            "Settings instead; answers quote the documents until then."
        ) from exc
    params = xllamacpp.CommonParams()
    params.model.path = str(path)
    params.n_ctx = n_ctx
    params.n_parallel = 1
    params.n_batch = PROMPT_BATCH
    params.n_ubatch = PROMPT_BATCH
    params.cpuparams.n_threads = threads
    params.cpuparams_batch.n_threads = threads
    params.verbosity = -1
    params.warmup = False
    params.api_keys = [key]
    try:
        return xllamacpp.Server(params)
    except Exception as exc:  # llama.cpp reports every load failure the same way
        raise ModelLoadError(
            f"Could not load the model {path.name}: the file may be damaged, or this "
            f"computer may not have enough free memory for it ({exc}). Close other "
            "programs or choose a smaller model in Settings."
        ) from exc


class _Loopback(abc.ABC):
    """Requests to a llama.cpp server on 127.0.0.1 with its API key."""

    address: str
    key: str

    def _request(self, route: str, body: dict[str, Any]) -> urllib.request.Request:
        return urllib.request.Request(
            self.address + route,
            data=json.dumps(body).encode("utf-8"),
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {self.key}"},
        )

    def post(self, route: str, body: dict[str, Any]) -> dict[str, Any]:
        with urllib.request.urlopen(self._request(route, body), timeout=60) as response:
            result: dict[str, Any] = json.loads(response.read())
        return result

    @abc.abstractmethod
    def chat(self, request: dict[str, Any], on_chunk: ChunkHandler) -> None:
        """Run one streamed chat completion; ``on_chunk`` returning True stops it."""

    @abc.abstractmethod
    def close(self) -> None:
        """Free the model's memory."""


class InProcessRuntime(_Loopback):
    """llama.cpp inside this process (it computes with the GIL released)."""

    def __init__(self, path: Path, n_ctx: int, threads: int) -> None:
        self.key = secrets.token_urlsafe(24)
        self.server: Any = _server(path, n_ctx, threads, self.key)
        self.address = str(self.server.listening_address)

    def chat(self, request: dict[str, Any], on_chunk: ChunkHandler) -> None:
        self.server.handle_chat_completions(request, on_chunk)

    def close(self) -> None:
        self.server = None  # the xllamacpp Server frees the model in its destructor


def _child_main(path: str, n_ctx: int, threads: int, key: str, conn: Connection) -> None:
    """The child process: load, report the address, serve until the app lets go."""
    try:
        server = _server(Path(path), n_ctx, threads, key)
    except Exception as exc:
        conn.send(("error", type(exc).__name__, str(exc)))
        return
    conn.send(("ready", str(server.listening_address), ""))
    with contextlib.suppress(EOFError, OSError, KeyboardInterrupt):
        while conn.recv() != "quit":
            pass
    # The app closed its end (or died): leave at once; the OS takes the model's memory back.
    import os

    os._exit(0)


class ChildRuntime(_Loopback):
    """llama.cpp in a child process, reached over its loopback port."""

    def __init__(self, path: Path, n_ctx: int, threads: int) -> None:
        self.key = secrets.token_urlsafe(24)
        self.name = path.name
        # "spawn": forking a process that runs Qt and threads is unsafe.
        context = multiprocessing.get_context("spawn")
        self._conn, child_conn = context.Pipe()
        self.process = context.Process(
            target=_child_main,
            args=(str(path), n_ctx, threads, self.key, child_conn),
            name="agentmaker-llama.cpp",
            daemon=True,
        )
        self.process.start()
        child_conn.close()  # only the child holds its end: its EOF is the app's death
        self.address = self._wait_ready(path)

    def _wait_ready(self, path: Path) -> str:
        deadline = time.monotonic() + LOAD_TIMEOUT_S
        while not self._conn.poll(0.1):
            if not self.process.is_alive() or time.monotonic() > deadline:
                self.close()
                raise ModelLoadError(
                    f"Could not load the model {path.name}: the model process "
                    f"{self._ended()} while loading it. This computer may not have enough "
                    "free memory for it; close other programs or choose a smaller model."
                )
        try:
            kind, value, message = self._conn.recv()
        except EOFError:
            kind, value, message = "error", "ModelLoadError", "the model process ended"
        if kind != "ready":
            self.close()
            if value == "ModelUnavailableError":
                raise ModelUnavailableError(message)
            raise ModelLoadError(message)
        return str(value)

    def _ended(self) -> str:
        code = self.process.exitcode
        if code is None:
            return "stopped answering"
        if code < 0:
            return f"was stopped by the system (signal {-code}; out of memory?)"
        return f"ended (exit code {code})"

    @property
    def alive(self) -> bool:
        return self.process.is_alive()

    def crashed(self) -> ModelRuntimeError:
        """The error for a child that died while answering."""
        return ModelRuntimeError(
            f"The model {self.name} {self._ended()} while writing the answer. The answer "
            "quotes the documents instead; the model is loaded again for the next question."
        )

    def chat(self, request: dict[str, Any], on_chunk: ChunkHandler) -> None:
        try:
            response = urllib.request.urlopen(
                self._request("/v1/chat/completions", request), timeout=READ_TIMEOUT_S
            )
        except urllib.error.HTTPError as exc:  # refused before streaming (e.g. too long)
            on_chunk(_error_body(exc.read()))
            return
        except (OSError, http.client.HTTPException) as exc:
            raise self._broken(exc) from exc
        try:
            with response:
                for line in response:
                    kind, _, payload = line.partition(b":")
                    payload = payload.strip()
                    if kind == b"error":
                        on_chunk(_error_body(payload))
                        return
                    if kind != b"data" or not payload:
                        continue
                    if payload == b"[DONE]":
                        return
                    if on_chunk(json.loads(payload)):
                        return  # closing the connection makes llama.cpp stop this answer
        except (OSError, http.client.HTTPException, ValueError) as exc:
            raise self._broken(exc) from exc
        # The stream ended without its [DONE]: the server went away mid-answer.
        raise self._broken(None)

    def _broken(self, exc: Exception | None) -> ModelRuntimeError:
        # A dying process closes its sockets a moment before the system reports it dead.
        self.process.join(timeout=2.0)
        if not self.alive:
            return self.crashed()
        detail = f" ({exc})" if exc else ""
        return ModelRuntimeError(
            f"The model {self.name} stopped answering{detail}. The answer quotes the "
            "documents instead."
        )

    def close(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._conn.send("quit")
        with contextlib.suppress(OSError):
            self._conn.close()
        self.process.join(timeout=5.0)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=5.0)


def _error_body(raw: bytes) -> dict[str, Any]:
    try:
        body = json.loads(raw)
    except ValueError:
        return {"error": {"message": raw.decode("utf-8", "replace")}}
    error = body.get("error", body) if isinstance(body, dict) else body
    return {"error": error if isinstance(error, dict) else {"message": str(error)}}
