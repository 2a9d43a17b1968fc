"""aimz-run predict, end to end.

linreg under both plans, 1-3 devices and batch sizes that do not divide the
observation or draw counts: store layout (shape, dims, chunking, group
attributes) read back with zarr-python and xarray; the same seed gives the
same bytes whatever the partition, another seed different ones; .npz output
equals the Zarr store; y's predictive moments match the analytic ones
(mean alpha + X @ beta, variance sigma^2 per draw) within sampling error and
eta = exp(mu). The other examples (logistic, poisson, hierarchical, mlp) are
checked against NumPy references of their deterministic sites and the
moments of their outputs. Dtype rules (lossless widening accepted) on f64 and
i64 test models.
"""

import os
import sys

import numpy as np
from scipy import special, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402


def chi2_ok(z, p_min=1e-4):
    """Sum of squares of (supposedly) standard normal z-scores is a
    plausible chi-square draw (two-sided)."""
    z = np.asarray(z, np.float64).ravel()
    s = float(np.sum(z * z))
    p = stats.chi2.sf(s, z.size)
    return min(p, 1 - p) > p_min / 2, s, z.size


class LinregPartitions(E.E2ETestCase):
    N, K, D, SEED = 1003, 3, 25, 7

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = np.random.default_rng(11)
        cls.X, _, cls.post = E.linreg_data(rng, cls.N, cls.K, cls.D)
        cls.Xp = cls.save("X.npy", cls.X)
        cls.pp = cls.savez("post.npz", **cls.post)
        cls.so = E.model("linreg")
        out = cls.fresh()
        E.run_cmd("predict", cls.so, {"X": cls.Xp}, out, posterior=cls.pp,
                  axis="obs", devices=1, batch=cls.N, seed=cls.SEED)
        cls.ref = E.read_arrays(out)

    def predict(self, **kw):
        out = self.fresh(kw.pop("suffix", ".zarr"))
        r = E.run_cmd("predict", self.so, {"X": self.Xp}, out,
                      posterior=self.pp, **kw)
        return out, r

    def test_reference_layout(self):
        self.assertEqual(sorted(self.ref), ["eta", "y"])
        self.assertEqual(self.ref["y"].shape, (self.D, self.N))
        self.assertEqual(self.ref["y"].dtype, np.float32)
        self.assertTrue(np.all(np.isfinite(self.ref["y"])))

    def check_run(self, axis, devices, batch):
        out, r = self.predict(axis=axis, devices=devices, batch=batch,
                              seed=self.SEED)
        total = self.N if axis == "obs" else self.D
        g = E.open_group(out)
        b = g.attrs["batch_size"]
        if batch is not None:
            self.assertEqual(b, min(batch, total))
        self.assertTrue(1 <= b <= total)
        chunks = (self.D, b) if axis == "obs" else (b, self.N)
        for site in ("y", "eta"):
            self.assert_store_layout(out, site, (self.D, self.N), chunks,
                                     np.float32, plates=("obs",))
        E.check_group_attrs(self, out, "posterior_predictive", "linreg",
                            axis, self.SEED, b)
        self.assertEqual(g.attrs["num_draws"], self.D)
        self.assertEqual(g.attrs["num_observations"], self.N)
        # One chunk file per batch, nothing else.
        files = sorted(f for f in os.listdir(os.path.join(out, "y"))
                       if not f.startswith("."))
        nb = -(-total // b)
        want = (["0.%d" % i for i in range(nb)] if axis == "obs"
                else ["%d.0" % i for i in range(nb)])
        self.assertEqual(sorted(files), sorted(want))
        # A batch size that is not a multiple of the devices warns.
        # (A batch larger than the total is clamped: no claim either way.)
        warned = any("not a multiple" in w for w in r.warnings())
        if batch is None or batch <= total:
            self.assertEqual(warned, batch is not None and
                             batch % devices != 0, r)
        # Same seed -> same bytes, whatever the partition.
        got = E.read_arrays(out)
        for site in ("y", "eta"):
            self.assertTrue(E.same_bytes(got[site], self.ref[site]),
                            "%s differs (axis %s, devices %d, batch %s)"
                            % (site, axis, devices, batch))

    def test_obs_plan_partitions(self):
        for devices in (1, 2, 3):
            for batch in (None, self.N, 100, 7, 2, 5000):
                with self.subTest(devices=devices, batch=batch):
                    self.check_run("obs", devices, batch)

    def test_draw_plan_partitions(self):
        for devices in (1, 2, 3):
            for batch in (None, self.D, 4, 3, 1):
                with self.subTest(devices=devices, batch=batch):
                    self.check_run("draw", devices, batch)

    def test_auto_is_the_compiled_obs_plan(self):
        out, _ = self.predict(devices=2, batch=300, seed=self.SEED)
        self.assertEqual(E.open_group(out).attrs["plan"], "obs")
        self.assertTrue(E.same_bytes(E.read_arrays(out)["y"], self.ref["y"]))

    def test_seed_changes_samples_not_deterministic_sites(self):
        out, _ = self.predict(devices=2, batch=100, seed=self.SEED + 1)
        other = E.read_arrays(out)
        same = np.mean(other["y"] == self.ref["y"])
        self.assertLess(same, 0.01, "seed does not change y")
        # eta involves no randomness once the latents are given.
        self.assertTrue(E.same_bytes(other["eta"], self.ref["eta"]))
        out, _ = self.predict(devices=2, batch=100)
        self.assertEqual(E.open_group(out).attrs["seed"], 0)
        self.assertLess(np.mean(E.read_arrays(out)["y"] == self.ref["y"]),
                        0.01)

    def test_large_seed(self):
        seed = 2 ** 64 - 1
        out, _ = self.predict(axis="obs", devices=3, batch=64, seed=seed)
        a = E.read_arrays(out)["y"]
        self.assertEqual(E.open_group(out).attrs["seed"], seed)
        out, _ = self.predict(axis="draw", devices=2, batch=5, seed=seed)
        self.assertTrue(E.same_bytes(E.read_arrays(out)["y"], a))
        self.assertTrue(np.all(np.isfinite(a)))

    def test_return_sites_with_latents(self):
        sites = ["y", "alpha", "beta", "sigma", "eta"]
        for axis, devices, batch in (("obs", 3, 250), ("draw", 2, 6)):
            out, r = self.predict(axis=axis, devices=devices, batch=batch,
                                  seed=self.SEED, sites=sites)
            g = E.open_group(out)
            self.assertEqual(sorted(g.array_keys()), sorted(sites))
            b = g.attrs["batch_size"]
            if axis == "obs":
                self.assert_store_layout(out, "alpha", (self.D,), (self.D,),
                                         np.float32)
                self.assert_store_layout(out, "beta", (self.D, self.K),
                                         (self.D, self.K), np.float32)
            else:
                self.assert_store_layout(out, "alpha", (self.D,), (b,),
                                         np.float32)
                self.assert_store_layout(out, "beta", (self.D, self.K),
                                         (b, self.K), np.float32)
            got = E.read_arrays(out)
            for s in ("alpha", "beta", "sigma"):
                self.assertTrue(E.same_bytes(got[s], self.post[s]), s)
            for s in ("y", "eta"):
                self.assertTrue(E.same_bytes(got[s], self.ref[s]), s)

    def test_each_site_alone_equals_the_full_run(self):
        # Work only unrequested sites need is skipped (SiteDemand): y and
        # eta share mu; asking for one must not change the other's bytes.
        for sites, axis, batch in ((["y"], "obs", 250), (["eta"], "obs", 250),
                                   (["eta"], "draw", 6),
                                   (["sigma", "y"], "draw", 6)):
            out, r = self.predict(axis=axis, devices=2, batch=batch,
                                  seed=self.SEED, sites=sites)
            got = E.read_arrays(out)
            self.assertEqual(sorted(got), sorted(sites))
            for s in sites:
                want = self.post[s] if s == "sigma" else self.ref[s]
                self.assertTrue(E.same_bytes(got[s], want), (sites, s))

    def test_npz_output_equals_zarr(self):
        sites = ["y", "eta", "beta"]
        for axis, devices, batch in (("obs", 2, 100), ("draw", 3, 4)):
            with self.subTest(axis=axis):
                z, _ = self.predict(axis=axis, devices=devices, batch=batch,
                                    seed=self.SEED, sites=sites)
                n, r = self.predict(axis=axis, devices=devices, batch=batch,
                                    seed=self.SEED, sites=sites,
                                    suffix=".npz")
                self.assertNotIn("open it with", r.stdout)
                za, na = E.read_arrays(z), E.read_arrays(n)
                self.assertEqual(sorted(na), sorted(sites))
                for s in sites:
                    self.assertTrue(E.same_bytes(na[s], za[s]), s)
                self.assertTrue(E.same_bytes(na["y"], self.ref["y"]))

    def test_codecs_change_bytes_on_disk_not_values(self):
        for codec, want in (("none", None),
                            ("zstd:3", {"id": "zstd", "level": 3}),
                            ("blosc:lz4:5:bitshuffle",
                             {"id": "blosc", "cname": "lz4", "clevel": 5,
                              "shuffle": 2}),
                            ("blosc:zstd:1:noshuffle",
                             {"id": "blosc", "cname": "zstd", "clevel": 1,
                              "shuffle": 0})):
            with self.subTest(codec=codec):
                out, _ = self.predict(axis="obs", devices=2, batch=300,
                                      seed=self.SEED,
                                      extra=["--codec", codec])
                a = E.open_group(out)["y"]
                cfg = a.compressor.get_config() if a.compressor else None
                if want is None:
                    self.assertIsNone(cfg)
                else:
                    for k, v in want.items():
                        self.assertEqual(cfg[k], v, (codec, cfg))
                got = E.read_arrays(out)
                for s in ("y", "eta"):
                    self.assertTrue(E.same_bytes(got[s], self.ref[s]), s)
        out, _ = self.predict(devices=2, seed=self.SEED,
                              extra=["--compression-level", "7"])
        self.assertEqual(E.open_group(out)["y"].compressor.get_config()
                         ["clevel"], 7)
        self.assertTrue(E.same_bytes(E.read_arrays(out)["y"], self.ref["y"]))

    def test_compressed_npz_inputs(self):
        # np.savez_compressed posteriors and data archives read the same.
        pc = self.savez_compressed("postc.npz", **self.post)
        dc = self.savez_compressed("datac.npz", X=self.X)
        out = self.fresh()
        E.run_cmd("predict", self.so, [dc], out, posterior=pc, devices=2,
                  batch=500, seed=self.SEED)
        got = E.read_arrays(out)
        for s in ("y", "eta"):
            self.assertTrue(E.same_bytes(got[s], self.ref[s]), s)

    def test_float64_posterior_is_converted(self):
        p64 = self.savez("post64.npz", **{k: v.astype(np.float64)
                                          for k, v in self.post.items()})
        out = self.fresh()
        E.run_cmd("predict", self.so, {"X": self.Xp}, out, posterior=p64,
                  devices=2, batch=500, seed=self.SEED)
        self.assertTrue(E.same_bytes(E.read_arrays(out)["y"],
                                     self.ref["y"]))


class EdgeAndDefaultSizes(E.E2ETestCase):
    """Tiny runs (more devices than work) and a larger one whose default
    batch (an 8 MiB chunk budget) gives several batches."""

    def test_tiny_runs(self):
        rng = np.random.default_rng(12)
        so = E.model("linreg")
        for n, D in ((1, 1), (2, 1), (1, 5), (2, 3)):
            X, _, post = E.linreg_data(rng, n, 2, D)
            data = {"X": self.save("X%d.npy" % n, X)}
            pp = self.savez("p%d_%d.npz" % (n, D), **post)
            outs = []
            for axis, devices, batch in (("obs", 1, None), ("obs", 3, 1),
                                         ("draw", 3, 1), ("draw", 2, None)):
                with self.subTest(n=n, draws=D, axis=axis, devices=devices):
                    out = self.fresh()
                    E.run_cmd("predict", so, data, out, posterior=pp,
                              axis=axis, devices=devices, batch=batch, seed=2)
                    g = E.open_group(out)
                    self.assertEqual(g["y"].shape, (D, n))
                    outs.append(E.read_arrays(out))
            for o in outs[1:]:
                self.assertTrue(E.same_bytes(o["y"], outs[0]["y"]))
            np.testing.assert_allclose(outs[0]["eta"],
                                       np.exp(E.linreg_mu(X, post)),
                                       rtol=1e-5)
            self.assertTrue(np.all(np.isfinite(outs[0]["y"])))

    def test_zero_extent_dimension(self):
        # k = 0: X @ beta is an empty dot product, eta = exp(alpha).
        rng = np.random.default_rng(14)
        X, _, post = E.linreg_data(rng, 300, 0, 6)
        data = {"X": self.save("X0.npy", X)}
        pp = self.savez("post0.npz", **post)
        out = self.fresh()
        E.run_cmd("predict", E.model("linreg"), data, out, posterior=pp)
        np.testing.assert_allclose(
            E.read_arrays(out)["eta"],
            np.exp(np.repeat(post["alpha"][:, None], 300, 1)), rtol=1e-6)

    def test_zero_extent_site_to_zarr(self):
        rng = np.random.default_rng(15)
        X, _, post = E.linreg_data(rng, 300, 0, 6)
        data = {"X": self.save("X0.npy", X)}
        pp = self.savez("post0.npz", **post)
        npz = self.fresh(".npz")
        E.run_cmd("predict", E.model("linreg"), data, npz, posterior=pp,
                  sites=["beta", "eta"])
        self.assertEqual(E.read_arrays(npz)["beta"].shape, (6, 0))
        out = self.fresh()
        E.run_cmd("predict", E.model("linreg"), data, out, posterior=pp,
                  sites=["beta", "eta"])
        self.assertEqual(E.open_group(out)["beta"].shape, (6, 0))

    def test_edge_chunk_padding_is_fill(self):
        # The last, short batch: its chunk's padding holds the fill value
        # (NaN for floats, 0 for integers), not stale data of reused
        # buffers. Decoded by hand with numcodecs, as readers never show it.
        import numcodecs
        rng = np.random.default_rng(16)
        n, D = 1003, 10
        X = rng.normal(size=(n, 3)).astype(np.float32)
        post = dict(intercept=rng.normal(size=D).astype(np.float32),
                    coef=rng.normal(size=(D, 3)).astype(np.float32))
        data = {"X": self.save("X.npy", X)}
        pp = self.savez("lpost.npz", **post)
        for axis, batch in (("obs", 300), ("draw", 4)):
            out = self.fresh()
            E.run_cmd("predict", E.model("logistic"), data, out,
                      posterior=pp, axis=axis, batch=batch, devices=2)
            g = E.open_group(out)
            for site, fill in (("y", 0), ("p", np.nan)):
                a = g[site]
                nb = -(-(n if axis == "obs" else D) // batch)
                key = "0.%d" % (nb - 1) if axis == "obs" else "%d.0" % (nb - 1)
                with open(os.path.join(out, site, key), "rb") as f:
                    raw = numcodecs.get_codec(a.compressor.get_config()) \
                        .decode(f.read())
                c = np.frombuffer(raw, a.dtype).reshape(a.chunks)
                if axis == "obs":
                    valid = n - (nb - 1) * batch
                    pad = c[:, valid:]
                    self.assertTrue(E.same_bytes(
                        c[:, :valid], a[:, (nb - 1) * batch:]))
                else:
                    valid = D - (nb - 1) * batch
                    pad = c[valid:]
                    self.assertTrue(E.same_bytes(
                        c[:valid], a[(nb - 1) * batch:]))
                self.assertGreater(pad.size, 0)
                if np.isnan(fill):
                    self.assertTrue(np.all(np.isnan(pad)), (axis, site))
                else:
                    self.assertTrue(np.all(pad == fill), (axis, site))

    def test_default_batch_gives_bounded_chunks(self):
        rng = np.random.default_rng(13)
        n, k, D = 300_000, 2, 20
        X, _, post = E.linreg_data(rng, n, k, D)
        data = {"X": self.save("X.npy", X)}
        pp = self.savez("post.npz", **post)
        outs = []
        for axis in ("obs", "draw"):
            out = self.fresh()
            E.run_cmd("predict", E.model("linreg"), data, out, posterior=pp,
                      axis=axis, devices=2, seed=1)
            g = E.open_group(out)
            b = g.attrs["batch_size"]
            total = n if axis == "obs" else D
            self.assertLess(b, total, "several batches")
            for s in ("y", "eta"):
                a = g[s]
                self.assertEqual(a.chunks[1 if axis == "obs" else 0], b)
                self.assertLessEqual(int(np.prod(a.chunks)) * 4, 8 << 20)
                self.assertGreaterEqual(int(np.prod(a.chunks)) * 4, 1 << 20)
            outs.append(E.read_arrays(out))
        for s in ("y", "eta"):
            self.assertTrue(E.same_bytes(outs[0][s], outs[1][s]), s)
        r = (outs[0]["y"] - E.linreg_mu(X, post)) / \
            post["sigma"].astype(np.float64)[:, None]
        self.assertLess(abs(r.mean()) * np.sqrt(r.size), 5)
        self.assertLess(abs(r.var() - 1) / np.sqrt(2 / r.size), 5)


class LinregMoments(E.E2ETestCase):
    """y ~ Normal(alpha + X @ beta, sigma) per draw; eta = exp(mu)."""

    N, K, D = 5000, 4, 50

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = np.random.default_rng(5)
        cls.X, _, cls.post = E.linreg_data(rng, cls.N, cls.K, cls.D)
        out = cls.fresh()
        E.run_cmd("predict", E.model("linreg"),
                  {"X": cls.save("X.npy", cls.X)}, out,
                  posterior=cls.savez("post.npz", **cls.post), devices=2,
                  batch=1111, seed=3)
        cls.out = E.read_arrays(out)
        cls.mu = E.linreg_mu(cls.X, cls.post)
        cls.sigma = cls.post["sigma"].astype(np.float64)[:, None]

    def test_eta_is_exp_mu(self):
        np.testing.assert_allclose(self.out["eta"], np.exp(self.mu),
                                   rtol=1e-5)

    def test_standardised_residuals_are_standard_normal(self):
        r = (self.out["y"].astype(np.float64) - self.mu) / self.sigma
        n = r.size
        self.assertLess(abs(r.mean()), 5 / np.sqrt(n))
        self.assertLess(abs(r.var() - 1), 5 * np.sqrt(2 / n))
        self.assertGreater(stats.kstest(r.ravel(), "norm").pvalue, 1e-4)

    def test_per_draw_mean_and_variance(self):
        e = self.out["y"].astype(np.float64) - self.mu
        # Mean of draw d over n observations: Normal(0, sigma_d^2 / n).
        z = e.mean(axis=1) / (self.sigma[:, 0] / np.sqrt(self.N))
        ok, s, df = chi2_ok(z)
        self.assertTrue(ok, "per-draw means: chi2 %g on %d" % (s, df))
        # Variance of draw d: sigma_d^2, sample variance has sd
        # sigma_d^2 sqrt(2/(n-1)).
        v = e.var(axis=1, ddof=1) / self.sigma[:, 0] ** 2
        z = (v - 1) / np.sqrt(2 / (self.N - 1))
        ok, s, df = chi2_ok(z)
        self.assertTrue(ok, "per-draw variances: chi2 %g on %d" % (s, df))

    def test_per_observation_mean_over_draws(self):
        # E[mean_d y_di] = mean_d mu_di, Var = sum_d sigma_d^2 / D^2.
        m = self.out["y"].astype(np.float64).mean(axis=0)
        se = np.sqrt((self.sigma[:, 0] ** 2).sum()) / self.D
        z = (m - self.mu.mean(axis=0)) / se
        ok, s, df = chi2_ok(z)
        self.assertTrue(ok, "per-observation means: chi2 %g on %d" % (s, df))

    def test_noise_independent_across_draws_and_observations(self):
        r = (self.out["y"].astype(np.float64) - self.mu) / self.sigma
        # Neighbouring draws (same observations) and neighbouring
        # observations (same draws) must not share noise.
        c_draw = np.mean(r[1:] * r[:-1], axis=1) * np.sqrt(self.N)
        c_obs = np.mean(r[:, 1:] * r[:, :-1], axis=0) * np.sqrt(self.D)
        self.assertLess(np.max(np.abs(c_draw)), 5)
        self.assertLess(abs(c_obs.mean()) * np.sqrt(c_obs.size), 5)


class OtherExamples(E.E2ETestCase):
    """Deterministic sites against NumPy, outputs' moments, partitions."""

    def partitions_identical(self, so, data, post, runs, seed=1,
                             sites=None):
        outs = []
        for axis, devices, batch in runs:
            out = self.fresh()
            E.run_cmd("predict", so, data, out, posterior=post, axis=axis,
                      devices=devices, batch=batch, seed=seed, sites=sites)
            self.assertEqual(E.open_group(out).attrs["plan"], axis)
            outs.append(E.read_arrays(out))
        # xarray reads the same values and dtypes (integer outputs are not
        # masked into floats by a fill value).
        ds = E.open_dataset(out)
        for s_, a in outs[-1].items():
            self.assertEqual(ds[s_].dtype, a.dtype, s_)
            self.assertTrue(E.same_bytes(ds[s_].values, a), s_)
        for o in outs[1:]:
            self.assertEqual(sorted(o), sorted(outs[0]))
            for s in o:
                self.assertTrue(E.same_bytes(o[s], outs[0][s]), s)
        return outs[0]

    def test_logistic(self):
        rng = np.random.default_rng(2)
        n, k, D = 2001, 3, 20
        X = rng.normal(size=(n, k)).astype(np.float32)
        post = dict(intercept=rng.normal(0, 0.5, D).astype(np.float32),
                    coef=rng.normal(0, 1, (D, k)).astype(np.float32))
        data = {"X": self.save("lX.npy", X)}
        pp = self.savez("lpost.npz", **post)
        out = self.partitions_identical(
            E.model("logistic"), data, pp,
            [("obs", 1, None), ("obs", 2, 333), ("obs", 3, 1000),
             ("draw", 3, 6), ("draw", 2, 1)])
        logit = post["intercept"].astype(np.float64)[:, None] + \
            post["coef"].astype(np.float64) @ X.astype(np.float64).T
        p = special.expit(logit)
        self.assertEqual(out["p"].dtype, np.float32)
        np.testing.assert_allclose(out["p"], p, rtol=1e-5, atol=1e-7)
        y = out["y"]
        self.assertEqual(y.dtype, np.int32)
        self.assertTrue(set(np.unique(y)) <= {0, 1})
        z = (y - p).sum() / np.sqrt((p * (1 - p)).sum())
        self.assertLess(abs(z), 5)
        zd = (y - p).sum(axis=1) / np.sqrt((p * (1 - p)).sum(axis=1))
        self.assertTrue(chi2_ok(zd)[0], zd)

    def test_poisson(self):
        rng = np.random.default_rng(3)
        n, k, D = 3001, 2, 20
        X = rng.normal(0, 0.5, size=(n, k)).astype(np.float32)
        exposure = rng.uniform(0.2, 3.0, n).astype(np.float32)
        # Rates from ~0.1 to ~40: both the inversion and the PTRS sampler.
        post = dict(beta0=rng.normal(1.5, 0.5, D).astype(np.float32),
                    beta=rng.normal(0, 0.5, (D, k)).astype(np.float32))
        data = {"X": self.save("pX.npy", X),
                "exposure": self.save("pe.npy", exposure)}
        pp = self.savez("ppost.npz", **post)
        out = self.partitions_identical(
            E.model("poisson"), data, pp,
            [("obs", 2, None), ("obs", 3, 500), ("draw", 1, 20),
             ("draw", 2, 3)])
        rate = exposure.astype(np.float64) * np.exp(
            post["beta0"].astype(np.float64)[:, None] +
            post["beta"].astype(np.float64) @ X.astype(np.float64).T)
        self.assertGreater(rate.max(), 10)
        self.assertLess(rate.min(), 10)
        np.testing.assert_allclose(out["rate"], rate, rtol=1e-5)
        y = out["y"]
        self.assertEqual(y.dtype, np.int32)
        self.assertGreaterEqual(y.min(), 0)
        for sel in (rate < 10, rate >= 10):
            d = (y - rate)[sel]
            self.assertLess(abs(d.sum() / np.sqrt(rate[sel].sum())), 5)
            # E[(y - rate)^2] = rate, Var[(y - rate)^2] = rate + 2 rate^2.
            v = ((y - rate) ** 2 - rate)[sel]
            sd = np.sqrt((rate + 2 * rate ** 2)[sel].sum())
            self.assertLess(abs(v.sum() / sd), 5)
        # One .npz holding both inputs gives the same bytes.
        both = self.savez("pdata.npz", X=X, exposure=exposure)
        o = self.fresh()
        E.run_cmd("predict", E.model("poisson"), [both], o, posterior=pp,
                  axis="obs", devices=2, batch=999, seed=1)
        got = E.read_arrays(o)
        self.assertTrue(E.same_bytes(got["y"], y))

    def test_hierarchical(self):
        rng = np.random.default_rng(4)
        n, D, G = 1501, 20, 8
        x = rng.normal(size=n).astype(np.float32)
        g = rng.integers(0, G, n).astype(np.int32)
        post = dict(mu_a=rng.normal(0, 1, D).astype(np.float32),
                    sigma_a=rng.uniform(0.5, 2, D).astype(np.float32),
                    a=rng.normal(0, 2, (D, G)).astype(np.float32),
                    b=rng.normal(0, 1, D).astype(np.float32),
                    sigma=rng.uniform(0.3, 1.5, D).astype(np.float32))
        data = {"x": self.save("hx.npy", x), "g": self.save("hg.npy", g)}
        pp = self.savez("hpost.npz", **post)
        out = self.partitions_identical(
            E.model("hierarchical"), data, pp,
            [("obs", 1, None), ("obs", 3, 100), ("draw", 2, 7)],
            sites=["y", "a"])
        self.assertTrue(E.same_bytes(out["a"], post["a"]))
        mean = post["a"].astype(np.float64)[:, g] + \
            post["b"].astype(np.float64)[:, None] * x
        r = (out["y"] - mean) / post["sigma"].astype(np.float64)[:, None]
        self.assertLess(abs(r.mean()) * np.sqrt(r.size), 5)
        self.assertLess(abs(r.var() - 1) / np.sqrt(2 / r.size), 5)
        # Per group: the gather picks the right effect.
        for j in range(G):
            rj = r[:, g == j]
            self.assertLess(abs(rj.mean()) * np.sqrt(rj.size), 5, j)

    def test_mlp(self):
        rng = np.random.default_rng(6)
        n, d, H, D = 301, 100, 128, 4
        X = rng.normal(size=(n, d)).astype(np.float32)
        s = 0.1

        def w(*shape):
            return (rng.normal(size=(D,) + shape) * s).astype(np.float32)
        post = dict(w1=w(d, H), b1=w(H), w2=w(H, H), b2=w(H), w3=w(H, H),
                    b3=w(H), w4=(w(H) * 30).astype(np.float32), b4=w())
        data = {"X": self.save("mX.npy", X)}
        pp = self.savez("mpost.npz", **post)
        out = self.partitions_identical(
            E.model("mlp"), data, pp,
            [("obs", 2, None), ("obs", 3, 77), ("draw", 3, 1)])
        P = {k: v.astype(np.float64) for k, v in post.items()}
        X64 = X.astype(np.float64)
        relu = lambda v: np.maximum(v, 0)  # noqa: E731
        logit = np.empty((D, n))
        for i in range(D):
            h = relu(X64 @ P["w1"][i] + P["b1"][i])
            h = relu(h @ P["w2"][i] + P["b2"][i])
            h = relu(h @ P["w3"][i] + P["b3"][i])
            logit[i] = h @ P["w4"][i] + P["b4"][i]
        p = special.expit(logit)
        self.assertGreater(p.std(), 0.1, "test set-up: non-trivial p")
        y = out["y"]
        self.assertEqual(y.dtype, np.int32)
        self.assertTrue(set(np.unique(y)) <= {0, 1})
        z = (y - p).sum() / np.sqrt((p * (1 - p)).sum())
        self.assertLess(abs(z), 5)
        # Every layer, value by value: the log-likelihood of one draw's
        # outcomes under every draw is log sigmoid(+-logit), which only the
        # right network gives (a wrong layer that keeps the mean passes the
        # z test above).
        yobs = y[0]
        ll_out = self.fresh()
        E.run_cmd("log-likelihood", E.model("mlp"),
                  {"X": data["X"], "y": self.save("my.npy", yobs)}, ll_out,
                  posterior=pp)
        ll = E.read_arrays(ll_out)["y"]
        ref = -np.logaddexp(0.0, np.where(yobs[None, :] == 1, -logit, logit))
        np.testing.assert_allclose(ll, ref, rtol=1e-4, atol=1e-5)


class DtypeWidening(E.E2ETestCase):
    """Lossless widening of inputs is accepted and changes nothing."""

    def test_float32_X_for_f64_model(self):
        rng = np.random.default_rng(8)
        X, _, post = E.linreg_data(rng, 700, 3, 10)
        so = E.model("linreg64")
        pp = self.savez("post.npz", **post)  # float32 -> f64 latents
        outs = []
        for name, arr in (("X32.npy", X), ("X64.npy", X.astype(np.float64))):
            out = self.fresh()
            r = E.run_cmd("predict", so, {"X": self.save(name, arr)}, out,
                          posterior=pp, devices=2, batch=100, seed=4)
            self.assertEqual(r.warnings(), [])
            outs.append(E.read_arrays(out))
        for s in ("y", "eta"):
            self.assertEqual(outs[0][s].dtype, np.float64)
            self.assertTrue(E.same_bytes(outs[0][s], outs[1][s]), s)
        np.testing.assert_allclose(outs[0]["eta"],
                                   np.exp(E.linreg_mu(X, post)), rtol=1e-12)

    def test_int32_index_for_i64_model_and_int16_for_i32(self):
        rng = np.random.default_rng(9)
        n, D = 500, 10
        x = rng.normal(size=n).astype(np.float32)
        g = rng.integers(0, 8, n)
        post = self.savez("gpost.npz",
                          a=rng.normal(size=(D, 8)).astype(np.float32),
                          sigma=np.ones(D, np.float32))
        outs = []
        for dt in (np.int64, np.int32, np.int16, np.uint8):
            out = self.fresh()
            E.run_cmd("predict", E.model("gather64"),
                      {"x": self.save("x.npy", x),
                       "g": self.save("g_%s.npy" % np.dtype(dt).name,
                                      g.astype(dt))},
                      out, posterior=post, seed=2, devices=2)
            outs.append(E.read_arrays(out)["y"])
        for o in outs[1:]:
            self.assertTrue(E.same_bytes(o, outs[0]))
        # int16 into the i32 example.
        hp = self.savez("hpost.npz", mu_a=np.zeros(D, np.float32),
                        sigma_a=np.ones(D, np.float32),
                        a=rng.normal(size=(D, 8)).astype(np.float32),
                        b=np.ones(D, np.float32),
                        sigma=np.ones(D, np.float32))
        res = []
        for dt in (np.int32, np.int16):
            out = self.fresh()
            E.run_cmd("predict", E.model("hierarchical"),
                      {"x": self.path("x.npy"),
                       "g": self.save("hg_%s.npy" % np.dtype(dt).name,
                                      g.astype(dt))},
                      out, posterior=hp, seed=2, devices=3, batch=50)
            res.append(E.read_arrays(out)["y"])
        self.assertTrue(E.same_bytes(res[0], res[1]))


class RankThreeSites(E.E2ETestCase):
    """A (draw, n, k) site whose last chunk along n is partial (more rows
    in the edge chunk than draws), under both plans: every value equals
    NumPy's X * s."""

    def test_edge_chunks_of_a_rank_three_site(self):
        rng = np.random.default_rng(33)
        n, k, draws = 11, 3, 2
        X = rng.normal(size=(n, k)).astype(np.float32)
        s = rng.uniform(0.5, 2.0, draws).astype(np.float32)
        data = {"X": self.save("X3.npy", X)}
        post = self.savez("post3.npz", s=s)
        want = X[None, :, :] * s[:, None, None]
        for axis, batch in [("obs", 4), ("obs", 5), ("draw", 1)]:
            with self.subTest(axis=axis, batch=batch):
                out = self.fresh()
                E.run_cmd("predict", E.model("rank3"), data, out,
                          posterior=post, axis=axis, batch=batch,
                          sites=["z"], devices=2)
                z = E.read_arrays(out)["z"]
                self.assertEqual(z.shape, (draws, n, k))
                np.testing.assert_array_equal(z, want)

    def test_rank_three_values_inside_the_kernel(self):
        rng = np.random.default_rng(34)
        n, a, b, draws = 37, 3, 4, 3
        X = rng.normal(0, 0.5, (n, a, b)).astype(np.float32)
        s = rng.uniform(0.5, 1.5, draws).astype(np.float32)
        data = {"X": self.save("X3o.npy", X)}
        post = self.savez("post3o.npz", s=s)
        want = np.expm1(X[None].astype(np.float64) * s[:, None, None, None])
        for axis, batch in [("obs", 8), ("draw", 2)]:
            with self.subTest(axis=axis, batch=batch):
                out = self.fresh()
                E.run_cmd("predict", E.model("rank3_ops"), data, out,
                          posterior=post, axis=axis, batch=batch,
                          sites=["d", "y"], devices=2)
                got = E.read_arrays(out)
                np.testing.assert_allclose(got["d"], want, rtol=1e-5,
                                           atol=1e-6)
                r = got["y"] - want.sum(axis=(2, 3))
                self.assertLess(abs(r.mean()) * np.sqrt(r.size), 5)


if __name__ == "__main__":
    E.main()
