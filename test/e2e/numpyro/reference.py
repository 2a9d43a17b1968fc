"""The NumPyro reference environment for the tests in this directory.

Importing it makes JAX compute in float64 on the CPU and puts test/e2e/run
(aimz_e2e) on the path, or exits 77 (ctest's skip) with a message when
NumPyro is not installed in the interpreter running the test (.venv, made
by tools/setup_venv.sh).
"""

import os
import sys

try:
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    import jax
    import numpyro
    import scipy  # noqa: F401
    jax.config.update("jax_enable_x64", True)
except ImportError as e:  # pragma: no cover - depends on the machine
    print("skipped: NumPyro is not installed (%s); run tools/setup_venv.sh" % e)
    sys.exit(77)

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "run"))


def linreg(X, y=None):
    """dsl-examples/linreg.aimz in NumPyro, its deterministic eta too."""
    import numpyro.distributions as dist
    alpha = numpyro.sample("alpha", dist.Normal(0, 1))
    beta = numpyro.sample("beta", dist.Normal(0, 1).expand([X.shape[1]]))
    sigma = numpyro.sample("sigma", dist.HalfNormal(1))
    with numpyro.plate("obs", X.shape[0]):
        mu = alpha + X @ beta
        numpyro.deterministic("eta", jax.numpy.exp(mu))
        numpyro.sample("y", dist.Normal(mu, sigma), obs=y)
