"""The SQLite batteries: one library file holding vectors (sign-bit codes + exact floats), an FTS5
keyword index and their bookkeeping, written in one transaction.

May import: agentmaker.errors and the generic agentmaker.retrieval modules; never agentmaker.rag.
"""
