"""Whether each sentence of a model's answer is said by the passage it cites.

A small model sometimes answers from memory or from the wrong passage: "Iwan Roberts won
the 1998 FIFA World Cup final. [1]" when passage 1 is a footballer's biography, "…is
299,792,458 km/s. [1]" when passage 1 is about a farm, "1.4 %" when the passage says
9 %-19 %. :func:`check_sentence` tests one answer sentence against every passage the
model was given. A passage supports the sentence when

1. every number the sentence states is in the passage (digits or number words, see
   grounding.py), not given a unit of another kind than the passage writes it with nor
   than the question asks in ("4 gray" from "4–6 weeks", units.py), and a date written
   in numbers stands there as that day (dates.py),
2. every name it states (names.py: a run of capitalised words, an ALL-CAPS or
   ``snake_case`` word, a dotted name or a command-line option: "FIFA World Cup",
   "Sistine Chapel", "SHELL_VERBOSITY", "installer.max-workers", "--offline") is in the
   passage as written (case and accents aside; one more word may stand inside it: "Iwan
   Roberts" is "Iwan Wyn Roberts"; a person the question names may be called by the
   surname: "Roberts"; a US state may stand as its postal code: "Virginia" is a row's
   "VA"; a tool the question writes in lower case, "poetry self update", need not stand
   in its own documentation when another passage names it; nor need one the question
   states that the sentence only echoes, "after the fires of Moscow", when another
   passage found holds it and this one the sentence's own new name; a name of the
   question the sentence runs into its own, "…beside Karataev Azor.", is two names),
3. most of its content words are in the passage (``min_coverage``; a paraphrase keeps
   most words, an answer from memory does not): of all its words, or of the words it
   adds to the question ("July 1805" to "In what month and year does the opening
   scene take place?"), whichever share is higher, and some of the words it adds
   (not only the question's: "The wind blew from the south on 2013/11/11"), and
4. for a bare answer ("Phaseit [1]": a few words, none of them the question's), most
   of the question's words are in the passage too: "Mathieu Fenniak [4]" is no answer
   to "Which company sponsored PyPDF2?" from a passage that only links his name.

A passage is what the model read of it (evidence.py), its header line included ("Version 5.0.0,
2024-09-15" is often only there); of a passage of records, only the records the
question names by their label when it names some ("us-state-capitals"). When no
passage supports a sentence alone, two that each hold a part of it may support it
together (a biography and its infobox); the sentence then cites both.

The caller keeps the citations of supporting passages (those nearly as good as the best
cited one, :data:`CITE_MARGIN`), re-points a citation to a passage that supports the
sentence when the cited one does not, adds one to an uncited sentence, and leaves out a
sentence no passage supports (see retriever.py: when no sentence is left, the answer
says the documents do not seem to say it). ``names.unmatched_identifiers`` finds a
setting or option the question names that no passage does (then nothing is asked).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from agentmaker.rag.answer.claims import Claim, best_pair
from agentmaker.rag.answer.dates import (
    day_numbers,
    numeric_dates,
    ordinal_numbers,
    without_dates,
)
from agentmaker.rag.answer.evidence import Evidence, passage_evidence
from agentmaker.rag.answer.focus import asked_records, asked_rows
from agentmaker.rag.answer.grounding import as_quantities, stated_numbers
from agentmaker.rag.answer.names import (
    CJK_CHAR,
    asked_for_codes,
    document_names,
    document_words,
    fold,
    language_names,
    named,
    names_in,
    options_in,
    source_of,
    speaker_names,
    without_source,
)
from agentmaker.rag.answer.sentences import terms
from agentmaker.rag.answer.units import asked_kinds, measures

__all__ = [
    "MIN_COVERAGE",
    "SentenceCheck",
    "check_sentence",
    "new_names",
]

#: Share of a sentence's content words a supporting passage must hold.
MIN_COVERAGE = 0.5
#: A cited passage that supports a sentence stays cited when it holds at most this much
#: less of it than the best cited one.
CITE_MARGIN = 0.25

_MARKER = re.compile(r"\s*\[(\d{1,3}(?:\s*,\s*\d{1,3})*)\]")
# Words that speak about the passages, not about the question ("as stated in [2]").
_META = frozenset(
    terms(
        "passage passages information info found find stated states state mentioned "
        "mentions according document documents provided text says say given answer "
        "question based context source sources cited quote quoted above below following"
    )
)
# A passage named by its number, as the model was shown it: "This can be found in Passage
# 1." or "in Passage 1, row 1004" says where, not what (a number of no claim).
_PASSAGE_NUMBER = re.compile(
    r"\bpassages? \d{1,3}(?:(?:\s*,\s*|\s+and\s+)\d{1,3})*\b(?:,? (?:row|line) \d+\b)?", re.I
)
# A list item's number and nothing else ("1.", "2)"): a list begun, not an answer (a bare
# number that answers is written without the dot: "67000 [1]").
_LIST_NUMBER = re.compile(r"\(?\d{1,2}[.)]")
# A code span: "`system-git-client`".
_CODE_SPAN = re.compile(r"`([^`\s][^`]*)`")
# Text in brackets or parentheses: a sentence of nothing else ("[the-file-name]") says
# nothing.
_BRACKETED = re.compile(r"\[[^\]]*\]|\([^)]*\)")
# A placeholder marker copied from the instructions ("[n]"), and a sentence the model
# wrapped in brackets ("[pypdf is now comparable with Tika, pypdfium2 and PyMuPDF] [n]"):
# three words or more in brackets are the model's text, not a label ("[the-file-name]").
_PLACEHOLDER = re.compile(r"\s*\[[nN]\]")
_WRAPPED = re.compile(r"\[([^\[\]\s]+(?:\s+[^\[\]\s]+){2,})\]")
# A clause that only points at the sentence's marker: "…is 102, which is [1].", "…,
# which is given in [1]." (held-out v62, v65, v70).
_POINTING_TAIL = re.compile(
    r"(?:,\s*|\s+)which\s+(?:is|are|was|were)(?:\s+(?:given|stated|shown|listed|written|found|"
    r"mentioned|said))?(?:\s+(?:in|on|by))?\s*[.!]?$",
    re.I,
)
# Where a passage stands, bracketed as the model copied it from the passage's header
# ("is [3][46,852–46,891]."): no part of the sentence.
_LOCATOR = re.compile(r"\s*\[[\d\s,.–-]+\]")
# A question the model copied from a passage ("特拉斯这45天干了啥？", a headline): it asks,
# it does not answer, unless what is asked for is a question or a heading ("Which FAQ
# entry covers tox?" is answered by "Is tox supported?").
_ASKING = re.compile(r"[?？]\s*$")
_ASKS_FOR_WORDING = re.compile(
    r"\b(?:question|entry|entries|heading|headings|title|titles|headline|faq|section)\b"
    r"|问题|标题|题目",
    re.IGNORECASE,
)
# A label in brackets ("[project]", a TOML table's; one or two words).
_LABEL = re.compile(r"\s*\[[^\[\]\s]+(?:\s+[^\[\]\s]+)?\]")
# Text in double quotes (the question, when the model quotes it whole).
_QUOTED = re.compile(r"[\"“]([^\"“”]+)[\"”]")
# A question about a text's version in some language ("the Asturian version").
_ASKS_OF_VERSION = re.compile(r"\b(?:version|translation)\b", re.IGNORECASE)
# Two alternatives a question offers, each one word ("…, gasoline or diesel, …?").
_ALTERNATIVES = re.compile(r"\b([^\W\d_]+),? or ([^\W\d_]+)\s*[,?]")
# A quoted term and the gloss in parentheses right after it.
_GLOSS = re.compile(rf"({_QUOTED.pattern})\s*\([^()]*\)")
# Chinese characters that ask or join rather than name what a question is about.
_CJK_FUNCTION = frozenset("的是谁了吗呢吧啊在有和与及被把哪什么多少几个又也都该这那其之")
_CJK_PAIR = re.compile(f"{CJK_CHAR.pattern}{{2}}")


@dataclass(frozen=True)
class SentenceCheck:
    """One answer sentence and the passages (1-based) that support it."""

    text: str  # as the model wrote it, its markers included
    body: str  # without its [n] markers
    cited: tuple[int, ...]
    supporting: tuple[int, ...]  # best first
    #: Says something the question does not (not only "[1]", "This is stated in [1]."
    #: or the question's words again).
    claim: bool
    #: No passage supports it alone; the two :attr:`supporting` ones do together.
    joint: bool = False
    #: How much of it each of :attr:`supporting` holds (0..1), in the same order.
    scores: tuple[float, ...] = ()

    @property
    def supported(self) -> bool:
        """Whether some passage supports it (a sentence without a claim always is)."""
        return not self.claim or bool(self.supporting)

    @property
    def citations(self) -> tuple[int, ...]:
        """What to cite: the cited passages that support it, else the best supporting
        one (re-pointed), else nothing."""
        if not self.claim:
            return self.cited
        if self.joint:
            return self.supporting
        held = dict(zip(self.supporting, self.scores, strict=False))
        kept = [n for n in self.cited if n in held]
        # Of the cited passages that support it, those nearly as good as the best: a
        # passage that shares only half its words is no source beside one that says it.
        best = max((held[n] for n in kept), default=0.0)
        # Nor is one that holds a quarter less than a passage found that holds all of it:
        # "… skips installing any local directory path dependencies" is the FAQ's
        # sentence, not the command reference's "Skip all directory path dependencies"
        # (REPORT §10, session 34).
        if kept and self.scores[0] >= 1.0 and best <= 1.0 - CITE_MARGIN:
            kept = [n for n in self.supporting if held[n] >= 1.0]
            best = 1.0
        return tuple(n for n in kept if held[n] >= best - CITE_MARGIN) or self.supporting[:1]

    def shown(self) -> str:
        """The sentence with :attr:`citations` as its markers, in place of the model's."""
        pointing = _POINTING_TAIL.search(self.body)
        # As the model wrote it, unless it opens with a marker ("[1] Poetry uses…") or
        # ends in a clause that only points at its marker.
        if self.citations == self.cited and not _MARKER.match(self.text.lstrip()) and not pointing:
            return self.text.strip()
        body = self.body.rstrip()
        if pointing:  # "…is 102, which is [1]." is "…is 102. [1]"
            body = body[: pointing.start()].rstrip(" ,;:") + "."
        cites = "".join(f"[{n}]" for n in self.citations)
        if not cites:
            return body
        # "…calibre [1]." and "…calibre. [1]" both become "…calibre. [n]"
        return f"{body} {cites}"


