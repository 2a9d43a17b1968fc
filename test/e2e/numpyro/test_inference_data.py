"""--layout inference-data: the store follows ArviZ's InferenceData schema
(posterior_predictive / predictions, log_likelihood, prior and
prior_predictive, observed_data; dims (chain, draw, then each axis's plate,
`obs`, or <site>_dim_<i>, as az.from_numpyro names them)), read with
the real clients: ArviZ from PyPI through xarray's DataTree reader
(ArviZ's own from_zarr refuses zarr 3), xarray per group and zarr-python 3. Values are those of the flat layout byte for byte, whatever
the plan, batch size and device count; az.loo and az.waic on our
log_likelihood agree with ArviZ on the same values computed in NumPy from
a real NumPyro fit with two chains."""

import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference  # noqa: F401,E402  (skips without NumPyro)

import jax  # noqa: E402
import numpy as np  # noqa: E402
import numpyro  # noqa: E402
from numpyro.infer import MCMC, NUTS  # noqa: E402

import aimz_e2e as E  # noqa: E402

try:
    import arviz as az  # noqa: E402
    import xarray as xr  # noqa: E402
    import zarr  # noqa: E402
except ImportError:  # pragma: no cover - depends on the machine
    print("skipped: ArviZ/xarray/zarr are not installed; run "
          "tools/setup_venv.sh")
    sys.exit(77)


linreg = reference.linreg  # dsl-examples/linreg.aimz


def open_idata(path):
    return az.InferenceData.from_datatree(xr.open_datatree(path,
                                                           engine="zarr"))


CHAINS, DRAWS, N = 2, 60, 300


