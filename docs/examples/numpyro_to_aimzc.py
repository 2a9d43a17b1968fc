"""From a NumPyro fit to predictive draws and pointwise log-likelihoods with
aimzc, checked against NumPyro's own Predictive and log_likelihood.

    aimzc dsl-examples/linreg.aimz -o linreg.so
    PYTHONPATH=build/python .venv/bin/python docs/examples/numpyro_to_aimzc.py linreg.so

(.venv is tools/setup_venv.sh's environment with NumPyro; the aimzc module
is built for Python 3.11, the version of both Debian's python3 and the
venv.) Exits non-zero if the results disagree.
"""

import sys

import jax
import jax.numpy as jnp
import numpy as np
import numpyro
import numpyro.distributions as dist
from numpyro.infer import MCMC, NUTS, Predictive
from numpyro.infer.util import log_likelihood

import aimzc


def linreg(X, y=None):  # dsl-examples/linreg.aimz in NumPyro
    alpha = numpyro.sample("alpha", dist.Normal(0, 1))
    beta = numpyro.sample("beta", dist.Normal(0, 1).expand([X.shape[1]]))
    sigma = numpyro.sample("sigma", dist.HalfNormal(1))
    with numpyro.plate("obs", X.shape[0]):
        mu = alpha + X @ beta
        numpyro.deterministic("eta", jnp.exp(mu))
        numpyro.sample("y", dist.Normal(mu, sigma), obs=y)


def main(model_so):
    rng = np.random.default_rng(0)
    n, k = 2000, 3
    X = rng.normal(size=(n, k)).astype(np.float32)
    y = (0.5 + X @ np.array([1.0, -2.0, 0.3]) +
         rng.normal(0, 0.7, n)).astype(np.float32)

    mcmc = MCMC(NUTS(linreg), num_warmup=300, num_samples=400,
                progress_bar=False)
    mcmc.run(jax.random.key(1), X, y)
    samples = mcmc.get_samples()                      # a dict, as it is

    model = aimzc.load(model_so)
    ll = model.log_likelihood({"X": X, "y": y}, samples)
    pred = model.predict({"X": X}, samples, seed=0)
    print(model)
    print(pred)

    # Pointwise log-likelihoods equal NumPyro's (float32 arithmetic).
    ref_ll = np.asarray(log_likelihood(linreg, samples, X, y=y)["y"])
    np.testing.assert_allclose(ll["y"].values, ref_ll, rtol=1e-4, atol=1e-4)
    # Predictive means per observation agree within sampling error.
    ref = np.asarray(Predictive(linreg, samples)(jax.random.key(2), X)["y"])
    ours = pred["y"].values
    se = np.sqrt((ours.var(0) + ref.var(0)) / ours.shape[0])
    z = (ours.mean(0) - ref.mean(0)) / se
    print("log-likelihood: max |diff| %.2e; predictive means: mean |z| %.2f"
          % (np.abs(ll["y"].values - ref_ll).max(), np.abs(z).mean()))
    assert np.abs(z).mean() < 1.2 and (np.abs(z) > 5).mean() < 0.001
    # The deterministic site too.
    np.testing.assert_allclose(
        pred["eta"].values,
        np.exp(np.asarray(samples["alpha"])[:, None] +
               np.asarray(samples["beta"]) @ X.T), rtol=1e-4)
    print("aimzc agrees with NumPyro")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "linreg.so")
