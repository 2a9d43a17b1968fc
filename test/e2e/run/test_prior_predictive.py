"""aimz-run prior-predictive, end to end.

Under `obs` the run streams over observations with each draw's global
latents fixed across every batch: eta = exp(alpha + X @ beta) recomputed
from the returned latents matches on every observation, and the whole
result is byte-identical to the `draw` plan's for any partition. The
latents follow their priors (Kolmogorov-Smirnov against scipy.stats), the
output its likelihood given them. local_latent (compiled plan draw) runs
under obs too, since there is no posterior."""

import os
import sys

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

P_MIN = 1e-4


class LinregPrior(E.E2ETestCase):
    N, K, D, SEED = 1003, 3, 60, 5
    SITES = ["alpha", "beta", "sigma", "eta", "y"]

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = np.random.default_rng(31)
        cls.X = rng.normal(size=(cls.N, cls.K)).astype(np.float32)
        cls.Xp = cls.save("X.npy", cls.X)
        cls.so = E.model("linreg")

    def prior(self, suffix=".zarr", **kw):
        out = self.fresh(suffix)
        r = E.run_cmd("prior-predictive", self.so, {"X": self.Xp}, out,
                      num_samples=kw.pop("num_samples", self.D), **kw)
        return out, r

    def test_partitions_and_plans_identical(self):
        ref = None
        for axis, devices, batch in [
                ("obs", 1, None), ("obs", 2, 100), ("obs", 3, 7),
                ("obs", 2, 1), ("draw", 1, None), ("draw", 2, 9),
                ("draw", 3, 1), (None, 3, 250)]:
            with self.subTest(axis=axis, devices=devices, batch=batch):
                out, r = self.prior(axis=axis, devices=devices, batch=batch,
                                    seed=self.SEED, sites=self.SITES)
                plan = axis or "obs"
                g = E.open_group(out)
                b = g.attrs["batch_size"]
                E.check_group_attrs(self, out, "prior_predictive", "linreg",
                                    plan, self.SEED, b)
                self.assertEqual(g.attrs["num_draws"], self.D)
                if plan == "obs":
                    lay = {"y": (self.D, b), "eta": (self.D, b),
                           "alpha": (self.D,), "sigma": (self.D,),
                           "beta": (self.D, self.K)}
                else:
                    lay = {"y": (b, self.N), "eta": (b, self.N),
                           "alpha": (b,), "sigma": (b,),
                           "beta": (b, self.K)}
                shapes = {"y": (self.D, self.N), "eta": (self.D, self.N),
                          "alpha": (self.D,), "sigma": (self.D,),
                          "beta": (self.D, self.K)}
                for s in self.SITES:
                    self.assert_store_layout(
                        out, s, shapes[s], lay[s], np.float32,
                        plates=("obs",) if s in ("y", "eta") else ())
                got = E.read_arrays(out)
                if ref is None:
                    ref = got
                    self.check_values(got)
                for s in self.SITES:
                    self.assertTrue(E.same_bytes(got[s], ref[s]), s)

    def check_values(self, got):
        # Each draw's global latents are the same on every observation
        # (and thus every batch and device): eta recomputed from them.
        mu = E.linreg_mu(self.X, got)
        np.testing.assert_allclose(got["eta"], np.exp(mu), rtol=1e-5)
        r = (got["y"] - mu) / got["sigma"].astype(np.float64)[:, None]
        self.assertLess(abs(r.mean()) * np.sqrt(r.size), 5)
        self.assertLess(abs(r.var() - 1) / np.sqrt(2 / r.size), 5)
        # Per draw, y's spread is that draw's sigma.
        v = r.var(axis=1, ddof=1)
        z = (v - 1) / np.sqrt(2 / (self.N - 1))
        self.assertLess(np.abs(z).max(), 5)
        self.assertTrue(np.all(got["sigma"] > 0))

    def test_only_global_sites_requested(self):
        # Under obs the globals are written once (first batch); the same
        # values as the draw plan's, and as a run that also returns y.
        sites = ["beta", "sigma"]
        outs = []
        for axis, devices, batch in (("obs", 3, 64), ("draw", 2, 7),
                                     ("obs", 1, None)):
            out, _ = self.prior(axis=axis, devices=devices, batch=batch,
                                seed=3, sites=sites)
            g = E.open_group(out)
            self.assertEqual(sorted(g.array_keys()), sites)
            if axis == "obs":
                self.assertEqual(g["beta"].chunks, (self.D, self.K))
            outs.append(E.read_arrays(out))
        out, _ = self.prior(axis="obs", devices=2, batch=100, seed=3,
                            sites=sites + ["y"])
        outs.append(E.read_arrays(out))
        for o in outs[1:]:
            for s in sites:
                self.assertTrue(E.same_bytes(o[s], outs[0][s]), s)

    def test_default_sites_and_seed(self):
        out, _ = self.prior(devices=2, seed=self.SEED)
        self.assertEqual(sorted(E.open_group(out).array_keys()),
                         ["eta", "y"])
        a = E.read_arrays(out)
        out, _ = self.prior(devices=2, seed=self.SEED + 1)
        b = E.read_arrays(out)
        self.assertLess(np.mean(a["y"] == b["y"]), 0.01)
        self.assertLess(np.mean(a["eta"] == b["eta"]), 0.01)

    def test_npz_equals_zarr(self):
        for axis in ("obs", "draw"):
            z, _ = self.prior(axis=axis, devices=3, batch=10, seed=2,
                              sites=self.SITES)
            n, _ = self.prior(".npz", axis=axis, devices=3, batch=10, seed=2,
                              sites=self.SITES)
            za, na = E.read_arrays(z), E.read_arrays(n)
            self.assertEqual(sorted(na), sorted(self.SITES))
            for s in self.SITES:
                self.assertTrue(E.same_bytes(na[s], za[s]), (axis, s))

    def test_latents_follow_their_priors(self):
        out, _ = self.prior(axis="obs", devices=2, batch=16, seed=9,
                            num_samples=3000, sites=["alpha", "beta",
                                                     "sigma"])
        got = E.read_arrays(out)
        self.assertGreater(stats.kstest(got["alpha"], "norm").pvalue, P_MIN)
        for j in range(self.K):
            self.assertGreater(
                stats.kstest(got["beta"][:, j], "norm").pvalue, P_MIN, j)
        self.assertGreater(stats.kstest(got["sigma"], "halfnorm").pvalue,
                           P_MIN)
        # Different sites and elements get independent streams.
        c = np.corrcoef(np.vstack([got["alpha"], got["beta"].T,
                                   got["sigma"]]))
        off = c[~np.eye(c.shape[0], dtype=bool)]
        self.assertLess(np.abs(off).max() * np.sqrt(3000), 5)


