"""(Not a pytest module: run by the venv's Python, python.frames in ctest.)
Data frames as data (aimzc/frames.py), run by the reference venv's Python
(pandas, polars, pyarrow): each kind of frame gives the same bytes as the
same run from NumPy arrays; a categorical column feeds a group index with
its codes; missing values, text and lossy conversions are errors that name
the column (and the rows).

The model is docs/python.md's hierarchical regression (dsl-examples/
hierarchical.aimz): y ~ Normal(a[g] + b x, sigma), g a county's index.
"""

import os
import subprocess
import sys
import tempfile
import unittest

try:
    import numpy as np
    import pandas as pd
    import polars as pl
    import pyarrow as pa
    import pyarrow.parquet as pq
    import xarray as xr
except ImportError as e:  # not the reference venv
    print("skipped: %s" % e)
    sys.exit(77)

import aimzc

AIMZC = os.environ["AIMZC"]
EXAMPLES = os.environ["AIMZ_EXAMPLES"]
COUNTIES = ["Aitkin", "Anoka", "Becker", "Beltrami", "Benton", "Big Stone",
            "Blue Earth", "Brown"]


class Frames(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="aimzc-frames-")
        so = os.path.join(cls.tmp, "hierarchical.so")
        subprocess.run([AIMZC, os.path.join(EXAMPLES, "hierarchical.aimz"), "-o", so],
                       check=True)
        cls.model = aimzc.load(so)
        rng = np.random.default_rng(3)
        n, draws = 500, 6
        cls.county = rng.choice(COUNTIES, n)
        cls.x = rng.normal(size=n).astype(np.float32)
        cls.y = rng.normal(size=n).astype(np.float32)
        cls.g = np.array([sorted(COUNTIES).index(c) for c in cls.county], np.int32)
        cls.post = dict(mu_a=rng.normal(size=draws).astype(np.float32),
                        sigma_a=rng.uniform(0.5, 1, draws).astype(np.float32),
                        a=rng.normal(size=(draws, 8)).astype(np.float32),
                        b=rng.normal(size=draws).astype(np.float32),
                        sigma=rng.uniform(0.5, 1, draws).astype(np.float32))
        cls.ref_pred = cls.model.predict({"x": cls.x, "g": cls.g}, cls.post, seed=5,
                                         progress=False)
        cls.ref_ll = cls.model.log_likelihood({"x": cls.x, "g": cls.g, "y": cls.y},
                                              cls.post, progress=False)

    def pandas_frame(self):
        return pd.DataFrame({"x": self.x, "y": self.y,
                             "g": pd.Categorical(self.county, categories=sorted(COUNTIES)),
                             "note": ["a row"] * len(self.x)})

    def same(self, data):
        pred = self.model.predict(data, self.post, seed=5, progress=False)
        np.testing.assert_array_equal(pred["y"].values, self.ref_pred["y"].values)
        ll = self.model.log_likelihood(data, self.post, progress=False)
        np.testing.assert_array_equal(ll["y"].values, self.ref_ll["y"].values)

    def test_pandas(self):
        df = self.pandas_frame()
        self.same(df)  # the frame itself; 'note' is no input and is left alone
        self.same({"x": df["x"], "g": df["g"], "y": df["y"]})

    def test_polars(self):
        df = pl.from_pandas(self.pandas_frame().drop(columns="note"))
        self.assertIsInstance(df["g"].dtype, (pl.Categorical, pl.Enum))
        self.same(df)
        enum = pl.Enum(sorted(COUNTIES))
        self.same(df.with_columns(pl.Series("g", self.county, dtype=enum)))

    def test_pyarrow_and_parquet(self):
        table = pa.Table.from_pandas(self.pandas_frame(), preserve_index=False)
        self.assertTrue(pa.types.is_dictionary(table.schema.field("g").type))
        self.same(table)
        path = os.path.join(self.tmp, "obs.parquet")
        pq.write_table(table, path)
        self.same(path)

    def test_xarray(self):
        ds = xr.Dataset({"x": ("obs", self.x), "g": ("obs", self.g), "y": ("obs", self.y)})
        self.same(ds)

    def test_stores_by_path(self):
        # A Zarr store and a netCDF file of the columns (other variables
        # are not read), as a path.
        ds = xr.Dataset({"x": ("obs", self.x), "g": ("obs", self.g), "y": ("obs", self.y),
                         "other": ("big", np.zeros(1000, np.float32))})
        zpath = os.path.join(self.tmp, "obs.zarr")
        ds.to_zarr(zpath, mode="w")
        self.same(zpath)
        npath = os.path.join(self.tmp, "obs.nc")
        ds.to_netcdf(npath, engine="h5netcdf")
        self.same(npath)

    def test_several_columns_feed_a_matrix(self):
        so = os.path.join(self.tmp, "linreg.so")
        subprocess.run([AIMZC, os.path.join(EXAMPLES, "linreg.aimz"), "-o", so], check=True)
        m = aimzc.load(so)
        rng = np.random.default_rng(1)
        X = rng.normal(size=(40, 2)).astype(np.float32)
        post = dict(alpha=np.zeros(2, np.float32), beta=np.ones((2, 2), np.float32),
                    sigma=np.ones(2, np.float32))
        ref = m.predict({"X": X}, post, seed=1, progress=False)["y"].values
        df = pd.DataFrame({"a": X[:, 0], "b": X[:, 1]})
        got = m.predict({"X": df[["a", "b"]]}, post, seed=1, progress=False)["y"].values
        np.testing.assert_array_equal(got, ref)
        got = m.predict({"X": pl.from_pandas(df)}, post, seed=1, progress=False)["y"].values
        np.testing.assert_array_equal(got, ref)

    def test_missing_values_name_the_rows(self):
        df = self.pandas_frame()
        g = df["g"].copy()
        g[[3, 17]] = np.nan
        with self.assertRaisesRegex(ValueError, r"column 'g' has 2 missing value\(s\) \(rows 3, 17\)"):
            self.model.predict(df.assign(g=g), self.post, progress=False)
        x = pd.array(self.x.astype(np.float64), dtype="Float64")
        x[5] = pd.NA
        with self.assertRaisesRegex(ValueError, r"column 'x' has 1 missing value\(s\) \(rows 5\)"):
            self.model.predict(df.assign(x=x), self.post, progress=False)
        pdf = pl.from_pandas(df.drop(columns="note")).with_columns(
            pl.when(pl.int_range(pl.len()) == 9).then(None).otherwise(pl.col("x")).alias("x"))
        with self.assertRaisesRegex(ValueError, r"column 'x' has 1 missing value\(s\) \(rows 9\)"):
            self.model.predict(pdf, self.post, progress=False)

    def test_text_and_lossy_columns_are_refused(self):
        df = self.pandas_frame()
        with self.assertRaisesRegex(ValueError, "column 'g' holds text"):
            self.model.predict(df.assign(g=self.county), self.post, progress=False)
        with self.assertRaisesRegex(ValueError, "column 'g' holds text"):
            self.model.predict(pl.DataFrame({"x": self.x, "g": self.county}), self.post,
                               progress=False)
        # float64 values that f32 cannot hold: the runtime's refusal, naming x.
        with self.assertRaisesRegex(aimzc.Error, "'x' has dtype float64"):
            self.model.predict(df.assign(x=self.x.astype(np.float64) + 1e-9), self.post,
                               progress=False)

    def test_categories_are_reported(self):
        from aimzc import frames
        arrays, labels, rows = frames.arrays(self.pandas_frame(), {"x", "g"})
        self.assertEqual(labels, {"g": sorted(COUNTIES)})
        self.assertEqual(arrays["g"].dtype, np.int32)
        np.testing.assert_array_equal(arrays["g"], self.g)
        self.assertEqual(set(arrays), {"x", "g"})

    def test_categories_and_index_label_the_results(self):
        """A categorical column's categories label the plate its codes
        index, a frame's index the observations, in every frame kind; the
        draws are those of the same run from arrays."""
        df = self.pandas_frame().drop(columns="note")
        df.index = ["row%d" % i for i in range(len(df))]
        for data in (df, pl.from_pandas(df), pa.Table.from_pandas(df, preserve_index=False)):
            pred = self.model.predict(data, self.post, seed=5, progress=False,
                                      return_sites=["a", "y"])
            self.assertEqual(list(pred["groups"].values), sorted(COUNTIES))
            self.assertEqual(pred["a"].dims, ("draw", "groups"))
            np.testing.assert_array_equal(pred["y"].values, self.ref_pred["y"].values)
        self.assertEqual(list(pred["y"].dims), ["draw", "obs"])
        pred = self.model.predict(df, self.post, seed=5, progress=False)
        self.assertEqual(list(pred["obs"].values), list(df.index))
        # A plain 0..n-1 index labels nothing, as before.
        plain = self.model.predict(df.reset_index(drop=True), self.post, progress=False)
        self.assertNotIn("obs", plain.coords)

    def test_inference_data_joins_by_county(self):
        df = self.pandas_frame().drop(columns="note")
        idata = self.model.log_likelihood(df, self.post, progress=False,
                                          layout="inference-data",
                                          include_posterior=True)
        self.assertEqual(list(idata.posterior["groups"].values), sorted(COUNTIES))
        self.assertEqual(idata.posterior["a"].dims, ("chain", "draw", "groups"))
        # The selection by name a user writes.
        np.testing.assert_array_equal(
            idata.posterior["a"].sel(groups="Anoka").values.ravel(),
            self.post["a"][:, sorted(COUNTIES).index("Anoka")])
        # netCDF through ArviZ keeps the text labels.
        import arviz as az
        path = os.path.join(self.tmp, "labelled.nc")
        idata.to_netcdf(path)
        back = az.from_netcdf(path)
        self.assertEqual(list(back.posterior["groups"].values), sorted(COUNTIES))

    def test_an_xarray_datasets_coordinate_labels_the_observations(self):
        rows = ["r%d" % i for i in range(len(self.x))]
        ds = xr.Dataset({"x": ("obs", self.x), "g": ("obs", self.g)},
                        coords={"obs": rows})
        pred = self.model.predict(ds, self.post, seed=5, progress=False)
        self.assertEqual(list(pred["obs"].values), rows)
        np.testing.assert_array_equal(pred["y"].values, self.ref_pred["y"].values)

    def test_plot_forest_shows_the_county_names(self):
        import matplotlib
        matplotlib.use("Agg")
        import arviz as az
        import matplotlib.pyplot as plt
        idata = self.model.predict(self.pandas_frame(), self.post, progress=False,
                                   layout="inference-data", include_posterior=True)
        axes = az.plot_forest(idata, var_names=["a"], combined=True)
        ticks = [t.get_text() for t in axes[0].get_yticklabels()]
        plt.close("all")
        for county in COUNTIES:
            self.assertTrue(any(county in t for t in ticks), (county, ticks))

    def test_coords_keyword(self):
        data = {"x": self.x, "g": self.g}
        pred = self.model.predict(data, self.post, progress=False, return_sites=["a"],
                                  coords={"groups": sorted(COUNTIES)})
        self.assertEqual(list(pred["groups"].values), sorted(COUNTIES))
        # coords= takes precedence over a frame's categories, as given.
        other = ["g%d" % i for i in range(8)]
        pred = self.model.predict(self.pandas_frame(), self.post, progress=False,
                                  return_sites=["a"], coords={"groups": other})
        self.assertEqual(list(pred["groups"].values), other)
        with self.assertRaisesRegex(aimzc.Error, "gives 3 labels.*has 8 elements"):
            self.model.predict(data, self.post, progress=False, return_sites=["a"],
                               coords={"groups": COUNTIES[:3]})
        with self.assertWarnsRegex(UserWarning, "coords 'county' labels no dim"):
            self.model.predict(data, self.post, progress=False, coords={"county": COUNTIES})
        with self.assertRaisesRegex(TypeError, "coords must be a dict"):
            self.model.predict(data, self.post, progress=False, coords=COUNTIES)

    def test_categories_that_are_not_the_plates_are_refused(self):
        """A subset whose unused categories were dropped renumbers its
        codes: they would pick other groups than the fit's. Refused."""
        df = self.pandas_frame()
        df = df[df["g"] != "Anoka"]
        df = df.assign(g=df["g"].cat.remove_unused_categories())
        self.assertLess(len(df["g"].cat.categories), 8)
        with self.assertRaisesRegex(aimzc.Error, "categories of column 'g' are "
                                    "[0-9] labels.*plate groups.*8 elements"):
            self.model.predict(df, self.post, progress=False)


if __name__ == "__main__":
    unittest.main()