class InferenceDataLayout(E.E2ETestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = np.random.default_rng(5)
        X = rng.normal(size=(N, 3)).astype(np.float32)
        y = (0.3 + X @ np.array([1.0, -0.5, 0.2]) +
             rng.normal(0, 0.5, N)).astype(np.float32)
        mcmc = MCMC(NUTS(linreg), num_warmup=150, num_samples=DRAWS,
                    num_chains=CHAINS, chain_method="sequential",
                    progress_bar=False)
        mcmc.run(jax.random.key(6), X, y)
        # NumPyro's own pointwise log-likelihood, and a fit without it.
        cls.numpyro_idata = az.from_numpyro(mcmc)
        cls.nc = cls.path("fit.nc")
        az.from_numpyro(mcmc, log_likelihood=False).to_netcdf(cls.nc)
        cls.samples = {k: np.asarray(v) for k, v in
                       mcmc.get_samples(group_by_chain=True).items()}
        cls.X, cls.y = X, y
        cls.data = {"X": cls.save("X.npy", X), "y": cls.save("y.npy", y)}

    def run_both(self, command, data, extra=(), **kw):
        """The flat store and the InferenceData one for the same run."""
        flat, idl = self.fresh(), self.fresh()
        E.run_cmd(command, E.model("linreg"), data, flat, extra=extra, **kw)
        E.run_cmd(command, E.model("linreg"), data, idl,
                  extra=["--layout", "inference-data"] + list(extra), **kw)
        return flat, idl

    def assert_same_values(self, flat, idl, group, chains):
        ra = E.read_arrays(flat)
        g = zarr.open_group(idl, mode="r")[group]
        # The fit's chain and draw labels are coordinates there, not draws.
        self.assertEqual(sorted(ra), sorted(set(g.array_keys()) -
                                            {"chain", "draw"}))
        for k, a in ra.items():
            b = g[k][...]
            self.assertEqual(b.shape[:2], (chains, a.shape[0] // chains), k)
            self.assertTrue(E.same_bytes(b.reshape(a.shape), a), (group, k))

    def test_predict_groups_dims_and_values(self):
        for axis, batch, devices in (("obs", 64, 2), ("draw", 7, 2),
                                     ("draw", 1000, 1), ("obs", None, 1)):
            flat, idl = self.run_both("predict", self.data, posterior=self.nc,
                                      seed=3, axis=axis, batch=batch,
                                      devices=devices)
            self.assert_same_values(flat, idl, "posterior_predictive", CHAINS)
            idata = open_idata(idl)
            self.assertEqual(sorted(idata.groups()),
                             ["observed_data", "posterior_predictive"])
            pp = idata.posterior_predictive
            self.assertEqual(pp.y.dims, ("chain", "draw", "obs"))
            self.assertEqual(pp.y.shape, (CHAINS, DRAWS, N))
            self.assertEqual(pp.attrs["inference_library"], "aimzc")
            for key in ("created_at", "inference_library_version"):
                self.assertIn(key, pp.attrs)
            self.assertTrue(E.same_bytes(idata.observed_data.y.values,
                                         self.y))
            # Chain c's draws are the fit's chain c.
            mu = (self.samples["alpha"][..., None] +
                  np.einsum("cdk,nk->cdn", self.samples["beta"], self.X))
            np.testing.assert_allclose(pp.eta.values, np.exp(mu), rtol=2e-5)

    def test_every_group_opens_with_xarray(self):
        _, idl = self.run_both("predict", self.data, posterior=self.nc)
        for group in ("posterior_predictive", "observed_data"):
            ds = xr.open_zarr(idl, group=group)
            self.assertIn("y", ds)
        root = E.open_dataset(idl)
        self.assertEqual(root.attrs["layout"], "inference-data")
        self.assertEqual(root.attrs["num_chains"], CHAINS)

    def test_loo_and_waic_agree_with_arviz_on_numpy_values(self):
        flat, idl = self.run_both("log-likelihood", self.data,
                                  posterior=self.nc, axis="draw", batch=9)
        self.assert_same_values(flat, idl, "log_likelihood", CHAINS)
        ours = open_idata(idl)
        # Named as NumPyro's own log-likelihood is.
        self.assertEqual(ours.log_likelihood.y.dims,
                         ("chain", "draw", "obs"))
        self.assertEqual(ours.log_likelihood.y.dims,
                         self.numpyro_idata.log_likelihood.y.dims)
        # The user's workflow: the fit plus our groups.
        fit = az.from_netcdf(self.nc)
        fit.extend(ours)
        # The same pointwise log-likelihood in NumPy (float64).
        s = {k: v.astype(np.float64) for k, v in self.samples.items()}
        mu = s["alpha"][..., None] + np.einsum("cdk,nk->cdn", s["beta"],
                                               self.X.astype(np.float64))
        sd = s["sigma"][..., None]
        ll = (-0.5 * ((self.y - mu) / sd) ** 2 - np.log(sd) -
              0.5 * np.log(2 * np.pi))
        ref = az.from_netcdf(self.nc)
        ref.add_groups(log_likelihood={"y": ll})
        for fn in (az.loo, az.waic):
            est = "elpd_loo" if fn is az.loo else "elpd_waic"
            a = fn(fit, pointwise=True)
            for other in (ref, self.numpyro_idata):
                b = fn(other, pointwise=True)
                self.assertAlmostEqual(a[est], b[est],
                                       delta=1e-4 * abs(b[est]))
                np.testing.assert_allclose(a["se"], b["se"], rtol=1e-3)

    def test_prior_predictive_groups(self):
        flat, idl = self.run_both("prior-predictive", {"X": self.data["X"]},
                                  num_samples=50, sites=["y", "alpha", "eta"],
                                  seed=1)
        idata = open_idata(idl)
        self.assertEqual(sorted(idata.groups()), ["prior", "prior_predictive"])
        self.assertEqual(idata.prior_predictive.y.shape, (1, 50, N))
        self.assertEqual(idata.prior.alpha.dims, ("chain", "draw"))
        fa = E.read_arrays(flat)
        self.assertTrue(E.same_bytes(idata.prior.alpha.values[0], fa["alpha"]))
        self.assertTrue(E.same_bytes(idata.prior_predictive.y.values[0],
                                     fa["y"]))

    def test_out_of_sample_writes_predictions(self):
        _, idl = self.run_both("predict", self.data, posterior=self.nc)
        out = self.fresh()
        E.run_cmd("predict", E.model("linreg"), self.data, out,
                  posterior=self.nc,
                  extra=["--layout", "inference-data", "--out-of-sample"])
        idata = open_idata(out)
        self.assertEqual(sorted(idata.groups()), ["predictions"])
        self.assertTrue(E.same_bytes(idata.predictions.y.values,
                                     open_idata(idl).posterior_predictive.y
                                     .values))

    def test_zarr_v3_store(self):
        flat, idl = self.run_both("predict", {"X": self.data["X"]},
                                  posterior=self.nc, fmt=3, axis="draw",
                                  batch=16)
        g = zarr.open_group(idl, mode="r")
        self.assertEqual(sorted(k for k, _ in g.groups()),
                         ["posterior_predictive"])
        self.assertEqual(g["posterior_predictive"].attrs["inference_library"],
                         "aimzc")
        self.assertEqual(g["posterior_predictive"]["y"].metadata
                         .dimension_names, ("chain", "draw", "obs"))
        idata = open_idata(idl)
        self.assertEqual(idata.posterior_predictive.y.shape, (CHAINS, DRAWS, N))

    def test_with_posterior_is_a_whole_inference_data(self):
        # --with-posterior: the posterior group beside ours, so az.loo runs
        # on the store alone and agrees with the fit joined to it.
        out = self.fresh()
        E.run_cmd("log-likelihood", E.model("linreg"), self.data, out,
                  posterior=self.nc, extra=["--layout", "inference-data",
                                            "--with-posterior",
                                            "--batch-size", "7"])
        ours = open_idata(out)
        self.assertEqual(sorted(ours.groups()),
                         ["log_likelihood", "observed_data", "posterior"])
        fit = az.from_netcdf(self.nc)
        # The fit's latents, chain by chain, draw by draw, in the model's
        # precision (the f64 fit rounded to f32, as the run read them);
        # NumPyro's deterministic 'eta' is recomputed, not copied.
        self.assertEqual(sorted(ours.posterior.data_vars),
                         ["alpha", "beta", "sigma"])
        for k in ("alpha", "beta", "sigma"):
            self.assertEqual(ours.posterior[k].dtype, np.float32)
            np.testing.assert_array_equal(
                ours.posterior[k].values,
                fit.posterior[k].values.astype(np.float32), k)
        self.assertEqual(ours.posterior.beta.dims[:2], ("chain", "draw"))
        self.assertEqual(ours.posterior.attrs["inference_library"], "aimzc")
        joined = az.from_netcdf(self.nc)
        joined.extend(az.InferenceData(log_likelihood=ours.log_likelihood),
                      join="right")
        a, b = az.loo(ours), az.loo(joined)
        self.assertAlmostEqual(a["elpd_loo"], b["elpd_loo"], places=6)
        # Predict too; and the errors: the flat layout, no posterior.
        out = self.fresh()
        E.run_cmd("predict", E.model("linreg"), {"X": self.data["X"]}, out,
                  posterior=self.nc, extra=["--layout", "inference-data",
                                            "--with-posterior"])
        self.assertIn("posterior", open_idata(out).groups())
        r = E.run_cmd("predict", E.model("linreg"), {"X": self.data["X"]},
                      self.fresh(), posterior=self.nc,
                      extra=["--with-posterior"], check=False)
        self.assertNotEqual(r.rc, 0, r)
        self.assertIn("--with-posterior adds ArviZ's posterior group",
                      r.errors()[0])

    def test_the_posteriors_coordinates_are_kept(self):
        # A fit whose draws are labelled 1000, 1002, ... (thinned after
        # warm-up) and whose beta has a named dim with numeric labels: the
        # result carries both, so it aligns with the fit label for label.
        # Text labels name the dim but are not kept (no string dtype).
        draws = np.arange(1000, 1000 + 2 * DRAWS, 2)
        post = {k: v for k, v in self.samples.items() if k != "eta"}
        fit = az.from_dict(posterior=post,
                           coords={"draw": draws, "feature": [10, 20, 30]},
                           dims={"beta": ["feature"]})
        nc = self.path("labelled.nc")
        fit.to_netcdf(nc)
        out = self.fresh()
        E.run_cmd("log-likelihood", E.model("linreg"), self.data, out,
                  posterior=nc, extra=["--layout", "inference-data",
                                       "--with-posterior"])
        ours = open_idata(out)
        for g in ("log_likelihood", "posterior"):
            np.testing.assert_array_equal(ours[g].draw.values, draws, g)
            np.testing.assert_array_equal(ours[g].chain.values,
                                          np.arange(CHAINS), g)
        self.assertEqual(ours.posterior.beta.dims,
                         ("chain", "draw", "feature"))
        np.testing.assert_array_equal(ours.posterior.feature.values,
                                      [10, 20, 30])
        self.assertEqual(set(ours.log_likelihood.coords), {"chain", "draw"})
        # Exact alignment with the fit needs equal labels on every dim.
        a, b = xr.align(ours.posterior.beta, fit.posterior.beta,
                        join="exact")
        np.testing.assert_array_equal(a.values,
                                      b.values.astype(np.float32))
        # Text labels are kept as text.
        fit = az.from_dict(posterior=post,
                           coords={"feature": ["a", "b", "c"]},
                           dims={"beta": ["feature"]})
        fit.to_netcdf(nc)
        out = self.fresh()
        E.run_cmd("predict", E.model("linreg"), {"X": self.data["X"]}, out,
                  posterior=nc, extra=["--layout", "inference-data",
                                       "--with-posterior"])
        ours = open_idata(out)
        self.assertEqual(ours.posterior.beta.dims,
                         ("chain", "draw", "feature"))
        self.assertEqual(list(ours.posterior["feature"].values), ["a", "b", "c"])
        np.testing.assert_array_equal(ours.posterior_predictive.draw.values,
                                      np.arange(DRAWS))

    def test_an_npz_posterior_is_one_chain(self):
        npz = self.savez("fit.npz", **{k: v.reshape(-1, *v.shape[2:])
                                       for k, v in self.samples.items()
                                       if k != "eta"})
        _, idl = self.run_both("predict", {"X": self.data["X"]},
                               posterior=npz)
        self.assertEqual(open_idata(idl).posterior_predictive.y.shape,
                         (1, CHAINS * DRAWS, N))

    def test_errors(self):
        r = E.run_cmd("predict", E.model("linreg"), {"X": self.data["X"]},
                      self.path("out.npz"), posterior=self.nc,
                      extra=["--layout", "inference-data"], check=False)
        # NumPyro's samples hold the deterministic 'eta': noted as
        # recomputed, before the one error.
        self.assertNotEqual(r.rc, 0, r)
        self.assertEqual(len(r.errors()), 1, r)
        self.assertIn("give --out a directory", r.errors()[0])
        self.assertTrue(all("'eta'" in w for w in r.warnings()), r)
        r = E.run_cmd("predict", E.model("linreg"), {"X": self.data["X"]},
                      self.fresh(), posterior=self.nc,
                      extra=["--out-of-sample"], check=False)
        self.assertNotEqual(r.rc, 0, r)
        self.assertEqual(len(r.errors()), 1, r)
        self.assertIn("--layout inference-data", r.errors()[0])
        self.assertTrue(all("'eta'" in w for w in r.warnings()), r)


if __name__ == "__main__":
    E.main()
