"""Small reusable widgets: activity bar, empty state, icons.

May import: PySide6 only (and agentmaker_desk.widgets itself).
"""
