"""Plain words for a source: its document's name and where it is (page, slide, sheet row,
message, heading path).

The texts keep the ``SourcesView`` translation context of the sources list they came from.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QCoreApplication


def document_label(source: Any) -> str:
    """The document's file name (what people saved it as; two documents often share a
    first heading), else its title."""
    path = getattr(source, "source", "") or ""
    title = (getattr(source, "title", "") or "").strip()
    return (
        Path(path).name or title or path or QCoreApplication.translate("SourcesView", "(untitled)")
    )


def page_text(page: Any, label: Any) -> str:
    """``p. 5`` or, when the printed label differs, ``p. iv (5)``."""
    if page in (None, ""):
        return ""
    if label not in (None, "") and str(label) != str(page):
        return QCoreApplication.translate("SourcesView", "p. {label} ({page})").format(
            label=label, page=page
        )
    return QCoreApplication.translate("SourcesView", "p. {page}").format(page=page)


def place_text(metadata: dict[str, Any], page: Any = None, label: Any = None) -> str:
    """Where a passage is, in words: slide, sheet and row, message, or page.

    ``page`` / ``label`` default to the metadata's ``page`` / ``page_label``.
    """
    slide = metadata.get("slide")
    if isinstance(slide, int):
        return QCoreApplication.translate("SourcesView", "slide {number}").format(number=slide)
    sheet = metadata.get("sheet")
    if sheet:
        records = metadata.get("records")
        row = metadata.get("row")
        if row is None and isinstance(records, list) and records and records[0] == records[-1]:
            row = records[0]
        if row is not None:
            return QCoreApplication.translate("SourcesView", "Sheet '{sheet}', row {row}").format(
                sheet=sheet, row=row
            )
        if isinstance(records, list) and records:
            return QCoreApplication.translate(
                "SourcesView", "Sheet '{sheet}', rows {first}–{last}"
            ).format(sheet=sheet, first=records[0], last=records[-1])
        return QCoreApplication.translate("SourcesView", "Sheet '{sheet}'").format(sheet=sheet)
    location = metadata.get("location")
    if location:  # an e-mail: its subject and date, document text shown as it is
        return str(location)
    if page is None:
        page, label = metadata.get("page"), metadata.get("page_label")
    return page_text(page, label)


def heading_beside(place: str, heading: str) -> str:
    """The heading path, unless the place already says it (a sheet's name)."""
    return "" if heading and heading.startswith("Sheet '") and place else heading


def where_text(source: Any) -> str:
    """Place (page, slide, sheet row, message) and/or heading path, or a dash."""
    parts = []
    place = place_text(
        getattr(source, "metadata", None) or {},
        getattr(source, "page", None),
        getattr(source, "page_label", None),
    )
    if place:
        parts.append(place)
    heading = heading_beside(place, getattr(source, "heading_path", "") or "")
    if heading:
        parts.append(heading)
    return " · ".join(parts) or "—"
