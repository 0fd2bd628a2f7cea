"""A language model on this computer: a GGUF file run by llama.cpp (``xllamacpp``).

No server to install: llama.cpp comes with the app. The model is loaded lazily, once, by
one worker thread that also runs every generation, and is unloaded after
``idle_unload_s`` seconds without use, or on :meth:`LlamaCppLLM.unload`. With
``isolation="process"`` (the default) llama.cpp runs in a child process, so a crash or
an out-of-memory kill becomes a :class:`ModelRuntimeError` and the next question loads
the model again; ``"thread"`` keeps it in this process (llama.cpp releases the GIL while
it computes; see benchmarks/REPORT.md for the event-loop stalls of both).

The chat template is the model's own (``tokenizer.chat_template`` in the GGUF), applied by
llama.cpp. Prompt lengths are counted with the model's own tokenizer through the runtime's
``/apply-template`` and ``/tokenize`` routes on its loopback port (127.0.0.1, a random port
and a random API key, so no other program can use it), so a prompt that would not fit is
refused before it is sent instead of being truncated.

Stopping: closing the stream returns at once; the worker stops llama.cpp at its next
token or prompt batch (``n_batch`` tokens, small so that this stays short).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import threading
from collections.abc import AsyncIterator, Callable, Sequence
from pathlib import Path
from typing import Any, Literal

from agentmaker.errors import ContextTooLongError, ModelLoadError, ModelRuntimeError
from agentmaker.models.llama_cpp_runtime import ChildRuntime, InProcessRuntime
from agentmaker.models.llm import ChatMessage, LLMClient

Isolation = Literal["process", "thread"]

log = logging.getLogger(__name__)

#: Context used when the caller does not choose one: enough for 5 passages, a question
#: and an answer, while the KV cache stays small on a laptop.
DEFAULT_CONTEXT = 4096
_END = object()


def physical_cores() -> int:
    """Physical CPU cores (hyper-threads make llama.cpp slower, not faster); -1: let
    llama.cpp count them itself."""
    try:
        import psutil

        count = psutil.cpu_count(logical=False)
    except Exception:  # psutil is optional
        return -1
    return int(count) if count else -1


def runtime_available() -> bool:
    """Whether the llama.cpp runtime (``xllamacpp``) can be imported on this platform."""
    try:
        import xllamacpp  # noqa: F401
    except ImportError:
        return False
    return True


#: Words of each passage a local model is given (see agentmaker.rag.answer.focus): on a
#: laptop's CPU the prompt is read at ~50 tokens/s, and a small model finds the fact
#: more often in a short passage (benchmarks/REPORT.md, answer quality).
FOCUS_WORDS = 110


class LlamaCppLLM(LLMClient):
    """A GGUF chat model run in-process by llama.cpp; implements :class:`LLMClient`.

    ``n_ctx``: the context window (default :data:`DEFAULT_CONTEXT`, never more than the
    model was trained for when ``train_context`` is given); ``answer_tokens``: the room
    kept for the answer; ``threads``: CPU threads (default: the physical cores).
    ``on_progress(processed, total)`` is called from the worker while the prompt is read.
    ``isolation``: ``"process"`` runs llama.cpp in a child process (a crash costs the
    answer, not the app), ``"thread"`` in this one.
    """

    def __init__(
        self,
        model_path: str | Path,
        *,
        n_ctx: int | None = None,
        train_context: int | None = None,
        answer_tokens: int = 512,
        threads: int | None = None,
        temperature: float = 0.0,
        seed: int = 42,
        idle_unload_s: float | None = 600.0,
        name: str | None = None,
        on_progress: Callable[[int, int], None] | None = None,
        isolation: Isolation = "process",
    ) -> None:
        self.path = Path(model_path)
        self.isolation: Isolation = isolation
        #: Passages are cut to this many words around what bears on the question.
        self.focus_words: int | None = FOCUS_WORDS
        #: Answers are checked sentence by sentence against their passages (a 1.5B model
        #: on a CPU answers from memory now and then; see rag/answer/checked.py).
        self.checks_answers = True
        self.continues_answers = True
        n_ctx = n_ctx or DEFAULT_CONTEXT
        if train_context:
            n_ctx = min(n_ctx, train_context)
        self.context_window = n_ctx
        self.answer_tokens = answer_tokens
        self.threads = threads or physical_cores()
        self.temperature = temperature
        self.seed = seed
        self.idle_unload_s = idle_unload_s
        self.name = name or self.path.stem
        self.on_progress = on_progress
        self._runtime: ChildRuntime | InProcessRuntime | None = None
        #: llama.cpp's figures for the last answer (prompt_n, prompt_per_second,
        #: predicted_n, predicted_per_second, ...), for benchmarks and diagnostics.
        self.last_timings: dict[str, Any] = {}
        self._lock = threading.Lock()  # guards _runtime and _timer
        self._timer: threading.Timer | None = None
        self._active: set[threading.Event] = set()  # stop flags of the answers running
        # One worker runs loads and generations in order: llama.cpp serves one at a time.
        self._worker = concurrent.futures.ThreadPoolExecutor(1, thread_name_prefix="llama.cpp")

    # --- loading ---------------------------------------------------------------------

    @property
    def loaded(self) -> bool:
        """Whether the model is in memory now."""
        return self._runtime is not None

    def _ensure(self) -> ChildRuntime | InProcessRuntime:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            if isinstance(self._runtime, ChildRuntime) and not self._runtime.alive:
                log.warning("the model process had ended; loading %s again", self.path.name)
                self._runtime.close()
                self._runtime = None
            if self._runtime is None:
                if not self.path.is_file():
                    raise ModelLoadError(
                        f"The model file {self.path} is missing. Download or choose the model "
                        "again in Settings."
                    )
                window = self.context_window or DEFAULT_CONTEXT
                runtime = ChildRuntime if self.isolation == "process" else InProcessRuntime
                self._runtime = runtime(self.path, window, self.threads)
            return self._runtime

    def _idle(self) -> None:
        """Start the idle countdown after a use (the runtime stays loaded meanwhile)."""
        if self.idle_unload_s is None:
            return
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            self._timer = threading.Timer(self.idle_unload_s, self._unload_when_free)
            self._timer.daemon = True
            self._timer.start()

    def _unload_when_free(self) -> None:
        # Through the worker, so an unload never pulls the model from under a generation.
        with contextlib.suppress(RuntimeError):  # the worker was already shut down
            self._worker.submit(self._drop)

    def _drop(self) -> None:
        with self._lock:
            runtime, self._runtime = self._runtime, None
        if runtime is not None:
            runtime.close()

    def load(self) -> None:
        """Load the model now (otherwise the first question loads it)."""
        self._worker.submit(self._ensure).result()
        self._idle()

    def unload(self) -> None:
        """Give the model's memory back now; the next question loads it again."""
        self._worker.submit(self._drop).result()

    # --- counting --------------------------------------------------------------------

    def _count(self, messages: Sequence[ChatMessage]) -> int:
        runtime = self._ensure()
        try:
            prompt = runtime.post("/apply-template", {"messages": _wire(messages)})["prompt"]
            tokens = runtime.post("/tokenize", {"content": prompt, "add_special": True})
        except (OSError, KeyError, ValueError) as exc:
            # The loopback route failed (a firewall?): UTF-8 bytes bound a byte-level BPE
            # token count from above, so the prompt still never overflows.
            log.warning("token count through the runtime failed (%s); using bytes", exc)
            text = "".join(m.content for m in messages)
            return len(text.encode("utf-8")) + 16 * len(messages)
        return len(tokens["tokens"])

    def prompt_text(self, messages: Sequence[ChatMessage]) -> str:
        """The prompt llama.cpp builds from ``messages`` with the model's chat template."""

        def render() -> str:
            body = {"messages": _wire(messages)}
            return str(self._ensure().post("/apply-template", body)["prompt"])

        try:
            return self._worker.submit(render).result()
        finally:
            self._idle()

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int:
        """Tokens of ``messages`` with the model's chat template and tokenizer (loads it)."""
        try:
            return self._worker.submit(self._count, messages).result()
        finally:
            self._idle()

    # --- generating ------------------------------------------------------------------

    def _generate(
        self,
        messages: Sequence[ChatMessage],
        temperature: float,
        max_tokens: int,
        emit: Callable[[object], None],
        stop: threading.Event,
        grammar: str | None = None,
    ) -> None:
        """Run on the worker: stream pieces to ``emit`` until done or ``stop`` is set."""
        try:
            if stop.is_set():
                return
            runtime = self._ensure()
            window = self.context_window or DEFAULT_CONTEXT
            used = self._count(messages)
            if used + max_tokens > window:
                raise ContextTooLongError(
                    f"The question and passages take {used} tokens, and the answer needs "
                    f"{max_tokens} more, but {self.name} reads at most {window}. Ask about "
                    "fewer passages or choose a model with a longer context."
                )
            errors: list[dict[str, Any]] = []

            def on_chunk(chunk: dict[str, Any]) -> bool:
                if "error" in chunk or ("code" in chunk and "choices" not in chunk):
                    errors.append(chunk.get("error", chunk))
                    return True
                if "timings" in chunk:  # the last chunk: llama.cpp's own speed figures
                    self.last_timings = dict(chunk["timings"])
                progress = chunk.get("prompt_progress")
                if progress and self.on_progress is not None:
                    self.on_progress(int(progress["processed"]), int(progress["total"]))
                for choice in chunk.get("choices", ()):
                    text = (choice.get("delta") or {}).get("content")
                    if text:
                        emit(text)
                return stop.is_set()  # True tells llama.cpp to stop this request

            request = {
                "messages": _wire(messages),
                "max_tokens": max_tokens,
                "temperature": temperature,
                "seed": self.seed,
                "stream": True,
                "return_progress": self.on_progress is not None,
                "cache_prompt": True,
            }
            if grammar:
                request["grammar"] = grammar
            try:
                runtime.chat(request, on_chunk)
            except ModelRuntimeError:
                if isinstance(runtime, ChildRuntime) and not runtime.alive:
                    self._drop()  # the next question starts a fresh process
                raise
            if errors:
                raise _runtime_error(errors[0], self.name)
        except BaseException as exc:
            emit(exc)
        finally:
            emit(_END)

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        *,
        temperature: float | None = None,
        max_tokens: int | None = None,
        grammar: str | None = None,
    ) -> AsyncIterator[str]:
        """Yield the answer in pieces; closing the iterator stops llama.cpp. ``grammar``
        (llama.cpp's GBNF) constrains what it may write; a last ``assistant`` message is
        the answer's beginning, which the model goes on from."""
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[object] = asyncio.Queue()
        stop = threading.Event()
        self._active.add(stop)

        def emit(item: object) -> None:
            try:
                loop.call_soon_threadsafe(queue.put_nowait, item)
            except RuntimeError:  # the caller's loop is gone; nobody is listening
                stop.set()

        temp = self.temperature if temperature is None else temperature
        budget = max_tokens or self.answer_tokens
        try:
            self._worker.submit(self._generate, messages, temp, budget, emit, stop, grammar)
        except RuntimeError as exc:
            raise ModelRuntimeError(f"{self.name} was closed; open the library again.") from exc
        try:
            while True:
                item = await queue.get()
                if item is _END:
                    return
                if isinstance(item, BaseException):
                    raise item
                assert isinstance(item, str)
                yield item
        finally:
            # Closed early (Stop, cancellation) or done: the worker sees this at its next
            # token and stops; nobody waits for it here, so Stop returns at once.
            stop.set()
            self._active.discard(stop)
            self._idle()

    def release(self) -> None:
        """Stop any answer, unload the model and end the worker, without waiting (for a
        window replacing this model with another)."""
        self._stop_all()
        self._worker.submit(self._drop)
        self._worker.shutdown(wait=False)

    async def aclose(self) -> None:
        """Stop the worker and unload the model."""
        self.release()

    def close(self) -> None:
        """Sync twin of :meth:`aclose`: waits for the worker to finish."""
        self._stop_all()
        self._worker.submit(self._drop)
        self._worker.shutdown(wait=True)

    def _stop_all(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            for stop in self._active:
                stop.set()


def _wire(messages: Sequence[ChatMessage]) -> list[dict[str, str]]:
    return [{"role": m.role, "content": m.content} for m in messages]


def _runtime_error(error: dict[str, Any], name: str) -> Exception:
    kind = str(error.get("type", ""))
    message = str(error.get("message", error))
    if kind == "exceed_context_size_error":
        return ContextTooLongError(
            f"The prompt is longer than {name} can read ({message}). Ask about fewer passages."
        )
    return ModelRuntimeError(
        f"{name} failed while writing the answer ({message}). The answer quotes the "
        "documents instead; if this keeps happening, choose another model in Settings."
    )
