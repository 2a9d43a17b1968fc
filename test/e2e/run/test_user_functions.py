"""User-defined functions (`def`), inlined at every call: three published
models written with their helpers as functions, each command against
NumPy/SciPy evaluating the same formulas directly.

- golf_angle (dsl-examples; Gelman's golf putting case study, posteriordb
  golf-golf_angle): a function of transformed data with default arguments,
  a function called inside the plate, Stan's pi().
- dugongs (BUGS; posteriordb dugongs-dugongs_model): a nonlinear growth
  curve as a function of the observation's age and three latents.
- brms_varying_slopes: brms's scale_r_cor helper, a matrix function with
  declared types, its result gathered per observation.
"""

import os
import sys

import numpy as np
from scipy import special, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

# Gelman's golf putting data: distance (feet), tries and successes.
GOLF_X = np.arange(2, 21, dtype=np.float64)
GOLF_N = np.array([1443, 694, 455, 353, 272, 256, 240, 217, 200, 237, 202,
                   192, 174, 167, 201, 195, 191, 147, 152], dtype=np.int32)
GOLF_Y = np.array([1346, 577, 337, 208, 149, 136, 111, 69, 67, 75, 52, 46,
                   54, 28, 27, 31, 33, 20, 24], dtype=np.int32)

# The 27 dugongs: age and length.
DUGONG_X = np.array([1.0, 1.5, 1.5, 1.5, 2.5, 4.0, 5.0, 5.0, 7.0, 8.0, 8.5,
                     9.0, 9.5, 9.5, 10.0, 12.0, 12.0, 13.0, 13.0, 14.5, 15.5,
                     15.5, 16.5, 17.0, 22.5, 29.0, 31.5], dtype=np.float32)
DUGONG_Y = np.array([1.80, 1.85, 1.87, 1.77, 2.02, 2.27, 2.15, 2.26, 2.47,
                     2.19, 2.26, 2.40, 2.39, 2.41, 2.50, 2.32, 2.32, 2.43,
                     2.47, 2.56, 2.65, 2.47, 2.64, 2.56, 2.70, 2.72, 2.57],
                    dtype=np.float32)


def golf_p(sigma):
    r, R = 0.07, 0.177
    threshold = np.arcsin((R - r) / GOLF_X)
    return 2 * special.ndtr(threshold[None] / sigma[:, None]) - 1


class GolfAngle(E.E2ETestCase):
    def setUp(self):
        super().setUp()
        self.sigma = np.random.default_rng(5).uniform(0.02, 0.04, 40)
        self.post = self.savez("post.npz", sigma=self.sigma)
        self.data = {"x": self.save("x.npy", GOLF_X),
                     "n": self.save("n.npy", GOLF_N)}

    def test_log_likelihood_against_scipy(self):
        so = E.model("golf_angle")
        out = self.fresh(".npz")
        data = dict(self.data, y=self.save("y.npy", GOLF_Y))
        E.run_cmd("log-likelihood", so, data, out, posterior=self.post)
        got = E.read_arrays(out)["y"]
        ref = stats.binom.logpmf(GOLF_Y[None], GOLF_N[None],
                                 golf_p(self.sigma))
        np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-10)

    def test_predict_success_rates(self):
        so = E.model("golf_angle")
        out = self.fresh()
        E.run_cmd("predict", so, self.data, out, posterior=self.post, seed=3,
                  sites=["y", "sigma_degrees"])
        got = E.read_arrays(out)
        np.testing.assert_allclose(got["sigma_degrees"],
                                   self.sigma * 180 / np.pi, rtol=1e-14)
        p = golf_p(self.sigma)
        y = got["y"]
        self.assertTrue(np.all((y >= 0) & (y <= GOLF_N[None])))
        # Each binomial draw's standardized deviation, pooled.
        z = (y - GOLF_N * p) / np.sqrt(GOLF_N * p * (1 - p))
        self.assertLess(abs(z.mean()), 0.1)
        self.assertLess(abs(z.std() - 1), 0.1)


def dugong_mu(post):
    return (post["alpha"][:, None] - post["beta"][:, None] *
            post["lambda_"][:, None].astype(np.float64) **
            DUGONG_X[None].astype(np.float64))


