"""NumPy's advanced indexing on any axis and the observation-axis rule per
row, against NumPy evaluating the same expressions.

- Every placement NumPy defines for slices beside integer-array indices
  (adjacent indices in place, separated ones first, constants counted as
  indices), on a [3, 4, 5] latent.
- Stan's `beta[, jj[n]]` (a column per observation's group) inside a plate,
  and outside it as `beta[:, jj]` ([K, n], transposed back).
- PyMC's discrete-choice model (pymc-examples "Discrete choice and random
  utility models", the multinomial logit): per-alternative utilities
  stacked and transposed, `zeros(N)` as the outside option's utility,
  `softmax(s, axis=1)`; and `outer(x, b)` of a per-observation x and a
  global b.
- The Stan User's Guide's hierarchical regression with multivariate priors
  ("Multivariate priors for hierarchical models", the vectorized program)
  with its coefficient matrix laid out [K, J] and gathered by column.
"""

import os
import sys

import numpy as np
from scipy import special, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

# name = expression on A (a [3, 4, 5] latent) and ii (i32[M]), and the same
# in NumPy.
PLACEMENTS = [
    ("A[:, ii]", lambda A, ii: A[:, ii]),
    ("A[:, :, ii]", lambda A, ii: A[:, :, ii]),
    ("A[1:, ii]", lambda A, ii: A[1:, ii]),
    ("A[:, ii, 2]", lambda A, ii: A[:, ii, 2]),
    ("A[0, :, ii]", lambda A, ii: A[0, :, ii]),
    ("A[ii, :, ii]", lambda A, ii: A[ii, :, ii]),
    ("A[:, ii, ii]", lambda A, ii: A[:, ii, ii]),
    ("A[:, 1:3, ii]", lambda A, ii: A[:, 1:3, ii]),
    ("A[:, ii[:, None], ii[None, :]]",
     lambda A, ii: A[:, ii[:, None], ii[None, :]]),
    ("A[-1, :, ii]", lambda A, ii: A[-1, :, ii]),
    ("A[:, -1, ii]", lambda A, ii: A[:, -1, ii]),
    ("A[1:, ii, :]", lambda A, ii: A[1:, ii, :]),
    ("A[:2, ii][1]", lambda A, ii: A[:2, ii][1]),
    ("A[:, 2 - ii, 1:4]", lambda A, ii: A[:, 2 - ii, 1:4]),
]


class Placements(E.E2ETestCase):
    def test_every_placement_matches_numpy(self):
        so = self.compile_source("placements", E.expression_battery(
            ["A ~ Normal(0, 1)[3, 4, 5];"], [expr for expr, _ in PLACEMENTS]))
        rng = np.random.default_rng(1)
        A = rng.normal(size=(6, 3, 4, 5))
        ii = np.array([2, 0, 1, 1, 2, 0, 2], dtype=np.int32)
        post = self.savez("place_post.npz", A=A)
        data = {"x": self.save("place_x.npy", np.zeros(4)),
                "ii": self.save("place_ii.npy", ii)}
        out = self.fresh()
        sites = ["d%d" % i for i in range(len(PLACEMENTS))]
        E.run_cmd("predict", so, data, out, posterior=post, seed=1,
                  sites=sites)
        got = E.read_arrays(out)
        for i, (expr, ref) in enumerate(PLACEMENTS):
            want = np.stack([ref(a, ii) for a in A])
            self.assertEqual(got["d%d" % i].shape, want.shape, expr)
            np.testing.assert_array_equal(got["d%d" % i], want, expr)

    def test_index_out_of_range_fails_the_run(self):
        so = self.compile_source("place_range", (
            "model m(x: f64[n], ii: i32[M]) -> (y: f64[n]) {\n"
            "  A ~ Normal(0, 1)[3, 4];\n"
            "  deterministic d = A[:, ii];\n"
            "  y ~ Normal(x, 1);\n}\n"))
        post = self.savez("range_post.npz", A=np.zeros((2, 3, 4)))
        data = {"x": self.save("range_x.npy", np.zeros(3)),
                "ii": self.save("range_ii.npy",
                                np.array([0, 4], dtype=np.int32))}
        r = E.run_cmd("predict", so, data, self.fresh(), posterior=post,
                      sites=["d"], check=False)
        self.assertNotEqual(r.rc, 0)
        self.assertIn("ii", r.stderr)


