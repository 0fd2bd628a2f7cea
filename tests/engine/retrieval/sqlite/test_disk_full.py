"""A full disk: honest words, no 0-byte library, and a batch's report kept.

On a real, small tmpfs (mounting needs root; the test skips loudly without it), filled
up with a plain file. Before issue 21 a healthy library there was called "not a library
file this app can open (disk I/O error)", a new one left a 0-byte file behind, and a
batch that filled the disk lost its report.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest
from agentmaker.errors import DiskFullError, StorageError
from agentmaker.library import Library
from agentmaker.retrieval.sqlite.db import SqliteDatabase
from agentmaker.testing import FakeEmbedder


@pytest.fixture
def disk(tmp_path: Path) -> Iterator[Path]:
    """A 3 MB tmpfs of its own."""
    where = tmp_path / "disk"
    where.mkdir()
    mount = shutil.which("mount")
    done = (
        subprocess.run(
            [mount, "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(where)], capture_output=True
        )
        if mount and os.geteuid() == 0
        else None
    )
    if done is None or done.returncode != 0:
        warnings.warn("cannot mount a tmpfs here: the full-disk tests did not run", stacklevel=1)
        pytest.skip("mounting a small tmpfs needs root (and permission to mount)")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def fill(disk: Path, leave: int = 0) -> Path:
    """Fill the disk, leaving about ``leave`` bytes free."""
    filler = disk / "filler"
    with open(filler, "wb") as out, contextlib.suppress(OSError):
        while True:
            stat = os.statvfs(disk)
            free = stat.f_bavail * stat.f_frsize - leave
            if free <= 0:
                break
            out.write(b"x" * min(free, 1 << 16))
            out.flush()
    return filler


def test_a_healthy_library_on_a_full_disk_is_called_full_not_broken(disk: Path) -> None:
    path = disk / "good.agentmaker.sqlite"
    with Library.open(path, embedder=FakeEmbedder()) as lib:
        lib.rag  # noqa: B018 - opened for real
        lib.pipeline.ingest_text("Zebras migrate across the Serengeti.", source="z.md")
    size = path.stat().st_size
    filler = fill(disk)
    with pytest.raises(DiskFullError) as caught:
        Library.open(path, embedder=FakeEmbedder())
    message = str(caught.value)
    assert "disk is full" in message and "Free some space" in message
    assert "not a library file" not in message
    assert path.stat().st_size == size
    filler.unlink()
    with Library.open(path, embedder=FakeEmbedder()) as lib:  # nothing was lost
        assert "Zebras" in lib.rag.retrieve("zebras migrate", top_k=1)[0].content


def test_a_new_library_on_a_full_disk_leaves_no_empty_file(disk: Path) -> None:
    fill(disk)
    path = disk / "new.agentmaker.sqlite"
    with pytest.raises(DiskFullError, match="disk is full"):
        SqliteDatabase(path)
    assert sorted(p.name for p in disk.iterdir()) == ["filler"]


def test_a_batch_that_fills_the_disk_keeps_its_report(disk: Path, tmp_path: Path) -> None:
    files = []
    for n in range(40):
        path = tmp_path / f"note{n:02}.md"
        path.write_text(f"# Note {n}\n\n" + f"Zebra herd number {n} grazes. " * 120)
        files.append(path)
    library = disk / "lib.agentmaker.sqlite"
    with Library.open(library, embedder=FakeEmbedder()) as lib:
        lib.pipeline.ingest_paths(files[:1])
        filler = fill(disk, leave=120_000)
        with pytest.raises(StorageError, match="disk is full") as caught:
            lib.pipeline.ingest_paths(files[1:])
        report = caught.value.report
        assert isinstance(caught.value, DiskFullError)
    assert report is not None
    indexed = [f.path for f in report.by_status("indexed")]
    assert indexed, "the disk filled before anything was committed: leave more room"
    assert report.files[-1].status == "failed" and "disk is full" in report.files[-1].error
    filler.unlink()
    with Library.open(library, embedder=FakeEmbedder()) as lib:
        stored = {d.source for d in lib.source_store.list_documents()}
        assert set(indexed) <= stored  # the report says what was committed, and it was
        assert str(files[0]) in stored
        assert lib.pipeline.verify().ok
