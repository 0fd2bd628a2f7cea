"""Where the tests find the repository and the shared data (``../shared`` beside the checkout)."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Resolved: the library stores real paths, so a ../shared that is a symlink compares equal.
SHARED = (REPO.parent / "shared").resolve()
CORPUS = SHARED / "corpus"
