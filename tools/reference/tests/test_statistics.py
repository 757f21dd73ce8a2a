"""The statistics (docs/statistics.md: "Per group", "Each treatment against control", "SRM") against known
values, closed forms and independent computations (SciPy's t-test and chi-squared test on raw data, numerical
integration)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from scipy import integrate, stats

from conftest import read_csv, ref

Z95 = 1.959963984540054
S = ref.SufficientStatistics


def sufficient(values: list[float], converters: int = 0) -> ref.SufficientStatistics:
    total = squares = 0.0
    for x in values:
        total += x
        squares += x * x
    return S(len(values), converters, total, squares)


def test_normal_quantile():
    assert ref.normal_quantile(0.975) == pytest.approx(Z95, rel=1e-15)


@pytest.mark.parametrize("x, n, low, high", [
    # Wilson (1927) / Newcombe (1998) table: 95% intervals
    (81, 263, 0.2553, 0.3662),
    (15, 148, 0.0624, 0.1605),
    (0, 20, 0.0, 0.1611),
    (1, 29, 0.0061, 0.1718),
])
def test_wilson_known_values(x, n, low, high):
    got = ref.wilson_interval(x, n, Z95)
    assert got == pytest.approx((low, high), abs=1e-4)


def quad_chance(x_t, n_t, x_c, n_c) -> float:
    """P(p_t > p_c) = ∫ pdf_t(p) cdf_c(p) dp, integrated around the posteriors' mass."""
    t = stats.beta(1 + x_t, 1 + n_t - x_t)
    c = stats.beta(1 + x_c, 1 + n_c - x_c)
    lo = min(t.ppf(1e-12), c.ppf(1e-12))
    hi = max(t.isf(1e-12), c.isf(1e-12))
    value, _ = integrate.quad(lambda p: t.pdf(p) * c.cdf(p), lo, hi, points=[t.mean(), c.mean()], limit=200,
                              epsabs=1e-12)
    return value


@pytest.mark.parametrize("x_t, n_t, x_c, n_c", [
    (0, 1, 0, 1), (2, 3, 2, 2), (10, 100, 12, 100), (150, 1000, 120, 1000), (1600, 5000, 1500, 5000),
    (0, 50, 3, 40), (40, 40, 39, 40),
])
def test_chance_to_beat_control_closed_form_matches_integration(x_t, n_t, x_c, n_c):
    closed = ref.prob_beta_greater(1 + x_t, 1 + n_t - x_t, 1 + x_c, 1 + n_c - x_c)
    assert closed == pytest.approx(quad_chance(x_t, n_t, x_c, n_c), abs=1e-7)


def test_chance_symmetry():
    a = ref.prob_beta_greater(11, 91, 13, 89)
    b = ref.prob_beta_greater(13, 89, 11, 91)
    assert a + b == pytest.approx(1, abs=1e-12)


def test_holm():
    assert ref.holm_adjust([0.01, None, 0.04, 0.03]) == pytest.approx([0.03, None, 0.06, 0.06])
    assert ref.holm_adjust([0.5, 0.6]) == [1.0, 1.0]  # capped at 1, monotone
    assert ref.holm_adjust([None, None]) == [None, None]
    assert ref.holm_adjust([0.02]) == [0.02]


def test_conversion_comparison_against_hand_formulas():
    c, t = S(1000, 100, 0, 0), S(1100, 143, 0, 0)
    row = ref.compare_conversion(c, t, 0.05)
    m_c, m_t = 0.1, 143 / 1100
    pooled = 243 / 2100
    z = (m_t - m_c) / math.sqrt(pooled * (1 - pooled) * (1 / 1100 + 1 / 1000))
    assert row["p_value"] == pytest.approx(2 * stats.norm.sf(abs(z)), rel=1e-12)
    half = Z95 * math.sqrt(m_t * (1 - m_t) / 1100 + 0.09 / 1000)
    assert (row["abs_lift_ci_low"], row["abs_lift_ci_high"]) == pytest.approx((m_t - m_c - half, m_t - m_c + half), rel=1e-12)
    rel_half = Z95 * math.sqrt(m_t * (1 - m_t) / (1100 * 0.01) + m_t ** 2 * 0.09 / (1000 * 0.1 ** 4))
    assert row["rel_lift"] == pytest.approx(m_t / m_c - 1, rel=1e-12)
    assert row["rel_lift_ci_low"] == pytest.approx(m_t / m_c - 1 - rel_half, rel=1e-12)
    assert row["mde_abs"] == pytest.approx((Z95 + stats.norm.ppf(0.8)) * math.sqrt(0.09 * (1 / 1100 + 1 / 1000)), rel=1e-12)
    # a proportions test is the chi-squared test of the 2x2 table without continuity correction
    chi2 = stats.chi2_contingency([[143, 957], [100, 900]], correction=False)
    assert row["p_value"] == pytest.approx(chi2.pvalue, rel=1e-9)


