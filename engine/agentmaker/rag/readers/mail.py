"""E-mail: .eml and .mbox with the standard library, Outlook .msg with extract-msg.

A message becomes one *section* of a ``mail`` Document: its subject as heading, a
short header block (From, To, Cc, Date) and its body. The body is the plain-text
part when there is one, else the HTML part read by the HTML reader (whose text is
escaped wherever it is shown, like any document text). ``metadata["sections"]``
holds ``[start, end, info]`` per message, where ``info`` has the citation's
``location`` ("“Budget” — 2026-03-02"), the ``heading`` and the filterable
``mail_from`` / ``mail_to`` / ``mail_date``. An mbox holds many messages, an .eml or
.msg one. Attachments are read by their own readers into their own Documents
(``Document.attachments``), each linked to its message (``parent_doc_id``,
``message``), so a spreadsheet attachment is cited by sheet and row.
"""

from __future__ import annotations

import email
import email.policy
import email.utils
import logging
import mailbox
import os
import re
import tempfile
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from agentmaker.errors import DocumentError, FormatMismatchError
from agentmaker.rag.documents import Document
from agentmaker.rag.readers.html import html_to_markdown
from agentmaker.rag.readers.text import decode_bytes, normalize_newlines

_LOG = logging.getLogger(__name__)
#: Attachments read per message, and their total size: a mailbox is not a backup drive.
MAX_ATTACHMENTS = 50
MAX_ATTACHMENT_BYTES = 64 * 1024 * 1024
_SAFE_NAME = re.compile(r"[^\w.\- ]+")
_DEMOTE = re.compile(r"^(#{1,5}) ", re.M)
# True while an attachment is being read: an attached message's own attachments are
# not read, so a message nested a thousand times costs one level, not a thousand.
_IN_ATTACHMENT: ContextVar[bool] = ContextVar("in_attachment", default=False)


@dataclass
class Attachment:
    """A file attached to a message."""

    name: str
    data: bytes


@dataclass
class Message:
    """What the readers need of one message, whatever its file format."""

    subject: str
    sender: str = ""
    to: str = ""
    cc: str = ""
    date: datetime | None = None
    body: str = ""
    html: bool = False
    attachments: list[Attachment] = field(default_factory=list)

    @property
    def day(self) -> str:
        """The date as ``YYYY-MM-DD`` (the filterable ``mail_date``), or ""."""
        return self.date.date().isoformat() if self.date else ""

    @property
    def location(self) -> str:
        """How a citation names the message: its subject and date."""
        subject = f"“{self.subject}”" if self.subject else "(no subject)"
        return f"{subject} — {self.day}" if self.day else subject


def _addresses(value: str) -> str:
    pairs = email.utils.getaddresses([value]) if value else []
    return ", ".join(addr.lower() for _, addr in pairs if addr)


def _date(value: str) -> datetime | None:
    try:
        return email.utils.parsedate_to_datetime(value) if value else None
    except (TypeError, ValueError, IndexError):
        return None


def _body_text(part: Any) -> str:
    try:
        content = part.get_content()
    except (LookupError, ValueError, AssertionError):  # unknown charset, bad encoding
        payload = part.get_payload(decode=True) or b""
        content = decode_bytes(payload).text
    if isinstance(content, bytes):
        content = decode_bytes(content).text
    return normalize_newlines(str(content))


def message_from_email(msg: EmailMessage) -> Message:
    """A ``Message`` from a parsed ``email`` message (policy ``default``)."""
    body_part = msg.get_body(preferencelist=("plain", "html"))
    body, is_html = "", False
    if body_part is not None:
        is_html = body_part.get_content_subtype() == "html"
        body = _body_text(body_part)
        if is_html:
            body = html_to_markdown(body)[0]
    attachments = []
    for part in msg.iter_attachments():
        try:
            payload = part.get_payload(decode=True)
        except Exception:  # a broken transfer encoding costs that attachment
            continue
        data = payload if isinstance(payload, bytes) else b""
        name = part.get_filename() or ""
        if part.get_content_type() == "message/rfc822":
            name = name or "attached-message.eml"
            inner = part.get_payload()
            if isinstance(inner, list) and inner and hasattr(inner[0], "as_bytes"):
                data = inner[0].as_bytes()
        if data and name:
            attachments.append(Attachment(name, data))
    return Message(
        subject=" ".join(str(msg.get("Subject", "")).split()),
        sender=_addresses(str(msg.get("From", ""))),
        to=_addresses(str(msg.get("To", ""))),
        cc=_addresses(str(msg.get("Cc", ""))),
        date=_date(str(msg.get("Date", ""))),
        body=body.strip(),
        html=is_html,
        attachments=attachments,
    )


def parse_eml(data: bytes) -> EmailMessage:
    """Parse the bytes of one RFC 5322 message."""
    if data.startswith(b"From "):  # an mbox "From_" line, as some programs save .eml
        data = data.split(b"\n", 1)[1] if b"\n" in data else b""
    parsed = email.message_from_bytes(data, policy=email.policy.default)
    assert isinstance(parsed, EmailMessage)
    return parsed


def _looks_like_mail(msg: EmailMessage) -> bool:
    return any(msg.get(name) for name in ("From", "Subject", "Date", "To", "Message-ID"))


