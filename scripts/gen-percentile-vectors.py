#!/usr/bin/env python3
"""Writes testdata/vectors/percentiles.json: numpy's default percentile
(method="linear") on fixed random data sets, for tests/qualify_numpy.rs.

Run with the pinned numpy (scripts/requirements-test.txt):
    target/pyenv/bin/python scripts/gen-percentile-vectors.py > testdata/vectors/percentiles.json
Floats are written with repr(), which round-trips exactly.
"""
import json
import sys

import numpy as np

PERCENTILES = [0, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 100]


def main():
    rng = np.random.default_rng(20260923)
    cases = []
    sizes = [1, 2, 3, 4, 5, 7, 10, 11, 100, 101, 200, 999, 1000]
    for i, n in enumerate(sizes):
        kind = ["uniform", "lognormal", "normal", "ties"][i % 4]
        if kind == "uniform":
            data = rng.uniform(0.0, 10.0, n)
        elif kind == "lognormal":
            data = rng.lognormal(1.5, 0.4, n)
        elif kind == "normal":
            data = rng.normal(0.2575, 0.0007, n) * 1000.0
        else:
            data = np.round(rng.uniform(0.0, 5.0, n), 1)
        values = [float(x) for x in data]
        cases.append({
            "name": f"{kind}-{n}",
            "data": values,
            "percentiles": PERCENTILES,
            "expected": [float(np.percentile(np.array(values), p)) for p in PERCENTILES],
        })
    out = {
        "generator": "scripts/gen-percentile-vectors.py",
        "numpy": np.__version__,
        "method": "linear (numpy default)",
        "cases": cases,
    }
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
