"""The support check and the forms a small model writes a supported answer in: a name
written short in a table, an acronym that qualifies what is asked, a sentence wrapped
in brackets; and a true sentence about something else, which answers nothing."""

from __future__ import annotations

from agentmaker.rag.answer.answer_split import split_answer
from agentmaker.rag.answer.checked import CheckedAnswer, passages_answer_question
from agentmaker.rag.answer.evidence import passage_evidence
from agentmaker.rag.answer.names import asked_for_codes, named, speaker_names, unmatched_identifiers
from agentmaker.rag.answer.support import check_sentence

# Lines of the corpus files the held-out questions were asked of (benchmarks/data).
AIRPORTS = (
    "[row 1137] iata: CLD; name: MC Clellan-Palomar Airport; city: NA; state: NA\n"
    "[row 1142] iata: CLM; name: William R Fairchild Intl; city: Port Angeles; state: WA; "
    "country: USA"
)
COVER = (
    "Commission file number: 000-30653 Galaxy Gaming, Inc. (Exact name of small business "
    "issuer as specified in its charter) … 305 – Las Vegas, NV 89118 |\n"
    "| (Address of principal executive offices) |\n| (702) 939-3254 |"
)
HISTORY = (
    "Compared to `PyPDF2 >= 3.0.0`, `pypdf >= 3.1.0` now offers:\n\n"
    "* Text extraction improvements, e.g., for math content. [pypdf is now comparable "
    "with Tika, pypdfium2, and PyMuPDF](https://github.com/py-pdf/benchmarks)\n"
    "* Annotation support"
)
# Two passages of one article: the first names who speaks, the second what it suggests.
INVITES = (
    "As cold winter nights are replaced by the warmth of longer daylight hours, the "
    "National Weather Service invites you to do two important things that may save your "
    "life or the life of a loved one."
)
SUGGESTS = (
    "This could include a spring cleaning of your storm shelter or ensuring your emergency "
    "kit is fully stocked. Take a look at our infographics and social media posts."
)
TRUSTEE = (
    "The standing trustee, as designee of the United States Trustee, is the presiding "
    "officer at the meeting of creditors."
)


def test_a_name_a_table_writes_short_is_the_same_name() -> None:
    question = (
        "In which town is the William R Fairchild International airport (code CLM), "
        "according to the airports list?"
    )
    answer = "The William R Fairchild International airport is in Port Angeles. [1]"
    assert check_sentence(question, answer, [AIRPORTS]).supporting == (1,)
    assert named(" william r fairchild international ", " name william r fairchild intl ")
    assert named(" acme intl ", " the acme international company ")
    # The other words of the name still count.
    assert not named(" william r fairchild international ", " name william r pogue intl ")
    wrong = "The William R Pogue International airport is in Port Angeles. [1]"
    assert not check_sentence(question, wrong, [AIRPORTS]).supported
    # "Cty" is the list's county (v27's Westchester County airport).
    row = "[row 1751] iata: HPN; name: Westchester Cty; city: White Plains; state: NY"
    county = "In which town is the Westchester County airport (code HPN)?"
    plains = "The Westchester County airport (code HPN) is located in White Plains. [1]"
    assert check_sentence(county, plains, [row]).supporting == (1,)


def test_an_acronym_that_qualifies_what_is_asked_need_not_stand_in_the_passage() -> None:
    question = (
        "What is the ZIP code of Galaxy Gaming's principal executive offices, according "
        "to the cover page of its 10-K?"
    )
    assert asked_for_codes(question) == {" zip "}
    answer = "The ZIP code of Galaxy Gaming's principal executive offices is 89118. [1]"
    assert check_sentence(question, answer, [COVER]).supporting == (1,)
    # Only in that place: an acronym the question asks about is a name the passage holds.
    assert asked_for_codes("Which office of the SEC received the 10-K?") == frozenset()
    other = "What is the ZIP code of Acme's principal executive offices?"
    assert not check_sentence(other, "Acme's ZIP code is 89118. [1]", [COVER]).supported
    # The number is checked as ever.
    wrong = "The ZIP code of Galaxy Gaming's principal executive offices is 89119. [1]"
    assert not check_sentence(question, wrong, [COVER]).supported


