"""The hand-written peer: NumPy (+ OpenBLAS) or PyTorch, in batches, writing
the same Zarr store as aimz-run with zarr-python.

This is the vectorized code a user would write instead of aimz-run: load
the posterior, walk the data in batches that fit in memory (the batches are
the chunks of aimz-run's store, so each write is one whole chunk), compute
the batch with array operations, and write it. Run by Debian's
/usr/bin/python3 (the interpreter that sees python3-numpy, python3-torch and
python3-zarr):

  array_peer.py --backend numpy|torch --workload WL --data-dir DIR
                --draws D --n N --spec spec.json --out store.zarr
                --result result.json [--no-write] [--seed S]

WL is one of linreg-pred, linreg-ll, hier-pred, mlp-pred, prior. spec.json
describes the store to write (shape, chunks, dtype, compressor, plan, dims,
site), copied from aimz-run's store by bench/harness.py. The result JSON
splits the time into setup (imports, posterior), compute and write, so the
harness can report the peer with and without the write from one run.
"""

import json
import math
import os
import time

T_START = time.perf_counter()

import numpy as np  # noqa: E402

import peer_args  # noqa: E402


def parse_args():
    p = peer_args.parser(["numpy", "torch"])
    p.add_argument("--no-write", action="store_true")
    return p.parse_args()


def blas_in_use():
    """The BLAS library mapped into this process (numpy's or torch's)."""
    libs = set()
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                path = line.split()[-1] if len(line.split()) >= 6 else ""
                base = os.path.basename(path)
                if "blas" in base or "mkl" in base or "lapack" in base:
                    libs.add(os.path.realpath(path))
    except OSError:
        pass
    return sorted(libs)


# ---------------------------------------------------------------- backends

class NumpyOps:
    name = "numpy"

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def asarray(self, a):
        return np.ascontiguousarray(a)

    def to_numpy(self, t):
        return t

    def normal(self, shape):
        return self.rng.standard_normal(shape, dtype=np.float32)

    def half_normal(self, shape):
        return np.abs(self.normal(shape))

    def uniform(self, shape):
        return self.rng.random(shape, dtype=np.float32)

    def relu(self, t):
        return np.maximum(t, 0, out=t)

    def sigmoid(self, t):
        return 1.0 / (1.0 + np.exp(-t))

    def bernoulli_logits(self, logits):
        return (self.uniform(logits.shape) < self.sigmoid(logits)).astype(
            np.int32)

    def normal_logpdf(self, y, mu, sigma):
        z = (y - mu) / sigma
        return (-0.5 * z * z - np.log(sigma)
                - np.float32(0.5 * math.log(2 * math.pi)))

    def matmul(self, a, b):
        return np.matmul(a, b)

    def take_cols(self, a, idx):
        return a[:, idx]

    def transpose(self, a):
        return a.T


class TorchOps:
    name = "torch"

    def __init__(self, seed):
        import torch
        self.torch = torch
        self.gen = torch.Generator().manual_seed(seed)

    def asarray(self, a):
        return self.torch.from_numpy(np.ascontiguousarray(a))

    def to_numpy(self, t):
        return t.numpy()

    def normal(self, shape):
        return self.torch.randn(shape, generator=self.gen,
                                dtype=self.torch.float32)

    def half_normal(self, shape):
        return self.normal(shape).abs_()

    def uniform(self, shape):
        return self.torch.rand(shape, generator=self.gen,
                               dtype=self.torch.float32)

    def relu(self, t):
        return t.relu_()

    def sigmoid(self, t):
        return self.torch.sigmoid(t)

    def bernoulli_logits(self, logits):
        return self.torch.bernoulli(self.torch.sigmoid(logits),
                                    generator=self.gen).to(self.torch.int32)

    def normal_logpdf(self, y, mu, sigma):
        return self.torch.distributions.Normal(
            mu, sigma, validate_args=False).log_prob(y)

    def matmul(self, a, b):
        return self.torch.matmul(a, b)

    def take_cols(self, a, idx):
        return a[:, idx.long()]  # torch indexes with int64 only

    def transpose(self, a):
        return a.T


