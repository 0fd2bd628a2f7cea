"""Numbers a model states that none of its passages holds are pointed out."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentmaker.library import Library
from agentmaker.rag.answer.grounding import held_numbers, unsupported_numbers
from agentmaker.rag.answer.support import check_sentence
from agentmaker.testing import FakeEmbedder, ScriptedLLM


def test_numbers_from_memory_are_found_and_the_passages_own_are_not() -> None:
    farm = ["In 1820 he bought a small estate adjoining Bald Hills."]
    assert unsupported_numbers("Nitrogen boils at 77.35 °C [1].", farm) == ["77.35"]
    assert unsupported_numbers("He bought it in 1820 [1].", farm) == []
    # The question's own number is no support: the passage must hold it.
    cup = ["a 2-1 defeat on 11 October 1989 in a World Cup qualifier"]
    assert unsupported_numbers("Roberts won the 1998 World Cup [1].", cup) == ["1998"]
    # Written differently in the passage: separators, number words, no spaces in Chinese.
    assert unsupported_numbers("21,015,324 passages [2]", ["in all 21015324 passages"]) == []
    assert unsupported_numbers("13 dollars a month [1]", ["thirteen dollars a month"]) == []
    assert unsupported_numbers("25 men [1]", ["twenty-five men"]) == []
    assert unsupported_numbers("造成12人死亡 [1]", ["踩踏事故，造成12人死亡。"]) == []
    assert unsupported_numbers("[1] [12]", ["nothing"]) == []  # markers are not numbers
    # Thousands separated by full stops, as a German or Indonesian table writes them.
    table = ["| Population | 83.190.556 | 273.879.750 |"]
    assert unsupported_numbers("Indonesia has 273,879,750 people [1].", table) == []
    assert unsupported_numbers("Indonesia has 273,879,751 people [1].", table) == ["273,879,751"]
    # A version is no such number: 6.12.0 is not 6120.
    assert unsupported_numbers("Fixed in 6120 [1].", ["## Version 6.12.0"]) == ["6120"]


def test_the_answer_carries_the_numbers_to_check(tmp_path: Path) -> None:
    library = Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder())
    try:
        library.pipeline.ingest_text(
            "# Estate\n\nIn 1820 he bought a small estate adjoining Bald Hills.",
            source="farm.md",
            fmt="md",
        )
        library.set_llm(ScriptedLLM(["He bought the estate in 1820 for 40,000 roubles [1]."]))
        result = asyncio.run(library.rag.ask("When did he buy the estate?"))
        assert result.unsupported == ["40,000"] and not result.extractive
        library.set_llm(ScriptedLLM(["I don't know."]))
        assert asyncio.run(library.rag.ask("How much did it cost in 1999?")).unsupported == []
    finally:
        library.close()


def test_a_number_inside_a_hyphenated_name_is_no_quantity() -> None:
    # v37: "2" of "BSD-2-Clause" and "GPL-2.0-only" answered how many keywords a
    # package may list at most (unanswerable).
    licences = (
        "### license\nThe license of the package. The recommended notation for the most "
        "common licenses is (alphabetical):\n* Apache-2.0\n* BSD-2-Clause\n* GPL-2.0-only\n"
        "* LGPL-2.1-or-later\n* MIT"
    )
    assert held_numbers(licences) == set()
    assert held_numbers("COVID-19 in 2020, version 2.0 of utf-8") == {"19", "2020", "2", "8"}
    question = (
        "According to Poetry's pyproject.toml docs, how many keywords may a package list at most?"
    )
    said = "The number of keywords that a package may list at most is 2. [1]"
    assert not check_sentence(question, said, [licences]).supported
    # Naming the licence states no number the passage must hold, and none is flagged.
    named = "The license BSD-2-Clause is among the most common licenses. [1]"
    asked = "Which licenses does Poetry recommend?"
    assert check_sentence(asked, named, [licences]).supporting == (1,)
    assert unsupported_numbers(named, [licences]) == []


def test_the_ten_of_a_power_of_ten_is_no_quantity() -> None:
    # v38 (unanswerable): "How many warm-up steps …?" was answered "10" from the DPR
    # paper's "a learning rate of 10−5 using Adam, linear scheduling with warm-up".
    dpr = [
        "We trained the question and passage encoders for up to 40 epochs, with a learning "
        "rate of 10−5 using Adam, linear scheduling with warm-up and dropout rate 0.1."
    ]
    said = "The DPR authors used 10 warm-up steps for their linear learning rate schedule. [1]"
    assert unsupported_numbers(said, dpr) == ["10"]
    question = "How many warm-up steps did the DPR authors use for their learning rate schedule?"
    assert not check_sentence(question, said, dpr).supported
    # The power itself, however it is written, is held; a wrong exponent is not.
    for rate in ("10−5", "10^-5", "10⁻⁵"):
        assert unsupported_numbers(f"The learning rate was {rate}. [1]", dpr) == []
    assert unsupported_numbers("The learning rate was 10^-4. [1]", dpr) == ["4"]
    # An ASCII hyphen is a score or a range, not a power.
    assert held_numbers("won 10-5 after extra time") == {"10", "5"}


def test_a_page_number_is_no_quantity() -> None:
    # v35 (unanswerable): "hair usually takes about 3 months to grow back [4]", the 3
    # from passage 4's header, "p. 5 (printed 3)", of the booklet's contents page.
    contents = (
        "Understanding Breast Cancer — p. 5 (printed 3)\nChemotherapy ........ 39\nWigs .... 56"
    )
    said = "Hair usually takes about 3 months to grow back after chemotherapy. [1]"
    assert unsupported_numbers(said, [contents]) == ["3"]
    question = "How long after chemotherapy does hair usually take to grow back?"
    assert not check_sentence(question, said, [contents]).supported
    assert held_numbers("as shown on pp. 45-47 (see also p.12), 30 women") == {"30"}
    # The contents' own numbers are held.
    assert unsupported_numbers("Wigs are on page 56. [1]", [contents]) == []
