"""The numbered item of a document a question names: "Definition 50", "Beispiel 9",
"Abbildung 4.23" of German lecture notes asked about in English.

Asked in one language about passages in another, a 1.5B model translates the passage's
words, misspells them ("Hausdungspunkt" for "Häufungspunkt") or answers around them; its
sentences are then supported by no passage, and the question's words, being English,
stand in no German sentence: the quote that takes the model's place holds too little of
the question to be offered. Yet the question names the item the answer stands in, by the
label the passage writes. That item, quoted from its label up to the next item, is what
the documents say about it, in their own words (REPORT §10, session 35).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["Item", "named_item"]

# Words that open a numbered item of a text, and the parts of a text that end one: a
# proof, the next item. English and German (lecture notes, papers, handbooks).
_KINDS = (
    "Definition|Beispiel|Bemerkung|Satz|Lemma|Korollar|Folgerung|Proposition|Theorem"
    "|Abbildung|Tabelle|Aufgabe|Übung|Beobachtung|Notation|Example|Remark|Corollary"
    "|Figure|Table|Exercise|Observation|Claim|Conjecture|Algorithm"
)
_LABEL = re.compile(rf"\b(?:{_KINDS})\s+\d+(?:\.\d+)*(?![.\d]*\d)")
# A kind's word alone is prose: "eine lineare Abbildung" (a map) ends no item.
_ITEM_END = re.compile(rf"\b(?:(?:{_KINDS})\s+\d|(?:Beweis|Proof)\b)")
_SEE = re.compile(r"\s+(?:siehe|see|vgl\.|cf\.)$", re.IGNORECASE)
#: The most characters of an item quoted: a definition or an example, not a chapter.
_ITEM_CHARS = 400
# Words of English prose that German, French or Dutch prose seldom writes.
_ENGLISH_WORDS = (
    "the of and is are to that for with this be as it from at or which was were not can if"
    " we each by its has have these those then there their"
)
_ENGLISH = frozenset(_ENGLISH_WORDS.split())
_WORD = re.compile(r"[^\W\d_]{2,}")
#: A passage of at least this many words is another language's when at most this share
#: of them are :data:`_ENGLISH` (English prose: a fifth and more; German notes: 2 %).
_MIN_WORDS, _MAX_ENGLISH = 12, 0.05


@dataclass(frozen=True)
class Item:
    """The item labelled ``label`` in passage ``number``: its ``text`` from the label
    on; ``opens`` when the label opens the item there, not when a sentence refers to
    it; ``whole`` when the next item or a proof ends it in the passage (else the
    passage may end inside it: "Proposition 5.1 … Dann gilt: a) n induziert …")."""

    number: int
    label: str
    text: str
    opens: bool = False
    whole: bool = False

    def quote(self) -> str:
        """The item as an answer, with its passage's marker."""
        return f"{self.text} [{self.number}]"


def _not_english(text: str) -> bool:
    """Whether ``text`` is prose of a language other than English (a few words of it say
    nothing)."""
    words = [w.lower() for w in _WORD.findall(text)]
    if len(words) < _MIN_WORDS:
        return False
    return sum(w in _ENGLISH for w in words) <= _MAX_ENGLISH * len(words)


def _item(number: int, passage: str, start: int, label: str) -> Item:
    """The item at ``start`` of ``passage``, numbered ``number``: up to the next item or
    proof, at most :data:`_ITEM_CHARS` long (cut after a sentence when it is longer)."""
    rest = passage[start + len(label) :]
    end = _ITEM_END.search(rest)
    body = " ".join((rest[: end.start()] if end else rest).split())
    if end:  # "… S = Torus. Siehe Abbildung 5.3": the reference to the next item goes too
        body = _SEE.sub("", body)
    whole = end is not None and len(body) <= _ITEM_CHARS
    if len(body) > _ITEM_CHARS:
        cut = body.rfind(". ", 0, _ITEM_CHARS)
        body = body[: cut + 1] if cut > 0 else body[:_ITEM_CHARS] + " …"
    text = f"{label}{'' if body[:1] in ':.,;)' else ' '}{body}".strip()
    return Item(number, label, text, _opens_item(passage, start), whole)


def _opens_item(passage: str, start: int) -> bool:
    """Whether the label at ``start`` of ``passage`` opens its item: it stands first, on
    a line of its own, or after a sentence; not inside one ("c) Wegen Proposition 5.1
    (a) ist …" refers to the item)."""
    before = passage[:start].rstrip(" \t")
    return not before or before.endswith(("\n", ".", ":", "!", "?", "…"))


def _part(question: str, label: str) -> str:
    """The part of the item ``label`` that ``question`` names, as the item marks it:
    "d)" of "Proposition 5.1 d)", "§4" of "the Bewegungsaxiom (§4 of Definition 60)";
    "" when it names none."""
    escaped = re.escape(label)
    lettered = re.search(rf"{escaped}\s?\(?([a-z]|[ivx]{{1,4}})\)", question)
    if lettered:
        return f"{lettered.group(1)})"
    section = re.search(rf"§\s?(\d+)\s+(?:of|in)\s+{escaped}|{escaped},?\s+§\s?(\d+)", question)
    return f"§{section.group(1) or section.group(2)}" if section else ""


def named_item(question: str, passages: Sequence[str]) -> Item | None:
    """The item the English ``question`` names by its label ("Definition 50") in a
    passage written in another language: where the label opens it rather than where a
    sentence refers to it, then the longest when passages repeat it; None when the
    question names no item, or no such passage holds one it names (opened, with the part
    the question names of it: "d)" of "Proposition 5.1 d)")."""
    if _not_english(question):
        return None
    labels = list(dict.fromkeys(m.group(0) for m in _LABEL.finditer(question)))
    foreign = [(n, p) for n, p in enumerate(passages, start=1) if labels and _not_english(p)]
    found: list[Item] = []
    for label in labels:
        pattern = re.compile(rf"\b{re.escape(label)}(?![.\d]*\d)")
        part = _part(question, label)
        for number, passage in foreign:
            for m in pattern.finditer(passage):
                item = _item(number, passage, m.start(), label)
                if not part or (item.opens and part in item.text):
                    found.append(item)
    return max(found, key=lambda item: (item.opens, len(item.text)), default=None)