class MailDocumentBuilder:
    """Messages in, one ``mail`` Document (sections + attachment documents) out."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.parts: list[str] = []
        self.length = 0
        self.sections: list[list[Any]] = []
        self.attachments: list[Document] = []
        self.warnings: list[str] = []
        self.messages = 0

    def add(self, message: Message) -> None:
        """Append one message as a section; read its attachments."""
        self.messages += 1
        lines = [f"# {message.subject or '(no subject)'}"]
        if message.sender:
            lines.append(f"From: {message.sender}")
        if message.to:
            lines.append(f"To: {message.to}")
        if message.cc:
            lines.append(f"Cc: {message.cc}")
        if message.date:
            lines.append(f"Date: {message.date.isoformat(sep=' ', timespec='minutes')}")
        names = [a.name for a in message.attachments]
        if names:
            lines.append(f"Attachments: {', '.join(names)}")
        # The subject is the section's level-1 heading: the body's headings go below it.
        body = _DEMOTE.sub(r"#\1 ", message.body)
        text = "\n".join(lines) + ("\n\n" + body if body else "")
        if self.parts:
            self.parts.append("\n\n")
            self.length += 2
        info = {
            "location": message.location,
            "heading": message.subject or "(no subject)",
            "mail_from": message.sender,
            "mail_to": message.to,
            "mail_date": message.day,
        }
        self.sections.append([self.length, self.length + len(text), info])
        self.parts.append(text)
        self.length += len(text)
        self._read_attachments(message, info)

    def _read_attachments(self, message: Message, info: dict[str, str]) -> None:
        from agentmaker.rag.readers import SUPPORTED_EXTENSIONS, read_file

        if _IN_ATTACHMENT.get():
            return
        total = 0
        for attachment in message.attachments[:MAX_ATTACHMENTS]:
            suffix = Path(attachment.name).suffix.lower()
            total += len(attachment.data)
            if suffix not in SUPPORTED_EXTENSIONS or suffix in (".mbox",):
                continue
            if total > MAX_ATTACHMENT_BYTES:
                self.warnings.append(
                    f"Attachments after '{attachment.name}' were not read: they exceed "
                    f"{MAX_ATTACHMENT_BYTES // 1024**2} MB."
                )
                break
            safe = _SAFE_NAME.sub("_", Path(attachment.name).name)[:100] or f"attachment{suffix}"
            with tempfile.TemporaryDirectory(prefix="agentmaker-mail-") as folder:
                file = Path(folder) / safe
                file.write_bytes(attachment.data)
                token = _IN_ATTACHMENT.set(True)
                try:
                    doc = read_file(file, max_bytes=MAX_ATTACHMENT_BYTES)
                except DocumentError as exc:
                    self.warnings.append(
                        f"The attachment '{attachment.name}' of {message.location} could not "
                        f"be read: {exc.reason}"
                    )
                    continue
                finally:
                    _IN_ATTACHMENT.reset(token)
            doc.title = f"{attachment.name} (attached to {message.location})"
            doc.metadata.update(
                {
                    "attachment": attachment.name,
                    "attachment_number": len(self.attachments) + 1,
                    "message": message.location,
                    "mail_from": info["mail_from"],
                    "mail_to": info["mail_to"],
                    "mail_date": info["mail_date"],
                }
            )
            self.attachments.append(doc)

    def document(self, title: str) -> Document:
        """The finished Document."""
        if self.messages == 0:
            raise FormatMismatchError(
                f"is named {self.path.suffix.lower()} but holds no e-mail message.", self.path
            )
        first = self.sections[0][2] if self.sections else {}
        metadata: dict[str, Any] = {
            "warnings": self.warnings,
            "sections": self.sections,
            "messages": self.messages,
            "attachments": [d.metadata["attachment"] for d in self.attachments],
        }
        if self.messages == 1:  # one message: the whole document is filterable by it
            metadata.update({k: first[k] for k in ("mail_from", "mail_to", "mail_date")})
        document = Document(content="".join(self.parts), title=title, format="mail")
        document.metadata = metadata
        document.attachments = self.attachments
        return document


def read_eml_file(path: Path, data: bytes) -> Document:
    """Read one ``.eml`` message."""
    msg = parse_eml(data)
    if not _looks_like_mail(msg):
        raise FormatMismatchError(
            "is named .eml but does not look like an e-mail message (it has no From, "
            "Subject or Date header). Check that it is the right file.",
            path,
        )
    message = message_from_email(msg)
    builder = MailDocumentBuilder(path)
    builder.add(message)
    return builder.document(message.subject or path.stem)


def read_mbox_file(path: Path) -> Document:
    """Read every message of an ``.mbox`` mailbox (streamed from disk by ``mailbox``)."""
    with path.open("rb") as handle:
        if not handle.read(5) == b"From ":
            raise FormatMismatchError(
                "is named .mbox but is not a mailbox: an mbox file starts with a 'From ' "
                "line. Export the mailbox again from your e-mail program.",
                path,
            )
    box = mailbox.mbox(os.fspath(path), factory=None, create=False)
    builder = MailDocumentBuilder(path)
    try:
        for number, key in enumerate(box.iterkeys(), start=1):
            try:
                msg = parse_eml(box.get_bytes(key))
            except Exception as exc:  # one broken message must not cost the others
                builder.warnings.append(f"Message {number} could not be read ({exc}).")
                continue
            builder.add(message_from_email(msg))
    finally:
        box.close()
    return builder.document(path.stem)
