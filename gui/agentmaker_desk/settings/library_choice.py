"""Which library the app opens: the file on this computer, or a team library.

A team library is a PostgreSQL database. Its address and user name are settings; its
password lives in the system keyring only (account :attr:`LibraryChoice.password_account`),
so an address is always stored without one — :func:`strip_password` takes out a password
someone pasted inside the URL.
"""

from __future__ import annotations

import urllib.parse
from dataclasses import dataclass

LIBRARY_KINDS = ("local", "team")
TEAM_SCHEMES = ("postgresql://", "postgres://")


def is_team_address(text: str) -> bool:
    """True when ``text`` is a PostgreSQL URL rather than a file path."""
    return text.strip().lower().startswith(TEAM_SCHEMES)


def strip_password(url: str) -> tuple[str, str | None]:
    """``url`` without a password in it, and that password (None when there was none)."""
    text = url.strip()
    if not is_team_address(text):
        return text, None
    parts = urllib.parse.urlsplit(text)
    credentials, at, host = parts.netloc.rpartition("@")
    if not at or ":" not in credentials:
        return text, None
    user, _, password = credentials.partition(":")
    netloc = f"{user}@{host}" if user else host
    return urllib.parse.urlunsplit(parts._replace(netloc=netloc)), urllib.parse.unquote(password)


@dataclass
class LibraryChoice:
    """``kind`` "local" (the library file) or "team" (``url`` + ``user``; no password)."""

    kind: str = "local"
    url: str = ""
    user: str = ""

    @property
    def is_team(self) -> bool:
        """True when the app should open the team library."""
        return self.kind == "team" and bool(self.url)

    @property
    def password_account(self) -> str:
        """The keyring account the team library's password is stored under."""
        return f"postgresql|{self.user}|{strip_password(self.url)[0]}"

    @property
    def display_name(self) -> str:
        """ "library on db.example.com" style: the database and its host, for titles."""
        parts = urllib.parse.urlsplit(strip_password(self.url)[0])
        database = parts.path.strip("/") or "?"
        host = parts.netloc.rpartition("@")[2] or "localhost"
        return f"{database} @ {host}"