def _writes(passage: str, spans: Sequence[str]) -> bool:
    """Whether ``passage`` writes each code span as the claim does, spaced or not
    ("`>= 2.0`" of ">=2.0"): a span's words being the question's are no proof."""
    text = "".join(passage.lower().split())
    return all("".join(span.lower().split()) in text for span in spans)


def _unwrapped(sentence: str) -> str:
    """``sentence`` without placeholder markers and without brackets around the whole of
    it (see ``_WRAPPED``)."""
    text = _PLACEHOLDER.sub("", sentence)
    whole = _WRAPPED.fullmatch(_MARKER.sub("", text).strip())
    return text.replace(whole.group(0), whole.group(1), 1) if whole else text


def _without_question(body: str, question: str) -> str:
    """``body`` without the question quoted in it whole ("The answer to the question
    "According to … reimbursed? " is 12 consecutive hours."): what it claims is the rest."""
    asked = " ".join(question.split()).lower()

    def drop(quoted: re.Match[str]) -> str:
        return " " if " ".join(quoted.group(1).split()).lower() == asked else quoted.group(0)

    return _QUOTED.sub(drop, body)


def _body(sentence: str) -> tuple[str, tuple[int, ...]]:
    cited: list[int] = []
    for match in _MARKER.finditer(sentence):
        for n in re.findall(r"\d+", match.group(1)):
            if int(n) not in cited:
                cited.append(int(n))
    body = _MARKER.sub("", sentence).strip()
    return body, tuple(cited)