def test_arpu_comparison_against_scipy_welch():
    rng = np.random.default_rng(7)
    control = list(np.where(rng.random(300) < 0.1, rng.gamma(2.0, 5.0, 300), 0.0))
    treatment = list(np.where(rng.random(250) < 0.13, rng.gamma(2.0, 5.0, 250), 0.0))
    row = ref.compare_arpu(sufficient(control), sufficient(treatment), 0.05)
    welch = stats.ttest_ind(treatment, control, equal_var=False)
    assert row["p_value"] == pytest.approx(welch.pvalue, rel=1e-9)
    low, high = welch.confidence_interval(0.95)
    assert (row["abs_lift_ci_low"], row["abs_lift_ci_high"]) == pytest.approx((low, high), rel=1e-9)
    se = math.sqrt(np.var(treatment, ddof=1) / 250 + np.var(control, ddof=1) / 300)
    assert row["chance_to_beat_control"] == pytest.approx(stats.norm.cdf((np.mean(treatment) - np.mean(control)) / se), rel=1e-9)


def test_arpu_undefined_cases():
    # both variances 0: no p-value, abs_lift interval or chance; rel_lift is defined (D18).
    row = ref.compare_arpu(sufficient([2.0, 2.0]), sufficient([3.0, 3.0, 3.0]), 0.05)
    assert (row["abs_lift"], row["rel_lift"], row["rel_lift_ci_low"]) == (1.0, 0.5, 0.5)
    assert (row["p_value"], row["abs_lift_ci_low"], row["chance_to_beat_control"]) == (None, None, None)
    # m_c = 0: no rel_lift
    row = ref.compare_arpu(sufficient([0.0, 0.0]), sufficient([0.0, 5.0]), 0.05)
    assert (row["rel_lift"], row["rel_lift_ci_high"]) == (None, None)
    assert row["p_value"] is not None
    # one variance 0: Welch df = n - 1 of the other group
    row = ref.compare_arpu(sufficient([1.0, 1.0, 1.0]), sufficient([0.0, 2.0, 4.0, 6.0]), 0.05)
    t = (3 - 1) / math.sqrt(20 / 3 / 4)
    assert row["p_value"] == pytest.approx(2 * stats.t.sf(t, 3), rel=1e-12)


def test_sequential_values_worked_out():
    # docs/statistics.md#sequential-always-valid-inference at alpha 0.05, N* 5000:
    # ρ² = (−2 ln 0.05 + ln(1 − 2 ln 0.05)) / 5000
    #   = (5.991464547 + 1.944690055) / 5000 = 0.0015872309, so with n = 2100, nρ² = 3.333185.
    c, t = S(1000, 100, 0, 0), S(1100, 143, 0, 0)
    row = ref.compare_conversion(c, t, 0.05, 5000)
    rho2 = (-2 * math.log(0.05) + math.log(1 - 2 * math.log(0.05))) / 5000
    assert rho2 == pytest.approx(0.0015872309, rel=1e-7)
    m_c, m_t, n = 0.1, 143 / 1100, 2100
    se = math.sqrt(m_t * (1 - m_t) / 1100 + 0.09 / 1000)
    # h = se·√(2(nρ²+1)·ln(√(nρ²+1)/α)/(nρ²)): √n cancels between √s² and n²ρ².
    factor = math.sqrt(2 * (n * rho2 + 1) * math.log(math.sqrt(n * rho2 + 1) / 0.05) / (n * rho2))
    assert factor == pytest.approx(3.113711, rel=1e-6)  # against z = 1.96 for one look
    assert row["seq_abs_lift_ci_high"] == pytest.approx(m_t - m_c + factor * se, rel=1e-12)
    assert row["seq_abs_lift_ci_low"] < row["abs_lift_ci_low"] and row["seq_abs_lift_ci_high"] > row["abs_lift_ci_high"]
    z2 = ((m_t - m_c) / se) ** 2
    expected_p = min(1, math.sqrt(n * rho2 + 1) * math.exp(-rho2 * n * z2 / (2 * (n * rho2 + 1))))
    assert row["seq_p_value"] == pytest.approx(expected_p, rel=1e-12)
    # fixed says significant (p ≈ 0.035), the always-valid test does not yet
    assert row["p_value"] < 0.05 < row["seq_p_value"]
    assert (row["seq_p_value"] < 0.05) == (row["seq_abs_lift_ci_low"] > 0)


