"""Engine errors in the interface language.

Engine errors carry a stable ``code`` and the values of their message (``params``, see
``agentmaker.errors``). This table holds the texts translators translate, one per code
(some with a shorter second form for when a value is missing). A code without a
translation in the current language - English included, and codes added to the engine
later - shows the engine's own English sentence, which is the most precise one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

_CONTEXT = "EngineMessages"

#: code → message templates, best first (a template whose values are missing is skipped).
MESSAGES: dict[str, tuple[str, ...]] = {
    # files
    "file_missing": (
        QT_TRANSLATE_NOOP(
            "EngineMessages",
            "{file}: the file no longer exists; it may have been moved, renamed or deleted.",
        ),
    ),
    "file_locked": (
        QT_TRANSLATE_NOOP(
            "EngineMessages",
            "{file}: the file cannot be opened: another program may be using it, or you may "
            "not read it. Close it there or check its permissions, then try again.",
        ),
    ),
    "unreadable": (QT_TRANSLATE_NOOP("EngineMessages", "{file}: the file could not be read."),),
    "unexpected": (
        QT_TRANSLATE_NOOP(
            "EngineMessages", "{file}: an unexpected problem stopped the file from being read."
        ),
    ),
    "unsupported_type": (
        QT_TRANSLATE_NOOP(
            "EngineMessages", "{file}: files of this type ({extension}) cannot be indexed."
        ),
    ),
    "unsupported": (
        QT_TRANSLATE_NOOP("EngineMessages", "{file}: this kind of file cannot be indexed."),
    ),
    "format_mismatch": (
        QT_TRANSLATE_NOOP(
            "EngineMessages",
            "{file}: the content does not match the file's extension. Give it the extension "
            "of its real type, or save it again.",
        ),
    ),
    "empty": (
        QT_TRANSLATE_NOOP(
            "EngineMessages", "{file}: the file is empty; there is nothing to index."
        ),
    ),
    "corrupt": (
        QT_TRANSLATE_NOOP(
            "EngineMessages",
            "{file}: the file is damaged or incomplete and cannot be read. Save or export it "
            "again, then add it again.",
        ),
    ),
    "password_required": (
        QT_TRANSLATE_NOOP(
            "EngineMessages",
            "{file}: the file is protected by a password. Enter its password to add it.",
        ),
    ),
    "no_text_layer": (
        QT_TRANSLATE_NOOP(
            "EngineMessages",
            "{file}: the file has no text, only scanned pages. Turn on reading scanned pages "
            "(OCR) in Settings to add it.",
        ),
    ),
    "too_large": (
        QT_TRANSLATE_NOOP(
            "EngineMessages",
            "{file}: the file is {size_mb} MB, more than the limit of {limit_mb} MB. Split it "
            "into smaller files.",
        ),
        QT_TRANSLATE_NOOP(
            "EngineMessages", "{file}: the file is too large to read. Split it into smaller files."
        ),
    ),
    # servers and models
    "server_unreachable": (
        QT_TRANSLATE_NOOP(
            "EngineMessages",
            "Could not reach the server at {url}. Check that it is running and that its "
            "address in Settings is right.",
        ),
        QT_TRANSLATE_NOOP(
            "EngineMessages",
            "The model server could not be reached. Check that it is running and that its "
            "address in Settings is right.",
        ),
    ),
    "connection_lost": (
        QT_TRANSLATE_NOOP(
            "EngineMessages",
            "The connection to {url} broke off. Check that the server runs and try again.",
        ),
    ),
    "server_timeout": (
        QT_TRANSLATE_NOOP(
            "EngineMessages",
            "The server at {url} did not answer within {seconds} s. It may be busy or still "
            "loading the model; try again.",
        ),
    ),
    "auth_rejected": (
        QT_TRANSLATE_NOOP(
            "EngineMessages", "The server at {url} rejected the API key. Check the key in Settings."
        ),
        QT_TRANSLATE_NOOP(
            "EngineMessages", "The server rejected the API key. Check the key in Settings."
        ),
    ),
    "auth_refused": (
        QT_TRANSLATE_NOOP(
            "EngineMessages",
            "The server at {url} refused access to “{model}” with this API key. Check the key "
            "and its permissions in Settings.",
        ),
    ),
    "auth_missing": (
        QT_TRANSLATE_NOOP(
            "EngineMessages", "No API key is set for {url}. Add your key in Settings."
        ),
    ),
    "model_missing": (
        QT_TRANSLATE_NOOP(
            "EngineMessages",
            "The server at {url} has no model “{model}”. Pick one of its models in Settings.",
        ),
        QT_TRANSLATE_NOOP(
            "EngineMessages",
            "The server does not have the chosen model. Pick one of its models in Settings.",
        ),
    ),
    "rate_limited": (
        QT_TRANSLATE_NOOP(
            "EngineMessages",
            "The server keeps answering “too many requests”. Wait a minute and try again.",
        ),
    ),
    # the library and questions
    "disk_full": (
        QT_TRANSLATE_NOOP(
            "EngineMessages",
            "The disk is full: the library could not be saved. Free some space and try "
            "again; nothing already in the library was lost.",
        ),
    ),
    "library_locked": (
        QT_TRANSLATE_NOOP(
            "EngineMessages",
            "Another program has this library open for writing. Close it there and try again.",
        ),
    ),
    "query_empty": (
        QT_TRANSLATE_NOOP(
            "EngineMessages", "The question has no words in it. Type what you are looking for."
        ),
    ),
    "query_too_long": (
        QT_TRANSLATE_NOOP(
            "EngineMessages",
            "The question is {length} characters long; the limit is {limit}. Shorten it to "
            "what you want to know.",
        ),
    ),
    # linked folders
    "not_a_folder": (
        QT_TRANSLATE_NOOP("EngineMessages", "{folder} is not a folder, or it cannot be reached."),
    ),
    "folder_inside_linked": (
        QT_TRANSLATE_NOOP(
            "EngineMessages", "{folder} is already followed as part of the linked folder {parent}."
        ),
    ),
    "folder_not_linked": (QT_TRANSLATE_NOOP("EngineMessages", "{folder} is not a linked folder."),),
    "folder_linked_elsewhere": (
        QT_TRANSLATE_NOOP(
            "EngineMessages",
            "{folder} is already linked to this team library on the computer {computer}. Link "
            "it there, or add its files instead of linking the folder.",
        ),
    ),
    "folder_linked_by_someone": (
        QT_TRANSLATE_NOOP(
            "EngineMessages",
            "{folder} is already linked to this team library by someone else. Add its files "
            "instead of linking the folder.",
        ),
    ),
}


#: The error codes behind the kinds of failure a linked folder remembers (its database
#: keeps the kind, not the code): enough to say what happened in another language.
KIND_CODES: dict[str, str] = {
    "password_required": "password_required",
    "no_text": "no_text_layer",
    "corrupt": "corrupt",
    "empty": "empty",
    "unsupported": "unsupported",
    "too_large": "too_large",
}


def engine_text(
    error: BaseException | None = None,
    *,
    code: str | None = None,
    params: Mapping[str, Any] | None = None,
    fallback: str = "",
) -> str:
    """The message of ``error`` (or of ``code`` + ``params``) in the interface language.

    Falls back to ``str(error)`` (or ``fallback``) when the code is unknown, the current
    language has no translation of it, or a value the text needs is missing.
    """
    if error is not None:
        code = getattr(error, "code", None)
        params = getattr(error, "params", None)
        fallback = str(error)
    values = dict(params or {})
    for template in MESSAGES.get(code or "", ()):
        translated = QCoreApplication.translate(_CONTEXT, template)
        if translated == template:
            continue  # not translated here (English): the engine's sentence says more
        try:
            return translated.format(**values)
        except (KeyError, IndexError, ValueError):
            continue
    return fallback


__all__ = ["KIND_CODES", "MESSAGES", "engine_text"]
