"""The catalog of recommended local chat models (``resources/models/catalog.json``).

Each entry says what a person needs to choose: name, download size, memory needed,
languages, licence, and the official download URL. ``size_bytes``/``sha256`` are set only
where they were checked against a real source (``hash_source`` says which); otherwise a
download is accepted on a valid GGUF header of the expected architecture.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from agentmaker.errors import ConfigurationError

GB = 1_000_000_000


@dataclass(frozen=True)
class CatalogModel:
    """One recommended model."""

    id: str
    display_name: str
    file_name: str
    approx_bytes: int
    ram_bytes: int
    architecture: str
    quantization: str
    languages: tuple[str, ...]
    licence: str
    url: str
    publisher: str = ""
    size_bytes: int | None = None
    sha256: str | None = None
    hash_source: str = ""

    @property
    def size_text(self) -> str:
        """The download size in words, e.g. "1.1 GB"."""
        return f"{self.approx_bytes / GB:.1f} GB"


def _catalog_path() -> Path:
    from agentmaker.resources import resource_path

    return resource_path("models", "catalog.json")


def load_catalog(path: str | Path | None = None) -> list[CatalogModel]:
    """The catalog's models, in the order recommended (smallest first)."""
    source = Path(path) if path is not None else _catalog_path()
    try:
        raw = json.loads(source.read_text(encoding="utf-8"))
        return [
            CatalogModel(
                id=e["id"],
                display_name=e["display_name"],
                file_name=e["file_name"],
                approx_bytes=int(e["approx_bytes"]),
                ram_bytes=int(e["ram_bytes"]),
                architecture=e["architecture"],
                quantization=e["quantization"],
                languages=tuple(e.get("languages", ())),
                licence=e["licence"],
                url=e["url"],
                publisher=e.get("publisher", ""),
                size_bytes=e.get("size_bytes"),
                sha256=e.get("sha256"),
                hash_source=e.get("hash_source", ""),
            )
            for e in raw["models"]
        ]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ConfigurationError(
            f"The model catalog {source} could not be read ({exc}). Reinstall the app."
        ) from exc


def find_model(name: str, catalog: list[CatalogModel] | None = None) -> CatalogModel | None:
    """The catalog entry whose id, file name or display name is ``name`` (any case)."""
    wanted = name.strip().lower()
    for entry in catalog if catalog is not None else load_catalog():
        if wanted in (entry.id.lower(), entry.file_name.lower(), entry.display_name.lower()):
            return entry
    return None


def total_ram_bytes() -> int | None:
    """This computer's memory, or None when it cannot be told."""
    try:
        import psutil

        return int(psutil.virtual_memory().total)
    except Exception:  # psutil is optional
        pass
    try:
        import os

        return int(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def recommend(
    ram_bytes: int | None = None, catalog: list[CatalogModel] | None = None
) -> CatalogModel:
    """The model to offer on a computer with ``ram_bytes`` of memory.

    The largest whose need leaves half the memory to the system and other programs;
    the smallest when none does or the memory is unknown.
    """
    models = list(catalog if catalog is not None else load_catalog())
    if not models:
        raise ConfigurationError("The model catalog is empty. Reinstall the app.")
    smallest = min(models, key=lambda m: m.ram_bytes)
    ram = ram_bytes if ram_bytes is not None else total_ram_bytes()
    if ram is None:
        return smallest
    fitting = [m for m in models if m.ram_bytes * 2 <= ram]
    # Among equals the catalog's order decides (Qwen first: it also reads Chinese).
    return max(fitting, key=lambda m: m.ram_bytes) if fitting else smallest
