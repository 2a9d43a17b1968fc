"""Truncations in the far tail draw inside their interval and follow the
truncated law there, through the whole path (the row samplers' vector
half and their full samplers): TruncatedDistribution(Normal(0, 1),
low=1e9) in f32 draws within a few ulps of 1e9 (it drew 2.83e9), at
1e30 not inf; a truncated HalfNormal and LogNormal likewise."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

SOURCE = """model tails(lo: %(t)s[n]) -> (y: %(t)s[n]) {
  plate obs(n) {
    deterministic u = 1.0 * lo;
    a ~ TruncatedDistribution(Normal(0.0, 1.0), low=lo);
    b ~ TruncatedDistribution(HalfNormal(2.0), low=lo);
    c ~ TruncatedDistribution(Normal(0.0, 1.0), high=-lo);
    y ~ Normal(0.0, 1.0);
  }
}
"""


class FarTails(E.E2ETestCase):
    def check(self, dtype):
        so = self.compile_source("tails_" + dtype, SOURCE % {"t": dtype})
        t = np.float32 if dtype == "f32" else np.float64
        lows = np.array([1e8, 1e9, 1e12, 1e30, np.finfo(t).max / 2] * 8, t)
        out = self.fresh(".npz")
        r = E.run_cmd("prior-predictive", so, {"lo": self.save("lo.npy", lows)},
                      out, num_samples=50, seed=4, sites=["a", "b", "c"],
                      extra=["--strict"])
        self.assertEqual(r.rc, 0, r.stderr)
        got = E.read_arrays(out)
        eps = np.finfo(t).eps
        for site, sign, scale in (("a", 1, 1.0), ("b", 1, 2.0),
                                  ("c", -1, 1.0)):
            v = got[site] * sign
            self.assertTrue(np.isfinite(v).all(), site)
            self.assertTrue((v >= lows).all(), site)
            # The excess over the bound is exponential with mean scale^2 /
            # low: within a few ulps of the bound, or a few such means.
            lo64 = lows.astype(np.float64)
            bound = np.maximum(8 * eps * lo64, 40 * scale ** 2 / lo64)
            excess = v.astype(np.float64) - lo64
            self.assertTrue((excess <= lo64 * 8 * eps + bound).all(),
                            "%s: excess %s" % (site, excess.max(axis=0)[:5]))

    def test_f32(self):
        self.check("f32")

    def test_f64(self):
        self.check("f64")


if __name__ == "__main__":
    E.main()
