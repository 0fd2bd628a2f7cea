"""Chinese questions on the FTS5 keyword index: CJK runs next to digits or Latin letters."""

from __future__ import annotations

from pathlib import Path

from agentmaker.retrieval import Fts5KeywordIndex, RetrievalResult, Scope
from agentmaker.retrieval.text_analysis import query_terms

RAG = Scope(base="rag")
PASSAGES = {
    "growth": "国家统计局：2021年中国经济增长8.1%，两年平均增长5.1%。",
    "jobs": "2021年全国城镇新增就业1269万人，超额完成全年目标。",
    "bilibili": "B站2021财年总营收达193.8亿元，同比增长62%。",
    "weather": "今天北京天气晴朗，最高气温十五度。",
}


def test_a_cjk_run_after_digits_or_latin_letters_is_split() -> None:
    assert query_terms("2021年中国经济") == ["2021", "年中", "中国", "国经", "经济"]
    assert query_terms("B站2021财年") == ["b", "站", "2021", "财年"]
    assert query_terms("MU5735航班") == ["mu5735", "航班"]
    assert query_terms("東京都 café 123abc") == ["東京", "京都", "café", "123abc"]


def test_questions_that_start_with_a_year_find_their_passage(tmp_path: Path) -> None:
    index = Fts5KeywordIndex(tmp_path / "k.sqlite")
    try:
        index.add(
            [RetrievalResult(id=key, content=text) for key, text in PASSAGES.items()], scope=RAG
        )
        for question, expected in (
            ("2021年中国经济增长了多少？", "growth"),
            ("2021年中国城镇新增就业了多少人", "jobs"),
            ("B站2021财年总营收是多少？", "bilibili"),
        ):
            hits = index.search(question, top_k=2, scope=RAG)
            assert hits and hits[0].id == expected, (question, [h.id for h in hits])
    finally:
        index.close()
