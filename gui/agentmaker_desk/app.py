"""``agentmaker-desk``: start the app (or render its screenshots) on a qasync event loop.

PySide6 is imported before qasync (and ``QT_API`` is set), because qasync uses the
first Qt binding it finds; with another binding its timers fail.
"""

from __future__ import annotations

import argparse
import asyncio
import faulthandler
import logging
import os
import sys
import traceback
from collections.abc import Coroutine
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

os.environ.setdefault("QT_API", "pyside6")

import qasync
from PySide6.QtCore import QCoreApplication, Qt
from PySide6.QtWidgets import QApplication, QMessageBox

from agentmaker_desk import __version__, window_carry
from agentmaker_desk.bridge.bridge import EngineBridge
from agentmaker_desk.gc_guard import GuiThreadCollector
from agentmaker_desk.i18n import install_language
from agentmaker_desk.main_window import MainWindow
from agentmaker_desk.settings.settings import (
    ApiKeyStore,
    SettingsStore,
    default_library_path,
)
from agentmaker_desk.single_instance import SingleInstance, ask_running_instance
from agentmaker_desk.theme import apply_theme
from agentmaker_desk.widgets.icons import icon

log = logging.getLogger("agentmaker_desk")

# Message boxes opened by the excepthook, kept alive until closed.
_error_boxes: set[QMessageBox] = set()


def show_unexpected_error(
    exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
) -> None:
    """sys.excepthook: log the traceback and tell the person, without a nested event loop."""
    log.error("Unexpected error", exc_info=(exc_type, exc, tb))
    if issubclass(exc_type, KeyboardInterrupt):
        QCoreApplication.quit()
        return
    app = QApplication.instance()
    if app is None or QApplication.startingUp():
        sys.__excepthook__(exc_type, exc, tb)
        return
    box = QMessageBox(
        QMessageBox.Icon.Critical,
        QCoreApplication.translate("App", "Something went wrong"),
        QCoreApplication.translate(
            "App",
            "The app ran into an unexpected problem. Your library is safe; "
            "you can keep working. Details are in the log file.",
        ),
        QMessageBox.StandardButton.Ok,
        QApplication.activeWindow(),
    )
    box.setTextFormat(Qt.TextFormat.PlainText)
    box.setInformativeText(str(exc) or exc_type.__name__)
    box.setDetailedText("".join(traceback.format_exception(exc_type, exc, tb)))
    _error_boxes.add(box)
    box.finished.connect(lambda _r: _error_boxes.discard(box))
    box.open()  # never exec(): this may run inside an async slot


