"""A dimension no input names (a group count) is set at run time by the
posterior's arrays, or by --dim for the prior predictive: the same compiled
model serves any number of groups."""

import os
import sys

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402


class PosteriorDims(E.E2ETestCase):
    N, D = 2000, 8

    def case(self, J, seed):
        rng = np.random.default_rng(seed)
        x = rng.normal(size=self.N).astype(np.float32)
        g = rng.integers(0, J, self.N).astype(np.int32)
        post = dict(mu_a=rng.normal(size=self.D).astype(np.float32),
                    sigma_a=rng.uniform(0.5, 1, self.D).astype(np.float32),
                    a=rng.normal(size=(self.D, J)).astype(np.float32),
                    sigma=rng.uniform(0.5, 1.5, self.D).astype(np.float32))
        data = {"x": self.save("x%d.npy" % J, x), "g": self.save("g%d.npy" % J, g)}
        return x, g, post, data, self.savez("post%d.npz" % J, **post)

    def test_any_group_count_from_the_posterior(self):
        so = E.model("groups_from_posterior")
        for J in (3, 40):
            x, g, post, data, pp = self.case(J, J)
            y = post["a"][0, g] + x
            out = self.fresh()
            E.run_cmd("log-likelihood", so,
                      dict(data, y=self.save("y%d.npy" % J, y)), out,
                      posterior=pp, devices=2, batch=333)
            mu = post["a"].astype(np.float64)[:, g] + x[None, :]
            ref = stats.norm.logpdf(y[None, :], mu, post["sigma"][:, None])
            np.testing.assert_allclose(E.read_arrays(out)["y"], ref,
                                       rtol=1e-5, atol=1e-6)

    def test_prior_predictive_takes_the_count_from_dim(self):
        so = E.model("groups_from_posterior")
        x, g, post, data, pp = self.case(6, 1)
        out = self.fresh()
        E.run_cmd("prior-predictive", so, data, out, num_samples=50,
                  sites=["a"], extra=["--dim", "J=6"])
        self.assertEqual(E.read_arrays(out)["a"].shape, (50, 6))
        r = E.run_cmd("prior-predictive", so, data, self.fresh(), check=False)
        self.assert_one_error_line(r, "dimension 'J'", "--dim J=N")
        r = E.run_cmd("prior-predictive", so, data, self.fresh(), check=False,
                      extra=["--dim", "K=6"])
        self.assert_one_error_line(r, "no dimension 'K'", "J")
        r = E.run_cmd("prior-predictive", so, data, self.fresh(), check=False,
                      extra=["--dim", "J=zero"])
        self.assert_one_error_line(r, "NAME=N")

    def test_an_output_axis_set_by_the_posterior(self):
        # y: i32[n, J] with J on no input: every command used to stop with
        # "dimension 'J' is not bound by any input", and --dim J=... was
        # refused with "the model has no dimension 'J' set at run time".
        so = E.model("item_response")
        rng = np.random.default_rng(8)
        J = 5
        ability = rng.normal(size=self.N).astype(np.float32)
        post = dict(mu=rng.normal(size=self.D).astype(np.float32),
                    difficulty=rng.normal(size=(self.D, J)).astype(np.float32))
        y = (rng.uniform(size=(self.N, J)) < 0.5).astype(np.int32)
        data = {"ability": self.save("ability.npy", ability)}
        pp = self.savez("irt_post.npz", **post)
        out = self.fresh()
        E.run_cmd("predict", so, data, out, posterior=pp, batch=300)
        draws = E.read_arrays(out)["y"]
        self.assertEqual(draws.shape, (self.D, self.N, J))
        self.assertTrue(set(np.unique(draws)) <= {0, 1})
        # P(y = 1) = expit(ability - difficulty): the mean over n per item.
        p = 1 / (1 + np.exp(-(ability[None, :, None] -
                              post["difficulty"][:, None, :])))
        self.assertLess(abs(draws.mean() - p.mean()),
                        5 * np.sqrt(0.25 / draws.size))
        out = self.fresh()
        E.run_cmd("log-likelihood", so,
                  dict(data, y=self.save("irt_y.npy", y)), out, posterior=pp,
                  batch=300)
        logit = (ability[None, :, None].astype(np.float64) -
                 post["difficulty"][:, None, :].astype(np.float64))
        ref = stats.bernoulli.logpmf(y[None], 1 / (1 + np.exp(-logit)))
        np.testing.assert_allclose(E.read_arrays(out)["y"], ref, rtol=1e-5,
                                   atol=1e-6)
        out = self.fresh()
        E.run_cmd("prior-predictive", so, data, out, num_samples=7,
                  extra=["--dim", "J=3"])
        self.assertEqual(E.read_arrays(out)["y"].shape, (7, self.N, 3))
        r = E.run_cmd("prior-predictive", so, data, self.fresh(),
                      check=False)
        self.assert_one_error_line(r, "dimension 'J'", "--dim J=N")
        # The observed answers and the posterior must agree on J.
        r = E.run_cmd("log-likelihood", so,
                      dict(data, y=self.save("irt_y4.npy", y[:, :4])),
                      self.fresh(), posterior=pp, check=False)
        self.assert_one_error_line(r, "'difficulty'", "(%d, 4)" % self.D)

    def test_dims_too_large_are_refused_up_front(self):
        # --dim J=2^62 (or 2^32) used to segfault or end in "terminate
        # called recursively", leaving a partial store.
        so = E.model("groups_from_posterior")
        x, g, post, data, pp = self.case(6, 3)
        for J in (1 << 62, 1 << 32, (1 << 63) - 1):
            for sites in (["a"], None):
                with self.subTest(J=J, sites=sites):
                    out = self.fresh()
                    r = E.run_cmd("prior-predictive", so, data, out,
                                  num_samples=50, sites=sites, check=False,
                                  extra=["--dim", "J=%d" % J])
                    self.assertNotEqual(r.rc, 0, r)
                    self.assertGreater(r.rc, 0, r)  # not a signal
                    self.assertEqual(len(r.errors()), 1, r)
                    self.assertNotIn("terminate", r.stderr)
                    self.assertFalse(os.path.exists(out))
                    self.assertFalse(os.path.exists(out + ".partial"))

    def test_dim_must_agree_with_the_posterior(self):
        so = E.model("groups_from_posterior")
        x, g, post, data, pp = self.case(6, 2)
        r = E.run_cmd("predict", so, data, self.fresh(), posterior=pp,
                      check=False, extra=["--dim", "J=7"])
        self.assert_one_error_line(r, "posterior 'a'", "(8, 6)", "(8, 7)")



