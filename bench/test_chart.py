#!/usr/bin/env python3
"""bench/chart.py on a small results.json: one bar per tool and workload,
failed rows left out, the CPU in the title, a PNG written. Exits 77 (skip)
without matplotlib (the venv of tools/setup_venv.sh has it)."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
try:
    import matplotlib  # noqa: F401
except ImportError:
    print("skipped: no matplotlib (run tools/setup_venv.sh)")
    sys.exit(77)
import chart  # noqa: E402


def row(workload, n, tool, variant, wall, check="ok"):
    return dict(workload=workload, n=n, tool=tool, variant=variant,
                wall_s=wall, check=check)


RESULTS = dict(mode="quick", draws=50,
               machine={"Model name": "AMD EPYC 7B13", "CPU(s)": "2"},
               rows=[row("linreg predict", 100000, "aimz-run",
                         "2 devices", 0.5),
                     row("linreg predict", 100000, "numpy", "as-is", 2.0),
                     row("linreg predict", 100000, "numpyro", "as-is", 9.0,
                         check="FAILED"),
                     row("mlp predict", 1000, "aimz-run", "2 devices", 0.2),
                     row("mlp predict", 1000, "aimz-jax", "as-is", 3.0),
                     row("mlp predict", 1000, "pymc", "as-is", 13.0),
                     row("mlp predict", 1000, "stan", "as-is", 9.0),
                     row("mlp predict", 1000, "stan", "tuned malloc", 6.0)])


class Chart(unittest.TestCase):
    def test_bars_title_and_png(self):
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "chart.png")
            groups, title = chart.chart(RESULTS, out)
            with open(out, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        self.assertEqual(groups, [
            ("linreg predict, n = 100,000", {"aimz-run": 0.5, "NumPy": 2.0}),
            ("mlp predict, n = 1,000", {"aimz-run": 0.2,
                                        "aimz (JAX)": 3.0, "PyMC": 13.0,
                                        "Stan gqs": 9.0})])
        self.assertIn("AMD EPYC 7B13, 2 CPUs", title)
        self.assertIn("50 draws", title)

    def test_no_timed_rows_is_an_error(self):
        with self.assertRaises(ValueError):
            chart.chart(dict(RESULTS, rows=[]), os.devnull)


if __name__ == "__main__":
    unittest.main()
