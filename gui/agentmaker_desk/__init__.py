"""agentmaker Desk: the offline desktop document assistant (the only place Qt lives).

The window talks to the async ``agentmaker`` engine through one object,
:class:`agentmaker_desk.bridge.bridge.EngineBridge`, which turns engine calls into Qt signals.
"""

__version__ = "0.1.0"
