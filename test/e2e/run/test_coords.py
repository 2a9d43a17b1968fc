"""Labels out: `--coords DIM=FILE` and a posterior's coordinates become
coordinate variables of the result, text included, beside every array that
has the dim, in both layouts and both Zarr formats, read back by
zarr-python 2 (Debian's) and by zarr-python 3 and xarray (the pinned
venv's) as xarray itself writes them. Labels whose count is not the dim's
extent are refused, naming both; labels of a dim the result lacks warn."""

import json
import os
import subprocess
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

VENV_PYTHON = os.path.join(E.HERE, "..", "..", "..", ".venv", "bin", "python")
COUNTIES = ["Aitkin", "Anoka", "Becker", "Lac qui Parle", "Saint Louis",
            "Yellow Medicine", "Ängelholm", ""]  # non-ASCII, and empty

# What the venv's readers see: {array: [labels]} and each array's dims.
READ_V3 = r"""
import json, sys, warnings
warnings.simplefilter("ignore")
import xarray as xr, zarr
store, group = sys.argv[1], sys.argv[2]
ds = xr.open_zarr(store, group=group or None, consolidated=False)
z = zarr.open_group(store, mode="r")
out = {"coords": {k: [str(v) for v in ds[k].values] for k in ds.coords},
       "dims": {k: list(ds[k].dims) for k in ds.data_vars},
       "zarr": [str(v) for v in z[(group + "/" if group else "") + "groups"][:]]}
print(json.dumps(out))
"""


class Coords(E.E2ETestCase):
    J, N, D = 8, 50, 6

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = np.random.default_rng(8)
        cls.data = {"x": cls.save("x.npy", rng.normal(size=cls.N).astype(np.float32)),
                    "g": cls.save("g.npy", rng.integers(0, cls.J, cls.N).astype(np.int32))}
        cls.post = cls.savez(
            "post.npz", mu_a=rng.normal(size=cls.D).astype(np.float32),
            sigma_a=rng.uniform(0.5, 1, cls.D).astype(np.float32),
            a=rng.normal(size=(cls.D, cls.J)).astype(np.float32),
            sigma=rng.uniform(0.5, 1, cls.D).astype(np.float32))
        cls.labels = cls.path("counties.txt")
        with open(cls.labels, "w", encoding="utf-8") as f:
            f.write("\n".join(COUNTIES) + "\n")
        cls.numbers = cls.save("obs.npy", np.arange(1000, 1000 + cls.N, dtype=np.int64))

    def predict(self, *extra, fmt=None, check=True):
        out = self.fresh()
        r = E.run_cmd("predict", E.model("groups_from_posterior"), self.data, out,
                      posterior=self.post, sites=["a", "y"], fmt=fmt,
                      extra=list(extra), check=check)
        return out, r

    def test_text_and_numeric_labels_in_a_v2_store(self):
        out, _ = self.predict("--coords", "groups=" + self.labels,
                              "--coords", "obs=" + self.numbers)
        g = E.open_group(out)
        self.assertEqual(list(g["groups"][:]), COUNTIES)
        self.assertEqual(g["groups"].dtype, np.dtype("<U15"))
        np.testing.assert_array_equal(g["obs"][:], np.arange(1000, 1000 + self.N))
        self.assertEqual(g["groups"].attrs["_ARRAY_DIMENSIONS"], ["groups"])
        self.assertEqual(g["a"].attrs["_ARRAY_DIMENSIONS"], ["draw", "groups"])
        # The draws do not change with the labels.
        plain, _ = self.predict()
        np.testing.assert_array_equal(g["y"][:], E.open_group(plain)["y"][:])

    def read_v3(self, out, group=""):
        if not os.access(VENV_PYTHON, os.X_OK):
            self.skipTest("no .venv with zarr-python 3 (tools/setup_venv.sh)")
        r = subprocess.run([VENV_PYTHON, "-c", READ_V3, out, group],
                           capture_output=True, text=True)
        self.assertEqual(r.returncode, 0, r.stderr)
        return json.loads(r.stdout)

    def test_text_labels_in_a_v3_store_and_every_group(self):
        out, _ = self.predict("--coords", "groups=" + self.labels, fmt=3)
        seen = self.read_v3(out)
        self.assertEqual(seen["coords"]["groups"], COUNTIES)
        self.assertEqual(seen["zarr"], COUNTIES)
        self.assertEqual(seen["dims"]["a"], ["draw", "groups"])
        with open(os.path.join(out, "groups", "zarr.json")) as f:
            meta = json.load(f)
        self.assertEqual(meta["data_type"], {"name": "fixed_length_utf32",
                                             "configuration": {"length_bytes": 60}})
        # InferenceData: the label goes into each group whose arrays have
        # the dim (here the posterior group, with --with-posterior).
        out = self.fresh()
        E.run_cmd("predict", E.model("groups_from_posterior"), self.data, out,
                  posterior=self.post, fmt=3,
                  extra=["--layout", "inference-data", "--with-posterior",
                         "--coords", "groups=" + self.labels])
        self.assertEqual(self.read_v3(out, "posterior")["coords"]["groups"], COUNTIES)

    def test_wrong_counts_and_unknown_dims(self):
        short = self.path("short.txt")
        with open(short, "w") as f:
            f.write("a\nb\n")
        _, r = self.predict("--coords", "groups=" + short, check=False)
        self.assert_one_error_line(r, "2 labels", "dim 'groups' of 'a' has 8")
        _, r = self.predict("--coords", "county=" + self.labels)
        self.assertIn("coords 'county' labels no dim of the result", r.stderr)
        _, r = self.predict("--coords", "groups", check=False)
        self.assert_one_error_line(r, "expected DIM=FILE")
        bad = self.path("bad.txt")
        with open(bad, "wb") as f:
            f.write(b"ok\n\xff\xfe\n")
        _, r = self.predict("--coords", "groups=" + bad, check=False)
        self.assert_one_error_line(r, "label 1 of coordinate 'groups'", "UTF-8")
        r = E.run_cmd("predict", E.model("groups_from_posterior"), self.data,
                      self.fresh(".npz"), posterior=self.post,
                      extra=["--coords", "groups=" + self.labels], check=False)
        self.assert_one_error_line(r, "an .npz output")


if __name__ == "__main__":
    E.main()
