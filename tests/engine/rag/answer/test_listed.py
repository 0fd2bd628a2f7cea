"""A list's entry asked for by its place: right after or before an entry the question
names, between two, the first or last of a menu it names. The NWS spring safety page
(corpus/good/spring-weather.jsonl) writes each menu as one value, its entries apart by
runs of spaces; the pypdf history (history.md) writes a bulleted list. Shown them, the
model named another entry or only pointed at the passage (held-out v66-v68)."""

from __future__ import annotations

from pathlib import Path

from agentmaker.library import Library
from agentmaker.rag.answer.listed import listed_entry
from agentmaker.rag.answer.prompting import AskResult
from agentmaker.rag.chunking.split import split_document
from agentmaker.rag.readers import read_file
from agentmaker.testing import ScriptedLLM

from tests.engine.rag.answer.test_gate_level import LeveledEmbedder, ask_checked

BETWEEN = (
    "On the NWS spring safety page, which Weather Safety entry sits between Rip Currents "
    "and Space Weather?"
)
CLOSES = "On the NWS spring safety page, which campaign closes the Safety Campaigns menu?"


def _chunks(path: Path) -> list[str]:
    return [c.content for c in split_document(read_file(path))]


def _holding(chunks: list[str], text: str) -> str:
    [chunk] = [c for c in chunks if text in c]
    return chunk


def test_the_entry_beside_those_named_is_found(good_dir: Path) -> None:
    chunks = _chunks(good_dir / "spring-weather.jsonl")
    menus = [_holding(chunks, "Rip Currents"), _holding(chunks, "Deaf & Hard of Hearing")]
    found = listed_entry(BETWEEN, menus)
    assert found is not None and found.number == 1
    assert found.quote() == (
        "“Safe Boating” stands between “Rip Currents” and “Space Weather” in the list. [1]"
    )
    after = listed_entry(
        "In the Safety Campaigns menu of the spring safety page, which campaign is listed "
        "right after Deaf & Hard of Hearing?",
        menus,
    )
    assert after is not None and (after.number, after.entry) == (2, "Intellectual Disabilities")
    # Held-out v74: "what does the About menu list after Roadmap?"
    lists = listed_entry(
        "What does the Safety Campaigns menu list after Deaf & Hard of Hearing?", menus
    )
    assert lists is not None and lists.entry == "Intellectual Disabilities"
    before = listed_entry("Which entry comes right before Safe Boating?", menus)
    assert before is not None and before.entry == "Rip Currents" and before.step == -1
    # "Sun (Ultraviolet Radiation)" is named by its name alone.
    follows = listed_entry("What follows Sun in the Weather Safety menu?", menus)
    assert follows is not None and follows.entry == "Thunderstorms & Tornadoes"
    last = listed_entry(CLOSES, menus)
    assert last is not None and last.quote() == (
        "“The Great Outdoors” is the last entry of “Safety Campaigns”. [2]"
    )
    first = listed_entry("What is the first item of the Weather Safety menu?", menus)
    assert first is not None and (first.number, first.entry) == (1, "Air Quality")


def test_a_bulleted_point_is_named_by_its_opening_words(good_dir: Path) -> None:
    history = _holding(_chunks(good_dir / "history.md"), "* Annotation support")
    found = listed_entry(
        "According to the pypdf history page, which item comes right after the text "
        "extraction improvements in the list of what pypdf >= 3.1.0 offers?",
        [history],
    )
    assert found is not None and found.entry == "Annotation support"
    assert found.named == ("Text extraction improvements",)


def test_no_entry_for_another_place_or_a_name_only_begun(good_dir: Path) -> None:
    menus = [_holding(_chunks(good_dir / "spring-weather.jsonl"), "Rip Currents")]
    # "after" that is no place in a list (held-out v64).
    assert listed_entry("What is given in brackets after Sun in the menu?", menus) is None
    # Two entries apart: nothing stands alone between them.
    assert listed_entry("Which entry sits between Rip Currents and Sun?", menus) is None
    # The question's words go on past the entry: "Cold" is not "Cold fronts".
    assert listed_entry("Which entry comes right after Cold fronts?", menus) is None
    assert listed_entry("Which entry comes right after Cold Water?", menus) is not None
    # No list of that title.
    assert listed_entry("Which campaign closes the Winter Safety menu?", menus) is None
    assert listed_entry("What happened after the war?", menus) is None


def _ask(
    good_dir: Path, tmp_path: Path, question: str, replies: list[str]
) -> tuple[ScriptedLLM, AskResult]:
    lib = Library.open(tmp_path / "nws.sqlite", embedder=LeveledEmbedder(-1.0))
    try:
        lib.pipeline.ingest_file(good_dir / "spring-weather.jsonl")
        return ask_checked(lib, question, replies)
    finally:
        lib.close()


def test_the_entry_is_quoted_without_asking_the_model(good_dir: Path, tmp_path: Path) -> None:
    llm, result = _ask(good_dir, tmp_path, BETWEEN, ["Space Weather. [1]"])
    assert llm.calls == []
    assert result.note == "quoted_listed" and result.extractive
    assert result.answer.startswith("“Safe Boating” stands between")
    # The marker is that of the passage holding the menu.
    marker = int(result.answer.rsplit("[", 1)[1].rstrip("]"))
    cited = result.sources[marker - 1]
    assert "Rip Currents" in cited.content and "Space Weather" in cited.content


def test_an_entry_no_list_holds_is_left_to_the_model(good_dir: Path, tmp_path: Path) -> None:
    question = BETWEEN.replace("Rip Currents", "Rip Tides")
    llm, result = _ask(good_dir, tmp_path, question, ["I don't know."] * 4)
    assert llm.calls and result.note != "quoted_listed"
    assert "Safe Boating" not in result.answer
