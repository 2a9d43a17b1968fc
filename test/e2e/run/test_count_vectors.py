"""Vectors of counts: DirichletMultinomial and Multinomial draws against
their moments (mean n p, variance n p (1 - p), times (n + a0) / (1 + a0)
for the Dirichlet-multinomial), counts that sum to the trials, and log
masses against SciPy (off the support: -inf)."""

import os
import sys

import numpy as np
from scipy import special, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402


class CountVectors(E.E2ETestCase):
    N, K = 20000, 4

    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(394)
        self.trials = rng.integers(0, 40, self.N).astype(np.int32)
        # Small, moderate and large concentrations (over-dispersion from
        # strong to almost none).
        self.alpha = np.array([[0.05, 0.1, 0.2, 0.4], [0.5, 1, 2, 4],
                               [50, 100, 200, 400]])
        p = np.array([[0.1, 0.2, 0.3, 0.4], [0.7, 0.1, 0.1, 0.1],
                      [0.25, 0.25, 0.25, 0.25]])
        self.post = dict(alpha=self.alpha, p=p)
        self.data = {"trials": self.save("trials.npy", self.trials)}
        self.pp = self.savez("post.npz", **self.post)

    def test_draws_match_the_moments(self):
        out = self.fresh(".npz")
        E.run_cmd("predict", E.model("count_vectors"), self.data, out,
                  posterior=self.pp, seed=6)
        got = E.read_arrays(out)
        n = self.trials[:, None].astype(np.float64)
        for name in ("dm", "mn"):
            y = got[name].astype(np.float64)
            self.assertEqual(y.shape, (3, self.N, self.K))
            self.assertTrue(np.all(y >= 0), name)
            np.testing.assert_array_equal(y.sum(-1), np.broadcast_to(
                self.trials, (3, self.N)))
            for s in range(3):
                if name == "dm":
                    a0 = self.alpha[s].sum()
                    pr = self.alpha[s] / a0
                    inflate = (n + a0) / (1 + a0)
                else:
                    pr, inflate = self.post["p"][s], 1.0
                mean = n * pr
                var = n * pr * (1 - pr) * inflate
                z = (y[s] - mean).sum(0) / np.sqrt(var.sum(0))
                self.assertLess(np.abs(z).max(), 5, (name, s, z))
                # The variance, to a few percent (its estimate's spread).
                ratio = ((y[s] - mean) ** 2).sum(0) / var.sum(0)
                self.assertLess(np.abs(ratio - 1).max(), 0.12,
                                (name, s, ratio))

    def test_log_masses_against_scipy(self):
        rng = np.random.default_rng(5)
        m = 300
        trials = self.trials[:m]
        dm = np.stack([rng.multinomial(t, [0.4, 0.3, 0.2, 0.1])
                       for t in trials]).astype(np.int32)
        mn = np.stack([rng.multinomial(t, [0.1, 0.2, 0.3, 0.4])
                       for t in trials]).astype(np.int32)
        dm[::17, 0] += 1  # off the support: the counts miss the trials
        data = {"trials": self.save("t2.npy", trials),
                "dm": self.save("dm.npy", dm), "mn": self.save("mn.npy", mn)}
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", E.model("count_vectors"), data, out,
                  posterior=self.pp)
        got = E.read_arrays(out)
        for s in range(3):
            a = self.alpha[s]
            # Debian's SciPy predates stats.dirichlet_multinomial: its
            # closed form in SciPy's gammaln (the Polya distribution).
            g = special.gammaln
            ref = (g(a.sum()) + g(trials + 1.0) - g(trials + a.sum()) +
                   (g(dm + a) - g(a) - g(dm + 1.0)).sum(-1))
            ref[dm.sum(-1) != trials] = -np.inf
            # An f32 model (its inputs are counts): f32's rounding.
            np.testing.assert_allclose(got["dm"][s], ref, rtol=1e-5,
                                       atol=1e-4)
            ref = stats.multinomial.logpmf(mn, trials, self.post["p"][s])
            # SciPy 1.10 gives NaN for zero trials; the mass of no
            # counts is 1 (NumPyro: log 1 = 0).
            ref[trials == 0] = 0.0
            np.testing.assert_allclose(got["mn"][s], ref, rtol=1e-5,
                                       atol=1e-4)


if __name__ == "__main__":
    E.main()
