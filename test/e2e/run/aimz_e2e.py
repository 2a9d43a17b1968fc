"""Shared helpers for the aimz-run end-to-end tests.

Every test script is run by Debian's /usr/bin/python3 (it sees numpy, scipy,
zarr 2 and xarray) as

    test_x.py --aimzc BIN --aimz-run BIN --examples DIR --models DIR
              --tmp DIR [--node-modules DIR] [unittest arguments]

`--models` is filled by build_models.py (the ctest fixture); a model missing
there is compiled on demand, so a script also runs on its own.

The references in these tests are independent of the code under test: NumPy
and scipy.stats evaluated on the same posterior and data, analytic moments,
and the invariants the runtime promises (same seed -> same bytes).
"""

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))

# Filled by main().
AIMZC = None
AIMZ_RUN = None
EXAMPLES = None
MODELS = None
TMP = None
NODE_MODULES = None

# Examples that compile (scan_rejected.aimz must not), and the test-only
# models kept next to this file.
EXAMPLE_MODELS = ["linreg", "logistic", "hierarchical", "poisson", "negbin_glm",
                  "zero_inflated_poisson", "horseshoe_logistic",
                  "flat_prior_glm", "multinomial_logit", "ordinal_regression",
                  "gaussian_mixture", "varying_slopes", "robust_regression",
                  "local_latent", "mlp", "truncated_regression",
                  "hurdle_poisson", "measurement_error", "factor_analysis",
                  "centred_regression", "gp_regression",
                  "brms_design_matrix", "qr_regression"]
TEST_MODELS = ["det_chain", "linreg64", "gather64", "tanh_net64", "rank3", "rank3_ops",
               "groups_from_posterior", "gather_computed", "no_inputs",
               "factors", "axis_ops", "item_response",
               "scan_obs", "sliced_regression", "array_builders",
               "log_prob_terms", "two_responses", "tril_loadings",
               "standardized_latent", "count_vectors", "truncated_counts",
               "gp_features64", "car_precision64", "latent_gp64",
               "joint_mixing64", "mvn_signatures64",
               "alias_spellings", "invalid_counts", "dugongs",
               "brms_varying_slopes"]


def source_of(name):
    if name in TEST_MODELS:
        return os.path.join(HERE, "models", name + ".aimz")
    return os.path.join(EXAMPLES, name + ".aimz")


def compile_model(name, out_dir):
    out = os.path.join(out_dir, name + ".so")
    aimzc(source_of(name), "-o", out + ".tmp", check=True)
    os.replace(out + ".tmp", out)
    return out


def model(name):
    """Path of the compiled model `name` (compiled on demand)."""
    path = os.path.join(MODELS, name + ".so")
    # Recompiled when older than its source or the compiler (a models
    # directory kept from an earlier build).
    if not os.path.exists(path) or os.path.getmtime(path) < max(
            os.path.getmtime(source_of(name)), os.path.getmtime(AIMZC)):
        os.makedirs(MODELS, exist_ok=True)
        compile_model(name, MODELS)
    return path


class Result:
    def __init__(self, cmd, p):
        self.cmd = cmd
        self.rc = p.returncode
        self.stdout = p.stdout
        self.stderr = p.stderr

    def __repr__(self):
        return ("$ %s\nrc=%d\n--- stdout\n%s--- stderr\n%s"
                % (" ".join(self.cmd), self.rc, self.stdout, self.stderr))

    def warnings(self):
        return [l for l in self.stderr.splitlines() if "warning:" in l]

    def errors(self):
        return [l for l in self.stderr.splitlines() if "error:" in l]


@contextlib.contextmanager
def environment(env):
    """Runs the block with `env` added to os.environ (inherited by the
    aimz-run processes it starts), restoring it afterwards."""
    old = dict(os.environ)
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(old)


def aimz_run(*args, check=True, cwd=None, timeout=300):
    """Runs aimz-run; with check, fails the test on a non-zero exit."""
    cmd = [AIMZ_RUN] + [str(a) for a in args]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd,
                       timeout=timeout)
    r = Result(cmd, p)
    if check and r.rc != 0:
        raise AssertionError("aimz-run failed:\n%r" % r)
    return r


