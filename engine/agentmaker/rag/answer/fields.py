"""What a question asks of a record it names: one of the record's fields, or none.

A sheet's row or a JSON entry is named by the value of its first field ("How many
hours of sunshine did Seattle get on 2014/06/21?" names the row "date: 2014/06/21;
precipitation: 0.0; temp_max: 27.8; temp_min: 12.8; wind: 2.6; weather: sun"). When
no field of the named record is what the question asks for (sunshine, the snow's depth,
a car's wheelbase), the documents do not say it: shown the row, a small model answered
from whatever field stood there ("The wheelbase of the datsun b-210 is 1990 lbs", its
weight; REPORT §10, session 23). :func:`unasked_fields` finds such a question before the
model is asked. A field is asked for by its name's words or their beginnings
("temp_max" by "maximum temperature", "Weight_in_lbs" by "weigh") or by a few common
words for it (:data:`_SAME`: "town" for "city"); not when the word before it says it
is another kind ("soil temperature", "maximum wind gust", "valves per cylinder").
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from agentmaker.rag.answer.names import CJK_CHAR, fold, without_source
from agentmaker.rag.answer.records import NUMBERED, RECORD, names_record, record_spans
from agentmaker.rag.answer.sentences import terms, whole_decimals

__all__ = [
    "asks_a_field",
    "field_values",
    "gives_another_field",
    "holds_asked_value",
    "named_by_value",
    "stands_for",
    "unasked_fields",
]

# A field's name and its value: "temp_max: 27.8" (a sheet's row, "; " between fields)
# or "Weight_in_lbs: 3140" (a JSON entry, one a line).
_FIELD = re.compile(r"(?:^|; |\n)([A-Za-z][\w ()/-]{0,40}?): ([^;\n]*)")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
# The shortest beginning of a word that stands for it ("temp" of "temperature").
_PREFIX = 3
# Words a question asks with about nothing of a record in particular.
_GENERIC = frozenset(terms("data dataset record value entry row list sheet table file say give"))
# Common words for what a field holds, beside its own name.
_SAME = {
    "town": ("city",),
    "village": ("city",),
    "where": ("city", "state", "country", "origin", "location", "place", "address"),
    "when": ("date", "year", "time"),
    "heavy": ("weight",),
    "rain": ("precipitation",),
    "rainfall": ("precipitation",),
    "mpg": ("miles",),
    "high": ("max",),
    "low": ("min",),
    # "the lowest temperature recorded on 2014/06/28" is the row's temp_min (held-out v70).
    "highest": ("max",),
    "lowest": ("min",),
    "model": ("name", "year"),  # a car's model, its model year
}
# Words of "how much", "how many" that ask for an amount, not a kind of field.
_HOW = frozenset(terms("much many"))


@dataclass(frozen=True)
class _Named:
    """The records ``question`` names in some passages, and what it asks of them."""

    #: Each named record's fields, name to value, in order.
    records: tuple[dict[str, str], ...]
    #: Whether text of the passages other than records names what they are named by.
    in_prose: bool
    #: The question's words that may ask for a field (not its values, nor "data").
    wanted: frozenset[str]
    #: The named records whose first value stands inside another named record's: the
    #: "peugeot 504" beside the "peugeot 504 (sw)" a question names.
    shadowed: tuple[dict[str, str], ...] = ()


def unasked_fields(question: str, passages: Sequence[str]) -> tuple[str, ...]:
    """The field names of the records ``question`` names (by their first value), when
    it asks for none of them and no text of ``passages`` but records names what the
    records are named by; else ()."""
    named = _named(question, passages)
    if named is None or named.in_prose or not named.wanted:
        return ()
    names = [name for record in named.records for name in record]
    fields = {word for name in names for word in terms(name, parts=True)}
    if any(_asks_for(word, fields) for word in named.wanted) and not _qualified_otherwise(
        question, names, named
    ):
        return ()
    return tuple(dict.fromkeys(names))


# A word that joins what a field is to what it is asked of: "valves per cylinder".
_PER = "per"


def _qualified_otherwise(question: str, names: list[str], named: _Named) -> bool:
    """Whether ``question`` asks for a field's kind that no field is: the word before the
    word that asks for a field ("soil temperature", "sea surface temperature", "maximum
    wind gust"), or before its "per" ("valves per cylinder"), says what is asked, and no
    part of that field's name says it (the row's temp_min is no soil temperature, its
    wind no gust; "maximum temperature" is temp_max). A proper name ("Seattle weather")
    or a value of the record says which record, not what of it."""
    words = re.findall(r"[A-Za-z][\w-]*", without_source(question))
    for at, word in enumerate(words):
        term = terms(word, parts=True)
        if not term or term[0] not in named.wanted:
            continue
        asked = [n for n in names if _asks_for(term[0], set(terms(n, parts=True)))]
        if not asked:
            continue
        before = at - 1
        if before >= 1 and words[before].lower() == _PER:
            before -= 1
        if before < 0 or words[before][0].isupper():
            continue
        qualifier = terms(words[before], parts=True)
        if not qualifier or qualifier[0] not in named.wanted or qualifier[0] in _HOW:
            continue
        if not any(_asks_for(qualifier[0], set(terms(n, parts=True))) for n in asked):
            return True
    return False


def field_values(question: str, passages: Sequence[str]) -> tuple[frozenset[str], frozenset[str]]:
    """The numbers that stand in the records ``question`` names under the fields it asks
    for, and those under their other fields only ("-3.2", the temp_min, and "5.6", the
    temp_max, … for "What was the minimum temperature in Seattle on 2015/01/01?") or in
    the records it names less of; the question's own numbers are neither. The fields
    asked for are those most of its words match (two, when the weather data's "weather"
    ties with "precipitation"); both sets are empty when none matches."""
    named = _named(question, passages)
    if named is None:
        return frozenset(), frozenset()
    scores = _field_scores(named)
    best = max(scores.values(), default=0)
    if not best:
        return frozenset(), frozenset()
    held: set[str] = set()
    others: set[str] = set()
    for record in named.records:
        for name, value in record.items():
            (held if scores[name] == best else others).update(_NUMBER.findall(value))
    # A record the question names less of is another one: the peugeot 504's weight is not
    # the peugeot 504 (sw)'s (REPORT §10, session 32).
    for record in named.shadowed:
        for value in record.values():
            others.update(_NUMBER.findall(value))
    own = set(_NUMBER.findall(question))
    return frozenset(held - own), frozenset(others - held - own)


def asks_a_field(question: str, passages: Sequence[str]) -> bool:
    """Whether ``question`` names a record of ``passages`` and asks for one of its fields
    ("Which town does the airports list give for … code B21?" of "iata: B21; …; city:
    Carrabasset"), whatever the field holds: a number or words."""
    named = _named(question, passages)
    return named is not None and any(_field_scores(named).values())


def holds_asked_value(question: str, passages: Sequence[str]) -> bool:
    """Whether a record of ``passages`` is named by a value (:func:`named_by_value`)."""
    return any(
        named_by_value(passage[start:end], question)
        for passage in passages
        for start, end in record_spans(passage, fewest=1)
    )


def named_by_value(record: str, question: str) -> bool:
    """Whether ``record`` holds a decimal ``question`` writes, under a field the question
    asks by ("On what day did 33.3 of precipitation fall?" of "date: 2014/05/03;
    precipitation: 33.3; …", not of "… temp_max: 33.3; …"): the question names that
    record by its value, not by its first one (held-out v71)."""
    values = set(whole_decimals(question))
    if not values or CJK_CHAR.search(question):
        return False
    wanted = _asking_words(question)
    return any(
        value.strip() in values and any(_asks_for(w, set(terms(name, parts=True))) for w in wanted)
        for name, value in _FIELD.findall(record)
    )


@functools.lru_cache(maxsize=256)
def _asking_words(question: str) -> frozenset[str]:
    """The words of ``question`` that may ask for a field: its terms (a snake_case
    word's parts too) and the common words for one (:data:`_SAME`). Asked once per
    record of every passage, derived once per question."""
    said = re.findall(r"[a-z]+", question.lower())
    return frozenset(
        {*terms(without_source(question), parts=True), *(w for w in said if w in _SAME)}
    )


def _field_scores(named: _Named) -> dict[str, int]:
    """Each field name of the named records: how many of the question's words ask for
    it."""
    scores: dict[str, int] = {}
    for record in named.records:
        for name in record:
            words = set(terms(name, parts=True))
            scores[name] = sum(_asks_for(word, words) for word in named.wanted)
    return scores


def gives_another_field(sentence: str, values: tuple[frozenset[str], frozenset[str]]) -> bool:
    """Whether ``sentence`` states a number of another field than the one asked for,
    and none of that one (``values``: :func:`field_values`)."""
    asked, others = values
    stated = set(_NUMBER.findall(sentence))
    return bool(stated & others) and not stated & asked


def _named(question: str, passages: Sequence[str]) -> _Named | None:
    """The numbered records of ``passages`` that ``question`` names by their first
    value; None when it names none (or is in Chinese: the fields' names are not)."""
    if CJK_CHAR.search(question):
        return None
    asked = fold(question)
    records: list[dict[str, str]] = []
    keys: list[str] = []  # the first values of the named records, folded
    prose: list[str] = []  # the passages' text outside their numbered records
    for passage in passages:
        at = 0
        for start, end in record_spans(passage, fewest=1):
            label = RECORD.match(passage, start)
            body = passage[label.end() : end] if label else ""
            if not (label and NUMBERED.fullmatch(label.group(0).strip()) and body.strip()):
                continue
            prose.append(passage[at:start])
            at = end
            if names_record(label.group(0), asked, body):
                fields = dict(_FIELD.findall(body))
                if fields:
                    records.append(fields)
                    keys.append(fold(next(iter(fields.values()))))
        prose.append(passage[at:])
    if not records:
        return None
    values = {word for record in records for value in record.values() for word in terms(value)}
    wanted = _asking_words(question)
    shadowed = [any(key != other and key in other for other in keys) for key in keys]
    return _Named(
        tuple(r for r, out in zip(records, shadowed, strict=True) if not out),
        # Prose that names the record too may say what its fields do not.
        any(key in fold(text) for key in keys for text in prose),
        frozenset(wanted - _GENERIC - values),
        tuple(r for r, out in zip(records, shadowed, strict=True) if out),
    )


def _asks_for(word: str, fields: set[str]) -> bool:
    """Whether ``word`` of a question asks for one of the ``fields`` (their words)."""
    if any(name in fields for name in _SAME.get(word, ())):
        return True
    return any(stands_for(word, field) for field in fields)


def stands_for(word: str, field: str) -> bool:
    """Whether ``word`` is a word of a field's name ``field`` or its beginning, or
    begins with it ("temperature" and "temp" of temp_max)."""
    return word == field or (
        min(len(word), len(field)) >= _PREFIX
        and "_" not in word + field  # "temp_min" is no "temp_max"
        and (word.startswith(field) or field.startswith(word))
    )
