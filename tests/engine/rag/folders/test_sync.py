"""Linked folders: a real temporary folder, a real library file, the fake embedder."""

from __future__ import annotations

import asyncio
import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from agentmaker.library import Library
from agentmaker.rag.folders.files import IgnoreRules
from agentmaker.rag.folders.sync import FolderLinkError, FolderSync, SyncProgress
from agentmaker.rag.folders.watch import FolderWatcher
from agentmaker.rag.ingest.batch import CancelToken
from agentmaker.rag.ingest.pipeline import doc_id_for_path
from agentmaker.testing import FakeEmbedder

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 64


@pytest.fixture
def embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def lib(tmp_path: Path, embedder: FakeEmbedder) -> Iterator[Library]:
    library = Library.open(tmp_path / "lib.sqlite", embedder=embedder)
    yield library
    library.close()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "hotel.md").write_text("# Lodging\n\nThe hotel policy caps lodging at 200 per night.\n")
    (docs / "meals.txt").write_text("Meal allowance: 50 per day while travelling by train.\n")
    (docs / "sub" / "budget.md").write_text("# Budget\n\nThe annual budget report for zebras.\n")
    return docs


@pytest.fixture
def sync(lib: Library, folder: Path) -> FolderSync:
    fs = FolderSync(lib)
    fs.link(folder)
    return fs


def sources(lib: Library) -> set[str]:
    return {info.source for info in lib.source_store.list_documents()}


def top_source(lib: Library, query: str) -> str | None:
    hits = lib.rag.retrieve(query, top_k=1)
    return hits[0].source if hits else None


def text_of(lib: Library, path: Path) -> str | None:
    return lib.source_store.document_text(doc_id_for_path(path))


def bump_mtime(path: Path, seconds: float = 10.0) -> None:
    """Move the mtime on so the change is seen whatever the clock's granularity."""
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + int(seconds * 1e9)))


