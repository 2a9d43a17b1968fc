"""MatrixNormal (runtime/include/aimz/math/MultivariateFamilies.h): a
matrix value whose rows and columns each have a covariance, checked with
NumPy and SciPy only (scipy.stats.matrix_normal):

- PyMC's MatrixNormal docstring example ("draws from MvNormal with the
  same covariance structure, scaled by different powers of an unknown
  constant"), written line by line in NumPyro's spelling: an LKJ
  correlation scaled by HalfCauchy deviations for the columns, a row
  covariance diag(scale^(2i)); here one matrix per observation, its
  log-likelihood at both precisions;
- a latent Gaussian process on a grid with a Kronecker covariance, as in
  PyMC's "Kronecker Structured Covariances" example (LatentKron): the
  latent field's draws have the covariance K1 (x) K2, and the likelihood
  of the noisy observations is the field's;
- the rows as the observation axis (a joint site: one number per draw);
- draws whitened by the two factors are independent standard normals.
"""

import os
import sys

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

PYMC_DOCSTRING = """
model scaled_rows(mu: {t}[m, k]) -> (vals: {t}[n, m, k]) {{
  sd_dist ~ HalfCauchy(2.5)[k];
  corr ~ LKJCholesky(k, 2.0);
  let colchol = sd_dist[:, None] * corr;
  scale ~ LogNormal(log(3.0), 0.5);
  let rowcov = diag(scale ** (2 * arange(m)));
  plate obs(n) {{
    vals ~ MatrixNormal(mu, cholesky(rowcov), colchol);
  }}
}}
"""

LATENT_KRON = """
model latent_kron(x1: f64[a], x2: f64[b], i1: i32[n], i2: i32[n]) -> (y: f64[n]) {
  ls1 ~ Gamma(2, 2);
  ls2 ~ Gamma(2, 2);
  eta ~ HalfNormal(1);
  sigma ~ HalfNormal(1);
  let K1 = eta ** 2 * exp(-0.5 * (x1[:, None] - x1[None, :]) ** 2 / ls1 ** 2) + 1e-6 * eye(a);
  let K2 = exp(-0.5 * (x2[:, None] - x2[None, :]) ** 2 / ls2 ** 2) + 1e-6 * eye(b);
  f ~ MatrixNormal(zeros(a, b), cholesky(K1), cholesky(K2));
  plate obs(n) {
    y ~ Normal(f[i1, i2], sigma);
  }
}
"""

JOINT_ROWS = """
model joint_rows(mu: {t}[n, k], A: {t}[n, n], B: {t}[k, k]) -> (y: {t}[n, k]) {{
  s ~ HalfNormal(1);
  y ~ MatrixNormal(mu, s * A, B);
}}
"""

WHITENED = """
model whitened(M: f64[r, k], A: f64[r, r], B: f64[k, k], x: f64[n]) -> (y: f64[n]) {
  X ~ MatrixNormal(M, A, B);
  plate obs(n) {
    y ~ Normal(x, 1);
  }
}
"""


def lkj_cholesky(rng, k):
    """A correlation matrix's Cholesky factor (rows of unit length)."""
    L = np.tril(rng.normal(size=(k, k)))
    L[np.diag_indices(k)] = np.abs(L[np.diag_indices(k)]) + 0.5
    return L / np.linalg.norm(L, axis=1, keepdims=True)


def rbf(x, ls, eta=1.0):
    return eta ** 2 * np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / ls ** 2) \
        + 1e-6 * np.eye(len(x))


def tril(rng, k):
    L = np.tril(rng.normal(0, 0.7, (k, k)))
    L[np.diag_indices(k)] = rng.uniform(0.3, 2.0, k)
    return L


