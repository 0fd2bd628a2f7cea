"""The library side of the window: document tree and chunk browser, ingest panel, linked folders.

May import: PySide6, agentmaker_desk.widgets, agentmaker_desk.chat; the engine only through
the bridge.
"""
