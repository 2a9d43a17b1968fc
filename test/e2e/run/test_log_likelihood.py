"""aimz-run log-likelihood, end to end: the pointwise log density of the
observed output under every posterior draw equals scipy.stats evaluated in
Python on the same posterior and data (1e-5 relative): linreg (Normal),
logistic (Bernoulli with logits), poisson (Poisson with an exposure),
hierarchical (a gathered Normal) and local_latent (z from the posterior);
outcomes outside the support give -inf; the f64 model agrees to 1e-12.
Layout and attributes of the store; the same bytes under every partition
and seed (there is no randomness in a log-likelihood)."""

import os
import sys

import numpy as np
from scipy import special, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

RTOL = 1e-5

# (shard axis, devices, batch size): batches that do not divide n or the
# draws, and are not multiples of the device count.
PARTITIONS = [("obs", 1, None), ("obs", 2, 333), ("obs", 3, 7),
              ("obs", 3, 1000), ("draw", 1, None), ("draw", 2, 3),
              ("draw", 3, 7), ("draw", 2, 1)]


class LogLikelihood(E.E2ETestCase):

    def run_all(self, name, data, post, n, draws, ref, partitions=PARTITIONS,
                plan_for=None, dtype=np.float32, rtol=RTOL):
        """Runs every partition; checks layout, attributes and identical
        bytes; compares with the scipy reference `ref` (draws, n)."""
        so = E.model(name)
        first = None
        for i, (axis, devices, batch) in enumerate(partitions):
            with self.subTest(model=name, axis=axis, devices=devices,
                              batch=batch):
                out = self.fresh()
                E.run_cmd("log-likelihood", so, data, out, posterior=post,
                          axis=axis, devices=devices, batch=batch,
                          seed=100 + i)
                g = E.open_group(out)
                self.assertEqual(list(g.array_keys()), ["y"])
                plan = plan_for(axis) if plan_for else axis
                b = g.attrs["batch_size"]
                total = n if plan == "obs" else draws
                if batch is not None:
                    self.assertEqual(b, min(batch, total))
                chunks = (draws, b) if plan == "obs" else (b, n)
                self.assert_store_layout(out, "y", (draws, n), chunks,
                                         dtype, plates=("obs",))
                E.check_group_attrs(self, out, "log_likelihood", name, plan,
                                    100 + i, b)
                ll = E.read_arrays(out)["y"]
                if first is None:
                    first = ll
                    self.assertTrue(np.all(np.isfinite(ll[np.isfinite(ref)])))
                    np.testing.assert_allclose(ll, ref, rtol=rtol, atol=0)
                else:
                    self.assertTrue(E.same_bytes(ll, first),
                                    "bytes differ from the first partition")
        return first

    def test_linreg_normal(self):
        rng = np.random.default_rng(21)
        n, k, D = 2003, 3, 23
        X, y, post = E.linreg_data(rng, n, k, D)
        data = {"X": self.save("X.npy", X), "y": self.save("y.npy", y)}
        pp = self.savez("post.npz", **post)
        mu = E.linreg_mu(X, post)
        ref = stats.norm.logpdf(y.astype(np.float64), loc=mu,
                                scale=post["sigma"].astype(np.float64)[:, None])
        self.run_all("linreg", data, pp, n, D, ref)
        # --return-sites naming the output is fine (anything else is
        # refused: test_errors.py).
        out = self.fresh()
        E.run_cmd("log-likelihood", E.model("linreg"), data, out,
                      posterior=pp, sites=["y"])
        self.assertEqual(list(E.open_group(out).array_keys()), ["y"])

    def test_logistic_bernoulli_logits(self):
        rng = np.random.default_rng(22)
        n, k, D = 1501, 4, 21
        X = rng.normal(size=(n, k)).astype(np.float32)
        post = dict(intercept=rng.normal(0, 1, D).astype(np.float32),
                    coef=rng.normal(0, 1.5, (D, k)).astype(np.float32))
        y = rng.integers(0, 2, n).astype(np.int32)
        data = {"X": self.save("X.npy", X), "y": self.save("y.npy", y)}
        pp = self.savez("post.npz", **post)
        # Outcomes outside the support have log-likelihood -inf.
        yo = y.copy()
        yo[[3, 500]] = [2, -1]
        logit = post["intercept"].astype(np.float64)[:, None] + \
            post["coef"].astype(np.float64) @ X.astype(np.float64).T
        ref = stats.bernoulli.logpmf(y, special.expit(logit))
        self.assertGreater(np.abs(logit).max(), 8, "set-up: large logits")
        ll = self.run_all("logistic", data, pp, n, D, ref)
        self.run_all("logistic", dict(data, y=self.save("yo.npy", yo)), pp,
                     n, D, stats.bernoulli.logpmf(yo, special.expit(logit)),
                     partitions=[("obs", 2, 100), ("draw", 3, 6)])
        # A bool outcome widens losslessly to the model's i32.
        out = self.fresh()
        E.run_cmd("log-likelihood", E.model("logistic"),
                  {"X": data["X"], "y": self.save("yb.npy", y.astype(bool))},
                  out, posterior=pp, devices=2, batch=100)
        self.assertTrue(E.same_bytes(E.read_arrays(out)["y"], ll))

    def test_poisson(self):
        rng = np.random.default_rng(23)
        n, k, D = 2501, 2, 20
        X = rng.normal(0, 0.5, size=(n, k)).astype(np.float32)
        exposure = rng.uniform(0.2, 3.0, n).astype(np.float32)
        post = dict(beta0=rng.normal(1.5, 0.5, D).astype(np.float32),
                    beta=rng.normal(0, 0.5, (D, k)).astype(np.float32))
        y = rng.poisson(exposure * 4.0).astype(np.int32)
        data = {"X": self.save("X.npy", X),
                "exposure": self.save("e.npy", exposure),
                "y": self.save("y.npy", y)}
        pp = self.savez("post.npz", **post)
        rate = exposure.astype(np.float64) * np.exp(
            post["beta0"].astype(np.float64)[:, None] +
            post["beta"].astype(np.float64) @ X.astype(np.float64).T)
        y[[7, 1234]] = [-1, -5]  # outside the support: -inf
        data["y"] = self.save("y.npy", y)
        ref = stats.poisson.logpmf(y, rate)
        self.assertEqual(np.isinf(ref).sum(), 2 * D)
        self.run_all("poisson", data, pp, n, D, ref)

    def test_linreg_f64(self):
        # The f64 model computes in double: float32 data widen losslessly,
        # the log density is float64 and matches scipy far below 1e-5.
        rng = np.random.default_rng(26)
        n, k, D = 1001, 3, 20
        X, y, post = E.linreg_data(rng, n, k, D)
        post = {k_: v.astype(np.float64) + 1e-9 for k_, v in post.items()}
        data = {"X": self.save("X.npy", X), "y": self.save("y.npy", y)}
        pp = self.savez("post.npz", **post)
        mu = post["alpha"][:, None] + post["beta"] @ X.astype(np.float64).T
        ref = stats.norm.logpdf(y.astype(np.float64), mu,
                                post["sigma"][:, None])
        self.run_all("linreg64", data, pp, n, D, ref, dtype=np.float64,
                     rtol=1e-12, partitions=PARTITIONS[1:3] + PARTITIONS[5:6])

    def test_hierarchical_gathered_normal(self):
        rng = np.random.default_rng(24)
        n, D, G = 1201, 20, 8
        x = rng.normal(size=n).astype(np.float32)
        g = rng.integers(0, G, n).astype(np.int32)
        y = (rng.normal(size=n) * 2).astype(np.float32)
        post = dict(mu_a=rng.normal(0, 1, D).astype(np.float32),
                    sigma_a=rng.uniform(0.5, 2, D).astype(np.float32),
                    a=rng.normal(0, 2, (D, G)).astype(np.float32),
                    b=rng.normal(0, 1, D).astype(np.float32),
                    sigma=rng.uniform(0.5, 2.0, D).astype(np.float32))
        data = {"x": self.save("x.npy", x), "g": self.save("g.npy", g),
                "y": self.save("y.npy", y)}
        pp = self.savez("post.npz", **post)
        mean = post["a"].astype(np.float64)[:, g] + \
            post["b"].astype(np.float64)[:, None] * x
        ref = stats.norm.logpdf(y, mean,
                                post["sigma"].astype(np.float64)[:, None])
        self.run_all("hierarchical", data, pp, n, D, ref,
                     partitions=PARTITIONS[:4] + PARTITIONS[5:6])

    def test_local_latent_with_z(self):
        rng = np.random.default_rng(25)
        n, D = 1001, 20
        x = rng.normal(size=n).astype(np.float32)
        y = rng.normal(size=n).astype(np.float32)
        post = dict(beta=rng.normal(0, 1, D).astype(np.float32),
                    tau=rng.uniform(0.5, 1, D).astype(np.float32),
                    sigma=rng.uniform(0.5, 1.5, D).astype(np.float32),
                    z=rng.normal(0, 0.7, (D, n)).astype(np.float32))
        data = {"x": self.save("x.npy", x), "y": self.save("y.npy", y)}
        pp = self.savez("post.npz", **post)
        mean = post["beta"].astype(np.float64)[:, None] * x + post["z"]
        ref = stats.norm.logpdf(y, mean,
                                post["sigma"].astype(np.float64)[:, None])
        # z is observation-aligned: every request runs the draw plan.
        self.run_all("local_latent", data, pp, n, D, ref,
                     partitions=[(None, 2, None), ("draw", 3, 7),
                                 ("obs", 2, 5)],
                     plan_for=lambda axis: "draw")


