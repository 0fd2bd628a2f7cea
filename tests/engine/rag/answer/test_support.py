"""The support check: each sentence of a small model's answer against its passages."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from agentmaker.library import Library
from agentmaker.rag import AskResult
from agentmaker.rag.answer.answer_split import SentenceSplitter, split_answer
from agentmaker.rag.answer.checked import (
    NOT_FOUND_ANSWER,
    NOT_FOUND_ANSWER_ZH,
    CheckedAnswer,
    answer_when_unsupported,
    in_chinese,
    passages_answer_question,
)
from agentmaker.rag.answer.quote_checks import quote_answers
from agentmaker.rag.answer.support import check_sentence
from agentmaker.testing import FakeEmbedder, ScriptedLLM

ROBERTS = (
    "Iwan Wyn Roberts (born 26 June 1968) is a Welsh former professional footballer who "
    "played as a forward for Norwich City. He scored in the cup final in 1998."
)
GUNS = "The large siege guns, of nine-inch calibre, were hauled by ten yoke of oxen."
FARM = "In 1820 he bought a small estate adjoining Bald Hills."


def test_a_supported_sentence_keeps_its_citation_as_written() -> None:
    check = check_sentence(
        "What calibre were the guns?", "They were nine-inch calibre [2].", [FARM, GUNS]
    )
    assert check.supported and check.citations == (2,)
    assert check.shown() == "They were nine-inch calibre [2]."


def test_a_sentence_may_open_with_a_capitalised_word_before_a_name() -> None:
    passage = (
        "Not all libraries on PyPI have properly declared their metadata and, as such, they "
        "are not available via the PyPI JSON API."
    )
    question = "Through which API is that metadata then not available?"
    answer = "Through the PyPI JSON API, that metadata is not available. [1]"
    assert check_sentence(question, answer, [passage]).supporting == (1,)
    # The name itself is still checked.
    wrong = "Through the Warehouse XML API, that metadata is not available. [1]"
    assert not check_sentence(question, wrong, [passage]).supported


def test_a_name_that_opens_the_answer_is_one_when_the_passages_write_it_as_one() -> None:
    # War and Peace (held-out v29): the troyka driver's name opens the sentences.
    passage = (
        '"Balaga is here." Anatole rose and went into the dining room. Balaga was a famous '
        "troyka driver who had known Dolokhov and Anatole some six years. The shouting of "
        "Balaga and of the sturdy young fellow on the box was all that could be heard."
    )
    question = (
        "In War and Peace, what is the name of the famous troyka driver who had known "
        "Dolokhov and Anatole some six years?"
    )
    named = CheckedAnswer(question, [passage])
    assert named.feed("Balaga is here. [1]") + named.flush() == "Balaga is here. [1]"
    assert quote_answers(question, "Balaga was a famous troyka driver. [1]", [passage])
    # A word the passages also write in lower case is no name where it opens a sentence.
    common = "Here the drivers waited. The driver was famous. here it is."
    unnamed = CheckedAnswer(question, [common])
    assert unnamed.feed("Here the driver waited. [1]") + unnamed.flush() == ""
    assert not quote_answers(question, "Balaga was a famous troyka driver. [1]")


def test_the_document_the_question_names_need_not_stand_in_the_passage() -> None:
    passage = (
        "ORQA (Lee et al., 2019) proposes a sophisticated inverse cloze task (ICT) "
        "objective, predicting the blocks that contain the masked sentence."
    )
    question = "In the DPR paper, what additional pretraining objective does ORQA propose?"
    echoed = "In the DPR paper, ORQA proposes an inverse cloze task (ICT) objective. [1]"
    assert check_sentence(question, echoed, [passage]).supporting == (1,)
    faq = "The Poetry FAQ suggests using `^3.4` instead of `>=3.4`. [1]"
    constraint = "For example, instead of using `>=3.4` you can use `^3.4`."
    asked = "The Poetry FAQ suggests a constraint to use instead of >=3.4. Which one?"
    assert check_sentence(asked, faq, [constraint]).supported
    # Only the document's name: another name the answer adds is still checked.
    wrong = "In the DPR paper, REALM proposes an inverse cloze task (ICT) objective. [1]"
    assert not check_sentence(question, wrong, [passage]).supported
    # The word for the document may come three words after its name.
    article = "Also remember those who are most vulnerable, like an elderly neighbor."
    asked = "Whom does the National Weather Service's spring safety article name as vulnerable?"
    named = "The National Weather Service's spring safety article names an elderly neighbor. [1]"
    assert check_sentence(asked, named, [article]).supporting == (1,)
    farther = asked.replace("spring safety", "big spring safety")
    assert not check_sentence(farther, named, [article]).supported


def test_a_bare_chinese_answer_is_checked_against_what_the_question_is_about() -> None:
    passage = "吴京，北京市人，中国演员、电影导演。妻子为节目主持人谢楠，育有两子。"
    question = "演员吴京的妻子是谁？"
    assert check_sentence(question, "谢楠 [1]", [passage]).supporting == (1,)
    # A passage about someone else does not support the bare name.
    other = "谢楠是中央电视台的节目主持人，主持过多档综艺节目。"
    assert not check_sentence(question, "谢楠 [1]", [other]).supported


def test_a_latin_name_inside_chinese_text_is_found() -> None:
    passage = "2021年，超过130万UP主在B站通过创作获得了收入。“大会员”数量截至年底达2010万。"
    answer = "截至2021年底，B站“大会员”的数量达到了2010万。[1]"
    assert check_sentence("B站大会员的数量达到了多少？", answer, [passage]).supporting == (1,)
    assert not check_sentence(
        "大会员的数量达到了多少？", answer.replace("B站", "C站"), [passage]
    ).supported
    # The name ends where the Chinese goes on: "B站的月活跃用户同比增长35" is none (the
    # passage writes "月活用户").
    q4 = "2021年B站公布财报。Q4 月活用户同比增长 35%，达2.72亿。"
    users = "2021年第四季度，B站的月活跃用户同比增长35%，达2.72亿。[1]"
    assert check_sentence("2021年第四季度，B站的月活跃用户达到了多少？", users, [q4]).supported


def test_a_us_state_may_be_written_as_its_postal_code(good_dir: Path) -> None:
    rows = (good_dir / "airports.csv").read_text(encoding="utf-8").splitlines()
    [dulles] = [r for r in rows if r.startswith("IAD,")]  # its state column says "VA"
    assert ",VA," in dulles and "Virginia" not in dulles
    question = "In which city is Washington Dulles International, according to the airports list?"
    for answer in ("It is in Chantilly, Virginia. [1]", "It is in Chantilly, VA [1]."):
        assert check_sentence(question, answer, [dulles]).supporting == (1,)
    assert not check_sentence(question, "It is in Chantilly, Texas. [1]", [dulles]).supported
    # "VA" the other way round: a passage that writes the name holds the code.
    passage = "Washington Dulles International airport is in the city of Chantilly, Virginia."
    assert check_sentence(question, "It is in Chantilly, VA. [1]", [passage]).supported
    # Only capitals are a code: "in" is no Indiana.
    assert not check_sentence(
        "Where is the depot?", "The depot is in Indiana. [1]", ["The depot is in town."]
    ).supported


def test_a_citation_to_the_wrong_passage_is_re_pointed() -> None:
    check = check_sentence("How many oxen?", "Ten yoke of oxen hauled each gun. [1]", [FARM, GUNS])
    assert check.supported and check.citations == (2,)
    assert check.shown() == "Ten yoke of oxen hauled each gun. [2]"


def test_of_two_citations_the_one_that_does_not_support_is_dropped() -> None:
    check = check_sentence(
        "What calibre?", "The guns were of nine-inch calibre. [1][2]", [FARM, GUNS]
    )
    assert check.citations == (2,) and check.shown() == "The guns were of nine-inch calibre. [2]"


def test_a_citation_to_a_passage_that_holds_part_of_it_goes_to_one_that_holds_all() -> None:
    # corpus/good/faq.md and cli.md (held-out v60): the model cited the command reference,
    # which says less; the FAQ's sentence is the answer's.
    faq = (
        "The two key options we are using here are `--no-root` (skips installing the project "
        "source) and `--no-directory` (skips installing any local directory path "
        "dependencies, you can omit this if you don't have any)."
    )
    reference = (
        "`--no-root`: Do not install the root package (your project). `--no-directory`: Skip "
        "all directory path dependencies (including transitive ones)."
    )
    question = (
        "In the Poetry FAQ's advice on not busting the Docker cache, what does the "
        "--no-directory option skip installing?"
    )
    answer = "The --no-directory option skips installing any local directory path dependencies."
    check = check_sentence(question, f"{answer} [1]", [reference, faq])
    assert check.supporting[:2] == (2, 1) and check.scores[1] <= 0.75
    assert check.citations == (2,) and check.shown() == f"{answer} [2]"
    # A cited passage nearly as good as the best stays cited.
    nearly = reference.replace("Skip all", "Skips installing any local")
    assert check_sentence(question, f"{answer} [1]", [nearly, faq]).citations == (1,)


def test_a_claim_that_repeats_only_the_documents_name_must_be_about_the_question() -> None:
    # corpus/good/failure-after-repair.pdf (held-out v62): the model copied the booklet's
    # front matter, which shares only its title with the question.
    front = (
        "Understanding Breast Cancer A guide for people with cancer, their families and "
        "friends First published May 2006. This edition July 2016."
    )
    aware = (
        "It is important to be ‘breast aware’, which means you regularly look at your "
        "breasts and feel them to know what is normal for you."
    )
    question = (
        "What does the Understanding Breast Cancer booklet call regularly looking at your "
        "breasts and feeling them so that you know what is normal for you?"
    )
    copied = (
        "Understanding Breast Cancer A guide for people with cancer, their families and "
        "friends First published May 2006. [1]"
    )
    assert not check_sentence(question, copied, [front, aware]).supported
    said = "The booklet calls it being breast aware. [2]"
    assert check_sentence(question, said, [front, aware]).supporting == (2,)
    # A passage about what is asked still holds a sentence of its own with the title.
    about = "Understanding Breast Cancer says to look at your breasts and feel them regularly."
    assert check_sentence(question, f"{about} [1]", [about]).supported


def test_of_two_alternatives_the_question_offers_the_one_picked_must_be_written() -> None:
    # corpus/good/cars.json (held-out v62): the record gives no fuel.
    record = "[72] Name: plymouth satellite; Miles_per_Gallon: 14; Cylinders: 8; Horsepower: 150"
    question = (
        "What type of fuel does the plymouth satellite use, gasoline or diesel, according "
        "to the cars data?"
    )
    guess = (
        'The plymouth satellite uses gasoline, as indicated by the "Miles_per_Gallon" value '
        "of 14 in the cars data [1]."
    )
    assert not check_sentence(question, guess, [record]).supported
    fuelled = record + "; Fuel: gasoline"
    assert check_sentence(question, guess, [fuelled]).supporting == (1,)


def test_a_name_or_number_no_passage_holds_is_unsupported() -> None:
    question = "Who won the 1998 FIFA World Cup final?"
    # Every word but the tournament's name is in the biography: the name decides.
    fifa = check_sentence(
        question, "Iwan Roberts won the 1998 FIFA World Cup final. [1]", [ROBERTS]
    )
    assert not fifa.supported and fifa.citations == ()
    light = check_sentence(
        "What is the speed of light?", "The speed of light is 299,792,458 km/s. [1]", [GUNS]
    )
    assert not light.supported
    # A middle name aside, a name is found; not a different one.
    born = "Iwan Wyn Roberts was born in Bangor, Gwynedd, on 26 June 1968."
    assert check_sentence(
        "Where was he born?", "Iwan Roberts was born in Bangor. [1]", [born]
    ).supported
    assert not check_sentence(
        "Where was he born?", "Iwan Jones was born in Bangor. [1]", [born]
    ).supported
    # Accents and case aside, a name in the passage is found.
    assert check_sentence(
        "Who?", "Anna Pavlovna Scherer [1]", ["Anna Pavlovna Schérer said"]
    ).supported


def test_a_unit_named_after_a_person_is_no_name_the_passage_must_hold() -> None:
    row = "[row 551] date: 2013/07/04; precipitation: 0.0; temp_max: 21.7; temp_min: 13.9"
    question = "What was the maximum temperature on 2013/07/04?"
    said = "The maximum temperature on 2013/07/04 was 21.7 degrees Celsius [1]."
    assert check_sentence(question, said, [row]).supported
    # The number is still checked, and so is a real name.
    assert not check_sentence(question, said.replace("21.7", "23.7"), [row]).supported
    assert not check_sentence(question, "Anders Celsius measured 21.7 [1].", [row]).supported


def test_sentences_are_cut_with_their_markers_and_stream_whole() -> None:
    assert split_answer("It is 1.4% [1]. Next one.\nLast [2]") == [
        "It is 1.4% [1].",
        " Next one.",
        "\nLast [2]",
    ]
    splitter = SentenceSplitter()
    assert splitter.feed("Ten yoke") == [] and splitter.feed(" of oxen.") == []
    assert splitter.feed(" [1") == [] and splitter.feed("] Each") == []
    # After a full stop, the next word shows whether it ended a sentence.
    assert splitter.feed(" gun") == ["Ten yoke of oxen. [1]"]
    assert splitter.flush() == [" Each gun"]
    # v40: "… at 10 A." was cut from "M." while the answer streamed in, and withheld.
    streamed = SentenceSplitter()
    answer = "The officers passed through our quarters at 10 A. M. [1] All was clean."
    pieces = [piece for char in answer for piece in streamed.feed(char)]
    assert [*pieces, *streamed.flush()] == split_answer(answer)
    assert pieces == ["The officers passed through our quarters at 10 A. M. [1]"]
    # A question mark or a Chinese stop ends a sentence without waiting.
    asked = SentenceSplitter()
    assert asked.feed("Why?") == [] and asked.feed(" B") == ["Why?"]
    assert asked.feed("。好") == [" B。"]


def test_a_loop_is_cut_after_its_first_round() -> None:
    # v57: the model wrote a link's text of the passage again and again to its limit.
    label = "[pypdf is now comparable with Tika, pypdfium2, and PyMuPDF] "
    splitter = SentenceSplitter()
    done = [
        s
        for piece in ["AES support. [2] ", label * 7, "[pypdf is now"]
        for s in splitter.feed(piece)
    ]
    assert splitter.looping and splitter.feed(label) == []
    assert [*done, *splitter.flush()] == ["AES support. [2]", " " + label.strip()]
    # Words said twice, or a table's separators, are no loop.
    calm = SentenceSplitter()
    calm.feed("It rained and rained and rained. | - | - | - | - | - | - | - | [1]")
    assert not calm.looping


def test_a_books_index_copied_out_is_withheld() -> None:
    # v58: asked what kind of Lie groups finite groups are, the model copied the index.
    index = (
        "Index\nLie-Gruppe, 33\nliegt zwischen, 65\nLiftung, 54\nLimes, 8\nlokal, 3\nLot, 86\n"
        "Beispiel 25. Alle endlichen Gruppen sind 0-dimensionale Lie-Gruppen."
    )
    question = (
        "In the lecture notes, what kind of Lie groups does Beispiel 25 say all finite groups are?"
    )
    copied = "Lie-Gruppe, 33 liegt zwischen, 65 Liftung, 54 Limes, 8 lokal, 3 Lot, 86 [1]"
    answer = CheckedAnswer(question, [index])
    assert answer.feed(copied) + answer.flush() == ""
    assert answer.withheld == [copied.removesuffix(" [1]")]
    # The passage supports it word for word: it is withheld for what it is.
    assert check_sentence(question, copied, [index]).supported


def test_the_checked_answer_shows_supported_sentences_and_withholds_the_rest() -> None:
    answer = CheckedAnswer("How were the guns hauled?", [FARM, GUNS])
    shown = answer.feed("Ten yoke of oxen hauled each gun [1]. ") + answer.feed(
        "It took 300 men as well [2]."
    )
    shown += answer.flush()
    assert shown == "Ten yoke of oxen hauled each gun. [2]"
    assert answer.withheld == ["It took 300 men as well."] and not answer.non_answer


def test_the_gate_in_both_languages() -> None:
    # Words of the question in a passage, or a passage found by meaning, open it.
    assert passages_answer_question("What calibre were the siege guns?", [GUNS], [0.1])
    assert passages_answer_question("How heavy was the artillery?", [GUNS], [0.62])
    assert not passages_answer_question("What is the population of Reykjavik?", [GUNS], [0.2])
    zh = "2021年中国电影市场总票房是470亿元。"
    assert passages_answer_question("2021年中国电影市场总票房是多少？", [zh], [None])
    assert not passages_answer_question("北京冬奥会的吉祥物叫什么？", [zh], [None])
    assert not passages_answer_question("anything", [], [])


def test_unsupported_answers_quote_a_matching_passage_or_abstain_in_the_question_language() -> None:
    assert answer_when_unsupported("What calibre were the large siege guns?", [GUNS]).quote
    english = answer_when_unsupported("Who painted the Sistine Chapel ceiling?", [GUNS])
    assert not english.quote and english.text == NOT_FOUND_ANSWER
    chinese = answer_when_unsupported("西斯廷礼拜堂的天顶画是谁画的？", [GUNS])
    assert chinese.text == NOT_FOUND_ANSWER_ZH and in_chinese("谁画的？") and not in_chinese("Who?")


@pytest.fixture
def library(tmp_path: Path):
    lib = Library.open(tmp_path / "lib.sqlite", embedder=FakeEmbedder())
    lib.pipeline.ingest_text("# Siege\n\n" + GUNS, source="siege.md", fmt="md")
    lib.pipeline.ingest_text("# Estate\n\n" + FARM, source="farm.md", fmt="md")
    yield lib
    lib.close()


def _checking(replies: list[str]) -> ScriptedLLM:
    llm = ScriptedLLM(replies)
    llm.checks_answers = True  # as the built-in model does
    return llm


def test_a_model_caught_in_a_loop_is_stopped(library: Library) -> None:
    loop = (
        "The guns were of nine-inch calibre [1]. They were " + "nine-inch calibre siege guns " * 200
    )
    llm = _checking([loop])
    library.set_llm(llm)
    result = asyncio.run(library.rag.ask("What calibre were the large siege guns?"))
    siege = next(s.n for s in result.sources if "calibre" in s.content)
    assert result.answer == (
        f"The guns were of nine-inch calibre [{siege}]. They were nine-inch calibre siege "
        f"guns [{siege}]"
    )
    # Stopped in its third round, not read to the end of its 800 words.
    assert llm.pieces_sent < 30 and llm.closed_streams == 1


def test_ask_re_points_and_drops_citations(library: Library) -> None:
    library.set_llm(_checking(["The guns were of nine-inch calibre [1][2]. Made in Paris [1]."]))
    result = asyncio.run(library.rag.ask("What calibre were the large siege guns?"))
    siege = next(s.n for s in result.sources if "calibre" in s.content)
    assert result.answer == f"The guns were of nine-inch calibre. [{siege}]"
    assert result.withheld == ["Made in Paris."] and result.note == "withheld"
    assert not result.abstained and not result.extractive


def test_an_unsupported_key_claim_is_not_presented_as_the_answer(library: Library) -> None:
    library.set_llm(_checking(["The guns were hauled by 40 horses [1]."]))
    result = asyncio.run(library.rag.ask("How many horses hauled the large siege guns?"))
    # No passage says 40 horses: the documents are said not to answer it; the model's
    # text is kept as a draft and the passages looked at are listed.
    assert result.answer == NOT_FOUND_ANSWER and result.abstained
    assert result.note == "unsupported" and result.draft == "The guns were hauled by 40 horses [1]."
    assert result.sources


def test_i_dont_know_beside_a_matching_passage_shows_its_quotes(library: Library) -> None:
    # Two readings (the second of the first passage alone), then the model copies the
    # quote's answer.
    library.set_llm(_checking(["I don't know. [1]", "I don't know.", "nine-inch"]))
    result = asyncio.run(library.rag.ask("What calibre were the large siege guns?"))
    assert result.extractive and result.note == "quoted_not_answered"
    assert "nine-inch calibre" in result.answer and "[" in result.answer
    # ...but not when no passage matches the question: then it stays a non-answer.
    library.set_llm(_checking(["I don't know."]))
    other = asyncio.run(library.rag.ask("In 1820 what did he buy, and whose siege was it?"))
    assert other.abstained or other.extractive  # never the model's bare guess


def test_the_gate_does_not_ask_the_model_when_nothing_is_close(library: Library) -> None:
    llm = _checking(["Reykjavik has 140,000 people [1]."])
    library.set_llm(llm)
    result = asyncio.run(library.rag.ask("What is the population of Reykjavik?"))
    assert llm.calls == [] and result.abstained and result.note == "not_found"
    assert result.answer == NOT_FOUND_ANSWER and result.sources  # the passages looked at


def test_a_model_that_does_not_ask_for_checks_is_shown_as_written(library: Library) -> None:
    library.set_llm(ScriptedLLM(["The guns were hauled by 40 horses [1]."]))
    result = asyncio.run(library.rag.ask("How many horses hauled the large siege guns?"))
    assert result.answer == "The guns were hauled by 40 horses [1]." and result.note == ""
    assert result.unsupported == ["40"]


def test_a_passage_named_by_its_number_is_no_claim() -> None:
    # v40 (unanswerable): "This can be found in Passage 1. [3][4]" was shown as the answer
    # to which weight decay the DPR authors used.
    question = "What weight decay did the DPR authors use when training their encoders?"
    passages = ["We trained with a learning rate of 10−5 using Adam.", "", "", ""]
    pointer = check_sentence(question, "This can be found in Passage 1. [3][4]", passages)
    assert not pointer.claim and pointer.cited == (3, 4)
    row = "This information is found in Passage 1, row 1004. [1]"
    assert not check_sentence(question, row, ["[row 1004] name: Wiley Post"]).claim
    # Beside a claim, it is where the claim stands.
    rate = "Which learning rate did the DPR authors use?"
    said = "As Passage 1 says, they trained with a learning rate of 10−5 using Adam. [1]"
    assert check_sentence(rate, said, passages).supporting == (1,)


def test_a_time_written_with_spaced_initials_is_a_time() -> None:
    # v40: "… at 10 A. M. [1]" was held back as no time of day, then withheld.
    diary = "Sunday the officers passed through our quarters at 10 A. M., finding all clean."
    question = "At what time did the officers pass through the quarters on Sunday?"
    answer = CheckedAnswer(question, [diary])
    said = "The officers passed through the quarters on Sunday at 10 A. M. [1]"
    assert answer.feed(said) + answer.flush() == said


def test_a_date_question_wants_a_date_not_a_weekday() -> None:
    # v42 (unanswerable): "The siege of Vicksburg began on Sunday, which is general
    # inspection day. [1]" was shown for the siege's first date.
    diary = "Sunday is general inspection day, and the officers passed through our quarters."
    question = "According to the Vicksburg siege diary, on what date did the siege begin?"
    answer = CheckedAnswer(question, [diary])
    weekday = "The siege of Vicksburg began on Sunday, which is general inspection day. [1]"
    assert answer.feed(weekday) + answer.flush() == ""
    # A month's name, a date in numbers or a Chinese date is one.
    dated = "May 18 was a Sunday; the siege began that day, general inspection day. [1]"
    for text in (diary, f"{diary} The siege began May 18."):
        answer = CheckedAnswer(question, [text])
        shown = answer.feed(dated) + answer.flush()
        assert shown == ("" if text == diary else dated)
    assert quote_answers("哪一天开始围城？", "5月18日开始围城。 [1]")
    assert not quote_answers("哪一天开始围城？", "星期天开始围城。 [1]")


def test_a_sentence_that_only_repeats_the_question_is_no_answer() -> None:
    check = check_sentence(
        "What is the default dist directory used by poetry publish?",
        "The default dist directory used by poetry publish is [4].",
        ["Default is `dist`.", "", "", "The default dist directory used by poetry publish."],
    )
    assert not check.claim
    answer = CheckedAnswer("What calibre were the guns?", [GUNS])
    assert answer.feed("The guns were [1].") + answer.flush() == "" and not answer.withheld
    # The question's own number is no claim either: "2022年百花奖最佳影片奖 [1]" only
    # repeats "2022年百花奖最佳影片奖" (it pointed at passage 1 with the question's words).
    award = "2022年百花奖最佳影片奖"
    echo = check_sentence(award, f"{award} [1]", ["2022年，《长津湖》获百花奖最佳影片奖。"])
    assert not echo.claim and echo.cited == (1,)


def test_a_possessive_is_not_part_of_a_name() -> None:
    passage = "### installer.max-workers\n\nPoetry: **Default**: `number_of_cores + 4`"
    check = check_sentence(
        "What is the default value of Poetry's installer.max-workers setting?",
        "The default value of Poetry's installer.max-workers setting is `number_of_cores + 4`. [1]",
        [passage],
    )
    assert check.supported and check.citations == (1,)


def test_stopping_a_checked_answer_ends_the_model_stream(library: Library) -> None:
    """Stop while a sentence is still held back (nothing shown yet): the model's stream
    is closed at once and nothing more of it is read."""
    # (Never the same words running: a loop would stop the model of itself.)
    miles = " ".join(f"past mile {n} and" for n in range(400))
    endless = f"The large siege guns were hauled {miles} by oxen [1]."
    llm = _checking([endless])
    llm.delay = 0.005

    async def run() -> tuple[list[str], int]:
        stream = library.rag.ask_stream("What calibre were the large siege guns?")
        shown: list[str] = []

        async def consume() -> None:
            async for piece in stream:
                shown.append(piece)

        task = asyncio.create_task(consume())
        while not llm.calls:  # the model was asked (the gate let the question through)
            await asyncio.sleep(0.01)
        await asyncio.sleep(0.2)  # it is writing the first, long sentence
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        await stream.aclose()
        return shown, llm.closed_streams

    library.set_llm(llm)
    shown, closed = asyncio.run(asyncio.wait_for(run(), timeout=120))
    assert closed == 1  # the model's generator was closed: generation ended
    assert shown == []  # the unfinished sentence was never shown


INFOBOX = "Iwan Roberts Personal information Full name Iwan Wyn Roberts Date of birth 26 June 1968"
# As the model reads it: the document's title and the heading, then the text.
BIOGRAPHY = "Iwan Roberts — Early life\nRoberts was born in Bangor, Gwynedd, and grew up there."


def test_two_passages_may_support_a_sentence_together_and_it_cites_both() -> None:
    check = check_sentence(
        "In which town was Iwan Roberts born?",
        "Iwan Roberts was born in Bangor, Gwynedd, on 26 June 1968. [1]",
        [INFOBOX, FARM, BIOGRAPHY],
    )
    # Neither says it all: the date is in the infobox, the town in the biography.
    assert check.supported and check.joint and check.citations == (1, 3)
    assert check.shown() == "Iwan Roberts was born in Bangor, Gwynedd, on 26 June 1968. [1][3]"
    # Parts from two passages, but a name that neither holds: still unsupported.
    cardiff = check_sentence(
        "In which town was Iwan Roberts born?",
        "Iwan Roberts was born in Cardiff on 26 June 1968 [1].",
        [INFOBOX, BIOGRAPHY],
    )
    assert not cardiff.supported and cardiff.citations == ()
    # Not pieced together from a passage on him and one on what the question names.
    world_cup = "France won the 1998 FIFA World Cup final against Brazil."
    fifa = check_sentence(
        "Who won the 1998 FIFA World Cup final?",
        "Iwan Roberts won the 1998 FIFA World Cup final. [1][2]",
        [ROBERTS, world_cup],
    )
    assert not fifa.supported
    # Nor a claim without a name or number of its own, from two passages' common words.
    ocean = check_sentence(
        "What is the largest ocean on Earth?",
        "It is the largest body of water on Earth and home to many cities. [1][2]",
        ["The largest city on Earth.", "Water was home to them."],
    )
    assert not ocean.supported


def test_a_name_may_stand_inside_an_identifier() -> None:
    passage = "**Environment Variable**: `POETRY_VIRTUALENVS_PATH`\n\nWhere environments go."
    question = "Which environment variable sets where Poetry creates virtual environments?"
    check = check_sentence(question, "Poetry reads POETRY_VIRTUALENVS_PATH. [1]", [passage])
    assert check.supported
    # Words inside an identifier are not any name: "Pipenv" is still not in it.
    assert not check_sentence(
        question, "Pipenv reads POETRY_VIRTUALENVS_PATH. [1]", [passage]
    ).supported


CHANGELOG = (
    "# CHANGELOG\n\n## Version 5.0.0, 2024-09-15\n\n### New Features (ENH)\n\n"
    "- Add a layout mode to text extraction (#2710)\n\n### Deprecations (DEP)\n\n"
    "- Drop support for Python 3.7 and remove the old merger class (#2714)\n\n"
    "## Version 4.3.1, 2024-07-21\n\n### Bug Fixes (BUG)\n\n- Fix outline reading (#2700)\n"
)


def test_an_answer_is_checked_against_the_passage_header_the_model_read(tmp_path: Path) -> None:
    lib = Library.open(tmp_path / "log.sqlite", embedder=FakeEmbedder())
    try:
        lib.pipeline.ingest_text(CHANGELOG, source="CHANGELOG.md", fmt="md")
        lib.set_llm(_checking(["Version 5.0.0 was released on 2024-09-15 [1]."]))
        result = asyncio.run(lib.rag.ask("When was version 5.0.0 released, dropping Python 3.7?"))
        cited = next(s for s in result.sources if "Python 3.7" in s.content)
        # The date is in the passage's header ("Version 5.0.0, 2024-09-15"), not its text.
        assert "2024-09-15" not in cited.content and "2024-09-15" in cited.seen
        assert result.answer == f"Version 5.0.0 was released on 2024-09-15 [{cited.n}]."
        assert result.note == "" and not result.abstained and result.unsupported == []
    finally:
        lib.close()


def test_an_answer_that_only_points_at_a_passage_is_replaced_by_its_quotes(
    tmp_path: Path,
) -> None:
    lib = Library.open(tmp_path / "guns.sqlite", embedder=FakeEmbedder())
    try:
        lib.pipeline.ingest_text("# Union\n\n" + GUNS, source="union.md", fmt="md")
        other = "The large siege guns of the Confederates were of six-inch calibre."
        lib.pipeline.ingest_text("# Confederates\n\n" + other, source="south.md", fmt="md")
        question = "What calibre were the large siege guns of the Confederates?"
        hits = asyncio.run(lib.rag.aretrieve(question, top_k=5))
        south = 1 + next(i for i, h in enumerate(hits) if "six-inch" in h.content)
        pointer = f"The calibre of the large siege guns is [{south}]."
        lib.set_llm(_checking([pointer, "I don't know.", "six-inch"]))
        result = asyncio.run(lib.rag.ask(question))
        # The passage it pointed at is quoted, not every passage that matches.
        assert result.extractive and result.note == "quoted_not_answered"
        assert result.answer == f"{other} [{south}]"
        assert result.draft == f"The calibre of the large siege guns is [{south}]."
    finally:
        lib.close()


def _ask_each(
    folder: Path, question: str, draft: str, heading: str, texts: list[str], copied: str
) -> list[AskResult]:
    """``question`` asked of a library of each one of ``texts`` (under ``heading``), the
    model writing ``draft``, then copying the ``copied`` words from a quote."""
    results = []
    for n, text in enumerate(texts):
        lib = Library.open(folder / f"each{n}.sqlite", embedder=FakeEmbedder())
        try:
            lib.pipeline.ingest_text(f"{heading}\n\n{text}", source="notes.md", fmt="md")
            lib.set_llm(_checking([draft, copied]))  # one passage: no second look
            results.append(asyncio.run(lib.rag.ask(question)))
        finally:
            lib.close()
    return results


def test_a_quote_that_names_no_one_is_no_answer_to_a_question_for_a_name(
    tmp_path: Path,
) -> None:
    question = "What was the name of the diarist's bedridden sister?"
    home = "The diarist thought of home, and of the dear bedridden sister there."
    named = home.replace("the dear bedridden sister there", "his bedridden sister Mary")
    draft = "The name of the diarist's bedridden sister was [1]."
    unnamed, mary = _ask_each(tmp_path, question, draft, "# June 17th", [home, named], "Mary")
    assert unnamed.abstained and unnamed.note == "unsupported"
    assert unnamed.answer.startswith("Your documents do not seem to answer this")
    # A quote with a name of its own does answer it.
    assert mary.note == "quoted_not_answered" and mary.answer == f"{named} [1]"


def test_a_quote_without_a_number_is_no_answer_to_a_question_for_a_number(
    tmp_path: Path,
) -> None:
    question = "What is the telephone number of the Executive Office for United States Trustees?"
    office = (
        "The number of standing trustees is within the discretion of the Director of the "
        "Executive Office for United States Trustees."
    )
    numbered = office.replace(
        "The number of standing trustees is within the discretion of the Director",
        "The telephone number is 202-307-1391 for the Director",
    )
    draft = "The telephone number of the Executive Office is [1]."
    texts = [office, numbered]
    unnumbered, called = _ask_each(tmp_path, question, draft, "# Trustees", texts, "202-307-1391")
    assert unnumbered.abstained and unnumbered.note == "unsupported"
    assert unnumbered.answer.startswith("Your documents do not seem to answer this")
    assert called.note == "quoted_not_answered" and "202-307-1391" in called.answer
    # A share in words is a number too.
    share = "Roughly what share of child hot car deaths happen outside the summer months?"
    third = "Roughly a third of child hot car deaths occur outside of the summer months. [1]"
    assert quote_answers(share, third)
    assert not quote_answers(share, "Child hot car deaths occur all year. [1]")


def test_a_question_for_a_year_wants_a_year() -> None:
    # The airport's row has numbers, but none says when it opened.
    question = "In what year did the Nantucket Memorial airport (code ACK) open?"
    row = (
        "[row 768] iata: ACK; name: Nantucket Memorial; city: Nantucket; state: MA; "
        "latitude: 41.25305194; longitude: -70.06018139 [1]"
    )
    assert not quote_answers(question, row)
    assert not quote_answers(question, "Nantucket Memorial served 12345 passengers. [1]")
    assert quote_answers(question, "Nantucket Memorial airport opened in 1946. [1]")
    assert quote_answers("该机场是哪一年启用的？", "该机场于1946年启用。[1]")
    answer = CheckedAnswer(question, [row])
    answer.feed("The Nantucket Memorial airport opened in 41.25. [1]")
    answer.flush()
    assert not answer.shown


def test_a_question_for_a_fee_wants_a_sum() -> None:
    # The Iwan Roberts article (benchmarks/data heldout55): the model told his later
    # moves; "three further seasons" and "seven years" are numbers, but no fee.
    question = (
        "For what fee did Leicester City sign Iwan Roberts from Huddersfield Town in November 1993?"
    )
    career = (
        "In November 1993 Iwan Roberts was signed by the Second Division club Leicester City for "
        "£300,000. After three further seasons he signed for Wolverhampton Wanderers, but "
        "stayed for a single campaign before transferring to Norwich City, where he spent "
        "seven years."
    )
    moves = (
        "Iwan Roberts signed for Wolverhampton Wanderers after three further seasons, but "
        "stayed for a single campaign before transferring to Norwich City, where he spent "
        "seven years. [1]"
    )
    answer = CheckedAnswer(question, [career])
    answer.feed(moves)
    answer.flush()
    assert not answer.shown and answer.withheld
    told = CheckedAnswer("Where did Iwan Roberts go after Leicester City?", [career])
    assert told.feed(moves) + told.flush() == moves  # the passage says it
    for sum_ in ("£300,000", "300,000", "300,000 pounds"):
        assert quote_answers(question, f"In November 1993 Leicester City paid {sum_}. [1]")
    assert not quote_answers(question, "He was signed by Leicester City in November 1993. [1]")
    assert quote_answers("该球员的转会费用是多少？", "转会费为30万英镑。[1]")


def test_a_question_for_a_version_range_wants_numbers() -> None:
    # The Poetry FAQ (benchmarks/data heldout59): the model named the setting, not a range.
    question = (
        "In the Poetry FAQ's example error message about an incompatible Python range, what "
        "supported Python range is given for the current project?"
    )
    docs = (
        "You may also specify your project's compatible python versions in this section, "
        "instead of or in addition to `project.requires-python`. The current project's "
        "supported Python range (>=3.7.0,<4.0.0) is not compatible with some of the required "
        "packages Python requirement."
    )
    named = (
        "The supported Python range given for the current project is [project.requires-python] [1]."
    )
    answer = CheckedAnswer(question, [docs])
    answer.feed(named)
    answer.flush()
    assert not answer.shown and answer.withheld
    ranged = "The supported Python range given for the current project is >=3.7.0,<4.0.0. [1]"
    right = CheckedAnswer(question, [docs])
    assert right.feed(ranged) + right.flush() == ranged
    # A question for versions wants a version, not a year (held-out v60, the history
    # page): the model told when pyPdf 1.13 was released.
    history = (
        "The last release of PyPI was [pyPdf 1.13](https://pypi.org/project/pyPdf/#history) "
        "in 2010."
    )
    versions = "Which Python versions did pyPdf 1.13 support, according to the pypdf history page?"
    year = CheckedAnswer(versions, [history])
    year.feed("The last release of PyPI was [pyPdf 1.13] in 2010. [1]")
    year.flush()
    assert not year.shown and year.withheld
    supported = "pyPdf 1.13 supported Python 2.4. [1]"
    said = CheckedAnswer(versions, [history.replace("in 2010.", "in 2010 for Python 2.4.")])
    assert said.feed(supported) + said.flush() == supported
    # A mountain range is named, not numbered.
    alps = CheckedAnswer(
        "Which mountain range lies north of Milan?", ["The Alps lie north of Milan."]
    )
    assert alps.feed("The Alps lie north of Milan. [1]") + alps.flush()


def test_a_checked_answer_of_bare_markers_quotes_the_passage_it_names(library: Library) -> None:
    question = "What calibre were the large siege guns?"
    siege = 1 + next(
        i
        for i, h in enumerate(asyncio.run(library.rag.aretrieve(question)))
        if "calibre" in h.content
    )
    library.set_llm(_checking([f"[{siege}]", "I don't know.", "nine-inch calibre"]))
    result = asyncio.run(library.rag.ask(question))
    assert result.answer == f"{GUNS} [{siege}]" and result.note == "quoted_not_answered"


def test_a_setting_or_option_no_passage_names_is_unsupported() -> None:
    settings = (
        "Poetry settings\n\n### installer.max-workers\n\n**Default**: `number_of_cores + 4`\n\n"
        "Set the maximum number of workers; 15 seconds is the usual wait."
    )
    question = "What is the default value of Poetry's installer.timeout setting?"
    # Every word is the question's or the passage's, and the passage holds a 15: but it
    # names installer.max-workers, not installer.timeout.
    timeout = check_sentence(
        question,
        "The default value of Poetry's installer.timeout setting is 15 seconds. [1]",
        [settings],
    )
    assert not timeout.supported
    assert check_sentence(
        "What is the default of installer.max-workers?",
        "The default of installer.max-workers is `number_of_cores + 4`. [1]",
        [settings],
    ).supported
    install = (
        "### install\n\nThe poetry install option of the install command reads the "
        "pyproject.toml file and installs."
    )
    offline = check_sentence(
        "What does the --offline option of poetry install do?",
        "The --offline option of poetry install installs the dependencies. [1]",
        [install],
    )
    assert not offline.supported


def test_a_bracketed_label_is_no_claim() -> None:
    check = check_sentence(
        "In what year was War and Peace first published?",
        "[book-war-and-peace-1225p][3]",
        ["", "", "War and Peace, a book by Leo Tolstoy."],
    )
    assert not check.claim


def test_a_number_written_as_a_word_must_be_in_the_passage_too() -> None:
    question = "What calibre were the large siege guns?"
    wrong = check_sentence(question, "The large siege guns were twelve-inch guns. [1]", [GUNS])
    assert wrong.claim and not wrong.supported
    right = check_sentence(question, "The large siege guns were nine-inch guns. [1]", [GUNS])
    assert right.supported
    # As a word or in digits, the same number; "one" is no number ("one of the guns").
    oxen = ["It took ten yoke of oxen to haul each of the large siege guns."]
    assert check_sentence("How many oxen?", "It took 10 yoke of oxen. [1]", oxen).supported
    assert check_sentence("How many oxen?", "Each one took ten yoke of oxen. [1]", oxen).supported


def test_the_question_restated_with_another_ending_of_its_verb_is_no_claim() -> None:
    question = "Which fiscal year does Galaxy Gaming's annual report on Form 10-K cover?"
    cover = ["GALAXY GAMING, INC. ANNUAL REPORT ON FORM 10-K FOR THE YEAR ENDED DECEMBER 31, 2021"]
    # The model pointed at a passage with the question's words; "covered" adds nothing.
    pointer = "The fiscal year covered by Galaxy Gaming's annual report on Form 10-K is [1]."
    assert not check_sentence(question, pointer, cover).claim
    answer = "The annual report on Form 10-K covers the year ended December 31, 2021. [1]"
    check = check_sentence(question, answer, cover)
    assert check.claim and check.supported
    # Nor "evaluated" for "evaluate" (held-out v46: the question restated was supported).
    asked = "On which Chinese open-domain QA dataset did the DPR authors evaluate their retriever?"
    dpr = ["We evaluate our retriever on five open-domain QA datasets. We are Chinese."]
    echo = "The DPR authors evaluated their retriever on the Chinese open-domain QA dataset. [1]"
    assert not check_sentence(asked, echo, dpr).claim
    assert check_sentence(asked, echo.replace("Chinese", "five"), dpr).claim


def test_a_question_copied_from_a_passage_is_no_claim() -> None:
    # RGB-zh p03941 is a headline that asks; the model gave it back as the answer.
    headline = ["英国史上任期最短的首相，特拉斯这45天干了啥？"]
    asked = "英国首相特拉斯的名字又译作什么？"
    assert not check_sentence(asked, "特拉斯这45天干了啥？[1]", headline).claim
    # Asked for a question or a heading, a question answers.
    faq = ["### Is tox supported?\n\n**Yes**. Provided that you are using tox >= 4."]
    entry = check_sentence("Which FAQ entry is about tox 4?", "Is tox supported? [1]", faq)
    assert entry.claim and entry.supported


def test_a_sentence_cut_short_where_its_answer_should_stand_is_no_claim() -> None:
    question = "Which contributor added support for modern encryption schemes to PyPDF2?"
    passage = ["[exiledkingcc] added support for modern encryption schemes."]
    assert not check_sentence(question, "[exiledkingcc] is [1].", passage).claim
    assert not check_sentence(question, "It was added by [1].", passage).claim
    whole = check_sentence(question, "[exiledkingcc] added it. [1]", passage)
    assert whole.claim and whole.supported
    # A pronoun's verb ends a whole answer.
    assert check_sentence("Is AES supported?", "Yes, it is. [1]", ["AES is supported."]).claim
    # Cut short after a claim of its own, it is still that claim (here not supported).
    river = "The longest river in Africa is the Niger River, which is [1]."
    niger = check_sentence("What is the longest river in Africa?", river, ["Rivers of Europe."])
    assert niger.claim and not niger.supported
    # A label the passage writes in brackets ends a sentence as "is" does; a word in
    # brackets no passage writes is the model's answer (here unsupported).
    extras = ['[project]\ndependencies = ["gunicorn[gevent] (>=20.1,<21.0)"]']
    which = "In the dependency extras example, which extra of gunicorn is activated?"
    label = "The extra of gunicorn activated in the example is [project][1]."
    assert not check_sentence(which, label, extras).claim
    lhr = check_sentence("What is the IATA code of Heathrow?", "It is [LHR][1].", ["GON"])
    assert lhr.claim and not lhr.supported
    # A name in a phrase before the clause that is cut is no claim of its own: the
    # address stops where it should stand.
    member = ["Hyundai Merchant Marine Co., Ltd. 66 Chokson-dong, Jongro-ku, Seoul 110-052 Korea"]
    where = "In which district of Seoul is the address of Hyundai Merchant Marine?"
    cut = "In Seoul Korea, the address of Hyundai Merchant Marine is. [1]"
    assert not check_sentence(where, cut, member).claim
    whole = cut.replace("is. [1]", "is in Jongro-ku. [1]")
    assert check_sentence(where, whole, member).supported
    # A bracketed answer is no cut: "… is [tesseract OCR engine]".
    ocr = "The best-known open source OCR software is [tesseract OCR engine] [1]."
    assert check_sentence(
        "What is the best-known open source OCR software?",
        ocr,
        ["The tesseract OCR engine is the best-known open source OCR software."],
    ).claim
    # Nor are the lines of the passage the model copied from its header: a pointer.
    lines = "The young man in chains Count Rostopchin handed over is [3][46,852–46,891]."
    header = "book-war-and-peace — lines 46,852–46,891\nThis man, Vereshchagin, is the scoundrel."
    assert not check_sentence(
        "Which young man in chains did Count Rostopchin hand over?", lines, ["", "", header]
    ).claim


def test_a_list_number_alone_is_no_claim() -> None:
    # The passage's header ("line 1") holds the 1: still no answer to the question.
    question = "2023年全英羽毛球公开赛的总奖金是多少？"
    passages = ["p06523 — line 1\n2023年全英羽毛球公开赛决赛成绩"]
    assert not check_sentence(question, "1. [1]", passages).claim
    assert not check_sentence(question, "2) [1]", passages).claim
    # A bare number that answers is a claim, and the passage must hold it.
    held = ["2023年全英羽毛球公开赛决赛已于3月19日在伯明翰结束，总奖金125万美元。"]
    bare = check_sentence(question, "125万美元 [1]", held)
    assert bare.claim and bare.supported
    assert check_sentence("How many?", "1 [1]", passages).claim


def test_a_claim_of_common_words_stands_beside_the_question_in_its_passage() -> None:
    # A long passage with "horse", "land" and "animal" in different sentences does not
    # say which land animal is fastest.
    battle = (
        "The people had a single aim: to free their land from invasion. Rostov's horse "
        "stumbled at the ditch. Man may have developed from lower animals at some time."
    )
    question = "What is the fastest land animal?"
    horse = "The fastest land animal is the horse. [1]"
    assert not check_sentence(question, horse, [battle]).supported
    # The new word beside the question's own in one sentence is support.
    said = "A horse is the fastest land animal in the steppe, Denisov said."
    assert check_sentence(question, horse, [said]).supporting == (1,)
    # Beside any word of the question, however much of the question the answer repeats.
    skin = (
        "Red and dry skin – The skin at the treatment site may become red and dry. "
        "Sorbolene cream applied twice a day can be helpful.\nUnderstanding Breast Cancer 41"
    )
    cream = (
        "The Understanding Breast Cancer booklet says that sorbolene cream applied twice a "
        "day can help with red and dry skin from radiotherapy. [1]"
    )
    asked = (
        "Which cream, applied twice a day, does the Understanding Breast Cancer booklet say "
        "can help with red and dry skin from radiotherapy?"
    )
    assert check_sentence(asked, cream, [skin]).supporting == (1,)
    # A sentence stands under its label line: the Dutch text is what is "Dutch".
    udhr = "Dutch\nAlle mensen worden vrij geboren. Zij behoren in een geest van broederschap."
    dutch = 'The Dutch word that stands for brotherhood is "broederschap". [1]'
    question = "Which Dutch word stands for brotherhood?"
    assert check_sentence(question, dutch, [udhr]).supporting == (1,)
    # The same sentence with "Dutch" said elsewhere, not as its label, is no support...
    below = udhr.removeprefix("Dutch\n") + "\nThe text above is the one in Dutch."
    bare = dutch.replace('"', "")
    assert not check_sentence(question, bare, [below]).supported
    # ...unless the answer quotes the word: a document's word, then checked as written,
    # like a name ("mõistus" of the Estonian text, whose label the excerpt shown to the
    # model ran into its first sentence).
    assert check_sentence(question, dutch, [below]).supporting == (1,)
    assert not check_sentence(question, dutch.replace("broeder", "zuster"), [below]).supported


def test_a_quoted_words_gloss_need_not_stand_in_the_text_of_another_language() -> None:
    # corpus/good/UDHR_first_article_all.txt (held-out v60): the Asturian line holds the
    # adverb, not the English the answer glosses it with.
    udhr = (
        "Asturian\nTolos seres humanos nacen llibres y iguales en dignidá y drechos y, pola "
        "mor de la razón y la conciencia de so, han comportase hermaniblemente los unos "
        "colos otros."
    )
    question = (
        "In the file with the first article of the UDHR in all languages, which adverb does "
        "the Asturian version use for how people should behave towards one another?"
    )
    glossed = (
        'The Asturian version uses the adverb "hermaniblemente" (in a spirit of brotherhood) '
        "for how people should behave towards one another. [1]"
    )
    assert check_sentence(question, glossed, [udhr]).supporting == (1,)
    # The quoted word itself still stands as written: another line's is no support.
    galician = glossed.replace("hermaniblemente", "fraternalmente")
    assert not check_sentence(question, galician, [udhr]).supported
    # Unquoted, the gloss is the claim's own words, which the line does not hold.
    bare = glossed.replace('"', "")
    assert not check_sentence(question, bare, [udhr]).supported
    # Nor is a parenthesis after a quoted setting a gloss where no other language is
    # asked: it says what the setting does, and the passage must say it.
    setting = "Set cache-dir to move the cache."
    asked = "Which setting moves the cache?"
    claim = 'The setting "cache-dir" (which also deletes the lock file) moves the cache. [1]'
    assert not check_sentence(asked, claim, [setting]).supported
    plain = 'The setting "cache-dir" moves the cache. [1]'
    assert check_sentence(asked, plain, [setting]).supported


def test_a_claim_whose_added_words_none_stand_in_the_passage_is_unsupported() -> None:
    # corpus/good/seattle-weather.csv: the day's row holds most of the answer's words (the
    # question's), nothing of what it adds.
    row = (
        "[row 681] date: 2013/11/11; precipitation: 0.0; temp_max: 16.1; temp_min: 6.1; "
        "wind: 2.6; weather: fog"
    )
    question = (
        "From which direction did the wind blow in Seattle on 2013/11/11, according to the "
        "Seattle weather data?"
    )
    south = (
        "The wind blew from the south in Seattle on 2013/11/11, in the Seattle weather data. [1]"
    )
    assert not check_sentence(question, south, [f"seattle-weather\n{row}"]).supported
    # A number it adds is held as the passage writes it: "7" is the diary's "seven".
    diary = "A note on canister shot: of its balls seven can lie in one bed of the can."
    canister = "In the diary's note on canister shot, 7 balls can lie in one bed. [1]"
    asked = "In the Vicksburg diary's note on canister shot, how many balls can lie in one bed?"
    assert check_sentence(asked, canister, [diary]).supporting == (1,)


def test_where_the_question_says_to_look_need_not_stand_in_the_passage() -> None:
    cover = (
        "Galaxy Gaming, Inc. (Exact name of small business issuer as specified in its "
        "charter)\n| Nevada | | 20-8143439 |\n| Nevada: (State or other jurisdiction of "
        "incorporation or organization) |"
    )
    asked = "In which state is Galaxy Gaming incorporated, according to the cover page of its 10-K?"
    # A bare answer's passage is about the question's subject, not about "cover page"
    # and "10-K", which say where to look.
    assert check_sentence(asked, "Nevada [1]", [cover]).supporting == (1,)
    assert not check_sentence(asked, "Nevada [1]", ["Nevada is a state of the US."]).supported
    # A name in the "according to" clause names the document, seldom its passages.
    scan = "CT scan: this painless test takes 30–40 minutes."
    question = "How long does a CT scan take, according to the Understanding Breast Cancer booklet?"
    said = "The CT scan takes 30–40 minutes, according to the Understanding Breast Cancer booklet."
    assert check_sentence(question, said, [scan]).supporting == (1,)
    other = "How long does a CT scan take for Understanding Breast Cancer patients?"
    assert not check_sentence(other, said, [scan]).supported


def test_a_name_joined_by_of_may_stand_as_its_parts() -> None:
    notes = (
        "Folgende Definition wurde dem Skript von Herrn Prof. Dr. Leuzinger für Lineare "
        "Algebra entnommen: Definition 82 Es seien V und W K-Vektorräume."
    )
    asked = "From whose linear algebra script was the definition of an affine map taken?"
    said = "The definition was taken from the Skript of Herrn Prof. Dr. Leuzinger. [1]"
    assert check_sentence(asked, said, [notes]).supporting == (1,)
    # Each part must be there: another professor's script is no support.
    other = notes.replace("Leuzinger", "Herrlich")
    assert not check_sentence(asked, said, [other]).supported


def test_what_the_question_asks_of_a_named_record_is_said_in_that_record() -> None:
    entries = (
        "[us-state-capitals]\ndescription: US state capitals with latitude and longitude.\n"
        "[wheat]\ndescription: The electronic dataset was created by Mike Bostock and "
        "released into the public domain."
    )
    question = "Who compiled the us-state-capitals dataset?"
    said = "The us-state-capitals dataset was compiled by Mike Bostock. [1]"
    assert not check_sentence(question, said, [entries]).supported
    # Asked of the wheat entry, the same passage says it.
    wheat = "Who created the electronic wheat dataset?"
    assert check_sentence(wheat, "Mike Bostock created it. [1]", [entries]).supporting == (1,)
    # A question that names no entry is checked against the whole passage, as before.
    anyone = "Who created the electronic dataset in the public domain?"
    bostock = "Mike Bostock created the electronic dataset. [1]"
    assert check_sentence(anyone, bostock, [entries]).supporting == (1,)


def test_a_sheets_row_the_question_names_by_its_first_field_says_the_answer() -> None:
    # corpus/good/seattle-weather.csv as the reader writes it (v27): another day's
    # precipitation of the same passage is no answer for 2014/03/05.
    rows = (
        "seattle-weather — rows 791–796\n"
        "[row 791] date: 2014/03/01; precipitation: 0.5; temp_max: 7.2; weather: sun\n"
        "[row 795] date: 2014/03/05; precipitation: 46.7; temp_max: 15.6; weather: rain\n"
        "[row 796] date: 2014/03/06; precipitation: 5.1; temp_max: 12.8; weather: rain"
    )
    question = "How much precipitation does the Seattle weather data record for 2014/03/05?"
    wrong = "The Seattle weather data records 5.1 inches of precipitation for 2014/03/05. [1]"
    right = "The Seattle weather data records 46.7 of precipitation for 2014/03/05. [1]"
    assert not check_sentence(question, wrong, [rows]).supported
    assert check_sentence(question, right, [rows]).supporting == (1,)
    # A row number is no first field; a question naming no row reads them all.
    rainy = "On which day of March 2014 did 5.1 of precipitation fall in Seattle?"
    assert check_sentence(rainy, "It fell on 2014/03/06. [1]", [rows]).supporting == (1,)


def test_a_tool_the_question_names_by_its_command_need_not_stand_in_its_own_docs() -> None:
    section = "## python\n\nThe `python` namespace groups subcommands.\n\n*Introduced in 2.1.0*"
    listing = "### python list\n\n```bash\npoetry python list\n```"
    question = "Since which Poetry version does the poetry python command namespace exist?"
    said = "The poetry python namespace exists since Poetry version 2.1.0. [1]"
    assert check_sentence(question, said, [section, listing]).supporting == (1,)
    # Only a tool some passage names: with none, Poetry is a name like any other.
    assert not check_sentence(question, said, [section]).supported
    # A person the question writes with capitals is a name the passage must hold.
    goal = "He scored his first goal against Watford Town in 1986."
    asked = "Against which club did Iwan Roberts score his first goal?"
    roberts = "Iwan Roberts scored his first goal against Watford Town. [1]"
    assert not check_sentence(asked, roberts, [goal, "Iwan Roberts played for Norwich."]).supported


def test_a_single_letter_of_the_question_is_no_name_to_check() -> None:
    # v36: "the C compiler" of the question, echoed, withheld the answer: the passage's
    # example writes `"CC": "gcc"`, never "C" alone.
    section = (
        "installer.build-config-settings.<package-name>\nConfigure PEP 517 config settings "
        "to be passed to a package's build backend. poetry config --local "
        'installer.build-config-settings.grpcio \'{"CC": "gcc"}\''
    )
    question = (
        "In Poetry's configuration docs, for which package does the example of "
        "installer.build-config-settings pass build settings such as the C compiler?"
    )
    said = (
        "The example of `installer.build-config-settings` in Poetry's configuration docs "
        "passes build settings such as the C compiler for the package `grpcio`. [1]"
    )
    assert check_sentence(question, said, [section]).supporting == (1,)
    # Its words still count: another package is not said.
    other = said.replace("grpcio", "numpy")
    assert not check_sentence(question, other, [section]).supported


def test_the_gate_weighs_what_is_asked_not_where_to_look() -> None:
    # "according to the cars data": a record says neither "according" nor "data".
    records = "\n".join(
        f"[{n}]\nName: {name}\nMiles_per_Gallon: {mpg}\nCylinders: 8\nWeight_in_lbs: {lbs}\n"
        for n, name, mpg, lbs in [
            (101, "chevrolet impala", 11, 4997),
            (102, "buick electra 225 custom", 12, 4951),
            (103, "amc ambassador brougham", 13, 3821),
        ]
    )
    question = (
        "How much does the buick electra 225 custom weigh, in pounds, according to the cars data?"
    )
    assert passages_answer_question(question, [f"cars — [101]–[103]\n{records}"], [None])


def test_the_gate_asks_the_model_when_a_named_record_holds_the_field_asked_for() -> None:
    # v36: "weigh", "pounds" and "much" stand in no record ("Weight_in_lbs"), and a
    # passage of many records holds too little of the question by its words.
    rows = [
        ("ford fiesta", 1800),
        ("mazda glc deluxe", 1985),
        ("dodge diplomat", 3735),
        ("mercury monarch ghia", 3955),
    ]
    records = "\n".join(
        f"[{n}]\nName: {name}\nMiles_per_Gallon: 20\nCylinders: 8\nHorsepower: 90\n"
        f"Weight_in_lbs: {lbs}\nAcceleration: 14\nOrigin: USA\n"
        for n, (name, lbs) in enumerate(rows, start=252)
    )
    prose = "Dodge and Plymouth made cars. A dodge is much like a trick."
    question = "How much does the dodge diplomat weigh, in pounds, according to the cars data?"
    passages = [f"cars — [252]–[255]\n{records}", prose]
    assert passages_answer_question(question, passages, [None, None])
    # A field no record has ("seats") is no reason to ask.
    seats = "How many seats does the dodge diplomat have, in pounds, according to the cars data?"
    assert not passages_answer_question(seats, passages, [None, None])


def test_the_gate_weighs_a_name_without_the_phrase_that_describes_it() -> None:
    # v36: "…, one of the authors of the DPR paper," is said where the paper lists its
    # authors, not beside Danqi Chen's university.
    authors = (
        "Dense Passage Retrieval for Open-Domain Question Answering\n"
        "Sewon Min, Patrick Lewis, Danqi Chen‡, Wen-tau Yih\n"
        "Facebook AI †University of Washington ‡Princeton University"
    )
    abstract = "Open-domain question answering relies on efficient passage retrieval."
    question = "At which university is Danqi Chen, one of the authors of the DPR paper, affiliated?"
    assert passages_answer_question(question, [authors, abstract], [None, None])
    # Without the name's passage, the phrase is not what passes the gate.
    assert not passages_answer_question(question, [abstract], [None])


def test_a_name_the_question_writes_with_a_possessive_is_asked() -> None:
    # v37: "Ilagin's Erza" is the name " ilagin erza ", which the folded question writes
    # as "ilagin s erza": taken for a new name of the answer, it withheld "Rugayushka".
    field = "Ilagin rode up with his borzoi. Erza, the red-spotted bitch, ran first."
    hunt = (
        'He saw in Erza and "Uncle\'s" red Rugay two rivals. The borzois did not overtake '
        'the hare so quickly. "Rugay, Rugayushka!" Uncle cried as his borzoi took it.'
    )
    question = (
        "What is the name of 'Uncle's' red borzoi that outruns Ilagin's Erza and takes the hare?"
    )
    said = "'Uncle's' red borzoi that outruns Ilagin's Erza and takes the hare is Rugayushka. [2]"
    assert check_sentence(question, said, [field, hunt]).supporting == (2,)
    # The answer's own name is still checked.
    milka = said.replace("Rugayushka", "Milka")
    assert not check_sentence(question, milka, [field, hunt]).supported


def test_a_pair_holds_the_number_the_question_names_in_both() -> None:
    # v37: "In pypdf 6.0.0, mypy was updated to version 1.16.0." was pieced together from
    # 6.0.0's section (mypy 1.17.0) and 5.6.0's (mypy 1.16.0).
    older = "CHANGELOG > Version 5.6.0, 2025-06-01 > Code Style (STY)\n- Update to mypy 1.16.0"
    newer = (
        "CHANGELOG > Version 6.0.0, 2025-08-11 > Developer Experience (DEV)\n"
        "- Update code style related libraries\n- Update mypy to 1.17.0"
    )
    question = "In pypdf 6.0.0, to which version was mypy updated?"
    wrong = "In pypdf 6.0.0, mypy was updated to version 1.16.0. [1][2]"
    assert not check_sentence(question, wrong, [older, newer]).supported
    right = "In pypdf 6.0.0, mypy was updated to version 1.17.0. [2]"
    assert check_sentence(question, right, [older, newer]).supporting == (2,)


def test_a_language_the_question_names_need_not_stand_in_the_passage() -> None:
    # v38: the German notes' symbol list never says "German": "the German name" of the
    # question, echoed, withheld the answer.
    symbols = (
        "Symbolverzeichnis\nHomöo(X) Homöomorphismengruppe Iso(X) Isometriengruppe "
        "GLn(K) Allgemeine lineare Gruppe (von General Linear Group)"
    )
    question = (
        "In the symbol list of the geometry and topology lecture notes, what German name is "
        "given for GLn(K)?"
    )
    said = 'GLn(K) is given the German name "Allgemeine lineare Gruppe" [1].'
    assert check_sentence(question, said, [symbols]).supporting == (1,)
    # The answer's own name is still checked.
    other = said.replace("Allgemeine lineare Gruppe", "Spezielle lineare Gruppe")
    assert not check_sentence(question, other, [symbols]).supported
    # v40: when a passage found names the language, the claim's passage must: the
    # Chamorro text's "consiencia" is no Swahili word.
    swahili = (
        "… Swahili Watu wote wamezaliwa huru, hadhi na haki zao ni sawa. Wote wamejaliwa "
        "akili na dhamiri, hivyo yapasa watendeane kindugu. …"
    )
    chamorro = "Todo taotao siha man mafanago libertao, man manae siha hinaso yan consiencia."
    asked = "In the UDHR file, which word does the Swahili version use for conscience?"
    wrong = 'In the Swahili version, the word used for conscience is "consiencia". [2]'
    assert not check_sentence(asked, wrong, [swahili, chamorro]).supported
    right = 'In the Swahili version, the word used for conscience is "dhamiri". [1]'
    assert check_sentence(asked, right, [swahili, chamorro]).supporting == (1,)


def test_what_follows_about_the_answer_comes_from_a_passage_that_names_it() -> None:
    # v37: the booklet's glossary entry on oestrogen was cited for "this hormone",
    # testosterone.
    lobules = (
        "In men, the hormone testosterone suppresses the development of the lobules at "
        "puberty, so men have only a few ducts."
    )
    glossary = (
        "oestrogen The primary female sex hormone that helps regulate the reproductive "
        "cycle. Oestrogen is also present in men."
    )
    question = "Which hormone suppresses the development of the lobules in men at puberty?"
    answer = CheckedAnswer(question, [lobules, glossary])
    shown = answer.feed(
        "The hormone that suppresses the development of the lobules in men at puberty is "
        "testosterone. [1] This hormone is the primary male sex hormone and helps regulate "
        "the reproductive cycle. [2] It is also present in men. [2]"
    )
    shown += answer.flush()
    assert shown.endswith("is testosterone. [1]")
    assert answer.withheld == [
        "This hormone is the primary male sex hormone and helps regulate the reproductive cycle.",
        "It is also present in men.",
    ]
    # From the passage that names it, or the one the answer cited, it goes on.
    both = CheckedAnswer(question, [lobules, f"Testosterone: {glossary}"])
    shown = both.feed("It is testosterone. [1] It is also present in men. [2]") + both.flush()
    assert shown == "It is testosterone. [1] It is also present in men. [2]"


def test_a_passage_with_none_of_the_question_words_the_claim_repeats_holds_it_not() -> None:
    # docs/pyproject.md lists MIT among the licences; the lecture notes name no licence
    # (held-out v35: "… published under the MIT license. [3]" was shown for it).
    licences = (
        "The tool.poetry section > license\nThe license of the package. The recommended "
        "notation for the most common licenses is (alphabetical): Apache-2.0, BSD-2-Clause, "
        "GPL-3.0-only, MIT."
    )
    notes = "Geometrie und Topologie\nDieses Skript wurde im Wintersemester 2013/2014 geschrieben."
    asked = "Under which licence are the geometry and topology lecture notes published?"
    claim = "The geometry and topology lecture notes are published under the MIT license. [1]"
    assert check_sentence(asked, claim, [licences, notes]).supporting == ()
    # A passage that holds a word the claim repeats still may: "Poetry" of the list.
    poetry = "Under which licence is the package published, according to Poetry's docs?"
    said = "The package is published under the MIT license. [1]"
    assert check_sentence(poetry, said, [licences, notes]).supporting == (1,)
    # Nor need a passage in another script: a Korean brochure writes no English word.
    brochure = "적립 대상: 커피전문점·제과점·편의점 2% 빅포인트 적립"
    coffee = "According to the brochure, at what rate do coffee shops earn points?"
    rate = "Coffee shops earn 2% 빅포인트. [1]"
    assert check_sentence(coffee, rate, [brochure]).supporting == (1,)
    # Nor a German passage whose compounds begin with the words the claim repeats
    # (held-out v51: "Orthonormalbasis", "Binormalenvektor").
    german = (
        "b(t) heißt Binormalenvektor, die Orthonormalbasis γ'(t), n(t), b(t) heißt "
        "begleitendes Dreibein."
    )
    frame = (
        "In the lecture notes, what is the orthonormal basis of a curve's binormal vector called?"
    )
    named = "The orthonormal basis of the binormal vector is called the begleitendes Dreibein. [1]"
    assert check_sentence(frame, named, [german]).supporting == (1,)
    frenet = named.replace("begleitendes Dreibein", "Frenet frame")
    assert check_sentence(frame, frenet, [german]).supporting == ()
    assert check_sentence(frame, named, [notes]).supporting == ()


def test_a_day_of_the_month_is_no_count() -> None:
    # v42 (unanswerable): "… may take up to 15 days of sick leave a year. [1]" was held
    # by the handbook's "[Language modified May 15, 2023.]".
    handbook = (
        "If the aggregate purchases exceed $15,000 for the fiscal year, bids must be "
        "obtained. [Language modified May 15, 2023.]"
    )
    asked = "How many days of sick leave a year may a standing trustee's employees take?"
    leave = "A standing trustee's employees may take up to 15 days of sick leave a year. [1]"
    assert check_sentence(asked, leave, [handbook]).supporting == ()
    # The day itself is held, written as a day.
    when = "The language was modified on May 15, 2023. [1]"
    assert check_sentence("When was the language modified?", when, [handbook]).supporting == (1,)
    assert check_sentence("When?", "It was modified on the 15th of May. [1]", [handbook]).supported


def test_an_ordinal_is_no_count() -> None:
    # v58 (unanswerable): "The barley dataset contains 4 varieties of barley. [1]" was held
    # by the dataset's reference to Fisher's "The Design of Experiments. 4th edition.".
    barley = (
        "[barley] description: This dataset contains crop yields over different regions "
        "and different years in the 1930s. references: Fisher, R.A. (1947) The Design of "
        "Experiments. 4th edition. Edinburgh: Oliver and Boyd."
    )
    asked = "How many varieties of barley does the barley dataset contain?"
    four = "The barley dataset contains 4 varieties of barley. [1]"
    assert check_sentence(asked, four, [barley]).supporting == ()
    # A count is held where the passage counts; the ordinal where it is one.
    counted = barley.replace("different regions", "4 varieties of barley in different regions")
    assert check_sentence(asked, four, [counted]).supporting == (1,)
    edition = "Which edition of The Design of Experiments does the barley dataset cite?"
    assert check_sentence(edition, "It cites the 4th edition. [1]", [barley]).supporting == (1,)


def test_a_number_the_question_and_the_claim_write_as_a_word_need_not_be_held() -> None:
    # corpus/good/book-war-and-peace-1225p.txt (held-out v65): the passage that names
    # Karataev's nickname does not say "two", which the question's setting does.
    shed = (
        '"How can one help it, lad? My name is Platon, and the surname is Karataev," he '
        'added, evidently wishing to make it easier for Pierre to address him. "They call '
        "me 'little falcon' in the regiment. How is one to help feeling sad?\""
    )
    asked = (
        "In War and Peace, what does Platon Karataev tell Pierre they call him in the "
        "regiment, when the two first talk?"
    )
    told = (
        'Platon Karataev tells Pierre they call him "little falcon" in the regiment when '
        "the two first talk. [2]"
    )
    check = check_sentence(asked, told, ["Pierre and Karataev talked.", shed])
    assert check.supporting == (2,)
    # A number the claim writes in digits, or one the question does not write, still is a
    # fact the passage must hold.
    for claim in (told.replace("two", "2"), told.replace("two", "three")):
        assert check_sentence(asked, claim, [shed]).supporting == ()


def test_a_span_of_time_in_words_answers_how_long_and_constant_prices_ask_no_sum() -> None:
    # corpus/good/failure-after-repair.pdf (held-out v68): "about an hour" was held as
    # stating no number, then withheld with the sentences before it.
    pet = (
        "If you do have a PET scan, a small amount of the glucose will be injected into a "
        "vein. You will need to wait for about an hour for the fluid to move around your body."
    )
    question = "How long do you wait after the glucose injection before a PET scan starts?"
    answer = CheckedAnswer(question, [pet])
    said = "You will need to wait for about an hour for the fluid to move around your body. [1]"
    assert answer.feed(said) + answer.flush() == said
    # RGB-zh (held-out v68): "按不变价格计算" reckons a growth rate; it asks for no sum.
    report = "按不变价格计算，2022年全年国内生产总值比上年增长3%。"
    growth = "按不变价格计算，2022年全年国内生产总值比上年增长了多少？"
    grew = CheckedAnswer(growth, [report])
    assert grew.feed("2022年全年国内生产总值比上年增长3%。[1]") + grew.flush() != ""
    assert quote_answers("这款手机的价格是多少？", "售价为4999元。[1]")
    assert not quote_answers("这款手机的价格是多少？", "它有3种颜色。[1]")
