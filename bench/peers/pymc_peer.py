"""The PyMC peer: `pm.sample_posterior_predictive`,
`pm.compute_log_likelihood` and prior predictive draws on the same models,
data and posterior draws as aimz-run.

PyMC is the most used of the tools our users fit with. Run by the virtual
environment's Python (tools/setup_venv.sh installs the pinned versions):

  pymc_peer.py --backend pymc --workload WL --data-dir DIR --draws D
               --n N --spec spec.json --out store.zarr --result result.json
               [--seed S]

WL is one of linreg-pred, linreg-ll, hier-pred, mlp-pred, prior; the
models are dsl-examples/{linreg,hierarchical,mlp}.aimz written in PyMC as
its users write them: inputs in `pm.Data`, swapped per block with
`pm.set_data`, the posterior as an InferenceData (one chain).

* Cold, like every peer: PyTensor compiles each sampling function to C.
  Its cache directory is a fresh one per process (removed at the end), so
  the compile counts in every run, as NumPyro's JIT does.
* floatX float32, as aimz-run and NumPyro compute (and as bench/gp.py
  runs PyMC); the draws are cast to the store's type when written.
* Blocks of observations: as many of aimz-run's chunks as keep one
  block's draws (at 8 bytes each) under 256 MiB (memory stays bounded at
  n = 1M x 1000 draws), each written into a Zarr v2 store like the NumPy
  peer's.
* Prior predictive: the latents are drawn once per draw
  (`pm.sample_prior_predictive`), then y is drawn block by block from
  them, so that every block of a draw shares its latents (as aimz-run's obs
  plan does).

The result JSON splits setup (imports, posterior, model), compute and
write.
"""

import importlib.metadata
import json
import os
import shutil
import tempfile
import time

T_START = time.perf_counter()

import peer_args  # noqa: E402
from zarr_v2_store import write_blocks  # noqa: E402

# A fresh compile cache: PyTensor's C compile is part of PyMC's cold start.
_CACHE = tempfile.mkdtemp(prefix="pymc_peer_pytensor_")
os.environ["PYTENSOR_FLAGS"] = ",".join(
    f for f in (os.environ.get("PYTENSOR_FLAGS", ""), "compiledir=" + _CACHE,
                "floatX=float32") if f)

import arviz as az  # noqa: E402
import numpy as np  # noqa: E402
import pymc as pm  # noqa: E402
import pytensor.tensor as pt  # noqa: E402
import xarray as xr  # noqa: E402

G_HIER = 8  # dsl-examples/hierarchical.aimz: const G = 8
BLOCK_BYTES = 256 << 20


# ------------------------------------------------------------------ models
# Each builds the model on the first block's inputs; `observed` is the
# pm.Data holding y for the log-likelihood and None for predictions (y is
# then a free variable that sample_posterior_predictive draws).

def linreg(inputs, with_y):
    with pm.Model() as m:
        X = pm.Data("X", inputs["X"])
        y_obs = pm.Data("y_obs", inputs["y"]) if with_y else None
        alpha = pm.Normal("alpha", 0.0, 1.0)
        beta = pm.Normal("beta", 0.0, 1.0, shape=inputs["X"].shape[1])
        sigma = pm.HalfNormal("sigma", 1.0)
        mu = alpha + pt.dot(X, beta)
        pm.Normal("y", mu, sigma, observed=y_obs, shape=X.shape[0])
    return m


def hierarchical(inputs, with_y):
    with pm.Model() as m:
        x = pm.Data("x", inputs["x"])
        g = pm.Data("g", inputs["g"])
        mu_a = pm.Normal("mu_a", 0.0, 5.0)
        sigma_a = pm.HalfNormal("sigma_a", 2.0)
        a = pm.Normal("a", mu_a, sigma_a, shape=G_HIER)
        b = pm.Normal("b", 0.0, 1.0)
        sigma = pm.HalfCauchy("sigma", 1.0)
        pm.Normal("y", a[g] + b * x, sigma, shape=x.shape[0])
    return m


def mlp(inputs, with_y):
    sizes = [inputs["X"].shape[1], 128, 128, 128, 1]
    with pm.Model() as m:
        h = X = pm.Data("X", inputs["X"])
        for i in range(4):
            w = pm.Normal("w%d" % (i + 1), 0.0, 1.0,
                          shape=(sizes[i], sizes[i + 1]) if i < 3
                          else (sizes[i],))
            b = pm.Normal("b%d" % (i + 1), 0.0, 1.0,
                          shape=(sizes[i + 1],) if i < 3 else ())
            h = pt.dot(h, w) + b
            if i < 3:
                h = pt.maximum(h, 0.0)
        pm.Bernoulli("y", logit_p=h, shape=X.shape[0])
    return m


