"""From a PyMC fit to predictive draws and pointwise log-likelihoods with
aimzc, through the InferenceData netCDF file PyMC users already have,
checked against PyMC's own compute_log_likelihood and
sample_posterior_predictive.

    aimzc dsl-examples/linreg.aimz -o linreg.so
    PYTHONPATH=build/python .venv/bin/python docs/examples/pymc_to_aimzc.py linreg.so

Exits 77 (skipped) without PyMC, non-zero if the results disagree.
"""

import os
import sys
import tempfile

import numpy as np

try:
    import pymc as pm
except ImportError:  # pragma: no cover - depends on the machine
    print("skipped: PyMC is not installed (tools/setup_venv.sh)")
    sys.exit(77)

import aimzc


def main(model_so):
    rng = np.random.default_rng(0)
    n, k = 2000, 3
    X = rng.normal(size=(n, k)).astype(np.float32)
    y = (0.5 + X @ np.array([1.0, -2.0, 0.3]) +
         rng.normal(0, 0.7, n)).astype(np.float32)

    # dsl-examples/linreg.aimz in PyMC.
    with pm.Model():
        Xd = pm.Data("X", X)
        alpha = pm.Normal("alpha", 0, 1)
        beta = pm.Normal("beta", 0, 1, shape=k)
        sigma = pm.HalfNormal("sigma", 1)
        mu = alpha + pm.math.dot(Xd, beta)
        pm.Deterministic("eta", pm.math.exp(mu))
        pm.Normal("y", mu, sigma, observed=y)
        idata = pm.sample(draws=300, tune=300, chains=2, cores=1,
                          random_seed=1, progressbar=False,
                          compute_convergence_checks=False)
        pm.compute_log_likelihood(idata, progressbar=False)
        ppc = pm.sample_posterior_predictive(idata, random_seed=2,
                                             progressbar=False)
    fit = os.path.join(tempfile.mkdtemp(prefix="pymc-"), "fit.nc")
    idata.to_netcdf(fit)                 # what a PyMC user has

    model = aimzc.load(model_so)
    ll = model.log_likelihood({"X": X, "y": y}, fit)
    pred = model.predict({"X": X}, fit, seed=0)
    print(pred)
    assert pred.attrs["num_chains"] == 2

    # Pointwise log-likelihoods equal PyMC's (our arithmetic is float32).
    ref_ll = idata.log_likelihood["y"].values.reshape(-1, n)
    np.testing.assert_allclose(ll["y"].values, ref_ll, rtol=1e-4, atol=1e-4)
    # Predictive means per observation agree within sampling error.
    ref = ppc.posterior_predictive["y"].values.reshape(-1, n)
    ours = pred["y"].values
    se = np.sqrt((ours.var(0) + ref.var(0)) / ours.shape[0])
    z = (ours.mean(0) - ref.mean(0)) / se
    print("log-likelihood: max |diff| %.2e; predictive means: mean |z| %.2f"
          % (np.abs(ll["y"].values - ref_ll).max(), np.abs(z).mean()))
    assert np.abs(z).mean() < 1.2 and (np.abs(z) > 5).mean() < 0.001
    # The deterministic site is the posterior's, recomputed.
    np.testing.assert_allclose(
        pred["eta"].values, idata.posterior["eta"].values.reshape(-1, n),
        rtol=1e-4)
    print("aimzc agrees with PyMC")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "linreg.so")