def test_sequential_empty_cases():
    # no converters anywhere: fixed p = 1, but se = 0 leaves every sequential value empty
    row = ref.compare_conversion(S(400, 0, 0, 0), S(400, 0, 0, 0), 0.05)
    assert row["p_value"] == 1.0
    assert [row[k] for k in ("seq_abs_lift_ci_low", "seq_rel_lift_ci_low", "seq_p_value")] == [None, None, None]
    # both ARPU variances 0: the fixed p is empty and so is the sequential one
    row = ref.compare_arpu(sufficient([2.0, 2.0]), sufficient([3.0, 3.0, 3.0]), 0.05)
    assert (row["seq_p_value"], row["seq_abs_lift_ci_low"], row["seq_rel_lift_ci_low"]) == (None, None, None)
    # Holm runs over the sequential p-values as over the fixed ones
    rows = ref.compare_offering([("control", S(1000, 100, 0, 0)), ("a", S(1000, 160, 0, 0)), ("b", S(1000, 101, 0, 0))],
                                "control", 0.05)
    conversion = [r for r in rows if r["metric"] == "conversion"]
    assert conversion[0]["seq_p_value_adjusted"] == pytest.approx(min(1, 2 * conversion[0]["seq_p_value"]))
    assert conversion[1]["seq_p_value_adjusted"] == 1.0
    assert conversion[0]["seq_significant"] is True


def test_srm():
    chi2, p, flag = ref.sample_ratio_mismatch([520, 240, 240], [2, 1, 1])
    expected = stats.chisquare([520, 240, 240], [500, 250, 250])
    assert (chi2, p, flag) == (pytest.approx(expected.statistic, rel=1e-12), pytest.approx(expected.pvalue, rel=1e-12), False)
    chi2, p, flag = ref.sample_ratio_mismatch([600, 400], [0.5, 0.5])
    assert chi2 == pytest.approx(40.0) and flag is True and p == pytest.approx(stats.chi2.sf(40, 1), rel=1e-12)
    assert ref.sample_ratio_mismatch([0, 0], [1, 1]) == (None, None, None)
    # a weight-0 group without users is left out; with users the mismatch is certain (D19)
    assert ref.sample_ratio_mismatch([5, 5, 0], [1, 1, 0])[:2] == (0.0, 1.0)
    assert ref.sample_ratio_mismatch([5, 5, 1], [1, 1, 0]) == (math.inf, 0.0, True)
    assert ref.sample_ratio_mismatch([7], [1]) == (0.0, 1.0, False)


def test_stats_command_matches_the_run(tmp_path: Path):
    """README.md#statistics-from-aggregates-offerlab-stats: the spring groups of the main data set as sufficient
    statistics give the same comparisons and SRM as the run (values worked out in test_main_dataset.py)."""
    agg = tmp_path / "agg.csv"
    agg.write_text(
        "offering_id,group,is_control,weight,users,converters,revenue_sum,revenue_sum_squares\n"
        "spring,group_b,false,25,3,2,10.5,70.25\n"
        "spring,control,TRUE,50,2,2,19,181\n"
        "spring,group_c,false,25,1,1,0,0\n")
    assert ref.main(["stats", str(agg), "--out", str(tmp_path / "out")]) == 0
    from test_main_dataset import MAIN
    assert ref.main([str(MAIN), "--out", str(tmp_path / "main")]) == 0
    run_rows = [r for r in read_csv(tmp_path / "main" / "comparisons.csv")
                if r["offering_id"] == "spring" and r["metric"] in ("conversion", "arpu")]
    assert read_csv(tmp_path / "out" / "comparisons.csv") == run_rows
    assert read_csv(tmp_path / "out" / "srm.csv") == [r for r in read_csv(tmp_path / "main" / "srm.csv") if r["offering_id"] == "spring"]


