"""The test server itself: pgvector is there and each test gets a database of its own."""

from __future__ import annotations

import psycopg


def test_each_test_gets_an_empty_database_with_pgvector(pg_dsn: str) -> None:
    with psycopg.connect(pg_dsn) as conn:
        version = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname='vector'"
        ).fetchone()
        tables = conn.execute(
            "SELECT count(*) FROM information_schema.tables WHERE table_schema='public'"
        ).fetchone()
        distance = conn.execute("SELECT '[1,0]'::vector <=> '[0,1]'::vector").fetchone()
    assert version is not None and version[0] >= "0.5"
    assert tables == (0,)
    assert distance is not None and abs(distance[0] - 1.0) < 1e-9


def test_databases_are_not_shared(pg_server, pg_dsn: str) -> None:  # type: ignore[no-untyped-def]
    other = pg_server.fresh_database()
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE mine (x int)")
    with psycopg.connect(other) as conn:
        row = conn.execute("SELECT to_regclass('public.mine')").fetchone()
    assert row == (None,)
