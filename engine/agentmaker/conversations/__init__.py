"""Conversations: chat threads stored in the library, with follow-up questions.

``library.conversations`` (:class:`Conversations`) creates, lists, searches, exports and
asks within conversations; each turn keeps a snapshot of the passages its answer cited.

Imports: this package may import ``agentmaker.errors``, ``agentmaker.models.llm`` (the
port only), ``agentmaker.retrieval`` (the SQLite file, text analysis, scopes) and
``agentmaker.rag`` (the answering retriever and its prompt types). Nothing in ``rag`` or
``retrieval`` imports it; only ``agentmaker.library`` wires it in. Never Qt.
"""

from agentmaker.conversations.condense import (
    Exchange,
    condense_by_rule,
    condense_with_model,
    looks_like_follow_up,
)
from agentmaker.conversations.export import to_html, to_markdown
from agentmaker.conversations.history import history_messages
from agentmaker.conversations.records import (
    Conversation,
    ConversationSummary,
    SearchHit,
    SourceStatus,
    Turn,
    TurnSource,
)
from agentmaker.conversations.service import ConversationAnswerStream, Conversations
from agentmaker.conversations.store import ConversationStore

__all__ = [
    "Conversation",
    "ConversationAnswerStream",
    "ConversationStore",
    "ConversationSummary",
    "Conversations",
    "Exchange",
    "SearchHit",
    "SourceStatus",
    "Turn",
    "TurnSource",
    "condense_by_rule",
    "condense_with_model",
    "history_messages",
    "looks_like_follow_up",
    "to_html",
    "to_markdown",
]
