"""The asking side of the window: the chats list, the transcript, the ask box and the
passage view (plus the single-answer pane and sources list they reuse helpers from).

May import: PySide6, agentmaker_desk.widgets; the engine only through the bridge.
"""
