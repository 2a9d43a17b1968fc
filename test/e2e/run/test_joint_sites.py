"""Joint sites: a MultivariateNormal over every observation (a Gaussian
process, a conditional autoregression through its precision matrix, a
latent GP). The log-likelihood is one number per draw and equals SciPy's
multivariate normal; predictive draws whiten to independent standard
normals; the bytes do not depend on devices, batches or --shard-axis obs
(which warns and runs the draw plan)."""

import os
import sys

import numpy as np
from scipy import linalg, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402


def se_kernel(X, amp, rho, noise):
    sq = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    return amp ** 2 * np.exp(-0.5 * sq / rho ** 2) + (noise ** 2 + 1e-6) * \
        np.eye(len(X))


def assert_standard_normal(test, z, what):
    """z (draws x N): every element N(0, 1), components uncorrelated."""
    p = stats.kstest(z.ravel(), "norm").pvalue
    test.assertGreater(p, 1e-4, "%s: KS p = %.2g" % (what, p))
    C = z.T @ z / len(z)
    off = np.abs(C - np.eye(C.shape[0])).max()
    test.assertLess(off, 6 / np.sqrt(len(z)), what)


class JointSites(E.E2ETestCase):
    N, P, D = 40, 3, 300

    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(71)
        self.X = rng.uniform(-2, 2, (self.N, self.P))
        self.data = {"X": self.save("X.npy", self.X)}

    def features_posterior(self, rng, draws, same=False):
        n = 1 if same else draws
        post = dict(amp=rng.lognormal(0, 0.3, n), rho=rng.lognormal(0, 0.3, n),
                    noise=rng.uniform(0.2, 0.6, n))
        return {k: np.repeat(v, draws) if same else v for k, v in post.items()}

    def test_log_likelihood_is_one_number_per_draw(self):
        rng = np.random.default_rng(1)
        post = self.features_posterior(rng, 12)
        Y = np.sin(self.X.sum(1)) + 0.3 * rng.normal(size=self.N)
        data = dict(self.data, Y=self.save("Y.npy", Y))
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", E.model("gp_features64"), data, out,
                  posterior=self.savez("post.npz", **post))
        got = E.read_arrays(out)["Y"]
        self.assertEqual(got.shape, (12,))
        ref = [stats.multivariate_normal(np.zeros(self.N), se_kernel(
            self.X, post["amp"][d], post["rho"][d],
            post["noise"][d])).logpdf(Y) for d in range(12)]
        np.testing.assert_allclose(got, ref, rtol=1e-12)
        # The store: one dimension, the draws.
        store = self.fresh()
        E.run_cmd("log-likelihood", E.model("gp_features64"), data, store,
                  posterior=self.path("post.npz"))
        ds = E.open_dataset(store)
        self.assertEqual(ds["Y"].dims, ("draw",))
        self.assertEqual(E.root_attrs(store)["plan"], "draw")

    def test_predict_draws_the_multivariate_normal(self):
        rng = np.random.default_rng(2)
        post = self.features_posterior(rng, self.D, same=True)
        out = self.fresh(".npz")
        E.run_cmd("predict", E.model("gp_features64"), self.data, out,
                  posterior=self.savez("post.npz", **post), seed=3)
        Y = E.read_arrays(out)["Y"]
        self.assertEqual(Y.shape, (self.D, self.N))
        L = np.linalg.cholesky(se_kernel(self.X, post["amp"][0],
                                         post["rho"][0], post["noise"][0]))
        z = linalg.solve_triangular(L, Y.T, lower=True).T
        assert_standard_normal(self, z, "whitened predictive")

    def test_same_bytes_whatever_the_partition(self):
        rng = np.random.default_rng(4)
        post = self.savez("post.npz", **self.features_posterior(rng, 23))
        so = E.model("gp_features64")
        ref = self.fresh()
        E.run_cmd("predict", so, self.data, ref, posterior=post, seed=9,
                  devices=1)
        out = self.fresh()
        E.run_cmd("predict", so, self.data, out, posterior=post, seed=9,
                  devices=2)
        self.assert_same_store(ref, out)
        # Other batches: other chunks, the same values.
        for extra in (dict(batch=1), dict(batch=7), dict(devices=2, batch=5)):
            out = self.fresh()
            E.run_cmd("predict", so, self.data, out, posterior=post, seed=9,
                      **extra)
            self.assert_same_arrays(E.read_arrays(ref), E.read_arrays(out))
        # --shard-axis obs cannot split a joint site: a warning, the draw
        # plan, the same bytes.
        out = self.fresh()
        r = E.run_cmd("predict", so, self.data, out, posterior=post, seed=9,
                      axis="obs")
        self.assertIn("joint site(s) Y", r.stderr)
        self.assertIn("running with --shard-axis draw", r.stderr)
        self.assertEqual(E.root_attrs(out)["plan"], "draw")
        self.assert_same_store(ref, out)

    def test_precision_matrix(self):
        rng = np.random.default_rng(5)
        N, D = 30, 200
        W = np.zeros((N, N))
        for i in range(N - 1):  # a chain of neighbours, and a few more
            W[i, i + 1] = W[i + 1, i] = 1
        W[0, N - 1] = W[N - 1, 0] = 1
        data = {"W": self.save("W.npy", W)}
        post = dict(mu=rng.normal(size=D), tau=rng.gamma(2, 1, D),
                    alpha=rng.uniform(0, 0.95, D))
        pp = self.savez("car.npz", **post)
        Q = lambda d: post["tau"][d] * (np.diag(W.sum(1)) -
                                        post["alpha"][d] * W)
        y = rng.normal(size=N)
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", E.model("car_precision64"),
                  dict(data, y=self.save("y.npy", y)), out, posterior=pp)
        got = E.read_arrays(out)["y"]
        ref = [stats.multivariate_normal(np.full(N, post["mu"][d]),
                                         np.linalg.inv(Q(d))).logpdf(y)
               for d in range(D)]
        np.testing.assert_allclose(got, ref, rtol=1e-10)
        # Draws: z = L^T (y - mu) with Q = L L^T is standard normal.
        out = self.fresh(".npz")
        E.run_cmd("predict", E.model("car_precision64"), data, out,
                  posterior=pp, seed=6)
        Y = E.read_arrays(out)["y"]
        z = np.stack([np.linalg.cholesky(Q(d)).T @ (Y[d] - post["mu"][d])
                      for d in range(D)])
        assert_standard_normal(self, z, "whitened CAR draws")

    def test_latent_gaussian_process(self):
        rng = np.random.default_rng(6)
        N, D = 25, 400
        x = np.linspace(-2, 2, N)
        data = {"x": self.save("x.npy", x)}
        so = E.model("latent_gp64")
        # f drawn from its joint prior where the posterior lacks it.
        post = dict(rho=np.full(D, 0.7), sigma=np.full(D, 0.5))
        out = self.fresh(".npz")
        E.run_cmd("predict", so, data, out, sites=["f", "y", "f_mean"],
                  seed=2, posterior=self.savez("hyper.npz", **post))
        f = E.read_arrays(out)["f"]
        np.testing.assert_allclose(E.read_arrays(out)["f_mean"], f.mean(1),
                                   rtol=1e-12, atol=1e-15)
        K = np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / 0.7 ** 2) + \
            1e-6 * np.eye(N)
        z = linalg.solve_triangular(np.linalg.cholesky(K), f.T, lower=True).T
        assert_standard_normal(self, z, "latent f")
        # Given f, y's log-likelihood is pointwise: one number per
        # observation.
        post["f"] = rng.normal(size=(D, N))
        y = rng.normal(size=N)
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, dict(data, y=self.save("y.npy", y)),
                  out, posterior=self.savez("full.npz", **post))
        got = E.read_arrays(out)["y"]
        np.testing.assert_allclose(
            got, stats.norm(post["f"], 0.5).logpdf(y[None, :]), rtol=1e-12)
        # The prior predictive: the same bytes on one device or two.
        outs = []
        for dev in (1, 2):
            outs.append(self.fresh())
            E.run_cmd("prior-predictive", so, data, outs[-1], devices=dev,
                      num_samples=50, sites=["rho", "f", "y"], seed=8)
        self.assert_same_store(outs[0], outs[1])
        self.assertTrue(np.all(np.isfinite(E.read_arrays(outs[0])["y"])))

    def test_every_use_of_the_observation_axis(self):
        rng = np.random.default_rng(7)
        N, rho = 30, 0.8
        x, g = rng.normal(size=N), rng.integers(0, N, N).astype(np.int32)
        data = {"x": self.save("x.npy", x), "g": self.save("g.npy", g)}
        sites = ["diag_sum", "dot", "running", "colsum", "first", "gathered",
                 "tail"]
        out = self.fresh(".npz")
        E.run_cmd("predict", E.model("joint_mixing64"), data, out,
                  posterior=self.savez("rho.npz", rho=np.full(2, rho)),
                  sites=sites)
        got = E.read_arrays(out)
        K = np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2 / rho ** 2) + \
            0.5 * np.eye(N)
        ref = dict(diag_sum=np.trace(K), dot=x @ x, running=np.cumsum(x),
                   colsum=K.T.sum(0), first=x[0], gathered=x[g], tail=x[1:])
        for s in sites:
            np.testing.assert_allclose(got[s], np.broadcast_to(
                ref[s], got[s].shape), rtol=1e-13, err_msg=s)


