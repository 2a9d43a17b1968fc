#!/usr/bin/env python3
"""Checks that two aimzc builds give byte-identical results.

    tools/same_results.py --old OLD_AIMZC --new NEW_AIMZC --aimz-run AIMZ_RUN
                          [--old-flags=--no-precompiled-support] MODEL.aimz...

Each model is compiled by both compilers; synthetic inputs (every dimension
3, the observation dimension 203 so that vector remainders run) and a
prior-predictive posterior are made once, then prior predictive, predict
and log-likelihood run on both libraries, every site returned, and the
arrays compared byte for byte. Prints one line per model and run; exits 1
when any array differs. A model the synthetic data does not suit (an
aimz-run error) is reported as skipped. Run with Debian's /usr/bin/python3
(numpy).
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

OBS = 203
DIM = 3


def run(cmd):
    return subprocess.run([str(c) for c in cmd], capture_output=True,
                          text=True, timeout=600)


def inputs_for(manifest, rng, tmp, obs=OBS):
    """--data arguments for every input, and --dim for the other dims."""
    sizes = {d: (obs if d == manifest.get("obs_dim") else DIM)
             for d in manifest["dims"]}
    data, used = [], set()
    for i in manifest["inputs"]:
        # A dim may be an expression of others ("K + 1"): evaluated with
        # the dims' sizes (names and arithmetic only).
        shape = [s if isinstance(s, int)
                 else eval(s, {"__builtins__": {}}, sizes)
                 for s in i["shape"]]
        used.update(d for s in i["shape"] if isinstance(s, str)
                    for d in re.findall(r"[A-Za-z_]\w*", s))
        if i["dtype"].startswith("f"):
            a = rng.normal(size=shape).astype(np.float32 if i["dtype"] == "f32"
                                              else np.float64)
        else:
            a = rng.integers(0, DIM, size=shape).astype(
                np.int32 if i["dtype"] == "i32" else np.int64)
        path = os.path.join(tmp, i["name"] + ".npy")
        np.save(path, a)
        data += ["--data", "%s=%s" % (i["name"], path)]
    dims = []
    for d, n in sizes.items():
        if d not in used and d != manifest.get("obs_dim"):
            dims += ["--dim", "%s=%d" % (d, n)]
    if manifest.get("obs_dim") and manifest["obs_dim"] not in used:
        dims += ["--num-observations", str(obs)]
    return data, dims


def compare(a_path, b_path):
    with np.load(a_path) as a, np.load(b_path) as b:
        if sorted(a.files) != sorted(b.files):
            return "different arrays: %s vs %s" % (a.files, b.files)
        for k in a.files:
            x, y = a[k], b[k]
            if x.dtype != y.dtype or x.shape != y.shape or \
                    x.tobytes() != y.tobytes():
                return "%s differs" % k
        return "same (%d arrays, %d bytes)" % (
            len(a.files), sum(a[k].nbytes for k in a.files))


def synthetic_runs(manifest, aimz_run, lib, tmp, num_draws=12, obs=OBS,
                   extra=()):
    """The runs to compare for one model: synthetic inputs, and a posterior
    and observed values drawn by a prior-predictive run of `lib`.

    Returns (runs, None) with runs a list of (command, arguments after
    the library), or (None, why) when the synthetic data do not suit it."""
    name = manifest["model"]
    rng = np.random.default_rng(7)
    data, dims = inputs_for(manifest, rng, tmp, obs)
    # Factors only come out of log-likelihood (its default sites).
    sites = ",".join(s["name"] for s in manifest["sites"]
                     if s["kind"] != "factor")
    base = ["--return-sites", sites, "--seed", "5", "--quiet"]
    prior = os.path.join(tmp, name + "-post.npz")
    p = run([aimz_run, "prior-predictive", lib, "--num-samples",
             str(num_draws), "--out", prior] + data + dims + base +
            list(extra))
    if p.returncode:
        return None, "synthetic data: %s" % p.stderr.strip().splitlines()[-1:]
    latents = [s["name"] for s in manifest["sites"] if s["kind"] == "latent"]
    observed = [s for s in manifest["sites"] if s["kind"] == "observed"]
    with np.load(prior) as z:
        np.savez(os.path.join(tmp, name + "-latents.npz"),
                 **{k: z[k] for k in latents if k in z.files})
        obs_data = []
        for s in observed:
            if s["name"] in z.files and s["name"] not in \
                    [i["name"] for i in manifest["inputs"]]:
                path = os.path.join(tmp, "%s-%s.npy" % (name, s["name"]))
                np.save(path, z[s["name"]][0])
                obs_data += ["--data", "%s=%s" % (s["name"], path)]
    post = ["--posterior", os.path.join(tmp, name + "-latents.npz")]
    return [("prior-predictive",
             data + ["--num-samples", str(num_draws)] + dims + base),
            ("predict", data + post + dims + base),
            ("log-likelihood", data + post + obs_data + dims + base[2:])], None


def check_model(src, args, tmp):
    name = os.path.splitext(os.path.basename(src))[0]
    libs = {}
    for tag, aimzc, flags in (("old", args.old, args.old_flags),
                              ("new", args.new, args.new_flags)):
        libs[tag] = os.path.join(tmp, "%s-%s.so" % (name, tag))
        p = run([aimzc, src, "-o", libs[tag]] + flags)
        if p.returncode:
            return [("compile", "FAILED (%s): %s" % (tag, p.stderr.strip()))]
    manifest = json.loads(run([args.new, src, "--emit=manifest"]).stdout)
    runs, why = synthetic_runs(manifest, args.aimz_run, libs["old"], tmp)
    if runs is None:
        return [("all", "skipped (%s)" % why)]
    results = []
    for cmd, extra in runs:
        outs = {}
        for tag in ("old", "new"):
            outs[tag] = os.path.join(tmp, "%s-%s-%s.npz" % (name, cmd, tag))
            p = run([args.aimz_run, cmd, libs[tag], "--out", outs[tag]] +
                    extra)
            if p.returncode:
                # The old library failing: data it does not suit; only the
                # new one failing: a broken library.
                why = p.stderr.strip().splitlines()[-1:]
                results.append((cmd, "skipped (%s)" % why if tag == "old"
                                else "FAILED (new only): %s" % why))
                outs = None
                break
        if outs:
            results.append((cmd, compare(outs["old"], outs["new"])))
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old", required=True)
    ap.add_argument("--new", required=True)
    ap.add_argument("--aimz-run", required=True)
    ap.add_argument("--old-flags", action="append", default=[])
    ap.add_argument("--new-flags", action="append", default=[])
    ap.add_argument("models", nargs="+")
    args = ap.parse_args()
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for src in args.models:
            for cmd, verdict in check_model(src, args, tmp):
                print("%-28s %-17s %s" % (os.path.basename(src), cmd, verdict),
                      flush=True)
                bad += "differs" in verdict or "different" in verdict or \
                    "FAILED" in verdict
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
