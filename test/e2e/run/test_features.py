"""README features that need a run of their own: the progress bar switches,
a model with a 'scan' block compiled to a library and run, a library built
for another CPU (--target-cpu=x86-64-v3) loaded and run, the rounding
of an f64 posterior for an f32 model, and reductions, softmax and cumsum
along an axis (axis=) and array literals against NumPy/scipy."""

import os
import sys

import numpy as np
from scipy import special, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402


class Features(E.E2ETestCase):
    N, K, D = 3000, 3, 8

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = np.random.default_rng(71)
        X, y, post = E.linreg_data(rng, cls.N, cls.K, cls.D)
        cls.X, cls.y, cls.post = X, y, post
        cls.Xp = cls.save("X.npy", X)
        cls.yp = cls.save("y.npy", y)
        cls.pp = cls.savez("post.npz", **post)

    def run_predict(self, *extra, model="linreg", post=None, out=None,
                    command="predict", data=None):
        out = out or self.fresh()
        return E.run_cmd(command, E.model(model) if "/" not in model
                         else model, data or {"X": self.Xp}, out,
                         posterior=post or self.pp, batch=500, seed=5,
                         extra=list(extra)), out

    # -- progress

    def test_progress_bar_switches(self):
        r, _ = self.run_predict("--progress")
        self.assertIn("batches", r.stderr)
        self.assertIn("6/6 batches", r.stderr)
        # Not a terminal: no bar by default, none with --no-progress.
        r, _ = self.run_predict()
        self.assertNotIn("batches", r.stderr)
        r, _ = self.run_predict("--no-progress")
        self.assertNotIn("batches", r.stderr)
        r, _ = self.run_predict("--progress", "--quiet")
        self.assertEqual(r.stderr, "")

    # -- a scan block

    def test_scan_model_runs(self):
        rng = np.random.default_rng(3)
        n, t = 500, 6
        x = rng.normal(size=(n, t)).astype(np.float32)
        sigma = rng.uniform(0.5, 1.5, self.D).astype(np.float32)
        post = self.savez("scan_post.npz", sigma=sigma)
        data = {"x": self.save("scan_x.npy", x)}
        _, out = self.run_predict(model="scan_obs", post=post, data=data)
        got = E.read_arrays(out)
        d = np.tanh(x.astype(np.float64)) * 2
        np.testing.assert_allclose(got["d"], np.broadcast_to(d, (self.D, n, t)),
                                   rtol=1e-6, atol=1e-6)
        mu = d.sum(axis=1)
        np.testing.assert_allclose(got["mu"], np.broadcast_to(mu, (self.D, n)),
                                   rtol=1e-5, atol=1e-5)
        r = (got["y"] - mu[None, :]) / sigma[:, None]
        self.assertLess(abs(r.mean()) * np.sqrt(r.size), 5)
        self.assertLess(abs(r.var() - 1) / np.sqrt(2 / r.size), 5)

    # -- another target CPU

    def test_x86_64_v3_library_loads_and_agrees(self):
        so = self.path("linreg_v3.so")
        r = E.aimzc(E.source_of("linreg"), "-o", so, "--target-cpu=x86-64-v3",
                    "--no-ptx")
        self.assertEqual(r.rc, 0, r)
        data = {"X": self.Xp, "y": self.yp}
        native, _ = None, None
        outs = []
        for lib in (E.model("linreg"), so):
            out = self.fresh()
            E.run_cmd("log-likelihood", lib, data, out, posterior=self.pp)
            outs.append(E.read_arrays(out)["y"])
        mu = E.linreg_mu(self.X, self.post)
        ref = stats.norm.logpdf(self.y[None, :].astype(np.float64), mu,
                                self.post["sigma"][:, None])
        for ll in outs:
            np.testing.assert_allclose(ll, ref, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(outs[1], outs[0], rtol=1e-6, atol=1e-7)

    def test_mlp_for_x86_64_v3_writes_the_hosts_bytes(self):
        # The matrix products' register tile follows the target's vectors
        # (64-byte zmm tiles with AVX-512, 32-byte ymm tiles with AVX2):
        # the grouping changes, every element's in-order sum does not, so a
        # library built for AVX2 writes an AVX-512 host's bytes. (On an AVX2
        # host both builds use the same tile; the GoogleTest Gemm tests
        # compare the tiles themselves.)
        with open("/proc/cpuinfo") as f:
            if " fma" not in f.read():
                self.skipTest("the host has no FMA; x86-64-v3 fuses")
        so = self.path("mlp_v3.so")
        r = E.aimzc(E.source_of("mlp"), "-o", so, "--target-cpu=x86-64-v3",
                    "--no-ptx")
        self.assertEqual(r.rc, 0, r)
        rng = np.random.default_rng(5)
        n = 700
        data = {"X": self.save("mlp_X.npy", rng.normal(
                    size=(n, 100)).astype(np.float32)),
                "y": self.save("mlp_y.npy", rng.integers(
                    0, 2, n).astype(np.int32))}
        post = self.savez("mlp_post.npz", **E.mlp_posterior(rng, 100, 6))
        # Log-likelihoods: every bit of every logit shows in them.
        outs = []
        for lib in (E.model("mlp"), so):
            out = self.fresh()
            E.run_cmd("log-likelihood", lib, data, out, posterior=post,
                      batch=96)
            outs.append(out)
        self.assert_same_store(outs[0], outs[1])

    # -- a model without inputs

    def test_model_without_inputs(self):
        so = E.model("no_inputs")
        rate = np.array([0.5, 2.0, 7.5], np.float32)
        post = self.savez("ni_post.npz", rate=rate)
        out = self.fresh()
        E.run_cmd("predict", so, {}, out, posterior=post,
                  extra=["--num-observations", "4000"], devices=2)
        y = E.read_arrays(out)["y"]
        self.assertEqual(y.shape, (3, 4000))
        np.testing.assert_allclose(y.mean(axis=1), rate, rtol=0.1)
        # log-likelihood: the observed output sets the count.
        obs = np.array([0, 1, 5, 2], np.int32)
        out = self.fresh()
        E.run_cmd("log-likelihood", so, {"y": self.save("ni_y.npy", obs)}, out,
                  posterior=post)
        np.testing.assert_allclose(E.read_arrays(out)["y"],
                                   stats.poisson.logpmf(obs[None, :],
                                                        rate[:, None]),
                                   rtol=1e-5)
        r = E.run_cmd("prior-predictive", so, {}, self.fresh(), check=False)
        self.assert_one_error_line(r, "number of observations",
                                   "--num-observations")
        r = E.run_cmd("prior-predictive", so, {}, self.fresh(), check=False,
                      extra=["--num-observations", "0"])
        self.assert_one_error_line(r, "--num-observations must be a positive")

    # -- f64 posterior, f32 model

    def test_f64_posterior_is_rounded_to_nearest_f32(self):
        rng = np.random.default_rng(9)
        post64 = {k: v.astype(np.float64) + rng.normal(0, 1e-4, v.shape)
                  for k, v in self.post.items()}
        post64["sigma"] = np.abs(post64["sigma"])
        # Values that f32 cannot hold exactly.
        self.assertTrue(any((v.astype(np.float32).astype(np.float64) != v).any()
                            for v in post64.values()))
        p64 = self.savez("post64.npz", **post64)
        p32 = self.savez("post32.npz", **{k: v.astype(np.float32)
                                          for k, v in post64.items()})
        _, a = self.run_predict(post=p64)
        _, b = self.run_predict(post=p32)
        for k, v in E.read_arrays(a).items():
            self.assertTrue(E.same_bytes(v, E.read_arrays(b)[k]), k)

    def test_axis_reductions_cumsum_and_array_literals(self):
        rng = np.random.default_rng(12)
        X = rng.normal(size=(41, 3, 2)).astype(np.float32)
        W = rng.normal(size=(5, 3, 4)).astype(np.float32)
        out = self.fresh(".npz")
        sites = ["cs", "c0", "s1", "m0", "mx", "ls", "sm", "lsm", "lit", "r",
                 "q"]
        E.run_cmd("predict", E.model("axis_ops"),
                  {"X": self.save("ax_X.npy", X)}, out,
                  posterior=self.savez("ax_post.npz", W=W), batch=16,
                  devices=2, sites=sites)
        got = E.read_arrays(out)
        W64 = W.astype(np.float64)
        lit = np.stack([np.broadcast_to([1.0, 2.0], (5, 2)),
                        np.stack([W64.sum((1, 2)), -W64[:, 0, 0]], 1)], 1)
        ref = dict(cs=np.cumsum(W64, 2), c0=np.cumsum(W64, 1), s1=W64.sum(2),
                   m0=W64.mean(1), mx=W64.max(2),
                   ls=special.logsumexp(W64, axis=1),
                   sm=special.softmax(W64, axis=1),
                   lsm=special.log_softmax(W64, axis=2), lit=lit,
                   r=np.broadcast_to(X.sum(2), (5, 41, 3)),
                   q=np.broadcast_to(np.cumsum(X, 1), (5, 41, 3, 2)))
        for k, v in ref.items():
            self.assertEqual(got[k].shape, v.shape, k)
            np.testing.assert_allclose(got[k], v, rtol=2e-6, atol=2e-6,
                                       err_msg=k)


if __name__ == "__main__":
    E.main()
