"""What a question or a search must be before anything is searched.

The public search and answer methods (``HybridRetriever.search*``,
``RagRetriever.retrieve/ask/ask_stream``, the CLI) check their input here, so a
question without a word in it (empty, spaces, ``"*"``, emoji only) is refused with
plain words instead of answered from arbitrary passages, and a wrong type or a
``top_k`` below 1 is a typed error rather than an ``AttributeError`` deep inside.
Text that is not valid Unicode is repaired (``agentmaker.unicode_text.repair``).
"""

from __future__ import annotations

from agentmaker.errors import InvalidQueryError
from agentmaker.unicode_text import repair

#: Longer questions are refused: nobody types this much, and it would be embedded whole.
MAX_QUERY_CHARS = 20_000


def is_searchable(text: str) -> bool:
    """True when ``text`` has at least one letter or digit (in any script)."""
    return any(ch.isalnum() for ch in text)


def check_query(query: object, *, what: str = "question") -> str:
    """``query`` as text ready to search; :class:`InvalidQueryError` when it is none."""
    if not isinstance(query, str):
        raise InvalidQueryError(
            f"The {what} must be text, not {type(query).__name__}. Type it as words."
        )
    text = repair(query).strip()
    if not is_searchable(text):
        shown = f" ({text!r})" if text else ""
        raise InvalidQueryError(
            f"The {what} has no words in it{shown}. Type what you are looking for, "
            "e.g. “hotel costs per night”."
        ).coded("query_empty")
    if len(text) > MAX_QUERY_CHARS:
        raise InvalidQueryError(
            f"The {what} is {len(text):,} characters long; the limit is "
            f"{MAX_QUERY_CHARS:,}. Shorten it to what you want to know."
        ).coded("query_too_long", length=f"{len(text):,}", limit=f"{MAX_QUERY_CHARS:,}")
    return text


def check_top_k(top_k: object) -> int | None:
    """``top_k`` when it is None or a whole number of at least 1."""
    if top_k is None:
        return None
    if isinstance(top_k, bool) or not isinstance(top_k, int):
        raise InvalidQueryError(
            f"top_k must be a whole number of passages, not {type(top_k).__name__}."
        )
    if top_k < 1:
        raise InvalidQueryError(
            f"top_k must be at least 1 (got {top_k}): ask for 1 or more passages."
        )
    return top_k
