"""log_prob of vector distributions as an expression (issue 56 item 7):
NumPyro's `dist.MultivariateNormal(mu, scale_tril=L).log_prob(Y)`, Stan's
`multi_normal_cholesky_lpdf(Y[n] | mu, L)`, `categorical_lpmf`,
`dirichlet_lpdf`: each value along the value's last axis, a batch before
it, against SciPy (f64, 1e-12), inside a plate and outside one; 1 and 2
devices byte for byte; a value whose last axis is not one value is
refused (E0624). And the composites: the Stan User's Guide's finite
mixture (`log_mix`) as log_prob of a MixtureSameFamily, NumPyro's
`.mask()` for missing values as log_prob of a MaskedDistribution."""

import os
import sys

import numpy as np
from scipy import special, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

SRC = """
model mv(Y: f64[n, 3], k: i32[n]) -> (y: f64[n]) {
  mu ~ Normal(0, 1)[3];
  L ~ LKJCholesky(3, 2.0);
  w ~ Dirichlet(ones(3));
  plate obs(n) {
    factor a = log_prob(MultivariateNormal(mu, scale_tril=L), Y);
    factor b = log_prob(Categorical(probs=w), k);
    factor c = log_prob(Dirichlet(2.0), softmax(Y));
    factor d = log_prob(MultivariateNormal(mu, covariance_matrix=L @ L.T + eye(3)), Y);
    y ~ Normal(0, 1);
  }
  factor f = log_prob(Dirichlet(1.0 + arange(3)), w);
  factor g = sum(log_prob(MultivariateStudentT(4.0, mu, scale_tril=L), Y));
}
"""


def random_cholesky_corr(rng, k):
    A = rng.normal(size=(k, k))
    S = A @ A.T + k * np.eye(k)
    d = 1 / np.sqrt(np.diag(S))
    return np.linalg.cholesky(S * d[:, None] * d[None, :])


class VectorLogProb(E.E2ETestCase):
    N, D = 40, 7

    def setUp(self):
        rng = np.random.default_rng(17)
        self.Y = rng.normal(size=(self.N, 3))
        self.k = rng.integers(0, 3, self.N).astype(np.int32)
        self.mu = rng.normal(size=(self.D, 3))
        self.L = np.stack([random_cholesky_corr(rng, 3) for _ in range(self.D)])
        self.w = rng.dirichlet(np.ones(3), self.D)
        self.data = {"Y": self.save("Y.npy", self.Y), "k": self.save("k.npy", self.k),
                     "y": self.save("y.npy", rng.normal(size=self.N))}
        self.post = self.savez("post.npz", mu=self.mu, L=self.L, w=self.w)

    def run_ll(self, devices):
        so = self.compile_source("mv", SRC)
        out = self.fresh()
        E.run_cmd("log-likelihood", so, self.data, out, posterior=self.post,
                  devices=devices)
        return E.read_arrays(out)

    def test_against_scipy(self):
        got = self.run_ll(1)
        Y, k = self.Y, self.k
        for i in range(self.D):
            mu, L, w = self.mu[i], self.L[i], self.w[i]
            cov = L @ L.T
            want = {
                "a": stats.multivariate_normal(mu, cov).logpdf(Y),
                "b": np.log(w[k]),
                "c": stats.dirichlet([2.0] * 3).logpdf(special.softmax(Y, axis=1).T),
                "d": stats.multivariate_normal(mu, cov + np.eye(3)).logpdf(Y),
                "f": stats.dirichlet([1.0, 2.0, 3.0]).logpdf(w),
                "g": stats.multivariate_t(mu, cov, df=4.0).logpdf(Y).sum(),
            }
            for name, ref in want.items():
                np.testing.assert_allclose(got[name][i], ref, rtol=1e-12, atol=1e-12,
                                           err_msg="%s, draw %d" % (name, i))

    def test_same_bytes_on_two_devices(self):
        self.assert_same_arrays(self.run_ll(1), self.run_ll(2))

    def test_value_without_the_event_axis_is_refused(self):
        src = ("model m(x: f64[n]) -> (y: f64[n]) {\n  mu ~ Normal(0, 1)[3];\n"
               "  plate obs(n) {\n    factor a = log_prob(MultivariateNormal(mu, "
               "scale_tril=eye(3)), x);\n    y ~ Normal(0, 1);\n  }\n}\n")
        path = self.path("bad.aimz")
        with open(path, "w") as f:
            f.write(src)
        r = E.aimzc(path, "-o", self.path("bad.so"))
        self.assertEqual(r.rc, 1, r)
        self.assertIn("one value of MultivariateNormal has shape [3]", r.stderr)
        self.assertIn("[E0624]", r.stderr)