def check_sentence(
    question: str,
    sentence: str,
    passages: Sequence[str],
    *,
    min_coverage: float = MIN_COVERAGE,
) -> SentenceCheck:
    """Which of ``passages`` (numbered from 1) support ``sentence``, best first; when
    none does alone, the two that support it together (see :attr:`SentenceCheck.joint`)."""
    sentence = _unwrapped(sentence)
    body, cited = _body(sentence)
    claimed = _PASSAGE_NUMBER.sub(" ", _without_question(body, question))
    quoted = _quoted_words(claimed, question)
    # A quoted word's gloss ("hermaniblemente" (in a spirit of brotherhood)), asked of a
    # text in another language, is the answer's translation of a word the passage holds
    # in that language: not words the passage must hold (REPORT §10, session 34). The
    # quoted word must stand as written.
    foreign = bool(language_names(question) or _ASKS_OF_VERSION.search(question))
    words = set(terms(_without_glosses(claimed, quoted) if foreign else claimed)) - _META
    # A date in numbers is checked whole (dates.py), not as three numbers.
    numbers = set(stated_numbers(as_quantities(without_dates(claimed)), words=True))
    # A single letter of the question is too short to check as a name: "the C compiler",
    # echoed, is no name a passage writing `"CC": "gcc"` must state (its words still
    # count). One the question lacks still is ("C站" for the passage's "B站").
    asked_names = names_in(question)
    names = [n for n in (*names_in(claimed), *quoted) if len(n.strip()) > 1 or n not in asked_names]
    question_terms = set(terms(question))
    question_numbers = set(stated_numbers(question, words=True))
    # A number the question and the claim both write only as a word is part of what was
    # asked, told around the answer: "… they call him "little falcon" in the regiment when
    # the two first talk" need not be said by the passage that names him (held-out v65).
    digits = {*stated_numbers(question), *stated_numbers(claimed)}
    numbers -= (numbers & question_numbers) - digits
    added = _added(words, question_terms)
    new_numbers = numbers - question_numbers
    # An option the question does not write is an answer of its own, though its word
    # is the question's ("`--readme`" to "Which option … sets the extension of the
    # README file …"; REPORT §10, session 32).
    options = options_in(claimed) - options_in(question)
    # So is a code span the question does not write: "`system-git-client`" to "which
    # setting … to use the system git client?" (REPORT §10, session 37).
    spans = [span for span in _CODE_SPAN.findall(claimed) if span.lower() not in question.lower()]
    unbracketed = _BRACKETED.sub("", claimed)
    if (
        (not added and not new_numbers and not options and not spans)
        or not unbracketed.strip(" .,:;")
        or _LIST_NUMBER.fullmatch(unbracketed.strip())
        or (_ASKING.search(unbracketed) and not _ASKS_FOR_WORDING.search(question))
        or (
            cut_short(_without_labels(_LOCATOR.sub("", claimed), passages))
            and not _says_more(question, unbracketed, question_numbers)
        )
    ):
        # Nothing beyond the question's own words and numbers ("The default directory is
        # [4].", "2022年百花奖最佳影片奖 [1]"), a bracketed label ("[the-file-name]"), a
        # list's number with nothing after it ("1. [1]"), a question copied from a
        # passage ("特拉斯这45天干了啥？[4]"), or a label and a sentence cut
        # short where the answer should stand ("[exiledkingcc] is [1]."): it answers
        # nothing, whatever it cites.
        return SentenceCheck(sentence, body, cited, (), claim=False)
    # The document the question names ("In the DPR paper, …", "The Poetry FAQ suggests
    # …"), echoed by the answer, need not stand in the passage: a paper seldom names
    # itself. Any other name the question states still does ("the 1998 FIFA World Cup").
    evidence = [
        passage_evidence(asked_rows(question, asked_records(question, passage)))
        for passage in passages
    ]
    titles = document_names(question)
    tools = _tools(question, evidence)
    # What the question quotes as speaking, when a passage found names it: the passage
    # that says it seldom does ("we suggest …" of the National Weather Service's article).
    voices = {n for n in speaker_names(question) if _named_in_any(n, evidence)}
    # So is the language the question names ("the German name …" of a German passage),
    # unless a passage found names it: then the claim's must ("Swahili" labels the
    # Swahili text of the declaration; the Chamorro text beside it does not say it).
    languages = {n for n in language_names(question) if not _named_in_any(n, evidence)}
    unheld = titles | tools | asked_for_codes(question) | voices | languages
    names = [n for n in _parted(names, question, evidence) if n not in unheld]
    # So is the number in where the question says to look ("… according to the cover
    # page of its 10-K").
    numbers -= set(stated_numbers(source_of(question), words=True))
    # A name the question states, possessive and all ("Ilagin's Erza" is " ilagin erza "
    # as a name, " ilagin s erza " in the folded question).
    asked = [name for name in names if name in fold(question) or name in asked_names]
    asking = question_terms - _META
    # An answer without the question's words ("Mathieu Fenniak [4]") claims the whole
    # question of it: its passage must be about the question too (not about where the
    # question says to look: "Nevada [2]" to "In which state is Galaxy Gaming
    # incorporated, according to the cover page of its 10-K?"). So must a longer one,
    # or a sentence true of an unrelated passage answers anything ("The standing trustee
    # is the presiding officer at the meeting of creditors. [5]" to "Who designed the
    # Eiffel Tower?").
    # So must one that repeats only the name of the document the question names: the
    # front matter of the Understanding Breast Cancer booklet ("First published May
    # 2006.") says nothing of what the booklet calls knowing what is normal for your
    # breasts (REPORT §10, session 34).
    about = None
    title_words = set(terms(" ".join(titles)))
    if not words & asking:
        about = _about(set(terms(without_source(question))) - _META or asking)
    elif not words & asking - title_words:
        about = _about(set(terms(without_source(question))) - _META - title_words or asking)
    # A claim that adds only common words ("The fastest land animal is the horse.") is
    # held by a sentence of a passage that says them beside a word of the question: a
    # passage with "horse", "land" and "animal" in three sentences of a battle does not
    # say what the fastest land animal is. A new number or name is a fact of its own,
    # checked as it is (and the passage may be in another language). Not when the
    # question names a document: what it asks is then the document's subject, seldom
    # repeated beside the answer.
    # So is a new date, checked whole (a changelog's "2023-07-23" stands in the release's
    # heading, not beside the item the question names; REPORT §10, session 31).
    dates = frozenset(numeric_dates(claimed))
    new_dates = dates - frozenset(numeric_dates(question))
    plain = not (new_numbers or new_dates or titles or options) and all(n in asked for n in names)
    echo = frozenset(words & asking) if plain else None
    # What the claim's new numbers measure ("8.8 hours"), and what the question asks in.
    measured = {n: kinds for n, kinds in measures(claimed).items() if n in new_numbers}
    units = (measured, asked_kinds(question))
    # A name of the question the claim echoes ("after the fires of Moscow") may be held
    # by another passage found: the question's setting is told around the answer, seldom
    # beside it (the passage that names Davout does not name Moscow).
    setting = frozenset(n for n in asked if any(e.names(n, asked=True) for e in evidence))
    # The words the question points at its document with ("the geometry and topology
    # lecture notes"): a passage seldom names its own document.
    pointing = set(terms(" ".join([*titles, *document_words(question)])))
    claim = Claim(
        words,
        added,
        numbers,
        names,
        asked,
        min_coverage,
        about,
        echo,
        units,
        dates,
        setting,
        frozenset(quoted),
        frozenset(numbers & question_numbers),
        frozenset(t for t in words & asking - pointing if len(t) > 1),
        frozenset(day_numbers(claimed) | ordinal_numbers(claimed)),
        options,
        _picked(question, words),
    )
    ranked = sorted(
        (
            (score, n)
            for n, e in enumerate(evidence, start=1)
            if (not spans or _writes(passages[n - 1], spans)) and (score := claim.held_by(e))
        ),
        key=lambda x: (-x[0], x[1]),
    )
    if ranked:
        supporting, scores = tuple(n for _, n in ranked), tuple(score for score, _ in ranked)
        return SentenceCheck(sentence, body, cited, supporting, claim=True, scores=scores)
    pair = best_pair(claim, evidence, cited) if not spans else ()
    return SentenceCheck(sentence, body, cited, pair, claim=True, joint=bool(pair))


