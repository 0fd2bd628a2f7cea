"""A worked example for a small local model: a Chinese question answered as wanted.

Asked in Chinese, a 1.5B model told the rules often only points at a passage ("[4]"),
answers with the wrong name of the right passage, or says it does not know beside the
passage that answers. Shown once how an answer reads (the fact in a sentence of its own,
taken from the passage that answers, which is not the first), it answered 21 of 24
Chinese questions of three sets instead of 18. An English example measured on the same
sets cost more than it gave: the model then answered unanswerable questions with
another fact of the record (REPORT §10, session 15), so English questions get none.

The example is the app's own text, not the user's, and sits before the conversation, so
the runtime keeps it in its prompt cache with the system prompt.
"""

from __future__ import annotations

from agentmaker.models.llm import ChatMessage
from agentmaker.rag.answer.checked import in_chinese
from agentmaker.rag.answer.prompting import SourceRef, user_message

#: The example's own question tag: fixed, so the prompt's opening is the same in every
#: process (and cached); it guards nothing, the text is the app's.
_TAG = "5e1f0a2c"

_PASSAGES = [
    SourceRef(1, "该片于2023年4月28日在全国上映，片长118分钟。", title="电影新闻"),
    SourceRef(2, "电影《山海》由李明执导，编剧是王芳，讲的是海边小镇的故事。", title="电影新闻"),
]

_IN_CHINESE = (
    ChatMessage("user", user_message("电影《山海》的编剧是谁？", _PASSAGES, _TAG)),
    ChatMessage("assistant", "电影《山海》的编剧是王芳。[2]"),
)


def examples_for(question: str) -> tuple[ChatMessage, ...]:
    """The worked example to show before ``question``: one for a question in Chinese,
    none for others."""
    return _IN_CHINESE if in_chinese(question) else ()
