"""A distribution's positional arguments mean what they mean in NumPyro.

MultivariateNormal(loc, covariance_matrix, precision_matrix, scale_tril):
the second positional argument is the covariance, not a Cholesky factor.
Log-likelihoods of all three forms equal SciPy's to 1e-12; predictive draws
whiten to standard normals; matrices outside NumPyro's constraints (a
scale_tril with a non-zero upper triangle or a non-positive diagonal, a
covariance that is not symmetric) are invalid parameters, counted as NaN
and refused under --strict, never read as some other matrix. The aliases
(BinomialProbs(probs, total_count)) bind by their own order.
"""

import os
import sys

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

SIGMA = np.array([[2.0, 0.5], [0.5, 1.0]])


class MultivariateNormalSignature(E.E2ETestCase):
    def matrices(self, S=SIGMA, L=None, P=None):
        L = np.linalg.cholesky(SIGMA) if L is None else L
        P = np.linalg.inv(SIGMA) if P is None else P
        return {"S": self.save("S.npy", S), "L": self.save("L.npy", L),
                "P": self.save("P.npy", P)}

    def test_issue_reproduction_gives_scipys_value(self):
        # x = [0], y = [[1, 0]], b = 0: SciPy's logpdf is -2.40340.
        data = dict(self.matrices(), x=self.save("x.npy", np.zeros(1)))
        for y in ("y1", "y2", "y3"):
            data[y] = self.save(y + ".npy", np.array([[1.0, 0.0]]))
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", E.model("mvn_signatures64"), data, out,
                  posterior=self.savez("post.npz", b=np.zeros(1)))
        ref = stats.multivariate_normal([0, 0], SIGMA).logpdf([1, 0])
        self.assertAlmostEqual(ref, -2.40340, places=5)
        got = E.read_arrays(out)
        for y in ("y1", "y2", "y3"):
            np.testing.assert_allclose(got[y][0, 0], ref, rtol=1e-12,
                                       err_msg=y)

    def test_log_likelihood_of_every_form_matches_scipy(self):
        rng = np.random.default_rng(11)
        n, draws = 50, 7
        x = rng.normal(size=n)
        A = rng.normal(size=(2, 2))
        S = A @ A.T + 0.3 * np.eye(2)
        data = dict(self.matrices(S, np.linalg.cholesky(S), np.linalg.inv(S)),
                    x=self.save("x.npy", x))
        ys = {y: rng.normal(size=(n, 2)) for y in ("y1", "y2", "y3")}
        for y, v in ys.items():
            data[y] = self.save(y + ".npy", v)
        b = rng.normal(size=draws)
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", E.model("mvn_signatures64"), data, out,
                  posterior=self.savez("post.npz", b=b))
        got = E.read_arrays(out)
        for y, v in ys.items():
            ref = np.array([[stats.multivariate_normal(b[d] * x[i] * np.ones(2),
                                                       S).logpdf(v[i])
                             for i in range(n)] for d in range(draws)])
            np.testing.assert_allclose(got[y], ref, rtol=1e-12, err_msg=y)

    def test_predictive_draws_whiten_to_standard_normals(self):
        rng = np.random.default_rng(12)
        n, draws = 40, 100
        x = rng.normal(size=n)
        data = dict(self.matrices(), x=self.save("x.npy", x))
        b = rng.normal(size=draws)
        out = self.fresh(".npz")
        E.run_cmd("predict", E.model("mvn_signatures64"), data, out,
                  posterior=self.savez("post.npz", b=b), seed=5)
        got = E.read_arrays(out)
        Linv = np.linalg.inv(np.linalg.cholesky(SIGMA))
        mean = b[:, None, None] * x[None, :, None] * np.ones(2)
        for y in ("y1", "y2", "y3"):
            z = (got[y] - mean) @ Linv.T
            p = stats.kstest(z.ravel(), "norm").pvalue
            self.assertGreater(p, 1e-4, "%s: KS p = %.3g" % (y, p))
            # Whitened components are uncorrelated (the covariance is
            # SIGMA, not tril(SIGMA) read as a factor).
            c = np.corrcoef(z.reshape(-1, 2).T)[0, 1]
            self.assertLess(abs(c), 0.08, y)

    def invalid_run(self, command, strict, **matrices):
        rng = np.random.default_rng(13)
        n = 5
        data = dict(self.matrices(**matrices),
                    x=self.save("x.npy", rng.normal(size=n)))
        if command == "log-likelihood":
            for y in ("y1", "y2", "y3"):
                data[y] = self.save(y + ".npy", rng.normal(size=(n, 2)))
        out = self.fresh(".npz")
        return E.run_cmd(command, E.model("mvn_signatures64"), data, out,
                         posterior=self.savez("post.npz", b=np.zeros(3)),
                         seed=1, check=False,
                         extra=["--strict"] if strict else []), out

    def test_matrices_outside_numpyros_constraints_are_invalid(self):
        upper = np.linalg.cholesky(SIGMA)
        upper[0, 1] = 0.3
        negative = np.linalg.cholesky(SIGMA)
        negative[1, 1] = -negative[1, 1]
        asymmetric = SIGMA.copy()
        asymmetric[0, 1] = 0.9
        cases = [("y2", dict(L=upper)), ("y2", dict(L=negative)),
                 ("y1", dict(S=asymmetric)), ("y3", dict(P=asymmetric))]
        for site, m in cases:
            for command in ("log-likelihood", "predict"):
                what = "%s %s %s" % (command, site, list(m))
                r, out = self.invalid_run(command, False, **m)
                self.assertEqual(r.rc, 0, what + "\n" + r.stderr)
                self.assertIn("non-finite results", r.stderr, what)
                self.assertIn(site, r.stderr, what)
                got = E.read_arrays(out)
                self.assertTrue(np.isnan(got[site]).all(), what)
                for other in {"y1", "y2", "y3"} - {site}:
                    self.assertTrue(np.isfinite(got[other]).all(), what)
                r, _ = self.invalid_run(command, True, **m)
                self.assertNotEqual(r.rc, 0, what)
                self.assertIn("non-finite results", r.stderr, what)

    def test_rounding_asymmetry_is_not_invalid(self):
        # A covariance computed in floating point may differ from its
        # transpose in the last bits; that is still symmetric.
        S = SIGMA.copy()
        S[0, 1] *= 1 + 4e-16
        r, out = self.invalid_run("log-likelihood", True, S=S)
        self.assertEqual(r.rc, 0, r.stderr)
        self.assertTrue(np.isfinite(E.read_arrays(out)["y1"]).all())


class Aliases(E.E2ETestCase):
    def test_probs_and_logits_classes_bind_by_their_own_order(self):
        rng = np.random.default_rng(14)
        n = 30
        k = rng.integers(1, 9, n).astype(np.int32)
        z = rng.normal(size=n)
        c = rng.binomial(k, 0.4).astype(np.int32)
        b = rng.integers(0, 2, n).astype(np.int32)
        data = {"k": self.save("k.npy", k), "z": self.save("z.npy", z),
                "c": self.save("c.npy", c), "b": self.save("b.npy", b)}
        p = np.array([0.2, 0.7])
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", E.model("alias_spellings"), data, out,
                  posterior=self.savez("post.npz", p=p))
        got = E.read_arrays(out)
        np.testing.assert_allclose(
            got["c"], stats.binom.logpmf(c[None], k[None], p[:, None]),
            rtol=1e-5)
        np.testing.assert_allclose(
            got["b"], np.broadcast_to(stats.bernoulli.logpmf(
                b, 1 / (1 + np.exp(-z))), (2, n)), rtol=1e-5)


if __name__ == "__main__":
    E.main()