MIXTURE_SRC = """
# Stan User's Guide, "Finite mixtures": target += log_mix(lambda,
# normal_lpdf(y[n] | mu[1], sigma[1]), normal_lpdf(y[n] | mu[2], sigma[2]));
# and NumPyro's missing-data pattern, dist.Normal(a, s).mask(observed)
# scoring y where it was observed (NaN elsewhere).
model mix(z: f64[n], observed: bool[n], w: f64[n]) -> (y: f64[n]) {
  lambda ~ Beta(5, 5);
  mu ~ Normal(0, 3)[2];
  sigma ~ HalfNormal(2)[2];
  plate obs(n) {
    factor lp = log_prob(MixtureSameFamily(Categorical(probs=[lambda, 1 - lambda]),
                                           Normal(mu, sigma)), z);
    factor shifted = log_prob(MixtureSameFamily(Categorical(logits=[0.0, 1.0]),
                                                Poisson(exp(mu) + w)), 3);
    factor missing = log_prob(MaskedDistribution(Normal(mu[0], sigma[0]), observed), z);
    factor weighted = log_prob(MaskedDistribution(Gamma(2.0, sigma[1]), w), w + 1);
    y ~ Normal(0, 1);
  }
}
"""


class CompositeLogProb(E.E2ETestCase):
    N, D = 50, 6

    def setUp(self):
        rng = np.random.default_rng(18)
        z = rng.normal(size=self.N) * 2
        observed = rng.random(self.N) < 0.7
        z[~observed] = np.nan  # missing: never scored
        self.z, self.observed = z, observed
        self.w = np.where(rng.random(self.N) < 0.5, 0.0, rng.uniform(0.1, 2, self.N))
        self.post = {"lambda": rng.uniform(0.1, 0.9, self.D),
                     "mu": rng.normal(size=(self.D, 2)),
                     "sigma": rng.uniform(0.5, 2, (self.D, 2))}
        self.data = {"z": self.save("z.npy", z),
                     "observed": self.save("observed.npy", observed),
                     "w": self.save("w.npy", self.w),
                     "y": self.save("y.npy", rng.normal(size=self.N))}
        self.pp = self.savez("post.npz", **self.post)

    def run_ll(self, devices):
        so = self.compile_source("mix", MIXTURE_SRC)
        out = self.fresh()
        E.run_cmd("log-likelihood", so, self.data, out, posterior=self.pp,
                  devices=devices)
        return E.read_arrays(out)

    def test_against_scipy(self):
        got = self.run_ll(1)
        z, w = self.z, self.w
        for i in range(self.D):
            lam, mu, sg = (self.post["lambda"][i], self.post["mu"][i],
                           self.post["sigma"][i])
            with np.errstate(invalid="ignore"):
                lp = np.logaddexp(np.log(lam) + stats.norm.logpdf(z, mu[0], sg[0]),
                                  np.log1p(-lam) + stats.norm.logpdf(z, mu[1], sg[1]))
            logw = np.log(special.softmax([0.0, 1.0]))
            shifted = np.logaddexp(
                logw[0] + stats.poisson.logpmf(3, np.exp(mu[0]) + w),
                logw[1] + stats.poisson.logpmf(3, np.exp(mu[1]) + w))
            missing = np.where(self.observed,
                               stats.norm.logpdf(np.nan_to_num(z), mu[0], sg[0]), 0)
            weighted = np.where(w != 0, stats.gamma.logpdf(w + 1, 2.0,
                                                           scale=1 / sg[1]), 0)
            np.testing.assert_allclose(got["lp"][i], lp, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(got["shifted"][i], shifted, rtol=1e-12)
            np.testing.assert_allclose(got["missing"][i], missing, rtol=1e-12,
                                       atol=1e-12)
            np.testing.assert_allclose(got["weighted"][i], weighted, rtol=1e-12,
                                       atol=1e-12)

    def test_same_bytes_on_two_devices(self):
        self.assert_same_arrays(self.run_ll(1), self.run_ll(2))


if __name__ == "__main__":
    E.main()
