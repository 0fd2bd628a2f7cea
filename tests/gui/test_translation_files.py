"""The translation files cover the code: every tr() text has a Chinese entry, every
plural (%n) text has English forms, and the compiled .qm files match their .ts."""

from __future__ import annotations

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from agentmaker_desk.i18n import translations_dir

ROOT = Path(__file__).resolve().parents[2]
TOOLS = Path(sys.executable).parent


def _tool(name: str) -> str:
    found = shutil.which(name, path=str(TOOLS)) or shutil.which(name)
    if found is None:  # PySide6 ships both tools: their absence is a broken install
        pytest.fail(f"{name} is missing; it comes with PySide6 (pip install PySide6)")
    return found


def _messages(ts: Path) -> dict[tuple[str, str], ET.Element]:
    root = ET.parse(ts).getroot()
    return {
        (context.findtext("name") or "", message.findtext("source") or ""): message
        for context in root.findall("context")
        for message in context.findall("message")
    }


@pytest.fixture(scope="module")
def code_messages(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, str], ET.Element]:
    """What lupdate finds in the code now (into a scratch file, never the real one)."""
    scratch = tmp_path_factory.mktemp("lupdate") / "scan.ts"
    sources = sorted(str(p) for p in (ROOT / "gui" / "agentmaker_desk").rglob("*.py"))
    subprocess.run(
        [_tool("pyside6-lupdate"), "-silent", *sources, "-ts", str(scratch)],
        check=True,
        capture_output=True,
    )
    return _messages(scratch)


def test_every_text_in_the_code_has_a_chinese_entry(code_messages) -> None:
    chinese = _messages(translations_dir() / "agentmaker_desk_zh_CN.ts")
    missing = sorted(key for key in code_messages if key not in chinese)
    assert missing == []
    wrong_kind = sorted(
        key
        for key, message in code_messages.items()
        if (message.get("numerus") == "yes") != (chinese[key].get("numerus") == "yes")
    )
    assert wrong_kind == []  # a %n text needs a numerus entry, and only then


def test_every_plural_text_has_english_singular_and_plural(code_messages) -> None:
    english = _messages(translations_dir() / "agentmaker_desk_en.ts")
    plural = sorted(k for k, m in code_messages.items() if m.get("numerus") == "yes")
    assert len(plural) >= 15
    assert [k for k in plural if k not in english] == []
    for key in plural:
        forms = [f.text or "" for f in english[key].iter("numerusform")]
        assert len(forms) == 2, key
        assert all("%n" in f or "%Ln" in f for f in forms), key
        assert "(s)" not in forms[0] + forms[1], key


@pytest.mark.parametrize("language", ["zh_CN", "en"])
def test_the_compiled_file_matches_its_source(language: str, tmp_path: Path) -> None:
    ts = translations_dir() / f"agentmaker_desk_{language}.ts"
    fresh = tmp_path / "fresh.qm"
    subprocess.run(
        [_tool("pyside6-lrelease"), "-silent", str(ts), "-qm", str(fresh)],
        check=True,
        capture_output=True,
    )
    committed = ts.with_suffix(".qm")
    assert committed.read_bytes() == fresh.read_bytes(), (
        f"{committed.name} is out of date: run pyside6-lrelease {ts.name} -qm {committed.name}"
    )
