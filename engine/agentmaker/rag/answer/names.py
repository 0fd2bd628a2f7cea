"""Names in answers, questions and passages, and how they are matched.

A name is a run of capitalised words ("FIFA World Cup", "Sistine Chapel", allowing
"of"/"the"/"de" inside), an ALL-CAPS, ``snake_case`` or CamelCase word
("SHELL_VERBOSITY"), a dotted name ("installer.max-workers") or a command-line option
("--offline"). Names are compared folded (:func:`fold`: case, accents and punctuation
away), one more word may stand inside a name ("Iwan Roberts" is "Iwan Wyn Roberts") and
a word that tables write short may stand short ("William R Fairchild Intl"). A question
may name a document rather than what it asks about ("In the DPR paper, …", "…, according
to the cover page of its 10-K?"): :func:`document_names`; who speaks in it ("what does
the National Weather Service suggest …"): :func:`speaker_names`; or qualify what it asks
for with an acronym ("What is the ZIP code of …"): :func:`asked_for_codes`.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet

__all__ = [
    "CJK_CHAR",
    "IDENTIFIER",
    "asked_for_codes",
    "document_names",
    "document_words",
    "fold",
    "in_blocks",
    "language_names",
    "named",
    "names_in",
    "options_in",
    "proper_words",
    "source_of",
    "speaker_names",
    "unmatched_identifiers",
    "without_file_names",
    "without_source",
]

#: A Chinese character.
CJK_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
# A letter of the scripts written without spaces between words or in syllable blocks
# (Chinese, Japanese, Korean, its syllables folded to their letters too), and any letter.
_BLOCK_LETTER = re.compile(
    r"[\u1100-\u11ff\u3130-\u318f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]"
)
_LETTER = re.compile(r"[^\W\d_]")


def in_blocks(text: str) -> bool:
    """Whether most letters of ``text`` are Chinese, Japanese or Korean."""
    return len(_BLOCK_LETTER.findall(text)) * 2 > len(_LETTER.findall(text))


# A name: capitalised words in a row ("Sala Baker", "Bankruptcy Reform Act"), allowing
# "of"/"the"/"de" inside; or a single ALL-CAPS / snake_case / CamelCase word.
# A capitalised word ends where Chinese begins: "B站的月活跃用户" names "B" at most.
_CAP = rf"[A-Z](?:(?!{CJK_CHAR.pattern})[\w'’.-])*"
# Words for a document: "the DPR paper", "the Poetry FAQ", "the Vega dataset descriptions",
# "the DPR authors" (a paper says "we").
_DOCUMENT_WORDS = frozenset(
    re.findall(
        r"\w+",
        "paper faq faqs docs documentation notes diary article brochure report file document "
        "list page changelog manual handbook guide book descriptions description sheet "
        "spreadsheet slides deck email readme booklet leaflet pamphlet authors "
        # A file's format names the file: "the outline PDF", "the Word file's DOCX".
        "pdf docx doc xlsx xls pptx csv tsv json jsonl html epub odt ods rtf",
    )
)
# Where a question says where to look: "…, according to the cover page of its 10-K?".
_SOURCE = re.compile(r"\baccording to\b[^,?;]*", re.IGNORECASE)
# Joining words a name may hold inside but does not begin with.
_NAME_JOINERS = ("of", "the", "de", "von", "van", "da", "del")
# A name starts a word: the "OS" of "macOS" is none.
_NAME_RUN = re.compile(rf"(?<!\w){_CAP}(?:\s+(?:(?:{'|'.join(_NAME_JOINERS)})\s+)?{_CAP})*")
_POSSESSIVE = re.compile(r"['’]s$")
# Units named after people are no names a passage must hold: "21.7 degrees Celsius" is
# said by "temp_max: 21.7" (the number is still checked).
_UNITS = frozenset({" celsius ", " fahrenheit ", " kelvin "})
_CODE_WORD = re.compile(
    r"\b(?:[A-Z][A-Z0-9]{1,}|\w+_\w+|[a-z]+[A-Z]\w*)\b"
    # A dotted name (a setting, a method, a file: "installer.max-workers",
    # "TreeObject.insert_child", "pyproject.toml") or a command-line option ("--offline").
    r"|(?<![\w.-])[A-Za-z_]\w+(?:\.[A-Za-z_][\w-]+)+|(?<![\w-])--[a-z][\w-]+"
)
# A command-line option: "--offline".
_OPTION = re.compile(r"(?<![\w-])--[a-z][\w-]*\w")
#: What a user types only when they mean that very thing: a dotted name, a command-line
#: option, a snake_case word ("installer.timeout", "--offline", "POETRY_CACHE_DIR").
IDENTIFIER = re.compile(
    r"(?<![\w.-])[A-Za-z_][\w-]*\w(?:\.[A-Za-z_][\w-]*\w)+|" + _OPTION.pattern + r"|\b\w+_\w+\b"
)


def options_in(text: str) -> frozenset[str]:
    """The command-line options ``text`` writes, dashes and all, lowercased ("--readme"):
    folded, "--readme" is only the word "readme"."""
    return frozenset(m.group(0).lower() for m in _OPTION.finditer(text))


# Words that open a sentence with a capital and are no part of a name: "Through the PyPI
# JSON API, …" names "PyPI JSON API".
_STOP_START = frozenset(
    re.findall(
        r"\w+",
        "a an the this that these those it its in on at by for with from as to of and or "
        "but if when where what which who how yes no there here i we you they he she "
        "through after before during since until under over about into onto upon within "
        "without between among because although though while once then also both each "
        "every all some many most per via like unlike besides despite thus hence so",
    )
)


# A capitalised word after a word in lower case: inside a sentence ("of Balaga").
_INSIDE_CAPITALISED = re.compile(r"(?<=[a-z,;] )[A-Z][a-z]{2,}\b")
_LOWER_WORD = re.compile(r"\b[a-z]{3,}\b")


def fold(text: str) -> str:
    """Lowercase, accents and punctuation away, single spaces, each Chinese character a
    word of its own ("B站" in "在B站通过" is " b 站 "): for phrase matching."""
    decomposed = unicodedata.normalize("NFKD", text)
    plain = "".join(ch for ch in decomposed if not unicodedata.combining(ch)).lower()
    return " " + " ".join(re.findall(r"\w+", CJK_CHAR.sub(r" \g<0> ", plain))) + " "


def proper_words(texts: Iterable[str]) -> frozenset[str]:
    """The words ``texts`` write capitalised inside a sentence ("The shouting of Balaga")
    and never in lower case, lowercased: names, even where one opens a sentence."""
    capitalised: set[str] = set()
    lower: set[str] = set()
    for text in texts:
        capitalised.update(w.lower() for w in _INSIDE_CAPITALISED.findall(text))
        lower.update(_LOWER_WORD.findall(text))
    return frozenset(capitalised - lower - _STOP_START)


def _name_runs(body: str, proper: AbstractSet[str] = frozenset()) -> list[tuple[str, int]]:
    """The names ``body`` states (see the module docstring), as written, each with where
    it ends in ``body``; a word of ``proper`` (:func:`proper_words`) is one at its start
    too."""
    found: list[tuple[str, int]] = []
    for match in _NAME_RUN.finditer(body):
        # A possessive is not part of the name: "Poetry's setting" names "Poetry".
        words = [_POSSESSIVE.sub("", w) for w in match.group(0).split()]
        start = match.start()
        at_start = not body[:start].strip(" \"'“‘(")
        # A capitalised first word is only a name when a capitalised word follows it, or
        # when the passages write it capitalised inside sentences only ("Balaga is here.").
        single = len(words) == 1 and words[0].lower() not in proper
        if at_start and (single or words[0].lower() in _STOP_START):
            words = words[1:] if len(words) > 1 and words[0].lower() in _STOP_START else []
            while words and words[0] in _NAME_JOINERS:  # "Through the PyPI JSON API"
                words = words[1:]
        if words and not (len(words) == 1 and words[0].lower() in _STOP_START):
            found.append((" ".join(words), match.end()))
    found += [(match.group(0), match.end()) for match in _CODE_WORD.finditer(body)]
    return found


def names_in(body: str, proper: AbstractSet[str] = frozenset()) -> list[str]:
    """The names ``body`` states, folded (a word of ``proper`` opening it is one)."""
    found = [fold(name) for name, _ in _name_runs(body, proper)]
    return [n for n in found if n.strip() and n not in _UNITS]


# Words that end the words describing a document, read back from its word for a document
# ("the geometry and topology lecture notes", "the National Weather Service's spring
# safety article").
_PHRASE_BREAK = frozenset(
    re.findall(
        r"\w+",
        "the a an this that these those its their his her my your our of in on at to from by "
        "for with as into about is are was were be do does did according which what whose "
        "who how when where why",
    )
)


def document_words(question: str) -> frozenset[str]:
    """The words of ``question`` that describe a document it points at, lowercase:
    "geometry", "and", "topology", "lecture", "notes" of "Under which licence are the
    geometry and topology lecture notes published?"."""
    words = [w.strip('.,:;?!()"“”‘’`').lower() for w in question.split()]
    found: set[str] = set()
    for at, word in enumerate(words):
        if word not in _DOCUMENT_WORDS:
            continue
        back = at
        while back >= 0 and words[back] and words[back] not in _PHRASE_BREAK:
            found.add(words[back].removesuffix("'s").removesuffix("’s"))
            back -= 1
    return frozenset(found)


