"""Expected Holm-adjusted p-values (lib/compare/holm.ts), computed by statsmodels.

    python tools/compare-reference/make_holm_expected.py > test/fixtures/compare/holm-expected.json

statsmodels.stats.multitest.multipletests(p, method="holm"): ties, values capped at 1, a single test,
and 33 p-values drawn as the bundled comparison has them (11 concepts x 3 scopes).
"""
import json
import sys
from importlib.metadata import version

import numpy as np
from statsmodels.stats.multitest import multipletests


def cases():
    rng = np.random.default_rng(20261205)
    return [
        {"name": "four", "p": [0.01, 0.04, 0.03, 0.005]},
        {"name": "ties", "p": [0.02, 0.5, 0.02, 0.01]},
        {"name": "capped at 1", "p": [0.3, 0.6, 0.9]},
        {"name": "one test", "p": [0.04]},
        {"name": "order kept when a larger raw value has a smaller factor", "p": [0.011, 0.012, 0.013, 0.2, 0.0001]},
        {"name": "thirty-three uniform", "p": rng.uniform(0, 1, 33).tolist()},
    ]


def main():
    out = {
        "command": "python tools/compare-reference/make_holm_expected.py > test/fixtures/compare/holm-expected.json",
        "versions": {p: version(p) for p in ("statsmodels", "numpy")},
        "cases": [{**c, "holm": multipletests(c["p"], method="holm")[1].tolist()} for c in cases()],
    }
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
