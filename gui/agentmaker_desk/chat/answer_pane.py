"""The answer pane: the streamed answer, with ``[n]`` citations as the app's own links.

Everything that comes from a model or a document is untrusted. It is HTML-escaped
*before* the ``[n]`` markers are turned into ``cite:n`` links, so a document holding
``<img src=x onerror=…>`` or ``<a href="file:///…">`` shows those characters as text,
and the only links that act are the ones this module made.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable

from PySide6.QtCore import Qt, QTimer, QUrl, Signal
from PySide6.QtGui import QPalette, QTextCursor
from PySide6.QtWidgets import QLabel, QTextBrowser, QVBoxLayout, QWidget

#: How often, at most, streamed text is re-rendered (milliseconds).
RENDER_INTERVAL_MS = 50

CITE_SCHEME = "cite"

# After escaping, brackets and digits are unchanged, so the markers are still findable.
_CITATION = re.compile(r"\[(\d{1,4}(?:\s*[,;]\s*\d{1,4})*)\]")
_NUMBER = re.compile(r"\d+")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")


def _link(n: int, label: str) -> str:
    return f'<a href="{CITE_SCHEME}:{n}">{label}</a>'


def linkify_citations(escaped: str, valid: Iterable[int]) -> str:
    """Turn ``[n]`` markers in already-escaped text into ``cite:n`` links.

    Only numbers in ``valid`` (the ``n`` of an existing source) become links; any
    other marker stays as text.
    """
    known = set(valid)

    def replace(match: re.Match[str]) -> str:
        numbers = [int(x) for x in _NUMBER.findall(match.group(1))]
        if not any(n in known for n in numbers):
            return match.group(0)
        if len(numbers) == 1:
            return _link(numbers[0], f"[{numbers[0]}]")
        parts = [_link(n, str(n)) if n in known else str(n) for n in numbers]
        return "[" + ", ".join(parts) + "]"

    return _CITATION.sub(replace, escaped)


def render_answer_html(text: str, valid: Iterable[int]) -> str:
    """HTML for an untrusted answer text: escaped, then citations linked, **bold** kept."""
    escaped = html.escape(text, quote=True)
    escaped = _BOLD.sub(r"<b>\1</b>", escaped)
    linked = linkify_citations(escaped, valid)
    return linked.replace("\r\n", "\n").replace("\n", "<br>")


class AnswerPane(QWidget):
    """Shows the question, the streamed answer and its state; emits citation clicks."""

    citationClicked = Signal(int)
    settingsRequested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._question = ""
        self._pieces: list[str] = []
        self._valid: set[int] = set()
        self._status = ""
        self._status_is_error = False
        self._streaming = False

        self.extractive_label = QLabel(self)
        self.extractive_label.setObjectName("extractiveLabel")
        self.extractive_label.setTextFormat(Qt.TextFormat.RichText)
        self.extractive_label.setWordWrap(True)
        self.extractive_label.linkActivated.connect(lambda _url: self.settingsRequested.emit())
        self.extractive_label.setText(
            html.escape(self.tr("Extractive answer — no language model is configured."))
            + ' <a href="settings:">'
            + html.escape(self.tr("Choose a language model in Settings"))
            + "</a>"
        )
        self.extractive_label.setVisible(False)

        self.browser = QTextBrowser(self)
        self.browser.setObjectName("answerBrowser")
        self.browser.setOpenLinks(False)
        self.browser.setOpenExternalLinks(False)
        self.browser.anchorClicked.connect(self._on_anchor)
        self.browser.setAccessibleName(self.tr("Answer"))
        self.browser.setPlaceholderText(
            self.tr("Ask a question about your documents. The answer appears here.")
        )
        link = self.palette().color(QPalette.ColorRole.Link).name()
        self.browser.document().setDefaultStyleSheet(
            f"a {{ color: {link}; text-decoration: none; font-weight: 600; }}"
            " .question { font-weight: 600; }"
        )

        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(RENDER_INTERVAL_MS)
        self._timer.timeout.connect(self._render)
        self.render_count = 0  # how many times the HTML was rebuilt (tests watch the throttle)

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.extractive_label)
        layout.addWidget(self.browser, 1)

    # --- state changes (called by the window on bridge signals) -----------------

    def start(self, question: str) -> None:
        """Begin a new answer to ``question``."""
        self._timer.stop()
        self._question = question
        self._pieces = []
        self._valid = set()
        self._status = self.tr("Searching your documents…")
        self._status_is_error = False
        self._streaming = True
        self.extractive_label.setVisible(False)
        self._render()

    def set_sources(self, sources: Iterable[object], extractive: bool) -> None:
        """The sources the answer may cite (objects with an ``n``) and its kind."""
        self._valid = {int(getattr(s, "n", 0)) for s in sources}
        self.extractive_label.setVisible(bool(extractive))
        self._status = self.tr("Writing the answer…")
        self._schedule()

    def append(self, piece: str) -> None:
        """Add a streamed piece; the view catches up within ``RENDER_INTERVAL_MS``."""
        self._pieces.append(piece)
        self._schedule()

    def finish(self, stopped: bool = False) -> None:
        """The answer is complete (or was stopped by the person)."""
        self._streaming = False
        if stopped:
            self._status = self.tr("Stopped.")
        elif not self._pieces:
            self._status = self.tr("No answer was produced.")
        else:
            self._status = ""
        self._timer.stop()
        self._render()

    def fail(self, message: str) -> None:
        """The answer failed; ``message`` is a plain-language explanation."""
        self._streaming = False
        self._status = message
        self._status_is_error = True
        self._timer.stop()
        self._render()

    def clear(self) -> None:
        """Forget the current answer."""
        self._timer.stop()
        self._question = ""
        self._pieces = []
        self._valid = set()
        self._status = ""
        self._streaming = False
        self.extractive_label.setVisible(False)
        self.browser.clear()

    # --- reading back ---------------------------------------------------------

    @property
    def answer_text(self) -> str:
        """The answer text received so far (raw, unescaped)."""
        return "".join(self._pieces)

    @property
    def is_streaming(self) -> bool:
        return self._streaming

    def anchors(self) -> list[str]:
        """Every link target in the rendered document (for checks and accessibility)."""
        found: list[str] = []
        block = self.browser.document().begin()
        while block.isValid():
            it = block.begin()
            while not it.atEnd():
                fragment = it.fragment()
                if fragment.isValid():
                    href = fragment.charFormat().anchorHref()
                    if href:
                        found.append(href)
                it += 1
            block = block.next()
        return found

    # --- rendering --------------------------------------------------------------

    def _schedule(self) -> None:
        if not self._timer.isActive():
            self._timer.start()

    def _render(self) -> None:
        self.render_count += 1
        bar = self.browser.verticalScrollBar()
        at_bottom = bar.value() >= bar.maximum() - 4
        previous = bar.value()
        parts: list[str] = []
        if self._question:
            parts.append(f'<p class="question">{html.escape(self._question)}</p>')
        if self._pieces:
            parts.append(f"<p>{render_answer_html(self.answer_text, self._valid)}</p>")
        if self._status:
            colour = (
                "#c62828"
                if self._status_is_error
                else self.palette().color(QPalette.ColorRole.PlaceholderText).name()
            )
            parts.append(f'<p style="color:{colour}">{html.escape(self._status)}</p>')
        self.browser.setHtml("".join(parts))
        if at_bottom and self._streaming:
            self.browser.moveCursor(QTextCursor.MoveOperation.End)
            bar.setValue(bar.maximum())
        else:
            bar.setValue(previous)

    def _on_anchor(self, url: QUrl) -> None:
        if url.scheme() != CITE_SCHEME:
            return  # only our own links act; nothing else can be in the document
        try:
            n = int(url.path() or url.toString().split(":", 1)[1])
        except (ValueError, IndexError):
            return
        if n in self._valid:
            self.citationClicked.emit(n)
