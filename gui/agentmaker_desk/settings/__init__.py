"""Settings: the stored preferences and API keys, the settings dialog, the password flow.

May import: PySide6, agentmaker_desk.widgets; the engine only through the bridge.
"""
