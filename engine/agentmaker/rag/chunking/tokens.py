"""Token counting with OpenAI's ``cl100k_base`` encoding, loaded offline.

``tiktoken.get_encoding("cl100k_base")`` downloads the BPE ranks on first use, which
an offline desktop app cannot do. Instead the ranks are read from the bundled file
``resources/tiktoken/cl100k_base.tiktoken`` (checked against the sha256 that tiktoken
itself pins) and the :class:`tiktoken.Encoding` is built by hand with the same
pre-tokeniser pattern and special tokens as ``tiktoken_ext.openai_public``.

Special-token text such as ``<|endoftext|>`` inside a document is encoded as plain
text: documents are data, never control sequences.
"""

from __future__ import annotations

import base64
import hashlib
import re
from functools import cache

import tiktoken
from tiktoken_ext.openai_public import (
    ENDOFPROMPT,
    ENDOFTEXT,
    FIM_MIDDLE,
    FIM_PREFIX,
    FIM_SUFFIX,
)

from agentmaker.errors import ConfigurationError
from agentmaker.resources import resource_path

ENCODING_NAME = "cl100k_base"
#: sha256 of the bundled rank file; the same value tiktoken pins for its download.
CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"

# Copied from tiktoken_ext.openai_public.cl100k_base(): that function cannot be
# called because it downloads the ranks. A test checks the two stay identical.
CL100K_PAT_STR = (
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+"""
    r"""|\s++$|\s*[\r\n]|\s+(?!\S)|\s"""
)
CL100K_SPECIAL_TOKENS = {
    ENDOFTEXT: 100257,
    FIM_PREFIX: 100258,
    FIM_MIDDLE: 100259,
    FIM_SUFFIX: 100260,
    ENDOFPROMPT: 100276,
}

# Texts longer than this are counted piece by piece, so counting a 3 MB book never
# builds a list of ~800k token ids at once (same speed, bounded memory).
_LONG_TEXT_CHARS = 256_000
_PIECE_CHARS = 64_000
# A single space between two non-space characters: cutting just before it gives the
# same pre-tokenisation on both sides (every cl100k pattern that can contain a space
# starts with it), so per-piece counts add up to the exact total.
_SAFE_CUT = re.compile(r"(?<=\S) (?=\S)")
# tiktoken's pre-tokeniser backtracks over whitespace runs: a run of ~1M spaces makes
# it panic (stack overflow) and long runs are slow. Longer runs are encoded in slices
# of this many characters (the count may then differ by a token per slice).
_MAX_SPACE_RUN = 8192
# Matches every run of 64+ whitespace characters in one greedy pass; a pattern with
# the full length would rescan long-but-shorter runs from every position.
_SPACE_RUN = re.compile(r"\s{64,}")


def _load_ranks() -> dict[bytes, int]:
    path = resource_path("tiktoken", f"{ENCODING_NAME}.tiktoken")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ConfigurationError(
            f"The bundled token table {path} could not be read ({exc.strerror or exc}). "
            "Reinstall the app."
        ) from exc
    if hashlib.sha256(data).hexdigest() != CL100K_SHA256:
        raise ConfigurationError(
            f"The bundled token table {path} is damaged (checksum mismatch). Reinstall the app."
        )
    # Same format tiktoken.load.load_tiktoken_bpe parses ("<base64 token> <rank>" per
    # line); parsing it here avoids tiktoken copying the file into its temp cache.
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return ranks


@cache
def _bundle() -> tuple[tiktoken.Encoding, int]:
    ranks = _load_ranks()
    encoding = tiktoken.Encoding(
        name=ENCODING_NAME,
        pat_str=CL100K_PAT_STR,
        mergeable_ranks=ranks,
        special_tokens=CL100K_SPECIAL_TOKENS,
    )
    return encoding, max(len(token) for token in ranks)


def get_encoding() -> tiktoken.Encoding:
    """The ``cl100k_base`` encoding, built once from the bundled file (never downloads)."""
    return _bundle()[0]


def max_token_chars() -> int:
    """Upper bound on the characters one token can cover (its longest byte string).

    ``len(text) > n * max_token_chars()`` proves ``text`` has more than ``n`` tokens
    without encoding it.
    """
    return _bundle()[1]


def _space_safe(text: str) -> list[str]:
    """``text`` cut inside whitespace runs longer than ``_MAX_SPACE_RUN``."""
    if len(text) <= _MAX_SPACE_RUN:
        return [text]
    pieces: list[str] = []
    pos = 0
    for run in _SPACE_RUN.finditer(text):
        for cut in range(run.start() + _MAX_SPACE_RUN, run.end(), _MAX_SPACE_RUN):
            pieces.append(text[pos:cut])
            pos = cut
    pieces.append(text[pos:])
    return pieces


def encode(text: str) -> list[int]:
    """Token ids of ``text``; special-token strings are encoded as ordinary text."""
    encoding = get_encoding()
    pieces = _space_safe(text)
    if len(pieces) == 1:
        return encoding.encode_ordinary(text)
    return [token for piece in pieces for token in encoding.encode_ordinary(piece)]


def decode(tokens: list[int]) -> str:
    """Text of ``tokens`` (invalid UTF-8 at cut points is replaced, never raised)."""
    return get_encoding().decode(tokens, errors="replace")


def encode_with_offsets(text: str) -> tuple[list[int], list[int]]:
    """Token ids of ``text`` and, for each token, the index of its first character.

    A token that starts inside a multi-byte character points at that character, so
    slicing ``text`` at these offsets never splits a character.
    """
    encoding = get_encoding()
    tokens: list[int] = []
    offsets: list[int] = []
    start = 0
    for piece in _space_safe(text):
        piece_tokens = encoding.encode_ordinary(piece)
        _, piece_offsets = encoding.decode_with_offsets(piece_tokens)
        tokens.extend(piece_tokens)
        offsets.extend(start + offset for offset in piece_offsets)
        start += len(piece)
    return tokens, offsets


def _pieces(text: str) -> list[str]:
    pieces: list[str] = []
    start = 0
    while len(text) - start > _PIECE_CHARS:
        match = _SAFE_CUT.search(text, start + _PIECE_CHARS)
        if match is None:
            break
        pieces.append(text[start : match.start()])
        start = match.start()
    pieces.append(text[start:])
    return pieces


def count_tokens(text: str) -> int:
    """Number of ``cl100k_base`` tokens in ``text``.

    Exact, also for very long texts, except inside whitespace runs of thousands of
    characters (see ``_MAX_SPACE_RUN``).
    """
    encoding = get_encoding()
    if len(text) <= _MAX_SPACE_RUN:
        return len(encoding.encode_ordinary(text))
    total = 0
    for piece in _space_safe(text):
        if len(piece) <= _LONG_TEXT_CHARS:
            total += len(encoding.encode_ordinary(piece))
        else:
            total += sum(len(encoding.encode_ordinary(part)) for part in _pieces(piece))
    return total
