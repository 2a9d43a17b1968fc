"""Gaussian-process regression (dsl-examples/gp_regression.aimz, a joint
site: one MultivariateNormal over all N observations) against NumPyro's
and PyMC's log-likelihood of the same model, on the same data and
posterior.

  .venv/bin/python bench/gp.py [--n 1000 2000 4000] [--draws 1000]
      [--rounds 1] [--peers numpyro pymc] [--build build] [--work DIR]

Each draw factors an N x N kernel (N^3 / 3 FLOPs): the workload of
Cholesky-heavy models. aimz-run writes its Zarr store (the model compiled
once beforehand). Each peer runs in a fresh process: NumPyro's first call
includes its JIT, PyMC's first call PyTensor's C compilation (into an
empty compile directory); their second calls are the warm figures. Every
peer's log-likelihoods are checked against ours (f32 on every side, 1e-3
relative) before any time is printed. The FLOP bound is N^3 / 3 per draw
at the rate of the project's GEMM kernel (aimz-bench-cholesky --gemm) on
every core. Each figure is the median of the rounds, and the CPU is
named.
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from count_models import cpu_name  # noqa: E402

JITTER = 1e-6


def numpyro_ll(X, Y, post):
    import jax.numpy as jnp
    import numpyro
    import numpyro.distributions as dist
    from numpyro.infer import log_likelihood

    def model(X, Y=None):
        v = numpyro.sample("kernel_var", dist.LogNormal(0., 10.))
        n = numpyro.sample("kernel_noise", dist.LogNormal(0., 10.))
        ln = numpyro.sample("kernel_length", dist.LogNormal(0., 10.))
        K = (v * jnp.exp(-0.5 * ((X[:, None] - X[None, :]) / ln) ** 2) +
             (n + JITTER) * jnp.eye(X.shape[0]))
        numpyro.sample("Y", dist.MultivariateNormal(
            jnp.zeros(X.shape[0]), covariance_matrix=K), obs=Y)

    p = {k: jnp.asarray(v, dtype=jnp.float32) for k, v in post.items()}
    return np.asarray(log_likelihood(model, p, X, Y)["Y"].block_until_ready())


def pymc_ll(X, Y, post):
    """pm.compute_log_likelihood of the same model (floatX float32)."""
    import arviz as az
    import pymc as pm
    import pytensor
    import pytensor.tensor as pt
    pytensor.config.floatX = "float32"
    n = X.shape[0]
    with pm.Model() as model:
        v = pm.LogNormal("kernel_var", 0., 10.)
        noise = pm.LogNormal("kernel_noise", 0., 10.)
        ln = pm.LogNormal("kernel_length", 0., 10.)
        Xt = pt.as_tensor_variable(X)
        K = (v * pt.exp(-0.5 * ((Xt[:, None] - Xt[None, :]) / ln) ** 2) +
             (noise + np.float32(JITTER)) * pt.eye(n, dtype="float32"))
        pm.MvNormal("Y", mu=pt.zeros(n, dtype="float32"), cov=K, observed=Y)
    idata = az.from_dict(posterior={k: v.astype(np.float32)[None, :]
                                    for k, v in post.items()})
    ll = pm.compute_log_likelihood(idata, model=model, progressbar=False,
                                   extend_inferencedata=False)
    return np.asarray(ll["Y"]).reshape(-1)


PEER_SCRIPT = """
import os, sys, time, numpy as np
sys.path.insert(0, %(here)r)
import gp
p = dict(np.load(%(post)r)); X = np.load(%(x)r); Y = np.load(%(y)r)
fn = getattr(gp, %(fn)r)
t = time.perf_counter(); ll = fn(X, Y, p)
t1 = time.perf_counter(); fn(X, Y, p)
t2 = time.perf_counter()
np.save(%(out)r, ll)
print(t1 - t, t2 - t1)
"""


def run_peer(peer, work):
    """(first call, warm call) seconds of one peer in a fresh process; its
    log-likelihoods are left in work/<peer>.npy."""
    env = dict(os.environ)
    if peer == "pymc":  # its C compilation counts in the first call
        env["PYTENSOR_FLAGS"] = "compiledir=" + tempfile.mkdtemp(
            prefix="pytensor-", dir=work)
    r = subprocess.run(
        [sys.executable, "-c", PEER_SCRIPT % dict(
            here=HERE, post=os.path.join(work, "post.npz"),
            x=os.path.join(work, "X.npy"), y=os.path.join(work, "Y.npy"),
            fn=peer + "_ll", out=os.path.join(work, peer + ".npy"))],
        check=True, capture_output=True, text=True, env=env)
    first, warm = map(float, r.stdout.split()[-2:])
    return first, warm


def gemm_gflops(build):
    r = subprocess.run([os.path.join(build, "bin", "aimz-bench-cholesky"),
                        "--gemm"], check=True, capture_output=True,
                       text=True)
    return float(r.stdout.split()[0])


def one_size(a, n, work, gemm):
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(0)
    X = np.sort(rng.uniform(-3, 3, n)).astype(np.float32)
    Y = (np.sin(X) + rng.normal(0, 0.3, n)).astype(np.float32)
    post = {"kernel_var": rng.uniform(0.8, 1.2, a.draws),
            "kernel_noise": rng.uniform(0.05, 0.15, a.draws),
            "kernel_length": rng.uniform(0.8, 1.5, a.draws)}
    np.save(os.path.join(work, "X.npy"), X)
    np.save(os.path.join(work, "Y.npy"), Y)
    np.savez(os.path.join(work, "post.npz"), **post)
    so = os.path.join(work, "gp.so")
    bin_ = os.path.join(a.build, "bin")
    subprocess.run([os.path.join(bin_, "aimzc"),
                    os.path.join(ROOT, "dsl-examples", "gp_regression.aimz"),
                    "-o", so], check=True)
    out = os.path.join(work, "ll.zarr")
    cmd = [os.path.join(bin_, "aimz-run"), "log-likelihood", so,
           "--data", "X=" + os.path.join(work, "X.npy"),
           "--data", "Y=" + os.path.join(work, "Y.npy"),
           "--posterior", os.path.join(work, "post.npz"), "--out", out]
    ours = []
    peers = {p: ([], []) for p in a.peers}
    for _ in range(a.rounds):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        ours.append(time.perf_counter() - t)
        for p in a.peers:
            f, w = run_peer(p, work)
            peers[p][0].append(f)
            peers[p][1].append(w)
    import zarr
    got = zarr.open_group(out, mode="r")["Y"][...].reshape(-1)
    worst = 0.0
    for p in a.peers:
        ref = np.load(os.path.join(work, p + ".npy")).reshape(-1)
        rel = float(np.max(np.abs(got - ref) / np.abs(ref)))
        if rel > 1e-3:
            sys.exit("gp.py: aimz-run and %s disagree at N = %d (max "
                     "relative difference %.3g)" % (p, n, rel))
        worst = max(worst, rel)
    o = statistics.median(ours)
    bound = a.draws * n ** 3 / 3 / (gemm * 1e9 * os.cpu_count())
    row = {"n": n, "ours": o, "bound": bound, "rel": worst}
    for p in a.peers:
        row[p] = tuple(statistics.median(x) for x in peers[p])
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, nargs="+", default=[1000])
    ap.add_argument("--draws", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--peers", nargs="*", default=["numpyro", "pymc"],
                    choices=["numpyro", "pymc"])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work", default=None)
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="aimz-gp-")
    gemm = gemm_gflops(a.build)
    rows = [one_size(a, n, os.path.join(work, "n%d" % n), gemm)
            for n in a.n]
    print("GP regression log-likelihood, %d draws, on %s (%d cores), "
          "median of %d rounds; seconds (ratio to aimz-run):"
          % (a.draws, cpu_name(), os.cpu_count(), a.rounds))
    print("FLOP bound: N^3/3 per draw at the GEMM kernel's %.0f GFLOP/s on "
          "every core" % gemm)
    head = "%6s %10s %16s" % ("N", "aimz-run", "FLOP bound")
    for p in a.peers:
        head += " %18s %18s" % (p + " warm", p + " first call")
    print(head + "  max rel. diff")
    for r in rows:
        line = "%6d %10.2f %9.2f (%.2fx)" % (r["n"], r["ours"], r["bound"],
                                             r["ours"] / r["bound"])
        for p in a.peers:
            f, w = r[p]
            line += " %10.2f (%4.1fx) %10.2f (%4.1fx)" % (
                w, w / r["ours"], f, f / r["ours"])
        print(line + "  %.1e" % r["rel"])
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