def wait_for(condition: Callable[[], bool], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        time.sleep(0.05)


def test_link_then_scan_indexes_files_and_rescan_costs_nothing(
    lib: Library, folder: Path, sync: FolderSync, embedder: FakeEmbedder
) -> None:
    updates: list[SyncProgress] = []
    report = sync.scan(progress=updates.append)
    assert sorted(report.added) == sorted(
        str(p) for p in (folder / "hotel.md", folder / "meals.txt", folder / "sub" / "budget.md")
    )
    assert sources(lib) == set(report.added)
    assert top_source(lib, "hotel lodging") == str(folder / "hotel.md")
    assert updates[-1].action == "done" and updates[-1].listing_done
    assert {u.action for u in updates} >= {"added"}
    [info] = sync.folders()
    assert (info.path, info.files, info.failed) == (str(folder), 3, 0)
    assert info.last_scan_at is not None

    embedded = embedder.texts_embedded
    again = sync.scan()
    assert not again.changed and again.unchanged == 3
    assert embedder.texts_embedded == embedded
    assert lib.pipeline.verify().ok


def test_modified_file_is_reingested_and_old_text_is_gone(
    lib: Library, folder: Path, sync: FolderSync
) -> None:
    sync.scan()
    hotel = folder / "hotel.md"
    hotel.write_text("# Lodging\n\nCamping only: tents replace the former arrangement.\n")
    bump_mtime(hotel)
    report = sync.scan()
    assert report.updated == [str(hotel)] and not report.added
    text = text_of(lib, hotel) or ""
    assert "tents" in text and "200 per night" not in text
    chunks = lib.source_store.chunks_of(doc_id_for_path(hotel))
    assert all("200 per night" not in c.content for c in chunks)
    assert top_source(lib, "camping tents") == str(hotel)
    assert lib.pipeline.verify().ok


def test_same_size_change_within_clock_granularity_is_seen(
    lib: Library, folder: Path, sync: FolderSync
) -> None:
    sync.scan()
    meals = folder / "meals.txt"
    st = meals.stat()
    meals.write_text("Meal allowance: 90 per day while travelling by boats.\n")
    assert meals.stat().st_size == st.st_size
    os.utime(meals, ns=(st.st_atime_ns, st.st_mtime_ns))  # same size, same mtime
    report = sync.scan()
    assert report.updated == [str(meals)]
    assert "boat" in (text_of(lib, meals) or "")


def test_touch_without_change_embeds_nothing(
    lib: Library, folder: Path, sync: FolderSync, embedder: FakeEmbedder, monkeypatch
) -> None:
    sync.scan()
    reads: list[Path] = []
    real_read = lib.pipeline.read_file
    monkeypatch.setattr(
        lib.pipeline, "read_file", lambda p, pw: reads.append(p) or real_read(p, pw)
    )
    embedded = embedder.texts_embedded
    for path in folder.rglob("*.*"):
        bump_mtime(path, 30)
    report = sync.scan()
    assert report.unchanged == 3 and not report.changed
    assert embedder.texts_embedded == embedded
    assert reads == []  # the bytes' hash decided: nothing was even parsed


def test_rename_keeps_chunks_without_embedding(
    lib: Library, folder: Path, sync: FolderSync, embedder: FakeEmbedder
) -> None:
    sync.scan()
    old, new = folder / "hotel.md", folder / "lodging-rules.md"
    old_chunks = lib.source_store.chunks_of(doc_id_for_path(old))
    embedded = embedder.texts_embedded
    old.rename(new)
    report = sync.scan()
    assert report.renamed == [(str(old), str(new))]
    assert not report.added and not report.removed
    assert embedder.texts_embedded == embedded
    assert str(old) not in sources(lib) and str(new) in sources(lib)
    hits = lib.rag.retrieve("hotel lodging", top_k=1)
    assert hits[0].source == str(new)
    assert hits[0].metadata["doc_id"] == doc_id_for_path(new)
    new_chunks = lib.source_store.chunks_of(doc_id_for_path(new))
    assert [c.content for c in new_chunks] == [c.content for c in old_chunks]
    assert all(c.chunk_id.startswith(doc_id_for_path(new)) for c in new_chunks)
    info = lib.source_store.get_document(doc_id_for_path(new))
    assert info is not None and info.title == "Lodging"  # the heading, not the file name
    assert lib.pipeline.verify().ok
    assert not lib.pipeline.index_sync.pending()
    assert sync.scan().unchanged == 3  # settled


def test_rename_updates_a_file_name_title(
    lib: Library, folder: Path, sync: FolderSync, embedder: FakeEmbedder
) -> None:
    sync.scan()
    embedded = embedder.texts_embedded
    (folder / "meals.txt").rename(folder / "allowances.txt")
    sync.scan()
    info = lib.source_store.get_document(doc_id_for_path(folder / "allowances.txt"))
    assert info is not None and info.title == "allowances"
    assert embedder.texts_embedded == embedded


def test_move_to_subfolder_is_a_move(
    lib: Library, folder: Path, sync: FolderSync, embedder: FakeEmbedder
) -> None:
    sync.scan()
    embedded = embedder.texts_embedded
    target = folder / "sub" / "deeper" / "meals.txt"
    target.parent.mkdir()
    (folder / "meals.txt").rename(target)
    report = sync.scan()
    assert report.renamed == [(str(folder / "meals.txt"), str(target))]
    assert embedder.texts_embedded == embedded
    assert top_source(lib, "meal allowance train") == str(target)


def test_moving_a_whole_subfolder(
    lib: Library, folder: Path, sync: FolderSync, embedder: FakeEmbedder
) -> None:
    sync.scan()
    embedded = embedder.texts_embedded
    (folder / "sub").rename(folder / "archive")
    report = sync.scan()
    assert report.renamed == [
        (str(folder / "sub" / "budget.md"), str(folder / "archive" / "budget.md"))
    ]
    assert embedder.texts_embedded == embedded


def test_delete_and_move_out_remove_documents(
    lib: Library, folder: Path, sync: FolderSync, tmp_path: Path
) -> None:
    sync.scan()
    (folder / "hotel.md").unlink()
    report = sync.scan()
    assert report.removed == [str(folder / "hotel.md")]
    assert str(folder / "hotel.md") not in sources(lib)
    assert top_source(lib, "hotel lodging") != str(folder / "hotel.md")

    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.move(folder / "sub" / "budget.md", outside / "budget.md")
    report = sync.scan()
    assert report.removed == [str(folder / "sub" / "budget.md")]
    assert sources(lib) == {str(folder / "meals.txt")}
    assert lib.pipeline.verify().ok


def test_move_between_linked_folders(
    lib: Library, folder: Path, sync: FolderSync, embedder: FakeEmbedder, tmp_path: Path
) -> None:
    second = tmp_path / "zz-second"  # scanned after ``folder``
    second.mkdir()
    sync.link(second)
    sync.scan()
    embedded = embedder.texts_embedded
    (folder / "hotel.md").rename(second / "hotel.md")
    report = sync.scan()
    assert report.renamed == [(str(folder / "hotel.md"), str(second / "hotel.md"))]
    assert embedder.texts_embedded == embedded and not report.removed
    assert [f.files for f in sync.folders()] == [2, 1]


def test_copy_reuses_vectors(
    lib: Library, folder: Path, sync: FolderSync, embedder: FakeEmbedder
) -> None:
    sync.scan()
    embedded = embedder.texts_embedded
    shutil.copy(folder / "hotel.md", folder / "sub" / "hotel copy.md")
    report = sync.scan()
    assert report.copied == [(str(folder / "hotel.md"), str(folder / "sub" / "hotel copy.md"))]
    assert embedder.texts_embedded == embedded
    assert len(sources(lib)) == 4
    assert lib.pipeline.verify().ok


def test_ignore_rules(lib: Library, folder: Path, sync: FolderSync) -> None:
    junk = [
        ".hidden.md",
        ".secret/notes.md",
        "~$report.docx",
        ".~lock.report.docx#",
        "a.tmp",
        "b.part",
        "draft.draft.md",
        "build/output.md",
        "photo.xyz",
    ]
    for name in junk:
        (folder / name).parent.mkdir(exist_ok=True)
        (folder / name).write_text("zebra text that must never be indexed\n")
    sync.set_ignore(folder, ["*.draft.md", "build/"])
    report = sync.scan()
    assert len(report.added) == 3
    assert all(Path(s).name in {"hotel.md", "meals.txt", "budget.md"} for s in sources(lib))
    assert not sync.failures()

    sync.set_ignore(folder, ["*.draft.md", "build/", "sub/*"])
    report = sync.scan()
    assert report.removed == [str(folder / "sub" / "budget.md")]
    assert sync.folders()[0].ignore == ("*.draft.md", "build/", "sub/*")


def test_ignore_rules_unit() -> None:
    rules = IgnoreRules("/f", ["*.log", "cache/", "notes/private*"], {".md", ".log"})
    assert rules.includes("/f/a.md")
    assert not rules.includes("/f/a.log")
    assert not rules.includes("/f/cache/x.md")
    assert rules.includes("/f/cache.md")  # "cache/" names folders only
    assert not rules.includes("/f/notes/private-1.md")
    assert not rules.includes("/f/.git/x.md")
    assert not rules.includes("/f/x.png")
    assert rules.includes("/f/cache", is_dir=False) is False


def test_failing_files_are_listed_and_not_retried_until_they_change(
    lib: Library, folder: Path, sync: FolderSync, monkeypatch
) -> None:
    (folder / "empty.md").write_text("")
    (folder / "picture.md").write_bytes(PNG)
    report = sync.scan()
    failures = {Path(f.path).name: f for f in sync.failures()}
    assert set(failures) == {"empty.md", "picture.md"}
    assert {Path(f.path).name for f in report.failed} == set(failures)
    assert failures["empty.md"].error_kind == "empty"
    assert failures["picture.md"].error_kind in {"unsupported", "corrupt"}
    assert all(f.error for f in failures.values())
    assert sync.folders()[0].failed == 2

    reads: list[str] = []
    real_read = lib.pipeline.read_file
    monkeypatch.setattr(
        lib.pipeline, "read_file", lambda p, pw: reads.append(p.name) or real_read(p, pw)
    )
    again = sync.scan()
    assert again.still_failing == 2 and not again.failed and reads == []
    bump_mtime(folder / "empty.md")  # touched, still empty: no retry
    assert sync.scan().still_failing == 2 and reads == []

    (folder / "empty.md").write_text("# Now\n\nIt has zebra words.\n")
    bump_mtime(folder / "empty.md", 20)
    report = sync.scan()
    assert report.added == [str(folder / "empty.md")] and reads == ["empty.md"]
    assert [Path(f.path).name for f in sync.failures()] == ["picture.md"]


def test_retry_failed_tries_again_now(lib: Library, folder: Path, sync: FolderSync) -> None:
    (folder / "empty.md").write_text("")
    sync.scan()
    assert sync.retry_failed().failed[0].path == str(folder / "empty.md")
    assert len(sync.failures()) == 1


def test_unlink_keeping_or_removing_documents(
    lib: Library, folder: Path, sync: FolderSync, tmp_path: Path
) -> None:
    sync.scan()
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.md").write_text("# X\n\nOther folder text about kites.\n")
    sync.link(other)
    sync.scan()
    assert len(sources(lib)) == 4

    assert sync.unlink(other, remove_documents=False) == 0
    assert str(other / "x.md") in sources(lib)  # kept as an ordinary document
    assert [f.path for f in sync.folders()] == [str(folder)]
    (other / "x.md").unlink()
    sync.scan()
    assert str(other / "x.md") in sources(lib)  # no longer followed

    assert sync.unlink(folder, remove_documents=True) == 3
    assert sources(lib) == {str(other / "x.md")}
    assert sync.folders() == [] and sync.scan().files_seen == 0
    assert lib.pipeline.verify().ok


def test_nested_links(lib: Library, folder: Path, tmp_path: Path) -> None:
    fs = FolderSync(lib)
    fs.link(folder / "sub", ignore=["*.log"])
    fs.scan()
    (folder / "sub" / "inner").mkdir()
    with pytest.raises(FolderLinkError, match="already followed"):
        fs.link(folder / "sub" / "inner")
    with pytest.raises(FolderLinkError):
        fs.link(tmp_path / "missing")
    parent = fs.link(folder)  # absorbs the linked subfolder
    assert [f.path for f in fs.folders()] == [str(folder)]
    assert parent.ignore == ("sub/*.log",)
    report = fs.scan()
    assert len(report.added) == 2 and report.unchanged == 1


def test_missing_folder_keeps_its_documents(
    lib: Library, folder: Path, sync: FolderSync, tmp_path: Path
) -> None:
    sync.scan()
    folder.rename(tmp_path / "unplugged")
    report = sync.scan()
    assert report.missing_folders == [str(folder)] and not report.removed
    assert len(sources(lib)) == 3
    (tmp_path / "unplugged").rename(folder)
    assert sync.scan().unchanged == 3


def test_document_deleted_from_library_comes_back(
    lib: Library, folder: Path, sync: FolderSync
) -> None:
    sync.scan()
    lib.pipeline.delete_document(doc_id_for_path(folder / "hotel.md"))
    report = sync.scan()
    assert report.added == [str(folder / "hotel.md")]


def test_scan_of_named_paths(lib: Library, folder: Path, sync: FolderSync) -> None:
    sync.scan()
    new = folder / "sub" / "new.md"
    new.write_text("# New\n\nFresh words about giraffes.\n")
    report = sync.scan(paths=[new])
    assert report.added == [str(new)] and report.files_seen == 1
    nested = sync.scan(paths=[folder / "sub", new, folder / "sub" / "budget.md"])
    assert nested.files_seen == 2 and nested.unchanged == 2  # each file once
    new.unlink()
    report = sync.scan(paths=[new])
    assert report.removed == [str(new)]
    shutil.rmtree(folder / "sub")
    report = sync.scan(paths=[folder / "sub"])
    assert report.removed == [str(folder / "sub" / "budget.md")]
    assert sync.scan(paths=[Path("/nowhere/else.md")]).files_seen == 0


def test_cancelled_scan_is_finished_by_the_next(
    lib: Library, folder: Path, sync: FolderSync
) -> None:
    for i in range(30):
        (folder / f"n{i:02}.md").write_text(f"# Note {i}\n\nNumber {i} words zebra.\n")
    token = CancelToken()

    def stop_after_five(update: SyncProgress) -> None:
        if update.action == "added" and update.added >= 5:
            token.cancel()

    first = sync.scan(progress=stop_after_five, cancel=token)
    assert first.cancelled and 5 <= len(first.added) < 33 and not first.removed
    second = sync.scan()
    assert not second.cancelled
    assert len(first.added) + len(second.added) == 33
    assert len(sources(lib)) == 33 and lib.pipeline.verify().ok


def test_async_scan(lib: Library, folder: Path, sync: FolderSync) -> None:
    report = asyncio.run(sync.ascan())
    assert len(report.added) == 3


def test_watcher_follows_changes_while_running(
    lib: Library, folder: Path, sync: FolderSync, embedder: FakeEmbedder
) -> None:
    reports = []
    watcher = FolderWatcher(sync, debounce=0.2, rescan_interval=None, on_report=reports.append)
    watcher.start()
    try:
        assert watcher.wait_idle(20)
        assert len(sources(lib)) == 3 and not watcher.unwatched
        # add
        new = folder / "sub" / "giraffe.md"
        new.write_text("# Giraffes\n\nTall giraffes eat acacia leaves.\n")
        wait_for(lambda: top_source(lib, "giraffes acacia") == str(new))
        # modify
        new.write_text("# Giraffes\n\nTall giraffes now eat mango leaves.\n")
        wait_for(lambda: "mango" in (text_of(lib, new) or ""))
        # rename (no embedding)
        assert watcher.wait_idle(10)
        embedded = embedder.texts_embedded
        renamed = folder / "giraffe-notes.md"
        new.rename(renamed)
        wait_for(lambda: str(renamed) in sources(lib) and str(new) not in sources(lib))
        assert embedder.texts_embedded == embedded
        # move a folder
        (folder / "sub").rename(folder / "moved")
        wait_for(lambda: str(folder / "moved" / "budget.md") in sources(lib))
        # delete
        (folder / "meals.txt").unlink()
        wait_for(lambda: str(folder / "meals.txt") not in sources(lib))
        # move out of the linked folder
        shutil.move(folder / "hotel.md", folder.parent / "hotel.md")
        wait_for(lambda: str(folder / "hotel.md") not in sources(lib))
        assert watcher.wait_idle(10)
        assert lib.pipeline.verify().ok
        assert len(sources(lib)) == 2
        # a new link is picked up and scanned
        other = folder.parent / "other"
        other.mkdir()
        (other / "kite.md").write_text("# Kites\n\nKites fly on windy beaches.\n")
        sync.link(other)
        wait_for(lambda: str(other / "kite.md") in sources(lib))
        (other / "kite2.md").write_text("# Kites\n\nRed kites above the dunes.\n")
        wait_for(lambda: str(other / "kite2.md") in sources(lib))
    finally:
        watcher.stop()
    assert not watcher.running and reports


def test_watcher_arun_delivers_on_the_loop(lib: Library, folder: Path, sync: FolderSync) -> None:
    async def main() -> list[bool]:
        loop = asyncio.get_running_loop()
        on_loop: list[bool] = []

        def on_report(report: object) -> None:
            on_loop.append(asyncio.get_running_loop() is loop)

        watcher = FolderWatcher(sync, debounce=0.1, rescan_interval=None, on_report=on_report)
        task = asyncio.create_task(watcher.arun())
        deadline = loop.time() + 15
        while not on_loop and loop.time() < deadline:
            await asyncio.sleep(0.05)
        (folder / "late.md").write_text("# Late\n\nLate arrivals about owls.\n")
        while str(folder / "late.md") not in sources(lib) and loop.time() < deadline:
            await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert not watcher.running
        return on_loop

    on_loop = asyncio.run(main())
    assert on_loop and all(on_loop)
    assert str(folder / "late.md") in sources(lib)


def test_periodic_rescan_without_events(lib: Library, folder: Path, sync: FolderSync) -> None:
    watcher = FolderWatcher(sync, live=False, rescan_interval=0.3)
    watcher.start()
    try:
        wait_for(lambda: len(sources(lib)) == 3)
        (folder / "quiet.md").write_text("# Quiet\n\nNo events for these otters.\n")
        wait_for(lambda: str(folder / "quiet.md") in sources(lib))
    finally:
        watcher.stop()


def test_notified_storm_becomes_a_folder_rescan(
    lib: Library, folder: Path, sync: FolderSync
) -> None:
    watcher = FolderWatcher(
        sync, live=False, initial_scan=False, rescan_interval=None, debounce=0.05
    )
    watcher.max_paths = 2
    watcher.start()
    try:
        assert watcher.wait_idle(10) and sources(lib) == set()  # no initial scan
        new = [folder / f"storm{i}.md" for i in range(5)]
        for i, path in enumerate(new):
            path.write_text(f"# Storm {i}\n\nWind number {i}.\n")
        watcher.notify([*new, folder / ".hidden.md"], vanished=[folder / "gone.md"])
        wait_for(lambda: len(sources(lib)) == 8)  # the whole folder was scanned
        assert watcher.wait_idle(10)
        assert watcher.last_report is not None and not watcher.last_report.cancelled
    finally:
        watcher.stop()