class ScratchAgainstTheTightestLimit(E.E2ETestCase):
    """Every device thread holds a joint site's N x N scratch: the total is
    checked before allocating, against the tightest limit (here ulimit -v,
    as a Slurm job's cap would be), naming it and what fits."""

    def test_threads_times_scratch_against_ulimit_v(self):
        import resource
        import subprocess
        rng = np.random.default_rng(9)
        X = self.save("X.npy", rng.uniform(-2, 2, (2500, 3)))
        post = self.savez("post.npz", amp=np.ones(2), rho=np.ones(2),
                          noise=np.full(2, 0.5))
        so = E.model("gp_features64")

        def run(devices):
            limit = 520_000 * 1024  # bytes: 150 MB of scratch fits once

            def cap():
                resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
            cmd = [E.AIMZ_RUN, "predict", so, "--data", "X=" + X,
                   "--posterior", post, "--out", self.fresh(".npz"),
                   "--devices", str(devices), "--no-progress"]
            return subprocess.run(cmd, capture_output=True, text=True,
                                  preexec_fn=cap, timeout=300)
        r = run(2)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("2 threads 300040960 bytes in all", r.stderr)
        self.assertIn("the address-space limit (ulimit -v)", r.stderr)
        self.assertIn("--devices 1 fits", r.stderr)
        r = run(1)
        self.assertEqual(r.returncode, 0, r.stderr)


if __name__ == "__main__":
    E.main()
