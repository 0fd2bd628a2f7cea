"""Session-7 rules of the support check, the fallbacks and the quotes, one per case the
answer-quality benchmark's questions showed (benchmarks/REPORT.md §10)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from agentmaker.library import Library
from agentmaker.rag.answer.answer_split import split_answer
from agentmaker.rag.answer.checked import (
    NOT_FOUND_ANSWER,
    CheckedAnswer,
    answer_when_unsupported,
    passages_answer_question,
)
from agentmaker.rag.answer.extractive import extractive_answer, with_heading
from agentmaker.rag.answer.names import unmatched_identifiers
from agentmaker.rag.answer.quote_checks import quote_answers
from agentmaker.rag.answer.support import check_sentence
from agentmaker.testing import FakeEmbedder, ScriptedLLM

HISTORY = (
    "At the end of 2011, after consultation with Mathieu and others, Phaseit sponsored "
    "PyPDF2 as a fork of pyPdf on GitHub."
)
LINKS = "PyPDF2 was merged back into pypdf. [Mathieu Fenniak]: https://mathieu.fenniak.net/"
WATFORD = (
    "Roberts' chances were restricted. He scored nine goals for Watford, and moved to "
    "Huddersfield Town for £275,000 in 1990."
)
SETTINGS = (
    "### cache-dir\n\nThe path to the cache directory used by Poetry.\n\n"
    "- macOS: `~/Library/Caches/pypoetry`\n- Unix: `~/.cache/pypoetry`"
)


def test_a_bare_answer_needs_a_passage_about_the_question() -> None:
    question = "Which company sponsored PyPDF2 as a fork of pyPdf at the end of 2011?"
    # The name is in passage 2, but passage 2 is not about the sponsoring.
    wrong = check_sentence(question, "Mathieu Fenniak [2]", [HISTORY, LINKS])
    assert not wrong.supported
    right = check_sentence(question, "Phaseit [1]", [HISTORY, LINKS])
    assert right.supported and right.citations == (1,)


def test_a_person_the_question_names_may_be_called_by_the_surname() -> None:
    question = "For what fee did Iwan Roberts move from Watford to Huddersfield Town?"
    sentence = "Iwan Roberts moved from Watford to Huddersfield Town for £275,000. [2]"
    check = check_sentence(question, sentence, ["Iwan Roberts, footballer.", WATFORD])
    assert check.supported and check.citations == (2,)
    # Only a person's: "Norwich City" is not "Leicester City", and a name the question
    # does not state still has to be there in full.
    club = check_sentence(
        "Which club did Norwich City sign him from?",
        "Norwich City signed him from Leicester. [1]",
        ["Leicester City signed him from Watford."],
    )
    assert not club.supported
    other = check_sentence(
        "Who won the 1998 FIFA World Cup final?",
        "Iwan Roberts won the 1998 FIFA World Cup final. [1]",
        ["Roberts watched the 1998 FIFA World Cup final."],
    )
    assert not other.supported


def test_a_name_starts_a_word() -> None:
    # "macOS" names no "OS": the path's own words are in the passage.
    check = check_sentence(
        "Where does Poetry keep its cache directory on macOS?",
        "The path to the cache directory used by Poetry on macOS is "
        "`~/Library/Caches/pypoetry`. [1]",
        [SETTINGS],
    )
    assert check.supported and check.citations == (1,)


def test_a_legal_citation_inside_an_answer_is_one_sentence() -> None:
    answer = (
        "The trustee verifies that the debtor is eligible (11 U.S.C. § 109, Fed. R. Bankr. "
        "P. 1007). [1] It is done at the meeting. [2]"
    )
    assert split_answer(answer) == [
        "The trustee verifies that the debtor is eligible (11 U.S.C. § 109, Fed. R. Bankr. "
        "P. 1007). [1]",
        " It is done at the meeting. [2]",
    ]


def test_a_cited_passage_that_holds_only_half_the_sentence_is_dropped() -> None:
    breasts = (
        "Some breast tissue extends into the armpit (axilla). This is known as the "
        "'axillary tail' of the breast."
    )
    surgery = "A breast reconstruction is a type of surgery, known to many women."
    check = check_sentence(
        "What is the part of the breast tissue that extends into the armpit called?",
        "This is known as the 'axillary tail' of the breast. [1][2]",
        [breasts, surgery],
    )
    # It shares half the sentence's words, but not the answer's ("axillary tail"): it
    # is no support, and passage 1 says it all.
    assert check.supporting == (1,)
    assert check.citations == (1,)


def test_a_documents_file_name_is_no_identifier_its_passages_must_write() -> None:
    # corpus/good/seattle-weather.csv (held-out v65): its rows never write the file's
    # name, and the model was not asked.
    rows = (
        "[row 1198] date: 2015/04/12; precipitation: 0.0; temp_max: 13.3; weather: sun\n"
        "[row 1199] date: 2015/04/13; precipitation: 14.0; temp_max: 11.7; weather: fog"
    )
    question = (
        "In seattle-weather.csv the row for 2015/04/13 is marked fog; what precipitation "
        "value does it give?"
    )
    assert unmatched_identifiers(question, [rows]) == []
    assert passages_answer_question(question, [rows])
    # A setting's file is one: "pyproject.toml" is asked about, not where to look.
    asked = "Which key of pyproject.toml names the build backend?"
    assert unmatched_identifiers(asked, [rows]) == ["pyproject.toml"]


def test_a_record_named_opens_the_gate_for_a_field_of_words_too() -> None:
    # corpus/good/airports.csv (held-out v68): the question's words held 0.447 of what it
    # asks, under the gate's 0.45; "town" asks for the row's city, which holds words.
    rows = (
        "[row 916] iata: B19; name: Biddeford Municipal; city: Biddeford; state: ME\n"
        "[row 917] iata: B21; name: Sugarloaf Regional; city: Carrabasset; state: ME; "
        "country: USA; latitude: 45.08616639; longitude: -70.21617778"
    )
    question = (
        "Which town does the airports list give for the Sugarloaf Regional airport, code B21?"
    )
    assert passages_answer_question(question, [rows])
    # A field the row lacks opens nothing.
    assert not passages_answer_question(question.replace("town", "runway length"), [rows])


def test_an_identifier_no_passage_names_closes_the_gate_and_the_quotes() -> None:
    timeout = "Poetry's default HTTP request timeout is 15 seconds, the same as pip."
    question = "What is the default value of Poetry's installer.timeout setting?"
    assert unmatched_identifiers(question, [timeout]) == ["installer.timeout"]
    assert unmatched_identifiers("What does --offline do?", ["Use --offline."]) == []
    assert not passages_answer_question(question, [timeout], [0.9])
    fallback = answer_when_unsupported(question, [timeout], pointed=[1])
    assert not fallback.quote and fallback.text == NOT_FOUND_ANSWER
    # With the identifier there, the pointed passage is quoted.
    named = "The installer.timeout setting defaults to 15 seconds."
    assert answer_when_unsupported(question, [named], pointed=[1]).pointed == (1,)


def test_what_follows_a_withheld_first_claim_is_withheld_too() -> None:
    gillingham = (
        "He signed a two-year contract with Gillingham. The move to Gillingham did not "
        "prove a good one for him."
    )
    checked = CheckedAnswer("Who was Norwich City's chairman when Roberts signed?", [gillingham])
    shown = checked.feed("Roberts signed for Norwich City in 2004 [1]. ")
    shown += checked.feed("The move to Gillingham did not prove a good one for him. [1] ")
    shown += checked.flush()
    assert shown == "" and len(checked.withheld) == 2
    # A supported first claim keeps the next supported one.
    later = CheckedAnswer("Where did he sign a two-year contract?", [gillingham])
    text = later.feed("He signed a two-year contract with Gillingham. [1] ") + later.flush()
    assert text == "He signed a two-year contract with Gillingham. [1]"


def test_a_version_range_written_as_an_interval_is_shown_as_its_passage_writes_it() -> None:
    # corpus/good/dependency-specification.md (held-out v60 and v62): the model wrote
    # the passage's ">=20.1,<21.0" as "[20.1, 21.0)".
    extras = '```toml\n[project]\ndependencies = [\n    "gunicorn[gevent] (>=20.1,<21.0)"\n]\n```'
    question = (
        "In the dependency extras example of Poetry's dependency specification, which "
        "version range does gunicorn get in the project section?"
    )
    checked = CheckedAnswer(question, [extras])
    shown = checked.feed("The version range for gunicorn is [20.1, 21.0). [1]") + checked.flush()
    assert shown == "The version range for gunicorn is >=20.1,<21.0. [1]"
    # Another range than the passage's is left as the model wrote it.
    other = CheckedAnswer(question, [extras.replace("<21.0", "<=21.0")])
    shown = other.feed("Gunicorn gets [20.1, 21.0). [1]") + other.flush()
    assert shown == "Gunicorn gets [20.1, 21.0). [1]"


def test_a_version_stated_alone_is_shown_under_the_comparison_its_passage_writes() -> None:
    # corpus/good/pyproject.md (held-out v60): made to go on from "… are [1].", the model
    # wrote the passage's ">=2.0" as "2.0", which says another thing.
    section = (
        "### requires-poetry\n\nA constraint for the Poetry version that is required for "
        'this project.\n\n```toml\n[tool.poetry]\n# ...\nrequires-poetry = ">=2.0"\n```'
    )
    question = (
        "Which Poetry versions does the example project in the requires-poetry section require?"
    )
    checked = CheckedAnswer(question, [section])
    shown = checked.feed("The Poetry versions required are 2.0. [1]") + checked.flush()
    assert shown == "The Poetry versions required are >=2.0. [1]"
    # Written alone too, or under two comparisons: left as the model wrote it.
    for also in ("\nPoetry 2.0 added it.", '\nmy-plugin = "<2.0"'):
        other = CheckedAnswer(question, [section + also])
        shown = other.feed("The Poetry versions required are 2.0. [1]") + other.flush()
        assert shown == "The Poetry versions required are 2.0. [1]"
    # Under a comparison already, spaced or not, it stays as written.
    spaced = CheckedAnswer(question, [section])
    shown = spaced.feed("The Poetry versions required are `>= 2.0`. [1]") + spaced.flush()
    assert shown == "The Poetry versions required are `>= 2.0`. [1]"
    # Another version than the passage's is not touched (nor "2.0.1" for "2.0").
    other = CheckedAnswer(question, [section.replace(">=2.0", ">=2.0.1")])
    shown = other.feed("The Poetry versions required are 2.0. [1]") + other.flush()
    assert ">=" not in shown


def test_after_the_value_asked_a_sentence_from_other_passages_is_left_aside() -> None:
    # corpus/good/multi-column.pdf, the DPR paper (held-out v61): the answer's number,
    # then three sentences of other passages, none of which holds it.
    passages = [
        "In the cross-dataset setting, DPR trained on Natural Questions only loses 3-5 "
        "points of top-20 retrieval accuracy against the best fine-tuned model on "
        "WebQuestions and CuratedTREC.",
        "All the results are measured on the development set of Natural Questions.",
        "Our DPR trained using 1,000 examples already outperforms BM25.",
    ]
    question = (
        "How many points of top-20 retrieval accuracy does DPR trained on Natural Questions lose?"
    )
    checked = CheckedAnswer(question, passages)
    answer = (
        "DPR trained on Natural Questions only loses 3-5 points of top-20 retrieval accuracy. [1]"
    )
    shown = checked.feed(
        f"{answer} The results are measured on the development set of Natural Questions. [2] "
        "Our DPR trained using 1,000 examples already outperforms BM25. [3]"
    )
    shown += checked.flush()
    assert shown == answer
    assert checked.aside == [
        "The results are measured on the development set of Natural Questions.",
        "Our DPR trained using 1,000 examples already outperforms BM25.",
    ]
    assert checked.withheld == []
    # One that gives a value too, with words of the question the answer did not hold, is
    # shown: it may answer another part of it.
    also = f"{question[:-1]}, and with how many examples does it beat BM25?"
    both = CheckedAnswer(also, passages)
    said = f"{answer} Our DPR trained using 1,000 examples already outperforms BM25. [3]"
    assert both.feed(said) + both.flush() == said and both.aside == []
    # When no value is asked, another passage's sentence is shown: it may be the one
    # that answers (the chapter 13 trustee handbook, held-out v62).
    tips = [
        "The standing trustee should have positive pay for the expense account.",
        "The positive pay file should be encrypted prior to transmission.",
    ]
    asked = "What should be done to the positive pay file before it is transmitted?"
    other = CheckedAnswer(asked, tips)
    said = f"{tips[0]} [1] {tips[1]} [2]"
    assert other.feed(said) + other.flush() == said and other.aside == []


def test_quotes_leave_out_footnote_numbers_and_reference_entries() -> None:
    crash = "航班坠毁于广西梧州市藤县埌南镇莫埌村大唐口组山间[29]，主撞击点在山顶。"
    references = (
        'Hutchinson, John (20 June 2018). "Former player remembers: Iwan Roberts" '
        "(https://www.example.com/iwan). Norwich City. Retrieved 22 June 2020.\n\n"
        "Norwich City manager Mike Walker signed Iwan Roberts from Wolves in July 1997."
    )
    quoted = extractive_answer("MU5735航班坠毁地点在哪里", [crash]).text
    assert "[29]" not in quoted and "梧州市藤县" in quoted
    signed = extractive_answer("Which Norwich City manager signed Iwan Roberts?", [references])
    assert signed.text.startswith("Norwich City manager Mike Walker signed Iwan Roberts")
    assert "https" not in signed.text


@pytest.fixture
def library(tmp_path: Path) -> Iterator[Library]:
    lib = Library.open(tmp_path / "poetry.sqlite", embedder=FakeEmbedder())
    lib.pipeline.ingest_text("# Configuration\n\n" + SETTINGS, source="config.md", fmt="md")
    yield lib
    lib.close()


def test_the_model_is_not_asked_about_a_setting_the_documents_never_name(
    library: Library,
) -> None:
    llm = ScriptedLLM(["The cache-dir.timeout default is 15 seconds. [1]"])
    llm.checks_answers = True  # as the built-in model does
    library.set_llm(llm)
    result = asyncio.run(library.rag.ask("What is the default of cache-dir.timeout?"))
    assert llm.calls == [] and result.note == "not_found" and result.abstained
    assert result.answer == NOT_FOUND_ANSWER and result.sources


def test_a_quote_for_a_number_shows_the_heading_that_holds_it() -> None:
    heading = "CHANGELOG > Version 6.15.0, 2026-07-01 > New Features (ENH)"
    text = "- AppearanceStream: Add RTL appearance streams with Arabic characters (#3831)"
    shown = "AppearanceStream: Add RTL appearance streams with Arabic characters (#3831)"
    question = "Which pypdf version added RTL appearance streams with Arabic characters?"
    answer = extractive_answer(question, [text], headings=[heading])
    assert answer.text == f"{heading}: {shown} [1]"
    # Not when the question asks for no number, or when the sentence holds the heading's.
    plain = extractive_answer("What was added for RTL?", [text], headings=[heading])
    assert plain.text == f"{shown} [1]"
    dated = "Version 6.15.0 of 2026-07-01 added RTL appearance streams."
    assert extractive_answer(question, [dated], headings=[heading]).text == f"{dated} [1]"


def test_a_section_heading_may_be_the_quote_when_only_it_holds_the_version() -> None:
    heading = "CHANGELOG > Version 5.0.0, 2024-09-15 > Security (SEC)"
    text = "- Detect cycles in TreeObject.insert_child (#3964)"
    question = "On what date was pypdf version 5.0.0 released?"
    quoted = with_heading(question, heading, text)
    assert quoted == f"{heading}\n\n{text}"
    assert "Version 5.0.0, 2024-09-15" in extractive_answer(question, [quoted]).text
    assert with_heading("What was detected?", heading, text) == text
    # "Which release" asks for a version too.
    cmaps = "### New Features (ENH)\n- Add Japanese predefined CMaps (#3800)"
    heading = "CHANGELOG > Version 6.13.0, 2026-05-18"
    asked = "In which pypdf release were Japanese predefined CMaps added?"
    quoted = extractive_answer(asked, [cmaps], headings=[heading]).text
    assert quoted == f"{heading}: Add Japanese predefined CMaps (#3800) [1]"


def test_a_quote_favours_the_passage_the_model_pointed_at() -> None:
    first = "The large siege guns were of nine-inch calibre."
    second = "The large siege guns of the Confederates were of six-inch calibre."
    question = "What calibre were the large siege guns?"
    assert extractive_answer(question, [first, second]).text.startswith(first)
    pointed = extractive_answer(question, [first, second], prefer=[2], top_passages=0)
    assert pointed.text == f"{second} [2]"
    # One that shares no word with the question (another language): its opening sentence.
    notes = "Dieses Skript wurde im Wintersemester 2013/2014 geschrieben. Es ist kostenlos."
    written = "This is box text written from top. It was written down."
    asked = "In which semester were the lecture notes written?"
    assert extractive_answer(asked, [written, notes]).text.endswith("[1]")
    german = extractive_answer(asked, [written, notes], prefer=[2], top_passages=0)
    assert german.text == "Dieses Skript wurde im Wintersemester 2013/2014 geschrieben. [2]"
    # Its opening sentence, not a title's broken line above it.
    titled = "Einführung in die\n" + notes
    german = extractive_answer(asked, [written, titled], prefer=[2], top_passages=0)
    assert german.text == "Dieses Skript wurde im Wintersemester 2013/2014 geschrieben. [2]"
    # Not when another passage holds the name asked about: the model pointed at the
    # Sanskrit text for the Turkish word.
    sanskrit = "Sanskrit\nसर्वे मानवाः स्वतन्त्राः समुत्पन्नाः।"
    turkish = "Turkish\nBütün insanlar hür doğarlar. Birbirlerine karşı kardeşlik zihniyeti ile."
    word = "Which word does the Turkish version use for brotherhood?"
    quoted = extractive_answer(word, [sanskrit, turkish], prefer=[1], top_passages=0)
    assert quoted.text.startswith("Turkish Bütün insanlar") and quoted.text.endswith("[2]")


def test_a_quote_for_a_pointer_adds_no_other_passage_for_the_focus_word() -> None:
    cmaps = "### New Features (ENH)\n- Add Japanese predefined CMaps (#3800)"
    heading = "CHANGELOG > Version 6.13.0, 2026-05-18"
    history = "The last release of PyPI was pyPdf 1.13 in 2010."
    asked = "In which pypdf release were Japanese predefined CMaps added?"
    passages = [with_heading(asked, heading, cmaps), history]
    entry = f"{heading}: Add Japanese predefined CMaps (#3800) [1]"
    # Unpointed, a sentence bringing the focus word ("release") may join the quote...
    glued = extractive_answer(asked, passages, headings=[heading, ""], top_passages=0)
    assert glued.text == f"{entry} {history} [2]"
    # ...but the model pointed at [1]: its entry alone.
    pointed = extractive_answer(asked, passages, prefer=[1], headings=[heading, ""], top_passages=0)
    assert pointed.text == entry


NIGHTINGALE = (
    "[crimea] This is a dataset containing monthly casualty counts from the Crimean war. "
    "It was originally published in 1858 by Florence Nightingale."
)


def test_an_answer_to_a_number_question_waits_for_its_number() -> None:
    question = "In what year did Florence Nightingale first publish the casualty counts?"
    checked = CheckedAnswer(question, [NIGHTINGALE])
    # Supported but no year: held back, not shown...
    first = checked.feed("This is a dataset containing monthly casualty counts. [1] It was")
    assert first == "" and checked.waiting and checked.shown == 0
    # ...and shown, in order, once a sentence states the number.
    rest = checked.feed(" published in 1858 by Florence Nightingale. [1]") + checked.flush()
    assert rest == (
        "This is a dataset containing monthly casualty counts. [1] "
        "It was published in 1858 by Florence Nightingale. [1]"
    )
    # An answer that never states one is withheld whole: it does not answer the question.
    vague = CheckedAnswer(question, [NIGHTINGALE])
    text = vague.feed("This is a dataset containing monthly casualty counts. [1] ")
    assert text + vague.flush() == "" and vague.withheld and not vague.shown
    # Number words count: "seven years".
    ledgers = CheckedAnswer("How long are ledgers kept?", ["Ledgers are kept seven years."])
    kept = ledgers.feed("Ledgers are kept seven years. [1]") + ledgers.flush()
    assert kept == "Ledgers are kept seven years. [1]"
    # A heat is measured (v36, unanswerable: "how hot can the inside of a parked car
    # get?" was answered by what the infographics tell of heat dangers).
    heat = "On a sunny day the inside of a parked car can get dangerously hot within minutes."
    said = "The inside of a parked car can get dangerously hot within minutes."
    hot = CheckedAnswer("How hot can the inside of a parked car get?", [heat])
    assert hot.feed(f"{said} [1]") + hot.flush() == "" and hot.withheld == [said]
    # A temperature, not any quantity: "a third" of the deaths is none.
    third = "Roughly a third of child hot car deaths occur outside of the summer months."
    deaths = CheckedAnswer("How hot can the inside of a parked car get?", [third])
    assert deaths.feed(f"{third} [1]") + deaths.flush() == "" and deaths.withheld == [third]
    degrees = "Inside a parked car it can reach 120°F within an hour."
    car = CheckedAnswer("How hot can the inside of a parked car get?", [degrees])
    assert car.feed(f"{degrees} [1]") + car.flush() == f"{degrees} [1]"
    # A sheet's temperature field states one (held-out v74: the row of 2013/09/01 was
    # not quoted to "How warm did it get at most on 2013/09/01 …?").
    warm = "How warm did it get at most on 2013/09/01, per the Seattle weather file?"
    row = "[row 610] date: 2013/09/01; precipitation: 0.0; temp_max: 27.8; wind: 2.5 [1]"
    assert quote_answers(warm, row)
    assert not quote_answers(warm, row.replace("temp_max", "wind_max"))


def test_an_amount_is_not_a_count_of_other_things() -> None:
    # v35 (unanswerable, after the footnotes changed its passage): the cover page's share
    # count given as Galaxy Gaming's cash.
    cover = (
        "Galaxy Gaming, Inc. 10-K for the year ended December 31, 2021. The cash position is "
        "discussed in Item 7. As of March 28, 2022, there were 23,718,968 common shares "
        "outstanding."
    )
    question = "How much cash and cash equivalents did Galaxy Gaming hold at the end of 2021?"
    shares = (
        "The cash and cash equivalents held by Galaxy Gaming at the end of 2021 were "
        "23,718,968 common shares as of March 28, 2022."
    )
    counted = CheckedAnswer(question, [cover])
    assert counted.feed(f"{shares} [1]") + counted.flush() == ""
    assert counted.withheld == [shares]
    # An amount with its unit, or bare, is one.
    held = f"{cover} Cash and cash equivalents were $17,584,189 at the end of 2021."
    for said in ("Galaxy Gaming held $17,584,189 in cash.", "Cash was 17,584,189 dollars."):
        amount = CheckedAnswer(question, [held])
        assert amount.feed(f"{said} [1]") + amount.flush() == f"{said} [1]"


def test_a_sentence_the_model_repeats_is_shown_once() -> None:
    checked = CheckedAnswer("When was it published?", [NIGHTINGALE])
    loop = "It was originally published in 1858 by Florence Nightingale. [1] " * 4
    shown = checked.feed(loop) + checked.flush()
    assert shown == "It was originally published in 1858 by Florence Nightingale. [1]"
    assert checked.shown == 1


def test_a_broken_link_is_nothing_to_quote() -> None:
    references = (
        "Iwan Roberts scored for Wales.\n\n-iwan-roberts/).\n\nwww.edp24.co.uk/sport/x\n\n"
        "Roberts, Iwan (12 May 2020)."
    )
    quoted = extractive_answer("What about iwan-roberts?", [references]).text
    assert quoted == "Iwan Roberts scored for Wales. [1]"


def test_an_english_sentence_is_no_answer_to_a_chinese_question() -> None:
    passage = (
        "乌江特大桥是德余高速控制性工程，全桥长1834米。拱肋为钢管混凝土桁架结构，"
        "全桥共60个节段，最大节段重达157吨。"
    )
    question = "德余高速乌江特大桥的拱肋最大节段有多重？"
    english = CheckedAnswer(question, [passage])
    assert english.feed("is 157 tons. [1]") + english.flush() == ""
    assert english.withheld == ["is 157 tons."]
    # The passage it cites is where the model saw the answer: it is quoted instead.
    assert english.pointed == [1] and english.only_pointed
    chinese = CheckedAnswer(question, [passage])
    assert chinese.feed("最大节段重达157吨。[1]") + chinese.flush() == "最大节段重达157吨。[1]"
    # A name or a number alone is no English prose.
    named = CheckedAnswer("哪个软件的默认目录？", ["Poetry 的默认目录由 Poetry Cache 决定。"])
    assert named.feed("Poetry Cache [1]") + named.flush() == "Poetry Cache [1]"
    # An English question is not held to Chinese.
    asked = CheckedAnswer(
        "How heavy is the largest segment?", ["The largest segment weighs 157 tons."]
    )
    assert asked.feed("It weighs 157 tons. [1]") + asked.flush() == "It weighs 157 tons. [1]"


def test_a_bare_number_to_a_chinese_question_gets_the_unit_its_passage_writes() -> None:
    passage = "韦洛德罗姆体育场建于1937年，可容纳67000人，是法国第二大体育场。"
    checked = CheckedAnswer("马赛的韦洛德罗姆体育场可以容纳多少人？", [passage])
    assert checked.feed("67000 [1]") + checked.flush() == "67000人 [1]"
    # The unit the question asks for, of several the passage gives the number.
    cup = "中国队第22次捧得考比伦杯，22名队员中有5人首次参赛。"
    times = CheckedAnswer("中国队是第几次捧得考比伦杯？", [cup])
    assert times.feed("22 [1]") + times.flush() == "22次 [1]"
    # An English question, or a number the passage gives no unit, stays as it is.
    both = "可容纳67000人。The stadium holds 67000 people."
    english = CheckedAnswer("How many people does the stadium hold?", [both])
    assert english.feed("67000 [1]") + english.flush() == "67000 [1]"
    plain = CheckedAnswer("体育场建于哪一年？", ["体育场建于1937。"])
    assert plain.feed("1937 [1]") + plain.flush() == "1937 [1]"


def test_a_count_names_what_the_question_counts() -> None:
    booklet = (
        "There are 13 Cancer Councils in Australia, including Cancer Council NSW. "
        "Breast care nurses work in hospitals."
    )
    nurses = CheckedAnswer("How many breast care nurses work in Australia?", [booklet])
    said = nurses.feed("There are 13 Cancer Councils in Australia. [1]") + nurses.flush()
    assert said == "" and nurses.withheld == ["There are 13 Cancer Councils in Australia."]
    # A field's name counts too ("Miles_per_Gallon").
    record = "Name: ford fiesta\nMiles_per_Gallon: 36.1"
    miles = CheckedAnswer("How many miles per gallon does the ford fiesta get?", [record])
    field = "The ford fiesta has a Miles_per_Gallon of 36.1. [1]"
    assert miles.feed(field) + miles.flush() == field
    # Or the plural the question's count opens (v43: "how many top passages" is
    # answered by "… contains 2000 passages …").
    dpr = "Specifically, we obtain two initial sets of top-2000 passages based on BM25 and DPR."
    top = CheckedAnswer("How many top passages does each initial set contain?", [dpr])
    first = "The first initial set contains 2000 passages from BM25. [1]"
    assert top.feed(first) + top.flush() == first
    # (A bare number, "67000 [1]", may count anything: see the test below.)


def test_a_size_may_be_told_by_a_likeness() -> None:
    question = "How big a hole did the rebel shell leave?"
    passage = "It exploded, leaving a hole big enough to bury a horse."
    checked = CheckedAnswer(question, [passage])
    shown = checked.feed("The shell left a hole big enough to bury a horse. [1]") + checked.flush()
    assert shown == "The shell left a hole big enough to bury a horse. [1]"
    # A count still needs its number: "how many" is answered by one.
    counted = CheckedAnswer("How many shells fell near the tent?", ["Two shells fell."])
    assert counted.feed("Shells fell near the tent. [1]") + counted.flush() == ""


def test_the_place_is_no_answer_for_a_part_of_it() -> None:
    # v37, v38, v40: "Seoul Korea [1]", "Tokyo 100-91 [1]" to which district (ward) of
    # the city an address is in; the member list gives the district a line of its own.
    members = (
        "Appendix A - Members\nHanjin Shipping Co., Ltd.\n25-11, Yoid-dong\nYoungdeungpo-ku\n"
        "Seoul Korea\nNippon Yusen Kaisha (NYK Line)\nYusen Bldg.\nChiyoda-ku\nTokyo 100-91\nJapan"
    )
    seoul = "In which district of Seoul is the address of Hanjin Shipping Co., Ltd.?"
    tokyo = "In which ward of Tokyo is the address of Nippon Yusen Kaisha (NYK Line)?"
    for question, said in ((seoul, "Seoul Korea [1]"), (tokyo, "Tokyo 100-91 [1]")):
        whole = CheckedAnswer(question, [members])
        assert whole.feed(said) + whole.flush() == ""
        assert whole.withheld == [said.removesuffix(" [1]")]
    named = "The address of Hanjin Shipping Co., Ltd. is in Youngdeungpo-ku, Seoul. [1]"
    for question, said in ((seoul, named), (tokyo, "Chiyoda-ku [1]")):
        part = CheckedAnswer(question, [members])
        assert part.feed(said) + part.flush() == said


def test_a_code_span_made_of_the_questions_words_is_an_answer_it_must_write() -> None:
    # corpus/good/configuration.md (held-out v72): the setting's name is the question's
    # words joined by hyphens; the answer was held as saying nothing new.
    section = (
        "Configuration — Configuration > Available settings > system-git-client\n"
        "### `system-git-client`\n\n**Type**: `boolean`\n\nUse system git client backend "
        "for git related tasks.\n\nIf you encounter any problems with it, set to `true` to "
        "use the system git backend."
    )
    question = (
        "In Poetry's dependency specification, which poetry config setting is set to true "
        "to explicitly use the system git client?"
    )
    answer = "The `system-git-client` setting is set to true to use the system git client. [1]"
    checked = CheckedAnswer(question, [section])
    assert checked.feed(answer) + checked.flush() == answer
    # A span the passage does not write is withheld, though its words are there.
    wrong = CheckedAnswer(question, [section])
    shuffled = answer.replace("system-git-client", "git-system-client")
    assert wrong.feed(shuffled) + wrong.flush() == ""
    assert wrong.withheld == [shuffled.removesuffix(" [1]")]


def test_a_clause_that_only_points_at_the_marker_is_not_shown() -> None:
    # Held-out v62, v65, v70: "The horsepower listed for the Volvo 245 is 102, which is [1]."
    question = "What horsepower is listed for the Volvo 245 in cars.json?"
    row = ["[row 12] Name: volvo 245; Horsepower: 102; Cylinders: 4"]
    for tail in (", which is [1].", ", which is given in [1].", " which is [1]"):
        checked = CheckedAnswer(question, row)
        shown = checked.feed(f"The horsepower listed for the Volvo 245 is 102{tail}")
        assert shown + checked.flush() == "The horsepower listed for the Volvo 245 is 102. [1]"
    told = CheckedAnswer(question, row)
    said = "The horsepower listed for the Volvo 245 is 102, which is its power. [1]"
    assert told.feed(said) + told.flush() == said


def test_a_release_day_is_quoted_from_its_own_heading() -> None:
    # Held-out v74: "On what day …" asks for a date; the section's markdown heading line
    # is no sentence to quote, so its heading path is; and "3.15.3" is one term, which
    # the heading of 3.15.4 does not hold.
    question = "On what day did pypdf publish version 3.15.3, according to its changelog?"
    headings = [
        "CHANGELOG > Version 3.15.3, 2023-08-26 > Bug Fixes (BUG)",
        "CHANGELOG > Version 3.15.4, 2023-08-27 > Maintenance (MAINT)",
    ]
    texts = [
        "## Version 3.15.3, 2023-08-26\n\n### Bug Fixes (BUG)\n-  Check version of crypt "
        "provider (#2115)\n-  Require flit_core >= 3.9 (#2091)",
        "### Maintenance (MAINT)\n-  Relax typing_extensions version (#2104)",
    ]
    passages = [with_heading(question, h, t) for h, t in zip(headings, texts, strict=True)]
    assert all(p.startswith(h) for p, h in zip(passages, headings, strict=True))
    quoted = extractive_answer(question, passages, prefer=[1, 2], top_passages=0)
    assert quoted.text.startswith("CHANGELOG > Version 3.15.3, 2023-08-26")
    assert quoted.text.endswith("[1]") and quote_answers(question, quoted.text)
