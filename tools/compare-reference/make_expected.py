"""Expected values of the comparison statistics (lib/compare/), computed by scipy and rliable.

    python tools/compare-reference/make_expected.py > test/fixtures/compare/expected.json
    python tools/compare-reference/make_expected.py --points-only   # point estimates only (seconds)

Point estimates: numpy mean, scipy.stats.trim_mean(x, 0.25) (and rliable's aggregate_iqm, which is
the same call), rliable's probability_of_improvement (Mann-Whitney U / (n_x n_y)), scipy's Welch
t-test, n per arm from scipy's normal quantiles. Intervals: rliable's get_interval_estimates
(percentile, 50,000 resamples, RandomState(SEED)), once per case: the arm intervals of x for every
case, the probability-of-improvement interval for the cases in POI_CASES (rliable's bootstrap of it
takes about 2 minutes per call here). The Monte Carlo error the test allows is measured on our side
(the spread of our interval ends over several seeds: both sides draw 50,000 iid resamples from the
same values, so the spread of their ends is the same).
"""
import json
import sys
import warnings
from importlib.metadata import version

import numpy as np
import scipy.stats
from rliable import library as rly
from rliable import metrics

REPS = 50_000
SEED = 11
POI_CASES = {"three seeds", "ties across arms", "fifty normal"}
POWER, ALPHA = 0.8, 0.05


def cases():
    """Value sets: small, tied, skewed, large magnitudes, and the two arms each pair compares."""
    rng = np.random.default_rng(20261203)
    return [
        {"name": "three seeds", "x": [0.31, 0.35, 0.42], "y": [0.30, 0.28, 0.33]},
        {"name": "ties across arms", "x": [1.0, 2.0, 2.0, 3.0, 3.0], "y": [2.0, 2.0, 3.0, 1.0]},
        {"name": "outlier", "x": [0.1, 0.12, 0.11, 0.13, 0.9, 0.12, 0.1, 0.11], "y": [0.2, 0.19, 0.21, 0.18, 0.2, 0.22]},
        {"name": "throughput scale", "x": [13538.13, 13502.780000000002, 13468.470000000001, 13527.11, 13490.5, 13511.25],
         "y": [13420.0, 13555.5, 13401.25, 13477.0, 13460.75]},
        {"name": "fifty normal", "x": rng.normal(1.0, 0.3, 50).tolist(), "y": rng.normal(0.9, 0.5, 50).tolist()},
        {"name": "tiny negative", "x": (rng.normal(0, 1, 10) * 1e-11).tolist(), "y": (rng.normal(1, 1, 7) * 1e-11).tolist()},
    ]


def points(c):
    x, y = np.array(c["x"]), np.array(c["y"])
    out = {}
    for side, v in (("x", x), ("y", y)):
        out[side] = {"n": int(v.size), "mean": float(np.mean(v)), "iqm": float(scipy.stats.trim_mean(v, 0.25)),
                     "iqm_rliable": float(metrics.aggregate_iqm(v.reshape(-1, 1)))}
    out["p_improve"] = float(metrics.probability_of_improvement(x.reshape(-1, 1), y.reshape(-1, 1)))
    out["mann_whitney_u"] = float(scipy.stats.mannwhitneyu(x, y).statistic)
    w = scipy.stats.ttest_ind(x, y, equal_var=False)
    out["mean_diff"] = float(np.mean(x) - np.mean(y))
    out["welch_t"], out["welch_p"], out["welch_df"] = float(w.statistic), float(w.pvalue), float(w.df)
    z = scipy.stats.norm.ppf(1 - ALPHA / 2) + scipy.stats.norm.ppf(POWER)
    d = np.mean(x) - np.mean(y)
    out["n_needed"] = max(2, int(np.ceil(z * z * (np.var(x, ddof=1) + np.var(y, ddof=1)) / (d * d))))
    return out


def ends(ci):
    return {"low": float(ci[0]), "high": float(ci[1])}


def intervals(c):
    x, y = np.array(c["x"]).reshape(-1, 1), np.array(c["y"]).reshape(-1, 1)
    arm = lambda s: np.array([metrics.aggregate_mean(s), metrics.aggregate_iqm(s)])
    poi = lambda a, b: np.array([metrics.probability_of_improvement(a, b)])
    _, ci = rly.get_interval_estimates({"x": x}, arm, reps=REPS, random_state=np.random.RandomState(SEED))
    out = {"x_mean": ends(ci["x"][:, 0]), "x_iqm": ends(ci["x"][:, 1])}
    if c["name"] in POI_CASES:
        _, ci = rly.get_interval_estimates({"xy": (x, y)}, poi, reps=REPS, random_state=np.random.RandomState(SEED))
        out["p_improve"] = ends(ci["xy"][:, 0])
    return out


def main():
    # arch deprecates the RandomState rliable 1.2 passes it; the numbers are unchanged.
    warnings.filterwarnings("ignore", category=FutureWarning)
    only_points = "--points-only" in sys.argv
    out = {
        "command": "python tools/compare-reference/make_expected.py > test/fixtures/compare/expected.json",
        "versions": {p: version(p) for p in ("rliable", "scipy", "numpy", "arch", "pandas")},
        "resamples": REPS,
        "seed": SEED,
        "power": POWER,
        "alpha": ALPHA,
        "cases": [],
    }
    for c in cases():
        entry = {**c, "points": points(c)}
        if not only_points:
            entry["intervals"] = intervals(c)
        out["cases"].append(entry)
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
