"""What if every customer were treated, against none? An uplift question
answered with `aimzc` effects on a NumPyro fit (docs/interventions.md, "Interventions and
effects").

    aimzc docs/examples/uplift.aimz -o uplift.so
    PYTHONPATH=build/python .venv/bin/python docs/examples/uplift.py uplift.so

Fits the model with NumPyro's NUTS on synthetic data (half the customers
treated), then computes the scenario "everyone treated" minus the baseline
"no one treated" for every posterior draw and customer with common random
numbers, and summarizes the uplift. Checks the conversion probabilities'
effect against NumPy on the same draws; exits non-zero if they disagree.
"""

import sys

import jax
import numpy as np
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS

import aimzc


def uplift(x, treat, converted=None):  # docs/examples/uplift.aimz
    a = numpyro.sample("a", dist.Normal(0, 1.5))
    b = numpyro.sample("b", dist.Normal(0, 1))
    t = numpyro.sample("t", dist.Normal(0, 1))
    tx = numpyro.sample("tx", dist.Normal(0, 1))
    with numpyro.plate("obs", x.shape[0]):
        p = numpyro.deterministic(
            "p", jax.nn.sigmoid(a + b * x + (t + tx * x) * treat))
        numpyro.sample("converted", dist.Bernoulli(probs=p), obs=converted)


def main(model_so):
    rng = np.random.default_rng(7)
    n = 4000
    x = rng.normal(size=n).astype(np.float32)
    treat = (rng.uniform(size=n) < 0.5).astype(np.float32)
    logit = -1.0 + 0.8 * x + (0.6 + 0.4 * x) * treat
    converted = (rng.uniform(size=n) < 1 / (1 + np.exp(-logit))).astype(np.int32)

    mcmc = MCMC(NUTS(uplift), num_warmup=300, num_samples=500,
                progress_bar=False)
    mcmc.run(jax.random.key(0), x, treat, converted)
    post = {k: np.asarray(v) for k, v in mcmc.get_samples().items()
            if k != "p"}

    model = aimzc.load(model_so)
    eff = model.effect({"x": x, "treat": np.ones(n, np.float32)}, post,
                       baseline_data={"treat": np.zeros(n, np.float32)},
                       seed=1)
    # Per draw: the average uplift over customers, in conversion probability
    # and in conversions (the same uniforms decide both scenarios, so a
    # customer converts in both, neither, or only one of them).
    dp = eff["p"].values.mean(axis=1)
    dy = eff["converted"].values.mean(axis=1)
    lo, hi = np.quantile(dp, [0.05, 0.95])
    print("uplift in conversion probability: mean %.4f, 90%% interval "
          "[%.4f, %.4f] over %d draws" % (dp.mean(), lo, hi, dp.size))
    print("uplift in conversions per customer: mean %.4f (sd over draws "
          "%.4f)" % (dy.mean(), dy.std()))
    print("share of customers converting only when treated: %.4f, only "
          "when not: %.4f" % ((eff["converted"].values == 1).mean(),
                              (eff["converted"].values == -1).mean()))

    # Common random numbers against independent seeds: the Monte Carlo
    # error of each draw's average uplift around its exact value dp.
    ones, zeros = np.ones(n, np.float32), np.zeros(n, np.float32)
    y1 = model.predict({"x": x, "treat": ones}, post, seed=1)["converted"]
    y0 = model.predict({"x": x, "treat": zeros}, post, seed=2)["converted"]
    independent = (y1.values - y0.values).mean(axis=1)
    var_crn = ((dy - dp) ** 2).mean()
    var_ind = ((independent - dp) ** 2).mean()
    print("Monte Carlo variance of a draw's average uplift: common random "
          "numbers %.3g, independent seeds %.3g (%.0fx less)"
          % (var_crn, var_ind, var_ind / var_crn))
    assert var_ind > 2.5 * var_crn  # Bernoulli noise: about 4x here

    # The same effect computed by NumPy from the posterior draws.
    def prob(tr):
        z = (post["a"][:, None] + post["b"][:, None] * x +
             (post["t"][:, None] + post["tx"][:, None] * x) * tr)
        return 1 / (1 + np.exp(-z.astype(np.float64)))
    want = prob(1.0) - prob(0.0)
    np.testing.assert_allclose(eff["p"].values, want, atol=2e-6)
    # Conversions follow the probabilities: the mean uplift agrees.
    assert abs(dy.mean() - dp.mean()) < 5 * dy.std() / np.sqrt(dy.size) + 0.01
    # The true average uplift of the simulation is inside the interval.
    truth = (1 / (1 + np.exp(-(-1.0 + 0.8 * x + 0.6 + 0.4 * x))) -
             1 / (1 + np.exp(-(-1.0 + 0.8 * x)))).mean()
    print("true average uplift of the simulation: %.4f" % truth)
    assert lo - 0.02 < truth < hi + 0.02
    print("aimzc's effect agrees with NumPy")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "uplift.so")