# --------------------------------------------------------------- workloads
#
# Each workload is f(ops, params sliced to a block of draws, data sliced to
# a block of observations) -> (draws_in_block, obs_in_block) array.

def linreg_mu(ops, P, X):
    # alpha[:, None] + beta @ X.T  ->  (draws, obs)
    return P["alpha"][:, None] + ops.matmul(P["beta"], ops.transpose(X))


def wl_linreg_pred(ops, P, B):
    mu = linreg_mu(ops, P, B["X"])
    return mu + P["sigma"][:, None] * ops.normal(tuple(mu.shape))


def wl_linreg_ll(ops, P, B):
    mu = linreg_mu(ops, P, B["X"])
    return ops.normal_logpdf(B["y"][None, :], mu, P["sigma"][:, None])


def wl_hier_pred(ops, P, B):
    mu = ops.take_cols(P["a"], B["g"]) + P["b"][:, None] * B["x"][None, :]
    return mu + P["sigma"][:, None] * ops.normal(tuple(mu.shape))


MLP_DRAW_GROUP = 16  # draws per batched matmul: (16, obs, 128) floats


def mlp_prepare(ops, P):
    """The first layer of a group of draws as one GEMM: X @ [w1_d0 | w1_d1
    | ...], so each group's first layer is a single (obs x 100) @ (100 x
    16*128) product (a broadcast 2-D @ 3-D matmul takes a slow path in
    torch 1.13)."""
    w1 = ops.to_numpy(P["w1"])
    b1 = ops.to_numpy(P["b1"])
    D, din, H = w1.shape
    groups = []
    for d0 in range(0, D, MLP_DRAW_GROUP):
        d1 = min(D, d0 + MLP_DRAW_GROUP)
        wcat = np.ascontiguousarray(w1[d0:d1].transpose(1, 0, 2)
                                    .reshape(din, (d1 - d0) * H))
        groups.append((d0, d1, ops.asarray(wcat),
                       ops.asarray(b1[d0:d1].reshape(-1))))
    P["_w1_groups"] = groups


def contiguous(ops, t):
    return t.contiguous() if ops.name == "torch" else np.ascontiguousarray(t)


def wl_mlp_pred(ops, P, B):
    X = B["X"]
    nobs = X.shape[0]
    H = P["b2"].shape[1]
    outs = []
    for d0, d1, wcat, bcat in P["_w1_groups"]:
        g = d1 - d0
        h = ops.relu(ops.matmul(X, wcat) + bcat[None, :])   # (obs, g*H)
        h = contiguous(ops, h.reshape(nobs, g, H).transpose(1, 0)
                       if ops.name == "torch"
                       else h.reshape(nobs, g, H).transpose(1, 0, 2))
        h = ops.relu(ops.matmul(h, P["w2"][d0:d1]) + P["b2"][d0:d1][:, None, :])
        h = ops.relu(ops.matmul(h, P["w3"][d0:d1]) + P["b3"][d0:d1][:, None, :])
        logit = ops.matmul(h, P["w4"][d0:d1][:, :, None])[:, :, 0] \
            + P["b4"][d0:d1][:, None]
        outs.append(ops.bernoulli_logits(logit))
    if ops.name == "torch":
        return ops.torch.cat(outs, 0)
    return np.concatenate(outs, 0)


WORKLOADS = {
    "linreg-pred": (wl_linreg_pred, "linreg"),
    "linreg-ll": (wl_linreg_ll, "linreg"),
    "hier-pred": (wl_hier_pred, "hier"),
    "mlp-pred": (wl_mlp_pred, "mlp"),
    "prior": (wl_linreg_pred, "linreg"),
}


