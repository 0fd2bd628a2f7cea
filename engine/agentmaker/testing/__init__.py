"""Deterministic, offline fakes of the model ports, for tests and examples.

They are real implementations of the real ports: code under test runs its real
paths, only the model's arithmetic is replaced.
"""

from agentmaker.testing.fakes import FakeEmbedder, FakeReranker, ScriptedLLM

__all__ = ["FakeEmbedder", "FakeReranker", "ScriptedLLM"]
