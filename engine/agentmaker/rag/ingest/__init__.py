"""Documents in: the ingestion pipeline (read, chunk, contextualize, embed, write atomically),
batches of files with progress and cancel, and maintenance (verify, rebuild, heal).

May import: agentmaker.retrieval, agentmaker.rag.{documents,source_store,readers,chunking} and
the LLM port.
"""
