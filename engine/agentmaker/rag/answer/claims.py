"""What a sentence of an answer claims, and whether a passage holds it.

:func:`support.check_sentence` reads a sentence into a :class:`Claim` (its numbers,
names and words, and what of the question it repeats); :meth:`Claim.held_by` weighs one
passage's evidence (evidence.py) against it, and :func:`best_pair` finds two passages
that hold it together when none holds it alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass

from agentmaker.rag.answer.dates import Date
from agentmaker.rag.answer.evidence import Evidence
from agentmaker.rag.answer.fields import stands_for
from agentmaker.rag.answer.names import in_blocks, named
from agentmaker.rag.answer.sentences import terms
from agentmaker.rag.answer.units import unit_conflict

__all__ = ["Claim", "best_pair"]

#: The share of a claim's words (but the option's name) the line that writes its option
#: must hold. Of the option answers of r21 and v37–v58 the model's right ones held at
#: least 0.29 of them, its wrong one 0.12.
OPTION_SAID = 0.2


@dataclass(frozen=True)
class Claim:
    """What a sentence of an answer claims, as :func:`support.check_sentence` reads it."""

    words: set[str]
    added: set[str]
    numbers: set[str]
    names: list[str]
    asked: list[str]  # the names the question states too
    min_coverage: float
    #: The question's words, when the claim is a bare answer: a supporting passage
    #: must hold ``min_coverage`` of them too.
    about: frozenset[str] | None = None
    #: The question's words the claim repeats, when it adds no number or name of its
    #: own: then one sentence of a supporting passage must hold ``min_coverage`` of the
    #: words it adds, and one of these.
    echo: frozenset[str] | None = None
    #: What the claim's new numbers measure, and the kinds of unit the question asks in
    #: (units.py): "4 gray" is not held by "4–6 weeks", "8.8 hours" answers no question
    #: asked in gigabytes.
    units: tuple[dict[str, set[str]], set[str]] = ({}, set())
    #: The dates the claim writes in numbers ("2012/12/17"): each one fact, held only by
    #: a passage that writes that day (not by one with 2012, 12 and 17 in other dates).
    dates: frozenset[Date] = frozenset()
    #: The names of :attr:`asked` that some passage found holds.
    setting: frozenset[str] = frozenset()
    #: The terms of :attr:`names` the claim quotes (support.py, ``_quoted_words``).
    quoted: frozenset[str] = frozenset()
    #: The numbers of :attr:`numbers` the question states too ("In pypdf 6.0.0, …").
    echoed_numbers: frozenset[str] = frozenset()
    #: The question's words the claim repeats, but for the names of the document it
    #: points at: a passage that holds none of two or more is about something else.
    repeated: frozenset[str] = frozenset()
    #: The numbers the claim writes as a day beside a month's name ("May 15") or as an
    #: ordinal ("the 4th").
    days: frozenset[str] = frozenset()
    #: The command-line options the claim writes that the question does not ("--readme"
    #: to "Which option … sets the extension of the README file …"): each held only by a
    #: passage that writes it so (see :meth:`_options_fit`).
    options: frozenset[str] = frozenset()
    #: Of two alternatives the question offers ("gasoline or diesel"), the one the claim
    #: picks (its terms): held only by a passage that writes it (REPORT §10, session 34).
    picked: frozenset[str] = frozenset()

    def _options_fit(self, evidence: Evidence) -> bool:
        """Whether ``evidence`` writes each of the claim's options on a line that holds
        as many of the claim's words as any line of it that writes an option: "The
        `--latest` option shows the latest version only for the packages that have a
        newer release" is not said by "`--latest (-l)`: Show the latest version." below
        "`--outdated (-o)`: Show the latest version but only for packages that are
        outdated." (REPORT §10, session 32)."""
        counts = [len(self.words & line) for _, line in evidence.option_lines]
        best = max(counts, default=0)
        # And it says some of what the claim says beyond the option's name: "`--repository
        # (-r)`: The repository to register the package to (default: `pypi`)." does not say
        # that it "enables PyPI trusted publishing" (REPORT §10, session 33).
        said = self.words - set(terms(" ".join(self.options).replace("-", " ")))
        fit = {
            option
            for (options, line), count in zip(evidence.option_lines, counts, strict=True)
            if count == best and len(said & line) >= OPTION_SAID * len(said)
            for option in options
        }
        return self.options <= fit

    def _names_held(self, evidence: Evidence) -> bool:
        """Whether ``evidence`` states the claim's names: all of them, or its own new
        ones and as many of the question's as it lacks, those being held by other
        passages found (:attr:`setting`) or by none (a scene, see below). A name of the
        question counts as held only apart from the claim's own: "Baz Qux" (of the
        question's "Foo, Bar and Baz") is no author of the outline PDF."""
        missing = [n for n in self.names if not evidence.names(n, asked=n in self.asked)]
        if not missing:
            return True
        # A quoted word is no fact of the passage's own here: "Bröder" of the Low Saxon
        # text is no Scots word for brotherhood, whatever passage names the Scots one.
        own = [n for n in self.names if n not in self.asked and n not in self.quoted]
        own_words = set(" ".join(own).split())
        held = [n for n in self.asked if n not in missing and not set(n.split()) & own_words]
        # A name of the question no passage found writes ("on the field of Austerlitz")
        # may be the scene, told chapters earlier, when the passage names the question's
        # people as names beside the answer's own: "Prince Repnin named Lieutenant
        # Sukhtelen." A record's key ("iata: PRG") names no airport of the question's
        # "Toronto Pearson"; and a number is no name of the scene ("installer.timeout
        # … is 15 seconds" in Poetry's settings, which name no installer.timeout).
        unfound = set(missing) - self.setting
        if unfound and not (own and any(set(n.split()) <= evidence.capitalised for n in held)):
            return False
        return (
            bool(own or self.numbers)
            and set(missing) <= set(self.asked)
            and len(missing) <= len(held)
        )

    def held_by(self, evidence: Evidence) -> float:
        """The share of the claim's words ``evidence`` holds when it holds all of its
        numbers (with their units) and names and enough of its words, else 0."""
        if not self.numbers <= evidence.numbers:
            return 0.0
        if (self.numbers - self.days) & evidence.days_only:
            # "15 days of sick leave" is not held by "[Language modified May 15, 2023.]",
            # nor "4 varieties of barley" by "The Design of Experiments. 4th edition.".
            return 0.0
        if unit_conflict(self.units[0], self.units[1], evidence.measures):
            return 0.0
        if not self.dates <= evidence.dates or not self._options_fit(evidence):
            return 0.0
        if not self.picked <= evidence.terms:
            # "The plymouth satellite uses gasoline" is not said by its record, which
            # writes no fuel.
            return 0.0
        if not self._names_held(evidence):
            return 0.0
        if (
            len(self.repeated) >= 2
            and not _any_held(self.repeated, evidence.terms)
            # Not a passage in another script (a Korean brochure's, for an English
            # question): it would not write the question's words.
            and in_blocks(" ".join(self.repeated)) == in_blocks(evidence.folded)
        ):
            # "The geometry and topology lecture notes are published under the MIT
            # license" is not said by Poetry's list of licences, though it says MIT.
            return 0.0
        if self.about and _share(self.about, evidence.terms) < self.min_coverage:
            return 0.0
        if self.echo and not any(
            _share(self.added, held) >= self.min_coverage and self.echo & held
            for held in evidence.sentences
        ):
            return 0.0
        # Nothing the claim adds to the question is there (a number as the passage
        # writes it: "7" as "seven"): "The wind blew from the south in Seattle on
        # 2013/11/11" is not said by the day's row.
        if self.added and not (
            self.added & evidence.terms or self.added & self.numbers & evidence.numbers
        ):
            return 0.0
        coverage = max(
            _share(self.words, evidence.terms),
            _share(self.added, evidence.terms) if self.added else 0.0,
        )
        return coverage if coverage >= self.min_coverage else 0.0

    def part_of(self, evidence: Evidence) -> bool:
        """Whether ``evidence`` is about what was asked (holds every name the question
        states) and holds a number or a new name the claim states: a fact of its own,
        not only some of its words."""
        # In full: a pair pieces two passages together, so the surname alone does not do
        # ("Roberts signed for Norwich City in 2004" from his infobox and a passage on
        # his Gillingham debut).
        if not all(named(name, evidence.folded) for name in self.asked):
            return False
        # So is every number of the question it repeats: "In pypdf 6.0.0, mypy was
        # updated to 1.16.0" is not pieced from 6.0.0's section and 5.6.0's mypy update.
        if not self.echoed_numbers <= evidence.numbers:
            return False
        new_names = (name for name in self.names if name not in self.asked)
        return bool(self.numbers & evidence.numbers) or any(
            named(name, evidence.folded) for name in new_names
        )