# A group-effects model whose every size comes from the posterior: the
# effect count K in LKJCholesky's dimension and in zeros(K), the group
# count J in the latent's shape, and J - 1 in a second latent's.
POSTERIOR_SIZES = """
model m(g: i32[n]) -> (y: f64[n]) {
  L ~ LKJCholesky(K, 2.0);
  tau ~ HalfNormal(1)[K];
  z ~ Normal(zeros(K), 1)[J, K];
  d ~ Normal(0, 1)[J - 1];
  sigma ~ HalfNormal(1);
  let ab = z @ (tau[:, None] * L).T;
  let shift = pad(d, (1, 0));
  plate obs(n) {
    y ~ Normal(sum(ab[g]) + shift[g], sigma);
  }
}
"""


class SizesFromThePosterior(E.E2ETestCase):
    def test_log_likelihood_and_prior_predictive(self):
        rng = np.random.default_rng(11)
        n, K, J, D = 30, 3, 4, 5
        g = rng.integers(0, J, n).astype(np.int32)
        y = rng.normal(size=n)
        Ls = np.stack([np.linalg.cholesky(stats.random_correlation.rvs(
            [0.6, 1.1, 1.3], random_state=rng)) for _ in range(D)])
        tau = rng.uniform(0.5, 2, (D, K))
        z = rng.normal(size=(D, J, K))
        d = rng.normal(size=(D, J - 1))
        sigma = rng.uniform(0.5, 1.5, D)
        so = self.compile_source("posterior_sizes", POSTERIOR_SIZES)
        post = self.savez("ps_post.npz", L=Ls, tau=tau, z=z, d=d, sigma=sigma)
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, {"g": self.save("ps_g.npy", g),
                                         "y": self.save("ps_y.npy", y)},
                  out, posterior=post)
        ab = z @ np.swapaxes(tau[:, :, None] * Ls, 1, 2)
        shift = np.pad(d, ((0, 0), (1, 0)))
        mu = ab[:, g].sum(-1) + shift[:, g]
        np.testing.assert_allclose(E.read_arrays(out)["y"],
                                   stats.norm.logpdf(y, mu, sigma[:, None]),
                                   rtol=1e-12)
        prior = self.fresh()
        E.run_cmd("prior-predictive", so, {"g": self.save("ps_g.npy", g)},
                  prior, num_samples=20, seed=3, sites=["L", "z", "d"],
                  extra=["--dim", "K=3", "--dim", "J=4"])
        got = E.read_arrays(prior)
        self.assertEqual(got["L"].shape, (20, 3, 3))
        self.assertEqual(got["d"].shape, (20, 3))
        # Cholesky factors of correlation matrices: unit rows, lower.
        np.testing.assert_allclose((got["L"] ** 2).sum(-1), 1, rtol=1e-10)
        self.assertTrue(np.all(np.triu(got["L"], 1) == 0))

if __name__ == "__main__":
    E.main()