STAN_COLUMN = """
model m(x: f64[n, K], jj: i32[n]) -> (y: f64[n]) {
  beta ~ Normal(0, 1)[K, J];
  sigma ~ HalfNormal(1);
  plate obs(n) {
    y ~ Normal(sum(x * beta[:, jj]), sigma);
  }
}
"""

WHOLE_ARRAY = """
model m(x: f64[n, K], jj: i32[n]) -> (y: f64[n]) {
  beta ~ Normal(0, 1)[K, J];
  sigma ~ HalfNormal(1);
  let b = beta[:, jj];
  y ~ Normal(sum(x * b.T, axis=1), sigma);
}
"""


class ColumnPerObservation(E.E2ETestCase):
    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(2)
        self.n, K, J, D = 45, 3, 5, 8
        self.x = rng.normal(size=(self.n, K))
        self.jj = rng.integers(0, J, self.n).astype(np.int32)
        self.y = rng.normal(size=self.n)
        self.beta = rng.normal(size=(D, K, J))
        self.sigma = rng.uniform(0.5, 2, D)
        self.post = self.savez("col_post.npz", beta=self.beta,
                               sigma=self.sigma)
        self.data = {"x": self.save("col_x.npy", self.x),
                     "jj": self.save("col_jj.npy", self.jj),
                     "y": self.save("col_y.npy", self.y)}

    def reference(self):
        mu = np.einsum("nk,dkn->dn", self.x, self.beta[:, :, self.jj])
        return stats.norm.logpdf(self.y, mu, self.sigma[:, None])

    def test_in_plate_and_whole_array_agree_with_numpy(self):
        ref = self.reference()
        outs = []
        for name, src in (("col_plate", STAN_COLUMN),
                          ("col_whole", WHOLE_ARRAY)):
            so = self.compile_source(name, src)
            out = self.fresh(".npz")
            E.run_cmd("log-likelihood", so, self.data, out,
                      posterior=self.post)
            got = E.read_arrays(out)["y"]
            np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)
            outs.append(got)

    def test_same_bytes_for_any_partition(self):
        so = self.compile_source("col_whole_p", WHOLE_ARRAY)
        one = self.fresh()
        E.run_cmd("log-likelihood", so, self.data, one, posterior=self.post)
        two = self.fresh()
        E.run_cmd("log-likelihood", so, self.data, two, posterior=self.post,
                  devices=2, batch=7)
        self.assert_same_arrays(E.read_arrays(one), E.read_arrays(two))


# pymc-examples, "Discrete choice and random utility models": the
# multinomial logit of heating systems, four alternatives plus an outside
# option of utility zero.
DISCRETE_CHOICE = """
model heating(ic: f64[N, A], oc: f64[N, A]) -> (y: i32[N]) {
  alphas ~ Normal(0, 1)[A];
  beta_ic ~ Normal(0, 1);
  beta_oc ~ Normal(0, 1);
  let u = alphas + beta_ic * ic + beta_oc * oc;
  let s = [u[:, 0], u[:, 1], u[:, 2], u[:, 3], zeros(N)].T;
  deterministic p = softmax(s, axis=1);
  y ~ Categorical(probs=p);
}
"""

OUTER = """
model m(x: f64[n], Z: f64[n, K]) -> (y: f64[n]) {
  b ~ Normal(0, 1)[K];
  let t = outer(x, b) + zeros(n)[:, None];
  y ~ Normal(sum(Z * t, axis=1), 1);
}
"""


