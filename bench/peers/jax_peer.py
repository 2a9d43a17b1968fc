"""The JAX peers: aimz itself (PyPI `aimz`, ImpactModel) and NumPyro's
`Predictive`, on the same models, data and posterior draws as aimz-run.

These are the systems our users would otherwise pick. Run by the virtual
environment's Python (tools/setup_venv.sh installs the pinned versions):

  jax_peer.py --backend aimz-jax|numpyro --workload WL --data-dir DIR
              --draws D --n N --spec spec.json --out store.zarr
              --result result.json [--seed S]

WL is one of linreg-pred, linreg-ll, hier-pred, mlp-pred, prior; the
models are dsl-examples/{linreg,hierarchical,mlp}.aimz written in NumPyro.

* aimz-jax: `ImpactModel.set_posterior_sample` then `predict` /
  `log_likelihood` / `sample_prior_predictive` with the batch size of
  aimz-run's chunks, writing aimz's own Zarr v3 store (Blosc zstd); the
  store's `y` is then copied, untimed, to a Zarr v2 store at --out so that
  bench/harness.py (Debian's zarr 2) can check it against ours.
* numpyro: `Predictive` (vectorized over draws, jitted) or
  `numpyro.infer.util.log_likelihood`, in blocks of aimz-run's chunks,
  each written into a Zarr v2 store like the NumPy peer's.

The result JSON splits setup (imports, posterior, model), compute and
write, and gives the untimed copy's seconds (check_copy_s) so the harness
can take them out of the process's wall time.
"""

import importlib.metadata
import json
import os
import shutil
import tempfile
import time

T_START = time.perf_counter()

import numpy as np  # noqa: E402

import peer_args  # noqa: E402
from zarr_v2_store import v2_array, write_blocks  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpyro  # noqa: E402
import numpyro.distributions as dist  # noqa: E402

G_HIER = 8  # dsl-examples/hierarchical.aimz: const G = 8


def parse_args():
    p = peer_args.parser(["aimz-jax", "numpyro"])
    return p.parse_args()


# ------------------------------------------------------------------ models
# One input array X (aimz's ImpactModel takes one): hierarchical's x and
# group index travel as the two columns of X.

def linreg(X, y=None):
    alpha = numpyro.sample("alpha", dist.Normal(0.0, 1.0))
    beta = numpyro.sample("beta", dist.Normal(0.0, 1.0).expand([X.shape[1]]))
    sigma = numpyro.sample("sigma", dist.HalfNormal(1.0))
    with numpyro.plate("obs", X.shape[0]):
        mu = alpha + X @ beta
        numpyro.deterministic("eta", jnp.exp(mu))
        numpyro.sample("y", dist.Normal(mu, sigma), obs=y)


def hierarchical(X, y=None):
    mu_a = numpyro.sample("mu_a", dist.Normal(0.0, 5.0))
    sigma_a = numpyro.sample("sigma_a", dist.HalfNormal(2.0))
    a = numpyro.sample("a", dist.Normal(mu_a, sigma_a).expand([G_HIER]))
    b = numpyro.sample("b", dist.Normal(0.0, 1.0))
    sigma = numpyro.sample("sigma", dist.HalfCauchy(1.0))
    x, g = X[:, 0], X[:, 1].astype(jnp.int32)
    with numpyro.plate("obs", X.shape[0]):
        numpyro.sample("y", dist.Normal(a[g] + b * x, sigma), obs=y)


def mlp(X, y=None):
    sizes = [X.shape[1], 128, 128, 128, 1]
    h = X
    for i in range(4):
        w = numpyro.sample("w%d" % (i + 1), dist.Normal(0.0, 1.0).expand(
            [sizes[i], sizes[i + 1]] if i < 3 else [sizes[i]]))
        b = numpyro.sample("b%d" % (i + 1), dist.Normal(0.0, 1.0).expand(
            [sizes[i + 1]] if i < 3 else []))
        h = jax.nn.relu(h @ w + b) if i < 3 else h @ w + b
    with numpyro.plate("obs", X.shape[0]):
        numpyro.sample("y", dist.Bernoulli(logits=h), obs=y)


MODELS = {"linreg-pred": ("linreg", linreg), "linreg-ll": ("linreg", linreg),
          "hier-pred": ("hier", hierarchical), "mlp-pred": ("mlp", mlp),
          "prior": ("linreg", linreg)}


def load_X(data_dir, model, n):
    """The model's input as one array (memory-mapped where it is one file)."""
    def mm(name):
        return np.load(os.path.join(data_dir, name), mmap_mode="r")
    if model == "hier":
        x = np.asarray(mm("hier_x_%d.npy" % n), dtype=np.float32)
        g = np.asarray(mm("hier_g_%d.npy" % n), dtype=np.float32)
        return np.stack([x, g], axis=1)
    return mm("%s_X_%d.npy" % (model, n))


def load_posterior(data_dir, model, draws):
    post = np.load(os.path.join(data_dir, "post_%s_%d.npz" % (model, draws)))
    return {k: jnp.asarray(post[k][:draws].astype(np.float32))
            for k in post.files}


# ---------------------------------------------------------------- backends

