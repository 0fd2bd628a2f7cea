"""How big chunks are: :class:`ChunkingConfig` (chunk size and overlap in tokens), validated once.

The splitters (markdown, text, structured) and ``split_document`` all take it; it lives
below them so none of them imports another one back.
"""

from __future__ import annotations

from dataclasses import dataclass

from agentmaker.errors import ConfigurationError

#: Below this a chunk cannot hold even a short sentence with its overlap.
MIN_CHUNK_TOKENS = 16


@dataclass(frozen=True)
class ChunkingConfig:
    """Chunk size and overlap, in ``cl100k_base`` tokens.

    ``overlap_tokens`` of the end of a chunk are repeated at the start of the next one
    (within one section, page or text; never across them).
    """

    chunk_tokens: int = 512
    overlap_tokens: int = 64

    def __post_init__(self) -> None:
        for name in ("chunk_tokens", "overlap_tokens"):
            value = getattr(self, name)
            # bool is an int subclass; True as a chunk size is a bug, not a setting.
            if not isinstance(value, int) or isinstance(value, bool):
                raise ConfigurationError(f"{name} must be a whole number of tokens, not {value!r}.")
        if self.chunk_tokens < MIN_CHUNK_TOKENS:
            raise ConfigurationError(
                f"chunk_tokens is {self.chunk_tokens}, but chunks need at least "
                f"{MIN_CHUNK_TOKENS} tokens. Use a larger chunk size (512 is a good default)."
            )
        if not 0 <= self.overlap_tokens < self.chunk_tokens:
            raise ConfigurationError(
                f"overlap_tokens is {self.overlap_tokens}, but it must be at least 0 and "
                f"smaller than chunk_tokens ({self.chunk_tokens}). "
                "Use an overlap of about an eighth of the chunk size."
            )
