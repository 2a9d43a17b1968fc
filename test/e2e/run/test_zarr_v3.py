"""`--zarr-format 3` stores read with a real v3 reader: zarrita.js (node,
read_store_v3.mjs) where node and its npm packages are installed (test/e2e/
io's fixture), else zarr-python 3 from the pinned venv (read_store_v3.py),
so the test runs wherever the suite does: shapes, chunking,
dimension_names, dtypes and group attributes as the reader sees them, and
values byte-identical to the same seed's v2 store read with Debian's
zarr-python 2 (a different partition, too). Exits 77 (ctest: skipped) only
when neither reader is there."""

import base64
import json
import os
import shutil
import subprocess
import sys
import unittest

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import aimz_e2e as E  # noqa: E402

JS_READER = os.path.join(E.HERE, "read_store_v3.mjs")
PY_READER = os.path.join(E.HERE, "read_store_v3.py")
VENV_PYTHON = os.path.join(E.HERE, "..", "..", "..", ".venv", "bin", "python")
# The reader's command line, chosen in __main__.
READER = None


def zarrita_reader():
    prefix = E.NODE_MODULES or ""
    missing = [m for m in ("zarrita", "numcodecs", "@zarrita/storage")
               if not os.path.isdir(os.path.join(prefix, "node_modules", m))]
    if shutil.which("node") and not missing:
        return ["node", JS_READER, prefix]
    return None


def zarr_python_reader():
    if not os.access(VENV_PYTHON, os.X_OK):
        return None
    p = subprocess.run([VENV_PYTHON, "-c",
                        "import zarr, sys; "
                        "sys.exit(int(zarr.__version__.split('.')[0]) < 3)"],
                       capture_output=True, text=True)
    return [VENV_PYTHON, PY_READER] if p.returncode == 0 else None


def read_v3(store, names):
    p = subprocess.run(READER + [store] + list(names),
                       capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise AssertionError("%s failed on %s (rc %d):\n%s"
                             % (READER[1], store, p.returncode, p.stderr))
    res = json.loads(p.stdout)
    for a in res["arrays"].values():
        a["values"] = np.frombuffer(base64.b64decode(a["data"]),
                                    np.dtype(a["dtype"]).newbyteorder("<"))
        a["values"] = a["values"].reshape(a["result_shape"])
    return res


class ZarrV3(E.E2ETestCase):
    N, K, D = 1001, 3, 22

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        rng = np.random.default_rng(61)
        cls.X, cls.y, cls.post = E.linreg_data(rng, cls.N, cls.K, cls.D)
        cls.data = {"X": cls.save("X.npy", cls.X)}
        cls.pp = cls.savez("post.npz", **cls.post)

    def check_against_v2(self, command, model, data, sites, v3_part, v2_part,
                         **kw):
        """Runs the command twice (v3 store, v2 store; different
        partitions, same seed), reads both with the real readers and
        compares."""
        name = kw.pop("model_name")
        v3 = self.fresh()
        E.run_cmd(command, model, data, v3, fmt=3, seed=12, sites=sites,
                  **v3_part, **kw)
        self.assertTrue(os.path.exists(os.path.join(v3, "zarr.json")))
        self.assertFalse(os.path.exists(os.path.join(v3, ".zgroup")))
        v2 = self.fresh()
        E.run_cmd(command, model, data, v2, fmt=2, seed=12, sites=sites,
                  **v2_part, **kw)
        ref = E.read_arrays(v2)
        got = read_v3(v3, sites)
        at = got["attrs"]
        computed = {"predict": "posterior_predictive",
                    "log-likelihood": "log_likelihood",
                    "prior-predictive": "prior_predictive"}[command]
        self.assertEqual(at["computed"], computed)
        self.assertEqual(at["model"], name)
        self.assertEqual(at["seed"], 12)
        self.assertEqual(at["plan"], v3_part["axis"])
        self.assertEqual(at["batch_size"], v3_part["batch"])
        self.assertRegex(at["created"], r"^\d{4}-\d\d-\d\dT")
        self.assertRegex(at["tool"], r"^aimz-run ")
        b = v3_part["batch"]
        for s in sites:
            a = got["arrays"][s]
            shape = list(ref[s].shape)
            self.assertEqual(a["shape"], shape, s)
            self.assertEqual(a["result_shape"], shape, s)
            # Observation-aligned sites lie in `plate obs(n)`.
            lead = [] if s in ("alpha", "beta", "coef") else ["obs"]
            self.assertEqual(a["dimension_names"],
                             ["draw"] + lead + ["%s_dim_%d" % (s, i)
                                                for i in range(len(lead),
                                                               len(shape) - 1)],
                             s)
            self.assertEqual(np.dtype(a["dtype"]), ref[s].dtype, s)
            if v3_part["axis"] == "draw":
                want = [b] + shape[1:]
            elif s not in ("alpha", "beta", "coef"):  # obs-aligned
                want = [shape[0], b]
            else:
                want = shape
            self.assertEqual(a["chunks"], want, s)
            self.assertTrue(E.same_bytes(a["values"], ref[s]), s)
        return got

    def test_predict_obs(self):
        self.check_against_v2(
            "predict", E.model("linreg"), self.data,
            ["y", "eta", "alpha", "beta"],
            dict(axis="obs", devices=2, batch=300),
            dict(axis="draw", devices=3, batch=6), posterior=self.pp,
            model_name="linreg")

    def test_predict_draw(self):
        self.check_against_v2(
            "predict", E.model("linreg"), self.data, ["y", "eta", "beta"],
            dict(axis="draw", devices=3, batch=9),
            dict(axis="obs", devices=1, batch=1001), posterior=self.pp,
            model_name="linreg")

    def test_other_codecs(self):
        for codec in ("none", "zstd:3", "blosc:lz4:5:bitshuffle"):
            with self.subTest(codec=codec):
                self.check_against_v2(
                    "predict", E.model("linreg"), self.data, ["y", "beta"],
                    dict(axis="obs", devices=2, batch=500),
                    dict(axis="draw", devices=3, batch=6), posterior=self.pp,
                    model_name="linreg", extra=["--codec", codec])

    def test_log_likelihood(self):
        data = dict(self.data, y=self.save("y.npy", self.y))
        self.check_against_v2(
            "log-likelihood", E.model("linreg"), data, ["y"],
            dict(axis="obs", devices=3, batch=100),
            dict(axis="draw", devices=2, batch=4), posterior=self.pp,
            model_name="linreg")

    def test_prior_predictive_int_output(self):
        self.check_against_v2(
            "prior-predictive", E.model("logistic"), self.data,
            ["y", "p", "coef"], dict(axis="obs", devices=2, batch=250),
            dict(axis="draw", devices=3, batch=5), num_samples=self.D,
            model_name="logistic")


if __name__ == "__main__":
    rest = E.parse_args()
    READER = zarrita_reader() or zarr_python_reader()
    if READER is None:
        print("SKIP: no Zarr v3 reader: neither node with zarrita.js "
              "(test/e2e/io's npm fixture) nor zarr-python 3 in .venv "
              "(tools/setup_venv.sh)")
        sys.exit(77)
    print("reading v3 stores with " + os.path.basename(READER[1]))
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
