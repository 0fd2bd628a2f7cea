"""The benchmark metrics against hand-computed values (trec_eval definitions)."""

from __future__ import annotations

import math

import pytest

from benchmarks.metrics import (
    dcg,
    doc_ranking,
    evaluate,
    ndcg_at_k,
    paired_bootstrap,
    recall_at_k,
)


def test_dcg_uses_linear_gain_and_log2_discount() -> None:
    # 3/log2(2) + 2/log2(3) + 0 + 1/log2(5)
    assert dcg([3, 2, 0, 1]) == pytest.approx(3 + 2 / math.log2(3) + 1 / math.log2(5))


def test_ndcg_perfect_ranking_is_one() -> None:
    assert ndcg_at_k(["a", "b"], {"a": 1, "b": 1}) == pytest.approx(1.0)


def test_ndcg_single_relevant_doc_at_rank_three() -> None:
    # DCG = 1/log2(4) = 0.5, IDCG = 1
    assert ndcg_at_k(["x", "y", "a"], {"a": 1}) == pytest.approx(0.5)


def test_ndcg_graded_relevance_hand_computed() -> None:
    judged = {"a": 2, "b": 1, "c": 0}
    ranked = ["b", "c", "a"]
    dcg_run = 1 / math.log2(2) + 0 + 2 / math.log2(4)  # = 1 + 1 = 2
    idcg = 2 / math.log2(2) + 1 / math.log2(3)  # = 2 + 0.6309...
    assert ndcg_at_k(ranked, judged) == pytest.approx(dcg_run / idcg)
    assert ndcg_at_k(ranked, judged) == pytest.approx(2 / (2 + 1 / math.log2(3)))


def test_ndcg_cut_ignores_hits_below_k_but_ideal_is_cut_too() -> None:
    judged = {"a": 1, "b": 1, "c": 1}
    ranked = ["a", "x", "b", "c"]
    # k=2: DCG = 1; IDCG over the best 2 of 3 relevant = 1 + 1/log2(3)
    assert ndcg_at_k(ranked, judged, k=2) == pytest.approx(1 / (1 + 1 / math.log2(3)))


def test_ndcg_counts_a_repeated_document_once() -> None:
    # Two chunks of doc "x" must not take two ranks (nor gain twice).
    assert ndcg_at_k(["x", "x", "a"], {"a": 1}) == pytest.approx(1 / math.log2(3))
    assert ndcg_at_k(["a", "a"], {"a": 1}) == pytest.approx(1.0)


def test_ndcg_negative_and_unjudged_grades_count_zero() -> None:
    assert ndcg_at_k(["n", "a"], {"a": 1, "n": -1}) == pytest.approx(1 / math.log2(3))
    assert ndcg_at_k(["n"], {"n": 0}) == 0.0


def test_recall_at_k() -> None:
    judged = {"a": 1, "b": 1, "c": 2, "d": 0}
    assert recall_at_k(["a", "x", "c", "d"], judged, k=100) == pytest.approx(2 / 3)
    assert recall_at_k(["x", "a"], judged, k=1) == 0.0
    assert recall_at_k([], judged) == 0.0
    assert recall_at_k(["a"], {"a": 0}) == 0.0


def test_doc_ranking_keeps_each_docs_best_chunk() -> None:
    assert doc_ranking(["d1", "d2", "d1", "d3", "d2"]) == ["d1", "d2", "d3"]


def test_evaluate_means_over_judged_queries_missing_runs_score_zero() -> None:
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}, "q3": {"c": 0}}
    runs = {"q1": ["a"], "q3": ["c"]}
    result = evaluate(runs, qrels)
    # q3 has no relevant doc and is not a judged query; q2 has no run and scores 0.
    assert result == {"ndcg": pytest.approx(0.5), "recall": pytest.approx(0.5), "queries": 2}
    assert evaluate(runs, qrels, queries=["q1"])["ndcg"] == pytest.approx(1.0)


def test_paired_bootstrap_mean_difference() -> None:
    a = {"q1": 0.0, "q2": 0.5, "q3": 1.0}
    b = {"q1": 0.5, "q2": 0.5, "q3": 1.0}
    mean, low, high = paired_bootstrap(a, b, samples=200)
    assert mean == pytest.approx(1 / 6)
    assert 0.0 <= low <= mean <= high <= 0.5


