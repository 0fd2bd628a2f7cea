"""A date an answer writes in numbers is one fact (dates.py): a passage holds it when it
writes that day, not when the year, the month and the day stand in other dates."""

from __future__ import annotations

from agentmaker.rag.answer.dates import dates_in, numeric_dates
from agentmaker.rag.answer.support import check_sentence

# Rows of the Seattle weather sheet (corpus/good/seattle-weather.csv), as the reader writes them.
ROWS = (
    "[row 12] date: 2012/01/12; precipitation: 0.0; temp_max: 6.1; temp_min: -1.7; wind: 1.9\n"
    "[row 77] date: 2012/03/17; precipitation: 9.4; temp_max: 5.6; temp_min: 0.6; wind: 3.0"
)
QUESTION = "What wind speed does the Seattle weather data record for {}?"


def test_dates_are_read_whole_in_numbers_and_in_words() -> None:
    assert numeric_dates("Version 5.0.0, 2024-09-15; for 2012/12/17") == {
        (2024, 9, 15),
        (2012, 12, 17),
    }
    assert dates_in("December 17, 2012 and 3rd Sept. 1999") == {(2012, 12, 17), (1999, 9, 3)}
    # Day and month before the year: either order may be meant; "Mayor" is no month.
    assert dates_in("on 1.2.2020") == {(2020, 1, 2), (2020, 2, 1)}
    assert dates_in("Mayor 5 2012") == set()


def test_a_day_the_passage_does_not_write_is_not_held_by_its_numbers() -> None:
    # 2012, 12 and 17 all stand in the rows, as other days' parts and 5.6 as a temperature.
    check = check_sentence(
        QUESTION.format("2012/12/17"), "The wind speed for 2012/12/17 is 5.6. [1]", [ROWS]
    )
    assert check.claim and not check.supported
    held = check_sentence(
        QUESTION.format("2012/03/17"), "The wind speed for 2012/03/17 is 3.0. [1]", [ROWS]
    )
    assert held.supporting == (1,)


def test_a_passage_may_write_the_day_in_words() -> None:
    passage = "The release of December 17, 2012 added the wind column."
    answer = "The wind column was added on 2012-12-17. [1]"
    assert check_sentence("When was the wind column added?", answer, [passage]).supporting == (1,)


def test_a_new_date_is_a_fact_of_its_own_held_apart_from_the_questions_words() -> None:
    # corpus/good/CHANGELOG.md (held-out v53): the date stands in the release's heading,
    # the item the question names in a line below it.
    section = (
        "CHANGELOG — CHANGELOG > Version 3.13.0, 2023-07-23 > New Features (ENH)\n"
        "## Version 3.13.0, 2023-07-23\n\n### New Features (ENH)\n"
        "-  Add is_open in outlines in PdfReader and PdfWriter (#1960)"
    )
    question = (
        "According to the pypdf changelog, on what date was the release that added is_open "
        "in outlines in PdfReader and PdfWriter published?"
    )
    answer = (
        "The release that added is_open in outlines in PdfReader and PdfWriter was "
        "published on 2023-07-23. [1]"
    )
    assert check_sentence(question, answer, [section]).supporting == (1,)
    assert check_sentence(question, answer.replace("07-23", "07-24"), [section]).supporting == ()