def test_a_sentence_wrapped_in_brackets_is_the_models_answer() -> None:
    question = (
        "According to the pypdf history page, pypdf's text extraction is now comparable "
        "with which tools?"
    )
    # The model copied a Markdown link's text, and the "[n]" of its instructions.
    answer = "[pypdf is now comparable with Tika, pypdfium2, and PyMuPDF] [n]"
    check = check_sentence(question, answer, [TRUSTEE, HISTORY])
    assert check.claim and check.supporting == (2,)
    assert check.shown() == "pypdf is now comparable with Tika, pypdfium2, and PyMuPDF [2]"
    checked = CheckedAnswer(question, [TRUSTEE, HISTORY])
    shown = checked.feed(answer) + checked.flush()
    assert shown == "pypdf is now comparable with Tika, pypdfium2, and PyMuPDF [2]"
    # A label in brackets still says nothing, nor does a wrapped sentence no passage holds.
    assert not check_sentence(question, "[the-file-name] [2]", [HISTORY]).claim
    made_up = "[pypdf is now comparable with Xpdf and Poppler] [n]"
    assert not check_sentence(question, made_up, [HISTORY]).supported


def test_a_true_sentence_about_something_else_answers_nothing() -> None:
    answer = (
        "The standing trustee, as designee of the United States Trustee, is the "
        "presiding officer at the meeting of creditors. [1]"
    )
    assert not check_sentence("Who designed the Eiffel Tower?", answer, [TRUSTEE]).supported
    # Asked about the meeting, the same sentence answers.
    asked = "Who presides at the meeting of creditors?"
    assert check_sentence(asked, answer, [TRUSTEE]).supporting == (1,)


def test_who_the_question_quotes_as_speaking_need_not_stand_beside_what_it_says() -> None:
    question = (
        "Besides giving your storm shelter a spring cleaning, what does the National "
        "Weather Service suggest you check is ready for the season's hazards?"
    )
    assert speaker_names(question) == {" national weather service "}
    answer = (  # the model's answer
        "The National Weather Service suggests checking your storm shelter is ready for "
        "the season's hazards by ensuring your emergency kit is fully stocked. [1]"
    )
    assert check_sentence(question, answer, [INVITES, SUGGESTS]).supporting == (2,)
    # When no passage found names the speaker, the passage may be anyone's advice.
    assert not check_sentence(question, answer, [TRUSTEE, SUGGESTS]).supported
    assert speaker_names("Who said the National Weather Service was late?") == frozenset()


def test_an_answer_to_a_question_for_a_name_states_a_name_the_question_lacks() -> None:
    # As in the model's second reading of War and Peace (held-out v18): "The French
    # captain's name is Pierre. [1]" to "… the French captain whose life Pierre saved".
    question = "What was the name of the diarist's bedridden sister?"
    home = "The diarist thought of home, and of the dear bedridden sister there."
    named = "The diarist thought of home, and of his bedridden sister Mary."
    reading = "The diarist thought of his dear bedridden sister at home. [1]"
    assert check_sentence(question, reading, [home, named]).supported  # its words are there
    checked = CheckedAnswer(question, [home, named])
    assert checked.feed(reading) + checked.flush() == ""
    assert checked.withheld == ["The diarist thought of his dear bedridden sister at home."]
    # A name of its own answers, and what was held before it is shown with it.
    checked = CheckedAnswer(question, [home, named])
    shown = checked.feed(f"{reading} The bedridden sister was Mary. [2]") + checked.flush()
    assert shown == f"{reading} The bedridden sister was Mary. [2]"
    # A question that asks for no name is answered without one.
    checked = CheckedAnswer("Where did the diarist's thoughts go?", [home])
    assert checked.feed(reading) + checked.flush() == reading
    # "Which law firm …" asks for a firm's name (held-out v34, unanswerable: the 10-K
    # names its auditor's attestation, no counsel).
    audit = "It was prepared by a registered public accounting firm that issued its audit report."
    firm = "Which law firm is Galaxy Gaming's legal counsel, according to its 10-K?"
    unnamed = (
        "The law firm is a registered public accounting firm that issued its audit report. [1]"
    )
    checked = CheckedAnswer(firm, [audit])
    assert checked.feed(unnamed) + checked.flush() == ""
    counsel = "Snell & Wilmer is Galaxy Gaming's legal counsel."
    checked = CheckedAnswer(firm, [counsel])
    assert checked.feed("Snell & Wilmer is its legal counsel. [1]") + checked.flush() != ""


