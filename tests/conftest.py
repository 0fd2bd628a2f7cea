"""Shared test fixtures: paths to the shared corpus and benchmark data."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")

from tests.paths import CORPUS


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