def run_aimz(args, spec, model_fn, X, P, D, n):
    """aimz's ImpactModel as its users call it; its own store."""
    from aimz import ImpactModel
    from numpyro.infer import MCMC, NUTS

    # ImpactModel wants an inference object; the posterior comes from
    # set_posterior_sample (draws fitted elsewhere), so it never runs.
    im = ImpactModel(model_fn, rng_key=jax.random.key(args.seed),
                     inference=MCMC(NUTS(model_fn), num_warmup=1,
                                    num_samples=1, progress_bar=False))
    if P is not None:
        im.set_posterior_sample(P)
    batch = spec["chunks"][1] if spec["plan"] == "obs" else n
    work = tempfile.mkdtemp(prefix="aimz_jax_", dir=os.path.dirname(args.out))
    Xj = np.ascontiguousarray(X)
    t_setup = time.perf_counter() - T_START
    t0 = time.perf_counter()
    if args.workload == "linreg-ll":
        y = np.load(os.path.join(args.data_dir, "linreg_y_%d.npy" % n))
        out = im.log_likelihood(Xj, y, batch_size=batch, output_dir=work,
                                progress=False)
        group = "log_likelihood"
    elif args.workload == "prior":
        out = im.sample_prior_predictive(Xj, num_samples=D, batch_size=batch,
                                         return_sites="y", output_dir=work,
                                         progress=False)
        group = "prior_predictive"
    else:
        out = im.predict(Xj, batch_size=batch, output_dir=work,
                         return_sites="y", progress=False)
        group = "posterior_predictive"
    t_total = time.perf_counter() - t0
    # Untimed: the draws of y into a Zarr v2 store for the harness, one
    # block of observations at a time (aimz's store is Zarr v3).
    t1 = time.perf_counter()
    import zarr
    src = zarr.open_array(os.path.join(out.attrs["artifact_path"], "y"),
                          mode="r")
    arr = v2_array(args.out, spec)
    step = spec["chunks"][1]
    for o in range(0, n, step):
        block = np.asarray(src[..., o:o + step]).reshape(D, -1)
        arr[:, o:o + block.shape[1]] = block.astype(spec["dtype"])
    shutil.rmtree(work, ignore_errors=True)
    check_copy_s = time.perf_counter() - t1
    # aimz computes and writes in one pipelined call: all of it is compute.
    return dict(setup_s=t_setup, compute_s=t_total, write_s=0.0,
                check_copy_s=check_copy_s, batches=-(-n // batch))


def run_numpyro(args, spec, model_fn, X, P, D, n):
    """NumPyro's Predictive (vectorized over draws, jitted) per block of
    observations, each written as one chunk of a Zarr store."""
    from numpyro.infer import Predictive
    from numpyro.infer.util import log_likelihood

    key = jax.random.key(args.seed)
    if args.workload == "prior":
        # The latents once per draw, conditioned on in every block (as
        # aimz-run's obs plan does).
        k = X.shape[1]
        lat = Predictive(model_fn, num_samples=D,
                         return_sites=["alpha", "beta", "sigma"])(
            key, jnp.zeros((1, k), jnp.float32))
        P = {s: lat[s] for s in ("alpha", "beta", "sigma")}
        key = jax.random.fold_in(key, 1)
    if args.workload == "linreg-ll":
        y_all = np.load(os.path.join(args.data_dir, "linreg_y_%d.npy" % n),
                        mmap_mode="r")
        fn = jax.jit(lambda Xb, yb: log_likelihood(model_fn, P, Xb, y=yb)["y"])
    else:
        pred = Predictive(model_fn, posterior_samples=P, return_sites=["y"],
                          parallel=True)
        fn = jax.jit(lambda kb, Xb: pred(kb, Xb)["y"])
    if spec["plan"] == "obs":
        step = spec["chunks"][1]
    else:
        step = n  # draw plan: every observation in one call

    def block(o):
        Xb = jnp.asarray(np.ascontiguousarray(X[o:o + step]))
        if args.workload == "linreg-ll":
            return fn(Xb, jnp.asarray(np.ascontiguousarray(
                y_all[o:o + step])))
        return fn(jax.random.fold_in(key, o), Xb)
    return write_blocks(args.out, spec, n, step, block,
                        time.perf_counter() - T_START)


def main():
    args = parse_args()
    spec = json.load(open(args.spec))
    model, model_fn = MODELS[args.workload]
    D, n = args.draws, args.n
    assert tuple(spec["shape"]) == (D, n), (spec["shape"], D, n)
    X = load_X(args.data_dir, model, n)
    P = None if args.workload == "prior" else load_posterior(
        args.data_dir, model, D)
    run = run_aimz if args.backend == "aimz-jax" else run_numpyro
    res = run(args, spec, model_fn, X, P, D, n)
    res.update(backend=args.backend, workload=args.workload,
               total_s=time.perf_counter() - T_START,
               versions={m: importlib.metadata.version(m)
                         for m in ("jax", "numpyro", "aimz")},
               devices=[str(d) for d in jax.devices()], blas=[],
               threads=os.cpu_count())
    with open(args.result, "w") as f:
        json.dump(res, f)


if __name__ == "__main__":
    main()