@functools.lru_cache(maxsize=256)
def document_names(question: str) -> frozenset[str]:
    """The names by which ``question`` points at a document, folded: " dpr " of "In the
    DPR paper", " poetry faq " and " faq " of "The Poetry FAQ suggests", " vega " of
    "the Vega dataset descriptions", " national weather service " of "The National
    Weather Service's spring safety article" (a name ending in, or followed within three
    words by, a word for a document), and any name of an "according to …" clause."""
    found: set[str] = set()
    sources = [m.span() for m in _SOURCE.finditer(question)]
    for name, end in _name_runs(question):
        after = [w.strip(".,:;?!()\"'“”‘’`").lower() for w in question[end:].split()[:3]]
        if any(w in _DOCUMENT_WORDS for w in [*name.lower().split()[-1:], *after]) or any(
            start < end <= stop for start, stop in sources
        ):
            found.add(fold(name))
    return frozenset(found)


@functools.lru_cache(maxsize=1024)
def _name_pattern(name: str) -> re.Pattern[str]:
    # One more word may stand inside a name: "Iwan Roberts" is "Iwan Wyn Roberts".
    return re.compile(" " + r"(?: \w+)? ".join(map(re.escape, name.split())) + " ")


_JOINED = re.compile(rf" (?:{'|'.join(_NAME_JOINERS)}) ")
# Words of names that lists and tables write short: "William R Fairchild Intl" is the
# model's "William R Fairchild International".
_SHORT = {
    "international": "intl",
    "national": "natl",
    "university": "univ",
    "department": "dept",
    "corporation": "corp",
    "incorporated": "inc",
    "company": "co",
    "limited": "ltd",
    "association": "assn",
    "mount": "mt",
    "fort": "ft",
    "brothers": "bros",
    "government": "govt",
    "suite": "ste",
    # As the airports list writes them ("Westchester Cty", "Sheridan County Muni").
    "county": "cty",
    "municipal": "muni",
    "memorial": "meml",
    "airport": "arpt",
}
_LONG = {short: word for word, short in _SHORT.items()}