class Dugongs(E.E2ETestCase):
    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(11)
        D = 64
        self.post = dict(alpha=rng.normal(2.65, 0.05, D),
                         beta=rng.normal(0.97, 0.05, D),
                         lambda_=rng.uniform(0.82, 0.9, D),
                         tau=rng.uniform(80, 120, D))
        self.post = {k: v.astype(np.float32) for k, v in self.post.items()}
        self.pp = self.savez("post.npz", **self.post)
        self.data = {"x": self.save("x.npy", DUGONG_X)}

    def test_log_likelihood_against_scipy(self):
        so = E.model("dugongs")
        data = dict(self.data, Y=self.save("Y.npy", DUGONG_Y))
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, data, out, posterior=self.pp)
        got = E.read_arrays(out)["Y"]
        sigma = 1 / np.sqrt(self.post["tau"].astype(np.float64))
        ref = stats.norm.logpdf(DUGONG_Y[None], dugong_mu(self.post),
                                sigma[:, None])
        np.testing.assert_allclose(got, ref, rtol=2e-5, atol=2e-5)

    def test_predict_and_prior_predictive(self):
        so = E.model("dugongs")
        out = self.fresh()
        E.run_cmd("predict", so, self.data, out, posterior=self.pp, seed=8,
                  sites=["Y", "U3"])
        got = E.read_arrays(out)
        np.testing.assert_allclose(got["U3"],
                                   special.logit(self.post["lambda_"]),
                                   rtol=1e-5)
        z = ((got["Y"] - dugong_mu(self.post)) *
             np.sqrt(self.post["tau"].astype(np.float64))[:, None])
        self.assertGreater(stats.kstest(z.ravel(), "norm").pvalue, 1e-4)
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", so, self.data, out, num_samples=2000,
                  seed=2, sites=["lambda_", "U3"])
        got = E.read_arrays(out)
        self.assertGreater(
            stats.kstest(got["lambda_"], "uniform", (0.5, 0.5)).pvalue, 1e-4)
        np.testing.assert_allclose(got["U3"], special.logit(got["lambda_"]),
                                   rtol=1e-4, atol=1e-5)


def scale_r_cor(z, sd, L):
    """brms: transpose(rep_matrix(SD, cols(z)) .* (L * z)), per draw."""
    return np.transpose(sd[:, :, None] * (L @ z), (0, 2, 1))


class BrmsVaryingSlopes(E.E2ETestCase):
    N, J, D = 500, 6, 32

    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(23)
        self.x = rng.normal(size=self.N).astype(np.float32)
        self.g = rng.integers(0, self.J, self.N).astype(np.int32)
        c = rng.uniform(-0.8, 0.8, self.D)
        L = np.zeros((self.D, 2, 2))
        L[:, 0, 0] = 1
        L[:, 1, 0] = c
        L[:, 1, 1] = np.sqrt(1 - c * c)
        self.post = dict(Intercept=rng.normal(size=self.D),
                         b=rng.normal(size=self.D),
                         sd_1=rng.uniform(0.2, 1.5, (self.D, 2)),
                         z_1=rng.normal(size=(self.D, 2, self.J)),
                         L_1=L, sigma=rng.uniform(0.5, 1.5, self.D))
        self.post = {k: v.astype(np.float32) for k, v in self.post.items()}
        self.pp = self.savez("post.npz", **self.post)
        self.data = {"x": self.save("x.npy", self.x),
                     "g": self.save("g.npy", self.g)}

    def mu(self):
        p = {k: v.astype(np.float64) for k, v in self.post.items()}
        r = scale_r_cor(p["z_1"], p["sd_1"], p["L_1"])  # [D, J, 2]
        return (p["Intercept"][:, None] + r[:, self.g, 0] +
                (p["b"][:, None] + r[:, self.g, 1]) * self.x[None])

    def test_log_likelihood_against_scipy(self):
        so = E.model("brms_varying_slopes")
        y = (self.mu()[0] + 0.3).astype(np.float32)
        data = dict(self.data, y=self.save("y.npy", y))
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, data, out, posterior=self.pp)
        got = E.read_arrays(out)["y"]
        ref = stats.norm.logpdf(y[None], self.mu(),
                                self.post["sigma"][:, None])
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)

    def test_predict_every_partition_same_bytes(self):
        so = E.model("brms_varying_slopes")
        outs = []
        for devices, batch in ((1, None), (2, 77)):
            out = self.fresh()
            E.run_cmd("predict", so, self.data, out, posterior=self.pp,
                      devices=devices, batch=batch, seed=4, sites=["y"])
            outs.append(E.read_arrays(out))
        self.assert_same_arrays(outs[0], outs[1])
        z = (outs[0]["y"] - self.mu()) / self.post["sigma"][:, None]
        self.assertGreater(stats.kstest(z.ravel(), "norm").pvalue, 1e-4)


if __name__ == "__main__":
    E.main()
