"""The follow-up benchmark's dialogues are well formed and their answers exist."""

from __future__ import annotations

import re
from pathlib import Path

from benchmarks.follow_up_quality import dialogues


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().lower()


def test_dialogues_hold_their_answers(good_dir: Path) -> None:
    rows = dialogues()
    assert len(rows) >= 20
    for row in rows:
        assert row["first_question"] and row["follow_up"] and row["standalone"]
        assert (good_dir / row["file"]).is_file(), row["file"]
        if row["file"].endswith((".md", ".txt")):
            text = (good_dir / row["file"]).read_text(encoding="utf-8", errors="replace")
            assert _norm(row["expected_answer_substring"]) in _norm(text), row
