"""The only place the window calls the engine: EngineBridge turns async engine calls into Qt
signals (folder links, OCR, progress relay and model construction live beside it).

May import: agentmaker (the engine), PySide6, agentmaker_desk.settings.
"""