def test_an_english_word_hyphened_onto_an_identifier_is_no_part_of_it() -> None:
    # Held-out v19: the gate closed on the FAQ that answers it, for want of
    # "tool.poetry-only" in any passage.
    question = (
        "According to the Poetry FAQ, from which Poetry version on are both a "
        "tool.poetry-only configuration and the project section supported?"
    )
    faq = (
        "Poetry FAQ: since Poetry version 2.0.0, a configuration in the tool.poetry "
        "section and one in the project section are both supported."
    )
    assert unmatched_identifiers(question, [faq]) == []
    assert passages_answer_question(question, [faq])
    # A hyphen that is the identifier's own stays: installer.max-workers is not
    # installer.max.
    asked = "What does installer.max-workers limit?"
    assert unmatched_identifiers(asked, ["installer.max is a setting."]) == [
        "installer.max-workers"
    ]


# An INI example of the Poetry FAQ, as the corpus's faq.md writes it (held-out v20).
TOX = (
    "FAQ > Is tox supported? > Use case #3\n#### Use case #3\n```ini\n[tox]\n\n[testenv]\n"
    "skip_install = true\nallowlist_externals = poetry\ncommands_pre =\n    poetry install\n"
    "commands =\n    poetry run pytest tests/ --import-mode importlib\n```"
)
DPR = (
    "4.1 Wikipedia Data Pre-processing Following (Lee et al., 2019), we use the English "
    "Wikipedia dump from Dec. 20, 2018 as the source documents for answering questions."
)


def test_an_ini_section_is_no_record_of_what_the_question_names() -> None:
    # "[tox]" looks like a JSON entry's label, and the question names tox; but nothing
    # stands under it: the setting is under "[testenv]", and the passage says it.
    question = (
        "In the Poetry FAQ's third tox use case, which tox setting is set to true so that "
        "tox does not install anything itself?"
    )
    answer = (
        "The tox setting set to true so that tox does not install anything itself is "
        "`skip_install = true`. [1]"
    )
    assert check_sentence(question, answer, [TOX]).supporting == (1,)


def test_the_authors_a_question_names_are_the_papers_we() -> None:
    question = (
        "From which date is the English Wikipedia dump that the DPR authors used as the "
        "source documents for answering questions?"
    )
    answer = (
        "The English Wikipedia dump that the DPR authors used as the source documents for "
        "answering questions is from Dec. 20, 2018. [1]"
    )
    assert check_sentence(question, answer, [DPR]).supporting == (1,)
    # Another date is still no answer of this passage.
    wrong = answer.replace("Dec. 20, 2018", "Nov. 1, 2019")
    assert check_sentence(question, wrong, [DPR]).supporting == ()


def test_a_sentence_cut_short_says_nothing_with_only_a_common_word_of_its_own() -> None:
    # "used" is not the question's "keep", but the sentence stops where its answer
    # should stand: it only points (and the model is asked to go on from it).
    question = (
        "On Linux, in which directory does Poetry keep its data directory by default when "
        "XDG_DATA_HOME is not set?"
    )
    passage = "### Data Directory\nLinux: `$XDG_DATA_HOME/pypoetry` or `~/.local/share/pypoetry`"
    check = check_sentence(
        question,
        "The data directory used by Poetry on Linux by default when XDG_DATA_HOME is not "
        "set is. [1]",
        [passage],
    )
    assert not check.claim and check.cited == (1,)
    answer = CheckedAnswer(question, [passage])
    assert answer.feed("The data directory used by Poetry on Linux is [1].") + answer.flush() == ""
    assert answer.frame == "The data directory used by Poetry on Linux is"


def test_a_suite_written_short_and_the_number_of_where_to_look() -> None:
    # The cover writes "Ste. 305"; "its 10-K" says where to look, and the cover page's
    # passage need not say "10-K" (held-out v21).
    question = (
        "In which suite of its Cameron Street building are Galaxy Gaming's principal "
        "executive offices, according to the cover page of its 10-K?"
    )
    cover = (
        "Galaxy Gaming, Inc.\n| 6480 Cameron Street Ste. 305 – Las Vegas, NV 89118 |\n"
        "| (Address of principal executive offices) |"
    )
    answer = (
        "The principal executive offices of Galaxy Gaming are located in Suite 305 of its "
        "Cameron Street building, as stated on the cover page of its 10-K. [1]"
    )
    assert check_sentence(question, answer, [cover]).supporting == (1,)
    # Another suite is not held.
    assert check_sentence(question, answer.replace("305", "310"), [cover]).supporting == ()


