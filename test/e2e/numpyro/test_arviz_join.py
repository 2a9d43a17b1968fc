"""Our log-likelihood joined to a NumPyro fit by name, as a notebook would:
a small NUTS fit of linreg (whose `plate obs(n)` is NumPyro's
`numpyro.plate("obs", n)`), az.from_numpyro, our log_likelihood on its
posterior (aimz-run on the netCDF, and the Python module on the
InferenceData itself where it is built), `idata.extend(ours,
join="right")`, then az.loo and az.compare. The dims must be NumPyro's
(chain, draw, obs): with y_dim_0 the join would pair nothing, and xarray
arithmetic between the two would broadcast to an outer product."""

import os
import sys
import unittest
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: F401,E402  (skips without NumPyro)

import jax  # noqa: E402
import numpy as np  # noqa: E402
from numpyro.infer import MCMC, NUTS  # noqa: E402

import aimz_e2e as E  # noqa: E402

try:
    import arviz as az  # noqa: E402
    import xarray as xr  # noqa: E402
except ImportError:  # pragma: no cover - depends on the machine
    print("skipped: ArviZ/xarray are not installed; run tools/setup_venv.sh")
    sys.exit(77)

CHAINS, DRAWS, N = 2, 50, 120
DIMS = ("chain", "draw", "obs")


def open_idata(path):
    return az.InferenceData.from_datatree(xr.open_datatree(path,
                                                           engine="zarr"))


