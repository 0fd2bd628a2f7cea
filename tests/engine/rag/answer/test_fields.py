"""A question that names a sheet's row or a data entry and asks for none of its fields."""

from __future__ import annotations

import asyncio
from pathlib import Path

from agentmaker.library import Library
from agentmaker.rag.answer.checked import (
    NOT_FOUND_ANSWER,
    CheckedAnswer,
    passages_answer_question,
)
from agentmaker.rag.answer.fields import field_values, holds_asked_value, unasked_fields
from agentmaker.rag.answer.focus import asked_records
from agentmaker.rag.chunking.split import split_document
from agentmaker.rag.documents import Document
from agentmaker.testing import FakeEmbedder, ScriptedLLM

WEATHER = ("date", "precipitation", "temp_max", "temp_min", "wind", "weather")


def _chunk(path: Path, fmt: str, holding: str) -> str:
    doc = Document(content=path.read_text(encoding="utf-8"), format=fmt)
    [chunk] = [c for c in split_document(doc) if holding in c.content]
    return chunk.content


def test_a_row_without_the_asked_field_is_found_before_the_model(good_dir: Path) -> None:
    rows = _chunk(good_dir / "seattle-weather.csv", "csv", "date: 2014/06/21;")
    sunshine = "How many hours of sunshine did Seattle get on 2014/06/21, according to the data?"
    assert unasked_fields(sunshine, [rows]) == WEATHER
    # "snow" is the row's weather, not a depth.
    snow = _chunk(good_dir / "seattle-weather.csv", "csv", "date: 2012/12/25;")
    assert unasked_fields("How deep was the snow in Seattle on 2012/12/25?", [snow]) == WEATHER
    # Asked for by a field's words or their beginnings: answered from the row.
    for asked in (
        "How much precipitation does the Seattle weather data record for 2014/06/21?",
        "What was the maximum temperature in Seattle on 2014/06/21?",
        # "lowest" qualifies the temperature as the row's temp_min (held-out v70).
        "In the Seattle weather data, what is the lowest temperature recorded on 2014/06/21?",
        "What was the highest temperature in Seattle on 2014/06/21?",
        "What weather does the sheet give for 2014/06/21?",
        "When did it rain most, around 2014/06/21?",
    ):
        assert unasked_fields(asked, [rows]) == (), asked
    # No row named, or a question in Chinese (the fields' names are English).
    assert unasked_fields("How many hours of sunshine did Seattle get in 2016?", [rows]) == ()
    assert unasked_fields("2014/06/21 西雅图的日照时数是多少？", [rows]) == ()


def test_an_entry_is_named_by_its_first_value(good_dir: Path) -> None:
    cars = _chunk(good_dir / "cars.json", "json", "Name: fiat x1.9\n")
    fields = unasked_fields("What is the wheelbase of the fiat x1.9, in the cars data?", [cars])
    assert fields[:2] == ("Name", "Miles_per_Gallon") and "Weight_in_lbs" in fields
    assert unasked_fields("How much does the fiat x1.9 weigh, in the cars data?", [cars]) == ()
    airports = _chunk(good_dir / "airports.csv", "csv", "iata: HPN;")
    # "town" is a word for the city field.
    town = "In which town is the Westchester County airport (code HPN)?"
    assert unasked_fields(town, [airports]) == ()
    assert unasked_fields("How many runways does the airport with code HPN have?", [airports])


def test_a_field_qualified_as_another_kind_is_not_asked_for(good_dir: Path) -> None:
    # The row's temperatures are the air's, its wind no gust (held-out v40-v42).
    rows = _chunk(good_dir / "seattle-weather.csv", "csv", "date: 2014/06/21;")
    for other in (
        "What was the soil temperature in Seattle on 2014/06/21?",
        "What was the sea surface temperature off Seattle on 2014/06/21?",
        "What was the maximum wind gust in Seattle on 2014/06/21?",
    ):
        assert unasked_fields(other, [rows]) == WEATHER, other
    # A field's own words qualify it; a proper name or "how much" does not.
    for asked in (
        "What was the minimum temperature in Seattle on 2014/06/21?",
        "What wind speed does the Seattle weather data record for 2014/06/21?",
        "What weather type does the Seattle weather data record for 2014/06/21?",
        "How much precipitation fell in Seattle on 2014/06/21?",
    ):
        assert unasked_fields(asked, [rows]) == (), asked
    cars = _chunk(good_dir / "cars.json", "json", "Name: fiat x1.9\n")
    valves = "How many valves per cylinder does the fiat x1.9 have, according to the cars data?"
    assert "Cylinders" in unasked_fields(valves, [cars])
    for asked in (
        "How many miles per gallon does the fiat x1.9 get, according to the cars data?",
        "Which model year does the cars data give for the fiat x1.9?",
    ):
        assert unasked_fields(asked, [cars]) == (), asked


