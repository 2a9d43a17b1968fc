"""The aimzc Python module against the aimz-run CLI: the same bytes for the
same seed, inputs used in place, errors as exceptions, Ctrl-C."""

import os
import signal
import subprocess
import threading
import time

import numpy as np
import pytest
import xarray as xr

import aimzc

AIMZC = os.environ["AIMZC"]
AIMZ_RUN = os.environ["AIMZ_RUN"]
EXAMPLES = os.environ["AIMZ_EXAMPLES"]


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("aimzc")


@pytest.fixture(scope="module")
def linreg(work):
    so = str(work / "linreg.so")
    subprocess.run([AIMZC, os.path.join(EXAMPLES, "linreg.aimz"), "-o", so],
                   check=True)
    return so


def problem(n=3000, D=16, k=3, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, k)).astype(np.float32)
    post = dict(alpha=rng.normal(size=D).astype(np.float32),
                beta=rng.normal(size=(D, k)).astype(np.float32),
                sigma=rng.uniform(0.5, 1.5, D).astype(np.float32))
    y = (X @ post["beta"][0] + post["alpha"][0]).astype(np.float32)
    return X, y, post


def cli(work, *args):
    out = str(work / ("cli-%d.zarr" % time.monotonic_ns()))
    subprocess.run([AIMZ_RUN, *args, "--out", out, "--quiet"], check=True)
    return xr.open_zarr(out).load()


def test_info(linreg):
    m = aimzc.load(linreg)
    assert m.info["plan"] == "obs"
    assert [s["name"] for s in m.info["sites"]] == [
        "alpha", "beta", "sigma", "eta", "y"]
    assert "linreg" in repr(m)


def test_notebook_shows_the_site_table(linreg):
    """Jupyter's rich display: one row per site, as aimz-run info lists them,
    the plan and the arrays; names are escaped."""
    from html.parser import HTMLParser
    m = aimzc.load(linreg)
    page = m._repr_html_()

    class Rows(HTMLParser):
        rows, cell = [], None

        def handle_starttag(self, tag, attrs):
            if tag == "tr":
                self.rows.append([])
            elif tag in ("td", "th"):
                self.cell = ""

        def handle_data(self, data):
            if self.cell is not None:
                self.cell += data

        def handle_endtag(self, tag):
            if tag in ("td", "th"):
                self.rows[-1].append(self.cell)
                self.cell = None
    p = Rows()
    p.feed(page)
    assert p.rows[0] == ["site", "kind", "class", "distribution", "dtype", "shape"]
    assert [r[0] for r in p.rows[1:]] == [s["name"] for s in m.info["sites"]]
    sigma = next(r for r in p.rows if r[0] == "sigma")
    assert sigma[1:] == ["latent", "global", "HalfNormal", "f32", "[]"]
    assert "plan obs" in page and "y: f32[n]" in page


def test_predict_and_log_likelihood_match_the_cli(linreg, work):
    X, y, post = problem()
    np.save(work / "X.npy", X)
    np.save(work / "y.npy", y)
    np.savez(work / "post.npz", **post)
    m = aimzc.load(linreg)
    ours = m.predict({"X": X}, post, seed=7, batch_size=512)
    ref = cli(work, "predict", linreg, "--data", "X=%s" % (work / "X.npy"),
              "--posterior", str(work / "post.npz"), "--seed", "7",
              "--batch-size", "512")
    assert set(ours.data_vars) == set(ref.data_vars) == {"y", "eta"}
    # Inputs from an .npz path, read by the runtime as the CLI's --data.
    np.savez(work / "data.npz", X=X)
    from_path = m.predict(str(work / "data.npz"), post, seed=7,
                          batch_size=512)
    np.testing.assert_array_equal(from_path["y"].values, ours["y"].values)
    for v in ref.data_vars:
        assert ours[v].dims == ref[v].dims
        np.testing.assert_array_equal(ours[v].values, ref[v].values)
    ll = m.log_likelihood({"X": X, "y": y}, str(work / "post.npz"))
    ref = cli(work, "log-likelihood", linreg, "--data",
              "X=%s" % (work / "X.npy"), "--data", "y=%s" % (work / "y.npy"),
              "--posterior", str(work / "post.npz"))
    np.testing.assert_array_equal(ll["y"].values, ref["y"].values)
    assert ll["y"].shape == (16, 3000)