class Factors(E.E2ETestCase):
    """`factor` sites: log-likelihood writes them beside the output, under
    both plans and any partition, with the values NumPy computes; the
    predictive commands never return them."""

    def test_log_prob_terms_match_scipy(self):
        """log_prob(Dist(...), v) in factors: each term is scipy's log
        density on the same values, byte-identical across partitions."""
        rng = np.random.default_rng(82)
        n, D = 500, 5
        x = rng.normal(size=n).astype(np.float32)
        c = rng.poisson(1.5, size=n).astype(np.int32)
        c[::50] = -1  # off the support: -inf
        y = rng.normal(size=n).astype(np.float32)
        mu = rng.normal(size=D).astype(np.float32)
        s = rng.uniform(0.3, 2, size=D).astype(np.float32)
        data = {"x": self.save("lx.npy", x), "c": self.save("lc.npy", c),
                "y": self.save("ly.npy", y)}
        post = self.savez("lpost.npz", mu=mu, s=s)
        so = E.model("log_prob_terms")
        m, sd = mu.astype(np.float64)[:, None], s.astype(np.float64)[:, None]
        x64 = x.astype(np.float64)[None, :]
        rate = np.exp(np.float32(0.3) * x).astype(np.float64)[None, :]
        want = {"prior_mu": stats.t.logpdf(mu.astype(np.float64), 3, 0, 2.5),
                "meas": stats.norm.logpdf(x64, m, sd),
                "counts": np.broadcast_to(stats.poisson.logpmf(c[None, :], rate),
                                          (D, n)),
                "y": stats.norm.logpdf(y[None, :], m + x64, sd)}
        first = None
        for axis, devices, batch in [("obs", 1, None), ("obs", 3, 61),
                                     ("draw", 2, 2)]:
            out = self.fresh()
            E.run_cmd("log-likelihood", so, data, out, posterior=post,
                      axis=axis, devices=devices, batch=batch)
            got = E.read_arrays(out)
            self.assertEqual(sorted(got), sorted(want))
            for k, v in want.items():
                np.testing.assert_array_equal(np.isfinite(got[k]), np.isfinite(v), k)
                ok = np.isfinite(v)
                np.testing.assert_allclose(got[k][ok], v[ok], rtol=2e-5,
                                           atol=2e-5, err_msg=k)
                np.testing.assert_array_equal(got[k][~ok], v[~ok], k)
            if first is None:
                first = got
            for k in got:
                self.assertTrue(E.same_bytes(got[k], first[k]), k)

    def test_factors_are_log_likelihood_terms(self):
        rng = np.random.default_rng(81)
        n, D = 700, 6
        x = rng.normal(size=n).astype(np.float32)
        y = rng.normal(size=n).astype(np.float32)
        mu = rng.normal(size=D).astype(np.float32)
        data = {"x": self.save("fx.npy", x), "y": self.save("fy.npy", y)}
        post = self.savez("fpost.npz", mu=mu)
        so = E.model("factors")
        m = mu.astype(np.float64)
        want = {"pen": -0.5 * m * m,
                "robust": -np.abs(x[None, :].astype(np.float64) - m[:, None]),
                "y": stats.norm.logpdf(y[None, :], m[:, None] + x[None, :], 1)}
        first = None
        for axis, devices, batch in [("obs", 1, None), ("obs", 3, 97),
                                     ("draw", 2, 4)]:
            out = self.fresh()
            E.run_cmd("log-likelihood", so, data, out, posterior=post,
                      axis=axis, devices=devices, batch=batch)
            got = E.read_arrays(out)
            self.assertEqual(sorted(got), ["pen", "robust", "y"])
            for k, v in want.items():
                np.testing.assert_allclose(got[k], v, rtol=1e-6, atol=1e-6,
                                           err_msg=k)
            if first is None:
                first = got
            for k in got:
                self.assertTrue(E.same_bytes(got[k], first[k]), k)
        out = self.fresh()
        E.run_cmd("log-likelihood", so, data, out, posterior=post,
                  sites=["robust"])
        self.assertEqual(sorted(E.read_arrays(out)), ["robust"])
        out = self.fresh()
        E.run_cmd("predict", so, {"x": data["x"]}, out, posterior=post)
        self.assertEqual(sorted(E.read_arrays(out)), ["y"])
        r = E.run_cmd("predict", so, {"x": data["x"]}, self.fresh(),
                      posterior=post, sites=["pen"], check=False)
        self.assert_one_error_line(r, "'pen' is a factor")


if __name__ == "__main__":
    E.main()
