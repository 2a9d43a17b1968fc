"""Posteriors as ArviZ writes them: a NumPyro NUTS fit with two chains,
az.from_numpyro(mcmc).to_netcdf("fit.nc"), read by aimz-run --posterior
fit.nc. The draws are the chains one after the other (chain-major), so the
results equal those of the same draws from an .npz byte for byte, and the
store records the chain count. A file without a posterior group is one
error line."""

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
except ImportError:  # pragma: no cover - depends on the machine
    print("skipped: ArviZ is not installed; run tools/setup_venv.sh")
    sys.exit(77)


linreg = reference.linreg  # dsl-examples/linreg.aimz


class ArvizPosteriors(E.E2ETestCase):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = np.random.default_rng(2)
        n = 500
        X = rng.normal(size=(n, 3)).astype(np.float32)
        y = (0.3 + X @ np.array([1.0, -0.5, 0.2]) +
             rng.normal(0, 0.5, n)).astype(np.float32)
        mcmc = MCMC(NUTS(linreg), num_warmup=150, num_samples=60,
                    num_chains=2, chain_method="sequential",
                    progress_bar=False)
        mcmc.run(jax.random.key(3), X, y)
        cls.nc = cls.path("fit.nc")
        az.from_numpyro(mcmc).to_netcdf(cls.nc)
        # The same draws, chains one after the other, as an .npz.
        s = mcmc.get_samples()
        cls.npz = cls.savez("fit.npz", **{k: np.asarray(v) for k, v in s.items()
                                          if k != "eta"})
        cls.data = {"X": cls.save("X.npy", X), "y": cls.save("y.npy", y)}

    def test_predict_and_log_likelihood_from_netcdf(self):
        for command, data in (("predict", {"X": self.data["X"]}),
                              ("log-likelihood", self.data)):
            a, b = self.fresh(), self.fresh()
            E.run_cmd(command, E.model("linreg"), data, a, posterior=self.nc,
                      seed=4)
            E.run_cmd(command, E.model("linreg"), data, b, posterior=self.npz,
                      seed=4)
            ra, rb = E.read_arrays(a), E.read_arrays(b)
            self.assertEqual(sorted(ra), sorted(rb))
            for k in ra:
                self.assertEqual(ra[k].shape[0], 120, k)
                self.assertTrue(E.same_bytes(ra[k], rb[k]), (command, k))
            self.assertEqual(E.open_group(a).attrs["num_chains"], 2)
            self.assertNotIn("num_chains", dict(E.open_group(b).attrs))

    def test_a_file_without_a_posterior_group(self):
        path = self.path("prior_only.nc")
        az.from_dict(prior={"alpha": np.zeros((1, 4))}).to_netcdf(path)
        r = E.run_cmd("predict", E.model("linreg"), {"X": self.data["X"]},
                      self.fresh(), posterior=path, check=False)
        self.assert_one_error_line(r, "has no 'posterior' group")

    def test_dims_larger_than_memory(self):
        # A hostile or broken file: HDF5 stores unwritten chunks as nothing,
        # so 7 KB can declare 2^66 doubles. Before the check the byte count
        # wrapped around to a few bytes and the read went past the buffer.
        import h5netcdf
        path = self.path("huge.nc")
        with h5netcdf.File(path, "w") as f:
            g = f.create_group("posterior")
            g.dimensions = {"chain": 1 << 22, "draw": 1 << 22,
                            "alpha_dim_0": 1 << 22}
            g.create_variable("alpha", ("chain", "draw", "alpha_dim_0"),
                              dtype="f8", chunks=(1, 1, 1024))
        r = E.run_cmd("predict", E.model("linreg"), {"X": self.data["X"]},
                      self.fresh(), posterior=path, check=False)
        self.assert_one_error_line(r, "too large to read into memory")

    def test_only_the_models_variables_are_read(self):
        # A 12 KiB file declaring a 335 MB variable the model lacks peaked at
        # 184 MB; one declaring 4 GiB took as much and minutes. Only the
        # variables the model needs are read now.
        import h5netcdf
        import resource
        path = self.path("extra_var.nc")
        rng = np.random.default_rng(7)
        with h5netcdf.File(path, "w") as f:
            g = f.create_group("posterior")
            g.dimensions = {"chain": 1, "draw": 4, "beta_dim_0": 3,
                            "junk_dim_0": 1 << 29}
            for name, dims in (("alpha", ("chain", "draw")),
                               ("sigma", ("chain", "draw")),
                               ("beta", ("chain", "draw", "beta_dim_0"))):
                v = g.create_variable(name, dims, dtype="f4")
                v[...] = rng.uniform(0.5, 1, v.shape).astype(np.float32)
            g.create_variable("junk", ("chain", "draw", "junk_dim_0"),
                              dtype="f8", chunks=(1, 1, 1 << 16))
        self.assertLess(os.path.getsize(path), 1 << 20)
        r = E.run_cmd("predict", E.model("linreg"), {"X": self.data["X"]},
                      self.fresh(), posterior=path, check=False)
        self.assertEqual(r.rc, 0, r)
        self.assertTrue(any("'junk'" in w for w in r.warnings()), r)
        peak_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
        self.assertLess(peak_kib, 1 << 20, "a child peaked at %d KiB" % peak_kib)
        # A variable the model needs that declares far more than the file
        # holds is refused before anything is allocated.
        big = self.path("big_alpha.nc")
        with h5netcdf.File(big, "w") as f:
            g = f.create_group("posterior")
            g.dimensions = {"chain": 1, "draw": 1 << 28}
            g.create_variable("alpha", ("chain", "draw"), dtype="f8",
                              chunks=(1, 1 << 16))
        r = E.run_cmd("predict", E.model("linreg"), {"X": self.data["X"]},
                      self.fresh(), posterior=big, check=False)
        self.assert_one_error_line(r, "'alpha'", "more than the")

    def test_a_libnetcdf_without_its_functions(self):
        # aimz-run loads libnetcdf by its SONAME on the first .nc posterior;
        # a library of that name that lacks the functions is an error that
        # says so, not a crash. (An empty one built here comes first on
        # LD_LIBRARY_PATH.)
        import shutil
        import subprocess
        cc = shutil.which("cc") or shutil.which("gcc")
        if not cc:
            self.skipTest("no C compiler to build a stand-in libnetcdf")
        fake = self.path("fake_lib")
        os.makedirs(fake, exist_ok=True)
        src = os.path.join(fake, "empty.c")
        with open(src, "w") as f:
            f.write("int aimz_not_netcdf;\n")
        for soname in ("libnetcdf.so.19", "libnetcdf.so"):
            subprocess.run([cc, "-shared", "-fPIC", "-o",
                            os.path.join(fake, soname), src], check=True)
        old = os.environ.get("LD_LIBRARY_PATH")
        os.environ["LD_LIBRARY_PATH"] = fake
        try:
            r = E.run_cmd("predict", E.model("linreg"),
                          {"X": self.data["X"]}, self.fresh(),
                          posterior=self.nc, check=False)
        finally:
            if old is None:
                del os.environ["LD_LIBRARY_PATH"]
            else:
                os.environ["LD_LIBRARY_PATH"] = old
        self.assert_one_error_line(r, "has no 'nc_open'")

    def test_not_netcdf(self):
        path = self.path("text.nc")
        with open(path, "w") as f:
            f.write("not netcdf\n")
        r = E.run_cmd("predict", E.model("linreg"), {"X": self.data["X"]},
                      self.fresh(), posterior=path, check=False)
        self.assert_one_error_line(r, "cannot read it as netCDF")


