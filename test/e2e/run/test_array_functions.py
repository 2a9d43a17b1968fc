"""NumPy's array functions called as NumPy users call them (tuples, the
Ellipsis, positional axes, methods), against NumPy evaluating the same
expressions, and in two published models:

- NumPyro's Dirichlet-process mixture example (truncated stick-breaking):
  `mix_weights` with `cumprod` and `pad(..., constant_values=1)`, written
  as a function, weighting a `MixtureSameFamily` of normals.
The battery includes sort / argsort (JAX's stable order, any axis),
reductions over a tuple of axes, transpose(a, axes), swapaxes, moveaxis.

- A multinomial logit with a reference category (NumPyro/PyMC style):
  `concatenate([zeros((N, 1)), X @ beta], axis=1)`, and the same with
  `pad`, and PyMC's discrete-choice utilities with `stack(..., axis=1)`.
"""

import os
import sys

import numpy as np
from scipy import special, stats

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

# Expressions on A (a [3, 4] latent), v (a [K] latent, K = 4 from the
# posterior), w (a [3] latent) and ii (i32[M] data), and the same in NumPy.
CASES = [
    ("stack([v, v * 2], axis=1)", lambda A, v, w, ii: np.stack([v, v * 2], 1)),
    ("stack((v, v, v))", lambda A, v, w, ii: np.stack((v, v, v))),
    ("stack([A, A], axis=-1)", lambda A, v, w, ii: np.stack([A, A], -1)),
    ("concatenate([v, w])", lambda A, v, w, ii: np.concatenate([v, w])),
    ("concatenate((A, A[:, :2]), axis=1)",
     lambda A, v, w, ii: np.concatenate((A, A[:, :2]), axis=1)),
    ("concatenate([A, v[None, :]], axis=0)",
     lambda A, v, w, ii: np.concatenate([A, v[None, :]], axis=0)),
    ("pad(v, (1, 0))", lambda A, v, w, ii: np.pad(v, (1, 0))),
    ("pad(v, 2, constant_values=1.5)",
     lambda A, v, w, ii: np.pad(v, 2, constant_values=1.5)),
    ("pad(A, ((0, 0), (2, 1)))", lambda A, v, w, ii: np.pad(A, ((0, 0), (2, 1)))),
    ("pad(A, ((1, 0),), constant_values=-1)",
     lambda A, v, w, ii: np.pad(A, ((1, 0),), constant_values=-1)),
    ("broadcast_to(w[:, None], (3, 4))",
     lambda A, v, w, ii: np.broadcast_to(w[:, None], (3, 4))),
    ("broadcast_to(v, (2, K))", lambda A, v, w, ii: np.broadcast_to(v, (2, 4))),
    ("flip(v)", lambda A, v, w, ii: np.flip(v)),
    ("flip(A, axis=1)", lambda A, v, w, ii: np.flip(A, axis=1)),
    ("flip(A)", lambda A, v, w, ii: np.flip(A)),
    ("flip(A, (0, 1))", lambda A, v, w, ii: np.flip(A, (0, 1))),
    ("repeat(v, 2)", lambda A, v, w, ii: np.repeat(v, 2)),
    ("repeat(A, 3, axis=0)", lambda A, v, w, ii: np.repeat(A, 3, axis=0)),
    ("repeat(A, K, axis=-1)", lambda A, v, w, ii: np.repeat(A, 4, axis=-1)),
    ("tile(w, 2)", lambda A, v, w, ii: np.tile(w, 2)),
    ("tile(w, (2, 1))", lambda A, v, w, ii: np.tile(w, (2, 1))),
    ("tile(A, (2, 1, 3))", lambda A, v, w, ii: np.tile(A, (2, 1, 3))),
    ("take(v, ii)", lambda A, v, w, ii: np.take(v, ii)),
    ("take(A, ii, axis=1)", lambda A, v, w, ii: np.take(A, ii, axis=1)),
    ("take(A, [[0, 2], [1, 1]], axis=0)",
     lambda A, v, w, ii: np.take(A, [[0, 2], [1, 1]], axis=0)),
    ("cumprod(v)", lambda A, v, w, ii: np.cumprod(v)),
    ("cumprod(A, -1)", lambda A, v, w, ii: np.cumprod(A, -1)),
    ("A.cumprod(axis=0)", lambda A, v, w, ii: A.cumprod(axis=0)),
    ("prod(A, axis=0)", lambda A, v, w, ii: np.prod(A, axis=0)),
    ("prod(v)", lambda A, v, w, ii: np.prod(v)),
    ("A.sum(-1)", lambda A, v, w, ii: A.sum(-1)),
    ("A.max(1)", lambda A, v, w, ii: A.max(1)),
    ("A.mean(axis=0)", lambda A, v, w, ii: A.mean(axis=0)),
    ("sum(A, -1)", lambda A, v, w, ii: np.sum(A, -1)),
    ("v.dot(v)", lambda A, v, w, ii: v.dot(v)),
    ("A[..., 1]", lambda A, v, w, ii: A[..., 1]),
    ("A[1, ...]", lambda A, v, w, ii: A[1, ...]),
    ("A[..., None]", lambda A, v, w, ii: A[..., None]),
    ("A[..., :1]", lambda A, v, w, ii: A[..., :1]),
    ("A[None, ...]", lambda A, v, w, ii: A[None, ...]),
    ("zeros((3, K)) + A", lambda A, v, w, ii: np.zeros((3, 4)) + A),
    ("full((K,), 2.0) * v", lambda A, v, w, ii: np.full((4,), 2.0) * v),
    # sort / argsort: JAX's stable order (ties keep theirs), any axis.
    ("sort(v)", lambda A, v, w, ii: np.sort(v)),
    ("sort(A, axis=0)", lambda A, v, w, ii: np.sort(A, axis=0)),
    ("sort(A)", lambda A, v, w, ii: np.sort(A)),
    ("argsort(v)", lambda A, v, w, ii: np.argsort(v, kind="stable")),
    ("argsort(A, 0)", lambda A, v, w, ii: np.argsort(A, 0, kind="stable")),
    ("argsort(concatenate([w, w, -w]))",
     lambda A, v, w, ii: np.argsort(np.concatenate([w, w, -w]), kind="stable")),
    ("sort(round(A * 2), axis=1)",
     lambda A, v, w, ii: np.sort(np.round(A * 2), axis=1)),
    ("v[argsort(v)[K - 1]]", lambda A, v, w, ii: v.max()),
    ("A[:, argsort(A[0])]", lambda A, v, w, ii: A[:, np.argsort(A[0], kind="stable")]),
    # Reductions over a tuple of axes; NumPy's axis permutations.
    ("sum(stack([A, A * 2]), axis=(0, 2))",
     lambda A, v, w, ii: np.sum(np.stack([A, A * 2]), axis=(0, 2))),
    ("mean(stack([A, A]), axis=(-1, 0))",
     lambda A, v, w, ii: np.mean(np.stack([A, A]), axis=(-1, 0))),
    ("max(A, axis=(0, 1))", lambda A, v, w, ii: np.max(A, axis=(0, 1))),
    ("logsumexp(stack([A, -A]), (1, 2))",
     lambda A, v, w, ii: np.log(np.exp(np.stack([A, -A])).sum(axis=(1, 2)))),
    ("transpose(stack([A, A * 2]), (1, 2, 0))",
     lambda A, v, w, ii: np.transpose(np.stack([A, A * 2]), (1, 2, 0))),
    ("transpose(A, (1, 0))", lambda A, v, w, ii: np.transpose(A, (1, 0))),
    ("swapaxes(stack([A, A * 2]), 0, -1)",
     lambda A, v, w, ii: np.swapaxes(np.stack([A, A * 2]), 0, -1)),
    ("moveaxis(stack([A, A * 2]), 0, 2)",
     lambda A, v, w, ii: np.moveaxis(np.stack([A, A * 2]), 0, 2)),
    ("moveaxis(stack([A, A * 2]), -1, 0)",
     lambda A, v, w, ii: np.moveaxis(np.stack([A, A * 2]), -1, 0)),
]


