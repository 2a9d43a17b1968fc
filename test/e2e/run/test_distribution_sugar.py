"""Distributions that are others reparameterized (DistributionSugar.cpp):
NumPyro's AsymmetricLaplaceQuantile (quantile regression) and
Left/Right/TwoSidedTruncatedDistribution, PyMC's HalfStudentT, scored
against SciPy or the closed form (Yu & Moyeed's asymmetric Laplace
likelihood) and drawn with the right support and quantile; PyMC's keyword
names (a PyMC radon model written with them) against SciPy; NumPyro's
methods on a site's distribution (`.expand`, `.to_event`, `.mask`) give
the same bytes as the language's own spellings, and so does NumPyro's
non-centred eight schools, written with TransformedDistribution.
"""

import os
import sys

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

SUGAR = """
model m(x: f64[n]) -> (y1: f64[n], y2: f64[n], y3: f64[n], y4: f64[n],
                       y5: f64[n]) {
  a ~ Normal(0, 1);
  s ~ HalfStudentT(3, 2.0);
  plate obs(n) {
    y1 ~ AsymmetricLaplaceQuantile(a * x, s, quantile=0.9);
    y2 ~ HalfStudentT(nu=4, sigma=s);
    y3 ~ LeftTruncatedDistribution(Normal(a, 1), low=0.5);
    y4 ~ RightTruncatedDistribution(StudentT(3, a, 1));
    y5 ~ TwoSidedTruncatedDistribution(Normal(a, s), -1.0, 2.0);
  }
}
"""


def alq_logpdf(y, mu, sigma, q):
    u = (y - mu) / sigma
    return np.log(q * (1 - q) / sigma) - u * (q - (u < 0))


class DistributionSugar(E.E2ETestCase):
    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(15)
        self.n, D = 40, 5
        self.x = rng.normal(size=self.n)
        self.a = rng.normal(size=D)
        self.s = rng.uniform(0.5, 2, D)
        self.pp = self.savez("sugar_post.npz", a=self.a, s=self.s)
        self.so = self.compile_source("sugar", SUGAR)
        self.data = {"x": self.save("sugar_x.npy", self.x)}

    def test_log_likelihood_against_scipy(self):
        rng = np.random.default_rng(16)
        ys = {"y1": rng.normal(size=self.n),
              "y2": rng.uniform(0.01, 5, self.n),
              "y3": rng.uniform(0.5, 3, self.n),
              "y4": -rng.uniform(0, 3, self.n),
              "y5": rng.uniform(-1, 2, self.n)}
        data = dict(self.data, **{k: self.save(k + ".npy", v)
                                  for k, v in ys.items()})
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", self.so, data, out, posterior=self.pp)
        got = E.read_arrays(out)
        a, s, x = self.a[:, None], self.s[:, None], self.x
        want = {
            "y1": alq_logpdf(ys["y1"], a * x, s, 0.9),
            "y2": np.log(2) + stats.t.logpdf(ys["y2"], 4, 0, s),
            "y3": stats.truncnorm.logpdf(ys["y3"], 0.5 - a, np.inf, a, 1),
            "y4": stats.t.logpdf(ys["y4"], 3, a, 1)
                  - stats.t.logcdf(0, 3, a, 1),
            "y5": stats.truncnorm.logpdf(ys["y5"], (-1 - a) / s,
                                         (2 - a) / s, a, s),
        }
        for k, w in want.items():
            np.testing.assert_allclose(got[k], w, rtol=1e-10, err_msg=k)

    def test_draws(self):
        so = self.compile_source("sugar_one", """
model m(x: f64[n]) -> (y: f64[n], z: f64[n]) {
  plate obs(n) {
    y ~ AsymmetricLaplaceQuantile(x, 2.0, quantile=0.25);
    z ~ TwoSidedTruncatedDistribution(Normal(0, 1), low=-0.5, high=1.5);
  }
}
""")
        x = np.linspace(-1, 1, 4000)
        out = self.fresh()
        E.run_cmd("prior-predictive", so, {"x": self.save("sx.npy", x)}, out,
                  num_samples=10, seed=7)
        got = E.read_arrays(out)
        # x is the 0.25 quantile of y at every x.
        below = (got["y"] < x).mean()
        self.assertLess(abs(below - 0.25), 0.01)
        self.assertTrue(np.all((got["z"] >= -0.5) & (got["z"] <= 1.5)))
        self.assertGreater(stats.kstest(
            got["z"].ravel(), stats.truncnorm(-0.5, 1.5).cdf).pvalue, 1e-4)



