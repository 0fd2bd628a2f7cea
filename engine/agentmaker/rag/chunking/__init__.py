"""Splitting documents into chunks: Markdown by heading, structured data by record, the rest by
token count with overlap (``split_document``; ``ChunkingConfig`` holds the sizes).

May import: agentmaker.errors, agentmaker.resources, agentmaker.rag.documents.
"""
