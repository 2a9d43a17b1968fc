"""Several observed outputs: the log-likelihood scores each (one array
per output, as ArviZ's log_likelihood group holds one variable per
observed site), predict and prior-predictive draw each, under the obs plan
(every latent global) and the draw plan (a latent per observation, the
measurement-error model's true covariate), with the same bytes whatever the
partition; a missing output is refused by name."""

import os
import sys

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402


class TwoResponses(E.E2ETestCase):
    """Obs plan; y2's mean reads y1."""
    N, D = 1200, 7

    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(391)
        self.x = rng.normal(size=self.N)
        self.post = dict(a=rng.normal(size=self.D), b=rng.normal(size=self.D),
                         s=rng.uniform(0.5, 1.5, self.D))
        self.y1 = self.x * 0.7 + rng.normal(size=self.N)
        self.y2 = rng.poisson(np.exp(0.2 * self.y1)).astype(np.int32)
        self.data = {"x": self.save("x.npy", self.x)}
        self.obs = dict(self.data, y1=self.save("y1.npy", self.y1),
                        y2=self.save("y2.npy", self.y2))
        self.pp = self.savez("post.npz", **self.post)

    def test_plan_is_obs(self):
        r = E.aimz_run("info", E.model("two_responses"))
        self.assertIn("plan: obs", r.stdout)
        self.assertIn("outputs: y1: f64[n] y2: i32[n]", r.stdout)

    def test_log_likelihood_scores_each_output(self):
        so = E.model("two_responses")
        p = self.post
        ref1 = stats.norm.logpdf(self.y1[None], p["a"][:, None] * self.x[None],
                                 p["s"][:, None])
        ref2 = stats.poisson.logpmf(self.y2[None], np.exp(
            0.3 * p["b"][:, None] * self.y1[None]))
        outs = []
        for axis, devices, batch in (("obs", 1, None), ("obs", 2, 101),
                                     ("draw", 2, 3)):
            out = self.fresh()
            E.run_cmd("log-likelihood", so, self.obs, out, posterior=self.pp,
                      axis=axis, devices=devices, batch=batch)
            outs.append(out)
        got = E.read_arrays(outs[0])
        self.assertEqual(sorted(got), ["y1", "y2"])
        np.testing.assert_allclose(got["y1"], ref1, rtol=1e-12)
        np.testing.assert_allclose(got["y2"], ref2, rtol=1e-12, atol=1e-12)
        for o in outs[1:]:
            self.assert_same_arrays(got, E.read_arrays(o))

    def test_each_output_is_required(self):
        so = E.model("two_responses")
        data = dict(self.data, y1=self.obs["y1"])
        r = E.run_cmd("log-likelihood", so, data, self.fresh(),
                      posterior=self.pp, check=False)
        self.assert_one_error_line(r, "observed output 'y2'",
                                   "--data y2=y2.npy", "'y1', 'y2'")

    def test_predict_draws_y2_from_the_drawn_y1(self):
        so = E.model("two_responses")
        outs = []
        for axis, devices, batch in (("obs", 1, None), ("obs", 2, 77),
                                     ("draw", 2, 2)):
            out = self.fresh()
            E.run_cmd("predict", so, self.data, out, posterior=self.pp,
                      axis=axis, devices=devices, batch=batch, seed=11)
            outs.append(out)
        got = E.read_arrays(outs[0])
        for o in outs[1:]:
            self.assert_same_arrays(got, E.read_arrays(o))
        y1, y2 = got["y1"], got["y2"].astype(np.float64)
        self.assertEqual(y1.shape, (self.D, self.N))
        self.assertEqual(y2.shape, (self.D, self.N))
        # y1 ~ Normal(a x, s): standardized residuals are N(0, 1).
        p = self.post
        z = (y1 - p["a"][:, None] * self.x[None]) / p["s"][:, None]
        self.assertGreater(stats.kstest(z.ravel(), "norm").pvalue, 1e-4)
        # y2 | y1 ~ Poisson(exp(0.3 b y1)) with the y1 drawn beside it:
        # the Pearson residuals have mean 0 and variance 1.
        lam = np.exp(0.3 * p["b"][:, None] * y1)
        keep = lam < 50
        r = ((y2 - lam) / np.sqrt(lam))[keep]
        self.assertLess(abs(r.mean()) * np.sqrt(r.size), 5)
        self.assertLess(abs(r.var() - 1), 0.05)

    def test_prior_predictive_draws_each_output(self):
        so = E.model("two_responses")
        out = self.fresh()
        E.run_cmd("prior-predictive", so, self.data, out, num_samples=5,
                  fmt=None, extra=["--layout", "inference-data"])
        g = E.open_group(out)
        self.assertEqual(sorted(g["prior_predictive"].array_keys()),
                         ["y1", "y2"])
        self.assertEqual(g["prior_predictive"]["y2"].shape, (1, 5, self.N))


