"""The spec's code samples run unchanged (examples/05_rag.py and its ask sample)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _run(name: str) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / name)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_quickstart_example() -> None:
    out = _run("05_rag.py")
    assert "Ingested 2 chunks." in out
    lines = [line for line in out.splitlines() if line.startswith("  - ")]
    assert "meal allowance is 80" in out.split("Relevant chunks")[1].split("  - ")[1]
    assert len(lines) == 2


def test_ask_example() -> None:
    out = _run("05_rag_ask.py").splitlines()
    assert out[0] == "The meal allowance is 80."
    assert out[1].startswith("1 Expense Policy > Meals ")
    assert out[2].startswith("2 Expense Policy > Lodging ")