def run_cmd(command, model_path, data, out, posterior=None, axis=None,
            batch=None, devices=None, seed=None, sites=None, fmt=None,
            num_samples=None, extra=(), check=True):
    """aimz-run COMMAND with keyword options; data is {name: path} (or a
    list of raw --data values)."""
    args = [command, model_path]
    items = data.items() if isinstance(data, dict) else data
    for item in items:
        args += ["--data", "%s=%s" % item if isinstance(item, tuple) else item]
    if posterior is not None:
        args += ["--posterior", posterior]
    if num_samples is not None:
        args += ["--num-samples", num_samples]
    args += ["--out", out]
    if axis is not None:
        args += ["--shard-axis", axis]
    if batch is not None:
        args += ["--batch-size", batch]
    if devices is not None:
        args += ["--devices", devices]
    if seed is not None:
        args += ["--seed", seed]
    if sites:
        args += ["--return-sites", ",".join(sites)]
    if fmt is not None:
        args += ["--zarr-format", fmt]
    args += list(extra)
    return aimz_run(*args, check=check)


def aimzc(*args, check=False, cwd=None):
    cmd = [AIMZC] + [str(a) for a in args]
    p = subprocess.run(cmd, capture_output=True, text=True, cwd=cwd,
                       timeout=300)
    r = Result(cmd, p)
    if check and r.rc != 0:
        raise AssertionError("aimzc failed:\n%r" % r)
    if check and "PTX embedded" in p.stderr:
        # The GPU code of a model that compiles must lower too.
        raise AssertionError("aimzc made no PTX:\n%r" % r)
    return r


# ---------------------------------------------------------------- readers

def open_group(path):
    import zarr
    return zarr.open_group(path, mode="r")


def open_dataset(path):
    import xarray as xr
    consolidated = os.path.exists(os.path.join(path, ".zmetadata"))
    return xr.open_zarr(path, consolidated=consolidated)


def read_arrays(path):
    """name -> ndarray of every array in a store (zarr v2) or an .npz."""
    if path.endswith(".npz"):
        with np.load(path) as z:
            return {k: z[k] for k in z.files}
    g = open_group(path)
    return {k: g[k][...] for k in g.array_keys()}


def file_contents(root):
    """path -> bytes of every file under root (links not followed)."""
    out = {}
    for dp, dns, fns in os.walk(root):
        for f in fns:
            p = os.path.join(dp, f)
            if not os.path.islink(p):
                with open(p, "rb") as fh:
                    out[os.path.relpath(p, root)] = fh.read()
    return out


def root_attrs(store):
    """The root group's attributes of a v2 or v3 store, read as JSON."""
    v2 = os.path.join(store, ".zattrs")
    with open(v2 if os.path.exists(v2) else
              os.path.join(store, "zarr.json")) as f:
        j = json.load(f)
    return j.get("attributes", j) if "zarr_format" in j else j


def chunk_files(root):
    """How many complete chunk files (not temporaries) are under root."""
    n = 0
    for _, _, files in os.walk(root):
        n += sum(1 for f in files if f[0].isdigit() and
                 not f.endswith(".tmp"))
    return n


def same_bytes(a, b):
    a = np.ascontiguousarray(a)
    b = np.ascontiguousarray(b)
    return a.dtype == b.dtype and a.shape == b.shape and \
        a.tobytes() == b.tobytes()


# ------------------------------------------------------------ test cases

def expression_battery(latents, exprs):
    """A model over inputs x: f64[n] and ii: i32[M] with the given latent
    statements and one deterministic site d<i> per expression (NumPy
    expression batteries: each site's values are compared with NumPy's)."""
    lines = ["model m(x: f64[n], ii: i32[M]) -> (y: f64[n]) {"]
    lines += ["  %s" % l for l in latents]
    lines += ["  deterministic d%d = %s;" % (i, e) for i, e in enumerate(exprs)]
    return "\n".join(lines + ["  y ~ Normal(x, 1);", "}", ""])


def known_bug(reason):
    """Marks a test of the correct behaviour that fails because of a known
    bug in the code under test: it still runs, reports "expected failure"
    and prints the bug, and turns into an unexpected success (a failure of
    the script) once the bug is fixed, so the mark gets removed."""
    def wrap(fn):
        import functools

        @functools.wraps(fn)
        def run(self, *a, **kw):
            try:
                return fn(self, *a, **kw)
            except AssertionError:
                sys.stderr.write("\nKNOWN BUG (%s): %s\n" % (fn.__name__,
                                                             reason))
                raise
        run.__doc__ = "KNOWN BUG: " + reason
        return unittest.expectedFailure(run)
    return wrap


