"""The embedding model a library was built with, checked against the one opening it."""

from __future__ import annotations

import json

from agentmaker.errors import EmbeddingModelMismatchError
from agentmaker.retrieval.ports import ModelFingerprint

#: library_meta key of the stored fingerprint (JSON of ModelFingerprint's fields).
MODEL_KEY = "embedding_model"


def check_fingerprint(stored: str, given: ModelFingerprint, where: str) -> None:
    """Raise EmbeddingModelMismatchError when ``stored`` (the library's JSON) names
    another model, dimension or weights than ``given``; ``where`` names the library."""
    fp = json.loads(stored)
    if (fp["name"], fp["dimension"], fp.get("weights", "")) != (
        given.name,
        given.dimension,
        given.weights,
    ):
        label = f"{fp['name']}/{fp['dimension']}d"
        if fp.get("weights"):
            label += f"@{fp['weights'][:12]}"
        raise EmbeddingModelMismatchError(label, str(given), where)


def fingerprint_json(given: ModelFingerprint) -> str:
    """What is stored for ``given``."""
    return json.dumps(given.__dict__)