def test_a_tables_first_cell_on_a_line_of_its_own_labels_the_row_under_it() -> None:
    # The 10-K's table of contents, as its reader writes the HTML table (held-out v20).
    contents = (
        "GALAXY GAMING, INC. ANNUAL REPORT ON FORM 10-K TABLE OF CONTENTS\n| PART I |\n"
        "| Item 1.\n| | Business | | 4 |\n| Item 1A.\n"
        "| | Risk Factors | | 9 |\n| Item 1B.\n| | Unresolved Staff Comments | | 9 |\n"
        "| Item 2.\n| | Properties | | 9 |"
    )
    question = "In the table of contents of Galaxy Gaming's 10-K, what is Item 1B?"
    answer = (
        "Item 1B is a section of the table of contents of Galaxy Gaming's 10-K that "
        "discusses unresolved staff comments. [1]"
    )
    assert check_sentence(question, answer, [contents]).supporting == (1,)


def test_an_answer_that_quotes_the_question_is_one_sentence_and_claims_the_rest() -> None:
    question = (
        "According to the chapter 13 trustee handbook, for more than how long must official "
        "travel keep a standing trustee away from the office for meals to be reimbursed?"
    )
    handbook = (
        "Reimbursement for meals is authorized if the official travel causes the standing "
        "trustee or an employee to be away from the office for more than twelve consecutive "
        "hours and the travel is more than 50 miles from the residence."
    )
    answer = f'The answer to the question "{question} " is 12 consecutive hours. [1]'
    # Not cut after the quoted question's "?": the rest would be '" is 12 consecutive hours.'
    assert split_answer(answer + " It is in the handbook. [1]") == [
        answer,
        " It is in the handbook. [1]",
    ]
    # The quoted question (its "According" is no name to find) is no part of the claim.
    assert check_sentence(question, answer, [handbook]).supporting == (1,)
    assert check_sentence(question, answer.replace("12", "14"), [handbook]).supporting == ()


def test_a_footnotes_number_glued_to_a_sentences_last_number() -> None:
    # The booklet's text: "by the age of 85.2" is age 85 and footnote 2 (held-out v22).
    booklet = (
        "About 120 men are diagnosed with breast cancer in Australia each year. Breast "
        "cancer in men makes up less than 1% of all breast cancers – only 1 in 838 men will "
        "be diagnosed before the age of 85.2 Lobular carcinoma in situ … This is not cancer."
    )
    question = (
        "According to the Understanding Breast Cancer booklet, how many men will be "
        "diagnosed with breast cancer before the age of 85?"
    )
    answer = (
        "According to the Understanding Breast Cancer booklet, 1 in 838 men will be "
        "diagnosed with breast cancer before the age of 85. [1]"
    )
    assert check_sentence(question, answer, [booklet]).supporting == (1,)
    assert check_sentence(question, answer.replace("838", "839"), [booklet]).supporting == ()


def test_a_sentence_cut_short_without_its_marker_is_a_frame_too() -> None:
    # "Item 4 is [10]." without the marker to no passage: the model may go on from it.
    answer = CheckedAnswer("In the table of contents, what is Item 4?", ["| Item 4."])
    assert answer.feed("Item 4 is.") + answer.flush() == ""
    assert answer.frame == "Item 4 is" and not answer.withheld


def test_a_sentence_saying_where_something_is_stated_is_no_frame() -> None:
    # Held-out v50: made to go on from "This is stated in", the model wrote "This is
    # stated in the handbook on page 5, [1]." - a place, shown as the answer to a
    # question the handbook does not answer.
    handbook = "The trustee sends plan payments to creditors by mail or electronically."
    question = "Which courier service must a chapter 13 trustee use to send plan payments?"
    answer = CheckedAnswer(question, [handbook])
    assert answer.feed("This is stated in [1][5].") + answer.flush() == ""
    assert answer.frame == "" and answer.pointed == [1, 5]
    for where in ("This can be found in [1].", "This information is mentioned in [1]."):
        other = CheckedAnswer(question, [handbook])
        other.feed(where + " ")
        assert other.flush() == "" and other.frame == ""
    # Asked where, the place is the answer: the model may go on from there.
    asked_where = CheckedAnswer("Where is the trustee's payment rule stated?", [handbook])
    asked_where.feed("This is stated in [1].")
    asked_where.flush()
    assert asked_where.frame == "This is stated in"


