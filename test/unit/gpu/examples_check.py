#!/usr/bin/env python3
"""Every compiled example through aimz-run on a real GPU, against the CPU.

    examples_check.py --aimz-run AIMZ_RUN --models DIR [--obs N] [--draws D]
                      [--max-seconds S] [--exact] [MODEL ...]

DIR holds the compiled models (MODEL.so; all of them unless named). Per
model: synthetic inputs and a prior-predictive posterior
(tools/same_results.py's), then prior predictive, predict and
log-likelihood, each on the CPU (`--device cpu`) and on the GPU (`--device
gpu`) under both plans (`--shard-axis obs` and `draw`), every site
returned, into .npz. A GPU run passes when its integers are byte-identical
to the CPU's and its floats within 1e-5 relative (1e-6 absolute near zero);
with --exact (the checking stand-in driver, which runs the host code), when
every byte is the CPU's.
Prints one line per model, command and plan, then a summary; exits 1 when
any GPU run fails or differs. Run on the lent GPU machine by
test/unit/gpu/device_check.sh (numpy only), and here by the e2e test
e2e.run.gpu_examples on the stand-in driver (AIMZ_CUDA_DRIVER).
"""

import argparse
import json
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "..", "tools"))
import same_results as S  # noqa: E402

RTOL, ATOL = 1e-5, 1e-6


def differences(cpu_path, gpu_path, exact):
    """'' when the GPU's arrays match the CPU's, else what differs."""
    bad = []
    worst = 0.0
    with np.load(cpu_path) as c, np.load(gpu_path) as g:
        if sorted(c.files) != sorted(g.files):
            return "different arrays: %s vs %s" % (c.files, g.files), 0.0
        for k in sorted(c.files):
            x, y = c[k], g[k]
            if x.dtype != y.dtype or x.shape != y.shape:
                bad.append("%s: %s%s vs %s%s" % (k, x.dtype, x.shape, y.dtype,
                                                 y.shape))
            elif x.dtype.kind in "iub" or exact:
                n = int(np.count_nonzero(x.view(np.uint8) != y.view(np.uint8)))
                if n:
                    bad.append("%s: %d of %d bytes differ" % (k, n, x.nbytes))
            else:
                close = np.isclose(y, x, rtol=RTOL, atol=ATOL, equal_nan=True)
                with np.errstate(all="ignore"):
                    rel = np.abs(y.astype(np.float64) - x) / np.maximum(
                        np.abs(x.astype(np.float64)), ATOL / RTOL)
                fin = np.isfinite(rel)
                if fin.any():
                    worst = max(worst, float(rel[fin].max()))
                n = int(x.size - np.count_nonzero(close))
                if n:
                    bad.append("%s: %d of %d floats off (max rel %.3g)" %
                               (k, n, x.size, float(rel[fin].max())))
    return "; ".join(bad), worst


def check_model(name, args, tmp):
    lib = os.path.join(args.models, name + ".so")
    p = S.run([args.aimz_run, "info", "--json", lib])
    if p.returncode:
        yield "all", "-", "FAILED: aimz-run info: %s" % p.stderr.strip()
        return
    manifest = json.loads(p.stdout)
    cpu = ["--device", "cpu"]
    # For the checking stand-in driver (a dry run off the GPU machine): the
    # model whose host code it runs as each GPU thread. The real driver
    # ignores it.
    os.environ["AIMZ_FAKE_CUDA_MODEL"] = lib
    runs, why = S.synthetic_runs(manifest, args.aimz_run, lib, tmp,
                                 args.draws, args.obs, cpu)
    if runs is None:
        yield "all", "-", "skipped (%s)" % why
        return
    for cmd, extra in runs:
        ref = os.path.join(tmp, "%s-%s-cpu.npz" % (name, cmd))
        p = S.run([args.aimz_run, cmd, lib, "--out", ref] + extra + cpu)
        if p.returncode:
            yield cmd, "-", "skipped (CPU: %s)" % p.stderr.strip()[-200:]
            continue
        for axis in ("obs", "draw"):
            out = os.path.join(tmp, "%s-%s-%s.npz" % (name, cmd, axis))
            t = time.perf_counter()
            p = S.run([args.aimz_run, cmd, lib, "--out", out, "--device",
                       "gpu", "--shard-axis", axis] + extra)
            secs = time.perf_counter() - t
            if p.returncode:
                err = p.stderr.strip()
                # A plan the model refuses on the CPU too is not a GPU fault.
                q = S.run([args.aimz_run, cmd, lib, "--out", out + ".cpu.npz",
                           "--shard-axis", axis] + extra + cpu)
                verdict = ("skipped (refused on the CPU too)" if q.returncode
                           else "FAILED: %s" % err[-400:])
                yield cmd, axis, verdict
                continue
            diff, worst = differences(ref, out, args.exact)
            yield cmd, axis, ("DIFFERS: %s" % diff if diff else
                              "ok (max rel %.2g, %.2f s)" % (worst, secs))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--aimz-run", required=True)
    ap.add_argument("--models", required=True)
    ap.add_argument("--obs", type=int, default=2051)
    ap.add_argument("--draws", type=int, default=24)
    ap.add_argument("--max-seconds", type=float, default=1e9)
    ap.add_argument("--exact", action="store_true")
    ap.add_argument("names", nargs="*")
    args = ap.parse_args()
    names = args.names or sorted(
        f[:-3] for f in os.listdir(args.models) if f.endswith(".so"))
    counts = {"ok": 0, "skipped": 0, "bad": 0}
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for name in names:
            if time.perf_counter() - t0 > args.max_seconds:
                print("%-24s not run (out of time)" % name, flush=True)
                counts["skipped"] += 1
                continue
            for cmd, axis, verdict in check_model(name, args, tmp):
                print("%-24s %-17s %-5s %s" % (name, cmd, axis, verdict),
                      flush=True)
                key = verdict.split()[0]
                counts["ok" if key == "ok" else
                       "skipped" if key == "skipped" else "bad"] += 1
    print("RESULT phase=examples ok=%d skipped=%d failed_or_differs=%d "
          "seconds=%.1f" % (counts["ok"], counts["skipped"], counts["bad"],
                            time.perf_counter() - t0))
    return 1 if counts["bad"] else 0


if __name__ == "__main__":
    sys.exit(main())
