#!/usr/bin/env python3
"""The MLP benchmark end to end through aimz-run into a compressed store.

    mlp_e2e_bench.py --aimz-run AIMZ_RUN --model mlp.so [--draws 1000]
                     [--obs 1000000] [--tmp DIR] [--per-run-seconds 60]

dsl-examples/mlp.aimz (100 -> 128 -> 128 -> 128 -> 1): X ~ N(0, 1) and a
random posterior (0.1 x N(0, 1), as aimz_gpu_bench and numpyro_mlp_bench.py
use), then `aimz-run predict` over D draws x N observations with:
  - gpu: the defaults on the GPU (Zarr, blosc:zstd:1, synced), run twice:
    the first may include the driver's JIT;
  - gpu_batch65536: 65536 observations per batch and chunk;
  - gpu_store_off: --codec none --no-sync (the compression and sync share);
  - cpu: --device cpu, for the ratio on the same machine.
Each run's wall time, store size and aimz-run's summary line are printed
as "RESULT phase=mlp_e2e ..." lines. Run on the lent GPU machine by
test/unit/gpu/device_check.sh (numpy only).
"""

import argparse
import os
import shutil
import subprocess
import sys
import time

import numpy as np


def store_bytes(path):
    total = 0
    for root, _, files in os.walk(path):
        total += sum(os.path.getsize(os.path.join(root, f)) for f in files)
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--aimz-run", required=True)
    ap.add_argument("--model", required=True)
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--obs", type=int, default=1_000_000)
    ap.add_argument("--tmp", default="/tmp/aimz-mlp-e2e")
    ap.add_argument("--per-run-seconds", type=float, default=60)
    a = ap.parse_args()
    os.makedirs(a.tmp, exist_ok=True)
    t = time.perf_counter()
    rng = np.random.default_rng(1)
    d, h = 100, 128
    shapes = {"w1": (d, h), "b1": (h,), "w2": (h, h), "b2": (h,),
              "w3": (h, h), "b3": (h,), "w4": (h,), "b4": ()}
    post = {k: (0.1 * rng.standard_normal((a.draws,) + s)).astype(np.float32)
            for k, s in shapes.items()}
    xp, pp = os.path.join(a.tmp, "X.npy"), os.path.join(a.tmp, "post.npz")
    np.save(xp, rng.standard_normal((a.obs, d), dtype=np.float32))
    np.savez(pp, **post)
    print("RESULT phase=mlp_e2e_data draws=%d obs=%d seconds=%.2f" %
          (a.draws, a.obs, time.perf_counter() - t), flush=True)
    base = [a.aimz_run, "predict", a.model, "--data", "X=" + xp,
            "--posterior", pp, "--seed", "3"]
    variants = [("gpu_first", ["--device", "gpu"]),
                ("gpu", ["--device", "gpu"]),
                ("gpu_batch65536", ["--device", "gpu", "--batch-size",
                                    "65536"]),
                ("gpu_store_off", ["--device", "gpu", "--codec", "none",
                                   "--no-sync"]),
                ("cpu", ["--device", "cpu"])]
    rc = 0
    for tag, extra in variants:
        out = os.path.join(a.tmp, tag + ".zarr")
        shutil.rmtree(out, ignore_errors=True)
        t = time.perf_counter()
        try:
            p = subprocess.run(base + ["--out", out] + extra,
                               capture_output=True, text=True,
                               timeout=a.per_run_seconds)
            secs = time.perf_counter() - t
            summary = (p.stdout.strip().splitlines() or [""])[0]
            err = p.stderr.strip().replace("\n", " | ")[-600:]
            print('RESULT phase=mlp_e2e run=%s rc=%d seconds=%.2f '
                  'store_mib=%.1f summary="%s" stderr="%s"' %
                  (tag, p.returncode, secs,
                   store_bytes(out) / 2**20 if os.path.isdir(out) else 0,
                   summary, err), flush=True)
            rc |= p.returncode != 0
        except subprocess.TimeoutExpired:
            print("RESULT phase=mlp_e2e run=%s timed_out_after=%.0f" %
                  (tag, a.per_run_seconds), flush=True)
        shutil.rmtree(out, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