def test_a_name_the_question_states_may_stand_misread_by_ocr() -> None:
    # The scanned diary prints "Eichmond" for the Richmond the question names.
    diary = (
        "We have often heard that Eichmond had fallen, but it continues within the "
        "confederate lines. If the army of the Potomac does not soon take it, Grant will "
        "march j us there and seize the prize from them."
    )
    question = (
        "In the Vicksburg siege diary, which army does the diarist say must soon take "
        "Richmond, or else Grant will march his men there and seize the prize?"
    )
    answer = "The diarist says the army of the Potomac must soon take Richmond. [1]"
    assert check_sentence(question, answer, [diary]).supporting == (1,)
    # A name the answer brings is read as written: "Eichmond" is no "Richmond" there.
    other = "The army of the Potomac must soon take Eichmond. [1]"
    assert not check_sentence(question, other, [diary.replace("Eichmond", "Richmond")]).supported
    # Nor is a short name one letter away ("Prussia" is not "Russia" either way).
    prussia = "The army of the Potomac marched through Russia. [1]"
    assert not check_sentence(
        "Which army marched through Russia?",
        prussia,
        ["The army of the Potomac marched through Prussia."],
    ).supported


def test_a_title_before_a_name_the_passage_writes_bare() -> None:
    # The model calls him "Marshal Davout"; the novel says "Davout".
    study = (
        "Davout, spectacles on nose, sat bent over a table at the further end of the "
        "room. Pierre went close up to him, but Davout did not look up."
    )
    question = "Who sat with spectacles on his nose at the end of the room Pierre was led to?"
    answer = "Marshal Davout sat there with spectacles on his nose. [1]"
    assert check_sentence(question, answer, [study]).supporting == (1,)
    # The title does not stand for another name: "Marshal Ney" is not Davout.
    other = "Marshal Ney sat there with spectacles on his nose. [1]"
    assert not check_sentence(question, other, [study]).supported


def test_a_name_of_the_question_another_passage_holds_is_its_setting() -> None:
    # The novel's passages: the fires, then the study where Davout questions Pierre.
    fires = "Moscow was on fire in several places. Pierre wandered through the streets."
    study = (
        "Davout, spectacles on nose, sat bent over a table at the further end of the "
        "room. Pierre went close up to him, but Davout did not look up."
    )
    question = (
        "In War and Peace, which French marshal, sitting with spectacles on his nose, "
        "interrogates Pierre as a suspected spy after the fires of Moscow?"
    )
    answer = (
        "Marshal Davout, sitting with spectacles on his nose, interrogates Pierre as a "
        "suspected spy after the fires of Moscow. [1]"
    )
    # The study does not name Moscow, the passage on the fires does: re-pointed there.
    check = check_sentence(question, answer, [fires, study])
    assert check.supporting == (2,)
    assert check.shown().endswith("Moscow. [2]")
    # Found alone, the study holds it too: Moscow is then a scene no passage found
    # names, and the study names the question's Pierre beside the answer's Davout (see
    # the next test). A passage that holds as few of the question's names as it lacks: "Baz
    # Qux" is no answer to what the outline with Foo, Bar and Baz sections is by.
    outline = ["Foo\nBar section text.", "Baz\nBaz Qux <baz.qux@example.com> wrote it."]
    asked = "Who is the author of the outline PDF with the Foo, Bar and Baz sections?"
    author = "The author of the outline with the Foo, Bar and Baz sections is Baz Qux. [2]"
    assert not check_sentence(asked, author, outline).supported