class DiscreteChoice(E.E2ETestCase):
    def setUp(self):
        super().setUp()
        rng = np.random.default_rng(3)
        n, A, D = 60, 4, 6
        self.ic = rng.uniform(0, 2, (n, A))
        self.oc = rng.uniform(0, 1, (n, A))
        self.y = rng.integers(0, A + 1, n).astype(np.int32)
        self.alphas = rng.normal(size=(D, A))
        self.b_ic = rng.normal(size=D)
        self.b_oc = rng.normal(size=D)
        self.post = self.savez("dc_post.npz", alphas=self.alphas,
                               beta_ic=self.b_ic, beta_oc=self.b_oc)
        self.data = {"ic": self.save("dc_ic.npy", self.ic),
                     "oc": self.save("dc_oc.npy", self.oc)}

    def probs(self):
        u = (self.alphas[:, None] + self.b_ic[:, None, None] * self.ic
             + self.b_oc[:, None, None] * self.oc)
        s = np.concatenate([u, np.zeros(u.shape[:2] + (1,))], axis=2)
        return special.softmax(s, axis=2)

    def test_log_likelihood_and_probabilities(self):
        so = self.compile_source("heating", DISCRETE_CHOICE)
        out = self.fresh(".npz")
        data = dict(self.data, y=self.save("dc_y.npy", self.y))
        E.run_cmd("log-likelihood", so, data, out, posterior=self.post)
        p = self.probs()
        ref = np.log(np.take_along_axis(p, self.y[None, :, None], 2))[..., 0]
        np.testing.assert_allclose(E.read_arrays(out)["y"], ref, rtol=1e-12)
        pred = self.fresh()
        E.run_cmd("predict", so, self.data, pred, posterior=self.post,
                  seed=4, sites=["p", "y"])
        got = E.read_arrays(pred)
        np.testing.assert_allclose(got["p"], p, rtol=1e-12)
        self.assertTrue(np.all((got["y"] >= 0) & (got["y"] <= 4)))

    def test_outer_of_a_per_observation_vector(self):
        rng = np.random.default_rng(4)
        n, K, D = 30, 3, 5
        x, Z, y = rng.normal(size=n), rng.normal(size=(n, K)), rng.normal(
            size=n)
        b = rng.normal(size=(D, K))
        so = self.compile_source("outer_obs", OUTER)
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so,
                  {"x": self.save("o_x.npy", x), "Z": self.save("o_Z.npy", Z),
                   "y": self.save("o_y.npy", y)}, out,
                  posterior=self.savez("o_post.npz", b=b), devices=2, batch=4)
        mu = np.einsum("nk,n,dk->dn", Z, x, b)
        np.testing.assert_allclose(E.read_arrays(out)["y"],
                                   stats.norm.logpdf(y, mu, 1), rtol=1e-12)


# Stan User's Guide, "Multivariate priors for hierarchical models"
# (vectorized): group coefficients from group predictors u and correlated
# effects; here z and the effects are [K, J] and each observation takes
# its group's column.
HIER_MVN = """
model m(x: f64[N, K], jj: i32[N], u: f64[J, L]) -> (y: f64[N]) {
  const K = 3;
  z ~ Normal(0, 1)[K, J];
  L_Omega ~ LKJCholesky(K, 2);
  tau_unif ~ Uniform(0, pi / 2)[K];
  gamma ~ Normal(0, 5)[L, K];
  sigma ~ HalfNormal(1);
  let tau = 2.5 * tan(tau_unif);
  let effects = (tau[:, None] * L_Omega) @ z;
  let beta = (u @ gamma).T + effects;
  y ~ Normal(sum(beta[:, jj].T * x, axis=1), sigma);
}
"""


class HierarchicalMultivariatePrior(E.E2ETestCase):
    def test_log_likelihood_against_numpy(self):
        rng = np.random.default_rng(5)
        N, K, J, L, D = 50, 3, 4, 2, 5
        x = rng.normal(size=(N, K))
        jj = rng.integers(0, J, N).astype(np.int32)
        u = rng.normal(size=(J, L))
        y = rng.normal(size=N)
        z = rng.normal(size=(D, K, J))
        Lo = np.stack([np.linalg.cholesky(
            stats.random_correlation.rvs(
                [0.5, 1.0, 1.5], random_state=rng)) for _ in range(D)])
        tau_unif = rng.uniform(0.1, 1.2, (D, K))
        gamma = rng.normal(size=(D, L, K))
        sigma = rng.uniform(0.5, 1.5, D)
        post = self.savez("hm_post.npz", z=z, L_Omega=Lo, tau_unif=tau_unif,
                          gamma=gamma, sigma=sigma)
        so = self.compile_source("hier_mvn", HIER_MVN)
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so,
                  {"x": self.save("hm_x.npy", x),
                   "jj": self.save("hm_jj.npy", jj),
                   "u": self.save("hm_u.npy", u),
                   "y": self.save("hm_y.npy", y)}, out, posterior=post)
        tau = 2.5 * np.tan(tau_unif)
        effects = (tau[:, :, None] * Lo) @ z
        beta = np.swapaxes(u @ gamma, 1, 2) + effects           # [D, K, J]
        mu = np.einsum("dkn,nk->dn", beta[:, :, jj], x)
        ref = stats.norm.logpdf(y, mu, sigma[:, None])
        np.testing.assert_allclose(E.read_arrays(out)["y"], ref, rtol=1e-11)


if __name__ == "__main__":
    E.main()