MODELS = {"linreg-pred": ("linreg", linreg), "linreg-ll": ("linreg", linreg),
          "hier-pred": ("hier", hierarchical), "mlp-pred": ("mlp", mlp),
          "prior": ("linreg", linreg)}


def load_inputs(data_dir, model, n, with_y):
    """The model's inputs by pm.Data name (memory-mapped)."""
    def mm(name):
        return np.load(os.path.join(data_dir, name), mmap_mode="r")
    if model == "hier":
        return {"x": mm("hier_x_%d.npy" % n), "g": mm("hier_g_%d.npy" % n)}
    out = {"X": mm("%s_X_%d.npy" % (model, n))}
    if with_y:
        out["y"] = mm("linreg_y_%d.npy" % n)
    return out


def as_idata(posterior):
    """Posterior draws (an xarray Dataset with chain and draw) as the
    InferenceData that PyMC's functions take."""
    return az.InferenceData(posterior=posterior)


def as_dataset(draws):
    """Posterior draws {name: (D, ...)}: one chain."""
    return xr.Dataset({k: (("chain", "draw") + tuple(
        "%s_dim_%d" % (k, i) for i in range(v.ndim - 1)), v[None])
        for k, v in draws.items()})


def load_posterior(data_dir, model, draws):
    post = np.load(os.path.join(data_dir, "post_%s_%d.npz" % (model, draws)))
    return {k: np.asarray(post[k][:draws], dtype=np.float32)
            for k in post.files}


def block_size(spec, D, n):
    """Whole chunks of aimz-run's store per block, under BLOCK_BYTES of
    draws at 8 bytes each (all observations in one block for the draw plan)."""
    if spec["plan"] != "obs":
        return n
    chunk = spec["chunks"][1]
    per = max(1, BLOCK_BYTES // (8 * D * chunk))
    return min(n, per * chunk)


def draws_of(workload, m, posterior, seed):
    """One block's draws of y, (D, block)."""
    if workload == "linreg-ll":
        ll = pm.compute_log_likelihood(posterior, var_names=["y"], model=m,
                                       extend_inferencedata=False,
                                       progressbar=False)
        return ll["y"].values[0]
    pp = pm.sample_posterior_predictive(posterior, model=m, var_names=["y"],
                                        random_seed=seed, progressbar=False)
    return pp.posterior_predictive["y"].values[0]


def run(args, spec):
    model, build = MODELS[args.workload]
    D, n = args.draws, args.n
    with_y = args.workload == "linreg-ll"
    inputs = load_inputs(args.data_dir, model, n, with_y)
    step = block_size(spec, D, n)

    def block(o):
        return {k: np.ascontiguousarray(v[o:o + step]) for k, v in
                inputs.items()}
    first = block(0)
    m = build(first, with_y)
    if args.workload == "prior":
        with m:
            lat = pm.sample_prior_predictive(
                draws=D, var_names=["alpha", "beta", "sigma"],
                random_seed=args.seed)
        posterior = as_idata(lat.prior[["alpha", "beta", "sigma"]])
    else:
        posterior = as_idata(as_dataset(load_posterior(args.data_dir, model,
                                                       D)))

    def draws(o):
        data = first if o == 0 else block(o)
        if "y" in data:
            data["y_obs"] = data.pop("y")
        with m:
            pm.set_data(data)
        return draws_of(args.workload, m, posterior, args.seed + o)
    return write_blocks(args.out, spec, n, step, draws,
                        time.perf_counter() - T_START)


def main():
    args = peer_args.parser(["pymc"]).parse_args()
    spec = json.load(open(args.spec))
    assert tuple(spec["shape"]) == (args.draws, args.n), spec["shape"]
    try:
        res = run(args, spec)
    finally:
        shutil.rmtree(_CACHE, ignore_errors=True)
    res.update(backend=args.backend, workload=args.workload,
               total_s=time.perf_counter() - T_START,
               versions={m: importlib.metadata.version(m)
                         for m in ("pymc", "pytensor", "numpy")},
               blas=[], threads=os.cpu_count())
    with open(args.result, "w") as f:
        json.dump(res, f)


if __name__ == "__main__":
    main()
