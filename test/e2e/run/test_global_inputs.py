"""Inputs without the observation axis (a scalar hyperparameter, an array of
per-coefficient prior scales), end to end with the horseshoe logistic
example: they are read whole by every device under both plans, change the
results as the model says (log-likelihood against scipy, prior draws of
the global scale against HalfCauchy(tau0)), and are checked like any input
(shape, dtype)."""

import os
import sys
import unittest

import numpy as np
from scipy import special, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

# The checking stand-in CUDA driver (test/unit/gpu), when it is built.
FAKE = os.environ.pop("AIMZ_TEST_FAKE_CUDA", "")


class GlobalInputs(E.E2ETestCase):
    N, K, D = 3000, 4, 12

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = np.random.default_rng(61)
        cls.X = rng.normal(size=(cls.N, cls.K)).astype(np.float32)
        cls.scale = np.array([1, 2, 0.5, 1], np.float32)
        cls.post = dict(
            tau=rng.uniform(0.1, 1, cls.D).astype(np.float32),
            lam=rng.uniform(0.1, 2, (cls.D, cls.K)).astype(np.float32),
            z=rng.normal(size=(cls.D, cls.K)).astype(np.float32),
            intercept=rng.normal(0, 0.5, cls.D).astype(np.float32))
        cls.data = {"X": cls.save("X.npy", cls.X),
                    "tau0": cls.save("tau0.npy", np.float32(0.3)),
                    "prior_scale": cls.save("ps.npy", cls.scale)}
        cls.pp = cls.savez("post.npz", **cls.post)
        cls.so = E.model("horseshoe_logistic")

    def logits(self):
        p = {k: v.astype(np.float64) for k, v in self.post.items()}
        beta = p["z"] * p["lam"] * p["tau"][:, None] * self.scale
        return p["intercept"][:, None] + beta @ self.X.astype(np.float64).T, beta

    def test_log_likelihood_under_both_plans(self):
        rng = np.random.default_rng(1)
        logit, _ = self.logits()
        y = (rng.uniform(size=self.N) < special.expit(logit[0])).astype(np.int32)
        data = dict(self.data, y=self.save("y.npy", y))
        ref = stats.bernoulli.logpmf(y[None, :], special.expit(logit))
        first = None
        for axis, devices, batch in [("obs", 1, None), ("obs", 3, 701),
                                     ("draw", 2, 5)]:
            out = self.fresh()
            E.run_cmd("log-likelihood", self.so, data, out, posterior=self.pp,
                      axis=axis, devices=devices, batch=batch)
            ll = E.read_arrays(out)["y"]
            np.testing.assert_allclose(ll, ref, rtol=1e-5, atol=1e-6)
            if first is None:
                first = ll
            self.assertTrue(E.same_bytes(ll, first), (axis, devices, batch))

    def test_predict_returns_the_deterministic_beta(self):
        out = self.fresh()
        E.run_cmd("predict", self.so, self.data, out, posterior=self.pp,
                  devices=2, batch=999)
        _, beta = self.logits()
        np.testing.assert_allclose(E.read_arrays(out)["beta"], beta,
                                   rtol=1e-5, atol=1e-7)

    def test_prior_scale_follows_the_scalar_input(self):
        for tau0 in (0.3, 3.0):
            data = dict(self.data, tau0=self.save("t%g.npy" % tau0,
                                                  np.float32(tau0)))
            out = self.fresh()
            E.run_cmd("prior-predictive", self.so, data, out, num_samples=800,
                      devices=2, sites=["tau"])
            tau = E.read_arrays(out)["tau"]
            ks = stats.kstest(tau, stats.halfcauchy(scale=tau0).cdf)
            self.assertGreater(ks.pvalue, 1e-4, (tau0, ks))

    @unittest.skipUnless(FAKE, "the stand-in CUDA driver is not built")
    def test_stand_in_gpu_gives_the_cpu_bytes(self):
        outs = {}
        with E.environment({"AIMZ_CUDA_DRIVER": FAKE,
                            "AIMZ_FAKE_CUDA_MODEL": self.so}):
            for device in ("gpu", "cpu"):
                out = self.fresh()
                E.run_cmd("predict", self.so, self.data, out,
                          posterior=self.pp, extra=["--device", device])
                outs[device] = E.read_arrays(out)
        for name, cpu in outs["cpu"].items():
            self.assertTrue(E.same_bytes(outs["gpu"][name], cpu), name)

    def test_global_inputs_are_checked_like_any_input(self):
        bad = dict(self.data, tau0=self.save("tau_vec.npy",
                                             np.ones(3, np.float32)))
        r = E.run_cmd("predict", self.so, bad, self.fresh(), posterior=self.pp,
                      check=False)
        self.assert_one_error_line(r, "input 'tau0'", "(3,)")
        bad = dict(self.data, prior_scale=self.save("ps5.npy",
                                                    np.ones(5, np.float32)))
        r = E.run_cmd("predict", self.so, bad, self.fresh(), posterior=self.pp,
                      check=False)
        self.assert_one_error_line(r, "dimension 'k'", "prior_scale")


class FlatPriors(E.E2ETestCase):
    """ImproperUniform latents (the flat-prior GLM example): read from the
    posterior by every command; missing ones, values outside the declared
    support and the prior predictive are refused with one line."""

    def test_flat_prior_glm(self):
        rng = np.random.default_rng(71)
        n, k, D = 1500, 3, 6
        X = rng.normal(size=(n, k))
        post = dict(alpha=rng.normal(size=D), beta=rng.normal(size=(D, k)),
                    sigma=rng.uniform(0.5, 1.5, D))
        mu = post["alpha"][:, None] + post["beta"] @ X.T
        y = mu[0] + rng.normal(size=n)
        data = {"X": self.save("flX.npy", X)}
        pp = self.savez("flpost.npz", **post)
        so = E.model("flat_prior_glm")
        out = self.fresh()
        E.run_cmd("log-likelihood", so, dict(data, y=self.save("fly.npy", y)),
                  out, posterior=pp, devices=2, batch=500)
        np.testing.assert_allclose(
            E.read_arrays(out)["y"],
            stats.norm.logpdf(y[None, :], mu, post["sigma"][:, None]),
            rtol=1e-10)
        out = self.fresh()
        E.run_cmd("predict", so, data, out, posterior=pp, axis="draw",
                  devices=2, batch=2)
        got = E.read_arrays(out)
        np.testing.assert_allclose(got["mu"], mu, rtol=1e-12)
        r = (got["y"] - mu) / post["sigma"][:, None]
        self.assertLess(abs(r.mean()) * np.sqrt(r.size), 5)
        missing = self.savez("flmiss.npz", alpha=post["alpha"],
                             sigma=post["sigma"])
        res = E.run_cmd("predict", so, data, self.fresh(), posterior=missing,
                        check=False)
        self.assert_one_error_line(res, "lacks beta", "ImproperUniform")
        bad = dict(post, sigma=np.where(np.arange(D) == 4, -1.0, post["sigma"]))
        res = E.run_cmd("predict", so, data, self.fresh(),
                        posterior=self.savez("flbad.npz", **bad), check=False)
        self.assert_one_error_line(res, "posterior 'sigma'", "draw 4",
                                   "support=positive")
        res = E.run_cmd("prior-predictive", so, data, self.fresh(),
                        check=False)
        self.assert_one_error_line(res, "flat prior", "prior predictive")


if __name__ == "__main__":
    E.main()
