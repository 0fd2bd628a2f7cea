"""What a PDF holds besides page text: labels, form fields, comments, attachments.

All of it comes from pypdf, which understands the document structure. Each helper
is defensive: a broken label tree or annotation must cost that extra, never the
document, so failures are reported back as warnings.
"""

from __future__ import annotations

import logging
import re
from typing import Any

_LOG = logging.getLogger("agentmaker.rag.readers.pdf")

_JUNK_TITLES = frozenset({"", "untitled", "untitled document", "title", "document"})
# Producers often store the source file name as the title ("Binder1.pdf").
_FILE_NAME_TITLE = re.compile(r"\.(pdf|docx?|odt|rtf|txt|indd|tex|dvi|ps|pages|pptx?|xlsx?)$", re.I)
_WORD_PREFIX = re.compile(r"^Microsoft (Word|PowerPoint|Excel) - ")

# Annotations whose /Contents is not a comment: links, form widgets (handled as
# fields), popups (they repeat their parent's text).
_NOT_COMMENTS = frozenset({"/Link", "/Widget", "/Popup"})


class _PypdfToDebug(logging.Handler):
    """Re-log pypdf's warnings at DEBUG under our logger.

    pypdf logs a WARNING for every recoverable oddity (~1,400 of them for one font
    problem in GeoTopo) from per-module loggers (``pypdf._reader``…); readers report
    what matters in ``metadata["warnings"]`` instead.
    """

    def emit(self, record: logging.LogRecord) -> None:
        _LOG.debug("%s: %s", record.name, record.getMessage())


_HANDLER = _PypdfToDebug()


def quiet_pypdf_logging() -> None:
    """Route the ``pypdf`` logger tree to DEBUG records of ours (idempotent).

    A logger filter would not see the child loggers' records, so a handler on
    ``pypdf`` collects them and propagation to the root logger is turned off.
    """
    logger = logging.getLogger("pypdf")
    if _HANDLER not in logger.handlers:
        logger.addHandler(_HANDLER)
    logger.propagate = False


def page_labels(reader: Any, page_count: int, warnings: list[str]) -> list[str]:
    """Printed page labels ("i", "ii", "1"…); physical numbers when there are none."""
    default = [str(n) for n in range(1, page_count + 1)]
    if reader is None:
        return default
    try:
        labels = [str(label) for label in reader.page_labels]
    except Exception as exc:  # a damaged /PageLabels tree
        warnings.append(f"The page labels could not be read ({exc}); page numbers are used.")
        return default
    if len(labels) != page_count:
        return default
    return labels


def _text(value: Any) -> str:
    if value is None:
        return ""
    text = str(value.get_object() if hasattr(value, "get_object") else value)
    if text.startswith("/"):  # a PDF name such as /Yes for a ticked checkbox
        text = text[1:]
    return " ".join(text.split())


def _field_name(widget: Any) -> str:
    """Fully qualified field name: parent names joined with dots."""
    parts: list[str] = []
    node: Any = widget
    for _ in range(32):  # parent chains are short; a loop in a broken file is not
        if node is None:
            break
        name = node.get("/T")
        if name is not None:
            parts.append(str(name))
        parent = node.get("/Parent")
        node = parent.get_object() if parent is not None else None
    return ".".join(reversed(parts))


def _field_value(widget: Any) -> str:
    node: Any = widget
    for _ in range(32):
        if node is None:
            return ""
        if "/V" in node:
            return _text(node["/V"])
        parent = node.get("/Parent")
        node = parent.get_object() if parent is not None else None
    return ""