def test_prose_that_names_the_row_may_say_what_its_fields_do_not(good_dir: Path) -> None:
    rows = _chunk(good_dir / "seattle-weather.csv", "csv", "date: 2014/06/21;")
    diary = "On 2014/06/21 the sun shone for fifteen hours over Seattle."
    question = "How many hours of sunshine did Seattle get on 2014/06/21?"
    assert unasked_fields(question, [rows, diary]) == ()
    assert unasked_fields(question, [rows, "Summer in Seattle is dry."]) == WEATHER


def test_the_model_is_not_asked_for_a_field_the_row_lacks(good_dir: Path, tmp_path: Path) -> None:
    lib = Library.open(tmp_path / "weather.sqlite", embedder=FakeEmbedder())
    try:
        rows = _chunk(good_dir / "seattle-weather.csv", "csv", "date: 2014/06/21;")
        header = "date,precipitation,temp_max,temp_min,wind,weather\n"
        body = "\n".join(
            ",".join(part.split(": ", 1)[1] for part in line.split("] ", 1)[1].split("; "))
            for line in rows.splitlines()
            if line.startswith("[row ")
        )
        lib.pipeline.ingest_text(header + body, source="seattle-weather.csv", fmt="csv")
        llm = ScriptedLLM(["Seattle got 27.8 hours of sunshine. [1]"] * 2)
        llm.checks_answers = True  # as the built-in model does
        lib.set_llm(llm)
        question = "How many hours of sunshine did Seattle get on 2014/06/21?"
        result = asyncio.run(lib.rag.ask(question))
        assert llm.calls == [] and result.note == "no_field" and result.abstained
        assert result.answer == NOT_FOUND_ANSWER
        asked = asyncio.run(lib.rag.ask("What temp_max and weather were on 2014/06/21?"))
        assert asked.note != "no_field" and len(llm.calls) >= 1
    finally:
        lib.close()


def test_a_value_of_another_field_of_the_named_row_is_withheld(good_dir: Path) -> None:
    rows = _chunk(good_dir / "seattle-weather.csv", "csv", "date: 2015/01/01;")
    [row] = [r for r in rows.splitlines() if "date: 2015/01/01;" in r]
    assert "temp_max: 5.6; temp_min: -3.2;" in row
    question = "What was the minimum temperature in Seattle on 2015/01/01?"
    asked, others = field_values(question, [rows])
    assert "3.2" in asked and "5.6" in others and "2015" not in asked | others
    # The row's temp_max, given for its minimum, is no answer; its temp_min is.
    wrong = CheckedAnswer(question, [rows])
    assert wrong.feed("The minimum temperature on 2015/01/01 was 5.6. [1]") + wrong.flush() == ""
    assert wrong.withheld == ["The minimum temperature on 2015/01/01 was 5.6."]
    right = CheckedAnswer(question, [rows])
    shown = right.feed("The minimum temperature on 2015/01/01 was -3.2. [1]") + right.flush()
    assert shown == "The minimum temperature on 2015/01/01 was -3.2. [1]"
    # A question that asks for no field leaves the check as it was.
    assert field_values("What happened in Seattle on 2015/01/01?", [rows]) == (set(), set())


def test_a_record_the_question_names_less_of_is_another_one() -> None:
    # The cars data (benchmarks/data heldout56): the peugeot 504's weight is not the
    # peugeot 504 (sw)'s, though the question names "peugeot 504" too.
    wagon = "cars — [84]–[90]\n[85]\nName: peugeot 504 (sw)\nHorsepower: 87\nWeight_in_lbs: 2979\n"
    saloon = "cars — [21]–[27]\n[26]\nName: peugeot 504\nHorsepower: 87\nWeight_in_lbs: 2672\n"
    question = "How much does the peugeot 504 (sw) weigh, in pounds, according to the cars data?"
    asked, others = field_values(question, [wagon, saloon])
    assert asked == {"2979"} and "2672" in others
    wrong = CheckedAnswer(question, [wagon, saloon])
    assert not wrong.feed("The peugeot 504 (sw) weighs 2672 pounds. [2]") + wrong.flush()
    right = CheckedAnswer(question, [wagon, saloon])
    shown = right.feed("The peugeot 504 (sw) weighs 2979 pounds. [1]") + right.flush()
    assert shown == "The peugeot 504 (sw) weighs 2979 pounds. [1]"
    # Asked of the peugeot 504 itself, its own record is the one.
    assert field_values("How much does the peugeot 504 weigh?", [wagon, saloon])[0] == {"2672"}