# pymc-examples, "A Primer on Bayesian Methods for Multilevel Modeling"
# (radon, varying intercepts), written with PyMC's keywords; a count
# response with PyMC's NegativeBinomial(mu, alpha) beside it.
PYMC_RADON = """
model radon(floor: f64[n], county: i32[n]) -> (log_radon: f64[n], c: i32[n]) {
  mu_a ~ Normal(mu=0.0, sigma=10.0);
  sigma_a ~ HalfNormal(sigma=5.0);
  alpha ~ Normal(mu=mu_a, sigma=sigma_a)[J];
  beta ~ Normal(mu=0.0, sigma=10.0);
  sigma_y ~ Exponential(lam=1.0);
  phi ~ Gamma(alpha=2.0, beta=0.5);
  plate obs(n) {
    log_radon ~ Normal(mu=alpha[county] + beta * floor, sigma=sigma_y);
    c ~ NegativeBinomial(mu=exp(alpha[county]), alpha=phi);
  }
}
"""


class PyMCKeywords(E.E2ETestCase):
    def test_radon_against_scipy(self):
        rng = np.random.default_rng(17)
        n, J, D = 60, 5, 4
        floor = rng.integers(0, 2, n).astype(np.float64)
        county = rng.integers(0, J, n).astype(np.int32)
        y = rng.normal(1, 1, n)
        c = rng.integers(0, 20, n).astype(np.int32)
        post = {"mu_a": rng.normal(size=D), "sigma_a": rng.uniform(0.5, 2, D),
                "alpha": rng.normal(1, 0.5, (D, J)), "beta": rng.normal(size=D),
                "sigma_y": rng.uniform(0.5, 1.5, D),
                "phi": rng.uniform(1, 5, D)}
        so = self.compile_source("pymc_radon", PYMC_RADON)
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so,
                  {"floor": self.save("r_floor.npy", floor),
                   "county": self.save("r_county.npy", county),
                   "log_radon": self.save("r_y.npy", y),
                   "c": self.save("r_c.npy", c)}, out,
                  posterior=self.savez("r_post.npz", **post))
        got = E.read_arrays(out)
        a = post["alpha"][:, county]
        np.testing.assert_allclose(
            got["log_radon"],
            stats.norm.logpdf(y, a + post["beta"][:, None] * floor,
                              post["sigma_y"][:, None]), rtol=1e-12)
        mu, phi = np.exp(a), post["phi"][:, None]
        np.testing.assert_allclose(
            got["c"], stats.nbinom.logpmf(c, phi, phi / (phi + mu)),
            rtol=1e-10)

METHODS = """
model m(x: f64[n, k], seen: bool[n]) -> (y: f64[n]) {{
  beta ~ {beta};
  sigma ~ {sigma};
  plate obs(n) {{
    y ~ {y};
  }}
}}
"""


class DistributionMethods(E.E2ETestCase):
    """NumPyro's hierarchical-regression spelling, `dist.Normal(0,
    1).expand([k]).to_event(1)` for the coefficients and `.mask(seen)` on
    missing outputs, against the language's `Normal(0, 1)[k]` and
    MaskedDistribution: the same bytes from predict, log-likelihood and
    prior-predictive."""

    def test_same_bytes_as_the_languages_spellings(self):
        numpyro = METHODS.format(beta="Normal(0, 1).expand([k]).to_event(1)",
                                 sigma="HalfNormal(1).to_event()",
                                 y="Normal(x @ beta, sigma).mask(seen)")
        native = METHODS.format(beta="Normal(0, 1)[k]", sigma="HalfNormal(1)",
                                y="MaskedDistribution(Normal(x @ beta, sigma), seen)")
        rng = np.random.default_rng(11)
        x = rng.normal(size=(40, 3))
        seen = rng.random(40) < 0.7
        y = np.where(seen, x @ [0.5, -1.0, 0.2] + rng.normal(size=40), np.nan)
        data = {"x": self.save("x.npy", x), "seen": self.save("seen.npy", seen)}
        post = self.savez("post.npz", beta=rng.normal(size=(6, 3)),
                          sigma=rng.uniform(0.5, 2.0, 6))
        outs = []
        for name, src in (("methods", numpyro), ("native", native)):
            so = self.compile_source("spelling_" + name, src)
            got = {}
            for cmd, extra in (("predict", dict(posterior=post, seed=3)),
                               ("log-likelihood", dict(posterior=post)),
                               ("prior-predictive", dict(num_samples=5, seed=4))):
                d = dict(data, y=self.save("y.npy", y)) if cmd == "log-likelihood" else data
                out = self.fresh(".npz")
                E.run_cmd(cmd, so, d, out, **extra)
                got[cmd] = E.read_arrays(out)
            outs.append(got)
        for cmd in outs[0]:
            self.assert_same_arrays(outs[0][cmd], outs[1][cmd])
        ll = outs[0]["log-likelihood"]["y"]
        self.assertTrue(np.all(ll[:, ~seen] == 0))


