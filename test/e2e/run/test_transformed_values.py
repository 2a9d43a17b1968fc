"""TransformedDistribution over elementwise transforms whose result is no
named distribution (Sema/Transformed.cpp, Conversion/LowerValueMaps.cpp),
in published models written as NumPyro writes them:

- a shifted log-normal reaction-time regression (brms's
  `shifted_lognormal`, Stan's `lognormal_lpdf(rt - ndt | mu, sigma)`), in
  NumPyro `TransformedDistribution(LogNormal(mu, sigma),
  AffineTransform(ndt, 1))`: log-likelihood against SciPy at both
  precisions, and the same numbers from `log_prob` in a factor;
- a correlation with a scaled Beta prior (Stan's `(rho + 1) / 2 ~
  beta(2, 2)`) and a log-uniform prior (numpyro-ext's LogUniform, an
  ExpTransform of a Uniform on the logs): prior-predictive draws in their
  range and of their law, a posterior's values used as given;
- draws are the base's draws mapped forward: the same site's draws of
  Gamma and of its Exp-then-Affine transform agree to rounding.
"""

import os
import sys

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

SHIFTED_LOGNORMAL = """
model rt(x: {p}[n]) -> (rt: {p}[n]) {{
  a ~ Normal(6, 1);
  b ~ Normal(0, 0.5);
  sigma ~ HalfNormal(1);
  ndt ~ Uniform(0, 0.3);
  plate trials(n) {{
    rt ~ TransformedDistribution(LogNormal(a + b * x, sigma),
                                 dist.transforms.AffineTransform(ndt, 1.0));
    factor same = log_prob(TransformedDistribution(
        LogNormal(a + b * x, sigma), AffineTransform(ndt, 1.0)), rt);
  }}
}}
"""

PRIORS = """
model m(x: f64[n]) -> (y: f64[n]) {
  rho ~ TransformedDistribution(Beta(2.0, 2.0), AffineTransform(-1.0, 2.0));
  tau ~ TransformedDistribution(Uniform(log(0.1), log(10.0)), ExpTransform());
  plate obs(n) {
    y ~ Normal(rho * x, tau);
  }
}
"""

BASE = """
model m(x: f64[n]) -> (y: f64[n]) {{
  dummy ~ Normal(0, 1);
  plate obs(n) {{
    y ~ {y};
  }}
}}
"""


class ShiftedLogNormal(E.E2ETestCase):
    def test_log_likelihood_against_scipy(self):
        rng = np.random.default_rng(3)
        n, D = 60, 4
        x = rng.normal(size=n)
        post = dict(a=rng.normal(6, 0.3, D), b=rng.normal(0, 0.3, D),
                    sigma=rng.uniform(0.2, 0.8, D), ndt=rng.uniform(0.1, 0.3, D))
        # Reaction times: most beyond the shift, a few at or before it
        # (outside the support: -inf, as SciPy says).
        y = 0.3 + rng.lognormal(6, 0.5, n) / 1000
        y[:3] = [0.05, 0.1, 0.2]
        for prec, tol in (("f64", 1e-12), ("f32", 2e-5)):
            ft = np.float64 if prec == "f64" else np.float32
            so = self.compile_source("rt_" + prec, SHIFTED_LOGNORMAL.format(p=prec))
            pp = self.savez("rt_post_%s.npz" % prec,
                            **{k: v.astype(ft) for k, v in post.items()})
            out = self.fresh(".npz")
            E.run_cmd("log-likelihood", so,
                      {"x": self.save("rt_x_%s.npy" % prec, x.astype(ft)),
                       "rt": self.save("rt_y_%s.npy" % prec, y.astype(ft))},
                      out, posterior=pp)
            got = E.read_arrays(out)
            yv = y.astype(ft).astype(np.float64)
            pv = {k: v.astype(ft).astype(np.float64) for k, v in post.items()}
            with np.errstate(divide="ignore"):
                ref = stats.lognorm.logpdf(
                    yv[None, :], pv["sigma"][:, None], loc=pv["ndt"][:, None],
                    scale=np.exp(pv["a"][:, None] + pv["b"][:, None] * x.astype(ft)))
            ll = got["rt"].astype(np.float64)
            np.testing.assert_array_equal(np.isfinite(ll), np.isfinite(ref))
            np.testing.assert_array_equal(ll[~np.isfinite(ref)], ref[~np.isfinite(ref)])
            ok = np.isfinite(ref)
            np.testing.assert_allclose(ll[ok], ref[ok], rtol=tol, atol=tol)
            # log_prob of the same distribution in a factor: the same bits.
            np.testing.assert_array_equal(got["same"], got["rt"])

    def test_draws_are_shifted_log_normal(self):
        so = self.compile_source("rt_draws", SHIFTED_LOGNORMAL.format(p="f64"))
        x = np.linspace(-1, 1, 500)
        pp = self.savez("rt_one.npz", a=np.array([6.0]), b=np.array([0.4]),
                        sigma=np.array([0.5]), ndt=np.array([0.25]))
        out = self.fresh(".npz")
        E.run_cmd("predict", so, {"x": self.save("rt_dx.npy", x)}, out,
                  posterior=pp, seed=5)
        y = E.read_arrays(out)["rt"]
        self.assertTrue(np.all(y > 0.25))
        z = (np.log(y[0] - 0.25) - (6.0 + 0.4 * x)) / 0.5
        self.assertGreater(stats.kstest(z, "norm").pvalue, 1e-4)