def test_stats_command_errors(tmp_path: Path, capsys):
    agg = tmp_path / "agg.csv"
    agg.write_text("offering_id,group,is_control,weight,users,converters,revenue_sum,revenue_sum_squares\n"
                   "o,a,true,1,10,11,0,0\n")
    assert ref.main(["stats", str(agg), "--out", str(tmp_path / "out")]) == 1
    assert "agg.csv:2" in capsys.readouterr().err
    agg.write_text("offering_id,group,is_control,weight,users,converters,revenue_sum,revenue_sum_squares\n"
                   "o,a,false,1,10,1,0,0\n")
    assert ref.main(["stats", str(agg), "--out", str(tmp_path / "out")]) == 1
    assert "exactly one is_control" in capsys.readouterr().err


METRIC_HEADER = "offering_id,group,is_control,weight,users,converters,revenue_sum,revenue_sum_squares,metric\n"


def test_stats_metric_rows_give_the_capped_and_matured_comparisons(tmp_path: Path):
    """Metric rows (Decision D31) are compared like the own rows, capped first, then D ascending,
    whatever their order in the file; the own rows' comparisons do not change."""
    own = "o,c,true,1,10,2,5,10,\no,t,false,1,10,1,5,10,\n"
    agg = tmp_path / "agg.csv"
    agg.write_text(METRIC_HEADER + own + "o,t,false,1,4,1,9,81,d14\no,c,true,1,4,2,6,18,d14\n"
                   "o,c,true,1,10,2,4,8,arpu_capped\no,t,false,1,10,1,3,9,arpu_capped\n")
    assert ref.main(["stats", str(agg), "--out", str(tmp_path / "out")]) == 0
    rows = read_csv(tmp_path / "out" / "comparisons.csv")
    assert [r["metric"] for r in rows] == ["conversion", "arpu", "arpu_capped", "conversion_d14", "arpu_d14"]
    assert (rows[2]["control_value"], rows[2]["value"]) == ("0.4", "0.3")
    assert (rows[4]["control_value"], rows[4]["value"]) == ("1.5", "2.25")
    plain = tmp_path / "plain.csv"
    plain.write_text(METRIC_HEADER + own)
    assert ref.main(["stats", str(plain), "--out", str(tmp_path / "plain")]) == 0
    assert read_csv(tmp_path / "plain" / "comparisons.csv") == rows[:2]


@pytest.mark.parametrize("extra, message", [
    ("o,c,true,1,10,2,5,10,capped\n", "metric must be empty, arpu_capped or d<days>"),
    ("o,c,true,1,10,2,5,10,d0\n", "metric must be empty"),
    ("o,c,true,1,10,2,4,8,arpu_capped\n", "group t has no row with metric arpu_capped"),
    ("o,x,false,1,10,2,4,8,d7\n", "group x has no row with an empty metric"),
    ("o,c,true,1,9,2,4,8,arpu_capped\no,t,false,1,10,1,4,8,arpu_capped\n", "users 9 do not fit the group's own 10"),
    ("o,c,true,1,11,2,4,8,d7\no,t,false,1,10,1,4,8,d7\n", "users 11 do not fit"),
])
def test_stats_metric_row_errors(tmp_path: Path, capsys, extra: str, message: str):
    agg = tmp_path / "agg.csv"
    agg.write_text(METRIC_HEADER + "o,c,true,1,10,2,5,10,\no,t,false,1,10,1,5,10,\n" + extra)
    assert ref.main(["stats", str(agg), "--out", str(tmp_path / "out")]) == 1
    assert message in capsys.readouterr().err