def _parted(names: list[str], question: str, evidence: Sequence[Evidence]) -> list[str]:
    """``names`` (folded), each that no passage found states and that opens with a name
    of ``question`` and goes on with words it lacks split there: "…slept beside Karataev
    Azor." names Karataev, asked, and Azor, the answer. So is one that ends in a name of
    the question after words it lacks: "above the Prechistenka Boulevard Pierre sees the
    comet" names the boulevard and Pierre (REPORT §10, session 32). A name a passage
    states whole stays one ("Baz Qux" is no "Baz" of the question's "Foo, Bar and Baz"),
    and so does one opening with a word the question writes in lower case ("Marshal
    Davout" to "which French marshal …")."""
    asked = set(names_in(question))
    question = fold(question)
    parted: list[str] = []
    for name in names:
        words = name.split()
        cut = _cut(words, asked, question)
        if name in question or cut is None or any(named(name, e.folded) for e in evidence):
            parted.append(name)
        else:
            parted += [f" {' '.join(words[:cut])} ", f" {' '.join(words[cut:])} "]
    return parted


def _cut(words: list[str], asked: set[str], question: str) -> int | None:
    """Where the name of ``words`` runs from a name the question asks into a word the
    (folded) ``question`` lacks ("karataev azor"), or else from words it lacks into a
    name it asks ("prechistenka boulevard pierre"); None if it does neither."""
    for i in range(len(words) - 1, 0, -1):
        if f" {' '.join(words[:i])} " in asked and f" {words[i]} " not in question:
            return i
    for i in range(1, len(words)):
        if f" {' '.join(words[i:])} " in asked and f" {' '.join(words[:i])} " not in question:
            return i
    return None


