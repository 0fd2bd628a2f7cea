"""Text that is not valid Unicode: lone surrogates, from any source a system produces.

Python represents bytes that are not UTF-8 as lone surrogates: a file name on Linux
(``os.fsdecode``: ``caf\\xe9`` becomes ``"caf\\udce9"``), a command-line argument, text
from a broken reader. SQLite, the tokenizers and the embedders refuse those strings.

- :func:`repair` turns them into real text for what is read and searched (a document's
  words, a question): escaped bytes are decoded as UTF-8 when they form it, else as
  Windows-1252 (what a Latin terminal or a Windows file usually meant), and any other
  lone surrogate becomes U+FFFD.
- :func:`escape` / :func:`unescape` map surrogates to private-use characters and back,
  losslessly, for what must stay exact: a file name, which is how the file is found again.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")
_ESCAPED_RUN = re.compile("[\udc80-\udcff]+")
# Surrogates live at U+D800-U+DFFF; escaped, at U+10D800-U+10DFFF (private use, plane 16).
_SHIFT = 0x100000
_ESCAPED = re.compile("[\U0010d800-\U0010dfff]")


def has_surrogates(text: str) -> bool:
    """True when ``text`` cannot be encoded as UTF-8."""
    return _SURROGATE.search(text) is not None


def _decode_run(match: re.Match[str]) -> str:
    raw = bytes(ord(c) - 0xDC00 for c in match.group())
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252", errors="replace")


def repair(text: str) -> str:
    """``text`` with every lone surrogate made into a real character (see the module)."""
    if not has_surrogates(text):
        return text
    # A surrogate pair written as two code points is one character: join it first.
    text = text.encode("utf-16", "surrogatepass").decode("utf-16", "surrogatepass")
    text = _ESCAPED_RUN.sub(_decode_run, text)
    return _SURROGATE.sub("\ufffd", text)


def escape(text: str) -> str:
    """``text`` with surrogates replaced by private-use characters (see :func:`unescape`)."""
    return _SURROGATE.sub(lambda m: chr(ord(m.group()) + _SHIFT), text)


def unescape(text: str) -> str:
    """The original of an :func:`escape` d string."""
    return _ESCAPED.sub(lambda m: chr(ord(m.group()) - _SHIFT), text)


def maybe_escaped(text: str) -> bool:
    """True when ``text`` may hold :func:`escape` d characters."""
    return _ESCAPED.search(text) is not None
