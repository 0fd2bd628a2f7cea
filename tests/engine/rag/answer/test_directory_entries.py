"""A directory's entries: a member list's names, each above the short lines of its
address (corpus/good/indirect-rotation.pdf, Appendix A). A short line there is no label
of the line under it; the line that names the entry asked about is quoted with the
entry's lines; and the model's answer copied from the entry without what was asked
("Tokyo 100-91 [1]" for the ward) points at the passage to quote (held-out v37, v38, v40
and v44: four questions answered from their quote)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentmaker.library import Library
from agentmaker.rag.answer.checked import CheckedAnswer
from agentmaker.rag.answer.extractive import extractive_answer
from agentmaker.rag.answer.quotable import directory_runs
from agentmaker.testing import FakeEmbedder, ScriptedLLM

MEMBERS = """International Council of Containership Operators
Agreement No. 010099-061 060
Appendix A - Members
Mitsui O.S.K. Lines, Ltd.
1- 1 Toranomon
2- Chome, Minato-ku
Tokyo 105-8688
Japan
Nippon Yusen Kaisha (NYK Line)
Yusen Bldg.
3- 2 Manmouchi 2-chonie
Chiyoda-ku
Tokyo 100-91
Japan
Orient Overseas Container Line Ltd.
31/F Harbour Centre
25 Harbour Road
Wanchai
Hong Kong"""

WARD = (
    "In which ward of Tokyo is the address of Nippon Yusen Kaisha (NYK Line), according to "
    "the member list of the containership operators' agreement?"
)


def test_a_run_of_short_lines_is_a_directory_and_prose_is_not() -> None:
    (run,) = directory_runs(MEMBERS)
    assert run.startswith("International Council") and run.endswith("Wanchai Hong Kong")
    prose = "\n".join(["The siege went on.", "It rained for weeks.", "Then it ended."] * 3)
    assert directory_runs(prose) == []
    # Five short lines are no directory yet.
    assert directory_runs("\n".join(MEMBERS.splitlines()[9:14])) == []


def test_the_line_that_names_the_entry_is_quoted_with_the_entrys_lines() -> None:
    quote = extractive_answer(WARD, [MEMBERS], top_passages=0)
    assert quote.text == (
        "Nippon Yusen Kaisha (NYK Line) Yusen Bldg. 3- 2 Manmouchi 2-chonie Chiyoda-ku "
        "Tokyo 100-91 [1]"
    )
    # Cited verbatim: the entry's lines as the passage has them, up to whitespace.
    ((n, cited),) = quote.citations
    assert n == 1 and " ".join(cited.split()) in " ".join(MEMBERS.split())
    # Not a label joined to the lines under it: the entry before is not quoted with it.
    assert "Japan Nippon" not in quote.text
    # Where the best line matches more than the name ("line"), it is quoted alone.
    asked = "Which shipping line is Nippon Yusen Kaisha, according to the member list?"
    assert "Chiyoda-ku" not in extractive_answer(asked, [MEMBERS], top_passages=0).text


def test_a_label_above_prose_keeps_its_text_in_a_run_of_short_lines() -> None:
    # corpus/good/GeoTopo-komprimiert.pdf: "Definition 23" above its text, among the
    # short lines of formulas and figures.
    notes = "\n".join(
        [
            "(a) S",
            "2",
            "y",
            "x",
            "Definition 23",
            "Ein Knotendiagramm heißt 3-färbbar, wenn "
            "jeder Bogen von D so mit einer Farbe gefärbt werden kann.",
            "z",
            "(b) T",
            "3",
        ]
    )
    asked = "What is a knot diagram called in Definition 23?"
    assert "3-färbbar" in extractive_answer(asked, [notes], top_passages=0).text


def test_an_answer_copied_from_a_passage_without_what_is_asked_points_at_it() -> None:
    checked = CheckedAnswer(WARD, ["Other text about Tokyo.", MEMBERS])
    assert checked.feed("Tokyo 100-91 [2]") + checked.flush() == ""
    assert checked.withheld == ["Tokyo 100-91"] and checked.copied == [2]
    # Not a sentence of its own words.
    written = CheckedAnswer(WARD, ["Other text about Tokyo.", MEMBERS])
    written.feed("The company is in Tokyo, Japan. [2]")
    written.flush()
    assert written.copied == []


def test_the_entry_the_model_copied_from_is_quoted_and_confirmed(tmp_path: Path) -> None:
    lib = Library.open(tmp_path / "members.sqlite", embedder=FakeEmbedder())
    try:
        lib.pipeline.ingest_text(MEMBERS, source="members.txt")
        lib.pipeline.ingest_text("Tokyo is the capital of Japan.", source="tokyo.txt")
        llm = ScriptedLLM(["Tokyo 100-91 [1]", "Chiyoda-ku"])
        llm.checks_answers = True  # as the built-in model does
        lib.set_llm(llm)
        result = asyncio.run(lib.rag.ask(WARD))
        assert result.sources[0].content.startswith("International Council")
        assert result.note == "quoted_unsupported" and result.extractive
        assert "Chiyoda-ku Tokyo 100-91 [1]" in result.answer
        assert "Chiyoda-ku" in llm.calls[1][-1].content  # the quote the model confirmed
    finally:
        lib.close()


def test_a_postal_code_is_asked_as_a_number() -> None:
    # Held-out v47: "Hapag-Lloyd … is listed as a member of the containership operators'
    # agreement in Appendix A" was shown for the postal code of its Hamburg address.
    postal = (
        "What postal code does the member list of the containership operators' agreement "
        "give for Nippon Yusen Kaisha (NYK Line) in Tokyo?"
    )
    checked = CheckedAnswer(postal, [MEMBERS])
    listed = "Nippon Yusen Kaisha (NYK Line) is listed as a member in Appendix A. [1]"
    assert checked.feed(listed) + checked.flush() == ""
    assert checked.withheld == [listed.removesuffix(" [1]")]
    # The entry's lines are quoted down to the line with the number.
    assert "Tokyo 100-91 [1]" in extractive_answer(postal, [MEMBERS], top_passages=0).text
