"""local_latent: an observation-aligned latent z forces the draw plan.

With z in the posterior the run is `draw` (attribute plan == draw); asking
for `--shard-axis obs` warns once and runs `draw`, with the same bytes.
Without z in the posterior z is drawn fresh from its prior and `obs` is
valid (and gives the same bytes as `draw`)."""

import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402


class LocalLatent(E.E2ETestCase):
    N, D = 2001, 30

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = np.random.default_rng(41)
        cls.x = rng.normal(size=cls.N).astype(np.float32)
        cls.xp = cls.save("x.npy", cls.x)
        cls.post = dict(beta=rng.normal(0, 1, cls.D).astype(np.float32),
                        tau=rng.uniform(0.5, 1.5, cls.D).astype(np.float32),
                        sigma=rng.uniform(0.3, 1, cls.D).astype(np.float32),
                        z=rng.normal(0, 1, (cls.D, cls.N)).astype(np.float32))
        cls.pz = cls.savez("post_z.npz", **cls.post)
        cls.pnoz = cls.savez("post_noz.npz", **{k: v for k, v in
                                                cls.post.items() if k != "z"})
        cls.so = E.model("local_latent")

    def predict(self, post, **kw):
        out = self.fresh()
        r = E.run_cmd("predict", self.so, {"x": self.xp}, out,
                      posterior=post, seed=3, **kw)
        return out, r, E.open_group(out)

    def test_z_in_posterior_runs_draw(self):
        ref = None
        for axis, devices, batch in ((None, 1, None), (None, 3, 7),
                                     ("draw", 2, 4), ("draw", 3, 1)):
            with self.subTest(axis=axis, devices=devices, batch=batch):
                out, r, g = self.predict(self.pz, axis=axis, devices=devices,
                                         batch=batch, sites=["y", "z"])
                self.assertEqual(g.attrs["plan"], "draw")
                self.assertFalse(any("shard-axis" in w
                                     for w in r.warnings()), r)
                b = g.attrs["batch_size"]
                self.assert_store_layout(out, "y", (self.D, self.N),
                                         (b, self.N), np.float32,
                                         plates=("obs",))
                got = E.read_arrays(out)
                self.assertTrue(E.same_bytes(got["z"], self.post["z"]))
                if ref is None:
                    ref = got
                self.assertTrue(E.same_bytes(got["y"], ref["y"]))
        p = {k: v.astype(np.float64) for k, v in self.post.items()}
        e = (ref["y"] - p["beta"][:, None] * self.x - p["z"]) / \
            p["sigma"][:, None]
        self.assertLess(abs(e.mean()) * np.sqrt(e.size), 5)
        self.assertLess(abs(e.var() - 1) / np.sqrt(2 / e.size), 5)

    def test_obs_request_with_z_warns_and_runs_draw(self):
        out, r, g = self.predict(self.pz, axis="obs", devices=3, batch=5,
                                 sites=["y", "z"])
        warn = [w for w in r.warnings() if "shard-axis" in w]
        self.assertEqual(len(warn), 1, r)
        self.assertIn("z", warn[0])
        self.assertIn("draw", warn[0])
        self.assertEqual(g.attrs["plan"], "draw")
        b = g.attrs["batch_size"]
        self.assertEqual(g["y"].chunks, (b, self.N))
        out2, _, _ = self.predict(self.pz, axis="draw", devices=1)
        self.assertTrue(E.same_bytes(E.read_arrays(out)["y"],
                                     E.read_arrays(out2)["y"]))
        # --quiet keeps the warning off stderr.
        out3 = self.fresh()
        r = E.run_cmd("predict", self.so, {"x": self.xp}, out3,
                      posterior=self.pz, axis="obs", extra=["--quiet"])
        self.assertEqual(r.stderr, "")

    def test_without_z_obs_is_valid(self):
        outs = []
        for axis, devices, batch, plan in (("obs", 2, 100, "obs"),
                                           ("obs", 3, 7, "obs"),
                                           (None, 2, 3, "draw"),
                                           ("draw", 3, None, "draw")):
            with self.subTest(axis=axis, devices=devices, batch=batch):
                out, r, g = self.predict(self.pnoz, axis=axis,
                                         devices=devices, batch=batch,
                                         sites=["y", "z"])
                self.assertFalse(any("shard-axis" in w
                                     for w in r.warnings()), r)
                self.assertEqual(g.attrs["plan"], plan)
                b = g.attrs["batch_size"]
                chunks = (self.D, b) if plan == "obs" else (b, self.N)
                self.assert_store_layout(out, "z", (self.D, self.N), chunks,
                                         np.float32, plates=("obs",))
                outs.append(E.read_arrays(out))
        for o in outs[1:]:
            for s in ("y", "z"):
                self.assertTrue(E.same_bytes(o[s], outs[0][s]), s)
        p = {k: v.astype(np.float64) for k, v in self.post.items()}
        # z drawn fresh from Normal(0, tau): not the posterior's.
        z = outs[0]["z"] / p["tau"][:, None]
        self.assertLess(abs(z.mean()) * np.sqrt(z.size), 5)
        self.assertLess(abs(z.var() - 1) / np.sqrt(2 / z.size), 5)
        self.assertLess(np.mean(outs[0]["z"] == self.post["z"]), 0.01)
        # Marginally y - beta x ~ Normal(0, sqrt(tau^2 + sigma^2)).
        s = np.sqrt(p["tau"] ** 2 + p["sigma"] ** 2)[:, None]
        e = (outs[0]["y"] - p["beta"][:, None] * self.x) / s
        self.assertLess(abs(e.mean()) * np.sqrt(e.size), 5)
        self.assertLess(abs(e.var() - 1) / np.sqrt(2 / e.size), 5)



