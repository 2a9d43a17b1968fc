"""Mixtures written as a list of components (Sema/MixtureSugar.cpp,
Sema/MixtureGeneral.cpp, Conversion/LowerGeneralMixture.cpp):

- draws of NumPyro's MixtureGeneral over different families follow the
  mixture's law (each component's draws independent of the choice: a
  shared stream would skew them), for numbers and for counts;
- PyMC's "Mixture models" example, `pm.Mixture("like", w=w,
  comp_dists=[pm.Poisson.dist(mu=lam[0]), pm.Poisson.dist(mu=lam[1])])`
  (one family, stacked), and a contaminated-normal regression with a
  Student-t background, against SciPy;
- weights that are no distribution give NaN draws, which `--strict`
  refuses.
"""

import os
import sys

import numpy as np
from scipy import special, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

DRAWS = """
model m(x: f64[n]) -> (y: f64[n], c: i32[n]) {
  plate obs(n) {
    y ~ MixtureGeneral(Categorical(probs=[0.3, 0.7]),
                       [Normal(-3.0, 1.0), Laplace(4.0, 0.5)]);
    c ~ Mixture([0.25, 0.75], [Poisson(6.0), Geometric(probs=0.5)]);
  }
}
"""

PYMC_POISSON = """
model like(x: f64[n]) -> (data: i32[n]) {
  lam ~ Exponential(lam=1.0)[2];
  w ~ Dirichlet(a=ones(2));
  plate obs(n) {
    data ~ Mixture(w=w, comp_dists=[Poisson(mu=lam[0]), Poisson(mu=lam[1])]);
  }
}
"""

CONTAMINATED = """
model robust(x: f64[n]) -> (y: f64[n]) {
  a ~ Normal(0, 5);
  b ~ Normal(0, 5);
  sigma ~ HalfNormal(1);
  p_out ~ Beta(1, 9);
  plate obs(n) {
    y ~ MixtureGeneral(Categorical(probs=stack([1 - p_out, p_out])),
                       [Normal(a + b * x, sigma), StudentT(2.0, a + b * x, 10.0)]);
  }
}
"""


class Draws(E.E2ETestCase):
    def test_laws(self):
        so = self.compile_source("draws", DRAWS)
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so, {"x": self.save("x.npy", np.zeros(2000))},
                  out, num_samples=10, seed=3)
        got = E.read_arrays(out)
        y, c = got["y"].ravel(), got["c"].ravel()

        def cdf(v):
            return 0.3 * stats.norm.cdf(v, -3, 1) + 0.7 * stats.laplace.cdf(v, 4, 0.5)
        self.assertGreater(stats.kstest(y, cdf).pvalue, 1e-4)
        # Each component's share: the choice does not move its values.
        left = y[y < 0.5]
        self.assertLess(abs(len(left) / len(y) - 0.3), 0.02)
        self.assertGreater(stats.kstest(left, stats.norm(-3, 1).cdf).pvalue, 1e-4)
        ks = np.arange(25)
        pmf = 0.25 * stats.poisson.pmf(ks, 6.0) + 0.75 * stats.geom.pmf(ks + 1, 0.5)
        seen = np.bincount(c, minlength=25)[:25]
        keep = pmf * len(c) > 5
        chi = np.sum((seen[keep] - len(c) * pmf[keep]) ** 2 / (len(c) * pmf[keep]))
        self.assertGreater(stats.chi2.sf(chi, keep.sum() - 1), 1e-4)

    def test_invalid_weights(self):
        so = self.compile_source("bad_w", """
model m(x: f64[n]) -> (y: f64[n]) {
  w ~ Dirichlet(ones(2));
  plate obs(n) {
    y ~ MixtureGeneral(Categorical(probs=w), [Normal(x, 1.0), Laplace(x, 1.0)]);
  }
}
""")
        data = {"x": self.save("bx.npy", np.zeros(5))}
        post = self.savez("bpost.npz", w=np.array([[0.5, 0.5], [np.nan, 0.5]]))
        out = self.fresh(".npz")
        E.run_cmd("predict", so, data, out, posterior=post, seed=1)
        y = E.read_arrays(out)["y"]
        self.assertTrue(np.all(np.isfinite(y[0])))
        self.assertTrue(np.all(np.isnan(y[1])))
        r = E.run_cmd("predict", so, data, self.fresh(".npz"), posterior=post,
                      seed=1, extra=["--strict"], check=False)
        self.assertNotEqual(r.rc, 0, r)


class PublishedModels(E.E2ETestCase):
    def test_pymc_poisson_mixture(self):
        rng = np.random.default_rng(8)
        n, D = 50, 4
        data = rng.poisson(np.where(rng.random(n) < 0.3, 2.0, 9.0)).astype(np.int32)
        lam = rng.uniform(1, 10, (D, 2))
        w = rng.dirichlet(np.ones(2), D)
        so = self.compile_source("pymc_poisson", PYMC_POISSON)
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so,
                  {"x": self.save("px.npy", np.zeros(n)), "data": self.save("pd.npy", data)},
                  out, posterior=self.savez("pp.npz", lam=lam, w=w))
        ref = special.logsumexp(
            np.log(w)[:, None, :] + stats.poisson.logpmf(data[None, :, None],
                                                         lam[:, None, :]), axis=-1)
        np.testing.assert_allclose(E.read_arrays(out)["data"], ref, rtol=1e-12)

    def test_contaminated_regression(self):
        rng = np.random.default_rng(9)
        n, D = 40, 3
        x = rng.normal(size=n)
        y = 1 + 2 * x + rng.normal(0, 0.3, n)
        y[:4] += 15
        post = dict(a=rng.normal(1, 0.1, D), b=rng.normal(2, 0.1, D),
                    sigma=rng.uniform(0.2, 0.4, D), p_out=rng.uniform(0.01, 0.2, D))
        for prec, tol in (("f64", 1e-12), ("f32", 3e-5)):
            ft = np.float64 if prec == "f64" else np.float32
            so = self.compile_source("contaminated_" + prec,
                                     CONTAMINATED.replace("f64", prec))
            out = self.fresh(".npz")
            E.run_cmd("log-likelihood", so,
                      {"x": self.save("cx%s.npy" % prec, x.astype(ft)),
                       "y": self.save("cy%s.npy" % prec, y.astype(ft))}, out,
                      posterior=self.savez("cp%s.npz" % prec,
                                           **{k: v.astype(ft) for k, v in post.items()}))
            p = {k: v.astype(ft).astype(np.float64)[:, None] for k, v in post.items()}
            xv, yv = x.astype(ft).astype(np.float64), y.astype(ft).astype(np.float64)
            mu = p["a"] + p["b"] * xv
            ref = np.logaddexp(np.log1p(-p["p_out"]) + stats.norm.logpdf(yv, mu, p["sigma"]),
                               np.log(p["p_out"]) + stats.t.logpdf(yv, 2.0, mu, 10.0))
            np.testing.assert_allclose(E.read_arrays(out)["y"], ref, rtol=tol, atol=tol)


if __name__ == "__main__":
    E.main()
