"""A model's answer cut into its sentences, each with the ``[n]`` markers after it, as
it streams (:class:`SentenceSplitter`) or whole (:func:`split_answer`): each sentence is
checked on its own (support.py)."""

from __future__ import annotations

import re

from agentmaker.rag.answer.sentences import is_abbreviation

__all__ = ["SentenceSplitter", "split_answer"]

# A sentence: up to . ! ? followed by a space (not "1.4"), or a CJK stop, with the
# [n] markers right after it.
_END = re.compile(r"(?:[.!?]+[\"'”’)]*(?=\s|$|\[)|[。！？]+[”’」』）]*)((?:\s*\[[\d,\s]+\])*)")


# A small model caught in a loop writes the same words again and again, to its token
# limit ("[pypdf is now comparable …] [pypdf is now comparable …] …", REPORT §10, session
# 33): three words or more, three times running, are a loop.
_LOOP = re.compile(r"(?<!\S)((?:\S+\s+){3,60}?)\1{2,}")
_WORD = re.compile(r"[^\W\d_]{3}")

# A sentence ending in a full stop (its markers aside), and a word with what follows it.
_FULL_STOP = re.compile(r"\.[\"'”’)]*(?:\s*\[[\d,\s]+\])*\s*$")
_NEXT_WORD = re.compile(r"\S\s")


def _goes_on(text: str, end: re.Match[str]) -> bool:
    """Whether the end mark ``end`` found ends no sentence: lower case follows it, even
    after a stray quote (the question the model quotes: "… reimbursed? " is 12
    consecutive hours."), or a full stop closes an abbreviation or an initial ("11
    U.S.C. § 109, Fed. R. Bankr. P. 1007")."""
    if text[end.end() :].lstrip(" \"'”’").lstrip()[:1].islower():
        return True
    return end.group(0).rstrip("\"'”’)") == "." and is_abbreviation(text, end.start())


def split_answer(text: str) -> list[str]:
    """``text`` cut into sentences, each with the ``[n]`` markers that follow it."""
    out: list[str] = []
    start = 0
    for match in _END.finditer(text):
        if not match.group(1) and _goes_on(text, match):
            continue
        piece = text[start : match.end()]
        if piece.strip():
            out.append(piece)
        start = match.end()
    if text[start:].strip():
        out.append(text[start:])
    return out


class SentenceSplitter:
    """Cuts a streamed answer into whole sentences: :meth:`feed` returns the sentences
    completed so far (a sentence is complete once text other than its markers follows
    it), :meth:`flush` the rest."""

    def __init__(self) -> None:
        self._held = ""
        #: The answer ran into a loop: what follows its first round is dropped, and
        #: the model may be stopped.
        self.looping = False

    def feed(self, piece: str) -> list[str]:
        """The sentences ``piece`` completes."""
        if self.looping:
            return []
        self._held += piece
        loop = _LOOP.search(self._held)
        if loop and _WORD.search(loop.group(1)):
            self._held = self._held[: loop.start()] + loop.group(1).rstrip()
            self.looping = True
            return []
        parts = split_answer(self._held)
        if len(parts) <= 1:
            return []
        done, last = parts[:-1], parts[-1]
        # The last part may be the markers of the sentence before it, still arriving; or,
        # after a full stop, the first word after it, which may show the stop ended no
        # sentence ("… at 10 A. M.": an initial's dot is known by the "M." after it).
        if not last.strip() or last.lstrip().startswith("["):
            return []
        if _FULL_STOP.search(done[-1]) and not _NEXT_WORD.search(last):
            return []
        self._held = last
        return done

    def flush(self) -> list[str]:
        """What is held once the answer has ended."""
        parts, self._held = split_answer(self._held), ""
        return parts