def page_extras(
    reader: Any, index: int, seen_fields: set[str]
) -> tuple[list[str], list[str], list[str]]:
    """Form field lines, comment lines and attached file names of one page.

    ``seen_fields`` collects the names of fields already listed, across pages.
    """
    fields: list[str] = []
    comments: list[str] = []
    files: list[str] = []
    page = reader.pages[index]
    annotations = page.get("/Annots")
    annotations = annotations.get_object() if annotations is not None else []
    for ref in annotations or []:
        annotation = ref.get_object()
        if not hasattr(annotation, "get"):
            continue
        subtype = str(annotation.get("/Subtype", ""))
        if subtype == "/Widget":
            name, value = _field_name(annotation), _field_value(annotation)
            # Radio buttons have one widget per choice but one value: list it once.
            if name and name not in seen_fields:
                seen_fields.add(name)
                if _is_data(value):
                    fields.append(f"Form field {name}: {value}")
        elif subtype == "/FileAttachment":
            spec_ref = annotation.get("/FS")
            spec: Any = spec_ref.get_object() if spec_ref is not None else None
            name = _text(spec.get("/UF") or spec.get("/F")) if hasattr(spec, "get") else ""
            files.append(name or "(unnamed file)")
        elif subtype not in _NOT_COMMENTS:
            contents = _text(annotation.get("/Contents"))
            if contents:
                author = _text(annotation.get("/T"))
                kind = subtype.lstrip("/")
                label = f"{kind}, by {author}" if author else kind
                comments.append(f"Annotation ({label}): {contents}")
    return fields, comments, files


def _is_data(value: str) -> bool:
    """An empty field or an unticked box ("Off") holds no data worth indexing."""
    return bool(value) and value != "Off"


def unplaced_fields(reader: Any, seen_fields: set[str]) -> list[str]:
    """Lines for filled fields that no page widget showed (``get_fields()``)."""
    found = reader.get_fields() or {}
    lines = []
    for name, field in found.items():
        value = _text(field.get("/V")) if hasattr(field, "get") else ""
        if name not in seen_fields and _is_data(value):
            lines.append(f"Form field {name}: {value}")
    return lines


def embedded_files(reader: Any) -> list[str]:
    """Names of files embedded in the document's /EmbeddedFiles tree."""
    return [str(entry.name) for entry in reader.attachment_list]


def copy_restricted(reader: Any) -> bool:
    """True when the encryption dictionary forbids copying text (permission bit 5)."""
    from pypdf.constants import UserAccessPermissions

    return UserAccessPermissions.EXTRACT not in reader.user_access_permissions


def _short(exc: BaseException) -> str:
    return str(exc).strip().rstrip(".") or type(exc).__name__


def collect_extras(
    reader: Any, pages: int, warnings: list[str]
) -> tuple[dict[int, str], dict[str, int], list[str]]:
    """Form field and comment lines per page index, their counts, attached file names.

    Fields are found through the widgets on each page (so a value lands on its
    page); values that ``get_fields()`` knows but no page shows go to page 1.
    """
    lines: dict[int, list[str]] = {}
    counts = {"fields": 0, "comments": 0}
    files: list[str] = []
    if reader is None:
        return {}, counts, files
    seen: set[str] = set()
    problem: str | None = None
    for index in range(pages):
        try:
            fields, comments, attached = page_extras(reader, index, seen)
        except Exception as exc:
            problem = problem or f"page {index + 1}: {_short(exc)}"
            continue
        counts["fields"] += len(fields)
        counts["comments"] += len(comments)
        files.extend(attached)
        if fields or comments:
            lines[index] = fields + comments
    try:
        unplaced = unplaced_fields(reader, seen)
        files.extend(f for f in embedded_files(reader) if f not in files)
    except Exception as exc:
        unplaced = []
        problem = problem or _short(exc)
    if unplaced and pages:
        counts["fields"] += len(unplaced)
        lines[0] = unplaced + lines.get(0, [])
    if problem:
        warnings.append(f"Some form fields, comments or attachments could not be read ({problem}).")
    return {index: "\n".join(found) for index, found in lines.items()}, counts, files


def document_title(reader: Any, fallback: str) -> str:
    """The /Title of the document information, unless it is junk; else ``fallback``."""
    try:
        info = reader.metadata if reader is not None else None
        title = str(info.title or "").strip() if info is not None else ""
    except Exception:
        title = ""
    title = " ".join(_WORD_PREFIX.sub("", title).split())
    if title.lower() in _JUNK_TITLES or _FILE_NAME_TITLE.search(title):
        return fallback
    return title