def test_a_scene_no_passage_found_names_is_excused_beside_the_questions_people() -> None:
    field = (
        '"And who is that young man beside you?" Prince Repnin named Lieutenant '
        "Sukhtelen. After looking at him Napoleon smiled."
    )
    question = (
        "In War and Peace, whom does Prince Repnin name to Napoleon on the field of "
        "Austerlitz when Napoleon asks who the young man beside him is?"
    )
    answer = (
        "Prince Repnin names Lieutenant Sukhtelen to Napoleon on the field of Austerlitz "
        "when Napoleon asks who the young man beside him is. [2]"
    )
    elsewhere = "Pierre took the letter and went to Petersburg."
    # No passage found names Austerlitz: the passage that names Repnin, Napoleon and the
    # answer's Sukhtelen holds the sentence (re-pointed from the model's [2]).
    check = check_sentence(question, answer, [field, elsewhere])
    assert check.supporting == (1,) and check.shown().endswith("beside him is. [1]")
    # A record's key is no name of the question's: the row names another airport.
    row = "[row 2669] iata: PRG; name: Edgar County; city: Paris; state: IL; country: USA"
    assert not check_sentence(
        "According to the airports list, what is the IATA code of Toronto Pearson airport?",
        "The IATA code of Toronto Pearson airport is PRG. [1]",
        [row],
    ).supported
    # (Nor is a number the answer's own name: test_support's installer.timeout.)


def test_a_name_of_the_question_run_into_the_answers_is_two_names() -> None:
    # The model ends on the question's "Karataev" and puts the answer straight after it.
    shed = (
        "This little dog lived in their shed, sleeping beside Karataev at night. It had no "
        "name. The French called it Azor; the soldier who told stories called it Femgalka."
    )
    question = (
        "In War and Peace, what did the French call the nameless little dog that stayed "
        "with the prisoners and slept beside Karataev?"
    )
    answer = (
        "The French called the nameless little dog that stayed with the prisoners and "
        "slept beside Karataev Azor. [1]"
    )
    assert check_sentence(question, answer, [shed]).supporting == (1,)
    # The answer's own name is still checked: the passage never calls the dog Sharik.
    sharik = answer.replace("Azor", "Sharik")
    assert not check_sentence(question, sharik, [shed]).supported


def test_a_row_the_question_names_is_where_its_answer_stands() -> None:
    # "Business" is Item 1's, on page 4: not what Item 4 is.
    contents = (
        "TABLE OF CONTENTS\n| PART I |\n| Item 1. | | Business | | 4 |\n"
        "| Item 3. | | Legal Proceedings | | 9 |\n| Item 4. | | Mine Safety Disclosures | | 9 |"
    )
    question = "In the table of contents of Galaxy Gaming's 10-K, what is Item 4?"
    assert not check_sentence(question, "Item 4 is Business. [1]", [contents]).supported
    held = check_sentence(question, "Item 4 is Mine Safety Disclosures. [1]", [contents])
    assert held.supporting == (1,)
    # A question that names no row reads the whole table; a header row names none.
    pages = "Which item of the table of contents is Legal Proceedings?"
    assert check_sentence(pages, "Legal Proceedings is Item 3. [1]", [contents]).supported
    people = "| Name | Age |\n| Alice | 30 |\n| Bob | 41 |"
    assert check_sentence("What is the name of the person aged 41?", "Bob [1]", [people]).supported


def test_a_files_format_the_question_names_is_no_name_the_passage_must_hold() -> None:
    # "the outline PDF" is the file; its text never says "PDF".
    blind = (
        "A blind text like this gives you information about the selected font, how the "
        "letters are written and an impression of the look."
    )
    question = (
        "Besides how the letters are written and an impression of the look, what does the "
        "blind text in the outline PDF say a text like it gives you information about?"
    )
    answer = "The blind text in the outline PDF gives you information about the selected font. [1]"
    assert check_sentence(question, answer, [blind]).supporting == (1,)
    # A name of another kind the question states is still to be held.
    fiji = question.replace("outline PDF", "Fiji edition")
    assert not check_sentence(
        fiji, answer.replace("outline PDF", "Fiji edition"), [blind]
    ).supported


def test_an_option_the_question_does_not_write_is_an_answer_of_its_own() -> None:
    # Poetry's docs (benchmarks/data heldout54): "--readme" folds to the question's
    # "README", yet it answers "which option".
    options = (
        "#### Options\n\n* `--name`: Set the resulting package name.\n"
        "* `--flat`: Use the flat layout for the project.\n"
        "* `--readme`: Specify the readme file extension. Default is `md`."
    )
    layout = "poetry new my-package will create a folder with a README.md file."
    question = (
        "Which option of poetry new sets the extension of the README file it creates, "
        "md by default?"
    )
    answer = (
        "The option of poetry new that sets the extension of the README file it creates "
        "is `--readme`."
    )
    held = check_sentence(question, answer, [layout, options])
    assert held.claim and held.supporting == (2,)
    # Only a passage that writes the option holds it, and only the option whose line
    # says what the claim does: "--flat" is no option that sets the extension.
    assert not check_sentence(question, answer, [layout]).supported
    assert not check_sentence(question, answer.replace("readme", "flat"), [options]).supported
    # An option the question writes itself is still no answer.
    asked = "What does the --readme option of poetry new set?"
    assert not check_sentence(asked, "The `--readme` option. [1]", [options]).claim


