"""Citations an answer may keep, streamed piece by piece; spotting a non-answer."""

from __future__ import annotations

from agentmaker.rag.answer.citations import (
    CitationFilter,
    cited_numbers,
    clean_citations,
    is_non_answer,
    passage_values,
)


def test_markers_to_missing_passages_are_removed() -> None:
    text = "Hotels cost 500 [2]. Meals are free [7]. Both [1, 9] apply [3][2]."
    assert (
        clean_citations(text, {1, 2, 3})
        == "Hotels cost 500 [2]. Meals are free. Both [1] apply [3][2]."
    )
    assert cited_numbers(text) == [2, 7, 1, 9, 3]
    # A record's label copied as a citation is no passage either.
    assert clean_citations("The most moons is [3][1690].", {1, 2, 3}) == "The most moons is [3]."
    # Nor is the question block's tag, and the reader is not shown it.
    tagged = "Use `^3.4` instead. [question-84465dc2] See [QUESTION 84465dc2][1]."
    assert clean_citations(tagged, {1}) == "Use `^3.4` instead. See [1]."


def test_a_marker_split_across_pieces_is_held_until_complete() -> None:
    filt = CitationFilter({1, 2})
    pieces = ["Trains are second class [", "1", "]. Taxis too [", "8] and ", "buses [2", "]."]
    shown = [filt.feed(p) for p in pieces] + [filt.flush()]
    assert "".join(shown) == "Trains are second class [1]. Taxis too and buses [2]."
    assert "[" not in shown[0]  # the open bracket was held back, not shown half


def test_a_records_label_cites_the_passage_that_holds_it() -> None:
    labels = {"barley": 2, "row 12": 3, "cars": 9}  # passage 9 was not given
    assert clean_citations("[barley] and [row 12]. [cars] [x]", {1, 2, 3}, labels) == (
        "[2] and [3]. [x]"
    )
    filt = CitationFilter({1, 2, 3}, labels)
    pieces = ["It was published by Immer [bar", "ley]. See [row", " 12", "] too [nothing]."]
    shown = [filt.feed(p) for p in pieces] + [filt.flush()]
    assert "".join(shown) == "It was published by Immer [2]. See [3] too [nothing]."
    assert "[bar" not in shown[0]  # held until the label was whole
    # The question block's tag, split across pieces, is held back whole too.
    tagged = CitationFilter({1})
    pieces = ["Use ^3.4 instead. [question-84", "465dc2] See [the docs", "] [1]."]
    assert "".join(tagged.feed(p) for p in pieces) + tagged.flush() == (
        "Use ^3.4 instead. See [the docs] [1]."
    )


def test_an_unfinished_marker_at_the_end_is_flushed() -> None:
    filt = CitationFilter({1})
    assert filt.feed("See [1") == "See"
    assert filt.flush() == " [1"


def test_non_answers_in_english_and_chinese() -> None:
    assert is_non_answer("I don't know.")
    assert is_non_answer("I do not know; the passages do not say.")
    assert is_non_answer("我不知道。")
    assert is_non_answer("")
    assert not is_non_answer("The daily meal allowance is 80 [1].")
    assert not is_non_answer("每天的餐费补贴是 80 元 [1]。")


def test_a_marker_repeated_right_after_itself_is_written_once() -> None:
    def stream(pieces: list[str]) -> str:
        cited = CitationFilter([1, 2, 4, 5])
        return "".join(cited.feed(p) for p in pieces) + cited.flush()

    assert stream(["The folder is dist ", "[4]", "[4]", "."]) == "The folder is dist [4]."
    assert stream(["I don't know. [5] [5]"]) == "I don't know. [5]"
    assert stream(["A [1]. B [1]."]) == "A [1]. B [1]."  # cited again later: kept
    assert stream(["A [1] [1] [2] and [9]."]) == "A [1] [2] and."


def test_a_value_the_model_wrapped_like_a_marker_keeps_its_number() -> None:
    # Held-out v49: asked the RCIN catalogue number of corpus/good/vega_dataset_info.json's
    # Nightingale reference, the model wrote "[1075240]", read as a marker to no passage
    # and dropped: "no answer", and the quote instead lacked the number.
    passages = [
        "[crimea]\nreferences: [\"Nightingale, F. (1858) 'Notes on Matters Affecting the "
        "Health … of the British Army'. RCIN 1075240\"]",
        "[283]\nName: saab 99gle\nWeight_in_lbs: 2795",
    ]
    values = passage_values(passages)
    assert "1075240" in values and "283" not in values  # a record's label is no value
    assert clean_citations("[1075240]", [1, 2], values=values) == "1075240"
    assert clean_citations("The RCIN is [1075240].", [1, 2], values=values) == (
        "The RCIN is 1075240."
    )
    # Where a marker stands (after a sentence's end or a marker), it is dropped as before.
    assert clean_citations("It weighs 2795 pounds. [283]", [1, 2], values=values) == (
        "It weighs 2795 pounds."
    )
    assert clean_citations("It is stated in [1][1858].", [1, 2], values=values) == (
        "It is stated in [1]."
    )
    stream = CitationFilter([1, 2], values=values)
    assert stream.feed("[10752") + stream.feed("40] [1]") + stream.flush() == "1075240 [1]"
