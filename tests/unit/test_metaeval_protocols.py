"""Meta-evaluation statistics against hand-computed values and scipy/sklearn references."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from citefix.metaeval import protocols as P
from citefix.metaeval.rouge import acu_rouge, best_match_rouge1, rouge1_f1, tokenize
from citefix.metaeval.spans import SpanItem, span_prf
from citefix.metaeval.statbase import bootstrap_ci


def _random(n=80, seed=1, ties=True):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=n)
    s = rng.normal(size=n) + y * 0.8
    if ties:
        s = np.round(s, 1)  # plenty of ties
    return s.tolist(), y.tolist()


# ----------------------------------------------------------------------------------------------- Stat


def test_stat_refuses_silent_nan_and_missing_reason():
    with pytest.raises(ValueError):
        P.Stat(name="x", value=None)
    with pytest.raises(ValueError):
        P.Stat(name="x", value=float("nan"))
    assert P.Stat(name="x", value=None, reason="because").ok is False


# ----------------------------------------------------------------------------------------------- ROC-AUC


def test_roc_auc_hand_computed():
    # Positive 0.35 beats one negative of two, 0.8 beats both: (1 + 2) / 4.
    st = P.roc_auc([0.1, 0.4, 0.35, 0.8], [0, 0, 1, 1])
    assert st.value == pytest.approx(0.75)
    assert st.n == 4 and st.details["n_pos"] == 2


def test_roc_auc_ties_count_half():
    assert P.roc_auc([0.5, 0.5], [0, 1]).value == pytest.approx(0.5)
    # pos {0.5, 0.9}, neg {0.5, 0.1}: pairs (0.5,0.5)=.5 (0.5,0.1)=1 (0.9,*)=2 → 3.5/4
    assert P.roc_auc([0.5, 0.9, 0.5, 0.1], [1, 1, 0, 0]).value == pytest.approx(0.875)


def test_roc_auc_matches_sklearn_with_ties():
    metrics = pytest.importorskip("sklearn.metrics")
    s, y = _random()
    assert P.roc_auc(s, y).value == pytest.approx(metrics.roc_auc_score(y, s))


def test_roc_auc_one_class_is_none_with_reason():
    st = P.roc_auc([0.1, 0.2, 0.3], [1, 1, 1])
    assert st.value is None and "one class" in st.reason


def test_roc_auc_drops_missing_scores_and_counts_them():
    st = P.roc_auc([0.1, None, 0.9, float("nan"), 0.2], [0, 1, 1, 0, 1])
    assert st.n == 3 and st.n_missing == 2
    assert st.value == pytest.approx(P.roc_auc([0.1, 0.9, 0.2], [0, 1, 1]).value)


def test_roc_auc_rejects_non_binary_labels():
    with pytest.raises(ValueError):
        P.roc_auc([0.1, 0.2], [0, 2])


# ----------------------------------------------------------------------------------------------- balanced accuracy


def test_balanced_accuracy_tuned_on_odd_reported_on_even():
    scores = [0.1, 0.4, 0.35, 0.8, 0.2, 0.9]
    labels = [0, 0, 1, 1, 0, 1]
    st = P.balanced_accuracy_tuned(scores, labels)
    # tuning items (odd positions): 0.4/0, 0.8/1, 0.9/1 → threshold midway between 0.4 and 0.8
    assert st.threshold == pytest.approx(0.6)
    assert st.tune_value == pytest.approx(1.0)
    assert st.n_tune == 3 and st.n == 3
    # evaluation items: 0.1/0, 0.35/1, 0.2/0 → all predicted 0 → (0 + 1) / 2
    assert st.value == pytest.approx(0.5)


def test_balanced_accuracy_matches_sklearn_at_the_tuned_threshold():
    metrics = pytest.importorskip("sklearn.metrics")
    s, y = _random(n=120, seed=4)
    st = P.balanced_accuracy_tuned(s, y)
    s_e, y_e = np.asarray(s)[0::2], np.asarray(y)[0::2]
    assert st.value == pytest.approx(metrics.balanced_accuracy_score(y_e, (s_e >= st.threshold).astype(int)))
    s_t, y_t = np.asarray(s)[1::2], np.asarray(y)[1::2]
    # the tuned threshold is the best achievable on the tuning half
    best = max(metrics.balanced_accuracy_score(y_t, (s_t >= t).astype(int)) for t in np.unique(s_t))
    assert st.tune_value == pytest.approx(best)


def test_balanced_accuracy_parity_uses_original_positions():
    # Dropping a missing item must not shift the split: position 1 stays a tuning item.
    scores = [0.2, None, 0.9, 0.8, 0.1, 0.3]
    labels = [0, 1, 1, 1, 0, 0]
    st = P.balanced_accuracy_tuned(scores, labels)
    assert st.n_missing == 1 and st.n_tune == 2 and st.n == 3


def test_balanced_accuracy_one_class_halves():
    st = P.balanced_accuracy_tuned([0.1, 0.9, 0.2, 0.8], [0, 1, 0, 1])  # odd half all 1
    assert st.value is None and "tuning half" in st.reason
    st = P.balanced_accuracy_tuned([0.1, 0.9, 0.2, 0.1], [0, 1, 0, 0])  # even half all 0
    assert st.value is None and "evaluation half" in st.reason and st.threshold is not None


# ----------------------------------------------------------------------------------------------- correlations


def test_correlations_match_scipy_with_ties():
    rng = np.random.default_rng(7)
    levels = rng.integers(0, 3, size=60)
    scores = np.round(levels * 0.3 + rng.normal(scale=0.4, size=60), 1)
    c = P.correlations(scores.tolist(), levels.tolist())
    assert c.pearson.value == pytest.approx(sps.pearsonr(scores, levels).statistic)
    assert c.spearman.value == pytest.approx(sps.spearmanr(scores, levels).statistic)
    assert c.kendall.value == pytest.approx(sps.kendalltau(scores, levels, variant="b").statistic)


def test_kendall_tau_b_hand_computed():
    # x = [1,2,3], y = [1,1,2]: concordant 2, discordant 0, ties in y 1 → 2 / sqrt(3 * 2)
    assert P.correlation("kendall", [1, 2, 3], [1, 1, 2]).value == pytest.approx(2 / math.sqrt(6))


def test_correlation_constant_input_is_none():
    st = P.correlation("pearson", [0.5, 0.5, 0.5], [0, 1, 2])
    assert st.value is None and "constant" in st.reason
    st = P.correlation("kendall", [0.1, 0.2, 0.3], [1, 1, 1])
    assert st.value is None and "human" in st.reason
    assert P.correlation("spearman", [0.1], [1]).value is None


# ----------------------------------------------------------------------------------------------- one-vs-one AUC


def test_one_vs_one_uses_only_pairs_of_the_two_levels():
    scores = [0.9, 0.6, 0.1, 0.8, 0.3, 0.2, 0.7]
    levels = ["full", "partial", "none", 2, 1, 0, 1]
    ovo = P.one_vs_one_auc(scores, levels)
    fs, ps, ns = [0.9, 0.8], [0.6, 0.3, 0.7], [0.1, 0.2]
    assert ovo.fs_ns.value == pytest.approx(P.roc_auc(fs + ns, [1, 1, 0, 0]).value)
    assert ovo.fs_ps.value == pytest.approx(P.roc_auc(fs + ps, [1, 1, 0, 0, 0]).value)
    assert ovo.ps_ns.value == pytest.approx(P.roc_auc(ps + ns, [1, 1, 1, 0, 0]).value)
    assert ovo.fs_ps.n == 5
    assert ovo.mean.value == pytest.approx(np.mean([ovo.fs_ns.value, ovo.fs_ps.value, ovo.ps_ns.value]))


def test_one_vs_one_missing_level_gives_reasons():
    ovo = P.one_vs_one_auc([0.9, 0.1, 0.8], [2, 0, 2])
    assert ovo.fs_ns.value == pytest.approx(1.0)
    assert ovo.fs_ps.value is None and "partial" in ovo.fs_ps.reason
    assert ovo.mean.value is None and "auc_fs_ps" in ovo.mean.reason


def test_one_vs_one_rejects_unknown_level():
    with pytest.raises(ValueError):
        P.one_vs_one_auc([0.1], ["maybe"])


# ----------------------------------------------------------------------------------------------- NDCG


def test_ndcg_hand_computed():
    # ranking relevances 0, 1, 2: DCG = 1/log2(3) + 2/log2(4); ideal = 2 + 1/log2(3)
    want = (1 / math.log2(3) + 1.0) / (2 + 1 / math.log2(3))
    assert P.ndcg_at_k([0.3, 0.2, 0.1], [0, 1, 2], 5) == pytest.approx(want)
    assert P.ndcg_at_k([0.1, 0.2, 0.3], [0, 1, 2], 5) == pytest.approx(1.0)
    assert P.ndcg_at_k([0.3, 0.2, 0.1], [0, 1, 2], 1) == pytest.approx(0.0)


def test_ndcg_ties_are_order_independent_and_match_sklearn():
    metrics = pytest.importorskip("sklearn.metrics")
    rng = np.random.default_rng(3)
    for _ in range(20):
        n = int(rng.integers(2, 30))
        rel = rng.integers(0, 3, size=n)
        if not rel.any():
            rel[0] = 1
        sc = np.round(rng.random(n), 1)
        for k in (5, 10, 20):
            got = P.ndcg_at_k(sc.tolist(), rel.tolist(), k)
            assert got == pytest.approx(metrics.ndcg_score([rel], [sc], k=k))
    assert P.ndcg_at_k([0.5, 0.5], [2, 0], 1) == P.ndcg_at_k([0.5, 0.5], [0, 2], 1) == pytest.approx(0.5)


def test_ndcg_without_relevant_chunk_is_none_and_skipped():
    assert P.ndcg_at_k([0.1, 0.2], [0, 0], 5) is None
    st = P.mean_ndcg([([0.1, 0.2], [0, 0]), ([0.9, 0.1], [2, 0]), ([None, 0.3], [1, 0])], 5)
    assert st.value == pytest.approx(1.0) and st.n == 1 and st.n_missing == 1
    assert st.details["statements_without_relevant_chunk"] == 1
    assert P.mean_ndcg([([0.1], [0])], 5).value is None


# ----------------------------------------------------------------------------------------------- spans


def test_span_prf_union_and_majority():
    text = "aaaaabbbbbccccc"
    item = SpanItem(text=text, predicted=[(0, 10)],
                      annotators=[[(0, 5)], [(0, 5), (10, 15)]], n_annotators=3)
    # union: reference 0-5 and 10-15 (10 chars); predicted 0-10 → tp 5, fp 5, fn 5
    u = span_prf([item], "union")
    assert (u.precision.value, u.recall.value, u.f1.value) == pytest.approx((0.5, 0.5, 0.5))
    # majority (2 of 3): only 0-5 → tp 5, fp 5, fn 0
    m = span_prf([item], "majority")
    assert (m.precision.value, m.recall.value) == pytest.approx((0.5, 1.0))
    assert m.f1.value == pytest.approx(2 * 5 / (2 * 5 + 5))


def test_span_prf_micro_over_items_and_whitespace():
    a = SpanItem(text="ab cd", predicted=[(0, 5)], annotators=[[(0, 2)]])
    b = SpanItem(text="efgh", predicted=[], annotators=[[(0, 4)]])
    s = span_prf([a, b])
    # whitespace excluded: a → tp 2 fp 2; b → fn 4
    assert s.precision.details["tp"] == 2 and s.precision.details["fp"] == 2 and s.precision.details["fn"] == 4
    assert s.recall.value == pytest.approx(2 / 6)
    s_ws = span_prf([a, b], ignore_whitespace=False)
    assert s_ws.precision.details["fp"] == 3


def test_span_prf_empty_cases():
    empty = SpanItem(text="nothing here", predicted=[], annotators=[])
    s = span_prf([empty, empty])
    assert s.f1.value is None and "neither" in s.f1.reason
    assert s.precision.value is None and s.recall.value is None
    assert s.f1.details["items_both_empty"] == 2
    only_pred = SpanItem(text="abc", predicted=[(0, 3)], annotators=[])
    s = span_prf([only_pred])
    assert s.precision.value == 0.0 and s.recall.value is None and s.f1.value == 0.0


# ----------------------------------------------------------------------------------------------- ROUGE


def test_rouge1_hand_computed():
    assert rouge1_f1("The cat sat", "the cat") == pytest.approx(0.8)
    assert rouge1_f1("a a b", "a b b") == pytest.approx(2 / 3)  # clipped counts
    assert rouge1_f1("", "x") == 0.0
    assert tokenize("Arango's 4-3 defeat.") == ["arango", "s", "4", "3", "defeat"]


def test_rouge_stemming_is_optional_and_off():
    assert rouge1_f1("players scored", "player score") == 0.0
    assert rouge1_f1("players scored", "player score", stem=True) == pytest.approx(1.0)


def test_best_match_and_acu_rouge():
    gold = ["Arango bit Zavala.", "Arango scored a free kick."]
    gen = ["Arango bit Zavala", "Arango scored"]
    v = best_match_rouge1(gen, gold)
    assert v == pytest.approx((1.0 + rouge1_f1("Arango scored", gold[1])) / 2)
    st = acu_rouge([(gen, gold), ([], gold), (gen, [])])
    assert st.n == 2 and st.value == pytest.approx(v / 2)
    assert st.details["items_without_units"] == 1 and st.details["items_without_gold"] == 1
    cov = acu_rouge([(gen, gold)], direction="gold")
    assert cov.name == "rouge1_gold_coverage" and cov.value == pytest.approx(best_match_rouge1(gold, gen))


# ----------------------------------------------------------------------------------------------- bootstrap


def test_bootstrap_is_deterministic_for_a_seed():
    s, y = _random(n=60, seed=11)
    a = P.roc_auc(s, y, bootstrap=300, seed=5)
    b = P.roc_auc(s, y, bootstrap=300, seed=5)
    c = P.roc_auc(s, y, bootstrap=300, seed=6)
    assert (a.ci_low, a.ci_high) == (b.ci_low, b.ci_high)
    assert (a.ci_low, a.ci_high) != (c.ci_low, c.ci_high)
    assert a.ci_low <= a.value <= a.ci_high
    assert a.details["bootstrap"] == {"resamples": 300, "valid": 300, "seed": 5}


def test_bootstrap_ci_on_every_headline_statistic():
    s, y = _random(n=60, seed=2)
    levels = [int(v * 2) if i % 3 else 1 for i, v in enumerate(y)]
    stats = [P.balanced_accuracy_tuned(s, y, bootstrap=200), *P.correlations(s, levels, bootstrap=200).all(),
             *P.one_vs_one_auc(s, levels, bootstrap=200).all(),
             P.mean_ndcg([([0.2, 0.1], [1, 0]), ([0.1, 0.2], [1, 0])], 5, bootstrap=200)]
    for st in stats:
        assert st.value is not None and st.ci_low is not None and st.ci_low <= st.ci_high, st.name


def test_bootstrap_reports_undefined_resamples():
    # one positive among many: many resamples miss it
    st = P.roc_auc([0.1, 0.2, 0.3, 0.9, 0.15, 0.25], [0, 0, 0, 1, 0, 0], bootstrap=200, seed=0)
    assert st.value == pytest.approx(1.0)
    valid = st.details["bootstrap"]["valid"]
    assert valid < 200
    assert (st.ci_low is None and "undefined" in st.ci_reason) or "skipped" in st.ci_reason


def test_bootstrap_ci_function_directly():
    low, high, why, valid = bootstrap_ci(lambda idx: float(np.mean(np.arange(10)[idx])), 10, resamples=500, seed=1)
    assert low < 4.5 < high and why is None and valid == 500
    assert bootstrap_ci(lambda idx: 1.0, 1)[2] == "fewer than 2 items to resample"
    assert bootstrap_ci(lambda idx: None, 10, resamples=50)[0] is None
