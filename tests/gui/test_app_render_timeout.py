"""The screenshot render (the build's GUI smoke) ends with the tasks' stacks, not a hang."""

from __future__ import annotations

import asyncio

import pytest
from agentmaker_desk.app import _within


def test_a_render_that_never_ends_prints_where_it_waits(capfd: pytest.CaptureFixture[str]) -> None:
    async def waits_forever() -> list[str]:
        await asyncio.Event().wait()
        return []

    assert asyncio.run(_within(waits_forever(), 0.05)) is None
    err = capfd.readouterr().err
    assert "did not finish within 0 s" in err and "waits_forever" in err


def test_a_render_that_ends_returns_its_files() -> None:
    async def renders() -> list[str]:
        return ["01-empty-en.png"]

    assert asyncio.run(_within(renders(), 5)) == ["01-empty-en.png"]