def test_the_named_row_is_quoted_in_place_of_another_fields_value(
    good_dir: Path, tmp_path: Path
) -> None:
    lib = Library.open(tmp_path / "weather.sqlite", embedder=FakeEmbedder())
    try:
        csv = (good_dir / "seattle-weather.csv").read_text(encoding="utf-8").splitlines()
        lib.pipeline.ingest_text("\n".join(csv[:1] + csv[1090:1110]), source="w.csv", fmt="csv")
        # The row's temp_max for its temp_min; then, asked to copy the answer from the
        # quote, the model copies the right value.
        llm = ScriptedLLM(["The temp_min on 2015/01/01 was 5.6. [1]", "-3.2"])
        llm.checks_answers, llm.focus_words = True, 110  # as the built-in model
        lib.set_llm(llm)
        result = asyncio.run(lib.rag.ask("On 2015/01/01, what was the temp_min?"))
        [named] = [s for s in result.sources if s.metadata.get("named")]
        assert named.content.strip().startswith("[row 8] date: 2015/01/01;")
        assert result.note == "quoted_unsupported" and result.withheld
        assert "date: 2015/01/01;" in result.answer and "temp_min: -3.2" in result.answer
        assert "2015/01/02" not in result.answer and len(llm.calls) == 2
    finally:
        lib.close()


def test_a_named_record_of_one_field_a_line_is_quoted_whole(good_dir: Path, tmp_path: Path) -> None:
    # The cars data (benchmarks/data heldout56): the model gave the peugeot 504's weight;
    # quoted line by line, the record's name line alone was the best sentence.
    lib = Library.open(tmp_path / "cars.sqlite", embedder=FakeEmbedder())
    try:
        text = (good_dir / "cars.json").read_text(encoding="utf-8")
        lib.pipeline.ingest_text(text, source="cars.json", fmt="json")
        llm = ScriptedLLM(["The peugeot 504 (sw) weighs 2672 pounds. [1]", "2979"])
        llm.checks_answers, llm.focus_words = True, 110  # as the built-in model
        lib.set_llm(llm)
        result = asyncio.run(lib.rag.ask("How much does the peugeot 504 (sw) weigh, in pounds?"))
        assert result.note == "quoted_unsupported", result.answer
        assert result.answer.startswith("Name: peugeot 504 (sw); Miles_per_Gallon: 21;")
        assert "; Weight_in_lbs: 2979;" in result.answer and "2672" not in result.answer
    finally:
        lib.close()


def test_a_row_named_by_a_value_of_the_field_asked_by_opens_the_gate(good_dir: Path) -> None:
    # Held-out v71: the row holds few of the question's words ("day", "fall"), and a
    # sheet's rows are not close by meaning; it holds "precipitation: 33.3".
    rows = _chunk(good_dir / "seattle-weather.csv", "csv", "date: 2014/05/03;")
    question = "In seattle-weather.csv, on what day did 33.3 of precipitation fall?"
    assert "precipitation: 33.3;" in rows
    assert holds_asked_value(question, [rows]) and passages_answer_question(question, [rows])
    # The value under another field, or a value no row holds: not named.
    assert not holds_asked_value(question.replace("precipitation", "wind"), [rows])
    assert not holds_asked_value(question.replace("33.3", "33.4"), [rows])
    assert not passages_answer_question(question.replace("33.3", "33.4"), [rows])
    # The passage shown to the model keeps that row, not one with 33.3 in another field.
    hot = _chunk(good_dir / "seattle-weather.csv", "csv", "date: 2015/06/27;")
    assert "temp_max: 33.3;" in hot and "precipitation: 33.3;" not in hot
    kept = asked_records(question, rows + "\n" + hot, numbered=True)
    assert [line for line in kept.splitlines() if line.startswith("[row ")] == [
        line for line in rows.splitlines() if "precipitation: 33.3;" in line
    ]