def best_pair(
    claim: Claim, evidence: Sequence[Evidence], cited: tuple[int, ...]
) -> tuple[int, ...]:
    """Two passages that support the claim together ("born in Bangor [2] on 26 June
    1968 [1]", from a biography and its infobox), each holding a part of it and both
    about what was asked: every name of the question the claim states is in both (so
    "Iwan Roberts won the 1998 FIFA World Cup final" is not pieced together from his
    biography and a passage on the World Cup). A pair the model cited first, then the
    best covered; () when there is none."""
    best: tuple[bool, float] | None = None
    chosen: tuple[int, ...] = ()
    for a in range(len(evidence)):
        if not claim.part_of(evidence[a]):
            continue
        for b in range(a + 1, len(evidence)):
            if not claim.part_of(evidence[b]):
                continue
            score = claim.held_by(evidence[a] | evidence[b])
            key = (a + 1 in cited or b + 1 in cited, score)
            if score and (best is None or key > best):
                best, chosen = key, (a + 1, b + 1)
    return chosen


#: The letters a word must have to count as held by a compound it begins.
_COMPOUND_HEAD = 6


def _any_held(words: frozenset[str], held: frozenset[str]) -> bool:
    """Whether any of ``words`` is among the ``held`` terms, or a word of a field's name
    among them begins it or begins with it: a sheet's "temp_max" holds "maximum
    temperature"; or a long word begins a compound among them: German lecture notes'
    "Orthonormalbasis" and "Binormalenvektor" hold "orthonormal" and "binormal" (REPORT
    §10, session 31)."""
    if words & held:
        return True
    parts = {part for term in held if "_" in term for part in term.split("_") if len(part) >= 3}
    if any(stands_for(word, part) for word in words for part in parts):
        return True
    heads = [word for word in words if len(word) >= _COMPOUND_HEAD]
    return any(term.startswith(word) for word in heads for term in held if len(term) > len(word))


def _share(words: AbstractSet[str], held: AbstractSet[str]) -> float:
    return len(words & held) / len(words) if words else 1.0
