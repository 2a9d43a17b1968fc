"""aimz-run predict --intervene SITE=VALUE|FILE.npy: do(site = value) on
latent and deterministic sites, checked against NumPy's version of the
intervened model, with common random numbers (the same seed gives the
same noise, so a site the intervention does not reach keeps its bytes);
the store records the interventions; bad interventions are one error
line each."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402


class Interventions(E.E2ETestCase):
    N, K, D = 2000, 3, 6

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = np.random.default_rng(5)
        X, _, post = E.linreg_data(rng, cls.N, cls.K, cls.D)
        cls.X, cls.post = X, post
        cls.Xp = cls.save("X.npy", X)
        cls.pp = cls.savez("post.npz", **post)
        cls.x = rng.normal(size=cls.N).astype(np.float32)
        cls.xp = cls.save("x.npy", cls.x)
        cls.chain_post = dict(a=rng.normal(1, 0.2, cls.D).astype(np.float32),
                              sigma=rng.uniform(0.5, 1, cls.D).astype(np.float32))
        cls.cp = cls.savez("chain_post.npz", **cls.chain_post)

    def predict(self, *intervene, model="linreg", data=None, post=None,
                devices=None, check=True, extra=()):
        out = self.fresh()
        extra = list(extra)
        for i in intervene:
            extra += ["--intervene", i]
        r = E.run_cmd("predict", E.model(model), data or {"X": self.Xp}, out,
                      posterior=post or self.pp, batch=300, seed=9,
                      devices=devices, extra=extra, check=check)
        return r, out

    def test_latents_take_the_value_in_every_draw(self):
        _, base = self.predict()
        _, do = self.predict("alpha=2", "beta=0")
        b, d = E.read_arrays(base), E.read_arrays(do)
        # eta = exp(alpha + X @ beta) = exp(2) everywhere.
        np.testing.assert_allclose(d["eta"], np.exp(2.0), rtol=2e-7)
        # The same noise: y moves by exactly the change in its mean.
        mu = E.linreg_mu(self.X, self.post)
        np.testing.assert_allclose(d["y"] - b["y"], 2.0 - mu, atol=2e-5)

    def test_the_posterior_group_holds_the_intervened_value(self):
        # --with-posterior copies the run's latents: an intervened one is
        # its value in every draw (one stored draw, repeated), the others
        # the posterior's draws, chunk by chunk (batch 300 of 6 draws).
        _, do = self.predict("alpha=2", extra=["--layout", "inference-data",
                                                "--with-posterior"])
        g = E.open_group(os.path.join(do, "posterior"))
        self.assertEqual(g["alpha"].shape, (1, self.D))
        np.testing.assert_array_equal(g["alpha"][...], np.float32(2))
        np.testing.assert_array_equal(g["beta"][...][0], self.post["beta"])
        np.testing.assert_array_equal(g["sigma"][...][0], self.post["sigma"])

    def test_a_value_per_element_from_a_file(self):
        beta = np.array([0.5, -1.0, 2.0], np.float32)
        bp = self.save("beta_do.npy", beta)
        _, do = self.predict("beta=" + bp, "alpha=0.25")
        got = E.read_arrays(do)
        want = np.exp(0.25 + self.X.astype(np.float64) @ beta.astype(np.float64))
        np.testing.assert_allclose(got["eta"],
                                   np.broadcast_to(want, (self.D, self.N)),
                                   rtol=1e-5)
        g = E.open_group(do)
        self.assertEqual(dict(g.attrs["interventions"]),
                         {"beta": bp, "alpha": "0.25"})

    def test_a_deterministic_site_reaches_what_depends_on_it(self):
        data = {"x": self.xp}
        _, base = self.predict(model="det_chain", data=data, post=self.cp)
        mu = np.linspace(-3, 3, self.N).astype(np.float32)
        mp = self.save("mu_do.npy", mu)
        _, do = self.predict("mu=" + mp, "scale2=1", model="det_chain",
                             data=data, post=self.cp)
        b, d = E.read_arrays(base), E.read_arrays(do)
        # The recorded sites are the given values.
        self.assertTrue(np.array_equal(d["mu"], np.broadcast_to(mu, (self.D, self.N))))
        self.assertTrue(np.array_equal(d["scale2"], np.ones(self.D, np.float32)))
        # y = mu + scale2 * z with the baseline's z: z = (y - a x) / (2 sigma).
        a, s = self.chain_post["a"], self.chain_post["sigma"]
        z = (b["y"].astype(np.float64) - a[:, None] * self.x.astype(np.float64)) \
            / (2.0 * s[:, None])
        np.testing.assert_allclose(d["y"], mu[None, :] + z, atol=1e-4)

    def test_a_site_the_intervention_does_not_reach_keeps_its_bytes(self):
        _, base = self.predict()
        _, do = self.predict("eta=1")  # y depends on mu, not on eta
        b, d = E.read_arrays(base), E.read_arrays(do)
        self.assertTrue(E.same_bytes(b["y"], d["y"]))
        self.assertTrue(np.array_equal(d["eta"], np.ones_like(b["eta"])))

    def test_identical_bytes_whatever_the_devices(self):
        _, one = self.predict("alpha=1", "sigma=0.5", devices=1)
        _, two = self.predict("alpha=1", "sigma=0.5", devices=2)
        a, b = E.read_arrays(one), E.read_arrays(two)
        for k in a:
            self.assertTrue(E.same_bytes(a[k], b[k]), k)

    def test_an_observation_aligned_latent(self):
        z = np.full(self.N, 0.75, np.float32)
        zp = self.save("z_do.npy", z)
        post = self.savez("ll_post.npz",
                          beta=np.zeros(self.D, np.float32),
                          tau=np.ones(self.D, np.float32),
                          sigma=np.full(self.D, 1e-3, np.float32))
        _, do = self.predict("z=" + zp, model="local_latent",
                             data={"x": self.xp}, post=post)
        y = E.read_arrays(do)["y"]
        np.testing.assert_allclose(y, 0.75, atol=0.01)

    # -- aimz-run effect

    def effect(self, *args, model="linreg", data=None, post=None,
               devices=None, batch=300, check=True):
        out = self.fresh()
        r = E.run_cmd("effect", E.model(model), data or {"X": self.Xp}, out,
                      posterior=post or self.pp, batch=batch, seed=9,
                      devices=devices, extra=list(args), check=check)
        return r, out

    def test_effect_is_the_difference_of_two_predict_runs(self):
        _, eff = self.effect("--intervene", "alpha=1.5",
                             "--baseline-intervene", "alpha=0.5")
        _, do = self.predict("alpha=1.5")
        _, base = self.predict("alpha=0.5")
        e, d, b = E.read_arrays(eff), E.read_arrays(do), E.read_arrays(base)
        self.assertEqual(sorted(e), ["eta", "y"])
        for k in e:
            self.assertTrue(E.same_bytes(e[k], d[k] - b[k]), k)
        # Common random numbers: y's noise cancels, leaving the shift.
        np.testing.assert_allclose(e["y"], 1.0, atol=1e-5)
        g = E.open_group(eff)
        self.assertEqual(g.attrs["computed"], "effect")
        self.assertEqual(dict(g.attrs["interventions"]), {"alpha": "1.5"})
        self.assertEqual(dict(g.attrs["baseline_interventions"]),
                         {"alpha": "0.5"})

    def test_effect_keeps_both_scenarios_on_request(self):
        _, eff = self.effect("--intervene", "alpha=1.5",
                             "--baseline-intervene", "sigma=2",
                             "--keep-scenarios", devices=2, batch=777)
        _, do = self.predict("alpha=1.5")
        _, base = self.predict("sigma=2")
        e, d, b = E.read_arrays(eff), E.read_arrays(do), E.read_arrays(base)
        self.assertEqual(sorted(e), ["eta", "eta_baseline", "eta_scenario",
                                     "y", "y_baseline", "y_scenario"])
        for k in ("y", "eta"):
            self.assertTrue(E.same_bytes(e[k + "_scenario"], d[k]), k)
            self.assertTrue(E.same_bytes(e[k + "_baseline"], b[k]), k)
            self.assertTrue(E.same_bytes(e[k], d[k] - b[k]), k)
        ds = E.open_dataset(eff)
        # The scenarios' dims are named after y's plate, as y's are.
        self.assertEqual(ds["y_scenario"].dims, ("draw", "obs"))

    def test_effect_of_a_site_the_intervention_does_not_reach_is_zero(self):
        _, eff = self.effect("--intervene", "a=2", model="det_chain",
                             data={"x": self.xp}, post=self.cp)
        e = E.read_arrays(eff)
        self.assertTrue(np.all(e["scale2"] == 0))
        np.testing.assert_allclose(
            e["mu"], (2.0 - self.chain_post["a"][:, None]) * self.x[None, :],
            rtol=1e-5, atol=1e-6)

    def test_effect_with_baseline_data(self):
        X0 = np.zeros_like(self.X)
        x0p = self.save("X0.npy", X0)
        _, eff = self.effect("--baseline-data", "X=" + x0p)
        _, do = self.predict()
        _, base = self.predict(data={"X": x0p})
        e, d, b = E.read_arrays(eff), E.read_arrays(do), E.read_arrays(base)
        for k in e:
            self.assertTrue(E.same_bytes(e[k], d[k] - b[k]), k)

    def test_effect_bytes_do_not_depend_on_devices_or_batches(self):
        runs = [self.effect("--intervene", "beta=0", devices=1, batch=300)[1],
                self.effect("--intervene", "beta=0", devices=2, batch=300)[1],
                self.effect("--intervene", "beta=0", devices=2, batch=777)[1]]
        ref = E.read_arrays(runs[0])
        for r in runs[1:]:
            got = E.read_arrays(r)
            for k in ref:
                self.assertTrue(E.same_bytes(ref[k], got[k]), k)

    def test_effect_under_the_draw_plan(self):
        z = self.save("z_one.npy", np.ones(self.N, np.float32))
        post = self.savez("ll_post2.npz",
                          beta=np.full(self.D, 0.5, np.float32),
                          tau=np.ones(self.D, np.float32),
                          sigma=np.ones(self.D, np.float32))
        _, eff = self.effect("--intervene", "z=" + z, model="local_latent",
                             data={"x": self.xp}, post=post)
        self.assertEqual(E.open_group(eff).attrs["plan"], "draw")
        # y = beta x + z + sigma eps; the baseline draws z ~ Normal(0, tau)
        # afresh, so the effect is 1 - z_baseline, mean 1, sd 1.
        y = E.read_arrays(eff)["y"]
        self.assertLess(abs(y.mean() - 1.0), 5 / np.sqrt(y.size))

    def test_common_random_numbers_cut_the_variance(self):
        # The effect of sigma on y: with the same noise, y - y0 =
        # (2 - 1) * eps exactly; with independent seeds its variance adds
        # both runs' noise (4 + 1 = 5 times eps's variance).
        _, eff = self.effect("--intervene", "sigma=2",
                             "--baseline-intervene", "sigma=1")
        crn = E.read_arrays(eff)["y"].astype(np.float64)
        a = E.read_arrays(self.predict("sigma=2")[1])["y"].astype(np.float64)
        out = self.fresh()
        E.run_cmd("predict", E.model("linreg"), {"X": self.Xp}, out,
                  posterior=self.pp, batch=300, seed=10,
                  extra=["--intervene", "sigma=1"])
        b = E.read_arrays(out)["y"].astype(np.float64)
        ratio = (a - b).var() / crn.var()
        self.assertGreater(ratio, 4.0)
        self.assertLess(ratio, 6.0)

    def test_effect_errors(self):
        r, _ = self.effect(check=False)
        self.assert_one_error_line(r, "effect compares two scenarios")
        r, _ = self.effect("--intervene", "alpha=1", "--device", "gpu",
                           check=False)
        self.assert_one_error_line(r, "effect runs on CPU threads only")
        r, _ = self.effect("--baseline-intervene", "nope=1", check=False)
        self.assert_one_error_line(r, "--baseline-intervene nope", "no site")

    # -- errors: one line each, naming what is wrong

    def test_unknown_site(self):
        r, _ = self.predict("gamma=1", check=False)
        self.assert_one_error_line(r, "no site 'gamma'", "alpha", "beta")

    def test_the_output_site(self):
        r, _ = self.predict("y=0", check=False)
        self.assert_one_error_line(r, "'y' is the model's output")

    def test_a_factor(self):
        r, _ = self.predict("pen=0", model="factors", data={"x": self.xp},
                            post=self.savez("f_post.npz",
                                            mu=np.zeros(self.D, np.float32)),
                            check=False)
        self.assert_one_error_line(r, "'pen' is a factor")

    def test_wrong_shape(self):
        bp = self.save("beta_bad.npy", np.zeros(5, np.float32))
        r, _ = self.predict("beta=" + bp, check=False)
        self.assert_one_error_line(r, "has shape (5,)", "'beta' has shape (3,)")

    def test_malformed(self):
        r, _ = self.predict("beta", check=False)
        self.assert_one_error_line(r, "expected SITE=VALUE")
        r, _ = self.predict("beta=abc", check=False)
        self.assert_one_error_line(r, "a number or a .npy file")
        r, _ = self.predict("beta=1", "beta=2", check=False)
        self.assert_one_error_line(r, "names 'beta' twice")

    def test_not_finite(self):
        r, _ = self.predict("sigma=nan", check=False)
        self.assert_one_error_line(r, "must be finite")
        bp = self.save("beta_inf.npy", np.array([0, np.inf, 1], np.float32))
        r, _ = self.predict("beta=" + bp, check=False)
        self.assert_one_error_line(r, "1 NaN or infinite", "must be finite")

    def test_beyond_the_models_precision(self):
        # 1e39 used to become inf in the f32 model: every eta inf, every y
        # NaN, exit 0. Refused like the same value in a posterior.
        r, out = self.predict("alpha=1e39", check=False)
        self.assert_one_error_line(r, "alpha=1e39", "float32's range")
        self.assertFalse(os.path.exists(out))
        # Within float32's range, the same site is taken as given.
        r, _ = self.predict("alpha=3e38", "beta=0", check=False)
        self.assertEqual(r.rc, 0, r)

    def test_scale_outside_its_support_is_reported(self):
        # A scale of 0 or below gives NaN draws: counted and reported per
        # array, an error under --strict, never a silent store of NaN.
        for value in ("0", "-1"):
            with self.subTest(sigma=value):
                r, out = self.predict("sigma=" + value)
                w = [l for l in r.warnings() if "non-finite" in l]
                self.assertEqual(len(w), 1, r)
                self.assertIn("'y' holds %d NaN among its %d values"
                              % (self.N * self.D, self.N * self.D), w[0])
                self.assertIn("from draw 0", w[0])
                self.assertIn("--strict", w[0])
                self.assertTrue(np.isnan(E.read_arrays(out)["y"]).all())
        out = self.fresh()
        r = E.run_cmd("predict", E.model("linreg"), {"X": self.Xp}, out,
                      posterior=self.pp, batch=300, seed=9, check=False,
                      extra=["--intervene", "sigma=0", "--strict"])
        self.assert_one_error_line(r, "non-finite results", "'y'",
                                   "--strict")
        self.assertFalse(os.path.exists(out))
        self.assertFalse(os.path.exists(out + ".partial"))
        # Only the draws outside the support count: the first is named.
        post = dict(self.post)
        post["sigma"] = post["sigma"].copy()
        post["sigma"][4] = 0
        r, out = self.predict(post=self.savez("sigma0.npz", **post))
        w = [l for l in r.warnings() if "non-finite" in l]
        self.assertEqual(len(w), 1, r)
        self.assertIn("'y' holds %d NaN" % self.N, w[0])
        self.assertIn("from draw 4", w[0])
        y = E.read_arrays(out)["y"]
        self.assertTrue(np.isnan(y[4]).all())
        self.assertFalse(np.isnan(np.delete(y, 4, axis=0)).any())

    def test_effect_records_whether_the_baseline_has_inputs(self):
        # baseline_data used to say true when no --baseline-data was given.
        _, eff = self.effect("--intervene", "alpha=1")
        self.assertFalse(E.open_group(eff).attrs["baseline_data"])
        x0p = self.save("X0b.npy", np.zeros_like(self.X))
        _, eff = self.effect("--baseline-data", "X=" + x0p)
        self.assertTrue(E.open_group(eff).attrs["baseline_data"])

    def test_a_per_observation_value_keeps_the_compiled_plan(self):
        # The README used to say such a run switches to the draw plan.
        eta = np.linspace(0.5, 2.0, self.N).astype(np.float32)
        _, do = self.predict("eta=" + self.save("eta_do.npy", eta))
        self.assertEqual(E.open_group(do).attrs["plan"], "obs")
        got = E.read_arrays(do)["eta"]
        self.assertTrue(E.same_bytes(got, np.broadcast_to(eta, got.shape)))

    def test_intervening_on_an_input_points_to_the_data(self):
        r, _ = self.predict("X=1", check=False)
        self.assert_one_error_line(r, "'X' is an input", "--data X=",
                                   "--baseline-data X=")

    def test_effect_with_an_input_the_model_lacks(self):
        # --baseline-data Z=... with no input Z used to warn and give an
        # effect of exactly 0 everywhere, exit 0.
        zp = self.save("Z0.npy", np.zeros(self.N, np.float32))
        r, out = self.effect("--baseline-data", "Z=" + zp, check=False)
        self.assert_one_error_line(r, "--baseline-data Z", "no input 'Z'",
                                   "X")
        self.assertFalse(os.path.exists(out))
        r, out = self.effect("--intervene", "alpha=1", check=False,
                             data={"X": self.Xp, "Z": zp})
        self.assert_one_error_line(r, "--data Z", "no input 'Z'")
        # A baseline of other shapes is the baseline's fault, not the
        # posterior's.
        wide = self.save("X_wide.npy", np.zeros((self.N, self.K + 1),
                                                np.float32))
        r, out = self.effect("--baseline-data", "X=" + wide, check=False)
        self.assert_one_error_line(r, "--baseline-data", "k = %d" % (self.K + 1),
                                   "k = %d" % self.K)
        fewer = self.save("X_few.npy", np.zeros((7, self.K), np.float32))
        r, out = self.effect("--baseline-data", "X=" + fewer, check=False)
        self.assert_one_error_line(r, "--baseline-data", "n = 7")

    def test_wrong_dtype(self):
        bp = self.save("beta_str.npy", np.array(["a", "b", "c"]))
        r, _ = self.predict("beta=" + bp, check=False)
        self.assertNotEqual(r.rc, 0, r)
        self.assertEqual(len([l for l in r.stderr.splitlines() if l.strip()]),
                         1, r)


if __name__ == "__main__":
    E.main()