EIGHT_SCHOOLS = """
model eight_schools(sigma: f64[J]) -> (obs: f64[J]) {{
  mu ~ Normal(0, 5);
  tau ~ HalfCauchy(5);
  plate schools(J) {{
    theta ~ {theta};
    obs ~ Normal(theta, sigma);
  }}
}}
"""


class EightSchoolsNonCentred(E.E2ETestCase):
    """NumPyro's "Bad posterior geometry" example: theta ~
    TransformedDistribution(Normal(0, 1), AffineTransform(mu, tau)) is
    Normal(mu, tau), drawn with the same bytes; its draws standardize to
    N(0, 1)."""

    def test_same_draws_as_normal(self):
        sigma = self.save("sigma.npy", np.array([15., 10, 16, 11, 9, 11, 10, 18]))
        outs = []
        for name, theta in (
                ("transformed", "TransformedDistribution(Normal(0., 1.), "
                                "dist.transforms.AffineTransform(mu, tau))"),
                ("normal", "Normal(mu, tau)")):
            so = self.compile_source("eight_" + name, EIGHT_SCHOOLS.format(theta=theta))
            out = self.fresh(".npz")
            E.run_cmd("prior-predictive", so, {"sigma": sigma}, out, num_samples=2000, seed=12,
                      sites=["mu", "tau", "theta", "obs"])
            outs.append(E.read_arrays(out))
        self.assert_same_arrays(outs[0], outs[1])
        z = (outs[0]["theta"] - outs[0]["mu"][:, None]) / outs[0]["tau"][:, None]
        self.assertGreater(stats.kstest(z.ravel(), "norm").pvalue, 1e-4)


# pymc-examples, "Bayesian regression with truncated or censored data": the
# truncated model, `pm.Truncated("obs", pm.Normal.dist(mu=mu, sigma=sigma),
# lower=bounds[0], upper=bounds[1], observed=y)`, and the censored one with
# PyMC's `lower=None` (no lower bound, as left out).
PYMC_TRUNCATED = """
model truncated_regression(x: f64[n]) -> (y: f64[n], yc: f64[n]) {
  slope ~ Normal(mu=0, sigma=1);
  intercept ~ Normal(mu=0, sigma=1);
  sigma ~ HalfNormal(sigma=1);
  plate obs(n) {
    y ~ Truncated(Normal(mu=slope * x + intercept, sigma=sigma), lower=-5.0, upper=5.0);
    yc ~ Censored(Normal(mu=slope * x + intercept, sigma=sigma), lower=None, upper=5.0);
  }
}
"""


class PyMCTruncated(E.E2ETestCase):
    def test_against_scipy(self):
        rng = np.random.default_rng(21)
        n, D = 50, 4
        x = rng.uniform(-10, 10, n)
        y = np.clip(rng.normal(1.0 * x, 2.0), -4.99, 4.99)
        yc = np.minimum(rng.normal(1.0 * x, 2.0), 5.0)
        post = dict(slope=rng.normal(1, 0.1, D), intercept=rng.normal(0, 0.1, D),
                    sigma=rng.uniform(1.5, 2.5, D))
        so = self.compile_source("pymc_truncated", PYMC_TRUNCATED)
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so,
                  {"x": self.save("tx.npy", x), "y": self.save("ty.npy", y),
                   "yc": self.save("tyc.npy", yc)}, out,
                  posterior=self.savez("tpost.npz", **post))
        got = E.read_arrays(out)
        mu = post["slope"][:, None] * x + post["intercept"][:, None]
        sd = post["sigma"][:, None]
        ref = stats.truncnorm.logpdf(y, (-5 - mu) / sd, (5 - mu) / sd, mu, sd)
        np.testing.assert_allclose(got["y"], ref, rtol=1e-10)
        refc = np.where(yc >= 5.0, stats.norm.logsf(5.0, mu, sd),
                        stats.norm.logpdf(yc, mu, sd))
        np.testing.assert_allclose(got["yc"], refc, rtol=1e-10)


if __name__ == "__main__":
    E.main()