class OtherPriors(E.E2ETestCase):

    def test_hierarchical_priors(self):
        rng = np.random.default_rng(32)
        n, D = 40, 3000
        x = self.save("x.npy", rng.normal(size=n).astype(np.float32))
        g = self.save("g.npy", rng.integers(0, 8, n).astype(np.int32))
        sites = ["mu_a", "sigma_a", "a", "b", "sigma"]
        outs = []
        for axis, devices, batch in (("obs", 2, 7), ("draw", 3, 1000)):
            out = self.fresh()
            E.run_cmd("prior-predictive", E.model("hierarchical"),
                      {"x": x, "g": g}, out, num_samples=D, axis=axis,
                      devices=devices, batch=batch, seed=4, sites=sites)
            outs.append(E.read_arrays(out))
        for s in sites:
            self.assertTrue(E.same_bytes(outs[0][s], outs[1][s]), s)
        p = outs[0]
        ks = stats.kstest
        self.assertGreater(ks(p["mu_a"], stats.norm(0, 5).cdf).pvalue, P_MIN)
        self.assertGreater(ks(p["sigma_a"], stats.halfnorm(0, 2).cdf).pvalue,
                           P_MIN)
        self.assertGreater(ks(p["b"], "norm").pvalue, P_MIN)
        self.assertGreater(ks(p["sigma"], "halfcauchy").pvalue, P_MIN)
        # a[j] ~ Normal(mu_a, sigma_a) given the same draw's hyper-latents.
        za = (p["a"] - p["mu_a"][:, None]) / p["sigma_a"][:, None]
        self.assertEqual(p["a"].shape, (D, 8))
        for j in range(8):
            self.assertGreater(ks(za[:, j], "norm").pvalue, P_MIN, j)

    def test_local_latent_prior_runs_under_both_plans(self):
        rng = np.random.default_rng(33)
        n, D = 501, 40
        xv = rng.normal(size=n).astype(np.float32)
        x = self.save("x.npy", xv)
        sites = ["beta", "tau", "sigma", "z", "y"]
        outs = []
        for axis, devices, batch, plan in ((None, 2, None, "draw"),
                                           ("obs", 3, 50, "obs"),
                                           ("draw", 3, 7, "draw"),
                                           ("obs", 2, 1, "obs")):
            out = self.fresh()
            r = E.run_cmd("prior-predictive", E.model("local_latent"),
                          {"x": x}, out, num_samples=D, axis=axis,
                          devices=devices, batch=batch, seed=6, sites=sites)
            self.assertFalse(any("shard-axis" in w for w in r.warnings()), r)
            self.assertEqual(E.open_group(out).attrs["plan"], plan)
            g = E.open_group(out)
            if plan == "obs":
                self.assertEqual(g["z"].chunks, (D, g.attrs["batch_size"]))
            else:
                self.assertEqual(g["z"].chunks, (g.attrs["batch_size"], n))
            outs.append(E.read_arrays(out))
        for o in outs[1:]:
            for s in sites:
                self.assertTrue(E.same_bytes(o[s], outs[0][s]), s)
        p = outs[0]
        zt = p["z"] / p["tau"][:, None]
        self.assertLess(abs(zt.mean()) * np.sqrt(zt.size), 5)
        self.assertLess(abs(zt.var() - 1) / np.sqrt(2 / zt.size), 5)
        e = (p["y"] - p["beta"][:, None] * xv - p["z"]) / p["sigma"][:, None]
        self.assertLess(abs(e.mean()) * np.sqrt(e.size), 5)
        self.assertLess(abs(e.var() - 1) / np.sqrt(2 / e.size), 5)
        # z is per observation, not one value per draw.
        self.assertTrue(np.all(p["z"].std(axis=1) > 0))


if __name__ == "__main__":
    E.main()
