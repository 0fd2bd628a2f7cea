"""The README's setup scripts: what a person sees when Qt's X11 libraries are missing."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.paths import REPO

SCRIPT = REPO / "scripts" / "qt_xcb_deps.sh"
pytestmark = pytest.mark.skipif(
    not (REPO / ".venv" / "bin" / "python").exists(),
    reason="the script inspects the Qt of the checkout's .venv (made by scripts/setup.sh)",
)


def _fake_tools(bin_dir: Path, ldd_output: str, ldconfig_output: str) -> dict[str, str]:
    bin_dir.mkdir()
    (bin_dir / "ldd").write_text(f"#!/bin/sh\ncat <<'OUT'\n{ldd_output}\nOUT\n")
    (bin_dir / "ldconfig").write_text(f"#!/bin/sh\ncat <<'OUT'\n{ldconfig_output}\nOUT\n")
    for tool in ("ldd", "ldconfig"):
        (bin_dir / tool).chmod(0o755)
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", AGENTMAKER_NO_INSTALL="1")
    return env


@pytest.mark.skipif(shutil.which("apt-get") is None, reason="the message names apt-get")
def test_missing_xcb_libraries_name_the_install_command(tmp_path: Path) -> None:
    ldd = (
        "\tlibxcb-icccm.so.4 => not found\n\tlibxcb-keysyms.so.1 => not found\n"
        "\tlibxkbcommon-x11.so.0 => not found\n\tlibc.so.6 => /lib/libc.so.6"
    )
    env = _fake_tools(tmp_path / "bin", ldd, "")
    run = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True)
    assert run.returncode == 1
    assert (
        "sudo apt-get install libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxkbcommon-x11-0"
        in run.stderr
    )
    assert "libxcb-icccm.so.4" in run.stderr


def test_nothing_missing_says_nothing(tmp_path: Path) -> None:
    env = _fake_tools(
        tmp_path / "bin",
        "\tlibc.so.6 => /lib/libc.so.6",
        "\tlibxcb-cursor.so.0 (libc6,x86-64) => /usr/lib/libxcb-cursor.so.0",
    )
    run = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True)
    assert (run.returncode, run.stderr) == (0, "")
