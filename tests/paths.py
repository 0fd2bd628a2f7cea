"""Where the tests find the repository and the shared data (``../shared`` beside the checkout)."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
# Resolved: the library stores real paths, so a ../shared that is a symlink compares equal.
# AGENTMAKER_SHARED: the shared data of a checkout that is not beside it (a git worktree).
SHARED = Path(os.environ.get("AGENTMAKER_SHARED") or REPO.parent / "shared").resolve()
CORPUS = SHARED / "corpus"
