"""Rice's CDF (runtime/include/aimz/math/PositiveFamilies.h: the noncentral
chi-square's Poisson mixture of gamma CDFs), checked with SciPy only:
right-censored and truncated log-likelihoods, log_cdf / log_ccdf as
deterministic sites, and truncated draws inside their interval and by the
truncated law (KS)."""

import os
import sys

import numpy as np
from scipy import integrate, special, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

MODEL = """
model rice(nu: f64[n], cens: f64[n], v: f64[n]) -> (y: f64[n], t: f64[n]) {
  s ~ Gamma(2, 1);
  plate obs(n) {
    y ~ RightCensoredDistribution(Rice(nu, s), censored=cens > 0);
    t ~ TruncatedDistribution(Rice(nu, s), low=1.0, high=3.0);
    deterministic c = log_cdf(Rice(nu, s), v);
    deterministic d = log_ccdf(Rice(nu, s), v);
  }
}
"""


def log_tail(x, nu, s, upper):
    """log P(X > x) or log P(X <= x) by quadrature of the density (scaled by
    i0e): Debian's scipy.stats.rice.logsf is off by 1e-4 relative at 27
    nats into the tail, its logcdf likewise near 0."""
    f = lambda r: r / s**2 * np.exp(-(r - nu) ** 2 / (2 * s * s)) * special.i0e(r * nu / s**2)  # noqa: E731
    v, _ = integrate.quad(f, x, np.inf, epsabs=0, epsrel=1e-13, limit=200) if upper else \
        integrate.quad(f, 0, x, epsabs=0, epsrel=1e-13, limit=200)
    return np.log(v)


def log_tails(x, nu, s, upper):
    return np.array([log_tail(a, b, s, upper) for a, b in zip(x, nu)])


class RiceCdf(E.E2ETestCase):
    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(3)
        self.n = n = 300
        self.nu = rng.uniform(0, 6, n)
        self.s = np.array([0.7, 1.3, 2.5])
        self.v = rng.uniform(0.01, 9, n)
        self.so = self.compile_source("rice", MODEL)
        self.data = {"nu": self.save("nu.npy", self.nu), "v": self.save("v.npy", self.v),
                     "cens": self.save("cens.npy", (rng.random(n) < 0.4).astype(float))}
        self.rng = rng

    def law(self, d):
        return stats.rice(self.nu / self.s[d], scale=self.s[d])

    def test_censored_truncated_and_log_cdf(self):
        y = stats.rice.rvs(self.nu / 1.3, scale=1.3, random_state=4)
        t = self.rng.uniform(1.0, 3.0, self.n)
        data = dict(self.data, y=self.save("y.npy", y), t=self.save("t.npy", t))
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", self.so, data, out,
                  posterior=self.savez("p.npz", s=self.s))
        got = E.read_arrays(out)
        cens = np.load(self.data["cens"]) > 0
        for d in range(len(self.s)):
            law = self.law(d)
            want = np.where(cens, log_tails(y, self.nu, self.s[d], True), law.logpdf(y))
            np.testing.assert_allclose(got["y"][d], want, rtol=1e-9, err_msg=str(d))
            mass = law.cdf(3.0) - law.cdf(1.0)
            np.testing.assert_allclose(got["t"][d], law.logpdf(t) - np.log(mass), rtol=1e-9)
        out = self.fresh(".npz")
        E.run_cmd("predict", self.so, self.data, out, posterior=self.savez("p.npz", s=self.s),
                  sites=["c", "d"])
        got = E.read_arrays(out)
        for d in range(len(self.s)):
            law = self.law(d)
            np.testing.assert_allclose(got["c"][d], log_tails(self.v, self.nu, self.s[d], False),
                                       rtol=1e-9, atol=1e-12)
            np.testing.assert_allclose(got["d"][d], log_tails(self.v, self.nu, self.s[d], True),
                                       rtol=1e-9, atol=1e-12)

    def test_truncated_draws(self):
        draws = 400
        out = self.fresh(".npz")
        E.run_cmd("predict", self.so, self.data, out,
                  posterior=self.savez("p1.npz", s=np.full(draws, 1.3)), seed=8, sites=["t"])
        t = E.read_arrays(out)["t"]
        self.assertTrue(((t >= 1.0) & (t <= 3.0)).all())
        law = stats.rice(self.nu / 1.3, scale=1.3)
        lo, hi = law.cdf(1.0), law.cdf(3.0)
        u = (law.cdf(t) - lo) / (hi - lo)  # uniform under the truncated law
        self.assertGreater(stats.kstest(u.reshape(-1), "uniform").pvalue, 1e-4)


if __name__ == "__main__":
    E.main()
