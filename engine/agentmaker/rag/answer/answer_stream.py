"""AnswerStream: an answer being produced from retrieved passages, piece by piece.

It retrieves, asks the model (or quotes the passages when there is none), and for the
built-in model shows only what the passages support: the checks of checked.py, the
model's own sentence gone on from where it only pointed ("… is [3]."), a second look at
the first passage alone, quotes the model confirms (confirm.py), or "the documents do
not seem to say".
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, Protocol

from agentmaker.errors import ModelError, ModelResponseError
from agentmaker.models.llm import ChatMessage, LLMClient
from agentmaker.rag.answer.answer_split import split_answer
from agentmaker.rag.answer.budget import fit_messages
from agentmaker.rag.answer.checked import (
    CONFIRMED_COVERAGE,
    QUOTE_COVERAGE,
    REFUSED_COVERAGE,
    CheckedAnswer,
    answer_when_unsupported,
    not_found_text,
    passages_answer_question,
)
from agentmaker.rag.answer.citations import (
    CitationFilter,
    cited_numbers,
    has_words,
    is_non_answer,
    passage_values,
    without_markers,
)
from agentmaker.rag.answer.confirm import answer_confirmed, quote_confirmed
from agentmaker.rag.answer.examples import examples_for
from agentmaker.rag.answer.extractive import TOP_PASSAGES, extractive_answer, with_heading
from agentmaker.rag.answer.fields import unasked_fields
from agentmaker.rag.answer.focus import focus_passages, record_labels, rows_only
from agentmaker.rag.answer.grounding import unsupported_numbers
from agentmaker.rag.answer.items import named_item
from agentmaker.rag.answer.listed import listed_entry
from agentmaker.rag.answer.prompting import NO_HITS_ANSWER, NO_SENTENCE_ANSWER, SourceRef
from agentmaker.rag.answer.quote_checks import quote_answers
from agentmaker.rag.answer.support import cut_short
from agentmaker.rag.answer.versions import Version, asked_version
from agentmaker.rag.chunking.located import focus_row
from agentmaker.retrieval.types import MetadataFilter, RetrievalResult

if TYPE_CHECKING:
    from agentmaker.retrieval.hybrid import HybridRetriever

_SCORE_KEYS = (
    "keyword_rank",
    "vector_rank",
    "rrf_score",
    "rerank_score",
    "ocr",
    "bm25",
    "vector_similarity",
    "record",
    "records",
    "location",
    "sheet",
    "row",
    "slide",
    "mail_from",
    "mail_to",
    "mail_date",
    "line",
    "window",
    "start_char",
    "end_char",
)


# Going on from the model's own "The default directory is": a value first, not "[4]"
# again (llama.cpp's GBNF); the rest of one line as it likes, its citation included.
_NOT_A_MARKER = r'root ::= " "? [^[ \n] [^\n]*'


class Answerer(Protocol):
    """What an answer stream needs of its retriever (a ``RagRetriever``)."""

    llm: LLMClient | None
    retriever: HybridRetriever
    system_prompt: str | None
    check_answers: bool
    second_look: bool
    confirm_quotes: bool

    async def aretrieve(
        self,
        query: str,
        top_k: int | None = None,
        filters: Sequence[MetadataFilter] | None = None,
    ) -> list[RetrievalResult]: ...


def source_refs(hits: Sequence[RetrievalResult], question: str = "") -> list[SourceRef]:
    """The retrieved ``hits`` as numbered passages (1..n, in rank order), with their
    location and the scores that explain them; a sheet's passage of several rows cites
    the row that bears on ``question``."""
    refs = []
    for n, hit in enumerate(hits, start=1):
        meta = hit.metadata
        records = meta.get("records")
        if meta.get("sheet") and isinstance(records, list) and records[0] != records[-1]:
            row = focus_row(hit.content, question)  # cite the row, not "rows 2-40"
            if row is not None:
                meta["row"] = row
                meta["location"] = f"Sheet '{meta['sheet']}', row {row}"
        refs.append(
            SourceRef(
                n=n,
                content=hit.content,
                heading_path=str(meta.get("heading_path") or ""),
                doc_id=str(meta.get("doc_id") or ""),
                chunk_id=str(meta.get("chunk_id") or hit.id),
                title=str(meta.get("title") or ""),
                source=hit.source,
                page=meta.get("page"),
                page_label=meta.get("page_label"),
                metadata={k: meta[k] for k in _SCORE_KEYS if k in meta},
            )
        )
    return refs


async def _close(stream: object) -> None:
    """Close a model's stream (an async generator or anything with ``aclose``)."""
    aclose = getattr(stream, "aclose", None)
    if aclose is not None:
        await aclose()


