"""A number's unit in the support check: a passage's number given the unit the question
asks for, or a unit the question does not ask in, is no answer (units.py)."""

from __future__ import annotations

from agentmaker.rag.answer.support import check_sentence
from agentmaker.rag.answer.units import asked_kinds, measures

# Lines of the corpus files the held-out questions were asked of (benchmarks/data).
RADIOTHERAPY = (
    "You will probably have radiotherapy daily from Monday to Friday for 4–6 weeks. In some "
    "cases, you may have a larger dose each day for about three weeks."
)
FAISS = (
    "With the help of FAISS in-memory index for real-valued vectors DPR can be made "
    "incredibly efficient. Computing dense embeddings on 21-million passages is resource "
    "intensive, but can be easily parallelized, taking roughly 8.8 hours on 8 GPUs. "
    "However, building the FAISS index on 21-million vectors on a single server takes 8.5 hours."
)
WEATHER = "[row 155] date: 2012/06/03; precipitation: 0.0; temp_max: 22.2; temp_min: 10.6"


def test_the_units_after_a_number_are_read_by_kind() -> None:
    held = measures(RADIOTHERAPY + " " + FAISS + " A 32GB GPU costs $5, 12 per cent more.")
    assert held["4"] == {"time"} and held["6"] == {"time"}  # the range "4–6 weeks"
    assert held["3"] == {"time"}  # "three weeks"
    assert held["8.8"] == {"time"} and held["8"] == {""}  # GPUs are no unit
    assert held["32"] == {"data"} and held["5"] == {"money"} and held["12"] == {"percent"}


def test_a_question_asks_in_the_units_no_number_stands_before() -> None:
    assert asked_kinds("How many gigabytes does the index of 21 million passages take up?") == {
        "data"
    }
    assert asked_kinds("What radiation dose, in gray, is given within 30 days?") == {"dose"}
    assert asked_kinds("Who won the 1998 FIFA World Cup final?") == set()
    # A rate's unit is not what the answer is in: "thirteen dollars a month".
    assert asked_kinds("How much a month do many families depend on?") == set()


def test_a_passage_number_given_the_asked_unit_is_not_held() -> None:
    question = "What radiation dose, in gray, does the booklet say is usually given?"
    answer = "The booklet says that the usual radiation dose is 4 gray. [1]"
    check = check_sentence(question, answer, [RADIOTHERAPY])
    assert check.claim and not check.supported
    # The same number with the unit the passage writes is held.
    weeks = check_sentence(
        "How long does radiotherapy usually last?", "It lasts 4 to 6 weeks. [1]", [RADIOTHERAPY]
    )
    assert weeks.supporting == (1,)


def test_a_unit_of_another_kind_than_asked_answers_nothing() -> None:
    question = "How many gigabytes does the DPR paper's FAISS index take up?"
    answer = "The DPR paper's FAISS index takes up 8.8 hours on 8 GPUs. [1]"
    assert not check_sentence(question, answer, [FAISS]).supported
    asked_in_hours = "How many hours does computing the dense embeddings take?"
    assert check_sentence(asked_in_hours, "It takes 8.8 hours. [1]", [FAISS]).supporting == (1,)


def test_a_number_the_passage_writes_bare_may_be_given_its_unit() -> None:
    question = "What was the maximum temperature in Seattle on 2012/06/03?"
    answer = "The maximum temperature was 22.2 degrees Celsius. [1]"
    assert check_sentence(question, answer, [WEATHER]).supporting == (1,)
