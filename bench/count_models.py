"""Count and logistic GLMs: aimz-run against the NumPy + SciPy code a user
would write, side by side, on the same data and posterior.

  .venv/bin/python bench/count_models.py [--n 200000] [--draws 50]
      [--rounds 3] [--build build] [--work DIR]

For each model (dsl-examples/poisson, negbin_glm, logistic) and each of
predict and log-likelihood: aimz-run writing its Zarr store (synced, the
default) against a NumPy peer that computes the same quantity draw by draw
(one matrix-vector product per draw, numpy's Generator for the draws,
scipy.special.gammaln for the log-likelihoods) and writes the same
[draw, n] float32 / int32 array with zarr-python (Blosc zstd level 1, byte
shuffle for floats, bit shuffle for integers, as aimz-run's default);
aimz-run's predict is given --return-sites y, so both write the outcome
only. The peer's results are checked against ours first: log-likelihoods to
1e-4 relative, predictive means within 6 standard errors. Each row is the
median of interleaved rounds (ours, then the peer); the table prints the
CPU, the times and the ratio (peer / ours; above 1: we are faster).
"""

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import time

import numpy as np
import zarr
from numcodecs import Blosc
from scipy.special import gammaln

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
MODELS = {
    "poisson": ["X", "exposure"],
    "negbin_glm": ["X", "exposure"],
    "logistic": ["X"],
}


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def make_inputs(work, n, draws, k=8, seed=0):
    """Data and a posterior like a fitted GLM's (modest coefficients)."""
    rng = np.random.default_rng(seed)
    X = (rng.standard_normal((n, k)) * 0.3).astype(np.float32)
    exposure = rng.uniform(0.5, 2.0, n).astype(np.float32)
    post = {
        "poisson": {"beta0": rng.normal(0.5, 0.1, draws),
                    "beta": rng.normal(0.0, 0.3, (draws, k))},
        "negbin_glm": {"alpha": rng.normal(0.5, 0.1, draws),
                       "beta": rng.normal(0.0, 0.3, (draws, k)),
                       "phi": rng.uniform(2.0, 6.0, draws)},
        "logistic": {"intercept": rng.normal(-0.3, 0.1, draws),
                     "coef": rng.normal(0.0, 1.0, (draws, k))},
    }
    post = {m: {s: v.astype(np.float32) for s, v in p.items()}
            for m, p in post.items()}
    # Observed outcomes from the first draw's model.
    eta0 = X @ post["poisson"]["beta"][0] + post["poisson"]["beta0"][0]
    y = {
        "poisson": rng.poisson(np.exp(eta0) * exposure),
        "negbin_glm": rng.poisson(rng.gamma(4.0, np.exp(eta0) * exposure / 4.0)),
        "logistic": (rng.random(n) < 1 / (1 + np.exp(-eta0))),
    }
    np.save(os.path.join(work, "X.npy"), X)
    np.save(os.path.join(work, "exposure.npy"), exposure)
    for m in MODELS:
        np.savez(os.path.join(work, m + "_post.npz"), **post[m])
        np.save(os.path.join(work, m + "_y.npy"), y[m].astype(np.int32))
    return X, exposure, post, {m: v.astype(np.int32) for m, v in y.items()}


def numpy_peer(model, what, X, exposure, post, y, out, seed=1):
    """The NumPy + SciPy code: one draw at a time, written per draw."""
    p = post[model]
    draws = next(iter(p.values())).shape[0]
    n = X.shape[0]
    rng = np.random.default_rng(seed)
    ll = what == "log-likelihood"
    dtype = np.float32 if ll else np.int32
    shuffle = Blosc.SHUFFLE if dtype == np.float32 else Blosc.BITSHUFFLE
    store = zarr.open_array(out, mode="w", shape=(draws, n),
                            chunks=(1, n), dtype=dtype, zarr_format=2,
                            compressor=Blosc(cname="zstd", clevel=1,
                                             shuffle=shuffle))
    log_exposure = np.log(exposure)
    lg_y1 = gammaln(y.astype(np.float64) + 1.0) if ll else None
    for d in range(draws):
        if model == "poisson":
            eta = X @ p["beta"][d] + p["beta0"][d] + log_exposure
            rate = np.exp(eta)
            row = y * eta - rate - lg_y1 if ll else rng.poisson(rate)
        elif model == "negbin_glm":
            mu = np.exp(X @ p["beta"][d] + p["alpha"][d] + log_exposure)
            phi = np.float64(p["phi"][d])
            if ll:
                row = (gammaln(y + phi) - gammaln(phi) - lg_y1 +
                       phi * np.log(phi / (phi + mu)) + y * np.log(mu / (phi + mu)))
            else:
                row = rng.poisson(rng.gamma(phi, mu / phi))
        else:
            logit = X @ p["coef"][d] + p["intercept"][d]
            if ll:
                row = -np.logaddexp(0.0, np.where(y == 1, -logit, logit))
            else:
                row = rng.random(n) < 1.0 / (1.0 + np.exp(-logit))
        store[d] = row.astype(dtype)