class ArrayFunctions(E.E2ETestCase):
    def test_every_form_matches_numpy(self):
        so = self.compile_source("array_functions", E.expression_battery(
            ["A ~ Normal(0, 1)[3, K];", "v ~ Normal(0, 1)[K];",
             "w ~ Normal(0, 1)[3];"], [expr for expr, _ in CASES]))
        rng = np.random.default_rng(7)
        D = 5
        A = rng.normal(size=(D, 3, 4))
        v = rng.normal(size=(D, 4))
        w = rng.normal(size=(D, 3))
        ii = np.array([3, 0, 2, 2, 1], dtype=np.int32)
        post = self.savez("af_post.npz", A=A, v=v, w=w)
        data = {"x": self.save("af_x.npy", np.zeros(3)),
                "ii": self.save("af_ii.npy", ii)}
        out = self.fresh()
        E.run_cmd("predict", so, data, out, posterior=post, seed=1,
                  sites=["d%d" % i for i in range(len(CASES))])
        got = E.read_arrays(out)
        for i, (expr, ref) in enumerate(CASES):
            want = np.stack([np.asarray(ref(A[d], v[d], w[d], ii),
                                        dtype=np.float64) for d in range(D)])
            self.assertEqual(got["d%d" % i].shape, want.shape, expr)
            np.testing.assert_allclose(got["d%d" % i], want, rtol=1e-14,
                                       atol=0, err_msg=expr)