# A per-observation latent and no input with the observation axis (Stan
# User's Guide's measurement-error model with the true covariate a
# parameter, its measurements only in the output): predict takes N from
# the posterior's x.
N_FROM_POSTERIOR = """
model me(tau: f64) -> (y: f64[n]) {
  a ~ Normal(0, 1);
  b ~ Normal(0, 1);
  sigma ~ HalfNormal(1);
  plate obs(n) {
    x ~ Normal(0, 1);
    y ~ Normal(a + b * x, sigma + tau);
  }
}
"""


class ObservationsFromThePosterior(E.E2ETestCase):
    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(14)
        self.post = {"a": rng.normal(size=6), "b": rng.normal(size=6),
                     "sigma": rng.uniform(1, 2, 6),
                     "x": rng.normal(size=(6, 9))}
        self.pp = self.savez("nfp_post.npz", **self.post)
        self.data = {"tau": self.save("nfp_tau.npy", np.array(0.25))}
        self.so = self.compile_source("n_from_posterior", N_FROM_POSTERIOR)

    def test_predict_takes_n_from_the_posterior(self):
        outs = []
        for devices, batch in ((1, None), (2, 2)):
            out = self.fresh()
            E.run_cmd("predict", self.so, self.data, out, posterior=self.pp,
                      devices=devices, batch=batch, seed=3, sites=["y"])
            outs.append(E.read_arrays(out))
        self.assert_same_arrays(outs[0], outs[1])
        y = outs[0]["y"]
        self.assertEqual(y.shape, (6, 9))
        p = self.post
        z = (y - p["a"][:, None] - p["b"][:, None] * p["x"]) / (
            p["sigma"][:, None] + 0.25)
        self.assertLess(abs(z.mean()), 0.5)

    def test_disagreeing_sources_name_both(self):
        r = E.run_cmd("predict", self.so, self.data, self.fresh(),
                      posterior=self.pp, extra=["--num-observations", "5"],
                      check=False)
        self.assert_one_error_line(r, "posterior 'x'", "holds 9 observations",
                                   "--num-observations gives 5")

    def test_no_source_is_an_error(self):
        post = self.savez("nfp_post2.npz", a=self.post["a"],
                          b=self.post["b"], sigma=self.post["sigma"])
        r = E.run_cmd("predict", self.so, self.data, self.fresh(),
                      posterior=post, check=False)
        self.assert_one_error_line(r, "number of observations is unknown",
                                   "holds none of the latents that have it (x)",
                                   "--num-observations N")
        r = E.run_cmd("prior-predictive", self.so, self.data, self.fresh(),
                      num_samples=3, check=False)
        self.assert_one_error_line(r, "number of observations is unknown",
                                   "--num-observations N")

if __name__ == "__main__":
    E.main()