class JoinToNumPyroFit(E.E2ETestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = np.random.default_rng(34)
        X = rng.normal(size=(N, 2)).astype(np.float32)
        y = (0.5 + X @ np.array([1.0, -1.0]) +
             rng.normal(0, 0.7, N)).astype(np.float32)
        mcmc = MCMC(NUTS(reference.linreg), num_warmup=100, num_samples=DRAWS,
                    num_chains=CHAINS, chain_method="sequential",
                    progress_bar=False)
        mcmc.run(jax.random.key(34), X, y)
        cls.fit = az.from_numpyro(mcmc)  # with NumPyro's own log_likelihood
        cls.nc = cls.path("fit.nc")
        cls.fit.to_netcdf(cls.nc)
        cls.X, cls.y = X, y
        cls.data = {"X": cls.save("X.npy", X), "y": cls.save("y.npy", y)}

    def ours_from_cli(self):
        out = self.fresh()
        E.run_cmd("log-likelihood", E.model("linreg"), self.data, out,
                  posterior=self.nc, extra=["--layout", "inference-data"])
        return open_idata(out)

    def check_join(self, ours):
        theirs = self.fit.log_likelihood["y"]
        self.assertEqual(theirs.dims, DIMS)
        self.assertEqual(ours.log_likelihood["y"].dims, DIMS)
        self.assertEqual(ours.observed_data["y"].dims, ("obs",))
        # Arithmetic pairs the observations by name: no outer product.
        diff = ours.log_likelihood["y"] - theirs
        self.assertEqual(diff.dims, DIMS)
        self.assertLess(float(abs(diff).max()), 1e-4)
        # join="right" takes our group over NumPyro's (the default keeps
        # NumPyro's and drops ours).
        joined = az.from_netcdf(self.nc)
        joined.extend(ours, join="right")
        np.testing.assert_array_equal(joined.log_likelihood["y"].values,
                                      ours.log_likelihood["y"].values)
        kept = az.from_netcdf(self.nc)
        kept.extend(ours)
        np.testing.assert_array_equal(kept.log_likelihood["y"].values,
                                      theirs.values)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # Pareto k on a tiny fit
            a, b = az.loo(joined), az.loo(self.fit)
            self.assertAlmostEqual(a["elpd_loo"], b["elpd_loo"],
                                   delta=1e-3 * abs(b["elpd_loo"]))
            table = az.compare({"aimz": joined, "numpyro": self.fit})
        self.assertEqual(sorted(table.index), ["aimz", "numpyro"])
        self.assertLess(abs(table["elpd_loo"]["aimz"] -
                            table["elpd_loo"]["numpyro"]),
                        1e-3 * abs(b["elpd_loo"]))

    def test_cli_on_the_fits_netcdf(self):
        self.check_join(self.ours_from_cli())

    def test_python_module_on_the_inference_data(self):
        try:
            import aimzc
        except ImportError as e:
            self.skipTest("the aimzc module is not built: %s" % e)
        model = aimzc.load(E.model("linreg"))
        ours = model.log_likelihood({"X": self.X, "y": self.y}, self.fit,
                                    layout="inference-data", progress=False)
        self.check_join(ours)


COUNTIES = ["Aitkin", "Anoka", "Becker", "Beltrami", "Benton", "Big Stone",
            "Blue Earth", "Brown"]


def hierarchical(x, g, y=None):
    """dsl-examples/hierarchical.aimz in NumPyro: plates 'groups' and
    'obs' as the model names them."""
    import numpyro
    import numpyro.distributions as dist
    mu_a = numpyro.sample("mu_a", dist.Normal(0, 5))
    sigma_a = numpyro.sample("sigma_a", dist.HalfNormal(2))
    with numpyro.plate("groups", len(COUNTIES)):
        a = numpyro.sample("a", dist.Normal(mu_a, sigma_a))
    b = numpyro.sample("b", dist.Normal(0, 1))
    sigma = numpyro.sample("sigma", dist.HalfCauchy(1))
    with numpyro.plate("obs", x.shape[0]):
        numpyro.sample("y", dist.Normal(a[g] + b * x, sigma), obs=y)


class JoinByCountyName(E.E2ETestCase):
    """A NumPyro fit whose dims carry text labels (county names, row
    names), as az.from_numpyro(coords=..., dims=...) gives them: our
    results carry the same labels, from the fit's netCDF (aimz-run) or
    from a data frame (the Python module), so that xr.align(...,
    join="exact") pairs them and .sel(groups="Anoka") works."""
    N = 80

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        import pandas as pd
        rng = np.random.default_rng(35)
        county = rng.choice(COUNTIES, cls.N)
        g = np.array([COUNTIES.index(c) for c in county], np.int32)
        x = rng.normal(size=cls.N).astype(np.float32)
        y = (rng.normal(size=8)[g] + 0.5 * x +
             rng.normal(0, 0.5, cls.N)).astype(np.float32)
        rows = ["house%03d" % i for i in range(cls.N)]
        mcmc = MCMC(NUTS(hierarchical), num_warmup=100, num_samples=40,
                    num_chains=2, chain_method="sequential", progress_bar=False)
        mcmc.run(jax.random.key(35), x, g, y)
        cls.fit = az.from_numpyro(mcmc, coords={"groups": COUNTIES, "obs": rows},
                                  dims={"a": ["groups"], "y": ["obs"]})
        cls.nc = cls.path("fit.nc")
        cls.fit.to_netcdf(cls.nc)
        cls.frame = pd.DataFrame(
            {"x": x, "y": y, "g": pd.Categorical(county, categories=COUNTIES)},
            index=pd.Index(rows, name="obs"))
        cls.data = {"x": cls.save("x.npy", x), "g": cls.save("g.npy", g),
                    "y": cls.save("y.npy", y)}

    def test_cli_keeps_the_fits_text_labels(self):
        out = self.fresh()
        E.run_cmd("log-likelihood", E.model("hierarchical"), self.data, out,
                  posterior=self.nc,
                  extra=["--layout", "inference-data", "--with-posterior"])
        ours = open_idata(out)
        self.assertEqual(list(ours.posterior["groups"].values), COUNTIES)
        a, b = xr.align(ours.posterior["a"], self.fit.posterior["a"], join="exact")
        np.testing.assert_allclose(a.values, b.values, rtol=1e-6)
        np.testing.assert_allclose(
            ours.posterior["a"].sel(groups="Anoka").values,
            self.fit.posterior["a"].sel(groups="Anoka").values, rtol=1e-6)

    def test_python_module_labels_from_the_frame(self):
        try:
            import aimzc
        except ImportError as e:
            self.skipTest("the aimzc module is not built: %s" % e)
        model = aimzc.load(E.model("hierarchical"))
        ours = model.log_likelihood(self.frame, self.fit, layout="inference-data",
                                    include_posterior=True, progress=False)
        self.assertEqual(list(ours.log_likelihood["obs"].values), list(self.frame.index))
        mine, theirs = xr.align(ours.log_likelihood["y"], self.fit.log_likelihood["y"],
                                join="exact")
        np.testing.assert_allclose(mine.values, theirs.values, rtol=1e-4, atol=1e-4)
        xr.align(ours.posterior, self.fit.posterior, join="exact")
        # Shuffled rows keep their labels: the join pairs them by name.
        shuffled = model.log_likelihood(self.frame.sample(frac=1, random_state=1),
                                        self.fit, layout="inference-data",
                                        progress=False)
        a, b = xr.align(shuffled.log_likelihood["y"], self.fit.log_likelihood["y"],
                        join="inner")
        self.assertEqual(a.sizes["obs"], self.N)
        np.testing.assert_allclose(a.sortby("obs").values, b.sortby("obs").values,
                                   rtol=1e-4, atol=1e-4)


if __name__ == "__main__":
    E.main()
