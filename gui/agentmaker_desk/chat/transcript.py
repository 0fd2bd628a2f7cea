"""The transcript: every question and answer of a chat, answers streaming in place.

One ``QTextBrowser`` renders the whole chat (re-rendered at most every
``RENDER_INTERVAL_MS`` while an answer streams). Text from models and documents is
escaped before the app's own links are added: ``cite:T-N`` (citation ``[N]`` of turn
``T``), ``src:T-N`` (a source row), ``toggle:T`` (show/hide the sources), ``copy:T``,
``regen:T`` and ``write:T`` (an extractive answer written again by the model). The
view follows a streaming answer down unless the person scrolled up.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QTimer, QUrl, Signal
from PySide6.QtGui import QColor, QGuiApplication, QPalette
from PySide6.QtWidgets import QTextBrowser, QVBoxLayout, QWidget

from agentmaker_desk.chat.answer_html import RENDER_INTERVAL_MS, render_answer_html
from agentmaker_desk.chat.source_labels import document_label, where_text

_CITE_HREF = re.compile(r'href="cite:(\d+)"')
_LINK = re.compile(r"^(cite|src|toggle|copy|regen|write):(\d+)(?:-(\d+))?$")


def _tr(text: str) -> str:
    return QCoreApplication.translate("TranscriptView", text)


# Texts used outside methods: marked here so lupdate finds them, translated where used.
_COMMA = QT_TRANSLATE_NOOP("TranscriptView", ", ")
_MATCHED = QT_TRANSLATE_NOOP("TranscriptView", "matched the words {words}")
_MATCHED_SOME = QT_TRANSLATE_NOOP("TranscriptView", "matched your words")
_MEANING = QT_TRANSLATE_NOOP("TranscriptView", "close in meaning")
_NEIGHBOUR = QT_TRANSLATE_NOOP("TranscriptView", "next to a passage that was found")
_OCR = QT_TRANSLATE_NOOP("TranscriptView", "read by OCR")
_RERANKED = QT_TRANSLATE_NOOP("TranscriptView", "ranked high by the re-ranker")
_CHANGED = QT_TRANSLATE_NOOP("TranscriptView", "this passage has changed since")
_REMOVED = QT_TRANSLATE_NOOP("TranscriptView", "document removed")
_SOURCES = QT_TRANSLATE_NOOP("TranscriptView", "Sources:")
_STOPPED = QT_TRANSLATE_NOOP("TranscriptView", "Stopped.")
_SEARCHING = QT_TRANSLATE_NOOP("TranscriptView", "Searching your documents…")
_WRITING = QT_TRANSLATE_NOOP("TranscriptView", "Writing the answer…")
_NOTHING = QT_TRANSLATE_NOOP("TranscriptView", "No answer was produced.")
#: The engine's fixed answers (agentmaker.rag.answer.prompting: NO_HITS_ANSWER,
#: NO_SENTENCE_ANSWER; rag.answer.checked: NOT_FOUND_ANSWER), shown in the window's
#: language; a test keeps them equal.
CANNED_ANSWERS = (
    QT_TRANSLATE_NOOP(
        "TranscriptView",
        "I found nothing about this in your documents. Try other words, or add the "
        "documents that cover it.",
    ),
    QT_TRANSLATE_NOOP(
        "TranscriptView",
        "The passages below were found for this question, but none has a sentence to "
        "quote as an answer; open them to read more.",
    ),
    QT_TRANSLATE_NOOP(
        "TranscriptView",
        "Your documents do not seem to answer this: none of the passages found says it. "
        "The passages looked at are listed below.",
    ),
)


def why_words(source: Any) -> str:
    """Why a passage was found, in plain words ("matched the words …", "close in meaning")."""
    meta = getattr(source, "metadata", None) or {}
    parts = []
    words = meta.get("matched_words") or []
    if meta.get("keyword_rank") is not None or (words and meta.get("vector_rank") is None):
        if words:
            quoted = _tr(_COMMA).join(f"“{w}”" for w in words)
            parts.append(_tr(_MATCHED).format(words=quoted))
        else:
            parts.append(_tr(_MATCHED_SOME))
    if meta.get("vector_rank") is not None:
        parts.append(_tr(_MEANING))
    if meta.get("rerank_score") is not None:
        parts.append(_tr(_RERANKED))
    if not parts:
        parts.append(_tr(_NEIGHBOUR))
    if meta.get("ocr"):
        parts.append(_tr(_OCR))
    return _tr(_COMMA).join(parts)


def status_words(source: Any) -> str:
    """ "this passage has changed since" / "document removed" / "" for a source snapshot."""
    status = getattr(source, "status", "current")
    if status == "changed":
        return _tr(_CHANGED)
    if status == "removed":
        return _tr(_REMOVED)
    return ""


@dataclass
class TurnState:
    """One question and its answer as shown."""

    question: str
    query: str = ""
    pieces: list[str] = field(default_factory=list)
    sources: list[Any] = field(default_factory=list)
    extractive: bool = False
    model: str = ""
    streaming: bool = False
    stopped: bool = False
    status: str = ""
    error: bool = False
    expanded: bool = False

    @property
    def answer(self) -> str:
        return "".join(self.pieces)

    @property
    def condensed(self) -> bool:
        return bool(self.query) and " ".join(self.query.split()) != " ".join(self.question.split())


def copy_text(turn: TurnState) -> str:
    """An answer as plain text with its citations and a numbered sources list."""
    lines = [turn.answer.strip()]
    if turn.sources:
        lines += ["", _tr(_SOURCES)]
        for src in turn.sources:
            name, where = document_label(src), where_text(src)
            if where.startswith(name + " > "):
                where = where[len(name) + 3 :]
            where = "" if where in ("—", name) else f" — {where}"
            lines.append(f"[{src.n}] {name}{where}")
    return "\n".join(lines) + "\n"


class TranscriptView(QWidget):
    """Shows a chat; emits citation clicks and requests to regenerate."""

    citationClicked = Signal(int, int)  # turn index, source number
    regenerateRequested = Signal()
    copied = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.turns: list[TurnState] = []
        #: A language model is set up: extractive answers offer "Write with a model".
        self.model_available = False
        self._follow = True
        self._rendering = False
        self.render_count = 0

        self.browser = QTextBrowser(self)
        self.browser.setObjectName("transcriptBrowser")
        self.browser.setOpenLinks(False)
        self.browser.setOpenExternalLinks(False)
        self.browser.setAccessibleName(self.tr("Conversation"))
        self.browser.anchorClicked.connect(self._on_anchor)
        self.browser.verticalScrollBar().valueChanged.connect(self._scrolled)
        self.setFocusProxy(self.browser)

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(RENDER_INTERVAL_MS)
        self._timer.timeout.connect(self._render)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.browser)
        self._apply_style()
        self._render()

    # --- whole chats -----------------------------------------------------------------

    def show_conversation(self, conversation: Any) -> None:
        """Show a stored conversation (objects with ``turns``), or an empty new chat."""
        self._timer.stop()
        self.turns = []
        for turn in getattr(conversation, "turns", None) or []:
            self.turns.append(self._state_of(turn))
        if self.turns:
            self.turns[-1].expanded = True
        self._follow = True
        self._render(scroll_to_end=True)

    @staticmethod
    def _state_of(turn: Any) -> TurnState:
        stopped = bool(getattr(turn, "stopped", False))
        return TurnState(
            question=turn.question,
            query=turn.query,
            pieces=[turn.answer],
            sources=list(turn.sources),
            extractive=bool(turn.extractive),
            model=turn.model,
            stopped=stopped,
            status=_tr(_STOPPED) if stopped else "",
        )

    def clear(self) -> None:
        """Show an empty chat."""
        self.show_conversation(None)

    # --- the answer being written ---------------------------------------------------

    def start_turn(self, question: str, *, replace_last: bool = False) -> None:
        """A question was asked (``replace_last``: the last answer is being regenerated)."""
        self._timer.stop()
        if replace_last and self.turns:
            self.turns.pop()
        for turn in self.turns:
            turn.expanded = False
        self.turns.append(
            TurnState(question, streaming=True, expanded=True, status=_tr(_SEARCHING))
        )
        self._follow = True
        self._render(scroll_to_end=True)

    def set_query(self, query: str) -> None:
        """What was searched for the current question."""
        if self.turns:
            self.turns[-1].query = query
            self._schedule()

    def set_sources(self, sources: Iterable[Any], extractive: bool) -> None:
        """The passages the current answer may cite, and whether it is extractive."""
        if self.turns:
            turn = self.turns[-1]
            turn.sources = list(sources)
            turn.extractive = bool(extractive)
            turn.status = _tr(_WRITING)
            self._schedule()

    def append(self, piece: str) -> None:
        """A streamed piece of the current answer."""
        if self.turns:
            self.turns[-1].pieces.append(piece)
            self._schedule()

    def finish(self, turn: Any, stopped: bool) -> None:
        """The current answer ended; ``turn`` is the stored turn (None if nothing stored)."""
        if not self.turns:
            return
        state = self.turns[-1]
        if turn is not None:
            stored = self._state_of(turn)
            stored.expanded = True
            self.turns[-1] = state = stored
        state.streaming = False
        state.stopped = stopped
        if stopped:
            state.status = _tr(_STOPPED)
        elif not state.answer:
            state.status = _tr(_NOTHING)
        else:
            state.status = ""
        self._timer.stop()
        self._render()

    def fail(self, message: str) -> None:
        """The current answer failed; ``message`` says why in plain words."""
        if not self.turns:
            return
        state = self.turns[-1]
        state.streaming = False
        state.status = message
        state.error = True
        self._timer.stop()
        self._render()

    # --- reading back --------------------------------------------------------------

    @property
    def is_streaming(self) -> bool:
        """True while an answer is being written."""
        return bool(self.turns) and self.turns[-1].streaming

    def answer_text(self, index: int = -1) -> str:
        """The raw answer text of turn ``index``."""
        return self.turns[index].answer if self.turns else ""

    def source(self, index: int, n: int) -> Any:
        """Source ``n`` of turn ``index``, or None."""
        if not 0 <= index < len(self.turns):
            return None
        return next((s for s in self.turns[index].sources if int(s.n) == n), None)

    def anchors(self) -> list[str]:
        """Every link target in the rendered transcript."""
        found: list[str] = []
        block = self.browser.document().begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                if fragment.isValid():
                    href = fragment.charFormat().anchorHref()
                    if href and (not found or found[-1] != href):
                        found.append(href)
                it += 1
            block = block.next()
        return found

    def set_model_available(self, available: bool) -> None:
        """Whether a language model is set up (offers "Write with a model")."""
        if available != self.model_available:
            self.model_available = available
            self._render()

    def set_expanded(self, index: int, expanded: bool) -> None:
        """Show or hide the sources list of turn ``index``."""
        if 0 <= index < len(self.turns):
            self.turns[index].expanded = expanded
            self._render()

    def copy_answer(self, index: int) -> str:
        """Put turn ``index``'s answer (citations and sources list) on the clipboard."""
        text = copy_text(self.turns[index])
        QGuiApplication.clipboard().setText(text)
        self.copied.emit(text)
        return text

    # --- rendering ---------------------------------------------------------------------

    def changeEvent(self, event: Any) -> None:
        if event.type() == event.Type.PaletteChange:
            self._apply_style()
            self._render()
        super().changeEvent(event)

    def _apply_style(self) -> None:
        pal = self.palette()
        link = pal.color(QPalette.ColorRole.Link).name()
        # Placeholder colours often carry alpha, which HTML colours lose: mix instead.
        text, back = pal.color(QPalette.ColorRole.Text), pal.color(QPalette.ColorRole.Base)
        dim = QColor(
            (text.red() * 11 + back.red() * 9) // 20,
            (text.green() * 11 + back.green() * 9) // 20,
            (text.blue() * 11 + back.blue() * 9) // 20,
        ).name()
        base = pal.color(QPalette.ColorRole.AlternateBase).name()
        self.browser.document().setDefaultStyleSheet(
            f"a {{ color: {link}; text-decoration: none; font-weight: 600; }}"
            f" .question {{ background-color: {base}; font-weight: 600; }}"
            f" .dim {{ color: {dim}; }}"
            f" .actions a {{ font-weight: normal; }}"
        )

    def _schedule(self) -> None:
        if not self._timer.isActive():
            self._timer.start()

    def _scrolled(self, value: int) -> None:
        if self._rendering:
            return
        bar = self.browser.verticalScrollBar()
        self._follow = value >= bar.maximum() - 4

    def _render(self, *, scroll_to_end: bool = False) -> None:
        self.render_count += 1
        bar = self.browser.verticalScrollBar()
        previous = bar.value()
        self._rendering = True
        try:
            self.browser.setHtml(self._html())
            if scroll_to_end or self._follow:
                bar.setValue(bar.maximum())
            else:
                bar.setValue(previous)
        finally:
            self._rendering = False

    def _html(self) -> str:
        if not self.turns:
            hint = self.tr(
                "Ask a question about your documents below. Follow-up questions remember this chat."
            )
            return f'<p class="dim">{html.escape(hint)}</p>'
        last = len(self.turns) - 1
        return "".join(self._turn_html(i, t, i == last) for i, t in enumerate(self.turns))

    def _turn_html(self, index: int, turn: TurnState, last: bool) -> str:
        esc = html.escape
        out = [
            '<table width="100%" cellpadding="6" cellspacing="0" style="margin-top:10px">'
            f'<tr><td class="question">{esc(turn.question)}</td></tr></table>'
        ]
        if turn.condensed:
            searched = self.tr("Searched: {query}").format(query=turn.query)
            out.append(f'<p class="dim" style="font-size:small">{esc(searched)}</p>')
        valid = {int(s.n) for s in turn.sources}
        if turn.pieces:
            answer = self.tr(turn.answer) if turn.answer in CANNED_ANSWERS else turn.answer
            body = render_answer_html(answer, valid)
            out.append("<p>" + _CITE_HREF.sub(rf'href="cite:{index}-\1"', body) + "</p>")
        if turn.status:
            text = ("⚠ " if turn.error else "") + turn.status
            out.append(f'<p class="dim">{esc(text)}</p>')
        if not turn.streaming and (turn.pieces or turn.sources):
            out.append(self._actions_html(index, turn, last))
        if turn.expanded and turn.sources:
            out.append(self._sources_html(index, turn))
        return "".join(out)

    def _actions_html(self, index: int, turn: TurnState, last: bool) -> str:
        esc = html.escape
        bits = []
        if turn.extractive:
            label = self.tr("Extractive answer (no model)")
            bits.append(f'<span class="dim">{esc(label)}</span>')
        elif turn.model:
            bits.append(f'<span class="dim">{esc(turn.model)}</span>')
        if turn.sources:
            label = (
                self.tr("Hide sources ({n})") if turn.expanded else self.tr("Show sources ({n})")
            ).format(n=len(turn.sources))
            bits.append(f'<a href="toggle:{index}">{esc(label)}</a>')
        copy, regenerate = self.tr("Copy"), self.tr("Regenerate")
        if turn.pieces:
            bits.append(f'<a href="copy:{index}">{esc(copy)}</a>')
        if last:
            bits.append(f'<a href="regen:{index}">{esc(regenerate)}</a>')
            if turn.extractive and self.model_available:
                write = self.tr("Write with a model")
                bits.append(f'<a href="write:{index}">{esc(write)}</a>')
        return '<p class="actions" style="font-size:small">' + " &nbsp;·&nbsp; ".join(bits) + "</p>"

    def _sources_html(self, index: int, turn: TurnState) -> str:
        esc = html.escape
        rows = []
        for src in turn.sources:
            n = int(src.n)
            name = document_label(src)
            where = where_text(src)
            if where.startswith(name + " > "):  # the heading path repeats the title
                where = where[len(name) + 3 :]
            where = "" if where in ("—", name) else f" · {esc(where)}"
            status = status_words(src)
            status_html = f" <b>({esc(status)})</b>" if status else ""
            rows.append(
                f'<tr><td valign="top"><a href="src:{index}-{n}">[{n}]</a></td>'
                f"<td>{esc(name)}{where}{status_html}"
                f'<br><span class="dim">{esc(why_words(src))}</span></td></tr>'
            )
        return (
            '<table cellpadding="2" cellspacing="0" style="font-size:small; margin-left:8px">'
            + "".join(rows)
            + "</table>"
        )

    def _on_anchor(self, url: QUrl) -> None:
        match = _LINK.match(url.toString())
        if match is None:
            return  # only the app's own links act
        kind, index, n = match.group(1), int(match.group(2)), match.group(3)
        if not 0 <= index < len(self.turns):
            return
        if kind in ("cite", "src") and n is not None:
            if self.source(index, int(n)) is not None:
                self.citationClicked.emit(index, int(n))
        elif kind == "toggle":
            self.set_expanded(index, not self.turns[index].expanded)
        elif kind == "copy":
            self.copy_answer(index)
        elif kind in ("regen", "write") and index == len(self.turns) - 1 and not self.is_streaming:
            self.regenerateRequested.emit()