class TextStream:
    """Text produced piece by piece: async-iterate it; ``answer`` holds what came so far,
    ``aclose()`` stops it. Subclasses set ``self._gen`` to their producing generator."""

    answer: str
    _gen: AsyncGenerator[str, None]

    def __aiter__(self) -> TextStream:
        return self

    async def __anext__(self) -> str:
        piece = await self._gen.__anext__()
        self.answer += piece
        return piece

    async def aclose(self) -> None:
        """Stop producing (the model's stream is closed; what was written stays)."""
        await self._gen.aclose()


class AnswerStream(TextStream):
    """An answer being produced: async-iterate it for text pieces; ``aclose()`` stops it."""

    def __init__(
        self,
        rag: Answerer,
        question: str,
        top_k: int | None,
        filters: Sequence[MetadataFilter] | None,
        *,
        history: Sequence[ChatMessage] = (),
        query: str | None = None,
    ) -> None:
        self.question = question
        #: What is searched (and what an extractive answer matches sentences against).
        self.query = query or question
        self.history = list(history)
        self.sources: list[SourceRef] = []
        self.extractive = rag.llm is None
        self.abstained = False  # the model said the passages do not answer it
        self.error = ""  # the model's failure, when an extractive answer replaced it
        #: Numbers in the model's answer that no passage holds (see grounding.py).
        self.unsupported: list[str] = []
        #: Why the answer is not (only) the model's text: "not_found" (no passage was
        #: close enough; the model was not asked), "no_field" (the question names a
        #: sheet's row or a data entry and asks for none of its fields; the model was
        #: not asked), "unsupported" (no passage says what the model wrote),
        #: "quoted_unsupported" / "quoted_not_answered" (the passages are quoted instead
        #: of an unsupported answer / of "I don't know"), "quoted_version" (the version of
        #: a text whose words are asked is quoted whole), "quoted_listed" (a list's entry
        #: asked for by its place is quoted; the model was not asked), "withheld" (sentences no
        #: passage says were left out), "second_look" (the answer is the model's second
        #: reading, of the first passage alone), "went_on" (it went on from its own
        #: sentence that only pointed), or "".
        self.note = ""
        #: The fields of the sheet's rows (data entries) the question names, when it asks
        #: for none of them (note "no_field").
        self.columns: tuple[str, ...] = ()
        #: The model's text when it was not shown as the answer (an unsupported draft).
        self.draft = ""
        #: The model's sentences left out because no passage says them.
        self.withheld: list[str] = []
        self.answer = ""
        #: The version of a text whose words the question asks (versions.py).
        self._version: Version | None = None
        self._rag = rag
        self._top_k = top_k
        self._filters = filters
        self._gen = self._produce()

    async def _produce(self) -> AsyncGenerator[str, None]:
        rag = self._rag
        hits = await rag.aretrieve(self.query, top_k=self._top_k, filters=self._filters)
        self.sources = source_refs(hits, self.query)
        if not hits:
            yield NO_HITS_ANSWER
            return
        if rag.llm is None:
            yield self._quote()
            return
        llm = rag.llm
        checks = bool(getattr(llm, "checks_answers", False)) and rag.check_answers
        # Matched with their heading ("Version 5.0.0, 2024-09-15 > Security"), as shown.
        passages = [f"{s.heading_path}\n{s.content}" for s in self.sources]
        contents = [s.content for s in self.sources]
        similarities = [s.metadata.get("vector_similarity") for s in self.sources]
        # "Close by meaning" is the embedder's own level: cosines differ in scale.
        level = rag.retriever.embedder.related_similarity
        columns = unasked_fields(self.query, contents) if checks else ()
        if columns:
            # "How many hours of sunshine did Seattle get on 2014/06/21?" of a weather
            # sheet without a column for it: the model would answer from another field.
            self.abstained, self.note, self.columns = True, "no_field", columns
            yield not_found_text(self.question)
            return
        # A passage in another language holds the item the question names ("Proposition
        # 5.1" of German notes): found, though few of the question's English words are in
        # it (items.py).
        if (
            checks
            and not passages_answer_question(self.query, passages, similarities, similarity=level)
            and named_item(self.query, contents) is None
        ):
            # No passage is close to the question: the model is not asked (it would
            # guess or say it does not know, half a minute later).
            self.abstained, self.note = True, "not_found"
            yield not_found_text(self.question)
            return
        # Found before the passages are cut to what bears on the question: the cut runs
        # the version's label and text into one line.
        self._version = asked_version(self.query, contents)
        # A list's entry asked for by its place ("which entry sits between Rip Currents
        # and Space Weather?"): the entry beside those named, where the passage lists it.
        # The model reads a list's order badly, and judged the same entry an answer or
        # not by the words around it (listed.py).
        listed = listed_entry(self.query, contents) if checks else None
        if listed is not None:
            self.extractive, self.note = True, "quoted_listed"
            yield listed.quote()
            return
        focus = getattr(llm, "focus_words", None)
        if focus:  # a small local model: each passage cut to what bears on the question
            self.sources = focus_passages(self.query, self.sources, max_words=int(focus))
        try:
            # Only what fits the model's context, numbered as the model sees it.
            messages, self.sources = await asyncio.to_thread(
                fit_messages,
                llm,
                self.question,
                self.sources,
                rag.system_prompt,
                self.history,
                examples_for(self.question) if checks else (),
            )
        except ModelError as exc:
            async for piece in self._fallback(exc):
                yield piece
            return
        produce = (self._checked if checks else self._plain)(llm, messages)
        try:
            async for piece in produce:
                yield piece
        finally:  # Stop: closing this stream closes the model's at once
            await produce.aclose()

    def _citation_filter(self) -> CitationFilter:
        """Drops markers to no passage; a record's label ("[barley]") cites its passage."""
        labels = record_labels([s.content for s in self.sources])
        values = passage_values(s.content for s in self.sources)
        return CitationFilter((s.n for s in self.sources), labels, values)

    def _no_answer(self, llm: LLMClient, wrote: str) -> ModelResponseError:
        return ModelResponseError(
            f"{getattr(llm, 'name', 'The model')} wrote no answer (only "
            f"{wrote.strip() or 'nothing'}), so the best sentences of the "
            "passages are quoted instead."
        )

    async def _plain(
        self, llm: LLMClient, messages: list[ChatMessage]
    ) -> AsyncGenerator[str, None]:
        """The model's answer as it streams (citations to no passage removed)."""
        cited = self._citation_filter()
        stream = llm.stream(messages)
        shown = False
        held = ""  # the opening, until it holds a word: "[1]" alone is no answer
        try:
            async for piece in stream:
                text = cited.feed(piece)
                if not shown:
                    held += text
                    if not has_words(held):
                        continue
                    shown, text = True, held
                if text:
                    yield text
            rest = cited.flush()
            if not shown and not has_words(held + rest):
                raise self._no_answer(llm, held + rest)
            if not shown:
                rest = held + rest
            if rest:
                yield rest
        except ModelError as exc:
            if shown:  # half an answer is on screen: say it failed, do not mix in quotes
                raise
            async for piece in self._fallback(exc):
                yield piece
            return
        finally:  # Stop: closing this stream closes the model's at once
            await _close(stream)
        self.abstained = is_non_answer(self.answer)
        if not self.abstained:
            self.unsupported = unsupported_numbers(self.answer, [s.seen for s in self.sources])

    async def _checked(
        self, llm: LLMClient, messages: list[ChatMessage]
    ) -> AsyncGenerator[str, None]:
        """The model's answer sentence by sentence, as far as its passages support it
        (checked.py); when nothing is, a second look at the first passage alone, then
        quotes or "the documents do not seem to say"."""
        seen = [s.seen for s in self.sources]  # what each passage tells the model
        checked = self._reading_check()
        async for piece in self._checked_pass(llm, messages, checked, fall_back=True):
            yield piece
        if self.error:  # the model failed: the passages were quoted instead
            return
        self.withheld = list(checked.withheld)
        if checked.shown:
            self.note = "withheld" if self.withheld else ""
            self.unsupported = unsupported_numbers(self.answer, seen)
            return
        # Nothing the model wrote is said by its passages, it said it does not know, or
        # it only pointed at passages ("[2]", "The default directory is [4].").
        self.draft = checked.raw.strip()
        rag = self._rag
        # The model pointed where its answer should stand: it goes on from there; then
        # it reads the first passage alone, unless it stated a value no passage holds:
        # so made to read one passage, it took the passage's nearest number in its place
        # ("49 degrees" for a temperature no diary entry gives; REPORT §10, session 19).
        refused = len(checked.withheld) > checked.foreign
        # A sentence copied from a passage, withheld for not stating what is asked,
        # points at that passage too: the answer's place, found ("Tokyo 100-91 [1]" of the
        # member list's entry, to "In which ward of Tokyo …?").
        pointed = checked.pointed if checked.only_pointed else checked.copied
        # It pointed at the row the question names ("Item 1A is [1]." to "what is Item
        # 1A?", of a table of contents cut to "| Item 1A. | Risk Factors | 9 |"): that row
        # is quoted. Made to read it alone, the model wrote "Item 1A is a section in the
        # table of contents"; made to go on, "Item 2 is located on page 9" (REPORT §10,
        # session 23).
        at_named = any(s.metadata.get("named") for s in self._numbered(pointed))
        looks: list[tuple[str, Callable[[], Awaitable[tuple[list[str], CheckedAnswer]]]]] = []
        if rag.second_look and checked.frame and llm.continues_answers and not at_named:
            looks.append(("went_on", functools.partial(self._go_on, llm, messages, checked.frame)))
        if rag.second_look and len(self.sources) > 1 and not refused and not at_named:
            looks.append(("second_look", functools.partial(self._second_look, llm)))
        declined = checked.only_pointed or checked.non_answer
        for note, look in looks:
            pieces, again = await look()
            if pieces:
                for piece in pieces:
                    yield piece
                self.note, self.withheld = note, list(again.withheld)
                self.unsupported = unsupported_numbers(self.answer, seen)
                return
            if note == "second_look" and again.only_pointed and declined and 1 not in pointed:
                # Made to read the first passage alone, the model pointed at it ("[1]"):
                # it is favoured in the quote too, beside what the first reading pointed
                # at ("Detect cycles in TreeObject.insert_child (#3964)", where the first
                # reading had pointed at another release's entry; REPORT §10, session 21).
                pointed = [*pointed, 1]
        # Asked the words of a version the passages give ("which word does the Somali
        # version use for brotherhood?"), the version is quoted whole: the model can
        # neither pick its word nor confirm a quote of a language it does not read
        # (versions.py).
        version = self._version
        if version is not None and version.number <= len(self.sources):
            self.extractive, self.note = True, "quoted_version"
            yield version.quote()
            return
        confirm = rag.confirm_quotes
        # The model must confirm every quote (confirm.py); then a quote may hold less of the
        # question: a fifth of it after "I don't know" with nothing pointed at, two fifths
        # after an answer the checks refused. Like every quote in place of the model's answer,
        # it adds sentences only from its best sentence's passage: "In which city were the
        # first modern Olympic Games held in 1896?" was confirmed on a second passage's
        # "… the west--Paris--and subsides." (REPORT §10, session 20).
        coverage = QUOTE_COVERAGE
        if confirm:
            declined_only = checked.non_answer and not checked.pointed
            coverage = CONFIRMED_COVERAGE if declined_only else REFUSED_COVERAGE
        # A passage cut to the rows the question names is where the answer stands, as
        # if the model had pointed at it: a sheet's row seldom holds the question's
        # words ("temp_min: -3.2" for "the minimum temperature"; REPORT §10, session 23).
        named = [n for n, s in enumerate(self.sources, start=1) if s.metadata.get("named")]
        headed = [f"{s.heading_path}\n{s.content}" for s in self.sources]
        fallback = answer_when_unsupported(
            self.query,
            headed,
            pointed=pointed or named,
            quote_coverage=coverage,
        )
        quote = ""
        if fallback.quote:
            rows_of = [n for n in fallback.pointed if n in named]
            quote = self._quote(fallback.pointed, instead=True, rows_of=rows_of)
        if (
            quote
            and quote_answers(
                self.query,
                quote,
                [s.content for s in self.sources],
                located=headed,
            )
            and (not confirm or await quote_confirmed(llm, self.query, quote, self._section(quote)))
        ):
            self.extractive = True
            self.note = "quoted_not_answered" if declined else "quoted_unsupported"
            yield quote
            return
        # The question names the item of a passage in another language that the answer
        # stands in ("Definition 50" of German notes): the item is quoted (items.py).
        # Whole where its label opens it, unconfirmed: the model does not read the
        # language (it judged "Definition 50 Sei X … keinen Häufungspunkt hat." no answer
        # to when a subset is called discrete; REPORT §10, session 37).
        item = named_item(self.query, [s.content for s in self.sources])
        if item is not None and (
            not confirm
            or (item.opens and item.whole)
            or await quote_confirmed(llm, self.query, item.quote(), "")
        ):
            self.extractive = True
            self.note = "quoted_not_answered" if declined else "quoted_unsupported"
            yield item.quote()
            return
        self.abstained = True
        self.note = "" if checked.non_answer and not self.withheld else "unsupported"
        yield fallback.text or not_found_text(self.query)

    def _numbered(self, numbers: Sequence[int]) -> list[SourceRef]:
        """The sources of those ``numbers`` that number one."""
        return [self.sources[n - 1] for n in numbers if 1 <= n <= len(self.sources)]

    def _section(self, quote: str) -> str:
        """The header of the passage ``quote`` cites first, when that passage stands in
        a section of its document ("Configuration — Configuration > Available settings >
        system-git-client"): the model confirms the quote as the reader sees it, where
        it stands. "*Introduced in 1.2.0 as experimental.system-git-client*" alone it
        judged no answer to the setting's old name; under its heading, yes. Measured on
        the quotes of the read sets (REPORT §10, session 21): of 121 that held the
        answer, 106 confirmed instead of 101, and of the 82 to unanswerable questions, 69
        refused as before. Not a file's name and lines: with them, it confirmed more
        quotes to unanswerable questions."""
        source = next(iter(self._numbered(cited_numbers(quote))), None)
        return source.label if source is not None and " > " in source.location else ""

    def _reading_check(self) -> CheckedAnswer:
        """A fresh check for one reading by the model: against what each passage tells
        it (its ``seen`` text)."""
        return CheckedAnswer(self.question, [s.seen for s in self.sources], version=self._version)

    async def _go_on(
        self, llm: LLMClient, messages: list[ChatMessage], frame: str
    ) -> tuple[list[str], CheckedAnswer]:
        """The pieces of the model's answer when made to go on from ``frame``, its own
        sentence that stopped where the answer should stand ("The tox setting … is
        [3]."), with a value rather than a marker; and the check they went through. No
        pieces when nothing of it is shown, or when it only points again ("… is
        indicated in the Management's Discussion section, which is [1]."). The model
        reads the same ``messages`` (llama.cpp reuses their cache): only the words after
        ``frame`` are new (REPORT §10, session 19)."""
        filled = self._reading_check()
        filled.feed(frame)
        go_on = [*messages, ChatMessage(role="assistant", content=frame)]
        pass_ = self._checked_pass(llm, go_on, filled, fall_back=False, grammar=_NOT_A_MARKER)
        pieces = [piece async for piece in pass_]
        # As the model wrote it: shown, "…, which is [1]." loses its pointing clause.
        if not filled.shown or any(map(cut_short, split_answer(without_markers(filled.raw)))):
            return [], filled
        return pieces, filled

    async def _second_look(self, llm: LLMClient) -> tuple[list[str], CheckedAnswer]:
        """The pieces of the model's reading of the first passage alone, and the check
        they went through; no pieces when nothing of it is shown. A small model given
        five passages often says it does not know when the first one holds the answer;
        alone, it reads it (REPORT §10, session 8). A reading that only points ("The
        author is [1].") goes on as in :meth:`_go_on`. The reading is held back until
        the model confirms it answers: made to read one passage, it may answer from it
        whatever it asks ("The horses were brought. [1]" to "What was the name of
        Dolokhov's horse?")."""
        rag = self._rag
        one, _ = await asyncio.to_thread(
            fit_messages,
            llm,
            self.question,
            self.sources[:1],
            rag.system_prompt,
            self.history,
            examples_for(self.question),
        )
        again = self._reading_check()
        pieces = [p async for p in self._checked_pass(llm, one, again, fall_back=False)]
        if not again.shown and again.frame and llm.continues_answers:
            pieces, again = await self._go_on(llm, one, again.frame)
        if not again.shown:
            return [], again
        if rag.confirm_quotes and not await answer_confirmed(llm, self.query, "".join(pieces)):
            return [], again
        return pieces, again

    async def _checked_pass(
        self,
        llm: LLMClient,
        messages: list[ChatMessage],
        checked: CheckedAnswer,
        *,
        fall_back: bool,
        grammar: str | None = None,
    ) -> AsyncGenerator[str, None]:
        """One reading by the model, through ``checked``. A failure before anything is
        shown quotes the passages (``fall_back``; ``error`` is set) or, on a second look,
        only ends the look (the first reading then decides what is shown)."""
        cited = self._citation_filter()
        stream = llm.stream(messages, grammar=grammar)
        try:
            async for piece in stream:
                text = checked.feed(cited.feed(piece))
                if text:
                    yield text
                if checked.looping:
                    break
            text = checked.feed(cited.flush()) + checked.flush()
            if text:
                yield text
            if not checked.shown and not checked.pointed and not has_words(checked.raw):
                raise self._no_answer(llm, checked.raw)
        except ModelError as exc:
            if checked.shown:  # half an answer is on screen: say it failed, do not mix
                raise
            if fall_back:
                async for piece in self._fallback(exc):
                    yield piece
        finally:  # Stop: closing this stream closes the model's at once
            await _close(stream)

    async def _fallback(self, exc: ModelError) -> AsyncGenerator[str, None]:
        """The model failed before writing anything: quote the passages instead."""
        self.extractive = True
        self.error = str(exc)
        yield self._quote()

    def _quote(
        self, prefer: Sequence[int] = (), *, instead: bool = False, rows_of: Sequence[int] = ()
    ) -> str:
        """The extractive answer: sentences of the passages, never an empty pane. In place
        of a model's unsupported answer (``instead``), those of the passages it pointed
        at (``prefer``) are favoured and only the best sentence's passage adds more; with
        ``rows_of``, only the rows of those passages (cut to the rows the question names)
        are quoted: another passage's "hourly temperatures in Seattle" shares more words
        with "What was the minimum temperature in Seattle on 2015/01/01?" than the day's
        "temp_min: -3.2"."""
        passages = [
            rows_only(s.content)
            if n in rows_of
            else ("" if rows_of else with_heading(self.query, s.heading_path, s.content))
            for n, s in enumerate(self.sources, start=1)
        ]
        headings = [s.heading_path for s in self.sources]
        result = extractive_answer(
            self.query,
            passages,
            prefer=prefer,
            top_passages=0 if instead else TOP_PASSAGES,
            headings=headings,
            titles=[s.title for s in self.sources],
        )
        return result.text or NO_SENTENCE_ANSWER