#: The most words a quoted term of an answer has ("mõistus", "järki ja omatunto").
_TERM_WORDS = 3


def _quoted_words(claimed: str, question: str) -> list[str]:
    """The short terms ``claimed`` quotes that the question does not, folded: a word of
    a document the answer names ("The Estonian version uses the word "mõistus" [1]"), as
    a name, which the passage must hold as written."""
    asked = fold(question)
    found = []
    for match in _QUOTED.finditer(claimed):
        term = fold(match.group(1))
        if term.strip() and len(term.split()) <= _TERM_WORDS and term not in asked:
            found.append(term)
    return found


def _picked(question: str, words: AbstractSet[str]) -> frozenset[str]:
    """Of two alternatives ``question`` offers ("…, gasoline or diesel, …?"), the terms
    of the one the claim's ``words`` hold when they hold only one."""
    for first, second in _ALTERNATIVES.findall(question):
        one, other = frozenset(terms(first)), frozenset(terms(second))
        if one and other and bool(one & words) != bool(other & words):
            return one if one & words else other
    return frozenset()


def _without_glosses(claimed: str, quoted: Sequence[str]) -> str:
    """``claimed`` without the parenthesised glosses that follow the ``quoted`` terms."""

    def drop(glossed: re.Match[str]) -> str:
        return glossed.group(1) if fold(glossed.group(2)) in quoted else glossed.group(0)

    return _GLOSS.sub(drop, claimed)