class Priors(E.E2ETestCase):
    def test_prior_draws(self):
        so = self.compile_source("priors", PRIORS)
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so, {"x": self.save("px.npy", np.ones(3))},
                  out, num_samples=3000, seed=9, sites=["rho", "tau", "y"])
        got = E.read_arrays(out)
        rho, tau = got["rho"], got["tau"]
        self.assertTrue(np.all((rho > -1) & (rho < 1)))
        self.assertTrue(np.all((tau > 0.1) & (tau < 10)))
        self.assertGreater(stats.kstest((rho + 1) / 2, stats.beta(2, 2).cdf).pvalue, 1e-4)
        self.assertGreater(stats.kstest(
            np.log(tau), stats.uniform(np.log(0.1), np.log(100)).cdf).pvalue, 1e-4)

    def test_posterior_values_are_used_as_given(self):
        so = self.compile_source("priors_post", PRIORS)
        rng = np.random.default_rng(4)
        x = rng.normal(size=20)
        y = rng.normal(size=20)
        rho, tau = np.array([-0.9, 0.2, 0.7]), np.array([0.15, 1.0, 8.0])
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so,
                  {"x": self.save("gx.npy", x), "y": self.save("gy.npy", y)}, out,
                  posterior=self.savez("gpost.npz", rho=rho, tau=tau))
        ref = stats.norm.logpdf(y[None, :], rho[:, None] * x[None, :], tau[:, None])
        np.testing.assert_allclose(E.read_arrays(out)["y"], ref, rtol=1e-12)


class DrawsMapForward(E.E2ETestCase):
    def test_same_site_draws_through_the_map(self):
        x = self.save("fx.npy", np.linspace(0.5, 3.0, 200))
        got = []
        for name, y in (("base", "Gamma(x, 2.0)"),
                        ("mapped", "TransformedDistribution(Gamma(x, 2.0), "
                                   "[ExpTransform(), AffineTransform(-1.0, 3.0)])")):
            so = self.compile_source("forward_" + name, BASE.format(y=y))
            out = self.fresh(".npz")
            E.run_cmd("prior-predictive", so, {"x": x}, out, num_samples=20, seed=21)
            got.append(E.read_arrays(out)["y"])
        np.testing.assert_allclose(got[1], -1.0 + 3.0 * np.exp(got[0]), rtol=1e-14)

    def test_density_at_the_inverse(self):
        # The base's density at log((y + 1) / 3) less log(y + 1), the log
        # Jacobian of both transforms; -inf at and below -1 + 3 (exp's
        # range mapped), where SciPy's gamma would score log 0.
        xs = np.linspace(0.5, 3.0, 50)
        y = np.concatenate([np.linspace(2.01, 30.0, 47), [2.0, 1.0, -3.0]])
        so = self.compile_source("inverse", BASE.format(
            y="TransformedDistribution(Gamma(x, 2.0), "
              "[ExpTransform(), AffineTransform(-1.0, 3.0)])"))
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, {"x": self.save("ix.npy", xs),
                                         "y": self.save("iy.npy", y)},
                  out, posterior=self.savez("ipost.npz", dummy=np.zeros(1)))
        got = E.read_arrays(out)["y"][0]
        g = np.log((y[:47] + 1) / 3)
        ref = stats.gamma.logpdf(g, xs[:47], scale=0.5) - np.log(y[:47] + 1)
        np.testing.assert_allclose(got[:47], ref, rtol=1e-12)
        np.testing.assert_array_equal(got[48:], [-np.inf, -np.inf])


if __name__ == "__main__":
    E.main()
