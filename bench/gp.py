"""Gaussian-process regression (dsl-examples/gp_regression.aimz, a joint
site: one MultivariateNormal over all N observations) against NumPyro's
log_likelihood of the same model, on the same data and posterior.

  .venv/bin/python bench/gp.py [--n 1000] [--draws 100] [--rounds 3]
      [--build build] [--work DIR]

Each draw factors an N x N kernel (O(N^3)): this is the workload of
Cholesky-heavy models. aimz-run writes its Zarr store (the model compiled
once beforehand); NumPyro's first call includes its JIT, its second does
not. The results are checked against each other (f32 on both sides, to
1e-3 relative) before any time is printed; each figure is the median of
the rounds, and the CPU is named.
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
             (n + 1e-6) * jnp.eye(X.shape[0]))
        numpyro.sample("Y", dist.MultivariateNormal(
            jnp.zeros(X.shape[0]), covariance_matrix=K), obs=Y)

    p = {k: jnp.asarray(v, dtype=jnp.float32) for k, v in post.items()}
    return np.asarray(log_likelihood(model, p, X, Y)["Y"].block_until_ready())


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--draws", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work", default=None)
    a = ap.parse_args()
    work = a.work or tempfile.mkdtemp(prefix="aimz-gp-")
    os.makedirs(work, exist_ok=True)
    rng = np.random.default_rng(0)
    X = np.sort(rng.uniform(-3, 3, a.n)).astype(np.float32)
    Y = (np.sin(X) + rng.normal(0, 0.3, a.n)).astype(np.float32)
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
    ours, first, warm = [], [], []
    ref = None
    for _ in range(a.rounds):
        t = time.perf_counter()
        subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
        ours.append(time.perf_counter() - t)
        # NumPyro in a fresh process, so that its first call pays the JIT.
        r = subprocess.run(
            [sys.executable, "-c",
             "import sys, time, numpy as np; sys.path.insert(0, %r);"
             "import gp; p = dict(np.load(%r));"
             "X = np.load(%r); Y = np.load(%r);"
             "t = time.perf_counter(); ll = gp.numpyro_ll(X, Y, p);"
             "t1 = time.perf_counter(); gp.numpyro_ll(X, Y, p);"
             "t2 = time.perf_counter(); np.save(%r, ll);"
             "print(t1 - t, t2 - t1)" % (
                 HERE, os.path.join(work, "post.npz"),
                 os.path.join(work, "X.npy"), os.path.join(work, "Y.npy"),
                 os.path.join(work, "ref.npy"))],
            check=True, capture_output=True, text=True)
        f, w = map(float, r.stdout.split())
        first.append(f)
        warm.append(w)
        ref = np.load(os.path.join(work, "ref.npy"))
    import zarr
    got = zarr.open_group(out, mode="r")["Y"][...]
    rel = float(np.max(np.abs(got - ref) / np.abs(ref)))
    if rel > 1e-3:
        sys.exit("gp.py: aimz-run and NumPyro disagree (max relative "
                 "difference %.3g)" % rel)
    o, f, w = (statistics.median(x) for x in (ours, first, warm))
    print("GP regression log-likelihood, N = %d, %d draws, on %s "
          "(%d cores), median of %d rounds:" % (a.n, a.draws, cpu_name(),
                                                os.cpu_count(), a.rounds))
    print("  aimz-run            %7.2f s" % o)
    print("  NumPyro, first call %7.2f s  (%.1fx ours)" % (f, f / o))
    print("  NumPyro, warm       %7.2f s  (%.1fx ours)" % (w, w / o))
    print("  max relative difference %.2g" % rel)
    if not a.work:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
