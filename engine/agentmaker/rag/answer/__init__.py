"""Cited answers out: RagRetriever (retrieve, ask, ask_stream), the prompt, the extractive
answer used without a model, query transformers, neighbour expansion and the RAGTool.

May import: agentmaker.retrieval, agentmaker.rag.{documents,source_store} and the LLM port
(agentmaker.models.llm).
"""