# --- the fusions the benchmarks measure (weighted RRF, score fusion), hand-computed ---


def _hits(*pairs: tuple[str, float]) -> list:
    from agentmaker.retrieval.types import RetrievalResult

    return [RetrievalResult(content=i, score=s, id=i) for i, s in pairs]


def test_weighted_rrf_hand_computed() -> None:
    from agentmaker.retrieval.fusion import reciprocal_rank_fusion

    fused = reciprocal_rank_fusion(
        [_hits(("x", 0), ("y", 0)), _hits(("y", 0))], top_k=5, k=60, weights=(2.0, 1.0)
    )
    scores = {h.id: h.metadata["rrf_score"] for h in fused}
    assert scores["y"] == pytest.approx(2 / 62 + 1 / 61)
    assert scores["x"] == pytest.approx(2 / 61)
    plain = reciprocal_rank_fusion([_hits(("x", 0), ("y", 0)), _hits(("y", 0))], top_k=5)
    assert [h.id for h in plain] == ["y", "x"]
    assert plain[0].metadata["rrf_score"] == pytest.approx(1 / 62 + 1 / 61)


def test_score_fusion_raw_cosine_plus_bm25_over_max() -> None:
    from agentmaker.retrieval.score_fusion import ScoreFusion

    fusion = ScoreFusion(rank_keys=("vector_rank", "keyword_rank"))  # (0.7, 0.3), none / max
    dense = _hits(("a", 0.8), ("b", 0.5))
    keyword = _hits(("b", 10.0), ("c", 5.0))
    fused = fusion.fuse([dense, keyword], top_k=2)
    # Both lists are full (top_k items): a missing item gets the list's lowest value.
    # a = .7*.8 + .3*.5 = .71; b = .7*.5 + .3*1 = .65; c = .7*.5 + .3*.5 = .50
    assert [h.id for h in fused] == ["a", "b"]
    assert fused[0].metadata["fused_score"] == pytest.approx(0.71)
    assert fused[1].score == pytest.approx(0.65)
    assert fused[1].metadata["vector_rank"] == 2 and fused[1].metadata["keyword_rank"] == 1
    assert "keyword_rank" not in fused[0].metadata


def test_score_fusion_short_list_is_complete() -> None:
    from agentmaker.retrieval.score_fusion import score_fusion

    dense = _hits(("a", 0.8), ("b", 0.5))
    keyword = _hits(("b", 10.0))  # fewer than top_k: everything that matched, a scores 0
    fused = score_fusion(
        [dense, keyword], top_k=2, weights=(0.7, 0.3), normalization=("none", "max")
    )
    # a = .56 + 0; b = .35 + .3 = .65
    assert [h.id for h in fused] == ["b", "a"]
    assert fused[1].score == pytest.approx(0.56)


def test_score_fusion_minmax_and_max_normalisation() -> None:
    from agentmaker.retrieval.score_fusion import score_fusion

    lists = [_hits(("a", 4.0), ("b", 2.0), ("c", 1.0))]
    by_max = {h.id: h.score for h in score_fusion(lists, top_k=3, normalization="max")}
    assert by_max == pytest.approx({"a": 1.0, "b": 0.5, "c": 0.25})
    by_minmax = {h.id: h.score for h in score_fusion(lists, top_k=3, normalization="minmax")}
    assert by_minmax == pytest.approx({"a": 1.0, "b": 1 / 3, "c": 0.0})


def test_cached_library_key_covers_the_content_code() -> None:
    from benchmarks.common import CONTENT_CODE, ENGINE, code_hash

    # Every path exists (a moved module once dropped out of the key silently, so a
    # change to the chunking code reused libraries the old code had built).
    assert all((ENGINE / rel).exists() for rel in CONTENT_CODE)
    assert {"rag/chunking", "rag/readers", "rag/ingest"} <= set(CONTENT_CODE)
    assert code_hash("rag/chunking") != code_hash("rag/readers")
    with pytest.raises(FileNotFoundError, match=r"rag/splitter\.py does not exist"):
        code_hash("rag/splitter.py")