def setup_logging() -> Path | None:
    """Log to stderr and to a file in the user log folder (never any API key)."""
    handlers: list[logging.Handler] = [logging.StreamHandler()]
    log_file: Path | None = None
    try:
        from platformdirs import user_log_dir

        folder = Path(user_log_dir("agentmaker Desk", appauthor=False))
        folder.mkdir(parents=True, exist_ok=True)
        log_file = folder / "agentmaker-desk.log"
        handlers.append(logging.FileHandler(log_file, encoding="utf-8"))
    except OSError:
        log_file = None
    logging.basicConfig(
        level=logging.INFO,
        handlers=handlers,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    return log_file


class DeskApp:
    """Owns the bridge, the settings and the window (rebuilt when the language changes)."""

    def __init__(
        self,
        library: Path,
        store: SettingsStore,
        keys: ApiKeyStore,
        embedder: Any = None,
        *,
        team: bool = False,
    ) -> None:
        """``team``: open the team library of Settings › Library instead of ``library``."""
        self.library = library
        self.team = team
        self.store = store
        self.keys = keys
        self.bridge = EngineBridge(embedder=embedder, keys=keys, read_in_process=True)
        apply_theme(store.load().theme)  # before the first window paints
        self.window = self._new_window()

    def _new_window(self) -> MainWindow:
        window = MainWindow(self.bridge, self.store, self.keys)
        window.languageChangeRequested.connect(self.switch_language)
        return window

    def switch_language(self, language: str) -> Any:
        """Apply another interface language by rebuilding the window (not while busy).

        The new window shows what the old one did (``window_carry``): the chat and its
        answers, the passage, the draft question, the import panel and the sync offer.
        Returns the task reopening the chat (None when there is none).
        """
        if self.bridge.busy:
            self.window.statusBar().showMessage(
                QCoreApplication.translate(
                    "App", "The new language is used when the current work ends or at next start."
                ),
                10_000,
            )
            return None
        old = self.window
        carried = window_carry.capture(old)
        install_language(language)
        old.save_window_state()  # the new window starts with the same layout
        self.window = self._new_window()
        self.window.setGeometry(old.geometry())
        reopened = window_carry.restore(self.window, carried)
        self.window.show()
        old.close()
        old.deleteLater()
        return reopened

    def bring_forward(self) -> None:
        """Another launch asked for this library: show the window on top."""
        window = self.window
        if window.isMinimized():
            window.showNormal()
        window.show()
        window.raise_()
        window.activateWindow()

    async def run(self) -> None:
        """Show the window, open the library, run until the last window closes."""
        quit_event = asyncio.Event()
        QApplication.instance().lastWindowClosed.connect(quit_event.set)
        self.bridge.warm_up()
        self.window.show()
        if self.team:
            await self.window.open_chosen_library()
        else:
            await self.bridge.open_library(self.library, settings=self.window.settings)
        await quit_event.wait()
        await self.bridge.close_library()


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog="agentmaker-desk", description="agentmaker Desk: ask your documents."
    )
    parser.add_argument(
        "--library",
        type=Path,
        default=None,
        help="library file to open (default: the user data folder)",
    )
    parser.add_argument(
        "--screenshots",
        type=Path,
        default=None,
        metavar="DIR",
        help="render the main states to PNG files in DIR and exit",
    )
    parser.add_argument(
        "--lang",
        choices=["en", "zh_CN"],
        default=None,
        help="interface language (default: settings, else the system's)",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    return parser.parse_args(argv)


T = TypeVar("T")

#: Rendering the screenshots takes a few seconds; past this, something waits forever.
SCREENSHOTS_TIMEOUT = 90.0


async def _within(work: Coroutine[Any, Any, T], seconds: float) -> T | None:
    """``work``'s result, or None after ``seconds``: then what every task and thread was
    doing is printed to stderr first (a hang in the build's GUI smoke says where)."""
    task = asyncio.ensure_future(work)
    done, _ = await asyncio.wait({task}, timeout=seconds)
    if done:
        return task.result()
    print(f"Rendering did not finish within {seconds:.0f} s; the tasks were at:", file=sys.stderr)
    for other in asyncio.all_tasks():
        other.print_stack(file=sys.stderr)
    faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
    task.cancel()
    return None


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``agentmaker-desk`` command."""
    args = parse_args(sys.argv[1:] if argv is None else argv)
    if args.screenshots and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    setup_logging()
    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("agentmaker Desk")
    app.setOrganizationName("agentmaker")
    app.setApplicationVersion(__version__)
    app.setWindowIcon(icon("app"))
    # The loop ends when DeskApp.run returns (after the library is closed), not when Qt
    # sees the last window close.
    app.setQuitOnLastWindowClosed(False)
    sys.excepthook = show_unexpected_error
    # Qt objects must never be destroyed by a collection on a worker thread.
    collector = GuiThreadCollector(app)
    collector.start()
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    try:
        with loop:
            if args.screenshots:
                from agentmaker_desk.screenshots import render_screenshots

                languages = [args.lang] if args.lang else ["en", "zh_CN"]
                render = render_screenshots(args.screenshots, languages)
                written = loop.run_until_complete(_within(render, SCREENSHOTS_TIMEOUT))
                if written is None:
                    return 3
                for path in written:
                    print(path)
                return 0
            store = SettingsStore()
            settings = store.load()
            install_language(args.lang or settings.language)
            library = args.library or (
                Path(settings.last_library) if settings.last_library else default_library_path()
            )
            if ask_running_instance(library):
                print(
                    f"agentmaker Desk already has {library} open: its window was brought forward."
                )
                return 0
            instance = SingleInstance(library)
            instance.listen()
            # --library names a file; without it, Settings › Library may name a team library.
            team = args.library is None and settings.library.is_team
            desk = DeskApp(library, store, ApiKeyStore(), team=team)
            instance.activationRequested.connect(desk.bring_forward)
            try:
                loop.run_until_complete(desk.run())
            finally:
                instance.close()
    finally:
        asyncio.set_event_loop(None)
    return 0


__all__ = ["DeskApp", "main", "show_unexpected_error"]


if __name__ == "__main__":
    raise SystemExit(main())
