"""The asking side of the window: ask box, answer pane, sources list and the passage view.

May import: PySide6, agentmaker_desk.widgets; the engine only through the bridge.
"""