def test_an_option_is_held_by_its_own_line_not_the_one_above() -> None:
    show = (
        "* `--latest (-l)`: Show the latest version.\n"
        "* `--outdated (-o)`: Show the latest version but only for packages that are outdated."
    )
    question = (
        "Which poetry show option shows the latest version only for the packages that are outdated?"
    )
    claim = "The `{}` option shows the latest version only for the packages that are outdated."
    assert not check_sentence(question, claim.format("--latest"), [show]).supported
    assert check_sentence(question, claim.format("--outdated"), [show]).supporting == (1,)
    # A passage found as sentences run together writes the entries on one line: each
    # entry is still its option's own (the Poetry CLI docs, benchmarks/data heldout57).
    install = (
        "`--only-root`: Install only the root project, exclude all dependencies. `--sync`: "
        "Synchronize the environment with the locked packages and the specified groups. … "
        "`--all-groups`: Install dependencies from all groups (conflicts with `--only`, "
        "`--with`, and `--without`). `--compile`: Compile Python source files to bytecode."
    )
    asked = "Which option of poetry install conflicts with --only, --with and --without?"
    answer = (
        "The option of poetry install that conflicts with --only, --with, and --without is `{}`."
    )
    assert not check_sentence(asked, answer.format("--sync"), [install]).supported
    assert check_sentence(asked, answer.format("--all-groups"), [install]).supporting == (1,)
    # An option's line that says nothing of what the claim says beyond the option's
    # name holds no claim of it, though no other line says more (v58, unanswerable).
    publish = (
        "* `--repository (-r)`: The repository to register the package to (default: `pypi`).\n"
        "* `--username (-u)`: The username to access the repository.\n"
        "* `--build`: Build the package before publishing."
    )
    trusted = "Which option of poetry publish enables PyPI trusted publishing?"
    claim = (
        "The `--repository` option of the `poetry publish` command enables PyPI trusted publishing."
    )
    assert not check_sentence(trusted, claim, [publish]).supported
    building = "Which option of poetry publish builds the package before publishing it?"
    built = "The `--build` option of poetry publish builds the package before publishing it."
    assert check_sentence(building, built, [publish]).supporting == (1,)


def test_a_new_name_run_into_a_name_of_the_question_and_a_familys_plural() -> None:
    # War and Peace (benchmarks/data heldout56): "Prechistenka Boulevard Pierre" is the
    # boulevard and Pierre; "the Rostovs'" are the family another passage calls "Rostov".
    comet = (
        "book-war-and-peace-1225p — lines 31,795–31,830\n"
        '"Home!" On his way home, at the entrance to the Arbat Square, an immense expanse '
        "of dark starry sky presented itself to his eyes. Almost in the center of it, "
        "above the Prechistenka Boulevard, shone the enormous and brilliant comet of 1812. "
        "In Pierre, however, that comet aroused no feeling of fear."
    )
    supper = (
        "book-war-and-peace-1225p — lines 16,211–16,229\n"
        "At that toast, the count Rostov took out his handkerchief and wept outright."
    )
    question = (
        "In War and Peace, above which Moscow boulevard does Pierre see the great comet of "
        "1812 on his way home from the Rostovs'?"
    )
    answer = (
        "In War and Peace, above the Prechistenka Boulevard Pierre sees the great comet of "
        "1812 on his way home from the Rostovs' [2]."
    )
    assert check_sentence(question, answer, [comet, supper]).supporting == (1,)
    # Another boulevard is not held.
    assert not check_sentence(
        question, answer.replace("Prechistenka", "Tverskoy"), [comet, supper]
    ).supported
    # The supper names the family the question asks by its plural; a name the answer
    # adds is held only as written.
    assert passage_evidence(supper).names(" rostovs ", asked=True)
    assert not passage_evidence(supper).names(" rostovs ", asked=False)
