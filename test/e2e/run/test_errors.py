"""Bad inputs: each gives exactly one clear line on stderr (naming what is
wrong) and a non-zero exit, and leaves no output behind. Recoverable
oddities (unknown posterior names, the output site in the posterior, extra
--data) warn and run, with the same result as without them."""

import glob
import os
import signal
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402


class BadInputs(E.E2ETestCase):
    N, K, D = 1000, 3, 20

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = np.random.default_rng(51)
        X, y, post = E.linreg_data(rng, cls.N, cls.K, cls.D)
        cls.X, cls.y, cls.post = X, y, post
        cls.Xp = cls.save("X.npy", X)
        cls.yp = cls.save("y.npy", y)
        cls.pp = cls.savez("post.npz", **post)
        cls.linreg = E.model("linreg")

    def fails(self, command, model, data, *fragments, posterior=None,
              **kw):
        """Runs a command that must fail; checks the error line and that
        no output was left."""
        out = self.fresh()
        r = E.run_cmd(command, model, data, out, posterior=posterior,
                      check=False, **kw)
        self.assert_one_error_line(r, *fragments)
        self.assertFalse(os.path.exists(out), "output left behind: %r" % r)
        self.assertFalse(os.path.exists(out + ".partial"), r)
        return r

    def predict_fails(self, data, *fragments, posterior=None, **kw):
        return self.fails("predict", self.linreg, data, *fragments,
                          posterior=posterior or self.pp, **kw)

    # -- inputs

    def test_missing_input(self):
        self.predict_fails({}, "input 'X' is missing", "--data X=")

    def test_missing_input_file(self):
        self.predict_fails({"X": self.path("nope.npy")}, "nope.npy",
                           "no such file")

    def test_input_wrong_rank(self):
        p = self.save("X1d.npy", self.X[:, 0])
        self.predict_fails({"X": p}, "input 'X'", "(1000,)", "f32[n, k]")

    def test_observed_wrong_shape(self):
        p = self.save("y2d.npy", np.zeros((self.N, 2), np.float32))
        self.fails("log-likelihood", self.linreg,
                   {"X": self.Xp, "y": p}, "'y'", "(1000, 2)", "f32[n]",
                   posterior=self.pp)

    def test_fixed_dimension_mismatch(self):
        # hierarchical's a is [G] with const G = 8: a posterior of 7 groups.
        rng = np.random.default_rng(1)
        x = self.save("hx.npy", rng.normal(size=self.N).astype(np.float32))
        g = self.save("hg.npy", rng.integers(0, 8, self.N).astype(np.int32))
        post = self.savez("hpost7.npz", **self.hier_post(rng, groups=7))
        self.fails("predict", E.model("hierarchical"), {"x": x, "g": g},
                   "posterior 'a'", "(20, 7)", "(20, 8)", posterior=post)

    def test_inconsistent_observation_counts(self):
        post = self.savez("ppost.npz",
                          beta0=np.zeros(self.D, np.float32),
                          beta=np.zeros((self.D, self.K), np.float32))
        e = self.save("e999.npy", np.ones(self.N - 1, np.float32))
        self.fails("predict", E.model("poisson"),
                   {"X": self.Xp, "exposure": e}, "'n'", "1000", "999",
                   "'X'", "'exposure'", posterior=post)
        # The observed output counts too.
        y = self.save("y999.npy", self.y[:-1])
        self.fails("log-likelihood", self.linreg, {"X": self.Xp, "y": y},
                   "1000", "999", "'y'", posterior=self.pp)

    def test_lossy_dtypes_are_refused(self):
        p = self.save("X64.npy", self.X.astype(np.float64))
        self.predict_fails({"X": p}, "input 'X'", "float64", "float32")
        y = self.save("y64.npy", self.y.astype(np.float64))
        self.fails("log-likelihood", self.linreg, {"X": self.Xp, "y": y},
                   "'y'", "float64", "float32", posterior=self.pp)
        rng = np.random.default_rng(3)
        x = self.save("hx.npy", rng.normal(size=self.N).astype(np.float32))
        post = self.savez("hpost.npz", **self.hier_post(rng))
        gi = rng.integers(0, 8, self.N)
        for dt in (np.int64, np.uint32, np.float32, np.float64):
            with self.subTest(dtype=np.dtype(dt).name):
                g = self.save("g_%s.npy" % np.dtype(dt).name, gi.astype(dt))
                self.fails("predict", E.model("hierarchical"),
                           {"x": x, "g": g}, "input 'g'",
                           np.dtype(dt).name, "int32", posterior=post)
        # An int64 count into logistic's i32 outcome.
        lp = self.savez("lpost.npz",
                        intercept=np.zeros(self.D, np.float32),
                        coef=np.zeros((self.D, self.K), np.float32))
        yl = self.save("yl64.npy", rng.integers(0, 2, self.N))
        self.fails("log-likelihood", E.model("logistic"),
                   {"X": self.Xp, "y": yl}, "'y'", "int64", "int32",
                   posterior=lp)

    def test_truncated_npy(self):
        with open(self.Xp, "rb") as f:
            blob = f.read()
        p = self.path("trunc.npy")
        with open(p, "wb") as f:
            f.write(blob[:len(blob) // 2])
        self.predict_fails({"X": p}, "trunc.npy", "truncated")
        p = self.path("header_only.npy")
        with open(p, "wb") as f:
            f.write(blob[:40])
        self.predict_fails({"X": p}, "header_only.npy")

    def test_garbage_npy(self):
        p = self.path("garbage.npy")
        with open(p, "wb") as f:
            f.write(b"this is not numpy\n" * 50)
        self.predict_fails({"X": p}, "garbage.npy", "not a .npy")

    def test_unsupported_npy_layouts(self):
        p = self.save("XF.npy", np.asfortranarray(self.X))
        self.predict_fails({"X": p}, "XF.npy", "Fortran")
        p = self.save("XBE.npy", self.X.astype(">f4"))
        self.predict_fails({"X": p}, "XBE.npy", "big-endian")

    def test_zero_observations(self):
        p = self.save("X0.npy", np.zeros((0, self.K), np.float32))
        self.predict_fails({"X": p}, "no observations")

    def test_data_argument_without_name(self):
        self.predict_fails([self.Xp], "--data", "NAME=FILE")

    # -- models

    def test_garbage_file_as_model(self):
        p = self.path("garbage.so")
        with open(p, "wb") as f:
            f.write(os.urandom(4096))
        self.fails("predict", p, {"X": self.Xp}, "garbage.so",
                   "not a loadable shared library", posterior=self.pp)

    def test_model_source_instead_of_so(self):
        src = os.path.join(E.EXAMPLES, "linreg.aimz")
        self.fails("predict", src, {"X": self.Xp}, "linreg.aimz",
                   "not a loadable shared library", "aimzc",
                   posterior=self.pp)

    def test_empty_file_as_model(self):
        p = self.path("empty.so")
        open(p, "wb").close()
        self.fails("predict", p, {"X": self.Xp}, "empty.so",
                   posterior=self.pp)

    def test_shared_library_that_is_not_a_model(self):
        libs = sorted(glob.glob("/usr/lib/*/libz.so.1") +
                      glob.glob("/lib/*/libz.so.1") +
                      glob.glob("/usr/lib/*/libm.so.6"))
        if not libs:
            self.skipTest("no system libz/libm to load")
        self.fails("predict", libs[0], {"X": self.Xp},
                   "not a compiled aimz model", posterior=self.pp)

    def test_missing_model_file(self):
        self.fails("predict", self.path("missing.so"), {"X": self.Xp},
                   "missing.so", "no such file", posterior=self.pp)
        self.fails("log-likelihood", self.path("missing.so"),
                   {"X": self.Xp, "y": self.yp}, "missing.so",
                   "no such file", posterior=self.pp)

    def test_directory_as_model(self):
        self.fails("prior-predictive", self.dir, {"X": self.Xp},
                   "directory", num_samples=5)

    # -- posteriors

    def test_log_likelihood_missing_sites(self):
        p = self.savez("partial.npz", alpha=self.post["alpha"])
        r = self.fails("log-likelihood", self.linreg,
                       {"X": self.Xp, "y": self.yp}, "beta", "sigma",
                       posterior=p)
        self.assertNotIn("alpha", r.stderr.split("lacks")[-1])
        # predict draws the missing ones from the prior instead.
        out = self.fresh()
        E.run_cmd("predict", self.linreg, {"X": self.Xp}, out, posterior=p)

    def test_missing_posterior_file(self):
        self.predict_fails({"X": self.Xp}, "nope.npz",
                           posterior=self.path("nope.npz"))

    def test_truncated_posterior(self):
        with open(self.pp, "rb") as f:
            blob = f.read()
        p = self.path("trunc.npz")
        with open(p, "wb") as f:
            f.write(blob[:len(blob) // 2])
        self.predict_fails({"X": self.Xp}, "trunc.npz", posterior=p)

    def test_draw_counts_disagree(self):
        p = self.savez("draws.npz", alpha=self.post["alpha"],
                       beta=self.post["beta"][:15], sigma=self.post["sigma"])
        self.predict_fails({"X": self.Xp}, "draws", "20", "15", "'beta'",
                           posterior=p)

    def test_zero_draws_after_the_first_member(self):
        # A site with no draws next to sites with 20: refused.
        empty = np.zeros(0, np.float32)
        for order in (("alpha", "sigma", "beta"), ("alpha", "beta", "sigma")):
            with self.subTest(order=order):
                arrays = {k: (empty if k == "sigma" else self.post[k])
                          for k in order}
                p = self.savez("zero_%s.npz" % order[1], **arrays)
                self.assertEqual(list(np.load(p).keys()), list(order))
                self.predict_fails({"X": self.Xp}, "'sigma'", "0",
                                   posterior=p)

    def test_zero_draws_in_first_member(self):
        p = self.savez("zero_first.npz", alpha=np.zeros(0, np.float32),
                       beta=self.post["beta"], sigma=self.post["sigma"])
        self.assertEqual(list(np.load(p).keys())[0], "alpha")
        self.predict_fails({"X": self.Xp}, "'alpha'", "0", posterior=p)

    def test_scalar_posterior_entry(self):
        p = self.savez("scalar.npz", alpha=np.float32(1), beta=self.post["beta"],
                       sigma=self.post["sigma"])
        self.predict_fails({"X": self.Xp}, "'alpha'", "scalar", posterior=p)

    def test_posterior_latent_wrong_shape(self):
        p = self.savez("beta4.npz", alpha=self.post["alpha"],
                       beta=np.zeros((self.D, 4), np.float32),
                       sigma=self.post["sigma"])
        self.predict_fails({"X": self.Xp}, "'beta'", "(20, 4)", "(20, 3)",
                           posterior=p)

    def test_obs_aligned_latent_wrong_observation_count(self):
        rng = np.random.default_rng(4)
        x = self.save("lx.npy", rng.normal(size=self.N).astype(np.float32))
        ones = np.ones(self.D, np.float32)
        p = self.savez("lpost.npz", beta=ones, tau=ones, sigma=ones,
                       z=np.zeros((self.D, self.N - 3), np.float32))
        for cmd in ("predict", "log-likelihood"):
            with self.subTest(command=cmd):
                data = {"x": x}
                if cmd == "log-likelihood":
                    data["y"] = x
                self.fails(cmd, E.model("local_latent"), data, "'z'", "997",
                           "1000", posterior=p)

    def test_unknown_posterior_name_warns(self):
        p = self.savez("extra.npz", foo=np.zeros(self.D, np.float32),
                       **self.post)
        out = self.fresh()
        r = E.run_cmd("predict", self.linreg, {"X": self.Xp}, out,
                      posterior=p, seed=1, devices=2)
        w = r.warnings()
        self.assertEqual(len(w), 1, r)
        self.assertIn("'foo'", w[0])
        self.assertEqual(r.errors(), [])
        ref = self.fresh()
        E.run_cmd("predict", self.linreg, {"X": self.Xp}, ref,
                  posterior=self.pp, seed=1, devices=2)
        a, b = E.read_arrays(out), E.read_arrays(ref)
        self.assertTrue(E.same_bytes(a["y"], b["y"]))

    def test_output_site_in_posterior_warns_and_is_dropped(self):
        # Garbage y values in the posterior must not reach the output.
        p = self.savez("withy.npz", y=np.full((self.D, self.N), 1e6,
                                              np.float32), **self.post)
        for cmd, data in (("predict", {"X": self.Xp}),
                          ("log-likelihood", {"X": self.Xp, "y": self.yp})):
            with self.subTest(command=cmd):
                out, ref = self.fresh(), self.fresh()
                r = E.run_cmd(cmd, self.linreg, data, out, posterior=p,
                              seed=1)
                w = r.warnings()
                self.assertEqual(len(w), 1, r)
                self.assertIn("'y'", w[0])
                self.assertIn("dropping", w[0])
                E.run_cmd(cmd, self.linreg, data, ref, posterior=self.pp,
                          seed=1)
                self.assertTrue(E.same_bytes(E.read_arrays(out)["y"],
                                             E.read_arrays(ref)["y"]))

    def test_deterministic_site_in_posterior_is_noted(self):
        # NumPyro's get_samples() holds 'eta'; it used to be ignored
        # silently, so a user could think their values were used.
        p = self.savez("witheta.npz", eta=np.full((self.D, self.N), 1e6,
                                                  np.float32), **self.post)
        out, ref = self.fresh(), self.fresh()
        r = E.run_cmd("predict", self.linreg, {"X": self.Xp}, out,
                      posterior=p, seed=1)
        w = r.warnings()
        self.assertEqual(len(w), 1, r)
        self.assertIn("'eta'", w[0])
        self.assertIn("recomputed", w[0])
        E.run_cmd("predict", self.linreg, {"X": self.Xp}, ref,
                  posterior=self.pp, seed=1)
        self.assertTrue(E.same_bytes(E.read_arrays(out)["eta"],
                                     E.read_arrays(ref)["eta"]))

    def test_extra_data_warns(self):
        out = self.fresh()
        r = E.run_cmd("predict", self.linreg,
                      {"X": self.Xp, "y": self.yp, "Z": self.yp}, out,
                      posterior=self.pp)
        w = r.warnings()
        self.assertEqual(len(w), 2, r)
        self.assertTrue(any("'Z'" in l for l in w), r)
        self.assertTrue(any("--data y" in l for l in w), r)

    # -- gathers

    def hier_post(self, rng, groups=8):
        return dict(mu_a=np.zeros(self.D, np.float32),
                    sigma_a=np.ones(self.D, np.float32),
                    a=rng.normal(size=(self.D, groups)).astype(np.float32),
                    b=np.ones(self.D, np.float32),
                    sigma=np.ones(self.D, np.float32))

    def test_gather_index_out_of_range(self):
        rng = np.random.default_rng(5)
        x = self.save("gx.npy", rng.normal(size=self.N).astype(np.float32))
        post = self.savez("gpost.npz", **self.hier_post(rng))
        so = E.model("hierarchical")
        for bad in (8, 1000, -9):
            g = rng.integers(0, 8, self.N).astype(np.int32)
            g[617] = bad
            gp = self.save("gbad.npy", g)
            for cmd in ("predict", "log-likelihood", "prior-predictive"):
                for axis, devices, batch in (("obs", 2, 100), ("draw", 3, 9)):
                    with self.subTest(index=bad, command=cmd, axis=axis):
                        data = {"x": x, "g": gp}
                        kw = {}
                        if cmd == "log-likelihood":
                            data["y"] = x
                        if cmd == "prior-predictive":
                            kw["num_samples"] = 10
                        else:
                            kw["posterior"] = post
                        # Checked before the run: the input, its row,
                        # its value and the range; negatives never wrap.
                        r = self.fails(cmd, so, data, "index input 'g'",
                                       "holds %d at row 617" % bad,
                                       "outside [0, 8)", axis=axis,
                                       devices=devices, batch=batch, **kw)
                        if bad < 0:
                            self.assertIn("not wrapped", r.stderr)
                        if bad == 8:
                            self.assertIn("count from 0", r.stderr)

    # -- options

    def test_bad_zarr_format(self):
        for v in (1, 4):
            self.predict_fails({"X": self.Xp}, "--zarr-format", fmt=v)

    def test_bad_codec(self):
        for c in ("bogus", "blosc:lz4:5:bit", "zstd:x"):
            with self.subTest(codec=c):
                self.predict_fails({"X": self.Xp}, "codec", extra=["--codec",
                                                                  c])

    def test_negative_batch_size(self):
        self.predict_fails({"X": self.Xp}, "--batch-size", batch=-3)

    def test_zero_batch_size(self):
        self.predict_fails({"X": self.Xp}, "--batch-size", batch=0)

    def test_non_numeric_batch_size(self):
        out = self.fresh()
        r = E.run_cmd("predict", self.linreg, {"X": self.Xp}, out,
                      posterior=self.pp, extra=["--batch-size", "abc"],
                      check=False)
        self.assertNotEqual(r.rc, 0)
        self.assertIn("batch-size", r.stderr)
        self.assertFalse(os.path.exists(out))

    def test_unknown_return_site(self):
        r = self.predict_fails({"X": self.Xp}, "'bogus'", "--return-sites",
                               sites=["y", "bogus"])
        self.assertIn("alpha", r.stderr)  # lists the model's sites

    def test_log_likelihood_of_a_non_output_site(self):
        self.fails("log-likelihood", self.linreg,
                   {"X": self.Xp, "y": self.yp}, "--return-sites", "'y'",
                   posterior=self.pp, sites=["eta"])

    def test_required_arguments(self):
        self.fails("predict", self.linreg, {"X": self.Xp}, "--posterior")
        self.fails("log-likelihood", self.linreg,
                   {"X": self.Xp, "y": self.yp}, "--posterior")
        self.fails("log-likelihood", self.linreg, {"X": self.Xp},
                   "observed output", "y=", posterior=self.pp)
        self.fails("prior-predictive", self.linreg, {"X": self.Xp},
                   "--num-samples", num_samples=0)
        r = E.aimz_run("predict", self.linreg, "--data", "X=" + self.Xp,
                       "--posterior", self.pp, check=False)
        self.assert_one_error_line(r, "--out")

    def test_output_path_is_a_file(self):
        p = self.path("a_file")
        with open(p, "w") as f:
            f.write("precious")
        r = E.run_cmd("predict", self.linreg, {"X": self.Xp}, p,
                      posterior=self.pp, check=False)
        self.assert_one_error_line(r, "a_file")
        with open(p) as f:
            self.assertEqual(f.read(), "precious")

    def test_failed_run_leaves_no_store(self):
        # An index error found mid-run (the last batches) must not leave a
        # store that reads as complete, nor a half-written one. The index
        # is computed (g + 1), so only the kernel can find it.
        rng = np.random.default_rng(6)
        x = self.save("fx.npy", rng.normal(size=self.N).astype(np.float32))
        g = rng.integers(0, 7, self.N).astype(np.int32)
        g[-1] = 7
        gp = self.save("fg.npy", g)
        out = self.fresh()
        r = E.run_cmd("prior-predictive", E.model("gather_computed"),
                      {"x": x, "g": gp}, out, num_samples=20, batch=10,
                      devices=2, check=False)
        self.assert_one_error_line(r, "index computed by the model",
                                   "observations")
        self.assertEqual([f for f in os.listdir(self.dir)
                          if f.startswith(os.path.basename(out))], [])



class Interrupt(E.E2ETestCase):
    """Ctrl-C stops a run within about a second, says what it left, and
    leaves no complete-looking store: only the partial store, for
    --resume (test_resume.py)."""

    def test_sigint_mid_run(self):
        rng = np.random.default_rng(7)
        n, d, H, D = 60_000, 100, 128, 40
        X = self.save("X.npy", rng.normal(size=(n, d)).astype(np.float32))

        def w(*shape):
            return (rng.normal(size=(D,) + shape) * 0.1).astype(np.float32)
        post = self.savez("post.npz", w1=w(d, H), b1=w(H), w2=w(H, H),
                          b2=w(H), w3=w(H, H), b3=w(H), w4=w(H), b4=w())
        out = self.fresh()
        cmd = [E.AIMZ_RUN, "predict", E.model("mlp"), "--data", "X=" + X,
               "--posterior", post, "--out", out, "--devices", "2",
               "--batch-size", "1000"]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        t0 = time.time()
        # Wait until it is writing chunks.
        while time.time() - t0 < 20 and p.poll() is None and not any(
                f.startswith(os.path.basename(out))
                for f in os.listdir(self.dir)):
            time.sleep(0.01)
        time.sleep(0.2)
        if p.poll() is not None:
            p.communicate()
            self.skipTest("the run finished before it could be interrupted")
        t1 = time.time()
        p.send_signal(signal.SIGINT)
        try:
            _, err = p.communicate(timeout=10)
        finally:
            if p.poll() is None:
                p.kill()
        self.assertLess(time.time() - t1, 2.0, "slow to stop")
        self.assertEqual(p.returncode, 130, err)
        lines = [l for l in err.splitlines() if l.strip()]
        self.assertEqual(len(lines), 1, err)
        self.assertIn("interrupted", lines[0])
        self.assertIn(os.path.basename(out), lines[0])
        self.assertIn("--resume", lines[0])
        self.assertEqual([f for f in os.listdir(self.dir)
                          if f.startswith(os.path.basename(out))],
                         [os.path.basename(out) + ".partial"])

if __name__ == "__main__":
    E.main()