class E2ETestCase(unittest.TestCase):
    """A test class with its own temporary directory."""

    maxDiff = None

    @classmethod
    def setUpClass(cls):
        os.makedirs(TMP, exist_ok=True)
        cls.dir = tempfile.mkdtemp(prefix=cls.__name__ + "-", dir=TMP)

    @classmethod
    def tearDownClass(cls):
        if not os.environ.get("AIMZ_E2E_KEEP"):
            shutil.rmtree(cls.dir, ignore_errors=True)

    @classmethod
    def path(cls, *parts):
        return os.path.join(cls.dir, *parts)

    @classmethod
    def save(cls, name, array):
        p = cls.path(name)
        np.save(p, array)
        return p

    @classmethod
    def savez(cls, name, **arrays):
        p = cls.path(name)
        np.savez(p, **arrays)
        return p

    @classmethod
    def savez_compressed(cls, name, **arrays):
        p = cls.path(name)
        np.savez_compressed(p, **arrays)
        return p

    _counter = 0

    @classmethod
    def compile_source(cls, name, text):
        """A model written by the test: its source saved as name.aimz in
        the class's directory, compiled to name.so; the .so's path."""
        src = cls.path(name + ".aimz")
        with open(src, "w") as f:
            f.write(text)
        so = cls.path(name + ".so")
        aimzc(src, "-o", so, check=True)
        return so

    @classmethod
    def fresh(cls, suffix=".zarr"):
        """A new output path inside the class's directory."""
        E2ETestCase._counter += 1
        return cls.path("out%04d%s" % (E2ETestCase._counter, suffix))

    def assert_one_error_line(self, r, *fragments):
        """Non-zero exit, exactly one line on stderr saying error:, which
        contains every fragment (case-insensitive)."""
        self.assertNotEqual(r.rc, 0, r)
        self.assertNotIn(r.rc, (-11, -6, 134, 139), "crashed: %r" % r)
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        self.assertEqual(len(lines), 1, "want one stderr line: %r" % r)
        self.assertIn("error:", lines[0], r)
        for f in fragments:
            self.assertIn(f.lower(), lines[0].lower(), r)

    def assert_same_arrays(self, a, b):
        """Two results (name -> array, as read_arrays gives) hold the same
        names and the same bits; their chunking may differ."""
        self.assertTrue(a)
        self.assertEqual(sorted(a), sorted(b))
        for k in a:
            self.assertEqual(a[k].dtype, b[k].dtype, k)
            self.assertEqual(a[k].tobytes(), b[k].tobytes(), k)

    def assert_same_store(self, ref, out):
        """The same files with the same bytes, metadata and attributes
        aside from the creation time."""
        a, b = file_contents(ref), file_contents(out)
        self.assertEqual(sorted(a), sorted(b))
        for k in a:
            if k.endswith((".zattrs", ".zmetadata", "zarr.json")):
                continue  # the creation time differs
            self.assertTrue(a[k] == b[k], k)
        at, bt = root_attrs(ref), root_attrs(out)
        self.assertNotEqual(bt.pop("created"), None)
        at.pop("created")
        self.assertEqual(at, bt)

    def assert_store_layout(self, path, site, shape, chunks, dtype,
                            attrs=None, plates=()):
        """Shape, dims, chunking and dtype of one array, through both zarr
        and xarray. `plates`: the plates its leading axes lie in, which
        name those dims; the others are <site>_dim_<i>."""
        g = open_group(path)
        a = g[site]
        self.assertEqual(a.shape, tuple(shape), site)
        self.assertEqual(a.chunks, tuple(chunks), site)
        self.assertEqual(a.dtype, np.dtype(dtype), site)
        dims = ("draw",) + tuple(
            plates[i] if i < len(plates) else "%s_dim_%d" % (site, i)
            for i in range(len(shape) - 1))
        self.assertEqual(tuple(a.attrs["_ARRAY_DIMENSIONS"]), dims, site)
        ds = open_dataset(path)
        self.assertEqual(ds[site].dims, dims, site)
        self.assertEqual(ds[site].shape, tuple(shape), site)
        if attrs is not None:
            for k, v in attrs.items():
                self.assertEqual(g.attrs[k], v, "attribute %s" % k)
        return g


