"""The versions of one text a file gives, each under the line naming it
(corpus/good/UDHR_first_article_all.txt: the first article in every language). Asked
which word a named version uses, the model's word must stand in that version, and the
version is quoted whole when the model gives none (held-out v40-v43 and v45 answered a
word of another version or none; v48's Somali quote the model would not confirm)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from agentmaker.library import Library
from agentmaker.rag.answer.checked import CheckedAnswer
from agentmaker.rag.answer.versions import asked_version
from agentmaker.testing import ScriptedLLM

from tests.engine.rag.answer.test_gate_level import LeveledEmbedder

SOMALI = (
    "In the file with the first article of the UDHR in all languages, which word does the "
    "Somali version use for brotherhood?"
)
ALBANIAN = (
    "In the file with the first article of the UDHR in all languages, which word does the "
    "Albanian (Tosk) version use for conscience?"
)


@pytest.fixture
def udhr(good_dir: Path) -> str:
    """The file's lines from "Afrikaans" to "Albanian, Tosk" and from "Slovenian" to
    "Soninke": two passages as the library cuts them."""
    text = (good_dir / "UDHR_first_article_all.txt").read_text(encoding="utf-8")
    start = text.index("\nAfrikaans\n")
    return text[start : text.index("\nAlbanian, Tosk\n") + 400]


@pytest.fixture
def slovenian_somali(good_dir: Path) -> str:
    text = (good_dir / "UDHR_first_article_all.txt").read_text(encoding="utf-8")
    return text[text.index("\nSlovenian\n") : text.index("\nSoninke\n")]


def test_the_named_version_is_found_by_its_label_in_any_word_order(
    udhr: str, slovenian_somali: str
) -> None:
    found = asked_version(ALBANIAN, [slovenian_somali, udhr])
    assert found is not None and (found.number, found.label) == (2, "Albanian, Tosk")
    assert "ndërgjegje" in found.text and "gewete" not in found.text
    assert found.quote().startswith("Albanian, Tosk: Të gjithë njerëzit")
    assert found.quote().endswith(" [2]")
    somali = asked_version(SOMALI, [udhr, slovenian_somali])
    assert somali is not None and somali.label == "Somali" and "walaaltinimo" in somali.text
    assert "Slovenian" not in somali.quote() and "vestjo" not in somali.quote()


def test_a_question_that_asks_to_give_a_versions_word_asks_its_words(
    slovenian_somali: str,
) -> None:
    # Held-out v63 asked "… the Aromanian text says people are endowed with fichiri
    # (reason) and with what? Give the Aromanian word."; the model gave none.
    asked = "The Somali text says people are born free and with what? Give the Somali word."
    found = asked_version(asked, [slovenian_somali])
    assert found is not None and found.label == "Somali"
    assert asked_version(asked.replace("Give the Somali word.", ""), [slovenian_somali]) is None
    # Held-out v66: "The UDHR first-article file has an Ido text: what is its word for
    # brotherhood?"
    its = "The UDHR first-article file has a Somali text: what is its word for brotherhood?"
    found = asked_version(its, [slovenian_somali])
    assert found is not None and found.label == "Somali"


def test_no_version_when_none_is_named_or_no_words_are_asked(
    udhr: str, slovenian_somali: str
) -> None:
    passages = [udhr, slovenian_somali]
    # A version the file does not give.
    assert asked_version("Which word does the Klingon version use for dignity?", passages) is None
    # Not the words of a version: who made it.
    assert asked_version("Who translated the Somali version?", passages) is None
    # A heading over prose names no version.
    notes = "Definition 23\nEin Knotendiagramm heißt 3-färbbar, wenn jeder Bogen gefärbt ist."
    assert asked_version("Which word does Definition 23 use for colourable?", [notes]) is None


def test_a_word_of_another_version_is_withheld(udhr: str) -> None:
    checked = CheckedAnswer(ALBANIAN, [udhr])
    # "gewete" is the Afrikaans article's conscience, in the same passage.
    wrong = 'The Albanian (Tosk) version uses the word "gewete" (conscience). [1]'
    assert checked.feed(wrong) + checked.flush() == ""
    assert checked.withheld == [wrong.removesuffix(" [1]")]
    right = CheckedAnswer(ALBANIAN, [udhr])
    shown = right.feed('The Albanian (Tosk) version uses "ndërgjegje". [1]') + right.flush()
    assert "ndërgjegje" in shown and right.withheld == []


def test_the_version_is_quoted_when_the_model_gives_no_word_of_it(
    tmp_path: Path, slovenian_somali: str
) -> None:
    # Found by meaning, as the e5 embedder finds it (the article shares few of the
    # question's words): every cosine opens the gate.
    lib = Library.open(tmp_path / "udhr.sqlite", embedder=LeveledEmbedder(-1.0))
    try:
        lib.pipeline.ingest_text(slovenian_somali, source="udhr.txt")
        # The model's word is the question's own, no word of the Somali article; made
        # to read the first passage alone, it does not know.
        llm = ScriptedLLM(['The Somali version uses "brotherly". [1]', "I don't know."])
        llm.checks_answers = True  # as the built-in model does
        # Each passage cut to what bears on the question, as for the built-in model: the
        # cut runs the label into the text ("… Somali Aadanaha …"), the version is found
        # before it.
        llm.focus_words = 40  # type: ignore[attr-defined]
        lib.set_llm(llm)
        result = asyncio.run(lib.rag.ask(SOMALI))
        assert result.note == "quoted_version" and result.extractive
        assert result.answer.startswith("Somali: Aadanaha dhammaantiis")
        assert "walaaltinimo" in result.answer and result.answer.endswith("[1]")
        assert "Slovenian" not in result.answer
        assert "… Somali Aadanaha" in llm.calls[0][-1].content  # what the model read
    finally:
        lib.close()


@pytest.fixture
def haitian_english(good_dir: Path) -> tuple[str, str]:
    """The Haitian Creole versions with their neighbours, and the English article."""
    text = (good_dir / "UDHR_first_article_all.txt").read_text(encoding="utf-8")
    haitian = text[text.index("\nGumuz\n") : text.index("\nHani\n")]
    english = text[text.index("\nEnglish\n") : text.index("\nEsperanto\n") + 200]
    return haitian, english


def test_a_version_named_but_for_one_word_is_found_when_no_other_is(
    haitian_english: tuple[str, str],
) -> None:
    # Held-out v71: "the Haitian Creole (Kreyol) text", of "Haitian Creole French
    # (Kreyol)" above "Haitian Creole French (Popular)".
    haitian, _ = haitian_english
    kreyol = "In the UDHR file, which word does the Haitian Creole (Kreyol) text use for unity?"
    found = asked_version(kreyol, [haitian])
    assert found is not None and found.label == "Haitian Creole French (Kreyol)"
    assert "fwatènite" in found.text and "trete" not in found.text
    # Two words of four name neither of them: both are Haitian Creole.
    loose = kreyol.replace(" (Kreyol)", "")
    assert asked_version(loose, [haitian]) is None


def test_what_a_version_says_and_a_qualified_word_ask_its_words(
    udhr: str, slovenian_somali: str
) -> None:
    # Held-out v73: "what does the Bislama version say people must treat one another
    # like?"; v65: "which borrowed word does the Tongan text use for conscience?".
    says = "In the UDHR file, what does the Somali version say people are born as?"
    found = asked_version(says, [udhr, slovenian_somali])
    assert found is not None and found.label == "Somali"
    borrowed = "Which borrowed word does the Albanian (Tosk) text use for conscience?"
    found = asked_version(borrowed, [udhr])
    assert found is not None and found.label == "Albanian, Tosk"
    # What a document says, with no version named.
    assert asked_version("What does the install text say about Windows?", [udhr]) is None


def test_a_sentence_citing_another_passage_than_the_versions_is_withheld(
    haitian_english: tuple[str, str],
) -> None:
    # Held-out v67: asked in a spirit of what the Esperanto text says people should
    # act, the model answered from the English article: "in a spirit of brotherhood".
    _, english = haitian_english
    asked = "In the UDHR file, in a spirit of what does the Esperanto text say people act?"
    passages = [english.split("\nEsperanto\n")[0], english]
    checked = CheckedAnswer(asked, passages)
    assert checked.version is not None and checked.version.number == 2
    wrong = "People should act towards one another in a spirit of brotherhood. [1]"
    assert checked.feed(wrong) + checked.flush() == ""
    assert checked.withheld == [wrong.removesuffix(" [1]")]
    # Cited to the passage that gives both articles, it is still not the Esperanto's.
    both = CheckedAnswer(asked, passages)
    assert both.feed(wrong.replace("[1]", "[2]")) + both.flush() == ""
    right = CheckedAnswer(asked, passages)
    shown = right.feed("The Esperanto text says in a spirit of frateco. [2]") + right.flush()
    assert "frateco" in shown and right.withheld == []


def test_a_sentence_copied_from_the_asked_version_is_shown(good_dir: Path) -> None:
    # Held-out v74: the model copied the Maori text's two sentences; the second, which
    # holds "he teina he tuakana" (younger and elder brother), shares no word with the
    # question and was withheld.
    text = (good_dir / "UDHR_first_article_all.txt").read_text(encoding="utf-8")
    passage = text[text.index("\nManx\n") : text.index("\nMapudungun\n")]
    asked = "Which words does the Maori version use for younger and elder brother?"
    first, second = text.split("\nMaori\n")[1].split("\n")[0].split(". ", 1)
    checked = CheckedAnswer(asked, [passage])
    shown = checked.feed(f"Maori {first}. [1] {second} [1]") + checked.flush()
    assert "he teina he tuakana" in shown and checked.withheld == []
    # Words of its own beside the version's are still checked.
    other = CheckedAnswer(asked, [passage])
    assert other.feed("The Maori words are teina and tuakana, said by elders. [1]") == ""
