"""Linked folders: scanning, keeping the library in sync with a folder on disk, watching for
changes, and the reports a person reads about them.

May import: agentmaker.rag.ingest and below; never the answer side.
"""
