"""NumPyro's MaskedDistribution (`.mask(m)`): missing observations.

- a regression whose missing outputs are NaN in the data, masked out: the
  log-likelihood is SciPy's where observed and 0 where missing, the same
  on one device and on two (batch 7);
- predict draws a masked output exactly as its base (the same bytes as the
  unmasked model with the same seed);
- a masked count output beside a latent, and a masked truncation."""

import os
import sys

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

MASKED = """
model masked(x: f64[n], observed: bool[n]) -> (y: f64[n]) {
  alpha ~ Normal(0, 1);
  beta ~ Normal(0, 1);
  sigma ~ HalfNormal(1);
  plate obs(n) {
    y ~ MaskedDistribution(Normal(alpha + beta * x, sigma), observed);
  }
}
"""

PLAIN = """
model masked(x: f64[n], observed: bool[n]) -> (y: f64[n]) {
  alpha ~ Normal(0, 1);
  beta ~ Normal(0, 1);
  sigma ~ HalfNormal(1);
  plate obs(n) {
    y ~ Normal(alpha + beta * x, sigma);
  }
}
"""

COUNTS = """
model counts(x: f64[n], seen: f64[n]) -> (k: i32[n]) {
  b ~ Normal(0, 1);
  lo ~ Normal(0, 1);
  plate obs(n) {
    deterministic t = x + 0.0;
    k ~ MaskedDistribution(Poisson(exp(b * x)), mask=seen);
  }
}
"""


class MissingOutputs(E.E2ETestCase):
    N, DRAWS = 120, 9

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = np.random.default_rng(17)
        cls.x = rng.normal(size=cls.N)
        cls.seen = rng.random(cls.N) < 0.7
        y = 0.5 + 1.5 * cls.x + rng.normal(size=cls.N)
        cls.y = np.where(cls.seen, y, np.nan)
        cls.post = {"alpha": rng.normal(size=cls.DRAWS),
                    "beta": rng.normal(size=cls.DRAWS),
                    "sigma": rng.uniform(0.5, 2.0, cls.DRAWS)}
        cls.postfile = cls.savez("post.npz", **cls.post)
        cls.data = {"x": cls.save("x.npy", cls.x),
                    "observed": cls.save("seen.npy", cls.seen)}

    def test_log_likelihood_skips_the_missing_rows(self):
        so = self.compile_source("masked", MASKED)
        data = dict(self.data, y=self.save("y.npy", self.y))
        outs = []
        for devices, batch in ((1, None), (2, 7)):
            out = self.fresh()
            E.run_cmd("log-likelihood", so, data, out, posterior=self.postfile,
                      devices=devices, batch=batch, extra=["--strict"])
            outs.append(E.read_arrays(out))
        self.assert_same_arrays(outs[0], outs[1])
        p = self.post
        mean = p["alpha"][:, None] + p["beta"][:, None] * self.x
        with np.errstate(invalid="ignore"):
            want = np.where(self.seen, stats.norm.logpdf(
                self.y, mean, p["sigma"][:, None]), 0.0)
        np.testing.assert_allclose(outs[0]["y"].reshape(self.DRAWS, self.N),
                                   want, rtol=1e-12, atol=1e-12)

    def test_predict_draws_as_the_base(self):
        masked = self.compile_source("masked", MASKED)
        plain = self.compile_source("plain", PLAIN)
        got = []
        for so in (masked, plain):
            out = self.fresh()
            E.run_cmd("predict", so, self.data, out, posterior=self.postfile,
                      seed=5)
            got.append(E.read_arrays(out))
        self.assert_same_arrays(got[0], got[1])


class MaskedCounts(E.E2ETestCase):
    def test_log_likelihood_against_scipy(self):
        so = self.compile_source("counts", COUNTS)
        rng = np.random.default_rng(4)
        n, draws = 80, 6
        x = rng.normal(size=n)
        seen = (rng.random(n) < 0.5).astype(np.float64)
        k = np.where(seen > 0, rng.poisson(2.0, n), -7).astype(np.int32)
        b = rng.normal(size=draws)
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so,
                  {"x": self.save("x.npy", x), "seen": self.save("s.npy", seen),
                   "k": self.save("k.npy", k)},
                  out, posterior=self.savez("p.npz", b=b, lo=b))
        got = E.read_arrays(out)["k"].reshape(draws, n)
        want = np.where(seen > 0, stats.poisson.logpmf(
            k, np.exp(b[:, None] * x)), 0.0)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


if __name__ == "__main__":
    E.main()
