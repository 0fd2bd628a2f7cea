"""onnxruntime stays silent: no telemetry files, no connection, in a real session.

Issue 21: ``import onnxruntime`` (1.32) starts Microsoft's 1DS telemetry, which writes
``~/.cache/Microsoft/DeveloperTools/.onnxruntime/{deviceid,onnxruntime.db}`` and may
send the queued events to ``mobile.events.data.microsoft.com``; the app now sets
``ORT_DISABLE_TELEMETRY=1`` before onnxruntime loads (``agentmaker.models.onnx_runtime``).
A child process with a fresh ``HOME`` ingests, searches, asks (extractive) with the real
local embedder, reads a small rendered page with the real OCR engine and runs the
self-test; afterwards no telemetry file may exist, and under ``strace`` it made no
network connection and no DNS query.
"""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

from tests.paths import CORPUS, REPO

ENGINE = REPO / "engine" / "agentmaker"
SCAN = CORPUS / "bad" / "loremipsum-flat.pdf"
NOTES = CORPUS / "good" / "faq.md"

SESSION = r"""
import sys
from pathlib import Path
from agentmaker.cli import main

library, notes, scan = sys.argv[1:4]
assert main(["--library", library, "--create", "ingest", notes]) == 0
assert main(["--library", library, "search", "how do I"]) == 0
assert main(["--library", library, "ask", "How do I install it?"]) == 0
from agentmaker.ocr import OcrEngine
from agentmaker.ocr.render import render_pages

[(number, image)] = list(render_pages(Path(scan), [1], 60))
page = OcrEngine(threads=1).read_image(image)
print("ocr:", page.text[:40].replace("\n", " "))
assert main(["self-test"]) == 0
import socket

socket.socket(socket.AF_UNIX).close()  # a control: the trace must show this one
print("SESSION OK")
"""


def test_only_one_module_imports_onnxruntime() -> None:
    """Everything else gets it through agentmaker.models.onnx_runtime.ort()."""
    offenders = []
    for path in ENGINE.rglob("*.py"):
        if path.name == "onnx_runtime.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(n == "onnxruntime" or n.startswith("onnxruntime.") for n in names):
                offenders.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert offenders == []


def _run_session(tmp_path: Path, strace: str | None) -> tuple[Path, str]:
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "ORT_DISABLE_TELEMETRY"}
    env.update(HOME=str(home), XDG_CACHE_HOME="", XDG_DATA_HOME="", XDG_CONFIG_HOME="")
    env = {k: v for k, v in env.items() if v != ""}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO / "engine"), env.get("PYTHONPATH", "")])
    command = [sys.executable, "-c", SESSION, str(tmp_path / "lib.sqlite"), str(NOTES), str(SCAN)]
    trace = tmp_path / "strace.txt"
    if strace:
        command = [strace, "-f", "-qq", "-e", "trace=network", "-o", str(trace), *command]
    done = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "SESSION OK" in done.stdout, done.stdout + done.stderr
    return home, trace.read_text() if strace else ""


@pytest.fixture(scope="module")
def session(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str | None]:
    """One real session; traced when strace is installed (``.ci/run`` installs it)."""
    if not (SCAN.is_file() and NOTES.is_file()):
        pytest.skip("shared corpus not available")
    pytest.importorskip("rapidocr")
    strace = shutil.which("strace")
    if strace is not None:  # ptrace may be forbidden (a container without CAP_SYS_PTRACE)
        probe = subprocess.run([strace, "-qq", "-o", os.devnull, "true"], capture_output=True)
        strace = strace if probe.returncode == 0 else None
    home, trace = _run_session(tmp_path_factory.mktemp("offline"), strace)
    return home, trace if strace else None


def test_no_telemetry_file_appears_under_a_fresh_home(session: tuple[Path, str | None]) -> None:
    home, _ = session
    written = [str(p.relative_to(home)) for p in home.rglob("*")]
    assert not [p for p in written if "Microsoft" in p or ".onnxruntime" in p], written


# A connect to anything but a local socket, or a datagram sent to port 53.
_NETWORK = re.compile(r"\b(connect|sendto|sendmsg|sendmmsg)\(.*(AF_INET6?|sin6?_port=htons\(53\))")


def test_no_connection_and_no_dns_query(session: tuple[Path, str | None]) -> None:
    _, trace = session
    if trace is None:
        warnings.warn("strace is unavailable: the no-network check did not run", stacklevel=1)
        pytest.skip("strace is not installed or ptrace is not permitted (install strace)")
    attempts = [line for line in trace.splitlines() if _NETWORK.search(line)]
    assert attempts == []
    assert "AF_UNIX" in trace  # the control socket: the trace did record network calls
