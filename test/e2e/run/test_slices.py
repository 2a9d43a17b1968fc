"""Slices, constant indices, dimension arithmetic (K - 1) and transposes:
every command against NumPy and SciPy, the same bytes whatever the
partition, and the runtime's checks of what only the data can tell (a
posterior of the wrong length, a slice beyond a small dimension)."""

import os
import sys

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402


class Slices(E.E2ETestCase):
    N, K, J, D = 1500, 5, 3, 6

    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(35)
        self.X = rng.normal(size=(self.N, self.K))
        self.L = rng.normal(size=(self.J, self.J))
        self.post = dict(alpha=rng.normal(size=self.D),
                         beta=rng.normal(size=(self.D, self.K - 1)),
                         sigma=rng.uniform(0.5, 1.5, self.D))
        self.data = {"X": self.save("X.npy", self.X),
                     "L": self.save("L.npy", self.L)}
        self.pp = self.savez("post.npz", **self.post)

    def mu(self):
        X, L, b = self.X, self.L, self.post["beta"]
        return (self.post["alpha"][:, None] + b @ X[:, 1:].T +
                X[None, :, 0] * b[:, -1:] + L.T[0, 1] / self.J)

    def test_predict_against_numpy(self):
        so = E.model("sliced_regression")
        out = self.fresh()
        E.run_cmd("predict", so, self.data, out, posterior=self.pp,
                  sites=["mu", "last_slope", "inner", "Lt", "scale", "y"])
        got = E.read_arrays(out)
        # NumPy's matrix product rounds by its BLAS kernel (FMA or not, by
        # CPU), so a mu near 0 is compared to the size of its terms.
        mu = self.mu()
        np.testing.assert_allclose(got["mu"], mu, rtol=1e-13,
                                   atol=1e-13 * np.abs(mu).max())
        np.testing.assert_array_equal(got["last_slope"],
                                      self.post["beta"][:, -1])
        np.testing.assert_array_equal(got["inner"], self.post["beta"][:, 1:-1])
        np.testing.assert_array_equal(got["Lt"][0], self.L.T)
        np.testing.assert_allclose(got["scale"],
                                   np.log(self.N) / (self.K - 1), rtol=1e-15)
        self.assertEqual(got["y"].shape, (self.D, self.N))

    def test_log_likelihood_against_scipy_on_any_partition(self):
        so = E.model("sliced_regression")
        y = self.mu()[0] + 0.3
        data = dict(self.data, y=self.save("y.npy", y))
        ref = stats.norm.logpdf(y[None, :], self.mu(),
                                self.post["sigma"][:, None])
        outs = []
        for devices, batch in ((1, None), (2, 333)):
            out = self.fresh()
            E.run_cmd("log-likelihood", so, data, out, posterior=self.pp,
                      devices=devices, batch=batch)
            outs.append(E.read_arrays(out)["y"])
        np.testing.assert_allclose(outs[0], ref, rtol=1e-12)
        np.testing.assert_array_equal(outs[0], outs[1])

    def test_prior_predictive_shapes(self):
        so = E.model("sliced_regression")
        out = self.fresh()
        E.run_cmd("prior-predictive", so, self.data, out, num_samples=9,
                  sites=["beta", "inner", "y"])
        got = E.read_arrays(out)
        self.assertEqual(got["beta"].shape, (9, self.K - 1))
        np.testing.assert_array_equal(got["inner"], got["beta"][:, 1:-1])
        self.assertEqual(got["y"].shape, (9, self.N))

    def test_what_only_the_data_can_tell(self):
        so = E.model("sliced_regression")
        # A posterior with K slopes where the model has K - 1.
        bad = self.savez("bad.npz", **dict(
            self.post, beta=np.zeros((self.D, self.K))))
        r = E.run_cmd("predict", so, self.data, self.fresh(), posterior=bad,
                      check=False)
        self.assert_one_error_line(r, "posterior 'beta'", "K - 1",
                                   "(%d, %d)" % (self.D, self.K - 1))
        # K = 2: beta[1:-1] would be empty, K - 3 < 0.
        data = {"X": self.save("X2.npy", self.X[:, :2]),
                "L": self.data["L"]}
        small = self.savez("small.npz", **dict(
            self.post, beta=self.post["beta"][:, :1]))
        out = self.fresh()
        r = E.run_cmd("predict", so, data, out, posterior=small, check=False)
        self.assert_one_error_line(r, "slice 1:-1", "K - 3 >= 0", "K = 2")
        self.assertFalse(os.path.exists(out))


    def test_array_builders_against_numpy(self):
        so = E.model("array_builders")
        rng = np.random.default_rng(39)
        n, K = 400, 4
        x, v = rng.normal(size=n), rng.normal(size=(n, K))
        L = rng.normal(size=(K, K))
        w = rng.dirichlet(np.ones(K), size=self.D)
        data = {"x": self.save("bx.npy", x), "v": self.save("bv.npy", v),
                "L": self.save("bL.npy", L)}
        out = self.fresh()
        sites = ["z", "f", "e", "a", "t", "dv", "dm", "ou", "r"]
        E.run_cmd("predict", so, data, out,
                  posterior=self.savez("bw.npz", w=w), sites=sites)
        got = {k: a[0] for k, a in E.read_arrays(out).items()}
        np.testing.assert_array_equal(got["z"], np.zeros((K, 2)))
        np.testing.assert_array_equal(got["f"], np.full(K - 1, 2.5))
        np.testing.assert_array_equal(got["e"], np.eye(K))
        np.testing.assert_array_equal(got["a"], np.arange(K))
        np.testing.assert_array_equal(got["t"], L.T)
        np.testing.assert_array_equal(got["dv"], np.diag(np.arange(K) * 1.0))
        np.testing.assert_array_equal(got["dm"], np.diag(L))
        np.testing.assert_array_equal(got["ou"], np.outer(w[0], np.arange(3)))
        r = v @ np.diag(np.diag(L)) + np.einsum("ni,nj->n", v, v)[:, None]
        np.testing.assert_allclose(got["r"], r, rtol=1e-13, atol=1e-13)

    def test_vec_to_tril_against_numpy(self):
        so = E.model("tril_loadings")
        rng = np.random.default_rng(393)
        n, D, K = 300, 5, 2
        v = rng.normal(size=(n, 3))
        post = dict(m=rng.normal(size=(self.D, D)),
                    w=rng.normal(size=(self.D, D * K - 1)),
                    s=rng.normal(size=(self.D, D * K - 3)))
        out = self.fresh()
        for axis in ("obs", "draw"):
            out = self.fresh()
            E.run_cmd("predict", so, {"v": self.save("tv.npy", v)}, out,
                      posterior=self.savez("tw.npz", **post), axis=axis,
                      sites=["W", "S", "Q", "P"])
            got = E.read_arrays(out)
            for d in range(self.D):
                W = np.zeros((D, K))
                W[np.tril_indices(D, 0, K)] = post["w"][d]
                np.testing.assert_array_equal(got["W"][d], W)
                S = np.zeros((D, K))
                S[np.tril_indices(D, -1, K)] = post["s"][d]
                np.testing.assert_array_equal(got["S"][d], S)
            Q = np.zeros((3, 3))
            Q[np.tril_indices(3)] = np.arange(6)
            np.testing.assert_array_equal(got["Q"][0], Q)
            P = np.zeros((n, 2, 2))
            P[:, [0, 1, 1], [0, 0, 1]] = v
            np.testing.assert_array_equal(got["P"][0], P)
        # D = 2: the strictly lower 2 x 2 holds one element, not 2 D - 3
        # of a taller trapezoid; the runtime says which rule fails.
        small = self.savez("tsmall.npz", m=np.zeros((self.D, 2)),
                           w=np.zeros((self.D, 3)), s=np.zeros((self.D, 1)))
        r = E.run_cmd("predict", so, {"v": self.save("tv.npy", v)},
                      self.fresh(), posterior=small, check=False)
        self.assert_one_error_line(r, "vec_to_tril", "D - 3", "D = 2")

    def test_dirichlet_of_a_scalar_by_the_sites_shape(self):
        # c ~ Dirichlet(2.0)[3] is Dirichlet([2, 2, 2]): on the simplex,
        # each coordinate Beta(2, 4).
        so = E.model("tril_loadings")
        out = self.fresh()
        v = np.zeros((10, 3))
        E.run_cmd("prior-predictive", so, {"v": self.save("tv0.npy", v)}, out,
                  num_samples=4000, sites=["c"], extra=["--dim", "D=4"])
        c = E.read_arrays(out)["c"]
        self.assertEqual(c.shape, (4000, 3))
        np.testing.assert_allclose(c.sum(axis=1), 1, rtol=1e-12)
        for j in range(3):
            self.assertGreater(stats.kstest(c[:, j], stats.beta(2, 4).cdf)
                               .pvalue, 1e-4)


if __name__ == "__main__":
    E.main()
