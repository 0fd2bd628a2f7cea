"""Office containers checked before any library opens them.

Word, PowerPoint, Excel and OpenDocument files are ZIP archives of XML parts. Two
hostile shapes are refused here, on the archive's own directory and the parts'
first bytes, so python-pptx, openpyxl or an XML parser never see them:

- a *ZIP bomb*: a small file whose parts unpack to gigabytes (the total unpacked
  size and each large part's compression ratio are limited);
- *entity expansion* ("billion laughs"): XML that declares entities in a DOCTYPE.
  Office formats never carry a DOCTYPE, so any part that has one is refused.

Encrypted OOXML files (a password set in Office) are OLE2 containers holding the
real ZIP; ``open_office`` decrypts them in memory with msoffcrypto-tool when the
password is given and raises ``PasswordRequiredError`` otherwise.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from pathlib import Path
from typing import IO

from agentmaker.errors import CorruptDocumentError, FileTooLargeError, PasswordRequiredError

#: Total unpacked size of all parts: far above any real document (a 1M-row workbook
#: is ~150 MB of XML), far below what exhausts a laptop.
MAX_UNPACKED_BYTES = 2 * 1024 * 1024 * 1024
#: A part larger than ``RATIO_FLOOR`` bytes may unpack to at most this many times its
#: packed size. Real sheet and slide XML measured 5-60x; deflate's maximum is ~1030x,
#: which is what bombs use.
MAX_RATIO = 200
RATIO_FLOOR = 16 * 1024 * 1024
MAX_MEMBERS = 100_000
#: How much of each XML part's beginning is searched for a DOCTYPE (the prolog).
PROLOG_BYTES = 64 * 1024

OfficeSource = Path | IO[bytes]


def _damaged(path: Path, what: str, detail: str) -> CorruptDocumentError:
    return CorruptDocumentError(
        f"is damaged or incomplete ({detail}); re-download the {what} or save it again.", path
    )


def check_archive(source: OfficeSource, path: Path, what: str) -> list[str]:
    """Check a ZIP container's size, ratios and XML prologs; return its member names.

    ``source`` is the file or its decrypted bytes; ``path`` and ``what`` ("Excel
    workbook") name it in messages. Raises ``CorruptDocumentError`` (not a complete
    ZIP, DOCTYPE found) or ``FileTooLargeError`` (a ZIP bomb).
    """
    try:
        with zipfile.ZipFile(source) as archive:
            infos = archive.infolist()
            _check_sizes(infos, path, what)
            for info in infos:
                if _is_xml(info.filename):
                    _check_prolog(archive, info, path, what)
    except zipfile.BadZipFile as exc:
        raise _damaged(path, what, f"it is not a complete ZIP archive: {exc}") from None
    except (OSError, EOFError, ValueError, zlib.error, NotImplementedError) as exc:
        raise _damaged(path, what, f"the ZIP archive cannot be read: {exc}") from None
    finally:
        if not isinstance(source, Path):
            source.seek(0)
    return [info.filename for info in infos]


def _check_sizes(infos: list[zipfile.ZipInfo], path: Path, what: str) -> None:
    if len(infos) > MAX_MEMBERS:
        raise FileTooLargeError(
            f"holds {len(infos):,} parts, far more than any real {what}; it was not opened.",
            path,
        )
    total = sum(info.file_size for info in infos)
    if total > MAX_UNPACKED_BYTES:
        raise FileTooLargeError(
            f"unpacks to {total / 1024**3:,.1f} GiB, far more than any real {what} "
            "(it looks like a ZIP bomb); it was not opened.",
            path,
        )
    for info in infos:
        if info.file_size > RATIO_FLOOR and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise FileTooLargeError(
                f"has a part ({info.filename}) that unpacks {info.file_size // 1024**2:,} MB "
                f"from {max(info.compress_size, 1) // 1024:,} KB — a compression ratio no "
                f"real {what} has (it looks like a ZIP bomb); it was not opened.",
                path,
            )


def _is_xml(name: str) -> bool:
    return name.lower().endswith((".xml", ".rels", ".vml"))


def _check_prolog(archive: zipfile.ZipFile, info: zipfile.ZipInfo, path: Path, what: str) -> None:
    """Refuse a part whose prolog declares a DOCTYPE (entities live only there)."""
    with archive.open(info) as part:
        head = part.read(PROLOG_BYTES)
    upper = head.upper()
    # UTF-16 parts: look at the text without its NUL bytes.
    if head[:2] in (b"\xff\xfe", b"\xfe\xff"):
        upper = upper.replace(b"\x00", b"")
    if b"<!DOCTYPE" in upper or b"<!ENTITY" in upper:
        raise CorruptDocumentError(
            f"contains an XML part ({info.filename}) with a document type declaration. "
            f"No real {what} has one; it can be used to make XML expand without end "
            "(a 'billion laughs' attack), so the file was not opened.",
            path,
        )


def is_encrypted_ooxml(path: Path) -> bool:
    """True when ``path`` is an OLE2 container holding an encrypted Office package."""
    marker = "EncryptionInfo".encode("utf-16-le")
    try:
        with path.open("rb") as handle:
            return marker in handle.read(1024 * 1024)
    except OSError:
        return False


def decrypt_office(path: Path, password: str | None, what: str, how_to_remove: str) -> IO[bytes]:
    """Decrypt a password-protected OOXML file into memory (msoffcrypto-tool).

    Raises ``PasswordRequiredError`` when no password is given or it is wrong.
    """
    if password is None:
        raise PasswordRequiredError(
            f"is a password-protected {what}. Enter its password to index it, or remove "
            f"the password ({how_to_remove}) and save it again.",
            path,
        )
    import msoffcrypto
    from msoffcrypto.exceptions import DecryptionError, InvalidKeyError

    out = io.BytesIO()
    try:
        with path.open("rb") as handle:
            office = msoffcrypto.OfficeFile(handle)
            office.load_key(password=password)
            office.decrypt(out)
    except (InvalidKeyError, DecryptionError):
        raise PasswordRequiredError(
            f"is a password-protected {what} and the password given is not correct. "
            "Enter the right password to index it.",
            path,
        ) from None
    except Exception as exc:  # msoffcrypto raises bare exceptions on unknown layouts
        raise _damaged(path, what, f"its encryption cannot be read: {exc}") from None
    out.seek(0)
    return out


def open_office(
    path: Path, what: str, how_to_remove: str, password: str | None = None
) -> tuple[OfficeSource, list[str]]:
    """The package to hand to a library (the file, or its decrypted bytes) and its parts.

    The container is checked (``check_archive``) before it is returned.
    """
    with path.open("rb") as handle:
        head = handle.read(8)
    source: OfficeSource = path
    if head.startswith(b"\xd0\xcf\x11\xe0") and is_encrypted_ooxml(path):
        source = decrypt_office(path, password, what, how_to_remove)
    return source, check_archive(source, path, what)