def aimz_cmd(build, work, model, what, out, sync=True):
    cmd = [os.path.join(build, "bin", "aimz-run"), what,
           os.path.join(work, model + ".so"),
           "--posterior", os.path.join(work, model + "_post.npz"),
           "--out", out, "--quiet"]
    for name in MODELS[model]:
        cmd += ["--data", "%s=%s" % (name, os.path.join(work, name + ".npy"))]
    if what == "log-likelihood":
        cmd += ["--data", "y=" + os.path.join(work, model + "_y.npy")]
    else:
        # The peer writes the outcome only; by default predict also writes
        # the models' deterministic site (a float array as large again).
        cmd += ["--return-sites", "y"]
    if not sync:
        cmd.append("--no-sync")
    return cmd


def timed(fn):
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def check(model, what, ours, peer):
    a = zarr.open_array(os.path.join(ours, "y"), mode="r")[:]
    b = zarr.open_array(peer, mode="r")[:]
    if what == "log-likelihood":
        if not np.allclose(a, b, rtol=1e-4, atol=1e-4):
            worst = np.max(np.abs(a - b) / (1e-4 + np.abs(b)))
            sys.exit("%s %s: log-likelihoods disagree (worst %.3g)" % (model, what, worst))
    else:
        # The grand means of two independent sets of draws: within 6
        # standard errors unless the samplers disagree.
        a64, b64 = a.astype(np.float64), b.astype(np.float64)
        se = np.sqrt(a64.var() / a64.size + b64.var() / b64.size)
        if abs(a64.mean() - b64.mean()) > 6 * se:
            sys.exit("%s %s: predictive means disagree (%.6g vs %.6g, se %.3g)"
                     % (model, what, a64.mean(), b64.mean(), se))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=200000)
    ap.add_argument("--draws", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work", default=None)
    a = ap.parse_args()
    work = a.work or os.path.join(a.build, "bench-work", "count_models")
    os.makedirs(work, exist_ok=True)
    X, exposure, post, y = make_inputs(work, a.n, a.draws)
    for m in MODELS:
        subprocess.run([os.path.join(a.build, "bin", "aimzc"),
                        os.path.join(ROOT, "dsl-examples", m + ".aimz"),
                        "-o", os.path.join(work, m + ".so")], check=True)
    print("count_models: %s, %d cores, n = %d, %d draws, median of %d interleaved rounds"
          % (cpu_name(), os.cpu_count(), a.n, a.draws, a.rounds))
    print("%-11s %-15s %9s %9s %9s %7s" % ("model", "command", "aimz-run", "--no-sync",
                                           "NumPy", "ratio"))
    for m in MODELS:
        for what in ("predict", "log-likelihood"):
            ours = os.path.join(work, "ours.zarr")
            peer = os.path.join(work, "peer.zarr")
            t_ours, t_nosync, t_peer = [], [], []
            for r in range(a.rounds):
                for path in (ours, peer):
                    shutil.rmtree(path, ignore_errors=True)
                t_ours.append(timed(lambda: subprocess.run(
                    aimz_cmd(a.build, work, m, what, ours), check=True)))
                shutil.rmtree(ours, ignore_errors=True)
                t_nosync.append(timed(lambda: subprocess.run(
                    aimz_cmd(a.build, work, m, what, ours, sync=False), check=True)))
                t_peer.append(timed(lambda: numpy_peer(m, what, X, exposure, post, y[m], peer)))
                if r == 0:
                    check(m, what, ours, peer)
            med = [statistics.median(t) for t in (t_ours, t_nosync, t_peer)]
            print("%-11s %-15s %8.2fs %8.2fs %8.2fs %6.1fx" % (m, what, med[0], med[1], med[2],
                                                                med[2] / med[0]), flush=True)


if __name__ == "__main__":
    main()