class NetcdfInputs(E.E2ETestCase):
    """--data NAME=FILE.nc[:VARIABLE]: an input or observed output read from
    a netCDF file (xarray's to_netcdf, an InferenceData's constant_data and
    observed_data), byte for byte the run from .npy files; hostile files are
    one error line."""

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        import xarray as xr
        rng = np.random.default_rng(9)
        n, draws = 300, 40
        cls.X = rng.normal(size=(n, 3)).astype(np.float32)
        cls.y = rng.normal(size=n).astype(np.float32)
        post = {"alpha": rng.normal(size=(2, draws // 2)),
                "beta": rng.normal(size=(2, draws // 2, 3)),
                "sigma": rng.gamma(2, 0.5, size=(2, draws // 2))}
        cls.npz = cls.savez("post.npz", **{k: v.reshape(draws, *v.shape[2:])
                                           for k, v in post.items()})
        cls.npy = {"X": cls.save("X.npy", cls.X), "y": cls.save("y.npy", cls.y)}
        cls.plain = cls.path("inputs.nc")
        xr.Dataset({"design": (("obs", "k"), cls.X),
                    "y": (("obs",), cls.y)}).to_netcdf(cls.plain, engine="h5netcdf")
        cls.idata = cls.path("fit.nc")
        az.from_dict(posterior=post, constant_data={"X": cls.X},
                     observed_data={"y": cls.y}).to_netcdf(cls.idata)

    def same_as_npy(self, command, data, posterior):
        a, b = self.fresh(), self.fresh()
        want = {k: v for k, v in self.npy.items() if k in data}
        E.run_cmd(command, E.model("linreg"), data, a, posterior=posterior, seed=5)
        E.run_cmd(command, E.model("linreg"), want, b, posterior=self.npz, seed=5)
        ra, rb = E.read_arrays(a), E.read_arrays(b)
        self.assertEqual(sorted(ra), sorted(rb))
        for k in ra:
            self.assertTrue(E.same_bytes(ra[k], rb[k]), (command, k))

    def test_a_named_variable(self):
        self.same_as_npy("predict", {"X": self.plain + ":design"}, self.npz)
        self.same_as_npy("log-likelihood",
                         {"X": self.plain + ":design", "y": self.plain}, self.npz)

    def test_an_inference_data_file_for_everything(self):
        # X from constant_data, y from observed_data, the draws from the
        # posterior group: one file.
        self.same_as_npy("log-likelihood", {"X": self.idata, "y": self.idata},
                         self.idata)
        self.same_as_npy("predict", {"X": self.idata + ":constant_data/X"},
                         self.idata)

    def test_a_missing_variable(self):
        r = E.run_cmd("predict", E.model("linreg"), {"X": self.plain},
                      self.fresh(), posterior=self.npz, check=False)
        self.assert_one_error_line(r, "has no variable 'X'", "design, y",
                                   "--data NAME=FILE.nc:VARIABLE")
        r = E.run_cmd("predict", E.model("linreg"),
                      {"X": self.idata + ":posterior_predictive/X"},
                      self.fresh(), posterior=self.npz, check=False)
        self.assert_one_error_line(r, "has no variable 'posterior_predictive/X'")

    def test_dims_larger_than_the_file_or_memory(self):
        # Unwritten HDF5 chunks cost nothing: a few KB declare 12 TB or
        # 200 MB, past what the file can hold.
        import h5netcdf
        for rows, fragments in ((1 << 40, ("far more than the",)),
                                (1 << 24, ("far more than the",))):
            path = self.path("huge_input_%d.nc" % rows)
            with h5netcdf.File(path, "w") as f:
                f.dimensions = {"obs": rows, "k": 3}
                f.create_variable("X", ("obs", "k"), dtype="f4",
                                  chunks=(1 << 16, 3))
            r = E.run_cmd("predict", E.model("linreg"), {"X": path},
                          self.fresh(), posterior=self.npz, check=False)
            self.assert_one_error_line(r, "'X'", *fragments)

    def test_inputs_past_the_memory_bound_are_spilled(self):
        """Read in slabs into a spill file (AIMZ_INPUT_MEMORY_BYTES=0: every
        input), with the bytes of the run from .npy files."""
        os.environ["AIMZ_INPUT_MEMORY_BYTES"] = "0"
        try:
            self.same_as_npy("log-likelihood",
                             {"X": self.plain + ":design", "y": self.idata},
                             self.npz)
        finally:
            del os.environ["AIMZ_INPUT_MEMORY_BYTES"]

    def test_not_netcdf(self):
        path = self.path("text_input.nc")
        with open(path, "w") as f:
            f.write("not netcdf\n")
        r = E.run_cmd("predict", E.model("linreg"), {"X": path + ":X"},
                      self.fresh(), posterior=self.npz, check=False)
        self.assert_one_error_line(r, "cannot read it as netCDF")


if __name__ == "__main__":
    E.main()
