"""The ``agentmaker`` command on a team library: ``--library`` takes the URL."""

from __future__ import annotations

import json
from pathlib import Path

from agentmaker import cli
from agentmaker.library import Library
from agentmaker.testing import FakeEmbedder


def test_the_command_ingests_searches_and_verifies_a_team_library(
    pg_dsn: str, tmp_path: Path, monkeypatch, capsys
) -> None:
    opened: list[str] = []

    def open_fake(path, args):  # type: ignore[no-untyped-def]
        opened.append(str(path))
        return Library.open(path, embedder=FakeEmbedder())

    monkeypatch.setattr(cli, "_open", open_fake)
    doc = tmp_path / "policy.md"
    doc.write_text("# Policy\n## Meals\nThe daily meal allowance is 80.\n")
    assert cli.main(["--library", pg_dsn, "ingest", str(doc)]) == 0
    capsys.readouterr()
    assert cli.main(["--library", pg_dsn, "search", "meal allowance", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)
    assert "80" in json.dumps(hits, ensure_ascii=False)
    assert cli.main(["--library", pg_dsn, "stats", "--json"]) == 0
    stats = json.loads(capsys.readouterr().out)
    assert stats["documents"] == 1 and stats["indexed"] >= 1
    assert cli.main(["--library", pg_dsn, "verify"]) == 0
    assert "consistent" in capsys.readouterr().out
    assert opened == [pg_dsn] * 4  # the URL as given, never turned into a file path
    assert not (Path.cwd() / "postgresql:").exists()


def test_an_unreachable_server_is_a_clear_error(capsys) -> None:
    url = "postgresql://nobody:secret@127.0.0.1:1/none?connect_timeout=2"
    assert cli.main(["--library", url, "stats"]) == 2
    err = capsys.readouterr().err
    # The same plain words as Settings' Test connection, and never the password.
    assert "No PostgreSQL server answers at 127.0.0.1:1" in err and "server is running" in err
    assert "secret" not in err