def load_inputs(data_dir, model, n, with_y):
    """Memory-mapped inputs (read batch by batch, like aimz-run)."""
    def mm(name):
        return np.load(os.path.join(data_dir, name), mmap_mode="r")
    if model == "linreg":
        d = {"X": mm("linreg_X_%d.npy" % n)}
        if with_y:
            d["y"] = mm("linreg_y_%d.npy" % n)
    elif model == "hier":
        d = {"x": mm("hier_x_%d.npy" % n), "g": mm("hier_g_%d.npy" % n)}
    else:
        d = {"X": mm("mlp_X_%d.npy" % n)}
    return d


def load_params(ops, args, model):
    if args.workload == "prior":
        # Prior draws of linreg's latents, fixed across observation batches.
        k = np.load(os.path.join(args.data_dir,
                                 "linreg_X_%d.npy" % args.n),
                    mmap_mode="r").shape[1]
        D = args.draws
        return {"alpha": ops.normal((D,)), "beta": ops.normal((D, k)),
                "sigma": ops.half_normal((D,))}
    post = np.load(os.path.join(args.data_dir,
                                "post_%s_%d.npz" % (model, args.draws)))
    P = {}
    for key in post.files:
        P[key] = ops.asarray(post[key][:args.draws].astype(np.float32))
    return P


def open_store(spec, path):
    import zarr
    from numcodecs import get_codec
    comp = get_codec(dict(spec["compressor"])) if spec["compressor"] else None
    root = zarr.open_group(path, mode="w")
    arr = root.create_dataset(
        spec["site"], shape=tuple(spec["shape"]), chunks=tuple(spec["chunks"]),
        dtype=spec["dtype"], compressor=comp, fill_value=spec["fill_value"],
        order="C", dimension_separator=spec.get("dimension_separator", "."),
        overwrite=True)
    arr.attrs["_ARRAY_DIMENSIONS"] = spec["dims"]
    root.attrs.update({"computed": spec["computed"], "tool": "bench peer"})
    return arr


def main():
    args = parse_args()
    ops = NumpyOps(args.seed) if args.backend == "numpy" \
        else TorchOps(args.seed)
    spec = json.load(open(args.spec))
    fn, model = WORKLOADS[args.workload]
    inputs = load_inputs(args.data_dir, model, args.n,
                         args.workload == "linreg-ll")
    P = load_params(ops, args, model)
    if model == "mlp":
        mlp_prepare(ops, P)
    arr = None if args.no_write else open_store(spec, args.out)
    D, n = args.draws, args.n
    assert tuple(spec["shape"]) == (D, n), (spec["shape"], D, n)
    dtype = np.dtype(spec["dtype"])
    t_setup = time.perf_counter() - T_START

    t_compute = t_write = 0.0
    checksum = 0.0
    if spec["plan"] == "obs":
        step = spec["chunks"][1]
        blocks = [(slice(0, D), slice(o, min(n, o + step)))
                  for o in range(0, n, step)]
    else:
        step = spec["chunks"][0]
        blocks = [(slice(d, min(D, d + step)), slice(0, n))
                  for d in range(0, D, step)]
    for ds, os_ in blocks:
        t0 = time.perf_counter()
        B = {k: ops.asarray(v[os_]) for k, v in inputs.items()}
        Pd = P if ds == slice(0, D) else {k: v[ds] for k, v in P.items()
                                          if not k.startswith("_")}
        out = ops.to_numpy(fn(ops, Pd, B))
        if out.dtype != dtype:
            out = out.astype(dtype)
        t1 = time.perf_counter()
        if arr is not None:
            arr[ds, os_] = out
        else:
            checksum += float(out[0, 0])  # keep the result alive
        t2 = time.perf_counter()
        t_compute += t1 - t0
        t_write += t2 - t1
    res = {"backend": args.backend, "workload": args.workload,
           "setup_s": t_setup, "compute_s": t_compute, "write_s": t_write,
           "total_s": time.perf_counter() - T_START, "batches": len(blocks),
           "blas": blas_in_use(),
           "threads": (ops.torch.get_num_threads() if args.backend == "torch"
                       else None)}
    with open(args.result, "w") as f:
        json.dump(res, f)


if __name__ == "__main__":
    main()
