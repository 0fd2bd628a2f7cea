"""Documents (what a reader produces) and chunks (what gets indexed)."""

from __future__ import annotations

import hashlib
import uuid
from dataclasses import dataclass, field
from typing import Any

HEADING_SEPARATOR = " > "
#: Filterable fields of e-mail (and their attachments): sender address, recipient
#: addresses (comma-separated), the day sent (``YYYY-MM-DD``).
MAIL_FIELDS = ("mail_from", "mail_to", "mail_date")


def _new_doc_id() -> str:
    return uuid.uuid4().hex


@dataclass
class Document:
    """One source document.

    ``format`` picks the splitter: ``md``, ``txt``, ``json``, ``jsonl``, ``csv``,
    ``pdf`` (paged; presentations too), ``sheet`` (spreadsheet rows), ``mail``
    (messages), ``docx``, ``html``, ``epub``. Readers may put structure in ``metadata``:

    - ``page_spans``: ``[[start, end, page_number, page_label], ...]`` character
      ranges of ``content`` per physical page (1-based), for paged formats; with
      ``page_unit = "slide"`` and ``page_titles`` for presentations.
    - ``sheet_spans``: ``[[start, end, sheet name, rows], ...]`` for spreadsheets.
    - ``front_matter``: YAML front matter of Markdown, as a dict of strings.
    - ``warnings``: list of plain-language notes about what the reader did
      (e.g. "decoded as cp1252", "2 form fields indexed").
    - ``sections``: ``[[start, end, info], ...]`` for documents made of parts cited
      on their own (the messages of a mailbox); ``info`` holds the part's
      ``location``, ``heading`` and metadata its chunks carry.

    ``attachments`` are documents read from files inside this one (an e-mail's
    attachments): the pipeline indexes each as its own document linked to this one.
    """

    content: str
    doc_id: str = field(default_factory=_new_doc_id)
    title: str = ""
    source: str = ""
    format: str = "txt"
    metadata: dict[str, Any] = field(default_factory=dict)
    attachments: list[Document] = field(default_factory=list, repr=False)

    @property
    def fingerprint(self) -> str:
        """sha256 of format and content: equal fingerprints mean nothing to re-index."""
        digest = hashlib.sha256()
        digest.update(self.format.encode())
        digest.update(b"\0")
        digest.update(self.content.encode("utf-8", "surrogatepass"))
        return digest.hexdigest()


@dataclass
class Chunk:
    """A piece of a document that is indexed and cited on its own.

    ``metadata`` carries ``start_char`` / ``end_char`` (offsets into the document's
    content, so a viewer can highlight the passage), and where known ``page``,
    ``page_label``, ``record`` (row number or key path of structured data), and
    ``location``: the place in the user's words where it is not a page ("slide 7",
    "Sheet 'Budget', rows 2–40", a message's subject and date).
    """

    content: str
    chunk_id: str = ""
    doc_id: str = ""
    heading_path: str = ""
    index: int = 0
    metadata: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.chunk_id:
            self.chunk_id = f"{self.doc_id}:{self.index}" if self.doc_id else _new_doc_id()


def join_heading_path(parts: list[str] | tuple[str, ...]) -> str:
    """Join heading titles into one path string (``"A > B > C"``)."""
    return HEADING_SEPARATOR.join(p for p in parts if p)
