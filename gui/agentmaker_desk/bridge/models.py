"""Part of the bridge: turning the app's settings into engine objects.

Language-model clients, embedders and the engine's ``RagConfig`` are built here from
:class:`~agentmaker_desk.settings.settings.DeskSettings`;
:class:`~agentmaker_desk.bridge.bridge.EngineBridge`
calls these helpers. Like the bridge, this module talks to the engine; widgets never do.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QCoreApplication

from agentmaker_desk.settings.settings import (
    COHERE_ACCOUNT,
    DEFAULT_URLS,
    ApiKeyStore,
    DeskSettings,
    ModelChoice,
    builtin_model,
)


async def discover_servers() -> list[Any]:
    """Ollama / LM Studio servers running on this computer."""
    from agentmaker.models.discovery import discover_local_servers

    return await discover_local_servers()


def make_llm(choice: ModelChoice, keys: ApiKeyStore) -> Any:
    """An LLM client for ``choice`` (None for "none"); the key comes from the keyring."""
    if choice.kind == "none" or not choice.model:
        return None
    if choice.kind == "local":  # a GGUF file run by the built-in llama.cpp
        from agentmaker.models.gguf import read_gguf
        from agentmaker.models.llama_cpp import LlamaCppLLM

        info = read_gguf(choice.model)
        return LlamaCppLLM(choice.model, train_context=info.context_length, name=info.name)
    from agentmaker.models.openai_llm import OpenAICompatibleLLM

    base_url = choice.base_url or DEFAULT_URLS.get(choice.kind)
    return OpenAICompatibleLLM(
        choice.model, base_url=base_url, api_key=keys.get(choice.key_account)
    )


def make_embedder(choice: ModelChoice, keys: ApiKeyStore) -> Any:
    """The embedder for ``choice`` (a built-in local one for "builtin")."""
    if choice.kind != "server":
        from agentmaker.models.local_embedder import LocalEmbedder

        return LocalEmbedder(model=builtin_model(choice.model))  # type: ignore[arg-type]
    from agentmaker.models.openai_embedder import OpenAIEmbedder

    return OpenAIEmbedder(
        choice.model,
        base_url=choice.base_url or None,
        api_key=keys.get(choice.key_account),
    )


def rag_config(settings: DeskSettings, keys: ApiKeyStore, notice: Callable[[str], None]) -> Any:
    """The engine's RagConfig for these settings (``notice`` hears what was turned off)."""
    from agentmaker.rag.config import RagConfig
    from agentmaker.retrieval.types import RetrievalConfig

    r = settings.retrieval
    reranker = None
    if r.reranker:
        key = keys.get(COHERE_ACCOUNT)
        if key:
            from agentmaker.models.cohere_reranker import CohereReranker

            reranker = CohereReranker(api_key=key)
        else:
            notice(
                QCoreApplication.translate(
                    "EngineBridge", "Re-ranking needs a Cohere API key; it is off."
                )
            )
    return RagConfig(
        retrieval=RetrievalConfig(
            fusion="score", top_k=r.top_k, candidate_pool=max(20, r.top_k * 4)
        ),
        heading_context=r.heading_context,
        multi_query=3 if r.multi_query else 0,
        hyde=r.hyde,
        neighbor_window=r.neighbor_window,
        reranker=reranker,
    )