# NumPyro examples, "Dirichlet Process Mixture Models" (truncated
# stick-breaking), as its mix_weights helper writes it.
DP_MIXTURE = """
def mix_weights(beta) {
  let beta1m_cumprod = cumprod(1 - beta, axis=-1);
  return pad(beta, (0, 1), constant_values=1) *
         pad(beta1m_cumprod, (1, 0), constant_values=1);
}

model dpm(x: f64[N]) -> (y: f64[N]) {
  alpha ~ Gamma(1, 1);
  beta ~ Beta(1, alpha)[T - 1];
  mu ~ Normal(0, 5)[T];
  sigma ~ HalfNormal(2)[T];
  deterministic w = mix_weights(beta);
  plate data(N) {
    y ~ MixtureSameFamily(Categorical(probs=w), Normal(mu, sigma));
  }
}
"""


class DirichletProcessMixture(E.E2ETestCase):
    def test_weights_and_log_likelihood(self):
        rng = np.random.default_rng(8)
        N, T, D = 40, 6, 5
        y = np.concatenate([rng.normal(-2, 0.5, N // 2),
                            rng.normal(3, 1, N - N // 2)])
        beta = rng.uniform(0.1, 0.9, (D, T - 1))
        mu = rng.normal(0, 3, (D, T))
        sigma = rng.uniform(0.5, 2, (D, T))
        post = self.savez("dp_post.npz", alpha=rng.uniform(0.5, 2, D),
                          beta=beta, mu=mu, sigma=sigma)
        so = self.compile_source("dp_mixture", DP_MIXTURE)
        data = {"x": self.save("dp_x.npy", np.zeros(N)),
                "y": self.save("dp_y.npy", y)}
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so, data, out, posterior=post)
        b1m = np.cumprod(1 - beta, axis=-1)
        w = (np.pad(beta, ((0, 0), (0, 1)), constant_values=1)
             * np.pad(b1m, ((0, 0), (1, 0)), constant_values=1))
        np.testing.assert_allclose(w.sum(-1), 1, rtol=1e-12)
        comp = stats.norm.logpdf(y[None, :, None], mu[:, None],
                                 sigma[:, None])
        ref = special.logsumexp(comp + np.log(w[:, None]), axis=-1)
        np.testing.assert_allclose(E.read_arrays(out)["y"], ref, rtol=1e-12)
        pred = self.fresh()
        E.run_cmd("predict", so, {"x": data["x"]}, pred, posterior=post,
                  seed=2, sites=["w"])
        np.testing.assert_allclose(E.read_arrays(pred)["w"], w, rtol=1e-14)


REFERENCE_CATEGORY = """
model m(X: f64[N, K]) -> (y: i32[N]) {
  beta ~ Normal(0, 1)[K, C];
  let eta = X @ beta;
  y ~ Categorical(logits=%s);
}
"""

CHOICE_STACKED = """
model heating(ic: f64[N, A], oc: f64[N, A]) -> (y: i32[N]) {
  alphas ~ Normal(0, 1)[A];
  beta_ic ~ Normal(0, 1);
  beta_oc ~ Normal(0, 1);
  let u = alphas + beta_ic * ic + beta_oc * oc;
  let s = stack([u[:, 0], u[:, 1], u[:, 2], zeros(N)], axis=1);
  y ~ Categorical(logits=s);
}
"""


class ReferenceCategory(E.E2ETestCase):
    def test_concatenate_and_pad_agree_with_numpy(self):
        rng = np.random.default_rng(9)
        N, K, C, D = 50, 3, 3, 4
        X = rng.normal(size=(N, K))
        y = rng.integers(0, C + 1, N).astype(np.int32)
        beta = rng.normal(size=(D, K, C))
        post = self.savez("rc_post.npz", beta=beta)
        data = {"X": self.save("rc_X.npy", X), "y": self.save("rc_y.npy", y)}
        eta = np.einsum("nk,dkc->dnc", X, beta)
        logits = np.concatenate([np.zeros((D, N, 1)), eta], axis=2)
        ref = np.take_along_axis(special.log_softmax(logits, axis=2),
                                 y[None, :, None], 2)[..., 0]
        forms = {"rc_concat": "concatenate([zeros((N, 1)), eta], axis=1)",
                 "rc_pad": "pad(eta, ((0, 0), (1, 0)))"}
        outs = []
        for name, form in forms.items():
            so = self.compile_source(name, REFERENCE_CATEGORY % form)
            out = self.fresh(".npz")
            E.run_cmd("log-likelihood", so, data, out, posterior=post,
                      devices=2, batch=7)
            outs.append(E.read_arrays(out)["y"])
            np.testing.assert_allclose(outs[-1], ref, rtol=1e-12,
                                       err_msg=form)
        self.assertEqual(outs[0].tobytes(), outs[1].tobytes())

    def test_discrete_choice_with_stack(self):
        rng = np.random.default_rng(10)
        N, A, D = 30, 3, 4
        ic, oc = rng.uniform(0, 2, (N, A)), rng.uniform(0, 1, (N, A))
        y = rng.integers(0, A + 1, N).astype(np.int32)
        al, bi, bo = (rng.normal(size=(D, A)), rng.normal(size=D),
                      rng.normal(size=D))
        so = self.compile_source("choice_stacked", CHOICE_STACKED)
        out = self.fresh(".npz")
        E.run_cmd("log-likelihood", so,
                  {"ic": self.save("cs_ic.npy", ic),
                   "oc": self.save("cs_oc.npy", oc),
                   "y": self.save("cs_y.npy", y)}, out,
                  posterior=self.savez("cs_post.npz", alphas=al, beta_ic=bi,
                                       beta_oc=bo))
        u = al[:, None] + bi[:, None, None] * ic + bo[:, None, None] * oc
        s = np.concatenate([u, np.zeros((D, N, 1))], axis=2)
        ref = np.take_along_axis(special.log_softmax(s, axis=2),
                                 y[None, :, None], 2)[..., 0]
        np.testing.assert_allclose(E.read_arrays(out)["y"], ref, rtol=1e-12)


if __name__ == "__main__":
    E.main()