def _tools(question: str, evidence: Sequence[Evidence]) -> set[str]:
    """The words the question writes in lower case, as a command or a package is
    written ("poetry self update", "pypdf's extract_text"), that a passage given holds
    too, folded: a tool's own documentation seldom repeats its name beside the answer
    ("*Introduced in 2.1.0*" under "## python" is Poetry's), so an answer that names
    the tool ("Poetry 2.1.0") need not find it there. A person or a club is written with
    capitals ("Iwan Roberts") and stays a name the passage must hold."""
    held = " ".join(e.folded for e in evidence)
    words = re.findall(r"(?<![\w.-])[a-z][a-z0-9]+(?![\w-])", question)
    return {name for word in words if (name := f" {word} ") in held}


# A sentence that ends where its complement should follow: "The author is [1].", "It was
# published by [2]." ("Yes, it is." ends on a pronoun's verb: a whole answer).
_CUT_SHORT = re.compile(
    r"(?<!\bit )(?<!\bthis )(?<!\bthat )(?<!\bthey )(?<!\bhe )(?<!\bshe )(?<!\bthere )"
    r"\b(?:is|are|was|were|be|been|the|a|an|of|by|to|in|at|for|with|from|as|and|or)"
    r"[\s.,:;]*$",
    re.IGNORECASE,
)


