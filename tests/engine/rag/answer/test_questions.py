"""Questions that are not questions get a typed error in plain words, at the public API.

Issue 21: ``ask("")``, ``"   "``, ``"*"`` or emoji only gave a confident extractive
answer citing arbitrary passages; ``top_k=0`` returned 5 hits and ``-3`` returned 2;
``None``, an int or bytes raised AttributeError/TypeError. A real library file, the
fake embedder (the embedder is not the point).
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from agentmaker.errors import AgentmakerError, InvalidQueryError
from agentmaker.library import Library
from agentmaker.testing import FakeEmbedder

from tests.paths import REPO

NOT_QUESTIONS = [
    "",
    "   ",
    "\n\t",
    "*",
    "?!?",
    "...",
    "\U0001f600\U0001f44d",
    "\u2603 \u2764\ufe0f",
]
NOT_TEXT: list[Any] = [None, 42, b"hotel", ["hotel"]]
BAD_TOP_K: list[Any] = [0, -3, 2.5, "5", True]


@pytest.fixture
def lib(tmp_path: Path) -> Iterator[Library]:
    with Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder()) as library:
        library.pipeline.ingest_text("Hotels cost at most 200 per night.", source="travel.md")
        library.pipeline.ingest_text("Meals are paid up to 50 a day.", source="meals.md")
        yield library


def _every_entry(lib: Library, question: Any, top_k: Any = None) -> list[str]:
    """The error message of each public entry point, in order."""
    rag = lib.rag
    calls = [
        lambda: rag.retrieve(question, top_k=top_k),
        lambda: asyncio.run(rag.aretrieve(question, top_k=top_k)),
        lambda: asyncio.run(rag.ask(question, top_k=top_k)),
        lambda: rag.ask_stream(question, top_k=top_k),
        lambda: rag.retriever.search(question, top_k=top_k, scope=rag.scope),
        lambda: asyncio.run(rag.retriever.asearch(question, top_k=top_k, scope=rag.scope)),
    ]
    messages = []
    for call in calls:
        with pytest.raises(InvalidQueryError) as caught:
            call()
        messages.append(str(caught.value))
    return messages


@pytest.mark.parametrize("question", NOT_QUESTIONS)
def test_a_question_without_words_is_refused(lib: Library, question: str) -> None:
    for message in _every_entry(lib, question):
        assert "no words" in message and "Type what you are looking for" in message


@pytest.mark.parametrize("question", NOT_TEXT)
def test_a_question_that_is_not_text_is_refused(lib: Library, question: Any) -> None:
    for message in _every_entry(lib, question):
        assert f"must be text, not {type(question).__name__}" in message


@pytest.mark.parametrize("top_k", BAD_TOP_K)
def test_top_k_must_be_a_whole_number_of_at_least_one(lib: Library, top_k: Any) -> None:
    for message in _every_entry(lib, "hotel costs", top_k):
        assert "top_k must be" in message


def test_real_questions_still_work_and_top_k_is_obeyed(lib: Library) -> None:
    assert len(lib.rag.retrieve("hotel night", top_k=1)) == 1
    assert len(lib.rag.retrieve("hotel night", top_k=2)) == 2
    answer = asyncio.run(lib.rag.ask("  What do hotels cost?  "))
    assert "200" in answer.answer
    assert isinstance(lib.rag.retrieve("\u65e5\u672c", top_k=1), list)  # CJK words are words
    assert issubclass(InvalidQueryError, AgentmakerError) and issubclass(
        InvalidQueryError, ValueError
    )


def test_the_cli_says_so_and_exits_2(tmp_path: Path) -> None:
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join([str(REPO / "engine"), os.environ.get("PYTHONPATH", "")]),
    )
    base = [sys.executable, "-m", "agentmaker.cli", "--library", str(tmp_path / "lib.sqlite")]
    for args in (["ask", "   "], ["search", "*"], ["search", "hotel", "-k", "0"]):
        done = subprocess.run([*base, *args], env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 2, (args, done.stdout, done.stderr)
        assert done.stderr.startswith("error: ") and "Traceback" not in done.stderr
