"""Where bundled data files live (tokenizer, tiktoken encodings, sample documents).

Looked up, in order: ``$AGENTMAKER_RESOURCES``; a frozen app's bundle
(``sys._MEIPASS/resources``); the source tree's ``resources/`` folder.
The engine never reads the network for these.
"""

from __future__ import annotations

import os
import sys
from functools import cache
from pathlib import Path

from agentmaker.errors import ConfigurationError


@cache
def resources_dir() -> Path:
    """The folder holding the bundled data files."""
    candidates: list[Path] = []
    env = os.environ.get("AGENTMAKER_RESOURCES")
    if env:
        candidates.append(Path(env))
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        candidates.append(Path(frozen) / "resources")
    candidates.append(Path(__file__).resolve().parents[2] / "resources")
    for folder in candidates:
        if (folder / "tiktoken").is_dir():
            return folder
    raise ConfigurationError(
        "The bundled resources folder was not found (looked in: "
        + ", ".join(str(c) for c in candidates)
        + "). Reinstall the app, or set AGENTMAKER_RESOURCES to the 'resources' folder."
    )


def resource_path(*parts: str) -> Path:
    """Path of a bundled file, e.g. ``resource_path("tiktoken", "cl100k_base.tiktoken")``."""
    return resources_dir().joinpath(*parts)