def cut_short(text: str) -> bool:
    """Whether ``text`` (an English sentence) stops before its last words' complement."""
    return bool(_CUT_SHORT.search(text.strip()))


# Where a clause after a comma opens that leaves the one before it whole: "…, which is".
_CLAUSE_AFTER = re.compile(
    r"(?:which|who|whom|whose|that|where|when|while|and|but|or|so)\b", re.IGNORECASE
)


def _without_labels(text: str, passages: Sequence[str]) -> str:
    """``text`` without the labels in brackets that a passage writes so ("[project]", a
    TOML table's): a sentence that ends on one stops where its answer should stand ("…
    is [project][1]."). A word in brackets no passage writes is the model's answer ("is
    [LHR]")."""
    return _LABEL.sub(
        lambda m: "" if any(m.group(0).strip() in p for p in passages) else m.group(0), text
    )


def _says_more(question: str, text: str, question_numbers: set[str]) -> bool:
    """Whether ``text`` has a number or a name of its own beyond the question's ("the
    Niger River" in "The longest river in Africa is the Niger River, which is [3]."); a
    common word does not do ("The data directory used by Poetry … is. [2]"), nor a name
    in a phrase before the clause that is cut ("In Seoul Korea, the address of Hyundai
    Merchant Marine is. [1]")."""
    *before, last = re.split(r"[,;:]\s+", text.strip())
    if before and not _CLAUSE_AFTER.match(last):
        return False
    if set(stated_numbers(text, words=True)) - question_numbers:
        return True
    return bool(new_names(question, text))


# A verb's endings: "covered" repeats the question's "cover", "stated" its "states".
_INFLECTION = re.compile(r"(?<=\w{3})(?:ing|ed|d)$")


def _added(words: AbstractSet[str], question: AbstractSet[str]) -> set[str]:
    """The ``words`` that the question's terms do not already say, a verb's ending aside
    ("The fiscal year covered by the report is [4]." to "Which fiscal year does the
    report cover?" adds nothing)."""
    roots = {_root(word) for word in question}
    return {w for w in words if _root(w) not in roots}


def _root(word: str) -> str:
    """``word`` without a verb's ending, nor the "e" a stem may end with: "evaluated",
    "evaluate" and "evaluating" are all "evaluat"."""
    root = _INFLECTION.sub("", word)
    return root[:-1] if len(root) > 3 and root.endswith("e") else root


def _about(asking: AbstractSet[str]) -> frozenset[str]:
    """What a passage must be about to support a bare answer to a question of the terms
    ``asking``: those terms, without the Chinese pairs that hold a function character
    ("的妻", "是谁" of "演员吴京的妻子是谁？"; the passage says "妻子为节目主持人谢楠")."""
    content = {t for t in asking if not (_CJK_PAIR.fullmatch(t) and set(t) & _CJK_FUNCTION)}
    return frozenset(content or asking)


def new_names(question: str, text: str, proper: AbstractSet[str] = frozenset()) -> list[str]:
    """The names ``text`` states (folded) with a word the question does not have: "Lt.
    Hammond" to "Who was the colonel of the 20th Ohio?", not "THE SIEGE OF VICKSBURG"
    to "…according to the Vicksburg siege diary?". ``proper``: see ``names_in``."""
    asked = set(fold(question).split())
    named = names_in(_MARKER.sub("", text), proper)
    return [name for name in named if not set(name.split()) <= asked]


def _named_in_any(name: str, evidence: Sequence[Evidence]) -> bool:
    return any(named(name, e.folded) for e in evidence)
