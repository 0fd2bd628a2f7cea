"""Passages cut to what bears on the question, for a small local model."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from agentmaker.library import Library
from agentmaker.rag.answer.focus import focus_passages, record_labels
from agentmaker.rag.answer.prompting import SourceRef
from agentmaker.rag.chunking.split import split_document
from agentmaker.rag.documents import Document
from agentmaker.rag.readers import read_file
from agentmaker.testing import FakeEmbedder, ScriptedLLM

from tests.engine.rag.answer.ten_k import ITEMS

FILLER = [
    f"The committee met on day {i} and discussed the weather, the roads and the harvest."
    for i in range(1, 13)
]
FACT = "Each large siege gun took ten yoke of oxen to haul to its place."
LONG = " ".join(
    [*FILLER[:6], "The guns arrived in June.", FACT, "They fired at dawn.", *FILLER[6:]]
)


def _words(text: str) -> int:
    return len(text.split())


def test_a_long_passage_keeps_the_matching_sentence_with_its_neighbours() -> None:
    short = SourceRef(2, "Oxen are slow. They pull carts.")
    [focused, same] = focus_passages(
        "How many yoke of oxen did it take to haul each siege gun?",
        [SourceRef(1, LONG, title="diary.txt"), short],
        max_words=40,
    )
    assert f"The guns arrived in June. {FACT} They fired at dawn." in focused.content
    assert focused.content.startswith("… ") and focused.content.endswith(" …")
    assert _words(focused.content) <= 40 + 2  # the budget (and the two gap marks)
    assert focused.metadata["focused"] is True
    assert (focused.n, focused.title) == (1, "diary.txt")  # still cited as [1]
    assert same is short  # already short: untouched


def test_a_passage_found_by_meaning_alone_keeps_its_opening() -> None:
    [focused] = focus_passages("Qu'est-ce que c'est ?", [SourceRef(1, LONG)], max_words=30)
    assert focused.content.startswith(FILLER[0])
    assert FACT not in focused.content and focused.content.endswith(" …")


def test_chinese_passages_are_cut_by_characters() -> None:
    text = "".join(f"第{i}天，委员会讨论了天气和道路。" for i in range(1, 30))
    text += "大兴机场年旅客吞吐量突破2500万人次。" + "会议结束了。" * 20
    [focused] = focus_passages("大兴机场旅客吞吐量", [SourceRef(1, text)], max_words=40)
    assert "大兴机场年旅客吞吐量突破2500万人次。" in focused.content
    assert len(focused.content) < len(text) / 3


def test_a_passage_in_another_script_that_shares_no_word_is_kept_whole() -> None:
    # corpus/good/korean-text-with-tables.pdf: no word of an English question stands in
    # the Korean brochure, whose answer is far from its opening (held-out v38).
    brochure = " ".join(
        f"{i}월 이용 혜택은 커피전문점과 제과점에서 제공됩니다." for i in range(1, 13)
    )
    brochure += " 유효기간이 지난 빅포인트는 월 단위로 자동 소멸됩니다."
    asked = "In what unit are Big Points automatically extinguished when their validity expires?"
    [whole] = focus_passages(asked, [SourceRef(1, brochure)], max_words=40)
    assert whole.content == brochure and "focused" not in whole.metadata
    # A passage in the question's own script is still cut to its opening...
    [opening] = focus_passages("Qu'est-ce que c'est ?", [SourceRef(1, LONG)], max_words=30)
    assert opening.content.endswith(" …")
    # ...and so is one in another script that shares a word with the question.
    named = "What does the brochure say about 2500 points?"
    [cut] = focus_passages(named, [SourceRef(1, "2500 포인트. " + brochure)], max_words=40)
    assert "월 단위" not in cut.content and cut.metadata["focused"] is True


def test_a_model_that_asks_for_focus_sees_and_cites_the_focused_passage(tmp_path: Path) -> None:
    library = Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder())
    try:
        library.pipeline.ingest_text(LONG, source="diary.txt", fmt="txt")
        llm = ScriptedLLM(["Ten yoke of oxen [1]."])
        llm.focus_words = 40  # type: ignore[attr-defined]
        library.set_llm(llm)
        result = asyncio.run(library.rag.ask("How many yoke of oxen hauled each siege gun?"))
        prompt = llm.calls[-1][-1].content
        assert FACT in prompt and FILLER[0] not in prompt
        assert result.sources[0].content in prompt  # the passage shown is the one read
        assert result.answer == "Ten yoke of oxen [1]."
    finally:
        library.close()


def test_a_line_of_code_that_answers_is_kept(good_dir: Path) -> None:
    text = (good_dir / "faq.md").read_text(encoding="utf-8")
    start = text.index("### Why is Poetry telling me that the current project's supported")
    section = text[start : text.index("\n### ", start + 10)]
    [focused] = focus_passages(
        "In the Poetry FAQ's example, which package requires Python >=3.7,<3.11?",
        [SourceRef(1, section)],
        max_words=60,
    )
    # The answer stands only in a code block (an error message Poetry prints).
    assert "- scipy requires Python >=3.7,<3.11, so it will not be installable" in focused.content
    assert _words(focused.content) < _words(section) / 2


def test_a_passage_of_records_keeps_the_matching_record_whole(good_dir: Path) -> None:
    doc = Document(content=(good_dir / "cars.json").read_text(encoding="utf-8"), format="json")
    [chunk] = [c for c in split_document(doc) if "Name: fiat x1.9\n" in c.content]
    [focused] = focus_passages(
        "How much does the fiat x1.9 weigh, in pounds, in the cars data?",
        [SourceRef(1, chunk.content)],
        max_words=40,
    )
    # Its weight is seven lines below its name: the whole entry, not the name's neighbours.
    record = chunk.content[chunk.content.index("[158]\n") :].split("\n\n")[0]
    assert record.endswith("Origin: Europe") and "Weight_in_lbs: 2000" in record
    assert record in focused.content
    assert "Name: chevrolet nova" not in focused.content  # another car, far from the question
    assert _words(focused.content) <= 40 + 2


def test_rows_of_a_sheet_keep_the_matching_row(good_dir: Path) -> None:
    doc = Document(content=(good_dir / "seattle-weather.csv").read_text("utf-8"), format="csv")
    [chunk] = [c for c in split_document(doc) if "date: 2013/07/04;" in c.content]
    [focused] = focus_passages(
        "What was the maximum temperature in Seattle on 2013/07/04?",
        [SourceRef(1, chunk.content)],
        max_words=30,
    )
    rows = focused.content.splitlines()
    assert any(r.startswith("[row ") and "date: 2013/07/04; " in r for r in rows)
    assert all(r == "…" or r.startswith("[row ") for r in rows)  # whole rows, one a line


def test_table_cells_carry_their_column_name(good_dir: Path) -> None:
    text = read_file(good_dir / "docx-tables.docx").content
    table = text[text.index("| Header Col 1 |") :].split("\n\n")[0]
    [labelled] = focus_passages("What stands under Header Col 2?", [SourceRef(1, table)])
    lines = labelled.content.splitlines()
    assert lines[0] == "| Header Col 1 | Header Col 2 |"  # the header row stays
    assert "| Header Col 1: Lorem ipsum | Header Col 2: A link example |" in lines
    assert not any(set(line) <= set("|- :") for line in lines)  # no "| --- |" rule
    # A row whose cells do not line up with the header's stays as it is.
    merged = "| a | b |\n| --- | --- |\n| one cell |"
    [same] = focus_passages("a?", [SourceRef(1, merged)])
    assert same.content == "| a | b |\n| one cell |"


def test_lines_that_open_with_a_footnote_number_are_no_records() -> None:
    # A career table copied from a wiki page: its lines open with reference numbers.
    table = "\n".join(
        f"[{n}] First Division {n % 40} {n % 7} 1 0 4 2 Norwich City season {1990 + n}"
        for n in range(80, 100)
    )
    [focused] = focus_passages(
        "How many goals in the 1999 season?", [SourceRef(1, table)], max_words=40
    )
    assert "\n" not in focused.content  # cut as sentences, not kept as whole records


def test_record_labels_name_the_one_passage_that_holds_each_record() -> None:
    passages = [
        "[barley]\ndescription: crop yields\n\n[cars]\ndescription: cars",
        "[row 12] name: Dulles; state: VA\n[row 13] name: Reagan; state: VA",
        "[cars]\ndescription: more cars\n\n[2]\nName: fiat 128\n\n[158]\nName: fiat x1.9",
        "[92] First Division 45 19 (a footnote, no record)",
    ]
    # "cars" heads records in two passages and "2" reads as passage 2: neither. "158" can
    # be no passage of four: the model that writes "[158]" means that car's record.
    assert record_labels(passages) == {"barley": 1, "row 12": 2, "row 13": 2, "158": 3}


def test_an_answer_that_cites_a_records_label_quotes_that_record(
    good_dir: Path, tmp_path: Path
) -> None:
    library = Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder())
    try:
        library.pipeline.ingest_file(good_dir / "vega_dataset_info.json")
        # A small model answered with the label of the entry it read, not a passage number.
        llm = ScriptedLLM(["[barley]", "[barley]", "Immer"])  # two readings, the answer copied
        llm.checks_answers = True  # as the built-in model does
        llm.focus_words = 110  # type: ignore[attr-defined]
        library.set_llm(llm)
        result = asyncio.run(
            library.rag.ask(
                "According to the Vega dataset descriptions, who originally published the "
                "barley crop yields dataset?"
            )
        )
        assert result.note == "quoted_not_answered" and not result.abstained
        assert "It was originally published by Immer in 1934" in result.answer
        [cited] = {int(n) for n in re.findall(r"\[(\d+)\]", result.answer)}
        assert "[barley]\n" in result.sources[cited - 1].content
    finally:
        library.close()


def test_a_long_table_keeps_the_row_the_question_names() -> None:
    # Cut by score, "| Item 1. | Business | 4 |" (page 4) would stand for "Item 4".
    rows = "\n".join(f"| Item {n}. | | {title} | | {page} |" for n, title, page in ITEMS)
    contents = (
        f"GALAXY GAMING, INC. ANNUAL REPORT ON FORM 10-K TABLE OF CONTENTS\n| PART I |\n{rows}"
    )
    question = "In the table of contents of Galaxy Gaming's 10-K, what is Item 4?"
    [focused] = focus_passages(question, [SourceRef(1, contents)], max_words=30)
    assert "| Item 4. | | Mine Safety Disclosures | | 9 |" in focused.content
    assert "Business" not in focused.content and "| PART I |" in focused.content
    # A short passage is shown whole.
    [whole] = focus_passages(question, [SourceRef(1, contents)], max_words=400)
    assert whole.content == contents


def test_a_short_passage_of_rows_keeps_the_row_the_question_names(good_dir: Path) -> None:
    doc = Document(content=(good_dir / "seattle-weather.csv").read_text("utf-8"), format="csv")
    [chunk] = [c for c in split_document(doc) if "date: 2014/03/05;" in c.content]
    question = "How much precipitation does the Seattle weather data record for 2014/03/05?"
    # Under any budget: shown ten days, the model gave another day's rain.
    [focused] = focus_passages(question, [SourceRef(1, chunk.content)], max_words=2000)
    [row] = [r for r in chunk.content.splitlines() if "date: 2014/03/05;" in r]
    assert focused.content.strip() == row and "precipitation: 46.7;" in row
    # A question that names no row keeps them all.
    [whole] = focus_passages("How wet was March?", [SourceRef(1, chunk.content)], max_words=2000)
    assert whole.content == chunk.content


def test_a_label_line_keeps_the_paragraph_it_heads(good_dir: Path) -> None:
    text = read_file(good_dir / "UDHR_first_article_all.txt").content
    start = text.index("\nEsperanto\n")
    passage = text[start : text.index("\nÉwé\n", start)]
    question = "In the UDHR file, which word does the Estonian version use for reason?"
    [focused] = focus_passages(question, [SourceRef(1, passage)], max_words=30)
    # Both sentences of the Estonian text, the second naming reason ("mõistus"); not the
    # end of the Esperanto text above the label.
    assert "Estonian Kõik inimesed sünnivad vabadena" in focused.content
    assert "Neile on antud mõistus ja südametunnistus" in focused.content
    assert "racion" not in focused.content