class MatrixNormal(E.E2ETestCase):
    def check_scaled_rows(self, prec, tol):
        t = np.float64 if prec == "f64" else np.float32
        rng = np.random.default_rng(5)
        m, k, n, draws = 3, 3, 40, 5
        mu = rng.normal(size=(m, k)).astype(t)
        sd = rng.uniform(0.5, 2.0, (draws, k)).astype(t)
        corr = np.stack([lkj_cholesky(rng, k) for _ in range(draws)]).astype(t)
        scale = rng.uniform(1.5, 4.0, draws).astype(t)
        # The docstring's data: MvNormal(mu, kron(rowcov, colcov)), reshaped.
        true_colcov = np.array([[1.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 1.0]])
        true_rowcov = np.diag([3.0 ** (2 * i) for i in range(m)])
        vals = rng.multivariate_normal(mu.reshape(-1).astype(np.float64),
                                       np.kron(true_rowcov, true_colcov), n)
        vals = vals.reshape(n, m, k).astype(t)
        so = self.compile_source("scaled_rows_" + prec, PYMC_DOCSTRING.format(t=prec))
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so,
                  {"mu": self.save("mu_%s.npy" % prec, mu),
                   "vals": self.save("vals_%s.npy" % prec, vals)},
                  out, posterior=self.savez("sr_%s.npz" % prec, sd_dist=sd,
                                            corr=corr, scale=scale))
        got = E.read_arrays(out)["vals"].reshape(draws, n)
        f = lambda a: np.asarray(a, np.float64)  # noqa: E731
        for d in range(draws):
            colchol = f(sd[d])[:, None] * f(corr[d])
            rowcov = np.diag(f(scale[d]) ** (2 * np.arange(m)))
            want = [stats.matrix_normal.logpdf(f(vals[i]), f(mu), rowcov,
                                               colchol @ colchol.T)
                    for i in range(n)]
            np.testing.assert_allclose(got[d], want, rtol=tol)

    def test_scaled_rows_log_likelihood_f64(self):
        self.check_scaled_rows("f64", 1e-10)

    def test_scaled_rows_log_likelihood_f32(self):
        self.check_scaled_rows("f32", 2e-5)

    def kron_case(self, draws):
        rng = np.random.default_rng(8)
        a, b = 4, 3
        x1, x2 = np.linspace(0, 3, a), np.linspace(0, 2, b)
        i1, i2 = np.meshgrid(np.arange(a), np.arange(b), indexing="ij")
        data = {"x1": self.save("x1.npy", x1), "x2": self.save("x2.npy", x2),
                "i1": self.save("i1.npy", i1.reshape(-1).astype(np.int32)),
                "i2": self.save("i2.npy", i2.reshape(-1).astype(np.int32))}
        return self.compile_source("latent_kron", LATENT_KRON), data, (x1, x2, a, b, rng)

    def test_latent_field_has_the_kronecker_covariance(self):
        so, data, (x1, x2, a, b, _) = self.kron_case(1)
        draws = 20000
        post = self.savez("kron_post.npz", ls1=np.full(draws, 0.8), ls2=np.full(draws, 1.3),
                          eta=np.full(draws, 1.5), sigma=np.full(draws, 0.1))
        out = self.fresh(".npz")
        E.run_cmd("predict", so, data, out, posterior=post, seed=11)
        y = E.read_arrays(out)["y"]  # f + N(0, 0.1^2), on the grid in row-major order
        cov = np.kron(rbf(x1, 0.8, 1.5), rbf(x2, 1.3)) + 0.01 * np.eye(a * b)
        np.testing.assert_allclose(y.mean(0), 0, atol=5 * np.sqrt(cov.max() / draws))
        np.testing.assert_allclose(np.cov(y.T), cov, atol=0.05 * np.abs(cov).max())

    def test_joint_rows_log_density(self):
        for prec, tol in (("f64", 1e-10), ("f32", 2e-5)):
            t = np.float64 if prec == "f64" else np.float32
            rng = np.random.default_rng(2)
            n, k, draws = 12, 3, 4
            mu = rng.normal(size=(n, k)).astype(t)
            A, B = tril(rng, n).astype(t), tril(rng, k).astype(t)
            y = rng.normal(size=(n, k)).astype(t) * 3
            s = rng.uniform(0.5, 2.0, draws).astype(t)
            so = self.compile_source("joint_rows_" + prec, JOINT_ROWS.format(t=prec))
            out = self.fresh(".npz")
            E.run_cmd("log-likelihood", so,
                      {"mu": self.save("jmu.npy", mu), "A": self.save("jA.npy", A),
                       "B": self.save("jB.npy", B), "y": self.save("jy.npy", y)},
                      out, posterior=self.savez("j.npz", s=s))
            got = E.read_arrays(out)["y"].reshape(draws)
            f = lambda a: np.asarray(a, np.float64)  # noqa: E731
            want = [stats.matrix_normal.logpdf(
                f(y), f(mu), (f(s[d]) * f(A)) @ (f(s[d]) * f(A)).T, f(B) @ f(B).T)
                for d in range(draws)]
            np.testing.assert_allclose(got, want, rtol=tol, err_msg=prec)

    def test_whitened_draws_are_standard_normal(self):
        rng = np.random.default_rng(13)
        r, k, draws = 3, 4, 6000
        M = rng.normal(size=(r, k))
        A, B = tril(rng, r), tril(rng, k)
        so = self.compile_source("whitened", WHITENED)
        data = {"M": self.save("wM.npy", M), "A": self.save("wA.npy", A),
                "B": self.save("wB.npy", B), "x": self.save("wx.npy", np.zeros(2))}
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so, data, out, num_samples=draws, seed=4,
                  sites=["X"])
        X = E.read_arrays(out)["X"]
        self.assertEqual(X.shape, (draws, r, k))
        Z = np.linalg.solve(A, X - M)                      # A^-1 (X - M)
        Z = np.linalg.solve(B, np.swapaxes(Z, 1, 2))       # B^-1 (.)^T
        z = Z.reshape(draws, -1)
        for j in range(z.shape[1]):
            self.assertGreater(stats.kstest(z[:, j], "norm").pvalue, 1e-4, j)
        c = np.corrcoef(z.T)
        np.testing.assert_allclose(c, np.eye(r * k), atol=5 / np.sqrt(draws))


if __name__ == "__main__":
    E.main()
