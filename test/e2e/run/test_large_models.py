"""Models large enough that aimzc cuts their entry points into functions of
bounded size (aimz-outline-large-blocks: compile time stays linear in the
number of sites). The cut must not change a value:

- a chain of 48 global latents and 40 deterministic sites per observation,
  its predicted deterministic sites against NumPy, its log-likelihood
  against SciPy, byte-identical on one device and on two (batch 7);
- the prior predictive of the same model: every drawn latent and
  deterministic site obeys the model's equations (values cross the cut);
- the compiled code is in fact split (the LLVM IR holds the parts)."""

import os
import sys

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

LATENTS, DETS = 48, 40


def wide_model():
    lines = ["model wide(x: f64[n]) -> (y: f64[n]) {",
             "  a0 ~ Normal(0, 1);"]
    lines += ["  a%d ~ Normal(0.5 * a%d, 1);" % (i, i - 1)
              for i in range(1, LATENTS)]
    lines += ["  s ~ HalfNormal(1);", "  plate obs(n) {",
              "    deterministic d0 = a0 * x;"]
    lines += ["    deterministic d%d = 0.75 * d%d + a%d * x;" % (i, i - 1, i)
              for i in range(1, DETS)]
    lines += ["    y ~ Normal(d%d + a%d, s);" % (DETS - 1, LATENTS - 1),
              "  }", "}"]
    return "\n".join(lines) + "\n"


def dets(a, x):
    """The deterministic sites as NumPy computes them, one row per draw."""
    d = [a[:, 0:1] * x]
    for i in range(1, DETS):
        d.append(0.75 * d[-1] + a[:, i:i + 1] * x)
    return d


class WideModel(E.E2ETestCase):
    N, DRAWS = 150, 12

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.so = cls.compile_source("wide", wide_model())
        rng = np.random.default_rng(21)
        cls.x = rng.normal(size=cls.N)
        cls.y = rng.normal(size=cls.N)
        cls.a = rng.normal(size=(cls.DRAWS, LATENTS))
        cls.s = rng.uniform(0.5, 2.0, cls.DRAWS)
        post = {"a%d" % i: cls.a[:, i] for i in range(LATENTS)}
        cls.post = cls.savez("post.npz", s=cls.s, **post)
        cls.xfile = cls.save("x.npy", cls.x)

    def test_the_code_is_split(self):
        r = E.aimzc(self.path("wide.aimz"), "--emit=llvm", "--no-ptx",
                    check=True)
        self.assertIn("@aimz_predict.part", r.stdout)
        self.assertIn("@aimz_log_likelihood.part", r.stdout)

    def test_predicted_deterministic_sites_against_numpy(self):
        sites = ["d0", "d%d" % (DETS // 2), "d%d" % (DETS - 1)]
        outs = []
        for devices, batch in ((1, None), (2, 7)):
            out = self.fresh()
            E.run_cmd("predict", self.so, {"x": self.xfile}, out,
                      posterior=self.post, sites=sites, devices=devices,
                      batch=batch)
            outs.append(E.read_arrays(out))
        self.assert_same_arrays(outs[0], outs[1])
        want = dets(self.a, self.x)
        for name in sites:
            np.testing.assert_allclose(
                outs[0][name].reshape(self.DRAWS, self.N),
                want[int(name[1:])], rtol=1e-13, atol=1e-13)

    def test_log_likelihood_against_scipy(self):
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", self.so,
                  {"x": self.xfile, "y": self.save("y.npy", self.y)}, out,
                  posterior=self.post)
        got = E.read_arrays(out)["y"].reshape(self.DRAWS, self.N)
        mean = dets(self.a, self.x)[-1] + self.a[:, -1:]
        want = stats.norm.logpdf(self.y, mean, self.s[:, None])
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)

    def test_prior_predictive_obeys_the_equations(self):
        sites = ["a%d" % i for i in range(LATENTS)] + \
            ["d%d" % i for i in range(DETS)]
        out = self.fresh(".npz")
        E.run_cmd("prior-predictive", self.so, {"x": self.xfile}, out,
                  num_samples=9, sites=sites, seed=4)
        got = E.read_arrays(out)
        a = np.stack([got["a%d" % i].reshape(9) for i in range(LATENTS)], 1)
        self.assertGreater(np.std(a), 0.1)  # drawn, not a constant
        want = dets(a, self.x)
        for i in range(DETS):
            np.testing.assert_allclose(got["d%d" % i].reshape(9, self.N),
                                       want[i], rtol=1e-13, atol=1e-13)


if __name__ == "__main__":
    E.main()
