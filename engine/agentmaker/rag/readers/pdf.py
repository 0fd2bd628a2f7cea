"""PDF files: text per page with exact page spans, plus forms, comments, labels.

pypdf opens the document first: it handles encryption (empty user password,
``password=``), page labels, form fields, annotations and attachments. PDFium
(pypdfium2) extracts the text, with pypdf as the fallback per page (see
``pdf_text`` for the measurements behind that choice). Pages are joined with a
blank line and ``metadata["page_spans"]`` gives each page's exact character range.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmaker.errors import (
    CorruptDocumentError,
    DocumentError,
    EmptyDocumentError,
    NoTextLayerError,
    PasswordRequiredError,
)
from agentmaker.rag.documents import Document
from agentmaker.rag.readers import pdf_extras
from agentmaker.rag.readers.pdf_text import (
    Dehyphenator,
    has_rtl,
    normalize_page_text,
    pdfium_page_text,
    pypdf_page_text,
)

_PAGE_SEPARATOR = "\n\n"


def _damaged(path: Path, reason: str) -> CorruptDocumentError:
    return CorruptDocumentError(
        f"is damaged or incomplete ({reason}); re-download or re-export it.", path
    )


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().rstrip(".")
    return text[:1].lower() + text[1:] if text else type(exc).__name__


def _open_pypdf(
    path: Path, password: str | None, warnings: list[str], problems: list[str]
) -> tuple[Any, str | None]:
    """Open and decrypt with pypdf: (reader or None if unreadable, password that worked).

    A reader of ``None`` means pypdf could not parse the file (the reason is added
    to ``problems``); the caller then lets PDFium try (it repairs some damage pypdf
    cannot) before calling the file corrupt.
    """
    from pypdf import PasswordType, PdfReader
    from pypdf.errors import DependencyError, EmptyFileError

    try:
        reader = PdfReader(str(path), strict=False)
        encrypted = reader.is_encrypted
    except EmptyFileError:
        raise EmptyDocumentError("is empty (0 bytes); there is nothing to index.", path) from None
    except Exception as exc:  # PdfReadError, PdfStreamError, and worse on broken files
        problems.append(_reason(exc))
        return None, None
    if not encrypted:
        return reader, None
    try:
        used: str | None = ""
        if reader.decrypt("") == PasswordType.NOT_DECRYPTED:
            if password is None:
                raise PasswordRequiredError(
                    "is password-protected. Enter its password to index it.", path
                )
            if reader.decrypt(password) == PasswordType.NOT_DECRYPTED:
                raise PasswordRequiredError(
                    "is password-protected and the password given is not correct. "
                    "Enter the right password to index it.",
                    path,
                )
            used = password
    except DependencyError as exc:
        raise DocumentError(
            f"uses encryption that needs an extra library ({_reason(exc)}). "
            "Reinstall the app, or save the PDF without encryption.",
            path,
        ) from None
    except (PasswordRequiredError, DocumentError):
        raise
    except Exception as exc:
        raise _damaged(path, f"its encryption data cannot be read: {_reason(exc)}") from None
    try:
        if pdf_extras.copy_restricted(reader):
            warnings.append(
                "The PDF's owner does not allow copying its text; it was extracted "
                "for your own search only. Respect the restriction when quoting."
            )
    except Exception:  # permissions are informational only
        pass
    return reader, used


def _open_pdfium(path: Path, password: str | None) -> Any:
    import pypdfium2

    return pypdfium2.PdfDocument(str(path), password=password or None)


def read_pdf_file(path: Path, *, password: str | None = None) -> Document:
    """Read a PDF into a ``pdf`` Document with ``page_spans`` and page labels.

    Raises ``PasswordRequiredError`` (encrypted, no or wrong password),
    ``CorruptDocumentError`` (truncated or damaged), ``NoTextLayerError`` (no page
    has text: scanned/image-only) and ``EmptyDocumentError``.
    """
    pdf_extras.quiet_pypdf_logging()
    warnings: list[str] = []
    open_problems: list[str] = []
    reader, used_password = _open_pypdf(path, password, warnings, open_problems)
    pypdf_pages = 0
    if reader is not None:
        try:
            pypdf_pages = len(reader.pages)
        except Exception as exc:
            open_problems.append(_reason(exc))
            reader = None

    pdfium_doc: Any = None
    try:
        pdfium_doc = _open_pdfium(path, used_password if reader is not None else password)
    except Exception as exc:
        if reader is None:
            if "password" in str(exc).lower():
                raise PasswordRequiredError(
                    "is password-protected. Enter its password to index it.", path
                ) from None
            raise _damaged(path, open_problems[0] if open_problems else _reason(exc)) from None
        warnings.append(f"PDFium could not open the file ({_reason(exc)}); pypdf was used.")
    if reader is None:
        warnings.append(
            f"The PDF's structure is damaged ({open_problems[0] if open_problems else 'unknown'}); "
            "its text was recovered with PDFium and may be incomplete."
        )
    try:
        return _build(path, reader, pypdf_pages, pdfium_doc, warnings)
    finally:
        if pdfium_doc is not None:
            pdfium_doc.close()


def _build(
    path: Path, reader: Any, pypdf_pages: int, pdfium_doc: Any, warnings: list[str]
) -> Document:
    page_count = len(pdfium_doc) if pdfium_doc is not None else pypdf_pages
    if page_count == 0:
        raise EmptyDocumentError("has no pages; there is nothing to index.", path)
    if reader is not None and pdfium_doc is not None and pypdf_pages != page_count:
        warnings.append(
            f"pypdf sees {pypdf_pages} pages and PDFium {page_count}; the PDF's page "
            "tree is inconsistent."
        )
    if not _ends_with_eof_marker(path):
        warnings.append(
            "The file has no end-of-file marker (%%EOF); it may be truncated, so some "
            "pages or text may be missing."
        )

    labels = pdf_extras.page_labels(reader, page_count, warnings)
    extras, counts, files = pdf_extras.collect_extras(
        reader, min(pypdf_pages, page_count), warnings
    )
    parts: list[str] = []
    spans: list[list[Any]] = []
    without_text: list[int] = []
    failed: list[int] = []
    position = 0
    raw_pages = _pdfium_pages(pdfium_doc, page_count)
    dehyphenate = Dehyphenator(raw for raw in raw_pages if isinstance(raw, str))
    for index in range(page_count):
        raw = raw_pages[index] if index < len(raw_pages) else None
        text, ok = _page_text(raw, dehyphenate, reader, index, pypdf_pages, warnings)
        if not ok:
            failed.append(index + 1)
        elif not text:
            without_text.append(index + 1)
        extra = extras.get(index, "")
        text = f"{text}\n\n{extra}" if text and extra else text or extra
        if text:
            if parts:
                parts.append(_PAGE_SEPARATOR)
                position += len(_PAGE_SEPARATOR)
            parts.append(text)
            spans.append([position, position + len(text), index + 1, labels[index]])
            position += len(text)
        else:
            spans.append([position, position, index + 1, labels[index]])
    content = "".join(parts)

    if len(failed) == page_count:
        raise _damaged(path, "none of its pages could be read")
    if len(without_text) + len(failed) == page_count:
        raise NoTextLayerError(
            "has no text layer: it looks scanned or image-only. OCR is needed to index it.",
            path,
        )
    _summarise(warnings, page_count, without_text, counts, files)
    metadata: dict[str, Any] = {
        "warnings": warnings,
        "page_count": page_count,
        "page_spans": spans,
        "pages_without_text": without_text,
        "pages_failed": failed,
        "form_fields": counts["fields"],
        "annotations": counts["comments"],
        "attachments": files,
        "encrypted": bool(reader is not None and reader.is_encrypted),
    }
    return Document(
        content=content,
        title=pdf_extras.document_title(reader, path.stem),
        format="pdf",
        metadata=metadata,
    )


def _pdfium_pages(pdfium_doc: Any, page_count: int) -> list[str | BaseException]:
    """Raw PDFium text of every page, or the exception that page raised."""
    pages: list[str | BaseException] = []
    for index in range(page_count if pdfium_doc is not None else 0):
        try:
            pages.append(pdfium_page_text(pdfium_doc, index))
        except Exception as exc:  # one bad page must not cost the others
            pages.append(exc)
    return pages


def _page_text(
    raw: str | BaseException | None,
    dehyphenate: Dehyphenator,
    reader: Any,
    index: int,
    pypdf_pages: int,
    warnings: list[str],
) -> tuple[str, bool]:
    """Normalised text of one page and whether any engine could read it."""
    text, ok, problem = "", False, ""
    if isinstance(raw, str):
        text, ok = normalize_page_text(dehyphenate(raw)), True
    elif raw is not None:
        problem = _reason(raw)
    if reader is not None and index < pypdf_pages and (not text or has_rtl(text)):
        try:
            alternative = normalize_page_text(pypdf_page_text(reader, index))
            ok = True
        except Exception as exc:
            problem = problem or _reason(exc)
        else:
            if alternative:
                text = alternative
    if not ok:
        warnings.append(f"Page {index + 1} could not be read ({problem}); it was skipped.")
    return text, ok


def _summarise(
    warnings: list[str],
    page_count: int,
    without_text: list[int],
    counts: dict[str, int],
    files: list[str],
) -> None:
    if without_text:
        listed = ", ".join(str(n) for n in without_text[:20])
        more = f" and {len(without_text) - 20} more" if len(without_text) > 20 else ""
        warnings.append(
            f"{len(without_text)} of {page_count} page(s) have no text layer (page "
            f"{listed}{more}); they look scanned and need OCR to be searchable."
        )
    if counts["fields"]:
        warnings.append(
            f"{counts['fields']} form field value(s) were added to the text of their pages."
        )
    if counts["comments"]:
        warnings.append(
            f"{counts['comments']} annotation comment(s) were added to the text of their pages."
        )
    if files:
        warnings.append(f"Embedded file(s) not indexed: {', '.join(files)}.")


def _ends_with_eof_marker(path: Path) -> bool:
    with path.open("rb") as handle:
        handle.seek(0, 2)
        size = handle.tell()
        handle.seek(max(0, size - 8192))  # some writers pad after %%EOF
        return b"%%EOF" in handle.read()