def check_group_attrs(test, path, computed, model_name, plan, seed,
                      batch_size):
    g = open_group(path)
    at = dict(g.attrs)
    test.assertEqual(at.get("computed"), computed, at)
    test.assertEqual(at.get("model"), model_name, at)
    test.assertEqual(at.get("plan"), plan, at)
    test.assertEqual(at.get("seed"), seed, at)
    test.assertEqual(at.get("batch_size"), batch_size, at)
    test.assertRegex(str(at.get("created")),
                     r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", at)
    test.assertRegex(str(at.get("tool")), r"^aimz-run \d+\.\d+", at)
    # xarray sees the same attributes on the dataset.
    ds = open_dataset(path)
    test.assertEqual(ds.attrs.get("plan"), plan)
    test.assertEqual(ds.attrs.get("computed"), computed)
    return at


# ------------------------------------------------------------- data sets

def linreg_data(rng, n, k, draws):
    X = rng.normal(size=(n, k)).astype(np.float32)
    post = dict(alpha=rng.normal(0.3, 0.1, draws).astype(np.float32),
                beta=rng.normal(0.0, 0.3, (draws, k)).astype(np.float32),
                sigma=rng.uniform(0.5, 1.5, draws).astype(np.float32))
    mu = post["alpha"][:, None] + post["beta"].astype(np.float64) @ X.T.astype(np.float64)
    y = (mu[0] + rng.normal(size=n)).astype(np.float32)
    return X, y, post


def mlp_posterior(rng, d, draws):
    """Draws for dsl-examples/mlp.aimz (hidden layers 128 wide)."""
    H = 128

    def w(*shape):
        return (rng.normal(size=(draws,) + shape) * 0.1).astype(np.float32)
    return dict(w1=w(d, H), b1=w(H), w2=w(H, H), b2=w(H), w3=w(H, H),
                b3=w(H), w4=w(H), b4=w())


def local_latent_posterior(rng, n, draws):
    """Draws for dsl-examples/local_latent.aimz, z included."""
    return dict(beta=rng.normal(size=draws).astype(np.float32),
                tau=rng.uniform(0.5, 1.5, draws).astype(np.float32),
                sigma=rng.uniform(0.3, 1, draws).astype(np.float32),
                z=rng.normal(size=(draws, n)).astype(np.float32))


def save_obs_and_draw_plan_inputs(case, rng, mlp_shape, local_shape):
    """Saves in case's directory the inputs of the two models the resume
    and MPI tests run, one per plan: an MLP's X (n, d) with D posterior
    draws (obs plan), set as case.mlp_data / case.mlp_post, and
    local_latent's x (n2,) with D2 draws (draw plan), as case.ll_data /
    case.ll_post. mlp_shape = (n, d, D), local_shape = (n2, D2)."""
    n, d, D = mlp_shape
    case.mlp_data = {"X": case.save("X.npy", rng.normal(
        size=(n, d)).astype(np.float32))}
    case.mlp_post = case.savez("mlp_post.npz", **mlp_posterior(rng, d, D))
    n2, D2 = local_shape
    case.ll_data = {"x": case.save("x.npy", rng.normal(
        size=n2).astype(np.float32))}
    case.ll_post = case.savez("ll_post.npz",
                              **local_latent_posterior(rng, n2, D2))


def linreg_mu(X, post):
    """(draws, n) alpha + X @ beta in float64."""
    return (post["alpha"].astype(np.float64)[:, None]
            + post["beta"].astype(np.float64) @ X.astype(np.float64).T)


# ------------------------------------------------------------------ main

def parse_args():
    """Sets the module's paths from the command line; returns the rest (for
    unittest)."""
    global AIMZC, AIMZ_RUN, EXAMPLES, MODELS, TMP, NODE_MODULES
    ap = argparse.ArgumentParser()
    ap.add_argument("--aimzc", required=True)
    ap.add_argument("--aimz-run", required=True)
    ap.add_argument("--examples", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--tmp", default=None)
    ap.add_argument("--node-modules", default=None)
    args, rest = ap.parse_known_args()
    AIMZC = os.path.abspath(args.aimzc)
    AIMZ_RUN = os.path.abspath(args.aimz_run)
    EXAMPLES = os.path.abspath(args.examples)
    MODELS = os.path.abspath(args.models)
    TMP = os.path.abspath(args.tmp or tempfile.gettempdir())
    NODE_MODULES = args.node_modules
    return rest


def main():
    rest = parse_args()
    unittest.main(argv=[sys.argv[0]] + rest, verbosity=2)
