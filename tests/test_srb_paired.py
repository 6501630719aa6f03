"""The paired SRB tests: hand-computed values, a simulation of the null, planted differences.

The simulation draws SRB scores from :func:`gasp.testing.paired_srb_scores`, a generator
written apart from the tests it checks (its own word totals, log-odds marking and
Chamfer distances). Under the null the two scores of an occupation correlate at about
0.5; Welch's unpaired test then rejects far less often than its level says, while the
paired tests keep it. Measured with these seeds (200 studies of 10 occupations): Welch
0.005, paired t 0.070, sign-flip 0.070; planted effect 0.2 (100 studies): Welch 0.12,
paired t 0.29, sign-flip 0.28 (``bench/bench_srb_paired.py`` runs 400 studies per effect).
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from gasp.stats import paired_test, sign_flip_test, welch_t_test
from gasp.studies.more_of_the_same.analysis import AnalysisConfig
from gasp.studies.more_of_the_same.analysis._paired import paired_table
from gasp.studies.more_of_the_same.report._srb_paired import paired_sentence, paired_sentences
from gasp.testing import PairedSRBWorld, paired_srb_scores


def test_paired_t_and_interval_equal_scipy_and_hand_values() -> None:
    a = np.array([0.10, -0.20, 0.05, 0.30, -0.10, 0.00])
    b = np.array([0.00, -0.25, 0.10, 0.10, -0.15, -0.05])
    r = paired_test(a, b, np.random.default_rng(0))
    ref = stats.ttest_rel(a, b)
    assert r.t == pytest.approx(float(ref.statistic)) and r.p_t == pytest.approx(ref.pvalue)
    d = a - b
    half = stats.t.ppf(0.975, 5) * d.std(ddof=1) / np.sqrt(6)
    assert (r.low, r.high) == pytest.approx((d.mean() - half, d.mean() + half))
    assert r.df == 5 and r.n == 6 and r.mean_difference == pytest.approx(d.mean())
    assert r.correlation == pytest.approx(np.corrcoef(a, b)[0, 1])


def test_sign_flip_exact_by_hand() -> None:
    # d = 1, 2, 3: |mean| >= 2 only for all-plus and all-minus: 2 of 8 sign assignments.
    r = sign_flip_test([1.0, 2.0, 3.0], np.random.default_rng(0))
    assert (r.p_value, r.method, r.draws, r.statistic) == (0.25, "exact", 8, 2.0)
    # d = 1, -1, 2: |mean| >= 2/3 for (+,-,+), (-,+,-), (+,+,+), (-,-,-) and both
    # assignments with +-2 and the ones signs equal: count by brute force.
    d = np.array([1.0, -1.0, 2.0])
    null = [abs(np.mean(np.array(s) * d)) for s in itertools.product((1, -1), repeat=3)]
    expected = np.mean(np.array(null) >= abs(d.mean()) - 1e-12)
    assert sign_flip_test(d, np.random.default_rng(0)).p_value == pytest.approx(expected)


def test_sign_flip_monte_carlo_agrees_with_enumeration() -> None:
    d = np.random.default_rng(4).normal(0.3, 1.0, size=18)
    exact = sign_flip_test(d, np.random.default_rng(0), exact_units=18)
    sampled = sign_flip_test(d, np.random.default_rng(1), draws=20000, exact_units=16)
    assert exact.method == "exact" and sampled.method == "monte carlo"
    assert sampled.draws == 20000
    assert sampled.p_value == pytest.approx(exact.p_value, abs=0.01)
    again = sign_flip_test(d, np.random.default_rng(1), draws=20000, exact_units=16)
    assert again == sampled  # seeded: the same draws give the same p-value


def test_missing_scores_are_left_out_and_too_few_say_why() -> None:
    r = paired_test([0.1, np.nan, 0.3, 0.2], [0.0, 0.1, np.nan, 0.1], np.random.default_rng(0))
    assert r.n == 2 and r.n_unpaired == 2
    one = paired_test([0.1, np.nan], [0.0, 0.2], np.random.default_rng(0))
    assert np.isnan(one.p_t) and "at least 2 units" in str(one.reason)
    flat = paired_test([0.2, 0.3], [0.1, 0.2], np.random.default_rng(0))
    assert np.isnan(flat.t) and "no variance" in str(flat.reason)


def _rates(effect: float, studies: int, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    f, m = paired_srb_scores(PairedSRBWorld(), studies * 10, effect, rng)
    ok = np.isfinite(f) & np.isfinite(m)
    out: dict[str, list[bool]] = {"welch": [], "t": [], "flip": []}
    for fi, mi in zip(f.reshape(studies, 10), m.reshape(studies, 10), strict=True):
        out["welch"].append(welch_t_test(fi, mi).p_value < 0.05)
        r = paired_test(fi, mi, rng)
        out["t"].append(r.p_t < 0.05)
        out["flip"].append(r.sign_flip.p_value < 0.05)
    rates = {k: float(np.mean(v)) for k, v in out.items()}
    rates["corr"] = float(np.corrcoef(f[ok], m[ok])[0, 1])
    return rates


def test_null_simulation_keeps_the_level_of_the_paired_tests() -> None:
    null = _rates(0.0, 200, seed=11)
    print("null:", null)
    assert 0.35 <= null["corr"] <= 0.65
    assert 0.03 <= null["t"] <= 0.08
    assert 0.03 <= null["flip"] <= 0.08
    assert null["welch"] < 0.03  # the unpaired test is far below its level


def test_planted_difference_found_more_often_than_by_welch() -> None:
    planted = _rates(0.2, 100, seed=12)
    print("effect 0.2:", planted)
    assert planted["t"] > planted["welch"] + 0.08
    assert planted["flip"] > planted["welch"]


def _scores(f: list[float], m: list[float]) -> pd.DataFrame:
    n = len(f)
    return pd.DataFrame(
        {
            "subject": [f"s{i}" for i in range(n)] * 2,
            "template": ["all"] * 2 * n,
            "gender": ["F"] * n + ["M"] * n,
            "score": f + m,
            "score_names_removed": [np.nan] * 2 * n,
        }
    )


def test_table_and_sentence_from_saved_scores() -> None:
    f = [-0.30, -0.25, -0.10, -0.40, -0.20, -0.35, -0.15]
    m = [0.05, -0.05, 0.10, -0.10, 0.00, 0.02, 0.08]
    table = paired_table(_scores(f, m), AnalysisConfig())
    paper = table.set_index("variant").loc["paper"]
    assert paper["n_pairs"] == 7 and paper["decision"] == "differ"
    assert paper["mean_diff"] == pytest.approx(np.mean(np.subtract(f, m)))
    assert paper["diff_low"] < paper["mean_diff"] < paper["diff_high"] < 0
    assert paper["sign_flip_method"] == "exact" and paper["sign_flip_draws"] == 128
    assert paper["sign_flip_p_value"] == pytest.approx(2 / 128)
    free = table.set_index("variant").loc["names_removed"]
    assert free["decision"] == "undefined" and "at least 2 units" in free["reason"]
    sentence = paired_sentences(table)[0]
    assert sentence.startswith("Paired test over 7 occupations: at the 5% level")
    assert "differ" in sentence and "lower" in sentence and "named women" in sentence
    assert "exact, every one of the 128 sign assignments" in sentence
    undefined = paired_sentence({str(k): v for k, v in free.items()} | {"template": "all"})
    assert "undefined" in undefined and "at least 2 units" in undefined


def test_the_report_leads_with_the_paired_decision(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from gasp.results import AuditResults
    from gasp.studies.more_of_the_same.report import render_audit_report

    f = [-0.30, -0.25, -0.10, -0.40, -0.20, -0.35, -0.15]
    m = [0.05, -0.05, 0.10, -0.10, 0.00, 0.02, 0.08]
    scores = _scores(f, m)
    welch = welch_t_test(f, m)
    tests = pd.DataFrame(
        {"template": ["all"], "variant": ["paper"], "test": ["welch"],
         "statistic": [welch.t], "p_value": [welch.p_value], "df": [welch.df],
         "n_subjects_F": [7], "n_subjects_M": [7], "mean_F": [np.mean(f)],
         "mean_M": [np.mean(m)], "n_permutations": [0], "reason": [""]}
    )  # fmt: skip
    config = AnalysisConfig()
    results = AuditResults(
        tables={"srb_scores": scores, "srb_test": tests,
                "srb_paired": paired_table(scores, config)},
        meta={"settings": config.settings("random")},
    )  # fmt: skip
    html = render_audit_report(results, tmp_path).read_text()
    lead = html.index("Paired test over 7 occupations")
    assert lead < html.index("Figure 3") < html.index("the paper&#x27;s Welch test")
    assert "for reproduction" in html and "sign-flip permutation test p = 0.0156" in html