def test_inputs_are_used_in_place(linreg):
    X, _, post = problem()
    m = aimzc.load(linreg)
    ds = m.predict({"X": X}, post, return_sites="y")
    import json
    report = json.loads(ds.attrs["aimzc_report"])
    assert report["input_addresses"]["X"] == X.__array_interface__["data"][0]
    # A Fortran-ordered array is copied once into C order, not refused.
    ds2 = m.predict({"X": np.asfortranarray(X)}, post, return_sites="y")
    np.testing.assert_array_equal(ds["y"].values, ds2["y"].values)


def test_out_path_opens_lazily_and_prior_predictive(linreg, work):
    X, _, _ = problem()
    m = aimzc.load(linreg)
    out = work / "prior.zarr"
    ds = m.prior_predictive({"X": X}, num_samples=40, out=out, seed=3)
    assert os.path.isdir(out)
    assert ds["y"].shape == (40, 3000)
    assert not ds["y"].variable._in_memory  # opened lazily, read on demand
    assert np.isfinite(ds["y"].values).all()


def test_errors_are_exceptions_with_the_cli_message(linreg):
    X, _, post = problem()
    m = aimzc.load(linreg)
    with pytest.raises(aimzc.Error, match="input 'X' is missing"):
        m.predict({}, post)
    with pytest.raises(aimzc.Error, match="needs every latent"):
        m.log_likelihood({"X": X, "y": X[:, 0]},
                         {k: v for k, v in post.items() if k != "sigma"})
    with pytest.raises(ValueError, match="dtype complex"):
        m.predict({"X": X.astype(np.complex64)}, post)
    with pytest.raises(ValueError, match="shard_axis"):
        m.predict({"X": X}, post, shard_axis="rows")
    with pytest.raises(aimzc.Error, match="not-a-model"):
        aimzc.load("/nonexistent/not-a-model.so")


def test_keyword_errors_name_the_keyword(linreg):
    # They were pybind11's "Unable to cast Python instance to C++ type",
    # naming nothing, and batch_size=-5 was accepted.
    X, _, post = problem(n=100, D=2)
    m = aimzc.load(linreg)
    cases = [("seed", -1, ValueError, r"seed=-1: must be an integer from 0"),
             ("seed", 2**70, ValueError, r"seed=1180591620717411303424"),
             ("seed", 1.5, TypeError, r"seed must be an integer .*float"),
             ("devices", -1, ValueError, r"devices=-1"),
             ("batch_size", -5, ValueError, r"batch_size=-5: must be a "
              r"positive integer"),
             ("batch_size", 0, ValueError, r"batch_size=0"),
             ("batch_size", "7", TypeError, r"batch_size must be"),
             ("batch_size", True, TypeError, r"batch_size must be")]
    for key, value, exc, match in cases:
        with pytest.raises(exc, match=match):
            m.predict({"X": X}, post, progress=False, **{key: value})
    with pytest.raises(ValueError, match=r"num_samples=1180591620717411303424"):
        m.prior_predictive({"X": X}, num_samples=2**70, progress=False)
    with pytest.raises(ValueError, match=r"num_samples=0"):
        m.prior_predictive({"X": X}, num_samples=0, progress=False)
    # Every keyword of the wrong type is named with what it must be.
    typed = [("strict", "yes", r"strict='yes': must be True or False; got str"),
             ("include_posterior", "yes", r"include_posterior='yes': must be True or False"),
             ("out_of_sample", "no", r"out_of_sample='no': must be True or False"),
             ("codec", 5, r"codec=5: must be a string; got int"),
             ("return_sites", [5], r"return_sites=\[5\]: must be a list of strings"),
             ("strict", 1, r"strict=1: must be True or False; got int")]
    for key, value, match in typed:
        with pytest.raises(TypeError, match=match):
            m.predict({"X": X}, post, progress=False, **{key: value})
    with pytest.raises(TypeError, match=r"keep_scenarios='yes': must be True or False"):
        m.effect({"X": X}, post, intervention={"alpha": 0.0},
                 keep_scenarios="yes", progress=False)
    # NumPy integers are integers, NumPy's bools bools.
    ds = m.predict({"X": X}, post, seed=np.uint64(3), batch_size=np.int32(50),
                   strict=np.True_, progress=False)
    assert ds["y"].shape == (2, 100)


