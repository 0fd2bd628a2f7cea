"""The models installed on this computer: a folder in the user data directory.

Models are large (1–4 GB) and live outside the library file, in
``<user data>/agentmaker Desk/models/``. A file the person already has elsewhere can be
used where it is ("Use a model file on this computer…"): it is only checked and
remembered in ``linked.json`` next to the downloaded ones, never copied.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from agentmaker.errors import ModelFileError, StorageError
from agentmaker.models.gguf import GgufInfo, read_gguf
from agentmaker.models.model_catalog import CatalogModel, load_catalog

_LINKED = "linked.json"


def default_models_dir() -> Path:
    """``<user data>/agentmaker Desk/models`` (the platform's per-user data folder)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("agentmaker Desk", "agentmaker")) / "models"


@dataclass(frozen=True)
class InstalledModel:
    """A model file the app can use."""

    name: str  # the catalog id, else the file name without .gguf
    path: Path
    size_bytes: int
    display_name: str
    linked: bool = False  # used where it is, not in the models folder
    catalog: CatalogModel | None = None


class ModelStore:
    """Lists, imports and removes local model files."""

    def __init__(self, folder: str | Path | None = None) -> None:
        self.folder = Path(folder) if folder is not None else default_models_dir()
        self._catalog = load_catalog()

    # --- what is there ----------------------------------------------------------------

    def _linked(self) -> list[Path]:
        try:
            raw = json.loads((self.folder / _LINKED).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError):
            return []  # a damaged list only forgets links; the files stay untouched
        return [Path(p) for p in raw if isinstance(p, str)]

    def _save_linked(self, paths: list[Path]) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        tmp = self.folder / (_LINKED + ".tmp")
        tmp.write_text(json.dumps([str(p) for p in paths], indent=1), encoding="utf-8")
        os.replace(tmp, self.folder / _LINKED)

    def _describe(self, path: Path, linked: bool) -> InstalledModel:
        entry = next((c for c in self._catalog if c.file_name == path.name), None)
        return InstalledModel(
            name=entry.id if entry else path.stem,
            path=path,
            size_bytes=path.stat().st_size,
            display_name=entry.display_name if entry else path.stem,
            linked=linked,
            catalog=entry,
        )

    def list(self) -> list[InstalledModel]:
        """Every usable model: downloaded ones, then linked ones that still exist."""
        found: list[InstalledModel] = []
        if self.folder.is_dir():
            for path in sorted(self.folder.glob("*.gguf")):
                found.append(self._describe(path, linked=False))
        for path in self._linked():
            if path.is_file():
                found.append(self._describe(path, linked=True))
        return found

    def find(self, name: str) -> InstalledModel | None:
        """The installed model called ``name`` (catalog id, file name or stem), or None."""
        wanted = name.strip().lower()
        for model in self.list():
            keys = {model.name.lower(), model.path.name.lower(), model.path.stem.lower()}
            if model.catalog is not None:
                keys.add(model.catalog.display_name.lower())
            if wanted in keys:
                return model
        return None

    def path_for(self, entry: CatalogModel) -> Path:
        """Where the downloaded file of ``entry`` lives."""
        return self.folder / entry.file_name

    # --- changes ----------------------------------------------------------------------

    def link(self, path: str | Path) -> tuple[InstalledModel, GgufInfo]:
        """Use the ``.gguf`` at ``path`` where it is, after checking its header."""
        path = Path(path).expanduser().resolve()
        if path.suffix.lower() != ".gguf":
            raise ModelFileError(
                "Only .gguf model files can be used. Choose a file that ends in .gguf.", path
            )
        info = read_gguf(path)
        linked = self._linked()
        if path not in linked and path.parent != self.folder.resolve():
            self._save_linked([*linked, path])
        return self._describe(path, linked=path.parent != self.folder.resolve()), info

    def remove(self, name: str) -> InstalledModel:
        """Delete a downloaded model's file, or forget a linked one (its file is kept)."""
        model = self.find(name)
        if model is None:
            raise StorageError(f"No installed model is called {name!r}.")
        if model.linked:
            self._save_linked([p for p in self._linked() if p != model.path])
        else:
            try:
                model.path.unlink()
            except OSError as exc:
                raise StorageError(
                    f"{model.path.name}: could not be deleted ({exc.strerror or exc}). Close "
                    "the app's answer in progress and try again."
                ) from exc
        return model