class MeasurementError(E.E2ETestCase):
    """Draw plan: the true covariate x is a latent per observation."""
    N, D = 900, 6

    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(392)
        self.tau = rng.uniform(0.2, 0.8, self.N).astype(np.float32)
        post = dict(mu_x=rng.normal(size=self.D),
                    sigma_x=rng.uniform(0.5, 2, self.D),
                    alpha=rng.normal(size=self.D),
                    beta=rng.normal(size=self.D),
                    sigma=rng.uniform(0.5, 1.5, self.D))
        post["x"] = (post["mu_x"][:, None] + post["sigma_x"][:, None] *
                     rng.normal(size=(self.D, self.N)))
        self.post = {k: v.astype(np.float32) for k, v in post.items()}
        self.x_meas = (self.post["x"][0] + self.tau *
                       rng.normal(size=self.N)).astype(np.float32)
        self.y = rng.normal(size=self.N).astype(np.float32)
        self.data = {"tau": self.save("tau.npy", self.tau)}
        self.obs = dict(self.data, x_meas=self.save("x_meas.npy", self.x_meas),
                        y=self.save("y.npy", self.y))
        self.pp = self.savez("post.npz", **self.post)

    def test_plan_is_draw_because_of_x(self):
        r = E.aimz_run("info", E.model("measurement_error"))
        self.assertIn("plan: draw (forced by x)", r.stdout)

    def test_log_likelihood_in_inference_data(self):
        so = E.model("measurement_error")
        p = {k: v.astype(np.float64) for k, v in self.post.items()}
        ref_x = stats.norm.logpdf(self.x_meas[None], p["x"], self.tau[None])
        ref_y = stats.norm.logpdf(
            self.y[None], p["alpha"][:, None] + p["beta"][:, None] * p["x"],
            p["sigma"][:, None])
        outs = []
        for devices, batch in ((1, None), (2, 4)):
            out = self.fresh()
            E.run_cmd("log-likelihood", so, self.obs, out, posterior=self.pp,
                      devices=devices, batch=batch,
                      extra=["--layout", "inference-data"])
            outs.append(out)
        self.assert_same_arrays(E.read_arrays(outs[0] + "/log_likelihood"),
                                E.read_arrays(outs[1] + "/log_likelihood"))
        g = E.open_group(outs[0])
        ll = g["log_likelihood"]
        self.assertEqual(sorted(ll.array_keys()), ["x_meas", "y"])
        for name, ref in (("x_meas", ref_x), ("y", ref_y)):
            got = ll[name][...][0]
            err = np.abs(got - ref) / np.maximum(1, np.abs(ref))
            self.assertLess(err.max(), 2e-6, name)
        od = g["observed_data"]
        np.testing.assert_array_equal(od["x_meas"][...], self.x_meas)
        np.testing.assert_array_equal(od["y"][...], self.y)

    def test_predict_keeps_the_posterior_x(self):
        so = E.model("measurement_error")
        out = self.fresh(".npz")
        E.run_cmd("predict", so, self.data, out, posterior=self.pp, seed=2)
        got = E.read_arrays(out)
        self.assertEqual(sorted(got), ["x_meas", "y"])
        z = (got["x_meas"] - self.post["x"]) / self.tau[None]
        self.assertGreater(stats.kstest(z.ravel(), "norm").pvalue, 1e-4)


if __name__ == "__main__":
    E.main()