def _other_spelling(name: str) -> str:
    """``name`` (folded) with its words written short, or long if they are short."""
    return " " + " ".join(_SHORT.get(w) or _LONG.get(w) or w for w in name.split()) + " "


def named(name: str, folded: str) -> bool:
    """Whether the folded ``name`` is in the ``folded`` text, allowing a middle word; a
    name joined by "of", "the", "von" … may stand as its parts, each in the text (the
    model's "Skript of Herrn Prof. Dr. Leuzinger" is a German passage's "Skript von
    Herrn Prof. Dr. Leuzinger")."""
    for spelling in dict.fromkeys((name, _other_spelling(name))):
        if spelling in folded or _name_pattern(spelling).search(folded):
            return True
    parts = _JOINED.split(name)
    return len(parts) > 1 and all(
        _name_pattern(f" {part.strip()} ").search(folded) for part in parts
    )


# What a question asks for, when it opens with it and an acronym qualifies it: "What is
# the ZIP code of …" asks for a code, which a passage gives without the word "ZIP".
_ASKS_FOR_CODE = re.compile(
    r"^\W*(?:[Ww]hat|[Ww]hich)\s+(?:(?:is|was|are|were)\s+)?(?:(?:the|its|his|her|their)\s+)?"
    r"([A-Z][A-Z0-9]+)\s+[a-z]"
)