def test_one_runs_stop_does_not_stop_another(linreg):
    # A raising progress callback stops its own run; a run on another
    # thread used to fail too ("interrupted": one flag for the process).
    X, _, post = problem(n=100_000, D=64, seed=4)
    m = aimzc.load(linreg)
    results = {}

    def slow(done, total):
        time.sleep(0.02)

    def good():
        results["good"] = m.predict({"X": X}, post, batch_size=2000,
                                    progress=slow)

    def bad():
        def fail(done, total):
            raise RuntimeError("only mine")
        time.sleep(0.1)
        try:
            m.predict({"X": X}, post, batch_size=2000, progress=fail)
        except RuntimeError as e:
            results["bad"] = str(e)
    threads = [threading.Thread(target=good), threading.Thread(target=bad)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results["bad"] == "only mine"
    assert results["good"]["y"].shape == (64, 100_000)
    alone = m.predict({"X": X}, post, batch_size=2000, progress=False)
    np.testing.assert_array_equal(alone["y"].values,
                                  results["good"]["y"].values)


def test_ctrl_c_stops_the_run_and_leaves_only_a_partial_store(linreg, work):
    X, _, post = problem(n=400_000, D=400, seed=1)
    m = aimzc.load(linreg)
    out = work / "interrupted.zarr"
    timer = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        m.predict({"X": X}, post, out=out)
    assert time.monotonic() - t0 < 20
    assert not os.path.exists(out)
    # Only the partial store is left, for resume=True (which checks that it
    # is the same run; test/e2e/run/test_resume.py finishes such runs).
    assert os.path.isdir(str(out) + ".partial")
    with pytest.raises(aimzc.Error, match=r"seed \(0 then, 1 now\)"):
        m.predict({"X": X}, post, out=out, seed=1, resume=True)
    with pytest.raises(ValueError, match="give out="):
        m.predict({"X": X}, post, resume=True)
    # The model is usable afterwards.
    small = m.predict({"X": X[:100]}, {k: v[:2] for k, v in post.items()})
    assert small["y"].shape == (2, 100)


def test_progress_callback_and_tqdm(linreg):
    import json
    X, _, post = problem(n=20000)
    m = aimzc.load(linreg)
    seen = []
    ds = m.predict({"X": X}, post, batch_size=2000,
                   progress=lambda done, total: seen.append((done, total)))
    batches = json.loads(ds.attrs["aimzc_report"])["batches"]
    assert batches == 10
    assert seen and seen[-1] == (batches, batches)
    assert [d for d, _ in seen] == sorted(set(d for d, _ in seen))
    # progress=True: a tqdm bar (Debian's python3-tqdm) or the CLI's.
    again = m.predict({"X": X}, post, batch_size=2000, progress=True)
    np.testing.assert_array_equal(again["y"].values, ds["y"].values)

    def fail(done, total):
        raise RuntimeError("stop here")
    with pytest.raises(RuntimeError, match="stop here"):
        m.predict({"X": X}, post, batch_size=2000, progress=fail)


def test_intervention_and_effect_match_the_cli(linreg, work):
    X, _, post = problem(seed=3)
    np.save(work / "Xi.npy", X)
    np.savez(work / "posti.npz", **post)
    beta = np.array([1.0, 0.0, -1.0], np.float32)
    np.save(work / "beta_do.npy", beta)
    m = aimzc.load(linreg)
    ours = m.predict({"X": X}, post, seed=4,
                     intervention={"beta": beta, "alpha": np.float32(0.5)})
    ref = cli(work, "predict", linreg, "--data", "X=%s" % (work / "Xi.npy"),
              "--posterior", str(work / "posti.npz"), "--seed", "4",
              "--intervene", "beta=%s" % (work / "beta_do.npy"),
              "--intervene", "alpha=0.5")
    for v in ("y", "eta"):
        np.testing.assert_array_equal(ours[v].values, ref[v].values)
    np.testing.assert_allclose(ours["eta"].values[0], np.exp(0.5 + X @ beta),
                               rtol=1e-5)
    eff = m.effect({"X": X}, post, seed=4, intervention={"alpha": 2.0},
                   baseline_data={"X": np.zeros_like(X)})
    np.save(work / "zeros.npy", np.zeros_like(X))
    ref = cli(work, "effect", linreg, "--data", "X=%s" % (work / "Xi.npy"),
              "--posterior", str(work / "posti.npz"), "--seed", "4",
              "--intervene", "alpha=2", "--baseline-data",
              "X=%s" % (work / "zeros.npy"))
    for v in ("y", "eta"):
        np.testing.assert_array_equal(eff[v].values, ref[v].values)
    assert eff.attrs["computed"] == "effect"
    with pytest.raises(ValueError, match="effect compares two scenarios"):
        m.effect({"X": X}, post)
    with pytest.raises(aimzc.Error, match="no site 'nope'"):
        m.predict({"X": X}, post, intervention={"nope": 1})


GROUPS_FROM_POSTERIOR = """
model groups(x: f32[n], g: i32[n]) -> (y: f32[n]) {
  mu_a ~ Normal(0, 1);
  sigma_a ~ HalfNormal(1);
  plate groups(J) { a ~ Normal(mu_a, sigma_a); }
  sigma ~ HalfNormal(1);
  plate obs(n) { y ~ Normal(a[g] + x, sigma); }
}
"""


def test_effect_with_baseline_data_when_the_posterior_sets_a_dim(work):
    # The group count J comes from the posterior's array a: the baseline
    # reads the same draws, so it has J too (the module once refused this
    # run with "the same observations and dimensions ... (500 vs 500)").
    src = work / "groups.aimz"
    src.write_text(GROUPS_FROM_POSTERIOR)
    so = str(work / "groups.so")
    subprocess.run([AIMZC, str(src), "-o", so], check=True)
    rng = np.random.default_rng(0)
    n, D, J = 500, 12, 5
    x = rng.normal(size=n).astype(np.float32)
    g = rng.integers(0, J, size=n).astype(np.int32)
    post = dict(mu_a=rng.normal(size=D).astype(np.float32),
                sigma_a=rng.uniform(0.5, 1.5, D).astype(np.float32),
                a=rng.normal(size=(D, J)).astype(np.float32),
                sigma=rng.uniform(0.5, 1.5, D).astype(np.float32))
    for name, a in (("gx", x), ("gx1", x + 1), ("gg", g)):
        np.save(work / (name + ".npy"), a)
    np.savez(work / "gpost.npz", **post)
    eff = aimzc.load(so).effect({"x": x, "g": g}, post, seed=2,
                                baseline_data={"x": x + 1})
    ref = cli(work, "effect", so, "--data", "x=%s" % (work / "gx.npy"),
              "--data", "g=%s" % (work / "gg.npy"), "--posterior",
              str(work / "gpost.npz"), "--seed", "2", "--baseline-data",
              "x=%s" % (work / "gx1.npy"))
    np.testing.assert_array_equal(eff["y"].values, ref["y"].values)
    # Common random numbers: y - y' is the shift of the mean, -1.
    np.testing.assert_allclose(eff["y"].values, -1.0, atol=1e-5)


def _groups(result):
    """{group: Dataset} from an InferenceData result (or the dict returned
    where ArviZ is missing)."""
    if isinstance(result, dict):
        return result
    return {g: getattr(result, g) for g in result.groups()}


def test_inference_data_layout_and_chains(linreg, work):
    X, y, post = problem(n=500, D=16)
    m = aimzc.load(linreg)
    flat = m.predict({"X": X}, post, seed=2, batch_size=100)
    # NumPyro's get_samples(group_by_chain=True): 4 chains of 4 draws.
    grouped = {k: v.reshape((4, 4) + v.shape[1:]) for k, v in post.items()}
    idata = _groups(m.predict({"X": X, "y": y}, grouped, seed=2,
                              shard_axis="draw", batch_size=2,
                              layout="inference-data"))
    assert sorted(idata) == ["observed_data", "posterior_predictive"]
    pp = idata["posterior_predictive"]
    assert pp["y"].dims == ("chain", "draw", "obs")  # linreg's plate
    assert idata["observed_data"]["y"].dims == ("obs",)
    assert pp["y"].shape == (4, 4, 500)
    np.testing.assert_array_equal(pp["y"].values.reshape(16, 500),
                                  flat["y"].values)
    np.testing.assert_array_equal(idata["observed_data"]["y"].values, y)
    # A Dataset with (chain, draw) dims, as ArviZ's posterior group.
    ds = xr.Dataset({k: (("chain", "draw") + tuple(
        "%s_dim_%d" % (k, i) for i in range(v.ndim - 2)), v)
        for k, v in grouped.items()})
    again = _groups(m.predict({"X": X}, ds, seed=2,
                              layout="inference-data", out_of_sample=True))
    assert sorted(again) == ["predictions"]
    np.testing.assert_array_equal(again["predictions"]["y"].values,
                                  pp["y"].values)
    ll = _groups(m.log_likelihood({"X": X, "y": y}, grouped,
                                  layout="inference-data"))
    assert ll["log_likelihood"]["y"].shape == (4, 4, 500)
    prior = _groups(m.prior_predictive({"X": X}, 8, return_sites=["y", "beta"],
                                       layout="inference-data"))
    assert sorted(prior) == ["prior", "prior_predictive"]
    assert prior["prior"]["beta"].dims == ("chain", "draw", "beta_dim_0")
    # include_posterior: the posterior's latents as the 'posterior' group.
    whole = _groups(m.log_likelihood({"X": X, "y": y}, grouped,
                                     layout="inference-data",
                                     include_posterior=True))
    assert sorted(whole) == ["log_likelihood", "observed_data", "posterior"]
    for k, v in grouped.items():
        np.testing.assert_array_equal(whole["posterior"][k].values, v)
    with pytest.raises(aimzc.Error, match="--with-posterior"):
        m.predict({"X": X}, post, include_posterior=True)
    with pytest.raises(ValueError, match="layout must be"):
        m.predict({"X": X}, post, layout="arviz")
    with pytest.raises(aimzc.Error, match="--layout inference-data"):
        m.predict({"X": X}, post, out_of_sample=True)


def test_an_xarray_posteriors_labels_are_kept(linreg):
    """A Dataset posterior's numeric coordinates (a thinned draw dim, a
    named dim of beta) and dim names are carried into an InferenceData
    result, as those of a netCDF posterior are, text labels too."""
    X, y, post = problem(n=300, D=12)
    m = aimzc.load(linreg)
    draws = np.arange(500, 500 + 2 * 6, 2)
    grouped = {k: v.reshape((2, 6) + v.shape[1:]) for k, v in post.items()}
    ds = xr.Dataset({"alpha": (("chain", "draw"), grouped["alpha"]),
                     "sigma": (("chain", "draw"), grouped["sigma"]),
                     "beta": (("chain", "draw", "feature"), grouped["beta"])},
                    coords={"chain": [3, 7], "draw": draws,
                            "feature": np.arange(10, 10 + post["beta"].shape[1])})
    res = _groups(m.log_likelihood({"X": X, "y": y}, ds,
                                   layout="inference-data",
                                   include_posterior=True))
    for g in ("log_likelihood", "posterior"):
        np.testing.assert_array_equal(res[g]["draw"].values, draws)
        np.testing.assert_array_equal(res[g]["chain"].values, [3, 7])
    assert res["posterior"]["beta"].dims == ("chain", "draw", "feature")
    np.testing.assert_array_equal(res["posterior"]["feature"].values,
                                  ds["feature"].values)
    text = ds.assign_coords(feature=["a", "b", "c"][:ds.sizes["feature"]])
    res = _groups(m.log_likelihood({"X": X, "y": y}, text,
                                   layout="inference-data",
                                   include_posterior=True))
    assert res["posterior"]["beta"].dims == ("chain", "draw", "feature")
    assert list(res["posterior"]["feature"].values) == \
        ["a", "b", "c"][:ds.sizes["feature"]]


def test_compile_in_process(linreg, work):
    """compile() runs aimzc's pipeline in this process: the same results as
    the CLI's library, from a path or from source text."""
    X, y, post = problem(n=700, D=8)
    path = os.path.join(EXAMPLES, "linreg.aimz")
    ref = aimzc.load(linreg).predict({"X": X}, post, seed=5)
    out = str(work / "inproc.so")
    m = aimzc.compile(path, out, gpu=False)
    assert m.path == out and os.path.exists(out)
    assert m.info["plan"] == "obs"
    got = m.predict({"X": X}, post, seed=5)
    np.testing.assert_array_equal(got["y"].values, ref["y"].values)
    with open(path) as f:
        text = f.read()
    from_text = aimzc.compile(text, gpu=False)
    assert os.path.dirname(from_text.path) != str(work)
    np.testing.assert_array_equal(
        from_text.predict({"X": X}, post, seed=5)["y"].values,
        ref["y"].values)
    f64 = aimzc.compile(text, precision="f64", gpu=False)
    assert f64.info["precision"] == "f64"


def test_compile_errors_carry_the_diagnostics():
    bad = "model m(X: f32[n]) -> (y: f32[n]) {\n  y ~ Normal(0, sigmaa);\n}\n"
    with pytest.raises(aimzc.Error) as e:
        aimzc.compile(bad)
    msg = str(e.value)
    assert "sigmaa" in msg and "<source>:2" in msg, msg
    assert "^" in msg  # the source line with a caret, as aimzc prints it
    with pytest.raises(ValueError, match="precision"):
        aimzc.compile(bad, precision="f16")
    with pytest.raises(FileNotFoundError):
        aimzc.compile("no/such/model.aimz")
    with pytest.raises(TypeError):
        aimzc.compile(42)


def test_import_without_the_native_part_says_how_to_build_it(tmp_path):
    # A package holding only __init__.py (what the set-up used to leave in
    # build/python) must not import as an empty module.
    import sys
    pkg = tmp_path / "aimzc"
    pkg.mkdir()
    src = os.path.join(os.path.dirname(aimzc.__file__), "__init__.py")
    with open(src) as f:
        (pkg / "__init__.py").write_text(f.read())
    # From tmp_path: ctest's working directory holds the built package.
    p = subprocess.run([sys.executable, "-c", "import aimzc"],
                       capture_output=True, text=True, cwd=str(tmp_path),
                       env=dict(os.environ, PYTHONPATH=str(tmp_path)))
    assert p.returncode != 0
    # The last line is the ImportError itself, naming the target and the
    # command that builds it, and where the package then lies.
    last = p.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: "), p.stderr
    assert "`cmake --build build --target aimzc_python`" in last, last
    assert "build/python on PYTHONPATH" in last, last


def test_several_outputs_and_transformed_data_match_the_cli(work):
    """Arrays in memory take the same checks as --data files: a model with
    two outputs scores each, and transformed data (the column means) are
    computed from the arrays given."""
    me = aimzc.compile(os.path.join(EXAMPLES, "measurement_error.aimz"),
                       str(work / "me.so"), gpu=False)
    assert [o["name"] for o in me.info["outputs"]] == ["x_meas", "y"]
    rng = np.random.default_rng(3)
    n, D = 500, 4
    tau = rng.uniform(0.2, 0.8, n).astype(np.float32)
    post = {k: rng.normal(size=D).astype(np.float32)
            for k in ("mu_x", "alpha", "beta")}
    post.update(sigma_x=np.ones(D, np.float32), sigma=np.ones(D, np.float32),
                x=rng.normal(size=(D, n)).astype(np.float32))
    obs = dict(tau=tau, x_meas=rng.normal(size=n).astype(np.float32),
               y=rng.normal(size=n).astype(np.float32))
    got = me.log_likelihood(obs, post, progress=False)
    assert sorted(got.data_vars) == ["x_meas", "y"]
    files = {k: str(work / ("me_%s.npy" % k)) for k in obs}
    for k, v in obs.items():
        np.save(files[k], v)
    np.savez(str(work / "me_post.npz"), **post)
    ref = cli(work, "log-likelihood", me.path,
              *sum((["--data", "%s=%s" % kv] for kv in files.items()), []),
              "--posterior", str(work / "me_post.npz"))
    for k in ("x_meas", "y"):
        np.testing.assert_array_equal(got[k].values, ref[k].values)
    with pytest.raises(aimzc.Error, match="observed output 'y'"):
        me.log_likelihood(dict(tau=tau, x_meas=obs["x_meas"]), post,
                          progress=False)

    cr = aimzc.compile(os.path.join(EXAMPLES, "centred_regression.aimz"),
                       str(work / "cr.so"), gpu=False)
    X = (rng.normal(size=(n, 3)) + [4, -1, 9]).astype(np.float32)
    cpost = dict(Intercept=rng.normal(size=D).astype(np.float32),
                 b=rng.normal(size=(D, 3)).astype(np.float32),
                 sigma=np.ones(D, np.float32))
    got = cr.predict({"X": X}, cpost, return_sites=["b_Intercept"],
                     progress=False)
    means = X.astype(np.float64).mean(axis=0).astype(np.float32)
    want = cpost["Intercept"] - cpost["b"].astype(np.float64) @ means
    np.testing.assert_allclose(got["b_Intercept"].values, want, rtol=1e-5,
                               atol=1e-5)

    # A statistic of an expression (X.T @ X) comes from the model's
    # pre-pass over the arrays given, as aimz-run computes it.
    qr = aimzc.compile(os.path.join(EXAMPLES, "qr_regression.aimz"),
                       str(work / "qr.so"), gpu=False)
    Xq = rng.normal(size=(n, 3)) @ rng.normal(size=(3, 3)) + 2
    qpost = dict(alpha=rng.normal(size=D), theta=rng.normal(size=(D, 3)),
                 sigma=np.ones(D))
    got = qr.predict({"X": Xq}, qpost, return_sites=["beta"], progress=False)
    R = np.linalg.cholesky(Xq.T @ Xq).T / np.sqrt(n - 1)
    np.testing.assert_allclose(got["beta"].values,
                               qpost["theta"] @ np.linalg.inv(R).T,
                               rtol=1e-9)