def asked_for_codes(question: str) -> frozenset[str]:
    """The acronym (folded) qualifying what ``question`` asks for (" zip " of "What is
    the ZIP code of …"): an answer may repeat it though its passage does not."""
    match = _ASKS_FOR_CODE.match(question)
    return frozenset({fold(match.group(1))} if match else ())


# Verbs by which a question quotes whoever speaks in a document: "what does the National
# Weather Service suggest you check" (its article says "we suggest", "our infographics").
_SPEAKING = frozenset(
    re.findall(
        r"\w+",
        "say says said suggest suggests suggested recommend recommends recommended advise "
        "advises advised urge urges urged warn warns warned encourage encourages encouraged "
        "invite invites invited ask asks asked",
    )
)


# Languages a question names ("the German name", "the Breton version"): a passage seldom
# names the language it is written in.
_LANGUAGES = frozenset(
    re.findall(
        r"\w+",
        "english german french spanish italian portuguese dutch russian chinese japanese "
        "korean arabic latin greek hebrew breton welsh irish scottish norwegian swedish "
        "danish finnish icelandic faroese polish czech slovak hungarian romanian bulgarian "
        "ukrainian turkish persian hindi bengali vietnamese thai indonesian malay swahili "
        "luxembourgish catalan basque galician esperanto",
    )
)


def language_names(question: str) -> frozenset[str]:
    """The names (folded) of languages ``question`` writes: " german " of "what German
    name is given for GLn(K)?"."""
    return frozenset(n for n in names_in(question) if n.strip() in _LANGUAGES)


@functools.lru_cache(maxsize=256)
def speaker_names(question: str) -> frozenset[str]:
    """The names (folded) ``question`` quotes as speaking ("what does the National
    Weather Service suggest …"): a document seldom names its own voice beside what it
    says."""
    found: set[str] = set()
    for name, end in _name_runs(question):
        after = question[end:].split()[:1]
        if after and after[0].strip(".,:;?!").lower() in _SPEAKING:
            found.add(fold(name))
    return frozenset(found)


def without_source(question: str) -> str:
    """``question`` without its "according to …" clause, which says where to look, not
    what is asked."""
    return _SOURCE.sub(" ", question)


def source_of(question: str) -> str:
    """The "according to …" clauses of ``question`` ("according to the cover page of its
    10-K"), joined; "" when it has none."""
    return " ".join(m.group(0) for m in _SOURCE.finditer(question))


# An English word hyphened onto an identifier is no part of it: "a tool.poetry-only
# configuration" names tool.poetry.
_HYPHENED_WORD = re.compile(
    r"-(?:only|based|like|specific|style|compatible|free|aware|related|level|wide|"
    r"friendly|enabled|driven|powered|managed|defined)$",
    re.IGNORECASE,
)


# A document's file name: "In seattle-weather.csv the row for 2015/04/13 …" names where
# to look, and a sheet's rows never write their file's name (held-out v65).
_FILE_NAME = re.compile(
    r"\.(?:csv|tsv|pdf|md|markdown|txt|json|jsonl|docx?|xlsx?|pptx?|odt|ods|odp|html?"
    r"|epub|rtf|eml|msg|mbox)$",
    re.IGNORECASE,
)


def without_file_names(question: str) -> str:
    """``question`` without the documents' file names it writes ("seattle-weather.csv"):
    they say where to look, and a sheet's rows never write them."""
    return IDENTIFIER.sub(lambda m: " " if _FILE_NAME.search(m.group(0)) else m.group(0), question)


def unmatched_identifiers(question: str, passages: Sequence[str]) -> list[str]:
    """The identifiers ``question`` states ("installer.timeout", "--offline") that no
    passage holds as written (case aside): documents that never name the setting asked
    about do not answer it, however alike the rest of their words are. A document's file
    name is no such identifier."""
    texts = [passage.lower() for passage in passages]
    return [
        name
        for name in dict.fromkeys(m.group(0) for m in IDENTIFIER.finditer(question))
        if not _FILE_NAME.search(name)
        and not any(_HYPHENED_WORD.sub("", name).lower() in text for text in texts)
    ]
